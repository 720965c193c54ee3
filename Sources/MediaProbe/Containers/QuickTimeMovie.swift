#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Parses a loaded `moov` box into `QuickTimeFacts` (and CR3 `CMT*` ranges).
struct QuickTimeMovieParser {
    let buf: BoxBuffer
    var warnings: [String] = []
    var tiffBlocks: [ByteRange] = []

    static let stillImageTimeKey = "com.apple.quicktime.still-image-time"
    static let canonUUID: [UInt8] = [0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48]

    init(buf: BoxBuffer) { self.buf = buf }

    mutating func parse() -> QuickTimeFacts {
        var facts = QuickTimeFacts()
        let moov = buf.children(0..<buf.bytes.count, path: "moov", warnings: &warnings)
        var trackIndex = 0
        var stillSources: [(track: TrackFacts, index: Int)] = []
        for box in moov {
            switch box.type {
            case "mvhd":
                parseMovieHeader(box, into: &facts)
            case "meta":
                facts.movieKeys += metaKeys(box, path: "moov/meta")
            case "udta":
                facts.userData += userData(box, path: "moov/udta")
            case "trak":
                trackIndex += 1
                let t = parseTrack(box, index: trackIndex)
                if t.timedMetadataKeys.contains(Self.stillImageTimeKey) { stillSources.append((t, trackIndex)) }
                facts.tracks.append(t)
            case "uuid" where box.uuid == Self.canonUUID:
                parseCanonUUID(box)
            default:
                break
            }
        }
        if let s = stillSources.first, let t = stillImageTime(s.track, movieTimescale: facts.movieTimescale) {
            facts.stillImageTime = Sourced(t, "moov/trak[\(s.index)] mebx still-image-time (elst + stts)")
        }
        return facts
    }

    // MARK: movie header

    mutating func parseMovieHeader(_ box: BMFFBox, into facts: inout QuickTimeFacts) {
        var r = buf.reader(box, what: "moov/mvhd")
        do {
            let (version, _) = try r.fullBoxHeader()
            let created: UInt64
            if version == 1 {
                created = try r.u64()
                _ = try r.u64()
                facts.movieTimescale = try r.u32()
                facts.movieDuration = try r.u64()
            } else {
                created = UInt64(try r.u32())
                _ = try r.u32()
                facts.movieTimescale = try r.u32()
                facts.movieDuration = UInt64(try r.u32())
            }
            facts.creationTime = Self.date1904(created)
        } catch {
            warnings.append(error.message)
        }
    }

    /// Seconds since 1904-01-01 UTC as a `FileDate` (nil for 0, which means "not set").
    static func date1904(_ seconds: UInt64) -> FileDate? {
        guard seconds > 0, seconds < 1 << 40 else { return nil }
        return FileDate(local: FileDate.utcText(Int(Int64(seconds) - 2_082_844_800)), offsetSeconds: 0)
    }

    // MARK: meta / udta

    /// `hdlr` + `keys` + `ilst` of a QuickTime `meta` box; each `meta` has its own key table.
    mutating func metaKeys(_ box: BMFFBox, path: String) -> [MetadataItem] {
        let kids = buf.childrenMaybeFull(of: box, path: path, warnings: &warnings)
        var keys: [String]?
        var handler: String?
        for k in kids {
            if k.type == "keys" { keys = QuickTimeMetadata.keys(buf, k, path: path, warnings: &warnings) }
            if k.type == "hdlr" { handler = handlerInfo(k).type }
        }
        var out: [MetadataItem] = []
        for k in kids where k.type == "ilst" {
            if let keys {
                out += QuickTimeMetadata.items(buf, k, keys: keys, path: path, warnings: &warnings)
            } else if handler == "mdir" || handler == nil {
                out += QuickTimeMetadata.items(buf, k, keys: nil, path: path, warnings: &warnings)
            } else {
                warnings.append("\(path): ilst without a keys table (handler \(handler ?? "none"))")
            }
        }
        return out
    }

    mutating func userData(_ box: BMFFBox, path: String) -> [MetadataItem] {
        var out: [MetadataItem] = []
        for k in buf.children(of: box, path: path, warnings: &warnings) {
            if k.type == "meta" {
                out += metaKeys(k, path: "\(path)/meta")
            } else if k.type.hasPrefix("©") || k.type == "loci" || k.type == "date" {
                out += QuickTimeMetadata.userDataItem(buf, k, path: "\(path)/\(k.type)", warnings: &warnings)
            }
        }
        return out
    }

    // MARK: tracks

