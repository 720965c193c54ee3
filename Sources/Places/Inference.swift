import Foundation
import Organize
import PhotoModel

/// One asset as place and zone inference sees it: values from the catalog, nothing read from a source file.
public struct PlaceSubject: Sendable, Equatable {
    public var id: String
    /// The file name, for reasons (`borrowed from IMG_0002.JPG`).
    public var name: String
    public var date: AssetDate?
    /// The date is a UTC instant (Takeout's `photoTakenTime`), not the local wall clock.
    public var dateIsUTC: Bool
    public var latitude: Double?
    public var longitude: Double?
    /// What makes two assets "the same camera": make + model when known, else the folder.
    public var camera: String

    public init(
        id: String, name: String, date: AssetDate?, dateIsUTC: Bool = false, latitude: Double? = nil, longitude: Double? = nil,
        camera: String
    ) {
        self.id = id
        self.name = name
        self.date = date
        self.dateIsUTC = dateIsUTC
        self.latitude = latitude
        self.longitude = longitude
        self.camera = camera
    }
}

/// The place an asset was taken at, from its GPS position.
public struct PlaceJudgement: Sendable, Equatable {
    public var place: GazetteerPlace
    public var distanceKm: Double
    public var reason: String
}

public enum ZoneConfidence: String, Sendable, Equatable, Codable {
    /// From the zone at the asset's own GPS position.
    case medium
    /// Borrowed from a neighbour in time from the same camera, or a nautical zone at sea.
    case low
}

/// The offset of a date that stated none, and the local wall time it belongs to.
public struct ZoneJudgement: Sendable, Equatable {
    /// The IANA zone, nil when only an offset was borrowed or at sea.
    public var zone: String?
    /// The wall-clock time where the asset was taken, with its offset: the file's own wall time for a naive
    /// date (unchanged), the UTC instant turned local for Takeout's `photoTakenTime`.
    public var localDate: AssetDate
    public var reason: String
    public var confidence: ZoneConfidence

    public init(zone: String?, localDate: AssetDate, reason: String, confidence: ZoneConfidence) {
        self.zone = zone
        self.localDate = localDate
        self.reason = reason
        self.confidence = confidence
    }
}

/// Place names and time zones for a library, from values only (the gazetteer and the system tzdata).
public enum PlaceInference {
    /// How far in time a neighbour from the same camera may be to lend its zone.
    public static let neighbourWindowSeconds = 3 * 3600

    public struct Result: Sendable, Equatable {
        public var places: [String: PlaceJudgement] = [:]
        public var zones: [String: ZoneJudgement] = [:]
    }

