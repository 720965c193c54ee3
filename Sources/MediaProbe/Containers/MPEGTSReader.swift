#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Stream facts of an MPEG transport stream (AVCHD `.mts`/`.m2ts` from camcorders and cameras) from our own
/// reader, in the shape and with the values `avformat_find_stream_info` gives, without decoding.
///
/// libavformat finds an H.264 stream's size and frame rate by pushing the first 2 MiB of the file through
/// its H.264 parser and decoder: ~25 ms of CPU for one second of 1080i, more than everything else a probe
/// does. Everything it learns is in a few bytes: the program map table (PAT → PMT) names the streams, the
/// sequence parameter set gives the size, interlacing and VUI frame rate, an AC-3 or LPCM header gives the
/// audio, a PGS presentation segment the subtitle plane, and PES timestamps at the head and the tail give
/// the durations. So we read the head 128 KiB at a time (up to 2 MiB, stopping as soon as every stream is
/// known) and the last 250,000 bytes (more while a stream has no timestamp there), as libavformat's duration
/// estimate does, and never look at the bytes between.
///
/// The values follow libavformat 5.1's conventions so that stored facts do not depend on which reader made
/// them (`MPEGTSReaderTests` compares the two on real and generated files):
/// - a stream starts at the PTS of its first PES (decode order: leading B-frames of an open GOP come later
///   in the file and are not counted) and ends at its greatest PTS in the tail plus one frame: for video
///   one `r_frame_rate` period, for audio the frames in that last PES;
/// - the file's duration runs from the earliest start of any stream to the latest end; its bit rate is
///   the file size over that duration;
/// - `averageFrameRate` is the VUI frame rate (`time_scale / 2·num_units_in_tick`, or the PTS step when the
///   VUI has no timing), `claimedFrameRate` twice that for interlaced video (the field rate, as
///   `r_frame_rate` reports it);
/// - a stream's codec tag is its registration descriptor's four characters, or else its stream type.
///
/// Anything outside what is read here (another codec, several programs, no PMT in the head, an E-AC-3
/// stream in an AC-3 PID, a parameter set we cannot parse) returns `.unsupported` and the caller asks
/// libavformat, as before.
public enum MPEGTSReader {
    public enum Reading: Sendable {
        /// The file's and every stream's facts, as libavformat would give them.
        case facts(FormatFacts, [StreamFacts])
        /// What this reader does not cover: the caller asks libavformat.
        case unsupported(String)
    }

    /// How the facts name this reader (`FormatFacts.reader`, and the source of a pixel size).
    static let name = "MPEG-TS PMT, H.264 SPS and PES timestamps (our reader)"

    /// Where our facts and libavformat's disagree, one line per fact (empty when they agree).
    static func differences(_ ours: (format: FormatFacts, streams: [StreamFacts]), _ theirs: AVProbe.Result) -> [String] {
        var out: [String] = []
        func near(_ a: Double?, _ b: Double?) -> Bool {
            guard let a, let b else { return a == nil && b == nil }
            return abs(a - b) <= 0.0005 * max(1, abs(b))
        }
        func compare<T: Equatable>(_ what: String, _ a: T?, _ b: T?) {
            if a != b { out.append("\(what): ours \(a.map { "\($0)" } ?? "none"), libavformat \(b.map { "\($0)" } ?? "none")") }
        }
        if !near(ours.format.durationSeconds, theirs.format.durationSeconds) {
            compare("duration", ours.format.durationSeconds, theirs.format.durationSeconds)
        }
        compare("streams", ours.streams.count, theirs.streams.count)
        for (a, b) in zip(ours.streams, theirs.streams) {
            let s = "stream \(a.index)"
            compare("\(s) codec", a.codec, b.codec)
            compare("\(s) codec tag", a.codecTag, b.codecTag)
            compare("\(s) width", a.width, b.width)
            compare("\(s) height", a.height, b.height)
            compare("\(s) sample rate", a.sampleRate, b.sampleRate)
            compare("\(s) channels", a.channels, b.channels)
            compare("\(s) bit rate", a.bitRate, b.bitRate)
            if !near(a.averageFrameRate, b.averageFrameRate) { compare("\(s) average frame rate", a.averageFrameRate, b.averageFrameRate) }
            if !near(a.claimedFrameRate, b.claimedFrameRate) { compare("\(s) r_frame_rate", a.claimedFrameRate, b.claimedFrameRate) }
            if !near(a.durationSeconds, b.durationSeconds) { compare("\(s) duration", a.durationSeconds, b.durationSeconds) }
        }
        return out
    }

