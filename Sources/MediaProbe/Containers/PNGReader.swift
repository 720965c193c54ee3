/// PNG chunk reader: IHDR, acTL (APNG), eXIf, tEXt/zTXt/iTXt (XMP in `XML:com.adobe.xmp`).
///
/// CRCs are not checked. Compressed text (zTXt, compressed iTXt) keeps its keyword with an empty value.
public enum PNGReader {
    public struct Result: Sendable, Equatable {
        public var facts = PNGFacts()
        public var xmpPacket: [UInt8]?
        public var warnings: [String] = []
        /// Signs that the bytes are cut (a chunk past the end, no IEND).
        public var damage: [String] = []
        public init() {}
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Largest text or XMP chunk read into memory.
    public static let maxTextChunk = 4 << 20
    static let maxChunks = 1_000_000
    static let maxTextEntries = 1000

    public static func read(_ source: any ByteSource) throws(ProbeError) -> Result {
        let size = source.size
        guard try source.read(at: 0, count: 8) == signature else {
            throw ProbeError(.malformed, "PNG: bad signature")
        }
        var r = Result()
        var pos: UInt64 = 8
        var chunks = 0
        var sawEnd = false
        while pos < size, chunks < maxChunks {
            chunks += 1
            let h = try source.read(at: pos, count: 8)
            guard h.count == 8 else {
                r.damage.append("PNG: truncated chunk header at offset \(pos)")
                break
            }
            let length = UInt64(BinaryReader.uint(h, at: 0, size: 4, bigEndian: true) ?? 0)
            let type = BinaryReader.fourCC(h[4..<8])
            let data = ByteRange(offset: pos + 8, length: length)
            guard length <= 0x7FFF_FFFF, data.end + 4 <= size || (type == "IEND" && data.end <= size) else {
                r.damage.append("PNG: chunk \(type) at offset \(pos) (\(length) bytes) runs past the end of the file")
                break
            }
            switch type {
            case "IHDR":
                if r.facts.width == nil, length >= 8 {
                    let b = try source.read(at: data.offset, count: 8)
                    r.facts.width = BinaryReader.uint(b, at: 0, size: 4, bigEndian: true).map { Int($0) }
                    r.facts.height = BinaryReader.uint(b, at: 4, size: 4, bigEndian: true).map { Int($0) }
                }
            case "acTL":
                if length >= 8 {
                    let b = try source.read(at: data.offset, count: 8)
                    r.facts.animationFrames = BinaryReader.uint(b, at: 0, size: 4, bigEndian: true).map { Int($0) }
                    r.facts.animationPlays = BinaryReader.uint(b, at: 4, size: 4, bigEndian: true).map { Int($0) }
                }
            case "eXIf":
                if r.facts.exifRange == nil { r.facts.exifRange = data }
            case "tEXt", "zTXt", "iTXt":
                if length > UInt64(maxTextChunk) {
                    r.warnings.append("PNG: \(type) chunk of \(length) bytes skipped")
                } else if r.facts.textChunks.count < maxTextEntries {
                    let b = try source.read(at: data.offset, count: Int(length))
                    text(type, b, into: &r)
                }
            case "IEND":
                sawEnd = true
            default: break
            }
            if sawEnd { break }
            pos = data.end + 4
        }
        if !sawEnd { r.damage.append("PNG: no IEND chunk") }
        return r
    }

    static func text(_ type: String, _ b: [UInt8], into r: inout Result) {
        guard let nul = b.firstIndex(of: 0), nul > 0, nul < 80 else { return }
        let keyword = String(decoding: b[..<nul], as: UTF8.self)
        switch type {
        case "tEXt":
            r.facts.textChunks[keyword] = String(b[(nul + 1)...].map { Character(Unicode.Scalar($0)) })
        case "zTXt":
            r.facts.textChunks[keyword] = ""
        default:
            guard nul + 2 < b.count else { return }
            let compressed = b[nul + 1] != 0
            var i = nul + 3
            for _ in 0..<2 {  // language tag, translated keyword
                guard let z = b[i...].firstIndex(of: 0) else { return }
                i = z + 1
            }
            let textBytes = Array(b[i...])
            if keyword == "XML:com.adobe.xmp" {
                r.facts.hasXMP = true
                if compressed {
                    r.warnings.append("PNG: compressed XMP iTXt not decoded")
                } else if r.xmpPacket == nil {
                    r.xmpPacket = textBytes
                }
            } else {
                r.facts.textChunks[keyword] = compressed ? "" : String(decoding: textBytes, as: UTF8.self)
            }
        }
    }
}