    mutating func parseTrack(_ trak: BMFFBox, index: Int) -> TrackFacts {
        let path = "moov/trak[\(index)]"
        var t = TrackFacts(trackID: 0)
        for box in buf.children(of: trak, path: path, warnings: &warnings) {
            switch box.type {
            case "tkhd": parseTrackHeader(box, into: &t, path: path)
            case "edts":
                for e in buf.children(of: box, path: "\(path)/edts", warnings: &warnings) where e.type == "elst" {
                    t.editList = editList(e, path: "\(path)/edts/elst")
                }
            case "meta": t.keys += metaKeys(box, path: "\(path)/meta")
            case "udta": t.userData += userData(box, path: "\(path)/udta")
            case "mdia": parseMedia(box, into: &t, path: "\(path)/mdia")
            default: break
            }
        }
        if t.handler == "vide", let n = t.sampleCount, let d = t.sttsDuration, let ts = t.mediaTimescale, d > 0, ts > 0 {
            t.nominalFrameRate = Double(n) / (Double(d) / Double(ts))
        }
        return t
    }

    mutating func parseTrackHeader(_ box: BMFFBox, into t: inout TrackFacts, path: String) {
        var r = buf.reader(box, what: path, "/tkhd")
        do {
            let (version, _) = try r.fullBoxHeader()
            if version == 1 {
                try r.skip(16)
                t.trackID = try r.u32()
                try r.skip(4 + 8)
            } else {
                try r.skip(8)
                t.trackID = try r.u32()
                try r.skip(4 + 4)
            }
            try r.skip(8 + 2 + 2 + 2 + 2)
            var m: [Double] = []
            for _ in 0..<9 { m.append(Double(try r.i32())) }
            let w = try r.u32()
            let h = try r.u32()
            t.width = Int((Double(w) / 65536).rounded())
            t.height = Int((Double(h) / 65536).rounded())
            t.rotation = Self.rotation(a: m[0], b: m[1], c: m[3], d: m[4])
        } catch {
            warnings.append(error.message)
        }
    }

    /// Clockwise rotation from a display matrix (a b; c d), as exiftool's Composite:Rotation.
    static func rotation(a: Double, b: Double, c: Double, d: Double) -> Int? {
        guard a != 0 || b != 0 else { return nil }
        let deg = atan2(b, a) * 180 / Double.pi
        var q = Int((deg / 90).rounded()) * 90
        q = ((q % 360) + 360) % 360
        return q
    }

    mutating func editList(_ box: BMFFBox, path: String) -> [EditListEntry] {
        var r = buf.reader(box, what: path)
        var out: [EditListEntry] = []
        do {
            let (version, _) = try r.fullBoxHeader()
            let count = try r.u32()
            let entrySize = version == 1 ? 20 : 12
            let possible = r.remaining / entrySize
            if Int(count) > possible { warnings.append("\(path): entry count \(count) exceeds the box") }
            for _ in 0..<min(Int(count), possible) {
                let dur: UInt64
                let time: Int64
                if version == 1 {
                    dur = try r.u64()
                    time = try r.i64()
                } else {
                    dur = UInt64(try r.u32())
                    time = Int64(try r.i32())
                }
                let ri = try r.i16()
                let rf = try r.u16()
                out.append(EditListEntry(segmentDuration: dur, mediaTime: time, mediaRate: Double(ri) + Double(rf) / 65536))
            }
        } catch {
            warnings.append(error.message)
        }
        return out
    }

    mutating func parseMedia(_ mdia: BMFFBox, into t: inout TrackFacts, path: String) {
        let kids = buf.children(of: mdia, path: path, warnings: &warnings)
        for box in kids {
            switch box.type {
            case "mdhd":
                var r = buf.reader(box, what: path, "/mdhd")
                do {
                    let (version, _) = try r.fullBoxHeader()
                    if version == 1 {
                        try r.skip(16)
                        t.mediaTimescale = try r.u32()
                        t.mediaDuration = try r.u64()
                    } else {
                        try r.skip(8)
                        t.mediaTimescale = try r.u32()
                        t.mediaDuration = UInt64(try r.u32())
                    }
                } catch {
                    warnings.append(error.message)
                }
            case "hdlr":
                let h = handlerInfo(box)
                t.handler = h.type
                t.handlerName = h.name
            default:
                break
            }
        }
        for minf in kids where minf.type == "minf" {
            for stbl in buf.children(of: minf, path: "\(path)/minf", warnings: &warnings) where stbl.type == "stbl" {
                for box in buf.children(of: stbl, path: "\(path)/minf/stbl", warnings: &warnings) {
                    if box.type == "stsd" { parseSampleDescription(box, into: &t, path: "\(path)/minf/stbl/stsd") }
                    if box.type == "stts" { parseTimeToSample(box, into: &t, path: "\(path)/minf/stbl/stts") }
                }
            }
        }
    }