    /// libavformat's default probe size: where it stops looking for stream parameters.
    public static let headLimit = 2 << 20
    /// libavformat's `DURATION_MAX_READ_SIZE`: the tail read for the last timestamps.
    public static let tailLimit = 250_000
    /// Bytes kept of one PES packet (an SPS, an audio header and a presentation segment sit at its start).
    static let pesKeep = 64 << 10
    /// PES packets of a video stream searched for its SPS before giving up.
    static let videoPESLimit = 64
    static let ptsModulus: Int64 = 1 << 33

    enum Kind {
        case h264, ac3, lpcm, pgs

        var type: String {
            switch self {
            case .h264: return "video"
            case .ac3, .lpcm: return "audio"
            case .pgs: return "subtitle"
            }
        }

        /// `avcodec_get_name` of the codec libavformat assigns.
        var codec: String {
            switch self {
            case .h264: return "h264"
            case .ac3: return "ac3"
            case .lpcm: return "pcm_bluray"
            case .pgs: return "hdmv_pgs_subtitle"
            }
        }
    }

    struct Audio: Equatable {
        var sampleRate: Int
        var channels: Int
        var bitRate: Int64
        /// AC-3: samples and bytes of one sync frame. LPCM: bytes of one sample of every channel.
        var samplesPerFrame: Int
        var bytesPerUnit: Int
    }

    struct Stream {
        var pid: Int
        var streamType: UInt8
        var kind: Kind
        var codecTag: UInt32
        var firstPTS: Int64?
        var sps: H264SequenceParameters?
        /// Whether the first slice codes a field (PAFF): libavformat's parser then makes a packet of each
        /// field, and `r_frame_rate` is the field rate.
        var fieldCoded: Bool?
        var videoPESSeen = 0
        /// The first PTS values of a video stream (for its frame step when the VUI has no timing).
        var headPTS: [Int64] = []
        var audio: Audio?
        var subtitleSize: (width: Int, height: Int)?
        /// Greatest end (PTS + duration of its last frame) seen, in 90 kHz ticks after `firstPTS`.
        var end: Int64?

        /// Whether a PES packet's payload can still tell this stream something (`readHead` looks at the
        /// payload only then); otherwise its header alone is kept.
        var wantsPayload: Bool {
            switch kind {
            case .h264: return sps == nil || fieldCoded == nil
            case .ac3, .lpcm: return audio == nil
            case .pgs: return subtitleSize == nil
            }
        }

        /// Whether the head has given everything this stream needs.
        var complete: Bool {
            guard firstPTS != nil else { return false }
            switch kind {
            case .h264: return (sps != nil && fieldCoded != nil) || videoPESSeen >= MPEGTSReader.videoPESLimit
            case .ac3, .lpcm: return audio != nil
            case .pgs: return subtitleSize != nil
            }
        }
    }

    /// Packet size and where the 0x47 sync byte sits in it: 188 (TS), 192 (M2TS: a 4-byte timecode
    /// first) or 204 (TS with Reed-Solomon parity).
    struct Layout: Equatable {
        var packetSize: Int
        var syncOffset: Int

        static func detect(_ b: [UInt8]) -> Layout? {
            for l in [Layout(packetSize: 188, syncOffset: 0), Layout(packetSize: 192, syncOffset: 4), Layout(packetSize: 204, syncOffset: 0)] {
                let n = min(4, (b.count - l.syncOffset) / l.packetSize)
                guard n >= 2 else { continue }
                if (0..<n).allSatisfy({ b[l.syncOffset + $0 * l.packetSize] == 0x47 }) { return l }
            }
            return nil
        }