    public static func run(_ subjects: [PlaceSubject], gazetteer: Gazetteer) -> Result {
        var out = Result()
        var anchors: [String: [Anchor]] = [:]  // camera -> anchors
        var waiting: [PlaceSubject] = []
        for s in subjects {
            let coordinate = s.latitude.flatMap { la in s.longitude.map { (la, $0) } }
            if let (la, lo) = coordinate, let m = gazetteer.place(at: la, lo) {
                out.places[s.id] = PlaceJudgement(
                    place: m.place, distanceKm: m.distanceKm,
                    reason:
                        "GPS \(fmt(la, 5)), \(fmt(lo, 5)): \(fmt(m.distanceKm, 1)) km from \(m.place.name) (GeoNames \(m.place.geonameID))"
                )
            }
            guard let d = s.date, let wall = WallClock.seconds(d.local) else { continue }
            if let off = d.offsetSeconds, !s.dateIsUTC {
                anchors[s.camera, default: []].append(
                    Anchor(name: s.name, instant: wall - off, zone: nil, offset: off, how: "stated"))
                continue
            }
            guard let (la, lo) = coordinate else {
                waiting.append(s)
                continue
            }
            let z = zoneAt(la, lo, gazetteer)
            let instant = s.dateIsUTC ? wall : nil
            guard
                let j = judge(
                    d, wall: wall, instant: instant, zone: z.zone, fixedOffset: z.offset, reason: z.reason,
                    confidence: z.confidence)
            else { continue }
            out.zones[s.id] = j
            anchors[s.camera, default: []].append(
                Anchor(
                    name: s.name, instant: WallClock.seconds(j.localDate.local)! - (j.localDate.offsetSeconds ?? 0), zone: z.zone,
                    offset: j.localDate.offsetSeconds ?? 0, how: z.zone == nil ? "at sea" : "inferred from GPS"))
        }
        for s in waiting {
            guard let d = s.date, let wall = WallClock.seconds(d.local), let list = anchors[s.camera] else { continue }
            // A naive wall clock is compared with each anchor's wall clock (same camera, same clock); a UTC
            // instant with the anchor's instant.
            var best: (a: Anchor, gap: Int)?
            for a in list {
                let gap = s.dateIsUTC ? a.instant - wall : (a.instant + a.offset) - wall
                if abs(gap) <= neighbourWindowSeconds, best == nil || abs(gap) < abs(best!.gap) { best = (a, gap) }
            }
            guard let (a, gap) = best else { continue }
            let when = gap == 0 ? "at the same time" : "\(fmtGap(abs(gap))) \(gap > 0 ? "later" : "earlier")"
            let what = a.zone.map { "\($0), \(a.how)" } ?? "offset \(AssetDate.offsetSuffix(a.offset)) \(a.how)"
            let reason = "borrowed from \(a.name), same camera, \(when) (\(what))"
            if let j = judge(
                d, wall: wall, instant: s.dateIsUTC ? wall : nil, zone: a.zone, fixedOffset: a.offset, reason: reason,
                confidence: .low)
            {
                out.zones[s.id] = j
            }
        }
        return out
    }

    struct Anchor {
        var name: String
        var instant: Int
        var zone: String?
        var offset: Int
        var how: String
    }

    /// The zone at a point: the nearest gazetteer place's, or the nautical zone (15° bands) at sea.
    static func zoneAt(_ la: Double, _ lo: Double, _ g: Gazetteer) -> (
        zone: String?, offset: Int, reason: String, confidence: ZoneConfidence
    ) {
        if let m = g.nearest(at: la, lo) {
            return (m.place.timeZone, 0, "inferred from GPS (\(m.place.timeZone), \(m.place.name))", .medium)
        }
        let off = Int((lo / 15).rounded()) * 3600
        return (
            nil, off,
            "inferred from GPS (nautical zone UTC\(AssetDate.offsetSuffix(off)): no place within \(Int(Gazetteer.zoneRadiusKm)) km)",
            .low
        )
    }

    /// The judgement for one date: with a zone, its offset at that wall time (or at that instant for a UTC
    /// date, whose wall time becomes the local one); without, the fixed offset.
    static func judge(
        _ d: AssetDate, wall: Int, instant: Int?, zone: String?, fixedOffset: Int, reason: String, confidence: ZoneConfidence
    )
        -> ZoneJudgement?
    {
        let fraction = WallClock.fraction(d.local)
        if let instant {
            guard let off = zone.map({ ZoneRules.offset(zone: $0, utc: instant) }) ?? fixedOffset else { return nil }
            return ZoneJudgement(
                zone: zone, localDate: AssetDate(local: WallClock.text(instant + off, fraction: fraction), offsetSeconds: off),
                reason: reason, confidence: confidence)
        }
        guard let off = zone.map({ ZoneRules.offset(zone: $0, local: wall) }) ?? fixedOffset else { return nil }
        return ZoneJudgement(
            zone: zone, localDate: AssetDate(local: d.local, offsetSeconds: off), reason: reason, confidence: confidence)
    }

    static func fmt(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", x) }

    static func fmtGap(_ s: Int) -> String {
        s < 60 ? "\(s) s" : s < 3600 ? "\(s / 60) min" : "\(s / 3600) h \(s % 3600 / 60) min"
    }
}
