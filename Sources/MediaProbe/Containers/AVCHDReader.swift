/// AVCHD (MPEG-TS) recording time: Sony/Panasonic write an `MDPM` block in an H.264 SEI
/// user-data-unregistered message (UUID 17ee8c60-f84d-11d9-8cd6-0800200c9a66) of the first frames. Tag 0x18
/// holds the time zone, century, year and month; tag 0x19 day, hour, minute and second, all BCD. Tag 0xE0
/// starts with the maker's code; tags 0xE4–0xEB hold the model name, 4 characters each.
enum AVCHDReader {
    struct MDPM: Equatable {
        var date: FileDate?
        var make: String?
        var model: String?
    }

    /// Maker codes of MDPM tag 0xE0 (as exiftool's H264 tables name them).
    static let makers: [UInt16: String] = [0x0103: "Panasonic", 0x0108: "Sony", 0x1011: "Canon", 0x1104: "JVC"]

    static let uuid: [UInt8] = [0x17, 0xEE, 0x8C, 0x60, 0xF8, 0x4D, 0x11, 0xD9, 0x8C, 0xD6, 0x08, 0x00, 0x20, 0x0C, 0x9A, 0x66]
    /// How far into the stream to look.
    static let scanLimit = 4 << 20

    /// The first MDPM block's date, make and model.
    static func read(_ source: any ByteSource) -> MDPM? {
        var offset: UInt64 = 0
        let chunk = 64 << 10  // the SEI rides with the first frame: one chunk almost always
        while offset < UInt64(scanLimit) && offset < source.size {
            // Chunks overlap by the most an MDPM block is read for (UUID + 1,600 bytes).
            guard let b = try? source.read(at: offset, count: chunk + 16 + 1600), !b.isEmpty else { return nil }
            if let i = b.firstIndex(of: uuid) {
                let end = min(b.count, i + 16 + 1600)
                return mdpm(Array(b[(i + 16)..<end]))
            }
            offset += UInt64(chunk)
        }
        return nil
    }

    /// Parses the bytes after the UUID: `MDPM`, a count, then 5-byte records (tag + 4 value bytes).
    static func mdpm(_ raw: [UInt8]) -> MDPM? {
        let b = BitReader.rbsp(raw)  // H.264 emulation prevention undone (00 00 03 → 00 00)
        guard b.matches("MDPM"), b.count > 5 else { return nil }
        let count = Int(b[4])
        var records: [UInt8: [UInt8]] = [:]
        for k in 0..<count {
            let p = 5 + 5 * k
            guard p + 5 <= b.count else { break }
            if records[b[p]] == nil { records[b[p]] = Array(b[(p + 1)..<(p + 5)]) }
        }
        var m = MDPM()
        if let mk = records[0xE0], let code = BinaryReader.uint(mk, at: 0, size: 2, bigEndian: true) {
            m.make = makers[UInt16(code)]
        }
        let name = (0xE4...0xEB).compactMap { records[UInt8($0)] }.joined()
        let text = String(decoding: name.prefix { $0 != 0 }, as: UTF8.self).trimmingWhitespace()
        if !text.isEmpty, text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) { m.model = text }
        m.date = date(records)
        return m
    }

    static func date(_ records: [UInt8: [UInt8]]) -> FileDate? {
        guard let ym = records[0x18], let dt = records[0x19] else { return nil }
        func bcd(_ v: UInt8) -> Int? {
            let hi = Int(v >> 4), lo = Int(v & 0x0F)
            return hi < 10 && lo < 10 ? hi * 10 + lo : nil
        }
        guard let c = bcd(ym[1]), let y = bcd(ym[2]), let mo = bcd(ym[3]), let d = bcd(dt[0]), let h = bcd(dt[1]),
            let mi = bcd(dt[2]), let s = bcd(dt[3])
        else { return nil }
        let two = FileDate.twoDigits
        let local = String(c * 100 + y) + "-" + two(mo) + "-" + two(d) + "T" + two(h) + ":" + two(mi) + ":" + two(s)
        guard ExifDate.isPlausible(local) else { return nil }
        // Time zone byte: bit 5 sign, bits 4–1 hours, bit 0 half hour (bit 6 is daylight saving).
        let tz = Int(ym[0])
        var offset: Int? = nil
        if tz != 0xFF {
            let minutes = ((tz >> 1) & 0x0F) * 60 + (tz & 1) * 30
            offset = (tz & 0x20) != 0 ? -minutes * 60 : minutes * 60
        }
        return FileDate(local: local, offsetSeconds: offset)
    }
}
