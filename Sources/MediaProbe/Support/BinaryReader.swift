/// A bounds-checked cursor over a byte buffer. Every read throws `ProbeError(.truncated)` instead of
/// reading past the end; nothing here trusts a length field.
///
/// The cursor reads a window of a shared buffer (a box's payload inside a loaded `meta` or `moov`) without
/// copying it, and names what it reads in two parts joined only for an error message: a copy and a
/// composed name per box were ~100k allocations of a 3,000-file first ingest (Benchmarks/README.md, session 20).
public struct BinaryReader: Sendable {
    private let storage: [UInt8]
    /// The window: `storage[lower..<lower + count]`; `position` counts from `lower`.
    private let lower: Int
    public let count: Int
    public private(set) var position: Int
    public var bigEndian: Bool
    private let whatParts: (String, String)
    /// What is being read, for error messages.
    public var what: String { whatParts.0 + whatParts.1 }

    public init(_ bytes: [UInt8], bigEndian: Bool = true, what: String) {
        self.init(bytes, window: 0..<bytes.count, bigEndian: bigEndian, what: what)
    }

    /// A cursor over `window` of `bytes` (clamped to the buffer), named `what + more`.
    public init(_ bytes: [UInt8], window: Range<Int>, bigEndian: Bool = true, what: String, _ more: String = "") {
        let lo = min(max(0, window.lowerBound), bytes.count)
        storage = bytes
        lower = lo
        count = min(max(lo, window.upperBound), bytes.count) - lo
        position = 0
        self.bigEndian = bigEndian
        whatParts = (what, more)
    }

    public var remaining: Int { count - position }
    public var isAtEnd: Bool { position >= count }

    public mutating func seek(_ offset: Int) throws(ProbeError) {
        guard offset >= 0, offset <= count else {
            throw ProbeError(.truncated, "\(what): seek to \(offset) outside \(count) bytes")
        }
        position = offset
    }

    public mutating func skip(_ n: Int) throws(ProbeError) {
        guard n >= 0, n <= remaining else {
            throw ProbeError(.truncated, "\(what): cannot skip \(n) bytes at \(position) of \(count)")
        }
        position += n
    }

    /// The next `n` bytes, as a slice of the shared buffer (index it from its `startIndex`).
    public mutating func bytes(_ n: Int) throws(ProbeError) -> ArraySlice<UInt8> {
        guard n >= 0, n <= remaining else {
            throw ProbeError(.truncated, "\(what): wanted \(n) bytes at \(position) of \(count)")
        }
        defer { position += n }
        return storage[lower + position..<lower + position + n]
    }

    public mutating func u8() throws(ProbeError) -> UInt8 {
        guard remaining >= 1 else { throw ProbeError(.truncated, "\(what): wanted 1 byte at \(position) of \(count)") }
        defer { position += 1 }
        return storage[lower + position]
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
            throw ProbeError(.truncated, "\(what): wanted \(n) bytes at \(position) of \(count)")
        }
        let at = lower + position
        var v: UInt64 = 0
        if bigEndian {
            for i in 0..<n { v = (v << 8) | UInt64(storage[at + i]) }
        } else {
            for i in stride(from: n - 1, through: 0, by: -1) { v = (v << 8) | UInt64(storage[at + i]) }
        }
        position += n
        return v
    }

    /// A four-character code as text (non-printable bytes become `?`).
    public mutating func fourCC() throws(ProbeError) -> String { BinaryReader.fourCC(try bytes(4)) }

    public static func fourCC<C: Collection>(_ b: C) -> String where C.Element == UInt8 {
        // Built in place (a small string): no array of the mapped bytes first.
        String(unsafeUninitializedCapacity: b.count) { out in
            for (i, c) in b.enumerated() { out[i] = c >= 0x20 && c < 0x7F ? c : UInt8(ascii: "?") }
            return b.count
        }
    }

    /// A NUL-terminated string (the terminator is consumed; a missing one ends at the buffer's end).
    public mutating func cString(maxLength: Int = 4096) throws(ProbeError) -> String {
        let start = position
        var end = start
        while end < count && storage[lower + end] != 0 && end - start < maxLength { end += 1 }
        position = min(count, end + 1)
        return String(decoding: storage[lower + start..<lower + end], as: UTF8.self)
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
