/// A minimal, bounded TIFF/EXIF IFD walker over an in-memory buffer: IFD0, IFD1, the Exif, GPS and
/// Interop IFDs. It lists entries and where their values sit; it does not interpret tags.
public struct TIFFReader: Sendable {
    public enum IFD: String, Sendable, Equatable, Codable {
        case ifd0, ifd1, exif, gps, interop
    }

    public struct Entry: Sendable, Equatable {
        public var ifd: IFD
        public var tag: UInt16
        public var type: UInt16
        public var count: UInt32
        /// Where the value bytes sit in `bytes` (TIFF header at 0); nil when they lie outside.
        public var valueRange: Range<Int>?
    }

    /// The TIFF data, starting at the byte-order mark.
    public let bytes: [UInt8]
    public let bigEndian: Bool
    public private(set) var entries: [Entry] = []
    public private(set) var warnings: [String] = []
    /// IFDs reached a second time through an offset (IFD0's next pointing back at itself, an Exif pointer
    /// to IFD0…). Never legitimate; the walk stops there.
    public private(set) var loops: [String] = []

    static let maxEntriesPerIFD = 4096

    /// Walks TIFF data; `bytes` may also start with `Exif\0\0`, which is skipped.
    public init(_ data: [UInt8]) throws(ProbeError) {
        var b = data
        if b.matches("Exif\0\0") { b.removeFirst(6) }
        guard b.count >= 8 else { throw ProbeError(.truncated, "TIFF header: \(b.count) bytes, needs 8") }
        if b.matches("MM") {
            bigEndian = true
        } else if b.matches("II") {
            bigEndian = false
        } else {
            throw ProbeError(.malformed, "TIFF header: byte order is neither MM nor II")
        }
        bytes = b
        guard BinaryReader.uint(b, at: 2, size: 2, bigEndian: bigEndian) == 42,
            let ifd0 = BinaryReader.uint(b, at: 4, size: 4, bigEndian: bigEndian)
        else { throw ProbeError(.malformed, "TIFF header: magic is not 42") }
        var visited = Set<Int>()
        let next = walk(Int(clamping: ifd0), .ifd0, &visited)
        if let n = next, n != 0 { _ = walk(n, .ifd1, &visited) }
        for (pointer, kind) in [(UInt16(0x8769), IFD.exif), (0x8825, .gps)] {
            if let e = entry(pointer, in: .ifd0), let off = uint(e) { _ = walk(Int(clamping: off), kind, &visited) }
        }
        if let e = entry(0xA005, in: .exif), let off = uint(e) { _ = walk(Int(clamping: off), .interop, &visited) }
    }

    /// Reads one IFD and returns the next-IFD offset.
    private mutating func walk(_ offset: Int, _ kind: IFD, _ visited: inout Set<Int>) -> Int? {
        guard offset >= 8, offset <= bytes.count - 2 else {
            warnings.append("\(kind.rawValue): offset \(offset) outside \(bytes.count) bytes")
            return nil
        }
        guard visited.insert(offset).inserted else {
            warnings.append("\(kind.rawValue): IFD at \(offset) already read (loop)")
            loops.append("\(kind.rawValue) → offset \(offset)")
            return nil
        }
        let declared = Int(BinaryReader.uint(bytes, at: offset, size: 2, bigEndian: bigEndian) ?? 0)
        let fits = (bytes.count - offset - 2) / 12
        let count = min(declared, fits, Self.maxEntriesPerIFD)
        if count < declared { warnings.append("\(kind.rawValue): \(declared) entries declared, \(count) fit") }
        for i in 0..<count {
            let e = offset + 2 + i * 12
            guard let tag = u(e, 2), let type = u(e + 2, 2), let n = u(e + 4, 4) else { break }
            let unit = AppleMakerNoteReader.unitSize(Int(type))
            var range: Range<Int>?
            if unit > 0, n <= UInt64(bytes.count) {
                let total = Int(n) * unit
                if total <= 4 {
                    range = (e + 8)..<(e + 8 + total)
                } else if let off = u(e + 8, 4), off <= UInt64(bytes.count), total <= bytes.count - Int(off) {
                    range = Int(off)..<(Int(off) + total)
                }
            }
            entries.append(Entry(ifd: kind, tag: UInt16(tag), type: UInt16(type), count: UInt32(n), valueRange: range))
        }
        return u(offset + 2 + count * 12, 4).map { Int(clamping: $0) }
    }

