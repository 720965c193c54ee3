/// A TIFF (classic or BigTIFF) read where its directories are: the IFD0 chain, the Exif, GPS and
/// Interop IFDs and the SubIFDs, each fetched with one bounded `pread` wherever it sits in the file.
///
/// Every offset is checked against the file size, entry counts and value sizes are capped, the number of
/// directories is capped, and an IFD reached twice is a loop (listed in `loops`, not followed). Values
/// stay in the file until asked for (`bytes(_:)`), so a multi-gigabyte TIFF costs a few small reads.
///
/// libexif 0.6.24 cannot read this: it takes one in-memory block of at most 64 KiB with every IFD inside.
/// `exifBlock()` therefore writes a compact classic TIFF holding only IFD0, IFD1, Exif, GPS and Interop
/// (values copied, offsets rewritten, large blobs such as XMP and ICC left out) for libexif to read;
/// image geometry, SubIFDs, XMP (tag 700) and the file type are read here directly (`docs/architecture.md`).
public struct TIFFDirectories: Sendable {
    /// Which directory an IFD is.
    public enum Role: Sendable, Equatable, CustomStringConvertible {
        /// The n-th IFD of the main chain (0 = IFD0).
        case chain(Int)
        case exif, gps, interop
        /// The n-th SubIFD (tag 0x014A) of the chain IFD `parent`.
        case sub(parent: Int, index: Int)

        public var description: String {
            switch self {
            case .chain(let n): return "IFD\(n)"
            case .exif: return "ExifIFD"
            case .gps: return "GPS IFD"
            case .interop: return "InteropIFD"
            case .sub(let p, let i): return p == 0 ? "SubIFD\(i)" : "IFD\(p) SubIFD\(i)"
            }
        }
    }

    public struct Entry: Sendable, Equatable {
        public var tag: UInt16
        public var type: UInt16
        public var count: UInt64
        /// The value field as stored in the entry (4 bytes, BigTIFF 8; byte i in bits 8i…8i+7): the value
        /// itself when it fits. Packed, not an array: a walk lists up to 16,384 entries.
        var packedField: UInt64
        var fieldSize: Int
        /// Where the field sits in the file.
        var fieldOffset: UInt64

        /// The field's bytes in file order.
        var field: [UInt8] { (0..<fieldSize).map { UInt8(truncatingIfNeeded: packedField >> UInt64(8 * $0)) } }
    }

    public struct Directory: Sendable, Equatable {
        public var role: Role
        public var offset: UInt64
        public var entries: [Entry]

        public func entry(_ tag: UInt16) -> Entry? { entries.first { $0.tag == tag } }
    }

    public let bigEndian: Bool
    /// BigTIFF (version 43): 8-byte counts and offsets, 20-byte entries.
    public let isBigTIFF: Bool
    /// The header's version number: 42, 43, or a vendor's (Panasonic 0x55, Olympus 0x4F52/0x5352).
    public let magic: UInt16
    public private(set) var directories: [Directory] = []
    public private(set) var warnings: [String] = []
    /// IFDs reached a second time (never legitimate; the walk does not follow them).
    public private(set) var loops: [String] = []

    private let source: any ByteSource

    static let maxDirectories = 64
    static let maxChain = 32
    static let maxSubIFDs = 16
    static let maxEntriesPerIFD = 4096
    /// Entries kept over all IFDs: 64 IFDs that overlap one 48 KB table would otherwise list 262,144.
    static let maxEntries = 16384
    /// The largest single value `bytes(_:)` reads.
    static let maxValueBytes = 16 << 20

