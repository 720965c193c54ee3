import Foundation

/// The largest JPEG preview embedded in a RAW file, read with bounded reads.
///
/// bookworm's libvips has no RAW loader, so a RAW's thumbnail comes from the JPEG the camera stored in it.
/// Derivatives may not import MediaProbe (docs/architecture.md), so this is its own small reader: TIFF-based
/// RAWs (IFD chain and SubIFDs: JPEGInterchangeFormat/Length, a single-strip Compression 6/7 JPEG, the
/// Panasonic JpgFromRaw tag 0x002E), Fujifilm RAF (header offsets 84/88) and Canon CR3 (`PRVW` in the
/// preview `uuid` box, `THMB` in the Canon `uuid` box of `moov`). No declared length is trusted: every
/// range is checked against the file and its container, and a preview over 64 MiB is refused.
public struct RawPreview: Sendable {
    /// The JPEG, starting with FFD8.
    public var jpeg: [UInt8]
    public var width: Int
    public var height: Int
    /// Where it was found, for messages ("SubIFD[1] JPEGInterchangeFormat", "RAF header", "CR3 PRVW").
    public var location: String
    /// The RAW's IFD0 Orientation (1 when absent).
    public var rawOrientation: Int
    /// The preview JPEG's own EXIF Orientation, if it has one.
    public var jpegOrientation: Int?

    /// The orientation to apply after libvips (which applies the JPEG's own): the RAW's, when the JPEG has none.
    var orientationToApply: Int { jpegOrientation == nil ? rawOrientation : 1 }

    /// The side that must reach `size` for `mode` without upscaling (fit: the long side; fill: the short one).
    func side(for mode: ThumbnailRequest.Mode) -> Int {
        mode == .fit ? max(width, height) : min(width, height)
    }

    static let maxPreviewBytes = 64 << 20

    /// Reads the largest decodable JPEG preview of the RAW file at `path`.
    /// Throws a `DerivativeError` whose message says what was found and why nothing is usable.
    public static func largest(path: String) throws(DerivativeError) -> RawPreview {
        let file = try BoundedFile(path: path)
        var scan = RawScan(file: file)
        try scan.run()
        var best: (Candidate, JPEGInfo)?
        for c in scan.candidates {
            guard let info = scan.check(c) else { continue }
            if let b = best, b.1.width * b.1.height >= info.width * info.height { continue }
            best = (c, info)
        }
        guard let (c, info) = best else {
            let found = scan.notes.isEmpty ? "nothing that looks like one" : scan.notes.prefix(6).joined(separator: "; ")
            throw DerivativeError("RAW file has no usable embedded JPEG preview (\(found))", function: "RawPreview")
        }
        let bytes = try file.read(c.offset, c.length)
        return RawPreview(
            jpeg: bytes, width: info.width, height: info.height, location: c.location,
            rawOrientation: scan.orientation, jpegOrientation: info.orientation)
    }

    struct Candidate: Equatable {
        var offset: Int
        var length: Int
        var location: String
    }
}

/// Read-only access to a file with every read checked against its size and capped.
final class BoundedFile {
    let fd: Int32
    let size: Int
    let path: String

    init(path: String) throws(DerivativeError) {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw DerivativeError("cannot open: \(String(cString: strerror(errno)))", function: "open") }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw DerivativeError("not a regular file", function: "fstat")
        }
        size = Int(st.st_size)
    }

    deinit { close(fd) }

    /// `count` bytes at `offset`; throws when the range leaves the file or exceeds the preview cap.
    func read(_ offset: Int, _ count: Int) throws(DerivativeError) -> [UInt8] {
        guard offset >= 0, count >= 0, count <= RawPreview.maxPreviewBytes, offset <= size, count <= size - offset else {
            throw DerivativeError("read of \(count) bytes at \(offset) outside the file (\(size) bytes)", function: "pread")
        }
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw DerivativeError("short read at \(offset + done)", function: "pread") }
            done += n
        }
        return out
    }

    /// Like `read`, but clamped to the end of the file (never throws for a range past the end).
    func readUpTo(_ offset: Int, _ count: Int) -> [UInt8] {
        guard offset >= 0, offset < size else { return [] }
        return (try? read(offset, min(count, size - offset))) ?? []
    }
}

/// Size and orientation of a JPEG, from its markers (up to the first scan).
struct JPEGInfo: Equatable {
    var width: Int
    var height: Int
    var orientation: Int?