        /// The first offset at or after `from` where three packets in a row are in sync.
        func resync(_ b: [UInt8], from: Int) -> Int? {
            var i = max(0, from)
            while i + syncOffset + 2 * packetSize < b.count {
                if b[i + syncOffset] == 0x47, b[i + syncOffset + packetSize] == 0x47, b[i + syncOffset + 2 * packetSize] == 0x47 { return i }
                i += 1
            }
            return nil
        }
    }

    /// Reads the head of `source` a chunk at a time until every stream is known (at most `headLimit` bytes),
    /// then the last `tailLimit` bytes, doubled up to `tailRetries` times while an audio or video stream
    /// has no timestamp there (as libavformat's `estimate_timings_from_pts` retries).
    public static func read(_ source: any ByteSource, headLimit: Int = headLimit, tailLimit: Int = tailLimit) -> Reading {
        let size = source.size
        let limit = Int(min(size, UInt64(headLimit)))
        var head: [UInt8] = []
        var demux: Demux?
        var position = 0
        var stoppedEarly = false
        while head.count < limit {
            do {
                let more = try source.read(at: UInt64(head.count), count: min(headChunk, limit - head.count))
                if more.isEmpty { break }
                head += more
            } catch {
                return .unsupported(error.description)
            }
            if demux == nil {
                guard let layout = Layout.detect(head) else { return .unsupported("no 188-, 192- or 204-byte packet sync at the start") }
                demux = Demux(layout: layout)
            }
            guard let next = demux!.scanHead(head, from: position) else {
                stoppedEarly = true
                break
            }
            position = next
        }
        guard var demux else { return .unsupported("no 188-, 192- or 204-byte packet sync at the start") }
        demux.finishHead()
        if let reason = demux.unsupported { return .unsupported(reason) }
        guard demux.pmtPID != nil, !demux.streams.isEmpty else { return .unsupported("no program map table in the first \(head.count) bytes") }
        if let s = demux.streams.first(where: { $0.kind == .h264 && $0.sps == nil }) {
            return .unsupported("no H.264 sequence parameter set for PID \(s.pid) in the first \(head.count) bytes")
        }
        if !stoppedEarly && UInt64(head.count) >= size {
            demux.scanTail(head)
        } else {
            var window = UInt64(tailLimit)
            for retry in 0...tailRetries {
                let start = size - min(window, size)
                guard let tail = try? source.read(at: start, count: Int(size - start)) else { return .unsupported("the tail cannot be read") }
                guard let first = demux.layout.resync(tail, from: 0) else { return .unsupported("no packet sync in the last \(tail.count) bytes") }
                demux.scanTail(tail, from: first)
                let timed = demux.streams.filter { $0.kind != .pgs && $0.firstPTS != nil }
                if start == 0 || retry == tailRetries || timed.allSatisfy({ $0.end != nil }) { break }
                window <<= 1
            }
        }
        let r = demux.result(fileSize: size)
        return .facts(r.format, r.streams)
    }

    /// Bytes of the head read at a time.
    static let headChunk = 128 << 10
    /// libavformat's `DURATION_MAX_RETRY`.
    static let tailRetries = 6

    /// The demultiplexer: program tables, then PES packets per elementary stream.
    struct Demux {
        let layout: Layout
        var pmtPID: Int?
        var streams: [Stream] = []
        var programSection: [UInt8] = []
        var programTableSeen = false
        var unsupported: String?
        /// The PES packet being gathered per stream index, and its full length so far. Arrays, not
        /// dictionaries: they are looked up for every packet (~5,000 in a second of AVCHD).
        var pes: [PESBuffer?] = []
        /// The stream index of each 13-bit PID, -1 for none.
        var streamIndexByPID = [Int16](repeating: -1, count: 1 << 13)

        init(layout: Layout) { self.layout = layout }

        /// Scans the packets of `b` from `from`; returns where the next packet starts (more bytes wanted), or
        /// nil once every stream is known or the stream is refused.
        mutating func scanHead(_ b: [UInt8], from: Int) -> Int? {
            forEachPacket(b, from: from) { (d: inout Demux, pid, start, payload) in
                if pid == 0 {
                    if d.pmtPID == nil, start { d.readPAT(payload) }
                } else if pid == d.pmtPID, !d.programTableSeen {
                    d.gatherPMT(payload, start: start)
                } else if case let i = Int(d.streamIndexByPID[pid]), i >= 0 {
                    d.gatherPES(i, payload, start: start, head: true)
                }
                return d.unsupported == nil && !(d.programTableSeen && d.streams.allSatisfy(\.complete))
            }
        }