    /// Reads the header and walks every directory.
    public init(_ source: any ByteSource) throws(ProbeError) {
        self.source = source
        let h = try source.read(at: 0, count: 16)
        guard h.count >= 8 else { throw ProbeError(.truncated, "TIFF header: \(h.count) bytes, needs 8") }
        if h.matches("MM") {
            bigEndian = true
        } else if h.matches("II") {
            bigEndian = false
        } else {
            throw ProbeError(.malformed, "TIFF header: byte order is neither MM nor II")
        }
        magic = UInt16(BinaryReader.uint(h, at: 2, size: 2, bigEndian: bigEndian) ?? 0)
        isBigTIFF = magic == 43
        let first: UInt64
        if isBigTIFF {
            guard h.count >= 16, BinaryReader.uint(h, at: 4, size: 2, bigEndian: bigEndian) == 8,
                let o = BinaryReader.uint(h, at: 8, size: 8, bigEndian: bigEndian)
            else { throw ProbeError(.malformed, "BigTIFF header: offset size is not 8 or the header is cut") }
            first = o
        } else {
            guard [42, 0x55, 0x4F52, 0x5352].contains(magic), let o = BinaryReader.uint(h, at: 4, size: 4, bigEndian: bigEndian)
            else {
                throw ProbeError(.malformed, "TIFF header: version \(magic) is not 42 or 43")
            }
            first = o
        }
        try walk(first)
    }

    // MARK: - Walking

    private mutating func walk(_ first: UInt64) throws(ProbeError) {
        var visited = Set<UInt64>()
        var next = first
        var n = 0
        while next != 0, n < Self.maxChain {
            guard let d = try read(next, .chain(n), &visited) else { break }
            next = d.next
            n += 1
        }
        if next != 0, n == Self.maxChain {
            warnings.append("IFD chain longer than \(Self.maxChain) directories; the rest is not read")
        }
        let chain = directories
        for d in chain {
            guard case .chain(let p) = d.role, let e = d.entry(0x014A) else { continue }
            for (i, off) in integers(e, max: Self.maxSubIFDs).enumerated() {
                _ = try read(off, .sub(parent: p, index: i), &visited)
            }
        }
        if let ifd0 = chain.first {
            if let e = ifd0.entry(0x8769), let off = integers(e, max: 1).first, let exif = try read(off, .exif, &visited),
                let ie = exif.directory.entry(0xA005), let io = integers(ie, max: 1).first
            {
                _ = try read(io, .interop, &visited)
            }
            if let e = ifd0.entry(0x8825), let off = integers(e, max: 1).first { _ = try read(off, .gps, &visited) }
        }
    }

    /// Reads the IFD at `offset`; returns it and its next-IFD offset, nil when it cannot be read.
    private mutating func read(_ offset: UInt64, _ role: Role, _ visited: inout Set<UInt64>) throws(ProbeError)
        -> (directory: Directory, next: UInt64)?
    {
        let countSize = isBigTIFF ? 8 : 2
        let entrySize = isBigTIFF ? 20 : 12
        let fieldSize = isBigTIFF ? 8 : 4
        guard offset >= 8, offset < source.size, source.size - offset >= UInt64(countSize) else {
            warnings.append("\(role): offset \(offset) lies outside the file (\(source.size) bytes)")
            return nil
        }
        guard visited.insert(offset).inserted else {
            warnings.append("\(role): IFD at \(offset) already read (loop)")
            loops.append("\(role) → offset \(offset)")
            return nil
        }
        guard directories.count < Self.maxDirectories else {
            warnings.append("more than \(Self.maxDirectories) IFDs; \(role) and the rest are not read")
            return nil
        }
        let head = try source.read(at: offset, count: countSize)
        let declared = BinaryReader.uint(head, at: 0, size: countSize, bigEndian: bigEndian) ?? 0
        let fits = (source.size - offset - UInt64(countSize)) / UInt64(entrySize)
        let left = UInt64(Self.maxEntries - directories.reduce(0) { $0 + $1.entries.count })
        let count = Int(min(declared, fits, UInt64(Self.maxEntriesPerIFD), left))
        if UInt64(count) < declared { warnings.append("\(role): \(declared) entries declared, \(count) read") }
        let body = try source.read(at: offset + UInt64(countSize), count: count * entrySize + fieldSize)
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for i in 0..<count {
            let p = i * entrySize
            guard let tag = BinaryReader.uint(body, at: p, size: 2, bigEndian: bigEndian),
                let type = BinaryReader.uint(body, at: p + 2, size: 2, bigEndian: bigEndian),
                let n = BinaryReader.uint(body, at: p + 4, size: isBigTIFF ? 8 : 4, bigEndian: bigEndian),
                p + entrySize <= body.count
            else { break }
            let f = p + entrySize - fieldSize
            var packed: UInt64 = 0
            for k in 0..<fieldSize { packed |= UInt64(body[f + k]) << UInt64(8 * k) }
            entries.append(
                Entry(
                    tag: UInt16(tag), type: UInt16(type), count: n, packedField: packed, fieldSize: fieldSize,
                    fieldOffset: offset + UInt64(countSize) + UInt64(f)))
        }
        let next = BinaryReader.uint(body, at: count * entrySize, size: fieldSize, bigEndian: bigEndian) ?? 0
        let d = Directory(role: role, offset: offset, entries: entries)
        directories.append(d)
        return (d, next)
    }

