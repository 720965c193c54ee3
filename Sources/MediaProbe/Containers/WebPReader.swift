/// WebP RIFF reader: VP8/VP8L/VP8X size, ANIM/ANMF animation, EXIF and XMP chunks.
public enum WebPReader {
    public struct Result: Sendable, Equatable {
        public var facts = WebPFacts()
        public var xmpPacket: [UInt8]?
        public var warnings: [String] = []
        /// Signs that the bytes are cut (a chunk past the end).
        public var damage: [String] = []
        public init() {}
    }

    /// Largest XMP chunk read into memory.
    public static let maxXMP = 4 << 20
    static let maxChunks = 1_000_000

    /// Reads the chunks. `facts.exifRange` is the EXIF chunk payload as stored: usually raw TIFF
    /// (`II`/`MM`), but some writers start it with `Exif\0\0`.
    public static func read(_ source: any ByteSource) throws(ProbeError) -> Result {
        let h = try source.read(at: 0, count: 12)
        guard h.count == 12, h.matches("RIFF"), h.matches("WEBP", at: 8) else {
            throw ProbeError(.malformed, "WebP: no RIFF/WEBP header")
        }
        var r = Result()
        let riffEnd = min(source.size, 8 + (BinaryReader.uint(h, at: 4, size: 4, bigEndian: false) ?? 0))
        if riffEnd < source.size { r.warnings.append("WebP: \(source.size - riffEnd) bytes after the RIFF chunk") }
        var pos: UInt64 = 12
        var chunks = 0
        var frames = 0
        var duration = 0
        while pos + 8 <= riffEnd, chunks < maxChunks {
            chunks += 1
            let c = try source.readExactly(at: pos, count: 8, what: "WebP chunk header")
            let type = BinaryReader.fourCC(c[0..<4])
            let length = BinaryReader.uint(c, at: 4, size: 4, bigEndian: false) ?? 0
            let data = ByteRange(offset: pos + 8, length: length)
            guard data.end <= riffEnd else {
                r.damage.append("WebP: chunk \(type) at offset \(pos) (\(length) bytes) runs past the end")
                break
            }
            switch type {
            case "VP8X":
                let b = try source.read(at: data.offset, count: 10)
                if b.count == 10, length >= 10 {
                    r.facts.animated = b[0] & 0x02 != 0
                    r.facts.width = Int(BinaryReader.uint(b, at: 4, size: 3, bigEndian: false) ?? 0) + 1
                    r.facts.height = Int(BinaryReader.uint(b, at: 7, size: 3, bigEndian: false) ?? 0) + 1
                }
            case "VP8 ":
                let b = try source.read(at: data.offset, count: 10)
                if r.facts.width == nil, b.count == 10, b[3] == 0x9D, b[4] == 0x01, b[5] == 0x2A {
                    r.facts.width = Int(BinaryReader.uint(b, at: 6, size: 2, bigEndian: false) ?? 0) & 0x3FFF
                    r.facts.height = Int(BinaryReader.uint(b, at: 8, size: 2, bigEndian: false) ?? 0) & 0x3FFF
                }
            case "VP8L":
                let b = try source.read(at: data.offset, count: 5)
                if r.facts.width == nil, b.count == 5, b[0] == 0x2F,
                    let bits = BinaryReader.uint(b, at: 1, size: 4, bigEndian: false)
                {
                    r.facts.width = Int(bits & 0x3FFF) + 1
                    r.facts.height = Int((bits >> 14) & 0x3FFF) + 1
                }
            case "ANIM":
                let b = try source.read(at: data.offset, count: 6)
                if b.count == 6 { r.facts.loopCount = Int(BinaryReader.uint(b, at: 4, size: 2, bigEndian: false) ?? 0) }
            case "ANMF":
                frames += 1
                let b = try source.read(at: data.offset + 12, count: 3)
                if b.count == 3 { duration += Int(BinaryReader.uint(b, at: 0, size: 3, bigEndian: false) ?? 0) }
            case "EXIF":
                if r.facts.exifRange == nil {
                    r.facts.exifRange = data
                    r.facts.hasEXIF = true
                }
            case "XMP ":
                r.facts.hasXMP = true
                if r.xmpPacket == nil {
                    if length <= UInt64(maxXMP) {
                        r.xmpPacket = try source.read(data, limit: maxXMP, what: "WebP XMP chunk")
                    } else {
                        r.warnings.append("WebP: XMP chunk of \(length) bytes skipped")
                    }
                }
            default: break
            }
            pos = data.end + (length & 1)
        }
        if frames > 0 || r.facts.animated {
            r.facts.frameCount = frames
            r.facts.durationMilliseconds = duration
        }
        return r
    }
}