        /// The PES packets still open when the head ends count as whole.
        mutating func finishHead() {
            for i in pes.indices where pes[i] != nil { finishPES(i, head: true) }
        }

        mutating func scanTail(_ b: [UInt8], from: Int = 0) {
            pes = Array(repeating: nil, count: streams.count)
            _ = forEachPacket(b, from: from) { (d: inout Demux, pid, start, payload) in
                if case let i = Int(d.streamIndexByPID[pid]), i >= 0 { d.gatherPES(i, payload, start: start, head: false) }
                return true
            }
            for i in pes.indices where pes[i] != nil { finishPES(i, head: false) }
        }

        /// Calls `body` with each packet's PID, payload-unit-start flag and payload; resynchronises after a
        /// lost sync byte. Returns nil when `body` returned false, else where the first packet not (wholly)
        /// in `b` starts.
        mutating func forEachPacket(_ b: [UInt8], from: Int, _ body: (inout Demux, Int, Bool, ArraySlice<UInt8>) -> Bool) -> Int? {
            let size = layout.packetSize
            var i = from
            while i + size <= b.count {
                let p = i + layout.syncOffset
                guard b[p] == 0x47 else {
                    guard let next = layout.resync(b, from: i + 1) else { return i }
                    i = next
                    continue
                }
                i += size
                let flags = b[p + 1]
                guard flags & 0x80 == 0 else { continue }  // transport_error_indicator
                let pid = Int(flags & 0x1F) << 8 | Int(b[p + 2])
                let control = (b[p + 3] >> 4) & 3
                guard control & 1 == 1 else { continue }  // no payload
                var payload = p + 4
                if control & 2 == 2 { payload += 1 + Int(b[p + 4]) }
                guard payload < p + 188 else { continue }
                if !body(&self, pid, flags & 0x40 != 0, b[payload..<(p + 188)]) { return nil }
            }
            return i
        }

        mutating func readPAT(_ payload: ArraySlice<UInt8>) {
            guard let s = section(payload), s.first == 0x00, s.count >= 12 else { return }
            var programs: [(number: Int, pid: Int)] = []
            var k = s.startIndex + 8
            while k + 4 <= s.endIndex - 4 {
                let number = Int(s[k]) << 8 | Int(s[k + 1])
                let pid = Int(s[k + 2] & 0x1F) << 8 | Int(s[k + 3])
                if number != 0 { programs.append((number, pid)) }
                k += 4
            }
            guard !programs.isEmpty else { return }
            if programs.count > 1 {
                unsupported = "\(programs.count) programs"
                return
            }
            pmtPID = programs[0].pid
        }

        /// A PSI section from the first packet's payload (pointer field, table id … CRC), when it is whole.
        func section(_ payload: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
            guard let pointer = payload.first else { return nil }
            let start = payload.startIndex + 1 + Int(pointer)
            guard start + 3 <= payload.endIndex else { return nil }
            let length = Int(payload[start + 1] & 0x0F) << 8 | Int(payload[start + 2])
            guard start + 3 + length <= payload.endIndex else { return nil }
            return payload[start..<(start + 3 + length)]
        }

        /// Gathers a PMT section across packets (AVCHD's fits in one; a long descriptor loop may not).
        mutating func gatherPMT(_ payload: ArraySlice<UInt8>, start: Bool) {
            if start {
                guard let pointer = payload.first, payload.startIndex + 1 + Int(pointer) <= payload.endIndex else { return }
                programSection = Array(payload[(payload.startIndex + 1 + Int(pointer))...])
            } else if !programSection.isEmpty {
                programSection += payload
            } else {
                return
            }
            guard programSection.count >= 3 else { return }
            let length = Int(programSection[1] & 0x0F) << 8 | Int(programSection[2])
            guard programSection.count >= 3 + length else { return }
            readPMT(Array(programSection[0..<(3 + length)]))
            programSection = []
        }

