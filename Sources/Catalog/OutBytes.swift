import Foundation

/// A growable byte buffer written through a raw pointer: the row stream's output (`AssetRowStream.swift`) and
/// the stored facts (`Pipeline/FactsJSON`). Appending to a `[UInt8]` checks uniqueness and capacity through
/// the generic collection machinery on each call, and an object is ~100 appends; here an append is a bounds
/// check and a copy. The owner frees it (`deallocate()`); it is not copyable in spirit — a copy shares the
/// memory.
public struct OutBytes {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var used = 0
    @usableFromInline var capacity: Int

    public init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    public func deallocate() { base.deallocate() }

    /// How many bytes were written.
    public var count: Int { used }

    /// The bytes written so far, valid until the next append.
    public var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: used) }

    mutating func removeAll() { used = 0 }

    @usableFromInline mutating func grow(_ n: Int) {
        let wanted = max(capacity * 2, used + n)
        let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: wanted)
        fresh.initialize(from: base, count: used)
        base.deallocate()
        base = fresh
        capacity = wanted
    }

    @inlinable @inline(__always) public mutating func append(_ b: UInt8) {
        if used == capacity { grow(1) }
        base[used] = b
        used += 1
    }

    @inlinable @inline(__always) public mutating func append(_ p: UnsafeBufferPointer<UInt8>) {
        guard let from = p.baseAddress, p.count > 0 else { return }
        if used + p.count > capacity { grow(p.count) }
        (base + used).update(from: from, count: p.count)
        used += p.count
    }

    @inlinable @inline(__always) public mutating func append(_ s: StaticString) {
        append(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    mutating func append(_ s: String) {
        var s = s
        s.withUTF8 { append($0) }
    }

    /// A JSON string of `bytes`: quoted, with `AssetRowWriter.escaped(bytes:into:)`'s escapes.
    @inline(__always) public mutating func jsonString(_ bytes: UnsafeBufferPointer<UInt8>) {
        append(UInt8(ascii: "\""))
        escaped(bytes)
        append(UInt8(ascii: "\""))
    }

    mutating func jsonString(_ s: String?) {
        guard var s else { return append("null") }
        s.withUTF8 { jsonString($0) }
    }

    mutating func jsonStrings(_ values: [String]) {
        append(UInt8(ascii: "["))
        for (i, v) in values.enumerated() {
            if i > 0 { append(UInt8(ascii: ",")) }
            jsonString(v)
        }
        append(UInt8(ascii: "]"))
    }

    /// The inside of a JSON string: the same bytes `AssetRowWriter.escaped(bytes:into:)` writes, runs
    /// without a character to escape copied whole.
    public mutating func escaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        Self.escapedRuns(bytes) { append($0) }
    }

    /// The inside of a JSON string as runs of bytes given to `append`: runs without a character to escape
    /// whole, each escape (`AssetRowWriter.escapeSequence`) a run of its own. Shared by the query output
    /// (`escaped`) and the stored facts and asset JSON (`AssetRowWriter.escaped(bytes:into:)`).
    @usableFromInline @inline(__always) static func escapedRuns(
        _ bytes: UnsafeBufferPointer<UInt8>, _ append: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        guard let p = bytes.baseAddress else { return }
        var start = 0
        var i = 0
        while i < bytes.count {
            // Eight bytes at a time while none of them needs an escape (a control byte, `"` or `\`).
            if i + 8 <= bytes.count && !mayNeedEscape(UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)) {
                i += 8
                continue
            }
            let c = p[i]
            i += 1
            guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else { continue }
            let at = i - 1
            append(UnsafeBufferPointer(start: p + start, count: at - start))
            AssetRowWriter.escapeSequence(c) { append($0) }
            start = at + 1
        }
        append(UnsafeBufferPointer(start: p + start, count: bytes.count - start))
    }

    /// Whether a byte of `w` is below 0x20, `"` or `\` (exact for "no": a true may be a byte ≥ 0x80 next
    /// to a match's borrow, which the byte-wise check then passes over).
    @usableFromInline @inline(__always) static func mayNeedEscape(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        let control = (w &- ones &* 0x20) & ~w & highs != 0  // some byte < 0x20
        return control || hasZero(w ^ (ones &* 0x22)) || hasZero(w ^ (ones &* 0x5C))
    }

    /// A decimal integer, without a `String` in between.
    mutating func integer(_ v: Int64) {
        if v < 0 { append(UInt8(ascii: "-")) }
        var m = v.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[23 - n] = UInt8(ascii: "0") + UInt8(m % 10)
                m /= 10
                n += 1
            } while m > 0
            append(UnsafeBufferPointer(rebasing: d.bindMemory(to: UInt8.self)[(24 - n)...]))
        }
    }

    /// Shortest round-trip digits (`AssetRowWriter.number(_:into:)`); NaN and ±infinity are null.
    mutating func number(_ v: Double?) {
        guard let v, v.isFinite else { return append("null") }
        append(v.description)
    }
}
