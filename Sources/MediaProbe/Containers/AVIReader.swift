/// What an AVI's RIFF header carries beyond libavformat's view: the `IDIT` capture date (hdrl), the `strd`
/// stream data that Fujifilm, Pentax and other cameras fill with an `AVIF` + TIFF Exif block. (INFO `ICRD` is
/// a day at most and often the editing date; it is not read.) Bounded: at most `maxChunks` chunks per list,
/// payloads ≤ 64 KiB.
enum AVIReader {
    struct Facts {
        /// IDIT text as written (`THU OCT 26 16:46:04 2006` or `2005:08:17 11:42:43`).
        var idit: String?
        /// The TIFF block of a `strd` chunk (after its `AVIF` signature and padding).
        var exifBlock: [UInt8]?
    }

    static let maxChunks = 4096
    static let maxPayload = 64 << 10

    static func read(_ src: any ByteSource) throws(ProbeError) -> Facts {
        var f = Facts()
        try walk(src, from: 12, to: src.size, depth: 0, into: &f)
        return f
    }

    private static func walk(_ src: any ByteSource, from: UInt64, to end: UInt64, depth: Int, into f: inout Facts)
        throws(ProbeError)
    {
        var at = from
        var n = 0
        while at + 8 <= end, n < maxChunks {
            n += 1
            let h = try src.read(at: at, count: 12)
            guard h.count >= 8 else { return }
            let id = BinaryReader.fourCC(h[0..<4])
            let size = BinaryReader.uint(h, at: 4, size: 4, bigEndian: false) ?? 0
            let body = at + 8
            guard size <= end - body else { return }
            if id == "LIST", h.count == 12, depth < 3 {
                let list = BinaryReader.fourCC(h[8..<12])
                // hdrl holds IDIT and the stream lists (strl → strd). movi is skipped.
                if ["hdrl", "strl"].contains(list) {
                    try walk(src, from: body + 4, to: body + size, depth: depth + 1, into: &f)
                }
            } else if size <= UInt64(maxPayload) {
                switch id {
                case "IDIT" where f.idit == nil: f.idit = text(try src.read(at: body, count: Int(size)))
                case "strd" where f.exifBlock == nil:
                    let b = try src.read(at: body, count: Int(size))
                    if b.matches("AVIF"), let t = b.firstIndex(of: Array("II*\0".utf8)) ?? b.firstIndex(of: Array("MM\0*".utf8)) {
                        f.exifBlock = Array(b[t...])
                    }
                default: break
                }
            }
            at = body + size + (size & 1)
        }
    }

    private static func text(_ b: [UInt8]) -> String? {
        let end = b.firstIndex(of: 0) ?? b.count
        let s = String(decoding: b[..<end], as: UTF8.self).trimmingWhitespace()
        return s.isEmpty ? nil : s
    }

    /// IDIT as a local date: `THU OCT 26 16:46:04 2006` (C `asctime`) or EXIF-style `2005:08:17 11:42:43`.
    static func iditDate(_ s: String) -> FileDate? {
        if let d = ExifDate.parse(s.replacingOccurrences("/", ":"), subSeconds: nil, offset: nil) { return d }
        let parts = s.split(separator: " ", omittingEmptySubsequences: true)
        let months = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
        guard parts.count == 5, let m = months.firstIndex(of: parts[1].uppercased()), let day = Int(parts[2]),
            parts[3].count == 8, parts[4].count == 4, let year = Int(parts[4])
        else { return nil }
        let two = FileDate.twoDigits
        let local = String(year) + "-" + two(m + 1) + "-" + two(day) + "T" + parts[3]
        return ExifDate.isPlausible(local) ? FileDate(local: local) : nil
    }
}

extension String {
    fileprivate func replacingOccurrences(_ a: Character, _ b: Character) -> String { String(map { $0 == a ? b : $0 }) }
}

extension ProbeContext {
    /// AVI header facts: IDIT as the capture date, a `strd` Exif block through libexif.
    mutating func readAVIHeader() {
        attempt(.riff) { (c: inout ProbeContext) throws(ProbeError) in
            let f = try AVIReader.read(c.source)
            if let s = f.idit {
                if let d = AVIReader.iditDate(s) {
                    c.report.dates.original = c.report.dates.original ?? Sourced(d, "AVI hdrl/IDIT (local time)")
                } else {
                    c.report.warn(.riff, "AVI IDIT \"\(s.prefix(40))\" is not a date; ignored")
                }
            }
            if let block = f.exifBlock {
                c.attempt(.exif) { (c: inout ProbeContext) throws(ProbeError) in
                    try c.applyExif(block, container: "AVI strd AVIF")
                }
            }
        }
    }
}