        mutating func readPMT(_ s: [UInt8]) {
            guard s.count >= 16, s[0] == 0x02 else {
                unsupported = "malformed program map table"
                return
            }
            let end = s.count - 4  // CRC_32
            let programInfo = Int(s[10] & 0x0F) << 8 | Int(s[11])
            guard 12 + programInfo <= end else {
                unsupported = "malformed program map table"
                return
            }
            let programRegistration = Demux.registration(s[12..<(12 + programInfo)])
            let hdmv = programRegistration == Demux.fourCC("HDMV") || programRegistration == Demux.fourCC("HDPR")
            var k = 12 + programInfo
            var found: [Stream] = []
            while k + 5 <= end {
                let type = s[k]
                let pid = Int(s[k + 1] & 0x1F) << 8 | Int(s[k + 2])
                let infoLength = Int(s[k + 3] & 0x0F) << 8 | Int(s[k + 4])
                guard k + 5 + infoLength <= end else {
                    unsupported = "malformed program map table"
                    return
                }
                let descriptors = s[(k + 5)..<(k + 5 + infoLength)]
                k += 5 + infoLength
                let kind: Kind
                switch type {
                case 0x1B: kind = .h264
                case 0x81: kind = .ac3
                case 0x80 where hdmv: kind = .lpcm
                case 0x90 where hdmv: kind = .pgs
                default:
                    unsupported = "stream type 0x\(String(type, radix: 16)) (PID \(pid))"
                    return
                }
                let tag = Demux.registration(descriptors) ?? UInt32(type)
                found.append(Stream(pid: pid, streamType: type, kind: kind, codecTag: tag))
            }
            programTableSeen = true
            streams = found
            pes = Array(repeating: nil, count: found.count)
            for (i, st) in found.enumerated() { streamIndexByPID[st.pid] = Int16(i) }
        }

        /// The format identifier of a registration descriptor (tag 5) among `descriptors`, little-endian as
        /// libavformat stores it in `codec_tag`.
        static func registration(_ descriptors: ArraySlice<UInt8>) -> UInt32? {
            var k = descriptors.startIndex
            while k + 2 <= descriptors.endIndex {
                let tag = descriptors[k]
                let length = Int(descriptors[k + 1])
                guard k + 2 + length <= descriptors.endIndex else { return nil }
                if tag == 0x05, length >= 4 {
                    let b = descriptors[(k + 2)..<(k + 6)].map(UInt32.init)
                    return b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24
                }
                k += 2 + length
            }
            return nil
        }

        static func fourCC(_ s: String) -> UInt32 {
            let b = Array(s.utf8).map(UInt32.init)
            return b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24
        }

        /// A packet's payload added to stream `i`'s PES packet: up to `pesKeep` bytes of it while the head
        /// still wants payloads of the stream, else its header only (`PESHeader.maxLength`: the tail reads
        /// timestamps and lengths alone).
        mutating func gatherPES(_ i: Int, _ payload: ArraySlice<UInt8>, start: Bool, head: Bool) {
            if start {
                finishPES(i, head: head)
                let keep = head && streams[i].wantsPayload ? pesKeep : PESHeader.maxLength
                pes[i] = PESBuffer(bytes: Array(payload.prefix(keep)), length: payload.count, keep: keep)
            } else if var p = pes[i] {
                pes[i] = nil  // keep the buffer uniquely referenced while it grows
                if p.bytes.count < p.keep { p.bytes += payload.prefix(p.keep - p.bytes.count) }
                p.length += payload.count
                pes[i] = p
            }
        }

        mutating func finishPES(_ i: Int, head: Bool) {
            guard let p = pes[i] else { return }
            pes[i] = nil
            guard let h = PESHeader(p.bytes) else { return }
            let body = p.bytes[h.payloadStart...]
            let payloadLength = p.length - h.payloadStart
            if head {
                readHead(i, header: h, body: body)
            } else {
                readTail(i, header: h, body: body, payloadLength: payloadLength)
            }
        }

