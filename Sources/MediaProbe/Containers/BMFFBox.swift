/// One ISO-BMFF box inside an in-memory buffer (a loaded `moov` or `meta`).
struct BMFFBox: Sendable {
    /// Four-character type as text (`0xA9` shows as `©`).
    var type: String
    var typeCode: UInt32
    /// Index of the box header in the buffer.
    var start: Int
    /// Payload indices in the buffer (after the header and, for `uuid`, the 16-byte user type).
    var payload: Range<Int>
    var uuid: [UInt8]?
}

/// A parsed box header: sizes are checked against the parent, nothing is trusted.
enum BMFFHeader {
    case box(typeCode: UInt32, headerSize: Int, end: UInt64, uuid: [UInt8]?)
    case bad(String)

    /// Parses the header in `h` (the bytes at `offset`, up to 32 of them) for a box whose parent ends at `parentEnd`.
    static func parse(_ h: ArraySlice<UInt8>, offset: UInt64, parentEnd: UInt64) -> BMFFHeader {
        guard parentEnd >= offset, parentEnd - offset >= 8, h.count >= 8,
            let size32 = BinaryReader.uint(h, at: 0, size: 4, bigEndian: true),
            let code = BinaryReader.uint(h, at: 4, size: 4, bigEndian: true)
        else { return .bad("box header at \(offset) is truncated") }
        let typeCode = UInt32(truncatingIfNeeded: code)
        var headerSize = 8
        var end: UInt64
        switch size32 {
        case 0:
            end = parentEnd
        case 1:
            guard let large = BinaryReader.uint(h, at: 8, size: 8, bigEndian: true) else {
                return .bad("box '\(fourCCText(typeCode))' at \(offset): 64-bit size is truncated")
            }
            headerSize = 16
            guard large >= 16 else { return .bad("box '\(fourCCText(typeCode))' at \(offset): 64-bit size \(large) is smaller than its header") }
            guard large <= parentEnd - offset else {
                return .bad("box '\(fourCCText(typeCode))' at \(offset): size \(large) runs past its parent (ends at \(parentEnd))")
            }
            end = offset + large
        default:
            guard size32 >= 8 else { return .bad("box '\(fourCCText(typeCode))' at \(offset): size \(size32) is smaller than its header") }
            guard size32 <= parentEnd - offset else {
                return .bad("box '\(fourCCText(typeCode))' at \(offset): size \(size32) runs past its parent (ends at \(parentEnd))")
            }
            end = offset + size32
        }
        var uuid: [UInt8]?
        if typeCode == 0x7575_6964 {  // 'uuid'
            let from = h.startIndex + headerSize
            guard h.count >= headerSize + 16, end - offset >= UInt64(headerSize + 16) else {
                return .bad("uuid box at \(offset) is too short for its user type")
            }
            uuid = Array(h[from..<from + 16])
            headerSize += 16
        }
        if UInt64(headerSize) > end - offset { return .bad("box '\(fourCCText(typeCode))' at \(offset) is smaller than its header") }
        return .box(typeCode: typeCode, headerSize: headerSize, end: end, uuid: uuid)
    }
}

/// The numeric code of a four-character ASCII type.
func fourCC(_ s: String) -> UInt32 {
    var v: UInt32 = 0
    for b in s.unicodeScalars.prefix(4) { v = (v << 8) | (UInt32(b.value) & 0xFF) }
    return v
}

/// A four-character code as text; `0xA9` becomes `©`, other non-printable bytes `?`.
func fourCCText(_ code: UInt32) -> String {
    // Four printable ASCII bytes (nearly every box): a small string made in place, no appends.
    let bytes = (UInt8(truncatingIfNeeded: code >> 24), UInt8(truncatingIfNeeded: code >> 16), UInt8(truncatingIfNeeded: code >> 8), UInt8(truncatingIfNeeded: code))
    func printable(_ b: UInt8) -> Bool { b >= 0x20 && b < 0x7F }
    if printable(bytes.0), printable(bytes.1), printable(bytes.2), printable(bytes.3) {
        return String(unsafeUninitializedCapacity: 4) { p in
            (p[0], p[1], p[2], p[3]) = bytes
            return 4
        }
    }
    var s = ""
    for shift in stride(from: 24, through: 0, by: -8) {
        let b = UInt8(truncatingIfNeeded: code >> UInt32(shift))
        if b >= 0x20 && b < 0x7F {
            s.unicodeScalars.append(Unicode.Scalar(b))
        } else if b == 0xA9 {
            s += "©"
        } else {
            s += "?"
        }
    }
    return s
}