    // MARK: - Values

    /// Bytes per value of a TIFF field type (BigTIFF's included), 0 for unknown types.
    static func unitSize(_ type: UInt16) -> Int { AppleMakerNoteReader.unitSize(Int(type)) }

    /// The byte length of an entry's value, nil for an unknown type or an absurd count.
    func byteCount(_ e: Entry) -> Int? {
        let unit = Self.unitSize(e.type)
        guard unit > 0, e.count <= UInt64(Self.maxValueBytes / unit) else { return nil }
        return Int(e.count) * unit
    }

    /// Where an entry's value starts in the file, and whether it sits in the entry itself.
    func valueOffset(_ e: Entry) -> (offset: UInt64, inline: Bool)? {
        guard let n = byteCount(e) else { return nil }
        if n <= e.fieldSize { return (e.fieldOffset, true) }
        guard let off = BinaryReader.uint(e.field, at: 0, size: e.fieldSize, bigEndian: bigEndian) else { return nil }
        return (off, false)
    }

    /// An entry's value bytes (inline or read from the file), nil when they lie outside it or exceed `limit`.
    func bytes(_ e: Entry, limit: Int = maxValueBytes) -> [UInt8]? {
        guard let n = byteCount(e), n <= limit, let (off, inline) = valueOffset(e) else { return nil }
        if inline { return Array(e.field.prefix(n)) }
        guard off <= source.size, UInt64(n) <= source.size - off else { return nil }
        return try? source.read(at: off, count: n)
    }

    /// Unsigned values of an integer entry (BYTE, SHORT, LONG, IFD, LONG8, IFD8), at most `max` of them.
    func integers(_ e: Entry, max: Int = 64) -> [UInt64] {
        let unit = Self.unitSize(e.type)
        guard [1, 3, 4, 13, 16, 18].contains(e.type), e.count > 0 else { return [] }
        let n = Int(min(e.count, UInt64(max)))
        // Only the first `max` values are read, from where the whole value sits.
        guard let (off, inline) = valueOffset(e) else { return [] }
        let b: [UInt8]?
        if inline {
            b = Array(e.field.prefix(n * unit))
        } else if off <= source.size, UInt64(n * unit) <= source.size - off {
            b = try? source.read(at: off, count: n * unit)
        } else {
            b = nil
        }
        guard let b else { return [] }
        return (0..<n).compactMap { BinaryReader.uint(b, at: $0 * unit, size: unit, bigEndian: bigEndian) }
    }

    /// An ASCII (or UNDEFINED) value without its trailing NULs and spaces.
    func string(_ e: Entry) -> String? {
        guard e.type == 2 || e.type == 7, var v = bytes(e, limit: 64 << 10) else { return nil }
        if let z = v.firstIndex(of: 0) { v.removeSubrange(z...) }
        let s = String(decoding: v, as: UTF8.self).trimmingWhitespace()
        return s.isEmpty ? nil : s
    }

    // MARK: - Directories by role

    func directory(_ role: Role) -> Directory? { directories.first { $0.role == role } }

    var ifd0: Directory? { directory(.chain(0)) }

    /// IFDs that hold images: the main chain and the SubIFDs, in file order of discovery.
    var imageDirectories: [Directory] {
        directories.filter {
            switch $0.role {
            case .chain, .sub: return true
            default: return false
            }
        }
    }

