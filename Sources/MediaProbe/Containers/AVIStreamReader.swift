/// Stream facts of an AVI (the MJPEG and MPEG-4 clips of 2000s compact cameras, DivX/Xvid files) from our
/// own reader, in the shape and with the values libavformat 5.1's AVI demuxer and `avformat_find_stream_info`
/// give, without decoding a frame.
///
/// Asking libavformat costs more than the file: the first AVI of a run loads libavformat and libavcodec with
/// their ~130 dependencies (~30 ms and ~32 MiB), and each file then has frames decoded. Everything it
/// reports is in the header and the index:
/// - `hdrl` → `strl` → `strh` (type, rate/scale, length, sample size) and `strf` (`BITMAPINFOHEADER` or
///   `WAVEFORMATEX`) give each stream's codec, size, rates, frame count and duration;
/// - `idx1` (after `movi`) gives the video bit rate, as libavformat's `calculate_bitrate` does: the bytes of
///   a stream's indexed chunks over the time between its first and last, when the index covers the file;
/// - `INFO` (wherever it sits), `IDIT` and Nikon's `ncdt` give the container tags (`date`, `encoder`,
///   `creation_time`, `model` …).
///
/// The values follow libavformat's conventions, so stored facts do not depend on the reader
/// (`AVIStreamReaderTests` compares the two on the corpus file and on generated ones):
/// - a stream's duration is `length · scale / rate` when its samples are frames or packets (`sample size`
///   0: video, VBR audio), none for PCM-like audio; a file whose RIFF size runs past its end has them
///   scaled by the part present;
/// - the file's duration is the longest stream's, in microseconds rounded as libavformat rounds; its bit
///   rate is the file size over that;
/// - `averageFrameRate` and `claimedFrameRate` are `rate / scale` for video;
/// - a stream's codec tag is `strf`'s compression (video) or format tag (audio).
///
/// What this reader does not cover returns `.unsupported` and the caller asks libavformat, as before: an
/// OpenDML index (`indx`, files past 1 GiB), DV type-1 files, AMV, text or data streams, a codec tag not in
/// the tables below, WAVE_FORMAT_EXTENSIBLE audio, no stream with a duration.
public enum AVIStreamReader {
    public typealias Reading = MPEGTSReader.Reading

    /// How the facts name this reader (`FormatFacts.reader`).
    public static let name = "AVI strh/strf headers and idx1 index (our reader)"

    static let maxChunks = 4096
    static let maxStreams = 16
    /// Largest `idx1` read (16 bytes per chunk: ~1M chunks, hours of video).
    static let maxIndexBytes = 16 << 20

    struct Stream {
        var type = ""  // vids, auds, …
        var handler: UInt32 = 0
        var scale: UInt32 = 0
        var rate: UInt32 = 0
        var length: UInt32 = 0
        var sampleSize: UInt32 = 0
        var duration: Int64?  // in scale/rate units
        var facts: StreamFacts
        var codecKnown = false
        var blockAlign = 0
    }

    public static func read(_ src: any ByteSource) -> Reading {
        do { return try readThrowing(src) } catch { return .unsupported(error.description) }
    }