    /// nil unless `b` starts with FFD8 and has a baseline, extended or progressive frame header before its scan.
    /// `unsupported` is set to the SOF marker of another process (lossless, arithmetic, hierarchical).
    init?(_ b: [UInt8], unsupported: inout UInt8?) {
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var p = 2
        var orientation: Int?
        while p + 4 <= b.count {
            guard b[p] == 0xFF else { return nil }
            let m = b[p + 1]
            if m == 0xFF { p += 1; continue }
            if m == 0x01 || (0xD0...0xD7).contains(m) { p += 2; continue }
            if m == 0xD9 || m == 0xDA { return nil }
            let len = Int(b[p + 2]) << 8 | Int(b[p + 3])
            guard len >= 2, p + 2 + len <= b.count else { return nil }
            let seg = p + 4
            switch m {
            case 0xC0, 0xC1, 0xC2:
                guard len >= 7 else { return nil }
                let h = Int(b[seg + 1]) << 8 | Int(b[seg + 2]), w = Int(b[seg + 3]) << 8 | Int(b[seg + 4])
                guard w > 0, h > 0 else { return nil }
                self.width = w
                self.height = h
                self.orientation = orientation
                return
            case 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                unsupported = m
                return nil
            case 0xE1 where len >= 8 && Array(b[seg..<seg + 6]) == Array("Exif\0\0".utf8):
                orientation = orientation ?? TIFFBytes.orientation(Array(b[(seg + 6)..<(p + 2 + len)]))
            default: break
            }
            p += 2 + len
        }
        return nil
    }
}

/// TIFF inside a byte buffer (a JPEG's EXIF): only IFD0 Orientation is read.
enum TIFFBytes {
    static func orientation(_ t: [UInt8]) -> Int? {
        guard t.count >= 8, let be = bigEndian(t[0], t[1]) else { return nil }
        func u(_ at: Int, _ n: Int) -> Int? {
            guard at >= 0, at + n <= t.count else { return nil }
            return (0..<n).reduce(0) { acc, i in be ? acc << 8 | Int(t[at + i]) : acc | Int(t[at + i]) << (8 * i) }
        }
        guard let ifd = u(4, 4), let count = u(ifd, 2) else { return nil }
        for i in 0..<min(count, 512) {
            let e = ifd + 2 + 12 * i
            guard let tag = u(e, 2) else { return nil }
            if tag == 0x0112, let v = u(e + 8, 2), (1...8).contains(v) { return v }
        }
        return nil
    }

    static func bigEndian(_ a: UInt8, _ b: UInt8) -> Bool? {
        if a == 0x4D && b == 0x4D { return true }
        if a == 0x49 && b == 0x49 { return false }
        return nil
    }
}

/// One pass over a RAW file's structure, collecting preview candidates and notes on what was rejected.
struct RawScan {
    let file: BoundedFile
    var candidates: [RawPreview.Candidate] = []
    var notes: [String] = []
    var orientation = 1

    static let maxIFDs = 32
    static let maxEntries = 1024
    static let maxBoxes = 256
    static let cr3PreviewUUID: [UInt8] = [
        0xEA, 0xF4, 0x2B, 0x5E, 0x1C, 0x98, 0x4B, 0x88, 0xB9, 0xFB, 0xB7, 0xDC, 0x40, 0x6E, 0x4D, 0x16,
    ]
    static let canonUUID: [UInt8] = [
        0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48,
    ]

    init(file: BoundedFile) { self.file = file }

    mutating func run() throws(DerivativeError) {
        let head = file.readUpTo(0, 96)
        if head.starts(with: Array("FUJIFILMCCD-RAW".utf8)) {
            raf(head)
        } else if head.count >= 12, Array(head[4..<8]) == Array("ftyp".utf8) {
            bmff(0, file.size, path: "", depth: 0)
        } else if head.count >= 8, let be = TIFFBytes.bigEndian(head[0], head[1]) {
            tiff(bigEndian: be)
        } else {
            throw DerivativeError("not a RAW layout this reader knows (TIFF-based, RAF or CR3)", function: "RawPreview")
        }
    }

    // MARK: Fujifilm RAF

    /// The header holds the JPEG's offset and length at bytes 84 and 88, big-endian.
    mutating func raf(_ head: [UInt8]) {
        guard head.count >= 92 else {
            notes.append("RAF header: \(head.count) bytes, needs 92")
            return
        }
        candidates.append(.init(offset: Self.be(head, 84, 4), length: Self.be(head, 88, 4), location: "RAF header JPEG"))
    }

    // MARK: Canon CR3 (ISO-BMFF)

