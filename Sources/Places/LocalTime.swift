import Foundation
import PhotoModel

/// IANA zone rules from the system's tzdata (Foundation's `TimeZone`), DST and historical changes included.
public enum ZoneRules {
    /// The zone's offset (seconds east of UTC) at a UTC instant; nil for an unknown zone identifier.
    public static func offset(zone: String, utc seconds: Int) -> Int? {
        TimeZone(identifier: zone).map { $0.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))) }
    }

    /// The zone's offset for a wall-clock time there (`local` read as seconds since 1970 as if UTC).
    ///
    /// A wall time skipped by a spring-forward change takes the offset before the change; one repeated by a
    /// fall-back change takes the first (daylight) one, as cameras do not say which.
    public static func offset(zone: String, local seconds: Int) -> Int? {
        guard let tz = TimeZone(identifier: zone) else { return nil }
        func at(_ t: Int) -> Int { tz.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(t))) }
        // Offsets that map some instant to this wall time; try the offsets in force 1 day around it.
        let candidates = [at(seconds - 86400), at(seconds + 86400), at(seconds)]
        let valid = Set(candidates).filter { at(seconds - $0) == $0 }
        if let first = valid.max() { return first }
        return at(seconds - 86400)
    }
}