    static func readThrowing(_ src: any ByteSource) throws(ProbeError) -> Reading {
        let head = try src.read(at: 0, count: 12)
        guard head.count == 12, head.matches("RIFF"), head.matches("AVI ", at: 8) else { return .unsupported("not a RIFF AVI header") }
        let fileSize = src.size
        let riffEnd = 8 + (BinaryReader.uint(head, at: 4, size: 4, bigEndian: false) ?? 0)
        var streams: [Stream] = []
        var tags: [(String, String)] = []
        var moviList: UInt64?
        var moviEnd: UInt64 = 0
        var frameRatePeriod: UInt32 = 0
        var unsupported: String?
        var headerDone = false

        func readTag(_ key: String, at body: UInt64, size: UInt64) throws(ProbeError) {
            let b = try src.read(at: body, count: Int(min(size, 4096)))
            let end = b.firstIndex(of: 0) ?? b.count
            tags.append((key, String(decoding: b[..<end], as: UTF8.self)))
        }

        // The header: chunks read in order, lists entered (hdrl, strl, odml, INFO, ncdt), until movi.
        func walk(from start: UInt64, to end: UInt64, depth: Int, list: String) throws(ProbeError) {
            var at = start
            var n = 0
            while at + 8 <= end, n < maxChunks, unsupported == nil, !headerDone {
                n += 1
                let h = try src.read(at: at, count: 12)
                guard h.count >= 8 else { return }
                let id = BinaryReader.fourCC(h[0..<4])
                let size = BinaryReader.uint(h, at: 4, size: 4, bigEndian: false) ?? 0
                let body = at + 8
                let next = body + size + (size & 1)
                if id == "LIST", h.count == 12 {
                    let type = BinaryReader.fourCC(h[8..<12])
                    if type == "movi" {
                        moviList = body
                        moviEnd = size > 0 ? body + size + (size & 1) : fileSize
                        headerDone = true
                        return
                    }
                    if depth < 4 { try walk(from: body + 4, to: min(body + size, end), depth: depth + 1, list: type) }
                } else if list == "INFO" {
                    if size > 0 { try readTag(Self.infoKey(id), at: body, size: size) }
                } else if list == "ncdt", id == "nctg" {
                    try readNikon(at: body, size: size)
                } else {
                    try chunk(id, body: body, size: size)
                }
                at = next
            }
        }

        func readNikon(at body: UInt64, size: UInt64) throws(ProbeError) {
            let b = try src.read(at: body, count: Int(min(size, 64 << 10)))
            var i = 0
            while i + 4 <= b.count {
                let tag = Int(b[i]) | Int(b[i + 1]) << 8
                let len = Int(b[i + 2]) | Int(b[i + 3]) << 8
                let value = Array(b[(i + 4)..<min(b.count, i + 4 + min(len, 63))])
                i += 4 + len
                let end = value.firstIndex(of: 0) ?? value.count
                var text = Array(value[..<end])
                let key: String
                switch tag {
                case 0x03: key = "maker"
                case 0x04: key = "model"
                case 0x13:
                    key = "creation_time"
                    if text.count > 7, text[4] == UInt8(ascii: ":"), text[7] == UInt8(ascii: ":") {
                        text[4] = UInt8(ascii: "-")
                        text[7] = UInt8(ascii: "-")
                    }
                default: continue
                }
                tags.append((key, String(decoding: text, as: UTF8.self)))
            }
        }

        func chunk(_ id: String, body: UInt64, size: UInt64) throws(ProbeError) {
            switch id {
            case "avih" where size >= 4:
                let b = try src.read(at: body, count: 4)
                frameRatePeriod = UInt32(BinaryReader.uint(b, at: 0, size: 4, bigEndian: false) ?? 0)
            case "amvh": unsupported = "an AMV file"
            case "indx": unsupported = "an OpenDML index (indx)"
            case "IDIT":
                let b = try src.read(at: body, count: Int(min(size, 63)))
                if let t = Self.creationTime(b) { tags.append(("creation_time", t)) }
            case "strh":
                guard streams.count < maxStreams else {
                    unsupported = "more than \(maxStreams) streams"
                    return
                }
                let b = try src.read(at: body, count: Int(min(size, 56)))
                guard b.count >= 48 else {
                    unsupported = "a stream header of \(b.count) bytes"
                    return
                }
                func u32(_ o: Int) -> UInt32 { UInt32(BinaryReader.uint(b, at: o, size: 4, bigEndian: false) ?? 0) }
                var s = Stream(facts: StreamFacts(index: streams.count, type: "unknown"))
                s.type = BinaryReader.fourCC(b[0..<4])
                s.handler = u32(4)
                s.scale = u32(20)
                s.rate = u32(24)
                s.length = u32(32)
                s.sampleSize = u32(44)
                switch s.type {
                case "vids":
                    s.facts.type = "video"
                    s.sampleSize = 0
                case "auds": s.facts.type = "audio"
                case "iavs", "ivas":
                    unsupported = "a DV type-1 stream"
                    return
                default:
                    unsupported = "a '\(s.type)' stream"
                    return
                }
                if s.scale == 0 || s.rate == 0 {
                    // libavformat's repair for broken writers.
                    (s.rate, s.scale) = frameRatePeriod > 0 ? (1_000_000, frameRatePeriod) : (25, 1)
                }
                s.facts.frameCount = s.length > 0 ? Int64(s.length) : nil
                if s.sampleSize == 0 {
                    var d = Int64(s.length)
                    if d > 0, fileSize > 0, riffEnd > fileSize { d = Self.rescale(d, Int64(fileSize), Int64(riffEnd)) }
                    s.duration = d
                }
                if s.type == "vids" {
                    let r = Double(s.rate) / Double(s.scale)
                    s.facts.averageFrameRate = r
                    s.facts.claimedFrameRate = r
                }
                streams.append(s)
            case "strf":
                guard var s = streams.popLast() else { return }
                defer { streams.append(s) }
                guard !s.codecKnown, size > 0 else { return }
                let b = try src.read(at: body, count: Int(min(size, 64)))
                if s.type == "vids" {
                    guard b.count >= 20 else {
                        unsupported = "a BITMAPINFOHEADER of \(b.count) bytes"
                        return
                    }
                    let width = Int32(truncatingIfNeeded: BinaryReader.uint(b, at: 4, size: 4, bigEndian: false) ?? 0)
                    let height = Int32(truncatingIfNeeded: BinaryReader.uint(b, at: 8, size: 4, bigEndian: false) ?? 0)
                    let bits = Int(BinaryReader.uint(b, at: 14, size: 2, bigEndian: false) ?? 0)
                    let tag = Array(b[16..<20])
                    guard let codec = Self.videoCodec(tag, bits: bits) else {
                        unsupported = "video codec tag '\(BinaryReader.fourCC(tag))'"
                        return
                    }
                    s.facts.codec = codec
                    if tag != [0, 0, 0, 0] { s.facts.codecTag = BinaryReader.fourCC(tag) }
                    if width > 0 { s.facts.width = Int(width) }
                    if height != 0 { s.facts.height = Int(height.magnitude) }
                } else {
                    guard b.count >= 14 else {
                        unsupported = "a WAVEFORMATEX of \(b.count) bytes"
                        return
                    }
                    let format = Int(BinaryReader.uint(b, at: 0, size: 2, bigEndian: false) ?? 0)
                    let channels = Int(BinaryReader.uint(b, at: 2, size: 2, bigEndian: false) ?? 0)
                    let sampleRate = Int(BinaryReader.uint(b, at: 4, size: 4, bigEndian: false) ?? 0)
                    let bytesPerSecond = Int64(BinaryReader.uint(b, at: 8, size: 4, bigEndian: false) ?? 0)
                    let blockAlign = Int(BinaryReader.uint(b, at: 12, size: 2, bigEndian: false) ?? 0)
                    let bits = b.count >= 16 ? Int(BinaryReader.uint(b, at: 14, size: 2, bigEndian: false) ?? 0) : 8
                    guard let codec = Self.audioCodec(format, bits: bits) else {
                        unsupported = "audio format tag 0x" + String(format, radix: 16)
                        return
                    }
                    s.facts.codec = codec
                    if format != 0 {
                        let le = [UInt8(format & 0xFF), UInt8(format >> 8), 0, 0]
                        s.facts.codecTag = BinaryReader.fourCC(le)
                    }
                    if channels > 0 { s.facts.channels = channels }
                    if sampleRate > 0 { s.facts.sampleRate = sampleRate }
                    if bytesPerSecond > 0 { s.facts.bitRate = bytesPerSecond * 8 }
                    s.blockAlign = blockAlign
                    if s.sampleSize > 0, blockAlign > 0, s.sampleSize != UInt32(blockAlign) { s.sampleSize = UInt32(blockAlign) }
                    if codec == "mp3", blockAlign == 1152, s.sampleSize == 1152 { s.sampleSize = 0 }
                }
                s.codecKnown = true
            default: break
            }
        }

        try walk(from: 12, to: min(fileSize, max(riffEnd, 12)), depth: 0, list: "")
        if let unsupported { return .unsupported(unsupported) }
        guard let moviList else { return .unsupported("no movi list") }
        guard !streams.isEmpty, streams.allSatisfy(\.codecKnown) else { return .unsupported("a stream without a format (strf)") }

        // After movi: idx1 (the index) and INFO, as libavformat's index loader reads them.
        headerDone = false
        var index: (at: UInt64, size: UInt64)?
        var at = moviEnd
        var n = 0
        while at + 8 <= fileSize, n < 64 {
            n += 1
            let h = try src.read(at: at, count: 12)
            guard h.count >= 8 else { break }
            let id = BinaryReader.fourCC(h[0..<4])
            let size = BinaryReader.uint(h, at: 4, size: 4, bigEndian: false) ?? 0
            if id == "idx1", index == nil {
                index = (at + 8, min(size, fileSize - (at + 8)))
            } else if id == "LIST", h.count == 12, BinaryReader.fourCC(h[8..<12]) == "INFO" {
                try walk(from: at + 12, to: min(at + 8 + size, fileSize), depth: 1, list: "INFO")
            }
            at += 8 + size + (size & 1)
        }
        if let index { try applyBitRates(src, index: index, moviList: moviList, fileSize: fileSize, streams: &streams) }

        // The file's duration: the longest stream's, in microseconds (av_rescale_q, rounding to nearest).
        var micros: Int64?
        for i in streams.indices {
            guard let d = streams[i].duration, d > 0 else { continue }
            let s = streams[i]
            let g = gcd(Int64(s.scale), Int64(s.rate))  // the time base, reduced as libavformat keeps it
            streams[i].facts.durationSeconds = Double(d) * Double(Int64(s.scale) / g) / Double(Int64(s.rate) / g)
            let us = Int64((Double(d) * Double(s.scale) * 1_000_000 / Double(s.rate)).rounded(.toNearestOrAwayFromZero))
            micros = max(micros ?? 0, us)
        }
        guard let micros, micros > 0 else { return .unsupported("no stream with a duration") }
        let bitRate = Double(fileSize) * 8 * 1_000_000 / Double(micros)
        let format = FormatFacts(
            name: "avi", durationSeconds: Double(micros) / 1_000_000, bitRate: bitRate.isFinite ? Int64(bitRate) : nil,
            tags: Dictionary(tags, uniquingKeysWith: { _, last in last }))
        return .facts(format, streams.map(\.facts))
    }

