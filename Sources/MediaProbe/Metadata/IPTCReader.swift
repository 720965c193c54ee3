/// Photoshop image resource blocks (`8BIM`): JPEG APP13 "Photoshop 3.0", the PSD resource section, TIFF
/// tag 34377. Bounded: each block is checked against the buffer, at most `maxBlocks` are listed.
public enum PhotoshopResources {
    public struct Block: Sendable, Equatable {
        public var id: UInt16
        /// Where the block's data sits in the buffer given.
        public var range: Range<Int>
    }

    static let maxBlocks = 4096

    /// The resource blocks of `b` from `start`; reading stops at the first malformed block.
    public static func blocks(_ b: [UInt8], from start: Int = 0) -> [Block] {
        var out: [Block] = []
        var i = start
        while i + 12 <= b.count, out.count < maxBlocks, b.matches("8BIM", at: i) {
            guard let id = BinaryReader.uint(b, at: i + 4, size: 2, bigEndian: true) else { break }
            // A Pascal name padded to an even length (length byte included).
            let nameLength = Int(b[i + 6])
            let sizeAt = i + 6 + ((nameLength + 2) & ~1)
            guard let size = BinaryReader.uint(b, at: sizeAt, size: 4, bigEndian: true), sizeAt + 4 <= b.count,
                size <= UInt64(b.count - sizeAt - 4)
            else { break }
            let data = sizeAt + 4
            out.append(Block(id: UInt16(id), range: data..<data + Int(size)))
            i = data + ((Int(size) + 1) & ~1)
        }
        return out
    }
}

/// What an IPTC-IIM block says about when the picture was made.
public struct IPTCFacts: Sendable, Equatable {
    /// 2:55 DateCreated (`CCYYMMDD`).
    public var dateCreated: String?
    /// 2:60 TimeCreated (`HHMMSS±HHMM`).
    public var timeCreated: String?
    /// 2:62 DigitalCreationDate and 2:63 DigitalCreationTime.
    public var digitalDate: String?
    public var digitalTime: String?

    /// A date from a date and a time dataset; nil when the date is not a whole calendar date.
    public static func date(_ date: String?, _ time: String?) -> FileDate? {
        guard let d = date, d.utf8.count == 8, d.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        let c = Array(d)
        var local = String(c[0..<4]) + "-" + String(c[4..<6]) + "-" + String(c[6..<8])
        var offset: Int?
        if let t = time?.trimmingWhitespace(), t.utf8.count >= 6, t.utf8.prefix(6).allSatisfy({ (48...57).contains($0) }) {
            let tc = Array(t)
            local += "T" + String(tc[0..<2]) + ":" + String(tc[2..<4]) + ":" + String(tc[4..<6])
            if tc.count >= 11 { offset = ExifDate.parseOffset(String(tc[6..<11])) }
        } else {
            local += "T00:00:00"
        }
        guard ExifDate.isPlausible(local) else { return nil }
        return FileDate(local: local, offsetSeconds: offset)
    }
}

/// IPTC-IIM datasets (`0x1C record dataset length value`), bounded by the buffer; only record 2's dates
/// are kept.
public enum IPTCReader {
    public static func read(_ b: [UInt8]) -> IPTCFacts {
        var f = IPTCFacts()
        var i = 0
        var n = 0
        while i + 5 <= b.count, b[i] == 0x1C, n < 65536 {
            n += 1
            let record = b[i + 1], dataset = b[i + 2]
            guard let len = BinaryReader.uint(b, at: i + 3, size: 2, bigEndian: true), len & 0x8000 == 0 else { break }
            let start = i + 5, end = start + Int(len)
            guard end <= b.count else { break }
            if record == 2 {
                let text = String(decoding: b[start..<end], as: UTF8.self)
                switch dataset {
                case 55: f.dateCreated = f.dateCreated ?? text
                case 60: f.timeCreated = f.timeCreated ?? text
                case 62: f.digitalDate = f.digitalDate ?? text
                case 63: f.digitalTime = f.digitalTime ?? text
                default: break
                }
            }
            i = end
        }
        return f
    }
}

extension ProbeContext {
    /// IPTC DateCreated + TimeCreated (else DigitalCreationDate + Time) as the IPTC creation date.
    mutating func applyIPTC(_ f: IPTCFacts, source: String) {
        guard report.dates.iptcCreation == nil else { return }
        if let d = IPTCFacts.date(f.dateCreated, f.timeCreated) {
            report.dates.iptcCreation = Sourced(d, "IPTC 2:55 DateCreated + 2:60 TimeCreated (\(source))")
        } else if let d = IPTCFacts.date(f.digitalDate, f.digitalTime) {
            report.dates.iptcCreation = Sourced(d, "IPTC 2:62 DigitalCreationDate + 2:63 DigitalCreationTime (\(source))")
        }
    }

    /// A Photoshop resource section: IPTC (0x0404), Exif (0x0422), XMP (0x0424).
    mutating func applyPhotoshopResources(_ b: [UInt8], source: String) {
        for block in PhotoshopResources.blocks(b) {
            let data = Array(b[block.range])
            switch block.id {
            case 0x0404: applyIPTC(IPTCReader.read(data), source: "\(source) 8BIM 0x0404")
            case 0x0422:
                attempt(.exif) { (c: inout ProbeContext) throws(ProbeError) in
                    try c.applyExif(data, container: "\(source) 8BIM 0x0422")
                }
            case 0x0424: applyXMP(data, source: "\(source) 8BIM 0x0424")
            default: break
            }
        }
    }
}