    mutating func bmff(_ start: Int, _ end: Int, path: String, depth: Int) {
        var p = start
        var n = 0
        while p + 8 <= end, n < Self.maxBoxes {
            n += 1
            let h = file.readUpTo(p, 32)
            guard h.count >= 8 else { return }
            var size = Self.be(h, 0, 4)
            let type = String(decoding: h[4..<8], as: UTF8.self)
            var header = 8
            if size == 1 {
                guard h.count >= 16 else { return }
                size = Self.be(h, 8, 8)
                header = 16
            } else if size == 0 {
                size = end - p
            }
            guard size >= header else { return }
            var boxEnd = p + size
            if size > end - p {
                notes.append("\(path)\(type): declares \(size) bytes, \(end - p) present")
                boxEnd = end
            }
            let body = p + header
            switch type {
            case "moov" where depth == 0:
                bmff(body, boxEnd, path: "moov/", depth: depth + 1)
            case "uuid":
                let id = h.count >= header + 16 ? Array(h[header..<(header + 16)]) : []
                if id == Self.cr3PreviewUUID, depth == 0 {
                    // 16-byte uuid, 8 bytes, then the PRVW box.
                    bmff(body + 24, boxEnd, path: "uuid/", depth: depth + 1)
                } else if id == Self.canonUUID, depth == 1 {
                    bmff(body + 16, boxEnd, path: path + "uuid/", depth: depth + 1)
                }
            case "PRVW", "THMB":
                // PRVW: u32, u16, u16 width, u16 height, u16, u32 length, JPEG.
                // THMB: u32 version/flags, u16 width, u16 height, u32 length, u16, u16, JPEG.
                let b = file.readUpTo(body, 16)
                guard b.count == 16, boxEnd - body >= 16 else {
                    notes.append("CR3 \(type): \(boxEnd - body) bytes")
                    break
                }
                let length = type == "PRVW" ? Self.be(b, 12, 4) : Self.be(b, 8, 4)
                if length > boxEnd - body - 16 {
                    notes.append("CR3 \(type): JPEG of \(length) bytes does not fit its \(boxEnd - body)-byte box")
                } else {
                    candidates.append(.init(offset: body + 16, length: length, location: "CR3 \(type)"))
                }
            default: break
            }
            if boxEnd <= p { return }
            p = boxEnd
        }
    }

    // MARK: TIFF-based RAWs

    struct Entry {
        var tag: Int
        var type: Int
        var count: Int
        /// The offset of the 4-byte value field in the file.
        var field: Int
    }

    mutating func tiff(bigEndian be: Bool) {
        let h = file.readUpTo(0, 8)
        let magic = Self.int(h, 2, 2, be)
        // 42 standard (DNG, CR2, NEF, ARW, PEF), 0x55 Panasonic, "RO"/"RS" Olympus.
        guard [42, 0x55, 0x4F52, 0x5352].contains(magic) else {
            notes.append("TIFF magic \(magic)")
            return
        }
        var queue: [(offset: Int, name: String, depth: Int, chain: Int?)] = [(Self.int(h, 4, 4, be), "IFD0", 0, 0)]
        var visited = Set<Int>()
        var read = 0
        while !queue.isEmpty, read < Self.maxIFDs {
            let (offset, name, depth, chain) = queue.removeFirst()
            guard offset >= 8, offset < file.size, visited.insert(offset).inserted else { continue }
            read += 1
            let (entries, next) = ifd(at: offset, be)
            func first(_ tag: Int) -> Entry? { entries.first { $0.tag == tag } }
            func values(_ tag: Int) -> [Int] { first(tag).map { self.values($0, be) } ?? [] }
            if name == "IFD0", let o = values(0x0112).first, (1...8).contains(o) { orientation = o }
            let jif = values(0x0201), jil = values(0x0202)
            if let o = jif.first, let l = jil.first {
                candidates.append(.init(offset: o, length: l, location: "\(name) JPEGInterchangeFormat"))
            }
            let compression = values(0x0103).first ?? 1
            let strips = values(0x0111), counts = values(0x0117)
            if compression == 6 || compression == 7 {
                if strips.count == 1, counts.count == 1 {
                    let c = RawPreview.Candidate(offset: strips[0], length: counts[0], location: "\(name) strip")
                    if !candidates.contains(where: { $0.offset == c.offset }) { candidates.append(c) }
                }
            } else if compression == 1, (values(0x00FE).first ?? 0) & 1 == 1 || name == "IFD0",
                let w = values(0x0100).first, let hh = values(0x0101).first
            {
                notes.append("\(name): an uncompressed \(w)×\(hh) image, not a JPEG")
            }
            if let e = first(0x002E), e.count > 0 {
                candidates.append(
                    .init(
                        offset: Self.int(file.readUpTo(e.field, 4), 0, 4, be), length: e.count,
                        location: "\(name) JpgFromRaw (0x002E)"))
            }
            if depth < 2 {
                for (i, o) in values(0x014A).prefix(16).enumerated() {
                    queue.append((o, depth == 0 ? "SubIFD[\(i)]" : "\(name)/SubIFD[\(i)]", depth + 1, nil))
                }
            }
            if let chain, next != 0 { queue.append((next, "IFD\(chain + 1)", 0, chain + 1)) }
        }
    }

