#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// JPEG segment reader: SOF size, APP1 Exif, APP1 XMP (+ Extended XMP), APP2 MPF, data after EOI.
public enum JPEGReader {
    public struct Result: Sendable, Equatable {
        public var facts = JPEGFacts()
        /// The standard XMP packet (APP1 `http://ns.adobe.com/xap/1.0/`), when present.
        public var xmpPacket: [UInt8]?
        /// The Extended XMP packet, joined from its APP1 parts (the GUID named by `xmpNote:HasExtendedXMP`).
        public var extendedXMPPacket: [UInt8]?
        public var warnings: [String] = []
        /// Signs that the bytes are cut or inconsistent (no EOI, a segment past the end).
        public var damage: [String] = []
        public init() {}
    }

    /// Largest joined Extended XMP packet kept.
    public static let maxExtendedXMP = 16 << 20
    /// Most segments walked before giving up.
    static let maxSegments = 100_000
    static let scanChunk = 256 << 10
    /// Most bytes of garbage skipped between two segments (outside entropy-coded data) before giving up:
    /// a file that claims to be a JPEG and then holds gigabytes of zeros is not walked to its end.
    static let maxJunk: UInt64 = 1 << 20

    static let xmpNamespace = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    static let extendedNamespace = Array("http://ns.adobe.com/xmp/extension/\0".utf8)

    public static func read(_ source: any ByteSource) throws(ProbeError) -> Result {
        let size = source.size
        let head = try source.read(at: 0, count: 2)
        guard head == [0xFF, 0xD8] else { throw ProbeError(.malformed, "JPEG: no SOI marker at offset 0") }
        var r = Result()
        var parts: [String: ExtendedParts] = [:]
        var partOrder: [String] = []
        var pos: UInt64 = 2
        var segments = 0
        scan: while segments < maxSegments {
            segments += 1
            let h = try source.read(at: pos, count: 16)
            guard !h.isEmpty else {
                r.damage.append("JPEG: no EOI marker (file ends at \(size))")
                break
            }
            guard h[0] == 0xFF else {
                guard let (next, _) = try scanForMarker(source, from: pos, limit: maxJunk) else {
                    let scanned = min(maxJunk, size - pos)
                    r.warnings.append("JPEG: no marker in the \(scanned) bytes after offset \(pos); stopped reading")
                    break
                }
                r.warnings.append("JPEG: skipped \(next - pos) unknown bytes at offset \(pos)")
                pos = next
                continue
            }
            var k = 0
            while k < h.count, h[k] == 0xFF { k += 1 }
            guard k < h.count else {
                pos += UInt64(h.count - 1)  // all fill bytes: keep the last FF
                continue
            }
            let markerPos = pos + UInt64(k - 1)
            let marker = h[k]
            switch marker {
            case 0xD9:
                r.facts.endOfImage = markerPos + 2
                break scan
            case 0x01, 0xD0...0xD8:
                pos = markerPos + 2
                continue
            case 0x00:
                r.warnings.append("JPEG: invalid marker FF00 at offset \(markerPos)")
                pos = markerPos + 2
                continue
            default: break
            }
            let lb = try source.read(at: markerPos + 2, count: 2)
            guard lb.count == 2 else {
                r.damage.append("JPEG: segment FF\(hex(marker)) at offset \(markerPos) is truncated")
                break
            }
            let length = UInt64(lb[0]) << 8 | UInt64(lb[1])
            guard length >= 2 else {
                r.warnings.append("JPEG: segment FF\(hex(marker)) at offset \(markerPos) has length \(length)")
                break
            }
            let payload = ByteRange(offset: markerPos + 4, length: length - 2)
            let segEnd = markerPos + 2 + length
            guard segEnd <= size else {
                r.damage.append("JPEG: segment FF\(hex(marker)) at offset \(markerPos) runs past the end of the file")
                break
            }
            switch marker {
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                if r.facts.width == nil {
                    let b = try source.read(at: payload.offset, count: 5)
                    if b.count == 5, payload.length >= 5 {
                        r.facts.height = Int(b[1]) << 8 | Int(b[2])
                        r.facts.width = Int(b[3]) << 8 | Int(b[4])
                    }
                }
            case 0xE1:
                let b = try source.read(at: payload.offset, count: Int(payload.length))
                if b.matches("Exif\0\0") {
                    if r.facts.exifRange == nil { r.facts.exifRange = payload }
                } else if b.starts(with: xmpNamespace) {
                    if r.xmpPacket == nil {
                        r.xmpPacket = Array(b[xmpNamespace.count...])
                        r.facts.xmpRange = ByteRange(offset: payload.offset + UInt64(xmpNamespace.count),
                                                     length: payload.length - UInt64(xmpNamespace.count))
                    }
                } else if b.starts(with: extendedNamespace) {
                    addExtendedPart(b, at: payload.offset, to: &parts, order: &partOrder, warnings: &r.warnings)
                }
            case 0xE2:
                if r.facts.mpfImages.isEmpty {
                    let b = try source.read(at: payload.offset, count: Int(payload.length))
                    if b.matches("MPF\0") {
                        r.facts.mpfImages = mpfImages(b, tiffStart: payload.offset + 4, fileSize: size,
                                                      warnings: &r.warnings)
                    }
                }
            case 0xED where r.facts.photoshopRange == nil && payload.length > 14:
                if try source.read(at: payload.offset, count: 14).matches("Photoshop 3.0\0") {
                    r.facts.photoshopRange = ByteRange(offset: payload.offset + 14, length: payload.length - 14)
                }
            case 0xDC where r.facts.height == 0 && payload.length >= 2:
                // DNL: the number of lines, for a frame header that left it 0.
                let b = try source.read(at: payload.offset, count: 2)
                if b.count == 2, Int(b[0]) << 8 | Int(b[1]) > 0 {
                    r.facts.height = Int(b[0]) << 8 | Int(b[1])
                    r.facts.heightFromDNL = true
                }
            case 0xDA:
                if r.facts.scanOffset == nil { r.facts.scanOffset = markerPos }
                // The end of the image from the tail, without walking the entropy-coded data; only a file whose
                // end does not prove its EOI (cut, or an unknown trailer) is scanned.
                if r.facts.width != nil, r.facts.height != 0, let eoi = try endOfImageFromTail(source, after: segEnd, mpf: r.facts.mpfImages) {
                    r.facts.endOfImage = eoi
                    break scan
                }
                guard let (next, _) = try scanForMarker(source, from: segEnd) else {
                    r.damage.append("JPEG: no EOI marker after the scan at offset \(markerPos)")
                    break scan
                }
                pos = next
                continue
            default: break
            }
            pos = segEnd
        }
        if segments >= maxSegments { r.warnings.append("JPEG: more than \(maxSegments) segments; stopped") }
        if !parts.isEmpty {
            r.facts.hasExtendedXMP = true
            r.extendedXMPPacket = joinExtended(parts, order: partOrder, standard: r.xmpPacket, warnings: &r.warnings)
        }
        for img in r.facts.mpfImages where img.range.offset != 0 {
            let b = try source.read(at: img.range.offset, count: 2)
            if b != [0xFF, 0xD8] || img.range.end > size {
                r.warnings.append("MPF: image at offset \(img.range.offset) (\(img.range.length) bytes) is not a JPEG inside the file")
            }
        }
        if let eoi = r.facts.endOfImage, eoi < size {
            var start = eoi
            for img in r.facts.mpfImages where img.range.offset >= eoi && img.range.offset < size {
                start = max(start, min(img.range.end, size))
            }
            if start < size { r.facts.trailer = ByteRange(offset: start, length: size - start) }
        }
        return r
    }