    private func u(_ at: Int, _ size: Int) -> UInt64? { BinaryReader.uint(bytes, at: at, size: size, bigEndian: bigEndian) }

    /// The IFD offset loops of a TIFF/Exif block (as `loops` would list them), found by following only the
    /// IFD pointers — no copy of the block, no entry list: cheap enough to run on every Exif block.
    public static func loops(in data: [UInt8]) -> [String] {
        let base = data.matches("Exif\0\0") ? 6 : 0
        guard data.count >= base + 8 else { return [] }
        let be: Bool
        if data[base] == 0x4D && data[base + 1] == 0x4D { be = true } else if data[base] == 0x49 && data[base + 1] == 0x49 { be = false } else { return [] }
        func u(_ at: Int, _ size: Int) -> Int? {
            BinaryReader.uint(data, at: base + at, size: size, bigEndian: be).map { Int(clamping: $0) }
        }
        let limit = data.count - base
        var visited = Set<Int>()
        var found: [String] = []
        /// Visits one IFD; returns its next-IFD offset and the values of the pointer tags asked for.
        func visit(_ offset: Int, _ kind: IFD, pointers: [UInt16]) -> (next: Int?, found: [UInt16: Int])? {
            guard offset >= 8, offset <= limit - 2 else { return nil }
            guard visited.insert(offset).inserted else {
                found.append("\(kind.rawValue) → offset \(offset)")
                return nil
            }
            let count = min(u(offset, 2) ?? 0, (limit - offset - 2) / 12, maxEntriesPerIFD)
            var values: [UInt16: Int] = [:]
            for i in 0..<count {
                let e = offset + 2 + i * 12
                // The first entry of a pointer tag counts (as `entry(_:in:)`); LONG or IFD, inline.
                if let tag = u(e, 2), pointers.contains(UInt16(tag)), values[UInt16(tag)] == nil, let type = u(e + 2, 2), type == 4 || type == 13,
                    let v = u(e + 8, 4)
                {
                    values[UInt16(tag)] = v
                }
            }
            return (u(offset + 2 + count * 12, 4), values)
        }
        guard let ifd0 = u(4, 4), let first = visit(ifd0, .ifd0, pointers: [0x8769, 0x8825]) else { return found }
        if let n = first.next, n != 0 { _ = visit(n, .ifd1, pointers: []) }
        let exif = first.found[0x8769].flatMap { visit($0, .exif, pointers: [0xA005]) }
        if let g = first.found[0x8825] { _ = visit(g, .gps, pointers: []) }
        if let i = exif?.found[0xA005] { _ = visit(i, .interop, pointers: []) }
        return found
    }

    /// The first entry with `tag` in `ifd`.
    public func entry(_ tag: UInt16, in ifd: IFD) -> Entry? { entries.first { $0.ifd == ifd && $0.tag == tag } }

    /// The raw value bytes of an entry.
    public func value(_ e: Entry) -> [UInt8]? { e.valueRange.map { Array(bytes[$0]) } }

    /// The first value of an integer entry (BYTE, SHORT, LONG, IFD), nil for other types.
    public func uint(_ e: Entry) -> UInt64? {
        guard let r = e.valueRange, [1, 3, 4, 13].contains(e.type) else { return nil }
        return u(r.lowerBound, AppleMakerNoteReader.unitSize(Int(e.type)))
    }

    /// An ASCII entry without its trailing NULs.
    public func string(_ tag: UInt16, in ifd: IFD) -> String? {
        guard let e = entry(tag, in: ifd), e.type == 2 || e.type == 7, var v = value(e) else { return nil }
        while v.last == 0 { v.removeLast() }
        return String(decoding: v, as: UTF8.self)
    }

    /// The raw MakerNote (Exif IFD tag 0x927C) bytes, when present.
    public var makerNote: [UInt8]? { entry(0x927C, in: .exif).flatMap(value) }
}
