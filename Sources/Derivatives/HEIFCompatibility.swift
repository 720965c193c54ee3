import Foundation

/// The HEIC files iPhones write since iOS 17 (iPhone 15 Pro and later; also edits saved by Photos) carry an
/// ISO 21496-1 gain map: a `tmap` derived image built from the primary and the gain map, and references
/// that point at both — an auxiliary image (`auxl`) and Exif/XMP items (`cdsc`) listing two targets, the
/// primary and the `tmap` item. libheif 1.15 (Debian bookworm) refuses the whole file when any `auxl` or
/// `cdsc` reference has more than one target ("Too many auxiliary image references", "Metadata not
/// correctly assigned to image"), although the primary image is an ordinary HEVC grid.
///
/// The workaround keeps libheif as the decoder and hands it a copy of the file in memory in which each
/// such reference box has its type renamed to one libheif does not know (`auxl` → `xaux`, `cdsc` →
/// `xcds`). Only four bytes per reference change and nothing moves, so every `iloc` offset stays valid.
/// libheif ignores reference types it does not know: the auxiliary image becomes one more top-level image
/// (libvips still reads the primary, named by `pitm`) and the metadata item is attached to no image — a
/// thumbnail strips metadata anyway, and the picture's orientation (`irot`/`imir`) and colour (`colr`)
/// are item properties, not references. References with one target are left alone.
///
/// Chosen over decoding the HEVC tiles with libavcodec and stitching the grid ourselves: that would
/// re-implement `irot`/`imir`/`clap`, the grid and the `colr` profile, and the two paths would drift apart.
/// Cost: the file is read into memory once (3–4 MB for an iPhone HEIC) instead of streamed.
enum HEIFCompatibility {
    /// One reference box to rename: where its type sits in the file, and what it says.
    struct Reference: Sendable, Equatable, CustomStringConvertible {
        var type: String
        var from: UInt32
        var to: [UInt32]
        /// File offset of the box's four-character type.
        var typeOffset: Int
        var description: String { "\(type) \(from) → \(to.map(String.init).joined(separator: ","))" }
    }

    /// The reference types libheif 1.15 wants exactly one target for, and what each is renamed to.
    static let renamed: [String: String] = ["auxl": "xaux", "cdsc": "xcds"]

    /// The largest `meta` box read (iPhone files: 5–20 KB; the grid's `iloc` grows with the tile count).
    static let metaLimit = 16 << 20

    /// The references libheif 1.15 would refuse, from the file's `meta` box (read with two or three small
    /// reads). Empty for anything that is not an ISO-BMFF file with such references, malformed files
    /// included: libheif then reports on them itself.
    static func references(path: String) -> [Reference] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return [] }
        let fileSize = Int(st.st_size)
        func read(_ offset: Int, _ count: Int) -> [UInt8]? {
            guard count > 0, offset >= 0, offset + count <= fileSize else { return nil }
            var out = [UInt8](repeating: 0, count: count)
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return n == count ? out : nil
        }
        var offset = 0
        var index = 0
        while offset + 8 <= fileSize, index < 64 {
            guard let h = read(offset, min(16, fileSize - offset)), let box = header(h, at: 0, end: fileSize - offset)
            else { return [] }
            if index == 0, box.type != "ftyp" { return [] }
            if box.type == "meta" {
                guard box.size <= metaLimit, let meta = read(offset, box.size) else { return [] }
                return references(meta: meta, fileOffset: offset)
            }
            offset += box.size
            index += 1
        }
        return []
    }

    /// The whole file in memory with `references` renamed, for libvips' buffer loaders.
    static func patched(path: String, _ references: [Reference]) throws(DerivativeError) -> FileInMemory {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw DerivativeError("cannot read \(path): \(error.localizedDescription)", function: "read")
        }
        let file = FileInMemory(data)
        let bytes = file.buffer
        for r in references {
            guard let to = renamed[r.type], r.typeOffset + 4 <= bytes.count,
                String(decoding: UnsafeRawBufferPointer(rebasing: bytes[r.typeOffset..<r.typeOffset + 4]), as: UTF8.self)
                    == r.type
            else { throw DerivativeError("the file changed while it was read (\(r) not found again)", function: "read") }
            for (i, c) in to.utf8.enumerated() { bytes[r.typeOffset + i] = c }
        }
        return file
    }

    struct Header {
        var type: String
        var size: Int
        var headerSize: Int
    }

    /// The box header at `at`; nil when it is cut or its size runs past `end`.
    static func header(_ b: [UInt8], at: Int, end: Int) -> Header? {
        guard at + 8 <= b.count else { return nil }
        var size = Int(be32(b, at))
        let type = String(decoding: b[at + 4..<at + 8], as: UTF8.self)
        var headerSize = 8
        if size == 1 {
            guard at + 16 <= b.count else { return nil }
            let large = UInt64(be32(b, at + 8)) << 32 | UInt64(be32(b, at + 12))
            guard large <= UInt64(Int.max) else { return nil }
            size = Int(large)
            headerSize = 16
        } else if size == 0 {
            size = end - at
        }
        guard size >= headerSize, size <= end - at else { return nil }
        return Header(type: type, size: size, headerSize: headerSize)
    }

    /// The references to rename in a `meta` box read whole (`meta[0]` is the box's first byte, at
    /// `fileOffset` in the file).
    static func references(meta: [UInt8], fileOffset: Int) -> [Reference] {
        guard let m = header(meta, at: 0, end: meta.count), m.type == "meta" else { return [] }
        var at = m.headerSize + 4  // a full box: version and flags
        while at + 8 <= meta.count {
            guard let child = header(meta, at: at, end: meta.count), at + child.size <= meta.count else { return [] }
            if child.type == "iref" {
                return references(iref: meta, at: at, child, fileOffset: fileOffset)
            }
            at += child.size
        }
        return []
    }

    static func references(iref b: [UInt8], at start: Int, _ iref: Header, fileOffset: Int) -> [Reference] {
        let end = start + iref.size
        guard start + iref.headerSize + 4 <= end else { return [] }
        let wide = b[start + iref.headerSize] != 0  // version 1: 32-bit item ids
        let idSize = wide ? 4 : 2
        func id(_ i: Int) -> UInt32 { wide ? be32(b, i) : UInt32(b[i]) << 8 | UInt32(b[i + 1]) }
        var out: [Reference] = []
        var at = start + iref.headerSize + 4
        while at + 8 <= end {
            guard let ref = header(b, at: at, end: end), at + ref.size <= end else { break }
            let body = at + ref.headerSize
            if renamed[ref.type] != nil, body + idSize + 2 <= at + ref.size {
                let count = Int(b[body + idSize]) << 8 | Int(b[body + idSize + 1])
                let ids = body + idSize + 2
                if count != 1, ids + count * idSize <= at + ref.size {
                    out.append(
                        Reference(
                            type: ref.type, from: id(body), to: (0..<count).map { id(ids + $0 * idSize) },
                            typeOffset: fileOffset + at + 4))
                }
            }
            at += ref.size
        }
        return out
    }

    static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
}

/// A file's bytes at a fixed address for as long as the value lives: libvips' buffer loaders do not copy
/// their input, so it must outlive every image made from it, up to the save.
final class FileInMemory: @unchecked Sendable {
    /// The bytes, writable until the value is shared.
    let buffer: UnsafeMutableRawBufferPointer

    init(_ data: Data) {
        buffer = .allocate(byteCount: data.count, alignment: 16)
        _ = data.copyBytes(to: buffer)
    }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(buffer) }

    deinit { buffer.deallocate() }
}
