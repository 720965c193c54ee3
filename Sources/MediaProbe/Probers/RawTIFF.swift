/// Checks on the first 64 KiB of a TIFF-based file: whether IFD0, its values or the SubIFDs' image data run
/// past the end (truncation), and the Panasonic RW2 embedded JPEG (IFD0 0x002E) that carries its Exif. Sizes
/// and the IFDs themselves are read where they are by `TIFFDirectories`.
enum RawTIFF {
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        /// The inline value or the offset of the value (TIFF-relative).
        var value: UInt32
        /// Where the 4-byte value field sits, for values stored inline.
        var fieldOffset: Int
    }

    /// The entries of the IFD at `offset`, capped by what the buffer holds.
    static func entries(_ b: [UInt8], at offset: Int, bigEndian: Bool) -> [Entry] {
        guard let n = BinaryReader.uint(b, at: offset, size: 2, bigEndian: bigEndian) else { return [] }
        var out: [Entry] = []
        for i in 0..<min(Int(n), 4096) {
            let p = offset + 2 + 12 * i
            guard let tag = BinaryReader.uint(b, at: p, size: 2, bigEndian: bigEndian),
                let type = BinaryReader.uint(b, at: p + 2, size: 2, bigEndian: bigEndian),
                let count = BinaryReader.uint(b, at: p + 4, size: 4, bigEndian: bigEndian),
                var value = BinaryReader.uint(b, at: p + 8, size: 4, bigEndian: bigEndian)
            else { break }
            // A SHORT stored inline sits in the first two bytes of the value field.
            if type == 3 && count == 1 { value = BinaryReader.uint(b, at: p + 8, size: 2, bigEndian: bigEndian) ?? value }
            out.append(Entry(tag: UInt16(tag), type: UInt16(type), count: UInt32(count), value: UInt32(value), fieldOffset: p + 8))
        }
        return out
    }

    /// Unsigned values of an entry (SHORT or LONG), inline or at their offset.
    static func values(_ e: Entry, _ b: [UInt8], bigEndian: Bool) -> [UInt64] {
        let size = e.type == 3 ? 2 : (e.type == 4 || e.type == 13 ? 4 : 0)
        guard size > 0, e.count > 0, e.count <= 64 else { return [] }
        let base = Int(e.count) * size <= 4 ? e.fieldOffset : Int(e.value)
        var out: [UInt64] = []
        for i in 0..<Int(e.count) {
            guard let v = BinaryReader.uint(b, at: base + i * size, size: size, bigEndian: bigEndian) else { break }
            out.append(v)
        }
        return out
    }

    /// Where the image data of the SubIFDs (strips or tiles) ends, and whether a SubIFD itself lies past
    /// the buffer: both mean the file was cut short.
    static func subIFDDataEnd(_ b: [UInt8], fileSize: UInt64) -> UInt64? {
        guard b.count >= 8 else { return nil }
        let be = b[0] == 0x4D
        guard let ifd0 = BinaryReader.uint(b, at: 4, size: 4, bigEndian: be),
            let sub = entries(b, at: Int(ifd0), bigEndian: be).first(where: { $0.tag == 0x014A })
        else { return nil }
        let offsets: [UInt64] = sub.count == 1 ? [UInt64(sub.value)] : values(sub, b, bigEndian: be)
        var end: UInt64 = 0
        for off in offsets.prefix(16) {
            if off >= fileSize { return off + 2 }
            let es = entries(b, at: Int(off), bigEndian: be)
            for (o, c) in [(0x0111, 0x0117), (0x0144, 0x0145)] {
                guard let oe = es.first(where: { $0.tag == UInt16(o) }), let ce = es.first(where: { $0.tag == UInt16(c) }) else { continue }
                for (x, y) in zip(values(oe, b, bigEndian: be), values(ce, b, bigEndian: be)) { end = max(end, x + y) }
            }
        }
        return end > 0 ? end : nil
    }

    /// A description of how IFD0 runs past the end of the file (its entries, or a value they point at),
    /// or nil when it fits.
    static func ifd0Overrun(_ b: [UInt8], fileSize: UInt64) -> String? {
        guard b.count >= 8 else { return "TIFF header is \(b.count) bytes" }
        let be = b[0] == 0x4D
        guard let ifd0 = BinaryReader.uint(b, at: 4, size: 4, bigEndian: be) else { return nil }
        guard let n = BinaryReader.uint(b, at: Int(ifd0), size: 2, bigEndian: be) else {
            // Past this prefix but inside the file: `TIFFDirectories` reads it there.
            return ifd0 + 2 > fileSize ? "IFD0 at offset \(ifd0) lies past the end" : nil
        }
        let end = ifd0 + 2 + 12 * n
        if end > fileSize { return "IFD0 declares \(n) entries ending at byte \(end)" }
        let sizes: [UInt16: UInt64] = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4]
        for e in entries(b, at: Int(ifd0), bigEndian: be) {
            let bytes = UInt64(e.count) * (sizes[e.type] ?? 1)
            if bytes > 4, UInt64(e.value) + bytes > fileSize {
                return "IFD0 tag 0x\(String(e.tag, radix: 16)) points at bytes \(e.value)..<\(UInt64(e.value) + bytes)"
            }
        }
        return nil
    }

    /// Panasonic RW2 `JpgFromRaw` (IFD0 0x002E): an embedded JPEG that holds the full Exif.
    static func embeddedJPEG(_ b: [UInt8]) -> ByteRange? {
        guard b.count >= 8 else { return nil }
        let be = b[0] == 0x4D
        guard let ifd0 = BinaryReader.uint(b, at: 4, size: 4, bigEndian: be),
            let e = entries(b, at: Int(ifd0), bigEndian: be).first(where: { $0.tag == 0x002E }), e.count > 4
        else { return nil }
        return ByteRange(offset: UInt64(e.value), length: UInt64(e.count))
    }
}
