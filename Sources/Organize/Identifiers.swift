import PhotoModel

/// Deterministic, PhotoKit-shaped identifiers: a name-based UUID (RFC 9562 version 5: SHA-1 of a
/// Shoebox namespace plus the seed text) with PhotoKit's suffixes. No randomness, no Foundation:
/// the same seed gives the same identifier on every machine and every run.
public enum StableIdentifier {
    /// The namespace of every Shoebox name-based UUID: RFC 9562's DNS namespace
    /// (6BA7B810-9DAD-11D1-80B4-00C04FD430C8), so the output can be checked against any UUIDv5 tool.
    /// It must never change: identifiers in catalogs depend on it.
    public static let namespace: [UInt8] = [
        0x6B, 0xA7, 0xB8, 0x10, 0x9D, 0xAD, 0x11, 0xD1, 0x80, 0xB4, 0x00, 0xC0, 0x4F, 0xD4, 0x30, 0xC8,
    ]

    /// `XXXXXXXX-XXXX-5XXX-YXXX-XXXXXXXXXXXX`, uppercase like PhotoKit's identifiers.
    public static func uuid(_ seed: String) -> String {
        var digest = SHA1.hash(namespace + Array(seed.utf8))
        digest[6] = (digest[6] & 0x0F) | 0x50  // version 5
        digest[8] = (digest[8] & 0x3F) | 0x80  // RFC variant
        let hex = Array("0123456789ABCDEF")
        var out = ""
        for i in 0..<16 {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append("-") }
            out.append(hex[Int(digest[i] >> 4)])
            out.append(hex[Int(digest[i] & 0x0F)])
        }
        return out
    }

    /// `UUID/L0/040`: an asset collection (album, smart album, moment).
    public static func collection(_ seed: String) -> String { uuid(seed) + "/L0/040" }

    /// `UUID/L0/010`: a collection list (folder, moment cluster, moment year).
    public static func collectionList(_ seed: String) -> String { uuid(seed) + "/L0/010" }
}

/// SHA-1 (FIPS 180-4), enough for name-based UUIDs. Not for security.
enum SHA1 {
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var m = message
        let bitLength = UInt64(message.count) * 8
        m.append(0x80)
        while m.count % 64 != 56 { m.append(0) }
        for i in (0..<8).reversed() { m.append(UInt8(truncatingIfNeeded: bitLength >> (UInt64(i) * 8))) }
        var w = [UInt32](repeating: 0, count: 80)
        for chunk in stride(from: 0, to: m.count, by: 64) {
            for i in 0..<16 {
                let b = chunk + i * 4
                w[i] = UInt32(m[b]) << 24 | UInt32(m[b + 1]) << 16 | UInt32(m[b + 2]) << 8 | UInt32(m[b + 3])
            }
            for i in 16..<80 {
                let x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]
                w[i] = (x << 1) | (x >> 31)
            }
            var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4]
            for i in 0..<80 {
                let f: UInt32, k: UInt32
                switch i {
                case 0..<20: f = (b & c) | (~b & d); k = 0x5A82_7999
                case 20..<40: f = b ^ c ^ d; k = 0x6ED9_EBA1
                case 40..<60: f = (b & c) | (b & d) | (c & d); k = 0x8F1B_BCDC
                default: f = b ^ c ^ d; k = 0xCA62_C1D6
                }
                let t = ((a << 5) | (a >> 27)) &+ f &+ e &+ k &+ w[i]
                e = d; d = c; c = (b << 30) | (b >> 2); b = a; a = t
            }
            h[0] = h[0] &+ a; h[1] = h[1] &+ b; h[2] = h[2] &+ c; h[3] = h[3] &+ d; h[4] = h[4] &+ e
        }
        var out: [UInt8] = []
        for v in h { for s in [24, 16, 8, 0] { out.append(UInt8(truncatingIfNeeded: v >> UInt32(s))) } }
        return out
    }
}

/// Calendar helpers on plain strings, so the module needs no Foundation.
enum CivilDate {
    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]

    /// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// `YYYY-MM-DD` → (year, month, day).
    static func parse(_ s: String) -> (Int, Int, Int)? {
        let parts = s.prefix(10).split(separator: "-")
        guard parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
              (1...12).contains(m), (1...31).contains(d) else { return nil }
        return (y, m, d)
    }

    /// `2026-11-22` → `22 November 2026`.
    static func title(_ s: String) -> String {
        guard let (y, m, d) = parse(s) else { return s }
        return "\(d) \(monthNames[m - 1]) \(y)"
    }

    /// A range title: `9 October 2016`, `9–12 October 2016`, `30 September – 2 October 2016`, or across years.
    static func rangeTitle(_ a: String, _ b: String) -> String {
        guard let (y1, m1, d1) = parse(a), let (y2, m2, d2) = parse(b) else { return a == b ? a : a + " – " + b }
        if (y1, m1, d1) == (y2, m2, d2) { return title(a) }
        if y1 == y2 && m1 == m2 { return "\(d1)–\(d2) \(monthNames[m1 - 1]) \(y1)" }
        if y1 == y2 { return "\(d1) \(monthNames[m1 - 1]) – \(d2) \(monthNames[m2 - 1]) \(y1)" }
        return title(a) + " – " + title(b)
    }

    /// Seconds for an `AssetDate`: UTC when it has an offset, else its wall clock read as UTC (consistent
    /// within one camera, which is all the burst time rule needs).
    static func seconds(_ d: AssetDateLike) -> Double? {
        let s = Array(d.local.utf8)
        guard s.count >= 19 else { return nil }
        func num(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r { guard s[i] >= 48 && s[i] <= 57 else { return nil }; v = v * 10 + Int(s[i] - 48) }
            return v
        }
        guard let y = num(0..<4), let mo = num(5..<7), let da = num(8..<10), let h = num(11..<13),
              let mi = num(14..<16), let se = num(17..<19) else { return nil }
        var frac = 0.0
        if s.count > 20, s[19] == UInt8(ascii: ".") {
            var scale = 0.1
            for i in 20..<s.count {
                guard s[i] >= 48 && s[i] <= 57 else { break }
                frac += Double(s[i] - 48) * scale
                scale /= 10
            }
        }
        let day = days(year: y, month: mo, day: da)
        return Double(day * 86400 + h * 3600 + mi * 60 + se) + frac - Double(d.offsetSeconds ?? 0)
    }
}

/// What `CivilDate.seconds` needs from a date (PhotoModel's `AssetDate` conforms).
protocol AssetDateLike {
    var local: String { get }
    var offsetSeconds: Int? { get }
}
extension AssetDate: AssetDateLike {}
