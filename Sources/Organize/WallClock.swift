import PhotoModel

/// Wall-clock texts (`YYYY-MM-DDTHH:MM:SS[.fff]`) as seconds since 1970 read as UTC, and back: the
/// arithmetic of local times whose offset is not (yet) known.
public enum WallClock {
    /// Whole seconds of the text's first 19 characters; nil when they are not a date and time.
    public static func seconds(_ s: String) -> Int? {
        // Contiguous storage whose first bytes are ASCII: decided on the bytes.
        if case .some(.some(let answer)) = s.utf8.withContiguousStorageIfAvailable(asciiSeconds) { return answer }
        guard let (_, m, d) = CivilDate.parse(s), (1...12).contains(m), (1...31).contains(d) else { return nil }
        guard let t = CivilDate.seconds(AssetDate(local: String(s.prefix(19)), offsetSeconds: nil)) else { return nil }
        return Int(t)
    }

    /// `seconds` on the bytes of a text whose first 20 bytes are ASCII (a Character is then a byte, so the
    /// definition below reads the same positions): `.some(nil)` when it is not a date and time; nil when a
    /// byte is not ASCII (the Character-wise definition decides). The places step asks for every asset's.
    static func asciiSeconds(_ b: UnsafeBufferPointer<UInt8>) -> Int?? {
        guard !b.prefix(20).contains(where: { $0 >= 0x80 }) else { return nil }
        guard b.count >= 19, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-") else { return .some(nil) }
        func num(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r {
                guard b[i] >= 48 && b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        guard let y = num(0..<4), let mo = num(5..<7), let da = num(8..<10), let h = num(11..<13), let mi = num(14..<16),
            let se = num(17..<19), (1...12).contains(mo), (1...31).contains(da)
        else { return .some(nil) }
        return .some(CivilDate.days(year: y, month: mo, day: da) * 86400 + h * 3600 + mi * 60 + se)
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