    /// The entries of the IFD at `offset` (capped by the file and `maxEntries`) and the next-IFD offset.
    func ifd(at offset: Int, _ be: Bool) -> ([Entry], Int) {
        let n = min(Self.int(file.readUpTo(offset, 2), 0, 2, be), Self.maxEntries)
        let table = file.readUpTo(offset + 2, n * 12 + 4)
        let fit = min(n, table.count / 12)
        let entries = (0..<fit).map { i in
            Entry(
                tag: Self.int(table, i * 12, 2, be), type: Self.int(table, i * 12 + 2, 2, be),
                count: Self.int(table, i * 12 + 4, 4, be), field: offset + 2 + i * 12 + 8)
        }
        let next = table.count >= fit * 12 + 4 ? Self.int(table, fit * 12, 4, be) : 0
        return (entries, next)
    }

    /// SHORT or LONG values of an entry (at most 64), inline or at their offset.
    func values(_ e: Entry, _ be: Bool) -> [Int] {
        let size = e.type == 3 ? 2 : (e.type == 4 || e.type == 13 ? 4 : 0)
        guard size > 0, e.count > 0, e.count <= 64 else { return [] }
        let field = file.readUpTo(e.field, 4)
        let data = e.count * size <= 4 ? field : file.readUpTo(Self.int(field, 0, 4, be), e.count * size)
        return (0..<min(e.count, data.count / size)).map { Self.int(data, $0 * size, size, be) }
    }

    // MARK: Checking a candidate

    /// The candidate's JPEG facts, or nil with a note saying why it is not usable.
    mutating func check(_ c: RawPreview.Candidate) -> JPEGInfo? {
        guard c.length >= 4 else {
            notes.append("\(c.location): \(c.length) bytes")
            return nil
        }
        guard c.length <= RawPreview.maxPreviewBytes else {
            notes.append("\(c.location): \(c.length) bytes, over the \(RawPreview.maxPreviewBytes >> 20) MiB limit")
            return nil
        }
        guard c.offset >= 0, c.offset <= file.size, c.length <= file.size - c.offset else {
            notes.append("\(c.location): \(c.length) bytes at \(c.offset) run past the end of the file (\(file.size) bytes)")
            return nil
        }
        let start = file.readUpTo(c.offset, 2)
        guard start == [0xFF, 0xD8] else {
            notes.append("\(c.location): \(c.length) bytes that do not start with FFD8")
            return nil
        }
        // The frame header follows the APPn segments: 256 KiB holds it in practice; else read it all.
        var unsupported: UInt8?
        var info = JPEGInfo(file.readUpTo(c.offset, min(c.length, 256 << 10)), unsupported: &unsupported)
        if info == nil, unsupported == nil, c.length > 256 << 10 {
            info = JPEGInfo(file.readUpTo(c.offset, c.length), unsupported: &unsupported)
        }
        guard let info else {
            if let m = unsupported {
                notes.append(
                    "\(c.location): a JPEG libvips cannot decode (SOF \(String(format: "0x%02X", m)), e.g. lossless raw data)")
            } else {
                notes.append("\(c.location): \(c.length) bytes with no readable JPEG frame header")
            }
            return nil
        }
        // libvips 8.14 only warns when a JPEG *buffer* ends early (a file fails), so a preview cut short
        // must be caught here: it has to end with EOI, give or take zero padding.
        let tail = file.readUpTo(c.offset + max(0, c.length - 4096), min(c.length, 4096))
        guard let last = tail.lastIndex(where: { $0 != 0 }), last >= 1, tail[last - 1] == 0xFF, tail[last] == 0xD9 else {
            notes.append("\(c.location): JPEG \(info.width)×\(info.height) cut short (no end marker)")
            return nil
        }
        return info
    }

    // MARK: Integers

    static func int(_ b: [UInt8], _ at: Int, _ n: Int, _ bigEndian: Bool) -> Int {
        guard at >= 0, at + n <= b.count else { return 0 }
        return (0..<n).reduce(0) { acc, i in bigEndian ? acc << 8 | Int(b[at + i]) : acc | Int(b[at + i]) << (8 * i) }
    }

    static func be(_ b: [UInt8], _ at: Int, _ n: Int) -> Int {
        // 8-byte sizes are capped so that arithmetic on them cannot overflow.
        min(int(b, at, n, true), Int(Int32.max) * 4)
    }
}
