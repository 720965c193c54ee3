/// AVCHD (MPEG-TS) recording time: Sony/Panasonic write an `MDPM` block in an H.264 SEI
/// user-data-unregistered message (UUID 17ee8c60-f84d-11d9-8cd6-0800200c9a66) of the first frames. Tag 0x18
/// holds the time zone, century, year and month; tag 0x19 day, hour, minute and second, all BCD.
enum AVCHDReader {
    static let uuid: [UInt8] = [0x17, 0xEE, 0x8C, 0x60, 0xF8, 0x4D, 0x11, 0xD9, 0x8C, 0xD6, 0x08, 0x00, 0x20, 0x0C, 0x9A, 0x66]
    /// How far into the stream to look.
    static let scanLimit = 4 << 20

    static func recordingDate(_ source: any ByteSource) -> FileDate? {
        var offset: UInt64 = 0
        let chunk = 1 << 20
        while offset < UInt64(scanLimit) && offset < source.size {
            guard let b = try? source.read(at: offset, count: chunk + 512), !b.isEmpty else { return nil }
            if let i = b.firstIndex(of: uuid) {
                let end = min(b.count, i + 16 + 400)
                return parse(Array(b[(i + 16)..<end]))
            }
            offset += UInt64(chunk)
        }
        return nil
    }

    /// Parses the bytes after the UUID: `MDPM`, a count, then 5-byte records (tag + 4 value bytes).
    static func parse(_ raw: [UInt8]) -> FileDate? {
        // Undo H.264 emulation prevention (00 00 03 → 00 00).
        var b: [UInt8] = []
        var zeros = 0
        for x in raw {
            if zeros >= 2 && x == 3 {
                zeros = 0
                continue
            }
            zeros = x == 0 ? zeros + 1 : 0
            b.append(x)
        }
        guard b.matches("MDPM"), b.count > 5 else { return nil }
        let count = Int(b[4])
        var ym: [UInt8]?, dt: [UInt8]?
        for k in 0..<count {
            let p = 5 + 5 * k
            guard p + 5 <= b.count else { break }
            if b[p] == 0x18 { ym = Array(b[(p + 1)..<(p + 5)]) }
            if b[p] == 0x19 { dt = Array(b[(p + 1)..<(p + 5)]) }
        }
        guard let ym, let dt else { return nil }
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