    /// libavformat's `calculate_bitrate`: each stream's indexed bytes over the time from its first indexed
    /// chunk to its last, when the index covers ≥ 90 % of the file and its chunks add up to the bytes it spans.
    static func applyBitRates(_ src: any ByteSource, index: (at: UInt64, size: UInt64), moviList: UInt64, fileSize: UInt64, streams: inout [Stream])
        throws(ProbeError)
    {
        guard index.size >= 16, index.size <= UInt64(maxIndexBytes) else { return }
        let b = try src.read(at: index.at, count: Int(index.size))
        let entries = b.count / 16
        guard entries > 0 else { return }
        // Offsets are relative to the movi list or absolute: the first entry is matched to the first chunk.
        let firstPacket = try firstChunk(src, moviList: moviList)
        var dataOffset = Int64(moviList)
        struct Sum {
            var bytes: Int64 = 0
            var count = 0
            var firstTime: Int64 = 0
            var lastTime: Int64 = 0
            var lastPos: Int64 = 0
            var cumulative: Int64 = 0
            var lastAdded: Int64 = -1
        }
        var sums = [Sum](repeating: Sum(), count: streams.count)
        for e in 0..<entries {
            let o = e * 16
            let d0 = b[o]
            let d1 = b[o + 1]
            let pos32 = Int64(BinaryReader.uint(b, at: o + 8, size: 4, bigEndian: false) ?? 0)
            let len = Int64(BinaryReader.uint(b, at: o + 12, size: 4, bigEndian: false) ?? 0)
            if e == 0, let firstPacket, Int64(moviList) + 4 != pos32 || pos32 + 500 > firstPacket {
                dataOffset = firstPacket - pos32
            }
            guard d0 >= UInt8(ascii: "0"), d0 <= UInt8(ascii: "9"), d1 >= UInt8(ascii: "0"), d1 <= UInt8(ascii: "9") else { continue }
            let k = Int(d0 - UInt8(ascii: "0")) * 10 + Int(d1 - UInt8(ascii: "0"))
            guard k < streams.count else { continue }
            if b[o + 2] == UInt8(ascii: "p"), b[o + 3] == UInt8(ascii: "c") { continue }  // palette changes
            let pos = pos32 + dataOffset
            if sums[k].lastAdded != pos, len > 0 {
                if sums[k].count == 0 { sums[k].firstTime = sums[k].cumulative }
                sums[k].count += 1
                sums[k].bytes += len
                sums[k].lastTime = sums[k].cumulative
                sums[k].lastPos = pos
                sums[k].lastAdded = pos
            }
            let s = streams[k]
            if s.sampleSize > 0 {
                sums[k].cumulative += len
            } else if s.blockAlign > 0 {
                sums[k].cumulative += (len + Int64(s.blockAlign) - 1) / Int64(s.blockAlign)
            } else {
                sums[k].cumulative += 1
            }
        }
        var lensum: Int64 = 0
        var maxpos: Int64 = 0
        for s in sums where s.count > 0 {
            lensum += s.bytes
            maxpos = max(maxpos, s.lastPos)
        }
        guard maxpos >= Int64(fileSize) * 9 / 10 else { return }  // the index does not cover the file
        guard lensum * 9 / 10 <= maxpos, lensum >= maxpos * 9 / 10 else { return }
        for k in streams.indices where sums[k].count >= 2 && (streams[k].facts.bitRate ?? 0) <= 0 {
            let duration = sums[k].lastTime - sums[k].firstTime
            guard duration > 0 else { continue }
            // av_rescale(8·len, den, duration·num) with the time base scale/rate reduced.
            let g = gcd(Int64(streams[k].scale), Int64(streams[k].rate))
            let num = Int64(streams[k].scale) / g
            let den = Int64(streams[k].rate) / g
            let r = rescale(8 * sums[k].bytes, den, duration * num)
            if r > 0 { streams[k].facts.bitRate = r }
        }
    }