        mutating func readHead(_ i: Int, header h: PESHeader, body: ArraySlice<UInt8>) {
            if streams[i].firstPTS == nil, let pts = h.pts { streams[i].firstPTS = pts }
            switch streams[i].kind {
            case .h264:
                streams[i].videoPESSeen += 1
                if let pts = h.pts, streams[i].headPTS.count < 64 { streams[i].headPTS.append(pts) }
                if streams[i].sps == nil, let nal = Demux.nalUnit(types: [7], in: body) { streams[i].sps = try? H264SequenceParameters.parse(nal: nal) }
                if let sps = streams[i].sps, streams[i].fieldCoded == nil, let slice = Demux.nalUnit(types: [1, 5], in: body) {
                    streams[i].fieldCoded = sps.codesFields(slice: slice)
                }
            case .ac3:
                if streams[i].audio == nil, let a = Demux.ac3(body) {
                    if a.bitRate < 0 {
                        unsupported = "E-AC-3 in the AC-3 stream (PID \(streams[i].pid))"
                    } else {
                        streams[i].audio = a
                    }
                }
            case .lpcm:
                if streams[i].audio == nil { streams[i].audio = Demux.lpcm(body) }
            case .pgs:
                if streams[i].subtitleSize == nil { streams[i].subtitleSize = Demux.presentationSize(body) }
            }
        }

        mutating func readTail(_ i: Int, header h: PESHeader, body: ArraySlice<UInt8>, payloadLength: Int) {
            let s = streams[i]
            guard let pts = h.pts, let first = s.firstPTS else { return }
            // Ticks after the start, across a 33-bit wrap; a timestamp before the start is not an end.
            let offset = ((pts - first) % ptsModulus + ptsModulus) % ptsModulus
            guard offset < ptsModulus / 2 else { return }
            var duration: Int64?
            switch s.kind {
            case .h264:
                if let rate = frameRates(s)?.claimed, rate > 0 { duration = Int64(90_000 / rate) }
            case .ac3:
                // One sync frame, however many the packet holds: libavformat times the last PES packet
                // of the tail, not its frames (AVCHD cameras put one frame in each).
                if let a = s.audio { duration = Int64(a.samplesPerFrame) * 90_000 / Int64(a.sampleRate) }
            case .lpcm:
                if let a = s.audio, a.bytesPerUnit > 0, payloadLength > 4 {
                    duration = Int64((payloadLength - 4) / a.bytesPerUnit) * 90_000 / Int64(a.sampleRate)
                }
            case .pgs:
                return
            }
            guard let duration else { return }
            streams[i].end = max(s.end ?? 0, offset + duration)
        }

        /// The VUI frame rate (or the PTS step of the head) and the rate `r_frame_rate` reports.
        func frameRates(_ s: Stream) -> (average: Double, claimed: Double)? {
            var rate = s.sps?.frameRate
            if rate == nil {
                let sorted = Set(s.headPTS).sorted()
                let steps = zip(sorted.dropFirst(), sorted).map { $0 - $1 }.filter { $0 > 0 }
                if let step = steps.min() { rate = 90_000 / Double(step) }
            }
            guard let rate, rate.isFinite, rate > 0 else { return nil }
            return (rate, s.fieldCoded == true ? 2 * rate : rate)
        }

        /// The first NAL unit of one of `types` in an Annex B byte stream: from the byte after a 00 00 01
        /// start code to the next 00 00 00 or 00 00 01 (or the end). Start codes are found by `memchr` for
        /// their 01 (a byte at a time over the slice was ~23M instructions at 3k files, 30 of them AVCHD).
        static func nalUnit(types: Set<UInt8>, in b: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
            let found = b.withUnsafeBufferPointer { p -> Range<Int>? in
                guard let base = p.baseAddress else { return nil }
                let n = p.count
                var k = 0  // the first place a start code may begin
                while k + 3 < n {
                    // The start code's 01 lies at k + 2 or later; its type byte must be inside.
                    guard let one = memchr(base + k + 2, 1, n - k - 2) else { return nil }
                    let j = base.distance(to: one.assumingMemoryBound(to: UInt8.self))
                    guard j + 1 < n else { return nil }
                    guard base[j - 1] == 0, base[j - 2] == 0 else {
                        k = j - 1
                        continue
                    }
                    let start = j + 1
                    guard types.contains(base[start] & 0x1F) else {
                        k = start
                        continue
                    }
                    var e = start + 1
                    while e + 2 < n {
                        guard let zero = memchr(base + e, 0, n - 2 - e) else {
                            e = n
                            break
                        }
                        e = base.distance(to: zero.assumingMemoryBound(to: UInt8.self))
                        if base[e + 1] == 0 && base[e + 2] <= 1 { break }
                        e += 1
                    }
                    return start..<(e + 2 < n ? e : n)
                }
                return nil
            }
            return found.map { b[(b.startIndex + $0.lowerBound)..<(b.startIndex + $0.upperBound)] }
        }