    static func hex(_ b: UInt8) -> String {
        let s = String(b, radix: 16, uppercase: true)
        return s.count == 1 ? "0" + s : s
    }

    /// The offset just after the primary image's EOI when the file's tail proves it, else nil (scan).
    ///
    /// Entropy-coded data never holds `FF D9` (an FF there is followed by 00 or RSTn), so a file that ends
    /// in `FF D9` ends with an EOI marker. With an MPF index, the primary image is its first entry (offset
    /// 0, its length): its last two bytes must be `FF D9`, every later image must start with `FF D8` and the
    /// last must end at (or, with a trailer, before) the end of the file — the same EOI a scan finds.
    static func endOfImageFromTail(_ source: any ByteSource, after scanStart: UInt64, mpf: [MPFImage]) throws(ProbeError) -> UInt64? {
        let size = source.size
        guard size >= scanStart + 2 else { return nil }
        if let primary = mpf.first(where: { $0.range.offset == 0 }), mpf.count > 1 {
            let end = primary.range.length
            guard end >= scanStart + 2, end <= size, try source.read(at: end - 2, count: 2) == [0xFF, 0xD9] else { return nil }
            for img in mpf where img.range.offset != 0 {
                guard img.range.offset >= end, img.range.end <= size, try source.read(at: img.range.offset, count: 2) == [0xFF, 0xD8]
                else { return nil }
            }
            // The first secondary image follows the primary's EOI directly (nothing a scan would see between).
            let next = mpf.filter { $0.range.offset != 0 }.map(\.range.offset).min() ?? size
            guard next == end else { return nil }
            return end
        }
        guard mpf.count <= 1, try source.read(at: size - 2, count: 2) == [0xFF, 0xD9] else { return nil }
        return size
    }