    /// Handler type and name of an `hdlr` box (the name may be a Pascal or a C string).
    func handlerInfo(_ box: BMFFBox) -> (type: String?, name: String?) {
        var r = buf.reader(box, what: "hdlr")
        guard (try? r.skip(8)) != nil, let type = try? r.fourCC(), (try? r.skip(12)) != nil else { return (nil, nil) }
        let rest = Array(r.rest())
        guard !rest.isEmpty else { return (type, nil) }
        let n = Int(rest[0])
        let bytes: ArraySlice<UInt8>
        if n > 0, n <= rest.count - 1, n < 0x20 || n == rest.count - 1 {
            bytes = rest[1..<(1 + n)]
        } else {
            let end = rest.firstIndex(of: 0) ?? rest.count
            bytes = rest[0..<end]
        }
        let name = String(decoding: QuickTimeMetadata.trimNULs(Array(bytes)), as: UTF8.self)
        return (type, name.isEmpty ? nil : name)
    }

    mutating func parseSampleDescription(_ box: BMFFBox, into t: inout TrackFacts, path: String) {
        let entries = buf.children(of: box, skip: 8, path: path, warnings: &warnings)
        guard let e = entries.first else { return }
        t.sampleEntry = e.type
        let p = e.payload
        if e.type == "mebx" {
            let kids = buf.children((p.lowerBound + 8)..<p.upperBound, path: "\(path)/mebx", warnings: &warnings)
            for keys in kids where keys.type == "keys" {
                for key in buf.childrenMaybeFull(of: keys, path: "\(path)/mebx/keys", warnings: &warnings) {
                    for keyd in buf.children(of: key, path: "\(path)/mebx/keys", warnings: &warnings) where keyd.type == "keyd" {
                        let kp = keyd.payload
                        guard kp.count > 4 else { continue }
                        let ns = fourCCText(UInt32(truncatingIfNeeded: BinaryReader.uint(buf.bytes, at: kp.lowerBound, size: 4, bigEndian: true) ?? 0))
                        let name = String(decoding: QuickTimeMetadata.trimNULs(Array(buf.bytes[(kp.lowerBound + 4)..<kp.upperBound])), as: UTF8.self)
                        t.timedMetadataKeys.append(ns == "mdta" || ns == "fiel" ? name : "\(ns):\(name)")
                    }
                }
            }
        } else if t.handler == "vide" || Self.visualEntries.contains(e.type) {
            if let w = BinaryReader.uint(buf.bytes, at: p.lowerBound + 24, size: 2, bigEndian: true),
                let h = BinaryReader.uint(buf.bytes, at: p.lowerBound + 26, size: 2, bigEndian: true), p.count >= 28
            {
                t.codedWidth = Int(w)
                t.codedHeight = Int(h)
            }
        }
    }

    static let visualEntries: Set<String> = ["avc1", "avc3", "hvc1", "hev1", "dvh1", "dvhe", "mp4v", "jpeg", "mjpa", "apcn", "apch", "apcs", "apco", "ap4h", "av01", "vp09", "CRAW", "s263", "h263"]

    mutating func parseTimeToSample(_ box: BMFFBox, into t: inout TrackFacts, path: String) {
        var r = buf.reader(box, what: path)
        do {
            _ = try r.fullBoxHeader()
            let count = try r.u32()
            let possible = r.remaining / 8
            if Int(count) > possible { warnings.append("\(path): entry count \(count) exceeds the box (\(possible) fit)") }
            var samples: UInt64 = 0
            var duration: UInt64 = 0
            for _ in 0..<min(Int(count), possible) {
                let n = UInt64(try r.u32())
                let delta = UInt64(try r.u32())
                samples &+= n
                let (prod, o1) = n.multipliedReportingOverflow(by: delta)
                let (sum, o2) = duration.addingReportingOverflow(prod)
                guard !o1, !o2 else {
                    warnings.append("\(path): total duration overflows")
                    break
                }
                duration = sum
            }
            t.sampleCount = samples
            t.sttsDuration = duration
        } catch {
            warnings.append(error.message)
        }
    }

    /// Presentation time of the first sample of `t`: leading empty edits (movie timescale) plus the
    /// first sample's offset inside the first real edit (media timescale).
    func stillImageTime(_ t: TrackFacts, movieTimescale: UInt32?) -> Double? {
        var start = 0.0
        for e in t.editList {
            if e.mediaTime == -1 {
                guard let mts = movieTimescale, mts > 0 else { return nil }
                start += Double(e.segmentDuration) / Double(mts)
                continue
            }
            // The first sample sits at media time 0; an edit starting later clips it to the edit start.
            return start
        }
        return start
    }

    // MARK: CR3

    mutating func parseCanonUUID(_ box: BMFFBox) {
        for k in buf.children(of: box, path: "moov/uuid", warnings: &warnings) where ["CMT1", "CMT2", "CMT4"].contains(k.type) {
            let range = ByteRange(offset: buf.fileOffset(k.payload.lowerBound), length: UInt64(k.payload.count))
            tiffBlocks.append(range)
        }
    }
}