        /// An AC-3 sync frame header (ATSC A/52 5.3): sample rate, channels, bit rate and frame size. A
        /// `bsid` above 10 is E-AC-3: returned with a negative bit rate so the caller can say so.
        static func ac3(_ b: ArraySlice<UInt8>) -> Audio? {
            var k = b.startIndex
            let limit = min(b.endIndex, b.startIndex + 4096)
            while k + 7 <= limit, !(b[k] == 0x0B && b[k + 1] == 0x77) { k += 1 }
            guard k + 7 <= limit else { return nil }
            let fscod = Int(b[k + 4] >> 6)
            let frmsizecod = Int(b[k + 4] & 0x3F)
            let bsid = b[k + 5] >> 3
            if bsid > 10 { return Audio(sampleRate: 0, channels: 0, bitRate: -1, samplesPerFrame: 0, bytesPerUnit: 0) }
            guard fscod < 3, frmsizecod < 38 else { return nil }
            let kbps = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 576, 640][frmsizecod >> 1]
            let sampleRate = [48000, 44100, 32000][fscod]
            let words = fscod == 1 ? kbps * 1000 * 1536 / 44100 / 16 + (frmsizecod & 1) : kbps * 1000 * 1536 / sampleRate / 16
            // acmod, then the mix levels it implies, then lfeon.
            var r = BitReader(Array(b[(k + 6)..<min(b.endIndex, k + 8)]), what: "AC-3 bsi")
            guard let acmod = try? Int(r.bits(3)) else { return nil }
            if acmod & 1 == 1 && acmod != 1 { _ = try? r.skip(2) }
            if acmod & 4 == 4 { _ = try? r.skip(2) }
            if acmod == 2 { _ = try? r.skip(2) }
            guard let lfe = try? r.bit() else { return nil }
            let channels = [2, 1, 2, 3, 3, 4, 4, 5][acmod] + (lfe ? 1 : 0)
            return Audio(sampleRate: sampleRate, channels: channels, bitRate: Int64(kbps) * 1000, samplesPerFrame: 1536, bytesPerUnit: words * 2)
        }

        /// The 4-byte header of Blu-ray LPCM (`pcm_bluray`): channel assignment, sample rate, sample size.
        static func lpcm(_ b: ArraySlice<UInt8>) -> Audio? {
            guard b.count >= 4 else { return nil }
            let h = b.startIndex
            let channels = [0, 1, 0, 2, 3, 3, 4, 4, 5, 6, 7, 8, 0, 0, 0, 0][Int(b[h + 2] >> 4)]
            let sampleRate: Int
            switch b[h + 2] & 0x0F {
            case 1: sampleRate = 48000
            case 4: sampleRate = 96000
            case 5: sampleRate = 192000
            default: return nil
            }
            let bits: Int
            switch b[h + 3] >> 6 {
            case 1: bits = 16
            case 2, 3: bits = 24  // 20-bit samples are stored in 24 bits
            default: return nil
            }
            guard channels > 0 else { return nil }
            let stored = (channels + 1) & ~1  // an odd channel count is padded to even
            return Audio(
                sampleRate: sampleRate, channels: channels, bitRate: Int64(stored * sampleRate * bits), samplesPerFrame: 1,
                bytesPerUnit: stored * bits / 8)
        }

        /// Width and height of the first PGS presentation composition segment (type 0x16).
        static func presentationSize(_ b: ArraySlice<UInt8>) -> (width: Int, height: Int)? {
            var k = b.startIndex
            while k + 7 <= b.endIndex {
                let type = b[k]
                let length = Int(b[k + 1]) << 8 | Int(b[k + 2])
                if type == 0x16 {
                    let w = Int(b[k + 3]) << 8 | Int(b[k + 4])
                    let h = Int(b[k + 5]) << 8 | Int(b[k + 6])
                    return w > 0 && h > 0 ? (w, h) : nil
                }
                k += 3 + length
            }
            return nil
        }

