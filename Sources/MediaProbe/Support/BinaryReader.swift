/// A bounds-checked cursor over a byte buffer. Every read throws `ProbeError(.truncated)` instead of
/// reading past the end; nothing here trusts a length field.
public struct BinaryReader: Sendable {
    public let bytes: [UInt8]
    public private(set) var position: Int
    public var bigEndian: Bool
    /// What is being read, for error messages.
    public let what: String

    public init(_ bytes: [UInt8], bigEndian: Bool = true, what: String) {
        self.bytes = bytes
        self.position = 0
        self.bigEndian = bigEndian
        self.what = what
    }

    public var remaining: Int { bytes.count - position }
    public var isAtEnd: Bool { position >= bytes.count }

    public mutating func seek(_ offset: Int) throws(ProbeError) {
        guard offset >= 0, offset <= bytes.count else {
            throw ProbeError(.truncated, "\(what): seek to \(offset) outside \(bytes.count) bytes")
        }
        position = offset
    }

    public mutating func skip(_ n: Int) throws(ProbeError) {
        guard n >= 0, n <= remaining else {
            throw ProbeError(.truncated, "\(what): cannot skip \(n) bytes at \(position) of \(bytes.count)")
        }
        position += n
    }

    public mutating func bytes(_ n: Int) throws(ProbeError) -> ArraySlice<UInt8> {
        guard n >= 0, n <= remaining else {
            throw ProbeError(.truncated, "\(what): wanted \(n) bytes at \(position) of \(bytes.count)")
        }
        defer { position += n }
        return bytes[position..<position + n]
    }

    public mutating func u8() throws(ProbeError) -> UInt8 {
        guard remaining >= 1 else { throw ProbeError(.truncated, "\(what): wanted 1 byte at \(position) of \(bytes.count)") }
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func u16() throws(ProbeError) -> UInt16 { UInt16(truncatingIfNeeded: try uint(2)) }
    public mutating func u24() throws(ProbeError) -> UInt32 { UInt32(truncatingIfNeeded: try uint(3)) }
    public mutating func u32() throws(ProbeError) -> UInt32 { UInt32(truncatingIfNeeded: try uint(4)) }
    public mutating func u64() throws(ProbeError) -> UInt64 { try uint(8) }
    public mutating func i16() throws(ProbeError) -> Int16 { Int16(bitPattern: try u16()) }
    public mutating func i32() throws(ProbeError) -> Int32 { Int32(bitPattern: try u32()) }
    public mutating func i64() throws(ProbeError) -> Int64 { Int64(bitPattern: try u64()) }

    /// An unsigned integer of `n` (1…8) bytes in the reader's byte order.
    public mutating func uint(_ n: Int) throws(ProbeError) -> UInt64 {
        precondition(n >= 0 && n <= 8)
        guard remaining >= n else {
            throw ProbeError(.truncated, "\(what): wanted \(n) bytes at \(position) of \(bytes.count)")
        }
        var v: UInt64 = 0
        if bigEndian {
            for i in 0..<n { v = (v << 8) | UInt64(bytes[position + i]) }
        } else {
            for i in stride(from: n - 1, through: 0, by: -1) { v = (v << 8) | UInt64(bytes[position + i]) }
        }
        position += n
        return v
    }

    /// A four-character code as text (non-printable bytes become `?`).
    public mutating func fourCC() throws(ProbeError) -> String { BinaryReader.fourCC(try bytes(4)) }

    public static func fourCC<C: Collection>(_ b: C) -> String where C.Element == UInt8 {
        String(decoding: b.map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }

    /// A NUL-terminated string (the terminator is consumed; a missing one ends at the buffer's end).
    public mutating func cString(maxLength: Int = 4096) throws(ProbeError) -> String {
        let start = position
        var end = start
        while end < bytes.count && bytes[end] != 0 && end - start < maxLength { end += 1 }
        position = min(bytes.count, end + 1)
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// Reads a big- or little-endian integer from a buffer at a fixed offset, nil when out of range.
    public static func uint<C: RandomAccessCollection>(_ b: C, at offset: Int, size: Int, bigEndian: Bool) -> UInt64?
    where C.Element == UInt8, C.Index == Int {
        guard offset >= 0, size > 0, size <= 8, offset <= b.count - size else { return nil }
        let base = b.startIndex + offset
        var v: UInt64 = 0
        if bigEndian {
            for i in 0..<size { v = (v << 8) | UInt64(b[base + i]) }
        } else {
            for i in stride(from: size - 1, through: 0, by: -1) { v = (v << 8) | UInt64(b[base + i]) }
        }
        return v
    }
}

extension Array where Element == UInt8 {
    /// Whether the bytes at `offset` equal `prefix` (ASCII).
    func matches(_ prefix: String, at offset: Int = 0) -> Bool {
        let p = Array(prefix.utf8)
        guard offset >= 0, offset + p.count <= count else { return false }
        for i in 0..<p.count where self[offset + i] != p[i] { return false }
        return true
    }

    /// Index of the first occurrence of `needle` at or after `from`, or nil.
    func firstIndex(of needle: [UInt8], from: Int = 0) -> Int? {
        guard !needle.isEmpty, count >= needle.count else { return nil }
        var i = Swift.max(0, from)
        let last = count - needle.count
        let first = needle[0]
        while i <= last {
            if self[i] == first {
                var ok = true
                for j in 1..<needle.count where self[i + j] != needle[j] {
                    ok = false
                    break
                }
                if ok { return i }
            }
            i += 1
        }
        return nil
    }
}