    /// ImageWidth/ImageLength of an image IFD.
    func size(of d: Directory) -> (width: Int, height: Int)? {
        guard let w = d.entry(0x0100).flatMap({ integers($0, max: 1).first }),
            let h = d.entry(0x0101).flatMap({ integers($0, max: 1).first }), w > 0, h > 0, w <= UInt64(Int32.max),
            h <= UInt64(Int32.max)
        else { return nil }
        return (Int(w), Int(h))
    }

    /// NewSubfileType (0x00FE) bit 0 says "reduced-resolution version of another image"; the old
    /// SubfileType (0x00FF) says the same with the value 2. Absent means a full-resolution image.
    func isFullResolution(_ d: Directory) -> Bool {
        if let e = d.entry(0x00FE), let v = integers(e, max: 1).first, v & 1 != 0 { return false }
        if let e = d.entry(0x00FF), integers(e, max: 1).first == 2 { return false }
        return true
    }

    /// The main image of a plain TIFF: the first full-resolution IFD of the chain that has a size.
    public var mainImage: (directory: Directory, width: Int, height: Int)? {
        for d in directories {
            guard case .chain = d.role, isFullResolution(d), let s = size(of: d) else { continue }
            return (d, s.width, s.height)
        }
        return nil
    }

    /// Whether an IFD holds sensor data: CFA or LinearRaw photometric interpretation, or a vendor's raw
    /// compression (Nikon 34713, Sony 32767, Samsung 32769/32770/32772, Pentax 65535).
    func holdsRawData(_ d: Directory) -> Bool {
        if let e = d.entry(0x0106), let v = integers(e, max: 1).first, v == 32803 || v == 34892 { return true }
        if let e = d.entry(0x0103), let v = integers(e, max: 1).first, [34713, 32767, 32769, 32770, 32772, 65535].contains(v) {
            return true
        }
        return false
    }

    /// The file type by structure, never by maker alone: DNG by DNGVersion; NEF, ARW, PEF and SRW only
    /// when an IFD holds sensor data (a Nikon Coolpix or RICOH fax TIFF is a TIFF); unsure is TIFF.
    /// CR2, ORF and RW2 have their own header signatures (`Sniffer`).
    public var refinedKind: ContainerKind {
        guard let ifd0 else { return .tiff }
        if ifd0.entry(0xC612) != nil { return .dng }
        guard imageDirectories.contains(where: holdsRawData) else { return .tiff }
        let make = ifd0.entry(0x010F).flatMap(string)?.uppercased() ?? ""
        if make.hasPrefix("NIKON") { return .nef }
        if make.hasPrefix("SONY") { return .arw }
        if make.hasPrefix("PENTAX") || make.hasPrefix("RICOH") { return .pef }
        if make.hasPrefix("SAMSUNG") { return .srw }
        return .tiff
    }

    /// The developed size of a RAW: the full-resolution SubIFD's DefaultCropSize (DNG) or the largest
    /// full-resolution SubIFD, else the largest chain IFD that holds sensor data.
    public var rawSize: (width: Int, height: Int, source: String)? {
        func area(_ s: (width: Int, height: Int)) -> UInt64 { UInt64(s.width) * UInt64(s.height) }
        var best: (width: Int, height: Int, source: String)?
        for d in directories {
            guard case .sub = d.role, isFullResolution(d) else { continue }
            if let crop = d.entry(0xC620), crop.count == 2, let v = rationalsOrIntegers(crop), v.count == 2, v[0] >= 1, v[1] >= 1,
                v[0] < Double(Int32.max), v[1] < Double(Int32.max)
            {
                return (Int(v[0]), Int(v[1]), "TIFF \(d.role) DefaultCropSize (0xC620)")
            }
            if let s = size(of: d), area(s) > best.map({ area(($0.width, $0.height)) }) ?? 0 {
                best = (s.width, s.height, "TIFF \(d.role) ImageWidth/ImageLength (NewSubfileType 0)")
            }
        }
        if best != nil { return best }
        for d in directories {
            guard case .chain = d.role, isFullResolution(d), holdsRawData(d), let s = size(of: d) else { continue }
            if area(s) > best.map({ area(($0.width, $0.height)) }) ?? 0 {
                best = (s.width, s.height, "TIFF \(d.role) ImageWidth/ImageLength (sensor data)")
            }
        }
        return best
    }

