/// ISO-BMFF reader (QuickTime/MP4 movies, HEIF/AVIF, CR3): boxes with 32/64-bit sizes and size 0 =
/// to end; never trusts a length field, never reads past the end.
public enum BMFFReader {
    public struct Result: Sendable, Equatable {
        public var brands: [String] = []
        public var quickTime: QuickTimeFacts?
        public var heif: HEIFFacts?
        /// TIFF blocks inside a CR3 `moov/uuid` (CMT1…CMT4), for the EXIF reader.
        public var tiffBlocks: [ByteRange] = []
        public var warnings: [String] = []
        /// Signs that the bytes are cut or inconsistent (a top-level box past the end of the file, an item
        /// extent outside it).
        public var damage: [String] = []
        public init() {}
    }

    /// Largest `moov` or `meta` box loaded into memory.
    public static let maxLoadedBox = 64 << 20
    /// Most top-level boxes visited.
    static let maxTopLevelBoxes = 1_000_000

    /// Reads the box tree of `source`.
    public static func read(_ source: any ByteSource) throws(ProbeError) -> Result {
        var result = Result()
        let size = source.size
        var offset: UInt64 = 0
        var count = 0
        var sawBox = false
        var moovSeen = false
        var metaSeen = false
        var motionPhoto: ByteRange?
        while offset < size {
            count += 1
            if count > maxTopLevelBoxes {
                result.warnings.append("more than \(maxTopLevelBoxes) top-level boxes, rest skipped")
                break
            }
            let head = try source.read(at: offset, count: 32)
            if head.count < 8 {
                if sawBox && head.contains(where: { $0 != 0 }) {
                    result.warnings.append("\(head.count) trailing bytes after the last box at \(offset)")
                }
                if !sawBox { throw ProbeError(.truncated, "ISO-BMFF: file is shorter than one box header") }
                break
            }
            guard case .box(let code, let headerSize, let end, _) = BMFFHeader.parse(head[...], offset: offset, parentEnd: size) else {
                if case .bad(let why) = BMFFHeader.parse(head[...], offset: offset, parentEnd: size) {
                    if !sawBox { throw ProbeError(.malformed, "ISO-BMFF: \(why)") }
                    result.damage.append(why)
                }
                break
            }
            let type = fourCCText(code)
            if !sawBox, !knownTopLevel.contains(type) {
                throw ProbeError(.malformed, "ISO-BMFF: first box '\(type)' is not a known top-level box")
            }
            sawBox = true
            let payload = ByteRange(offset: offset + UInt64(headerSize), length: end - offset - UInt64(headerSize))
            switch type {
            case "ftyp" where result.brands.isEmpty:
                result.brands = try brands(source, payload)
            case "moov" where !moovSeen:
                moovSeen = true
                if let bytes = load(source, payload, what: "moov", warnings: &result.warnings) {
                    var p = QuickTimeMovieParser(buf: BoxBuffer(bytes: bytes, base: payload.offset))
                    result.quickTime = p.parse()
                    result.tiffBlocks += p.tiffBlocks
                    result.warnings += p.warnings
                }
            case "meta" where !metaSeen:
                metaSeen = true
                if let bytes = load(source, payload, what: "meta", warnings: &result.warnings) {
                    var p = HEIFMetaParser(buf: BoxBuffer(bytes: bytes, base: payload.offset), source: source)
                    result.heif = p.parse()
                    result.warnings += p.warnings
                    result.damage += p.damage
                }
            case "mpvd" where motionPhoto == nil:
                motionPhoto = payload
            default:
                break
            }
            offset = end
        }
        if let motionPhoto {
            if result.heif == nil { result.heif = HEIFFacts() }
            result.heif?.motionPhotoVideo = motionPhoto
        }
        return result
    }

    static let knownTopLevel: Set<String> = [
        "ftyp", "moov", "mdat", "free", "skip", "wide", "meta", "uuid", "pnot", "styp", "sidx", "moof", "pdin", "jP  ", "PICT",
    ]

    static func brands(_ source: any ByteSource, _ payload: ByteRange) throws(ProbeError) -> [String] {
        let bytes = try source.read(at: payload.offset, count: Int(min(payload.length, 4096)))
        guard bytes.count >= 8 else { return [] }
        var out = [BinaryReader.fourCC(bytes[0..<4])]
        var i = 8
        while i + 4 <= bytes.count {
            out.append(BinaryReader.fourCC(bytes[i..<i + 4]))
            i += 4
        }
        return out
    }

    static func load(_ source: any ByteSource, _ payload: ByteRange, what: String, warnings: inout [String]) -> [UInt8]? {
        guard payload.length <= UInt64(maxLoadedBox) else {
            warnings.append("\(what): \(payload.length) bytes exceeds the \(maxLoadedBox)-byte limit, skipped")
            return nil
        }
        do {
            return try source.readExactly(at: payload.offset, count: Int(payload.length), what: what)
        } catch {
            warnings.append(error.message)
            return nil
        }
    }
}