        func result(fileSize: UInt64) -> AVProbe.Result {
            var out: [StreamFacts] = []
            var start: Int64?
            var end: Int64?
            for (i, s) in streams.enumerated() {
                var f = StreamFacts(index: i, type: s.kind.type)
                f.codec = s.kind.codec
                f.codecTag = AVProbe.fourCC(s.codecTag)
                switch s.kind {
                case .h264:
                    f.width = s.sps?.width
                    f.height = s.sps?.height
                    if let r = frameRates(s) {
                        f.averageFrameRate = r.average
                        f.claimedFrameRate = r.claimed
                    }
                case .ac3, .lpcm:
                    if let a = s.audio {
                        f.sampleRate = a.sampleRate
                        f.channels = a.channels
                        f.bitRate = a.bitRate
                    }
                case .pgs:
                    f.width = s.subtitleSize?.width
                    f.height = s.subtitleSize?.height
                }
                if let first = s.firstPTS {
                    // Every start on one line: the earliest first PTS, across a wrap.
                    if let st = start {
                        let d = ((first - st) % ptsModulus + ptsModulus) % ptsModulus
                        if d >= ptsModulus / 2 {
                            if let e = end { end = e + (ptsModulus - d) }
                            start = first
                        }
                    } else {
                        start = first
                    }
                    if let e = s.end, e > 0 {
                        f.durationSeconds = Double(e) / 90_000
                        let d = ((first - start!) % ptsModulus + ptsModulus) % ptsModulus
                        end = max(end ?? 0, d + e)
                    }
                }
                out.append(f)
            }
            var duration: Double?
            var bitRate: Int64?
            if let end, end > 0 {
                // libavformat keeps the duration in microseconds (rounded), then divides the size by it.
                let micros = (end * 1_000_000 + 45_000) / 90_000
                duration = Double(micros) / 1_000_000
                let rate = Double(fileSize) * 8 * 1_000_000 / Double(micros)
                if rate < Double(Int64.max) { bitRate = Int64(rate) }
                // A stream with no timestamp at all takes the file's span (libavformat's
                // `fill_all_stream_timings`), rescaled to 90 kHz ticks.
                let ticks = (micros * 90_000 + 500_000) / 1_000_000
                for (i, s) in streams.enumerated() where s.firstPTS == nil { out[i].durationSeconds = Double(ticks) / 90_000 }
            }
            return AVProbe.Result(format: FormatFacts(name: "mpegts", durationSeconds: duration, bitRate: bitRate, tags: [:]), streams: out)
        }
    }

    /// A PES packet header (ISO/IEC 13818-1 2.4.3.6): where the payload starts and its PTS.
    /// A PES packet being gathered: its first `keep` bytes at most, and its full length so far.
    struct PESBuffer {
        var bytes: [UInt8]
        var length: Int
        let keep: Int
    }

    struct PESHeader {
        var payloadStart: Int
        var pts: Int64?
        /// The longest header: 9 bytes and up to 255 of optional fields and stuffing.
        static let maxLength = 9 + 255

        init?(_ b: [UInt8]) {
            guard b.count >= 9, b[0] == 0, b[1] == 0, b[2] == 1 else { return nil }
            let id = b[3]
            // Streams without the optional header: padding, private_stream_2, ECM/EMM, DSM-CC, H.222.1 E.
            if [0xBC, 0xBE, 0xBF, 0xF0, 0xF1, 0xF2, 0xF8, 0xFF].contains(id) {
                payloadStart = 6
                return
            }
            guard b[6] & 0xC0 == 0x80 else { return nil }
            payloadStart = 9 + Int(b[8])
            guard payloadStart <= b.count else { return nil }
            if b[7] & 0x80 != 0, b.count >= 14, b[9] & 0x01 == 1 {
                let p = b[9..<14].map(Int64.init)
                pts = (p[0] >> 1 & 7) << 30 | p[1] << 22 | (p[2] >> 1) << 15 | p[3] << 7 | p[4] >> 1
            }
        }
    }
}