    /// The first data chunk in movi (`##xx`), past `LIST rec ` headers and JUNK: where libavformat's index
    /// loader anchors the index's offsets.
    static func firstChunk(_ src: any ByteSource, moviList: UInt64) throws(ProbeError) -> Int64? {
        var at = moviList + 4
        for _ in 0..<64 {
            let h = try src.read(at: at, count: 12)
            guard h.count >= 8 else { return nil }
            if h[0] >= UInt8(ascii: "0"), h[0] <= UInt8(ascii: "9"), h[1] >= UInt8(ascii: "0"), h[1] <= UInt8(ascii: "9") { return Int64(at) }
            let size = BinaryReader.uint(h, at: 4, size: 4, bigEndian: false) ?? 0
            at += h.matches("LIST") ? 12 : 8 + size + (size & 1)
        }
        return nil
    }

    /// `a · b / c` rounded to nearest (libavformat's `av_rescale`), without overflow for file-sized values.
    static func rescale(_ a: Int64, _ b: Int64, _ c: Int64) -> Int64 {
        guard c > 0 else { return 0 }
        let (high, low) = a.multipliedFullWidth(by: b)
        let (q, r) = c.dividingFullWidth((high, low))
        return r * 2 >= c ? q + 1 : q
    }

    static func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? max(a, 1) : gcd(b, a % b) }

    /// IDIT as libavformat turns it into `creation_time`: `Mon Mar 10 15:04:43 2003` → `2003-03-10 15:04:43`,
    /// `2005/08/17 …` → `2005-08-17 …`.
    static func creationTime(_ raw: [UInt8]) -> String? {
        let end = raw.firstIndex(of: 0) ?? raw.count
        let text = String(decoding: raw[..<end], as: UTF8.self)
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        if parts.count >= 5, let m = months.firstIndex(of: parts[1].prefix(3).lowercased()), let day = Int(parts[2].prefix(2)),
            let year = Int(parts[4].prefix(4))
        {
            let two = FileDate.twoDigits
            var y = String(year)
            while y.count < 4 { y = "0" + y }
            return y + "-" + two(m + 1) + "-" + two(day) + " " + parts[3].prefix(8)
        }
        var bytes = Array(raw[..<end])
        if bytes.count > 7, bytes[4] == UInt8(ascii: "/"), bytes[7] == UInt8(ascii: "/") {
            bytes[4] = UInt8(ascii: "-")
            bytes[7] = UInt8(ascii: "-")
            return String(decoding: bytes, as: UTF8.self)
        }
        return nil
    }

    /// RIFF INFO ids under the names libavformat gives them (`ff_riff_info_conv`); others keep their id.
    static func infoKey(_ id: String) -> String {
        switch id {
        case "IART": "artist"
        case "ICMT": "comment"
        case "ICOP": "copyright"
        case "ICRD": "date"
        case "IGNR": "genre"
        case "ILNG": "language"
        case "INAM": "title"
        case "IPRD": "album"
        case "IPRT", "ITRK": "track"
        case "ISFT": "encoder"
        case "ISMP": "timecode"
        case "ITCH": "encoded_by"
        default: id
        }
    }

    /// libavformat's codec for a `BITMAPINFOHEADER` compression tag (`ff_codec_bmp_tags`), for the tags
    /// cameras and common encoders write; nil for the rest (the caller then asks libavformat).
    static func videoCodec(_ tag: [UInt8], bits: Int) -> String? {
        if tag == [0, 0, 0, 0] { return "rawvideo" }
        switch BinaryReader.fourCC(tag) {
        case "MJPG", "mjpg", "AVRn", "dmb1", "jpeg", "IJPG", "ACDV", "QIVG", "SLMJ", "CJPG", "AVI1", "JR24", "mjpa": return "mjpeg"
        case "FMP4", "DIVX", "DX50", "XVID", "xvid", "divx", "MP4S", "M4S2", "mp4v", "DIV1", "3IV2", "UMP4", "RMP4", "SMP4", "SEDG", "DXGM",
            "FVFW", "DCOD", "PM4V", "HDX4", "DM4V", "SN40", "GEOV", "XVIX":
            return "mpeg4"
        case "H264", "h264", "X264", "x264", "avc1", "DAVC", "SMV2", "VSSH", "Q264", "V264", "GAVC", "UMSV", "tshd", "INMC": return "h264"
        case "HEVC", "H265", "X265", "HM10": return "hevc"
        case "MP43", "DIV3", "MPG3", "DIV5", "DIV6", "DIV4", "DVX3", "AP41", "COL1", "COL0": return "msmpeg4v3"
        case "MP42", "DIV2": return "msmpeg4v2"
        case "MPG4", "MP41": return "msmpeg4v1"
        case "WMV1": return "wmv1"
        case "WMV2": return "wmv2"
        case "WMV3": return "wmv3"
        case "WVC1", "WMVA": return "vc1"
        case "dvsd", "dvhd", "dvsl", "dv25", "dv50", "cdvc", "CDVH", "CDV5", "dvc ", "dvcs", "dvh1", "dvis", "pdvc", "SL25", "SLDV": return "dvvideo"
        case "mpg1", "PIM1": return "mpeg1video"
        case "mpg2", "MPEG", "PIM2", "DVR ", "MMES", "LMP2", "slif", "EM2V": return "mpeg2video"
        case "cvid": return "cinepak"
        case "HFYU": return "huffyuv"
        case "FFVH": return "ffvhuff"
        case "FFV1": return "ffv1"
        case "MSVC", "msvc", "CRAM", "cram", "WHAM", "wham": return "msvideo1"
        case "IV31", "IV32": return "indeo3"
        case "IV41": return "indeo4"
        case "IV50": return "indeo5"
        case "VP80": return "vp8"
        case "theo": return "theora"
        case "H263", "X263", "T263", "L263", "VX1K", "ZyGo", "M263": return "h263"
        case "I263": return "h263i"
        case "FLV1": return "flv1"
        case "YUY2", "UYVY", "I420", "IYUV", "YV12", "Y422", "YUNV", "UYNV", "VYUY", "YV16", "Y800", "RGB ", "RAW ": return "rawvideo"
        default: return nil
        }
    }

    /// libavformat's codec for a `WAVEFORMATEX` format tag (`ff_codec_wav_tags`, PCM by sample size).
    static func audioCodec(_ format: Int, bits: Int) -> String? {
        switch format {
        case 0x0001:
            switch bits {
            case 8: "pcm_u8"
            case 16: "pcm_s16le"
            case 24: "pcm_s24le"
            case 32: "pcm_s32le"
            default: nil
            }
        case 0x0003: bits == 64 ? "pcm_f64le" : bits == 32 ? "pcm_f32le" : nil
        case 0x0002: "adpcm_ms"
        case 0x0006: "pcm_alaw"
        case 0x0007: "pcm_mulaw"
        case 0x0011: "adpcm_ima_wav"
        case 0x0055: "mp3"
        case 0x00FF: "aac"
        case 0x0160: "wmav1"
        case 0x0161: "wmav2"
        case 0x2000: "ac3"
        default: nil
        }
    }
}