    /// SHORT/LONG values as numbers, RATIONAL values as numerator/denominator (at most 2).
    func rationalsOrIntegers(_ e: Entry) -> [Double]? {
        if e.type == 5 {
            guard let b = bytes(e, limit: 16) else { return nil }
            return stride(from: 0, to: b.count, by: 8).compactMap { i in
                guard let n = BinaryReader.uint(b, at: i, size: 4, bigEndian: bigEndian),
                    let d = BinaryReader.uint(b, at: i + 4, size: 4, bigEndian: bigEndian), d > 0
                else { return nil }
                return Double(n) / Double(d)
            }
        }
        let v = integers(e, max: 2)
        return v.isEmpty ? nil : v.map { Double($0) }
    }

    // MARK: - A block for libexif

    /// Tags left out of the libexif block: large blobs libexif does not interpret (XMP, IPTC, ICC,
    /// Photoshop resources, DNG private data) and pointers it would follow into the original file.
    static let notForLibexif: Set<UInt16> = [0x014A, 0x02BC, 0x83BB, 0x8649, 0x8773, 0x935C, 0xC634, 0x8769, 0x8825, 0xA005]

    /// A classic TIFF of at most `limit` bytes (default: libexif's `ExifReader.maxBlock` less its `Exif\0\0`) with IFD0, IFD1, Exif, GPS and Interop (values copied,
    /// offsets rewritten, BigTIFF 8-byte integers narrowed where they fit). When everything does not fit,
    /// the largest values are left out first. Strip and tile offsets keep their file-relative values.
    public func exifBlock(limit: Int = 0xFFFE) -> (block: [UInt8], dropped: [String]) {
        struct Item {
            var tag: UInt16
            var type: UInt16
            var count: UInt32
            var value: [UInt8]
        }
        let roles: [Role] = [.chain(0), .chain(1), .exif, .gps, .interop]
        var ifds: [[Item]] = []
        var dropped: [String] = []
        // What is read for the block at all: sizes are checked before reading, so 4096 entries that each
        // point at 64 KiB cost nothing past this budget.
        var budget = 2 * limit
        for role in roles {
            var items: [Item] = []
            for e in directory(role)?.entries ?? [] where !Self.notForLibexif.contains(e.tag) {
                // A maker note may be large; any other value over 4 KiB is not one libexif interprets.
                guard let n = byteCount(e), n <= (e.tag == 0x927C ? 48 << 10 : 4 << 10), n <= budget, var item = narrow(e) else {
                    dropped.append("\(role) 0x\(String(e.tag, radix: 16))")
                    continue
                }
                budget -= n
                item.value = item.value.count % 2 == 1 ? item.value + [0] : item.value
                items.append(item)
            }
            ifds.append(items.sorted { $0.tag < $1.tag })
        }
        // Fit the cap, leaving room for the three pointer entries: first the largest out-of-line values go
        // (one sort, not a search per value), then IFD1, then each IFD keeps its lowest tags.
        func size(_ items: [Item]) -> Int {
            items.isEmpty ? 0 : 6 + 12 * items.count + items.reduce(0) { $0 + ($1.value.count > 4 ? $1.value.count : 0) }
        }
        let room = limit - 8 - 3 * 12
        var total = ifds.reduce(0) { $0 + size($1) }
        if total > room {
            let large = ifds.indices.flatMap { i in ifds[i].indices.map { (i, $0, ifds[i][$0].value.count) } }.filter { $0.2 > 4 }
            var gone = Set<[Int]>()
            for (i, j, n) in large.sorted(by: { $0.2 > $1.2 }) where total > room {
                gone.insert([i, j])
                total -= n + 12
                dropped.append("\(roles[i]) 0x\(String(ifds[i][j].tag, radix: 16))")
            }
            for i in ifds.indices { ifds[i] = ifds[i].indices.filter { !gone.contains([i, $0]) }.map { ifds[i][$0] } }
            total = ifds.reduce(0) { $0 + size($1) }
        }
        if total > room, !ifds[1].isEmpty {
            dropped.append("IFD1 (\(ifds[1].count) entries)")
            ifds[1] = []
            total = ifds.reduce(0) { $0 + size($1) }
        }
        while total > room, let i = ifds.indices.max(by: { ifds[$0].count < ifds[$1].count }), let last = ifds[i].popLast() {
            dropped.append("\(roles[i]) 0x\(String(last.tag, radix: 16))")
            total -= 12 + (last.value.count > 4 ? last.value.count : 0) + (ifds[i].isEmpty ? 6 : 0)
        }
        // Pointers to the IFDs written.
        let hasExif = !ifds[2].isEmpty, hasGPS = !ifds[3].isEmpty, hasInterop = !ifds[4].isEmpty && hasExif
        if hasExif { ifds[0].append(Item(tag: 0x8769, type: 4, count: 1, value: [0, 0, 0, 0])) }
        if hasGPS { ifds[0].append(Item(tag: 0x8825, type: 4, count: 1, value: [0, 0, 0, 0])) }
        if hasInterop { ifds[2].append(Item(tag: 0xA005, type: 4, count: 1, value: [0, 0, 0, 0])) }
        if !hasInterop { ifds[4] = [] }
        for i in ifds.indices { ifds[i].sort { $0.tag < $1.tag } }
        // Lay out: header, then each IFD followed by its out-of-line values.
        var offsets = [Int](repeating: 0, count: roles.count)
        var at = 8
        for (i, items) in ifds.enumerated() where !items.isEmpty {
            offsets[i] = at
            at += 6 + 12 * items.count + items.reduce(0) { $0 + ($1.value.count > 4 ? $1.value.count : 0) }
        }
        var out = [UInt8](bigEndian ? Array("MM".utf8) + [0, 42] : Array("II".utf8) + [42, 0])
        put(UInt64(offsets[0]), 4, into: &out)
        for (i, items) in ifds.enumerated() where !items.isEmpty {
            var data: [UInt8] = []
            let dataStart = offsets[i] + 2 + 12 * items.count + 4
            put(UInt64(items.count), 2, into: &out)
            for it in items {
                put(UInt64(it.tag), 2, into: &out)
                put(UInt64(it.type), 2, into: &out)
                put(UInt64(it.count), 4, into: &out)
                switch it.tag {
                case 0x8769: put(UInt64(offsets[2]), 4, into: &out)
                case 0x8825: put(UInt64(offsets[3]), 4, into: &out)
                case 0xA005: put(UInt64(offsets[4]), 4, into: &out)
                default:
                    if it.value.count <= 4 {
                        out += it.value + [UInt8](repeating: 0, count: 4 - it.value.count)
                    } else {
                        put(UInt64(dataStart + data.count), 4, into: &out)
                        data += it.value
                    }
                }
            }
            // IFD0's next IFD is IFD1 when written.
            put(i == 0 && !ifds[1].isEmpty ? UInt64(offsets[1]) : 0, 4, into: &out)
            out += data
        }
        return (out, dropped)

        /// An entry as a classic-TIFF item: BigTIFF 8-byte integers narrowed to LONG when they fit.
        func narrow(_ e: Entry) -> Item? {
            guard e.count <= UInt64(UInt32.max), var v = bytes(e, limit: 64 << 10) else { return nil }
            var type = e.type
            if [16, 17, 18].contains(type) {
                var n: [UInt8] = []
                for k in 0..<Int(e.count) {
                    guard let x = BinaryReader.uint(v, at: k * 8, size: 8, bigEndian: bigEndian), x <= UInt64(UInt32.max) else {
                        return nil
                    }
                    put(x, 4, into: &n)
                }
                v = n
                type = type == 17 ? 9 : 4
            }
            guard Self.unitSize(type) > 0, type <= 13 else { return nil }
            return Item(tag: e.tag, type: type, count: UInt32(e.count), value: v)
        }
    }

    /// Appends `v` as `size` bytes in the block's byte order (an array per integer was ~20k allocations of a
    /// 3,000-file first ingest).
    private func put(_ v: UInt64, _ size: Int, into out: inout [UInt8]) {
        for i in 0..<size { out.append(UInt8(truncatingIfNeeded: v >> UInt64(8 * (bigEndian ? size - 1 - i : i)))) }
    }
}