    /// Finds the next marker in entropy-coded data: an FF followed by neither 00, FF nor RSTn.
    /// Returns the offset of that FF and the marker byte; nil when none is found within `limit` bytes.
    static func scanForMarker(_ source: any ByteSource, from start: UInt64, limit: UInt64 = .max) throws(ProbeError) -> (UInt64, UInt8)? {
        var pos = start
        let end = start &+ limit < start ? source.size : min(source.size, start + limit)
        while pos < end {
            let chunk = try source.read(at: pos, count: scanChunk)
            guard chunk.count >= 2 else { return nil }
            let last = chunk.count - 1
            let found: Int? = chunk.withUnsafeBufferPointer { b in
                guard let base = b.baseAddress else { return nil }
                var i = 0
                while i < last {
                    // memchr finds the next FF at memory speed; most of entropy-coded data has none.
                    guard let p = memchr(base + i, 0xFF, last - i) else { return nil }
                    i = base.distance(to: p.assumingMemoryBound(to: UInt8.self))
                    let m = base[i + 1]
                    if m != 0x00 && m != 0xFF && !(0xD0...0xD7).contains(m) { return i }
                    i += 1
                }
                return nil
            }
            if let i = found { return (pos + UInt64(i), chunk[i + 1]) }
            pos += UInt64(last)  // re-read the last byte: it may be an FF whose marker is in the next chunk
        }
        return nil
    }

    struct ExtendedParts {
        var fullLength: Int
        var parts: [(offset: Int, data: ArraySlice<UInt8>)] = []
        var stored = 0
    }

    static func addExtendedPart(_ b: [UInt8], at: UInt64, to parts: inout [String: ExtendedParts],
                                order: inout [String], warnings: inout [String]) {
        let h = extendedNamespace.count
        guard b.count >= h + 40,
            let full = BinaryReader.uint(b, at: h + 32, size: 4, bigEndian: true),
            let off = BinaryReader.uint(b, at: h + 36, size: 4, bigEndian: true)
        else {
            warnings.append("Extended XMP: part at offset \(at) is too short")
            return
        }
        let guid = String(decoding: b[h..<(h + 32)], as: UTF8.self)
        guard full <= UInt64(maxExtendedXMP) else {
            warnings.append("Extended XMP: \(full) bytes exceeds the \(maxExtendedXMP)-byte limit; skipped")
            return
        }
        if parts[guid] == nil {
            guard parts.count < 16 else { return }
            parts[guid] = ExtendedParts(fullLength: Int(full))
            order.append(guid)
        }
        let data = b[(h + 40)...]
        guard var p = parts[guid], p.fullLength == Int(full), Int(off) <= p.fullLength,
            data.count <= p.fullLength - Int(off), p.stored + data.count <= 2 * p.fullLength + 65536
        else {
            warnings.append("Extended XMP: part at offset \(at) does not fit its declared length")
            return
        }
        p.parts.append((Int(off), data))
        p.stored += data.count
        parts[guid] = p
    }

    static func joinExtended(_ parts: [String: ExtendedParts], order: [String], standard: [UInt8]?,
                             warnings: inout [String]) -> [UInt8]? {
        let guid = order.first { g in standard?.firstIndex(of: Array(g.utf8)) != nil } ?? order.first
        guard let guid, let p = parts[guid] else { return nil }
        var out = [UInt8](repeating: 0, count: p.fullLength)
        var covered = 0
        for part in p.parts.sorted(by: { $0.offset < $1.offset }) {
            out.replaceSubrange(part.offset..<(part.offset + part.data.count), with: part.data)
            covered += part.data.count
        }
        if covered < p.fullLength {
            warnings.append("Extended XMP \(guid): \(covered) of \(p.fullLength) bytes present")
        }
        return out
    }

    /// The MP Entry list of an APP2 `MPF\0` payload as absolute ranges (the primary image's offset is 0).
    static func mpfImages(_ b: [UInt8], tiffStart: UInt64, fileSize: UInt64, warnings: inout [String]) -> [MPFImage] {
        guard let tiff = try? TIFFReader(Array(b.dropFirst(4))) else {
            warnings.append("MPF: bad index header")
            return []
        }
        guard let e = tiff.entry(0xB002, in: .ifd0), let v = tiff.value(e) else {
            warnings.append("MPF: no readable MP Entry")
            return []
        }
        let declared = Int(tiff.entry(0xB001, in: .ifd0).flatMap(tiff.uint) ?? UInt64(v.count / 16))
        let n = min(v.count / 16, declared, 1024)
        var out: [MPFImage] = []
        for i in 0..<n {
            let be = tiff.bigEndian
            guard let attr = BinaryReader.uint(v, at: i * 16, size: 4, bigEndian: be),
                let len = BinaryReader.uint(v, at: i * 16 + 4, size: 4, bigEndian: be),
                let off = BinaryReader.uint(v, at: i * 16 + 8, size: 4, bigEndian: be)
            else { break }
            let start = off == 0 ? 0 : tiffStart + off
            out.append(MPFImage(range: ByteRange(offset: start, length: len), typeCode: UInt32(attr & 0x00FF_FFFF)))
        }
        return out
    }
}
