/// XMP dates by the XMP grammar (ISO 8601 subset, XMP part 1 §8.2.1.1): `YYYY`, `YYYY-MM`, `YYYY-MM-DD`,
/// then optionally `Thh:mm`, `:ss`, a fraction `.s…`, and a zone `Z` / `±hh:mm` (`±hhmm` is accepted too).
///
/// A value that does not match the grammar whole is rejected (nil), never half-read: `2009-09-09T17:00:00,
/// 2009-09-09` is not a date with an offset of −09:09. Reduced precision is kept as midnight / the first
/// day and named in `precision`. `YYYY:MM:DD` (EXIF-style colons) is accepted as the date part.
public enum XMPDate {
    public struct Parsed: Equatable, Sendable {
        public var date: FileDate
        /// Empty for a full date-time, else " (date only)", " (year and month only)", " (year only)".
        public var precision: String
    }

    public static func parse(_ s: String) -> Parsed? {
        let c = Array(s.trimmingWhitespace().utf8)
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= c.count else { return nil }
            var v = 0
            for k in i..<i + n {
                guard (48...57).contains(c[k]) else { return nil }
                v = v * 10 + Int(c[k] - 48)
            }
            i += n
            return v
        }
        func eat(_ chars: String) -> Bool {
            guard i < c.count, chars.utf8.contains(c[i]) else { return false }
            i += 1
            return true
        }
        let two = FileDate.twoDigits
        guard let y = digits(4) else { return nil }
        var month = 1, day = 1, h = 0, m = 0, sec = 0
        var frac = ""
        var precision = " (year only)"
        var offset: Int?
        if eat("-:") {
            guard let mo = digits(2) else { return nil }
            month = mo
            precision = " (year and month only)"
            if eat("-:") {
                guard let d = digits(2) else { return nil }
                day = d
                precision = " (date only)"
                if eat("T") {
                    guard let hh = digits(2), eat(":"), let mm = digits(2) else { return nil }
                    (h, m) = (hh, mm)
                    precision = ""
                    if eat(":") {
                        guard let ss = digits(2) else { return nil }
                        sec = ss
                        if eat(".") {
                            let start = i
                            while i < c.count, (48...57).contains(c[i]) { i += 1 }
                            guard i > start else { return nil }
                            frac = "." + String(decoding: c[start..<i], as: UTF8.self)
                        }
                    }
                    if eat("Z") {
                        offset = 0
                    } else if i < c.count, c[i] == UInt8(ascii: "+") || c[i] == UInt8(ascii: "-") {
                        let negative = c[i] == UInt8(ascii: "-")
                        i += 1
                        guard let oh = digits(2) else { return nil }
                        _ = eat(":")
                        guard let om = digits(2), oh <= 14, om < 60 else { return nil }
                        offset = (negative ? -1 : 1) * (oh * 3600 + om * 60)
                    }
                }
            }
        }
        guard i == c.count else { return nil }
        let local = String(y).leftPadded(4) + "-" + two(month) + "-" + two(day) + "T" + two(h) + ":" + two(m) + ":" + two(sec)
        guard ExifDate.isPlausible(local) else { return nil }
        return Parsed(date: FileDate(local: local + frac, offsetSeconds: offset), precision: precision)
    }
}

/// XMP GPS coordinates (XMP part 2, exif:GPSLatitude): `DDD,MM,SSk` or `DDD,MM.mmk` with k = N/S/E/W.
public enum XMPCoordinate {
    public static func parse(_ s: String) -> Double? {
        let t = s.trimmingWhitespace()
        guard let ref = t.last, "NSEW".contains(ref) else { return nil }
        let parts = t.dropLast().split(separator: ",", omittingEmptySubsequences: false).map { Double($0) }
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        let v = parts.compactMap { $0 }
        let deg = v[0] + v[1] / 60 + (v.count == 3 ? v[2] / 3600 : 0)
        guard deg.isFinite, v[1] < 60, v.count < 3 || v[2] < 60 else { return nil }
        return ref == "S" || ref == "W" ? -deg : deg
    }
}

extension ProbeContext {
    /// A location from XMP exif:GPSLatitude/GPSLongitude when no EXIF, QuickTime or other source gave one
    /// (0,0 is no fix and is dropped, as everywhere).
    mutating func fillLocationFromXMP() {
        guard report.location == nil, let x = report.xmp, let la = x["exif:GPSLatitude"].flatMap(XMPCoordinate.parse),
            let lo = x["exif:GPSLongitude"].flatMap(XMPCoordinate.parse), abs(la) <= 90, abs(lo) <= 180, la != 0 || lo != 0
        else { return }
        report.location = Sourced(GeoLocation(latitude: la, longitude: lo), "XMP exif:GPSLatitude/exif:GPSLongitude")
    }
}
