/// GIF block reader: logical screen size, frame count, NETSCAPE2.0 loop count.
public enum GIFReader {
    static let maxFrames = 1_000_000

    public static func read(_ source: any ByteSource) throws(ProbeError) -> GIFFacts {
        var c = ChunkedCursor(source)
        let header = try c.bytes(13, what: "GIF header")
        guard header.matches("GIF87a") || header.matches("GIF89a") else {
            throw ProbeError(.malformed, "GIF: bad signature")
        }
        let width = Int(header[6]) | Int(header[7]) << 8
        let height = Int(header[8]) | Int(header[9]) << 8
        var facts = GIFFacts(width: width, height: height, frameCount: 0, loopCount: nil)
        if header[10] & 0x80 != 0 { try c.skip(3 << (Int(header[10] & 7) + 1), what: "GIF global color table") }
        do {
            try walkBlocks(&c, &facts)
        } catch {
            guard error.code == .truncated else { throw error }
            facts.damage.append(error.message)
        }
        return facts
    }

    static func walkBlocks(_ c: inout ChunkedCursor, _ facts: inout GIFFacts) throws(ProbeError) {
        while facts.frameCount < maxFrames {
            guard let introducer = try c.byteOrNil() else {
                facts.damage.append("GIF: no trailer block")
                return
            }
            switch introducer {
            case 0x2C:
                let d = try c.bytes(9, what: "GIF image descriptor")
                if d[8] & 0x80 != 0 { try c.skip(3 << (Int(d[8] & 7) + 1), what: "GIF local color table") }
                _ = try c.bytes(1, what: "GIF LZW code size")
                try skipSubBlocks(&c)
                facts.frameCount += 1
            case 0x21:
                let label = try c.bytes(1, what: "GIF extension label")[0]
                if label == 0xFF {
                    let n = Int(try c.bytes(1, what: "GIF application block")[0])
                    let app = try c.bytes(n, what: "GIF application identifier")
                    if n == 11, app.matches("NETSCAPE2.0") || app.matches("ANIMEXTS1.0") {
                        let m = Int(try c.bytes(1, what: "GIF loop block")[0])
                        let sub = try c.bytes(m, what: "GIF loop block")
                        if m >= 3, sub[0] == 1, facts.loopCount == nil { facts.loopCount = Int(sub[1]) | Int(sub[2]) << 8 }
                    }
                }
                try skipSubBlocks(&c)
            case 0x3B:
                return
            default:
                let message = "GIF: unknown block 0x\(String(introducer, radix: 16)) at offset \(c.position - 1)"
                if facts.frameCount == 0 { throw ProbeError(.malformed, message) }
                facts.warnings.append(message)
                return
            }
        }
    }

    static func skipSubBlocks(_ c: inout ChunkedCursor) throws(ProbeError) {
        while true {
            let n = try c.bytes(1, what: "GIF sub-block")[0]
            if n == 0 { return }
            try c.skip(Int(n), what: "GIF sub-block")
        }
    }
}

/// Sequential reads over a `ByteSource` through a fixed-size buffer.
struct ChunkedCursor {
    let source: any ByteSource
    var buffer: [UInt8] = []
    var bufferStart: UInt64 = 0
    var index = 0
    static let chunk = 64 << 10

    init(_ source: any ByteSource) { self.source = source }

    var position: UInt64 { bufferStart + UInt64(index) }

    mutating func fill() throws(ProbeError) {
        bufferStart = position
        buffer = try source.read(at: bufferStart, count: Self.chunk)
        index = 0
    }

    mutating func byteOrNil() throws(ProbeError) -> UInt8? {
        if index >= buffer.count { try fill() }
        guard index < buffer.count else { return nil }
        defer { index += 1 }
        return buffer[index]
    }

    mutating func bytes(_ n: Int, what: String) throws(ProbeError) -> [UInt8] {
        if index + n <= buffer.count {
            defer { index += n }
            return Array(buffer[index..<index + n])
        }
        let out = try source.read(at: position, count: n)
        guard out.count == n else {
            throw ProbeError(.truncated, "\(what): wanted \(n) bytes at offset \(position), file has \(source.size)")
        }
        bufferStart = position + UInt64(n)
        buffer = []
        index = 0
        return out
    }

    mutating func skip(_ n: Int, what: String) throws(ProbeError) {
        guard position + UInt64(n) <= source.size else {
            throw ProbeError(.truncated, "\(what): \(n) bytes at offset \(position) run past the end (\(source.size))")
        }
        if index + n <= buffer.count {
            index += n
        } else {
            bufferStart = position + UInt64(n)
            buffer = []
            index = 0
        }
    }
}
