import PhotoModel

/// Wall-clock texts (`YYYY-MM-DDTHH:MM:SS[.fff]`) as seconds since 1970 read as UTC, and back: the
/// arithmetic of local times whose offset is not (yet) known.
public enum WallClock {
    /// Whole seconds of the text's first 19 characters; nil when they are not a date and time.
    public static func seconds(_ s: String) -> Int? {
        guard let (_, m, d) = CivilDate.parse(s), (1...12).contains(m), (1...31).contains(d) else { return nil }
        guard let t = CivilDate.seconds(AssetDate(local: String(s.prefix(19)), offsetSeconds: nil)) else { return nil }
        return Int(t)
    }

    /// `YYYY-MM-DDTHH:MM:SS` for seconds since 1970 read as UTC, then `fraction` (`.123`) as is.
    public static func text(_ t: Int, fraction: Substring = "") -> String {
        let days = t >= 0 ? t / 86400 : (t - 86399) / 86400
        let secs = t - days * 86400
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        func p(_ v: Int, _ w: Int) -> String { String(repeating: "0", count: max(0, w - String(v).count)) + String(v) }
        return "\(p(y, 4))-\(p(m, 2))-\(p(d, 2))T\(p(secs / 3600, 2)):\(p(secs / 60 % 60, 2)):\(p(secs % 60, 2))" + fraction
    }

    /// The fractional-seconds part of a wall-clock text (`.059`), empty when none.
    public static func fraction(_ s: String) -> Substring {
        let tail = s.dropFirst(19)
        return tail.hasPrefix(".") ? tail.prefix { $0 == "." || $0.isNumber } : ""
    }
}