/// Walks child boxes of ranges in an in-memory buffer whose first byte sits at `base` in the file.
struct BoxBuffer: Sendable {
    let bytes: [UInt8]
    /// File offset of `bytes[0]`.
    let base: UInt64

    static let maxChildren = 100_000

    /// The children in `range`; a bad header ends the list with a warning naming `path`.
    func children(_ range: Range<Int>, path: String, warnings: inout [String]) -> [BMFFBox] {
        var out: [BMFFBox] = []
        var pos = max(0, range.lowerBound)
        let end = min(range.upperBound, bytes.count)
        // Room for up to 32 boxes at once (no box is under 8 bytes): the array grown from empty was
        // reallocated ~6 times for an item list of 50 (~46k allocations of a 3,000-file first ingest).
        out.reserveCapacity(Swift.min(32, Swift.max(0, end - pos) / 8))
        while pos < end {
            if end - pos < 8 {
                if bytes[pos..<end].contains(where: { $0 != 0 }) {
                    warnings.append("\(path): \(end - pos) trailing bytes after the last box")
                }
                break
            }
            if out.count >= Self.maxChildren {
                warnings.append("\(path): more than \(Self.maxChildren) boxes, rest skipped")
                break
            }
            let h = bytes[pos..<min(pos + 32, end)]
            switch BMFFHeader.parse(h, offset: UInt64(pos), parentEnd: UInt64(end)) {
            case .bad(let why):
                warnings.append("\(path): \(why)")
                return out
            case .box(let code, let headerSize, let boxEnd, let uuid):
                let e = Int(boxEnd)
                out.append(BMFFBox(type: fourCCText(code), typeCode: code, start: pos, payload: (pos + headerSize)..<e, uuid: uuid))
                pos = e
            }
        }
        return out
    }

    /// The children of `box`, skipping `skip` leading payload bytes (4 for a full box).
    func children(of box: BMFFBox, skip: Int = 0, path: String, warnings: inout [String]) -> [BMFFBox] {
        let from = box.payload.lowerBound + skip
        guard from <= box.payload.upperBound else { return [] }
        return children(from..<box.payload.upperBound, path: path, warnings: &warnings)
    }

    /// Children of a box that may or may not be a full box (QuickTime `meta`/`keys` are not, ISO ones are).
    func childrenMaybeFull(of box: BMFFBox, path: String, warnings: inout [String]) -> [BMFFBox] {
        let p = box.payload
        let first = BinaryReader.uint(bytes, at: p.lowerBound, size: 4, bigEndian: true)
        return children(of: box, skip: (first == 0 && p.count >= 4) ? 4 : 0, path: path, warnings: &warnings)
    }

    /// A reader over the payload of `box` (the buffer is shared, not copied), named `what + more`.
    func reader(_ box: BMFFBox, what: String, _ more: String = "") -> BinaryReader {
        BinaryReader(bytes, window: box.payload, what: what, more)
    }

    /// File offset of a buffer index.
    func fileOffset(_ index: Int) -> UInt64 { base + UInt64(index) }
}

extension BinaryReader {
    /// Reads version and flags of a full box.
    mutating func fullBoxHeader() throws(ProbeError) -> (version: UInt8, flags: UInt32) {
        let v = try u8()
        let f = try u24()
        return (v, f)
    }

    /// The rest of the buffer as bytes.
    mutating func rest() -> ArraySlice<UInt8> { (try? bytes(remaining)) ?? [] }
}
