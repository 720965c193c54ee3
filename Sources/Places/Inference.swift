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
        // Lookups are made at the position rounded to 10⁻⁴° (≈ 11 m), once per rounded position: photos
        // cluster, and the answer for one asset never depends on which others were looked up first.
        var placeAt: [Cell: PlaceMatch?] = [:]
        var zoneAtCell: [Cell: Zone] = [:]
        for s in subjects {
            let coordinate = s.latitude.flatMap { la in s.longitude.map { Cell(la, $0) } }
            if let c = coordinate {
                let found = placeAt[c] ?? gazetteer.place(at: c.latitude, c.longitude)
                placeAt[c] = found
                if let m = found {
                    out.places[s.id] = PlaceJudgement(
                        place: m.place, distanceKm: m.distanceKm,
                        reason:
                            "GPS \(Cell.text(c.lat)), \(Cell.text(c.lon)): \(fmt(m.distanceKm, 1)) km from \(m.place.name) (GeoNames \(m.place.geonameID))"
                    )
                }
            }
            guard let d = s.date, let wall = WallClock.seconds(d.local) else { continue }
            if let off = d.offsetSeconds, !s.dateIsUTC {
                anchors[s.camera, default: []].append(
                    Anchor(name: s.name, instant: wall - off, zone: nil, offset: off, how: "stated"))
                continue
            }
            guard let c = coordinate else {
                waiting.append(s)
                continue
            }
            let z = zoneAtCell[c] ?? zoneAt(c.latitude, c.longitude, gazetteer)
            zoneAtCell[c] = z
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
        // Per camera, anchors sorted by wall clock and by instant: the nearest is found by binary search.
        var byWall: [String: [(key: Int, a: Anchor)]] = [:]
        var byInstant: [String: [(key: Int, a: Anchor)]] = [:]
        for (camera, list) in anchors {
            byWall[camera] = list.map { ($0.instant + $0.offset, $0) }.sorted { ($0.key, $0.a.name) < ($1.key, $1.a.name) }
            byInstant[camera] = list.map { ($0.instant, $0) }.sorted { ($0.key, $0.a.name) < ($1.key, $1.a.name) }
        }
        for s in waiting {
            // A naive wall clock is compared with the anchors' wall clocks (same camera, same clock); a UTC
            // instant with their instants. Equally near: the earlier anchor.
            guard let d = s.date, let wall = WallClock.seconds(d.local),
                let list = (s.dateIsUTC ? byInstant : byWall)[s.camera], !list.isEmpty
            else { continue }
            var lo = 0, hi = list.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if list[mid].key < wall { lo = mid + 1 } else { hi = mid }
            }
            // The anchors just before and just after (each with every anchor at the same time): the nearest;
            // equally near, the earlier; then one with a zone (from GPS) over a bare offset; then by name.
            // (Positions in `list`, not copies: many anchors can share a second.)
            var candidates: [(i: Int, gap: Int)] = []
            for start in [lo - 1, lo] where list.indices.contains(start) {
                var i = start
                while list.indices.contains(i), list[i].key == list[start].key {
                    candidates.append((i, list[i].key - wall))
                    i += start < lo ? -1 : 1
                }
            }
            let best = candidates.filter { abs($0.gap) <= neighbourWindowSeconds }.min { x, y in
                let a = list[x.i].a, b = list[y.i].a
                return (abs(x.gap), x.gap, a.zone == nil ? 1 : 0, a.name) < (abs(y.gap), y.gap, b.zone == nil ? 1 : 0, b.name)
            }
            guard let (index, gap) = best else { continue }
            let a = list[index].a
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

    /// A position rounded to 10⁻⁴°.
    struct Cell: Hashable {
        var lat: Int
        var lon: Int
        init(_ latitude: Double, _ longitude: Double) {
            lat = Int((latitude * 10_000).rounded())
            lon = Int((longitude * 10_000).rounded())
        }
        var latitude: Double { Double(lat) / 10_000 }
        var longitude: Double { Double(lon) / 10_000 }

        /// A coordinate in 10⁻⁴° as `String(format: "%.4f")` prints it in degrees (the double nearest
        /// `units / 10⁴` is within 10⁻¹² of it, far from a rounding boundary), without Foundation's formatter.
        static func text(_ units: Int) -> String { decimalText(UInt64(units.magnitude), digits: 4, negative: units < 0) }
    }

    typealias Zone = (zone: String?, offset: Int, reason: String, confidence: ZoneConfidence)

    struct Anchor {
        var name: String
        var instant: Int
        var zone: String?
        var offset: Int
        var how: String
    }

    /// The zone at a point: the nearest gazetteer place's, or the nautical zone (15° bands) at sea.
    static func zoneAt(_ la: Double, _ lo: Double, _ g: Gazetteer) -> Zone {
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

    /// `x` with `digits` decimals as `String(format: "%.\(digits)f", x)` prints it — the multiple of 10⁻ᵈ
    /// nearest the double's exact value, an exact tie to the even one — without Foundation's formatter, which
    /// took ~2.5 µs a call (5 % of organize's time at 3,000 files: one call per asset with GPS). The
    /// comparisons are exact: `fma` gives the sign of `|x| · 10ᵈ − c` without rounding it away.
    static func fmt(_ x: Double, _ digits: Int) -> String {
        let a = x.magnitude
        guard digits >= 0, digits < powersOfTen.count, x.isFinite, a * powersOfTen[digits] < 0x1p52 else {
            return String(format: "%.\(digits)f", x)
        }
        let s = powersOfTen[digits]
        var c = (a * s).rounded(.down)  // ⌊a · s⌋, or one off where the product rounded across an integer
        if c.addingProduct(-a, s) > 0 { c -= 1 }  // c > a·s exactly
        if (c + 1).addingProduct(-a, s) <= 0 { c += 1 }  // c + 1 ≤ a·s exactly
        let half = (c + 0.5).addingProduct(-a, s)  // sign of (c + ½) − a·s, exact
        let n = UInt64(c) + (half < 0 || (half == 0 && UInt64(c) % 2 == 1) ? 1 : 0)
        return decimalText(n, digits: digits, negative: x.sign == .minus)
    }

    static let powersOfTen: [Double] = [1, 10, 100, 1000, 10000, 100_000, 1_000_000]

    /// `n` units of 10⁻ᵈ written with `digits` decimals (`digits` < `powersOfTen.count`).
    static func decimalText(_ n: UInt64, digits: Int, negative: Bool) -> String {
        let unit = UInt64(powersOfTen[digits])
        let whole = (negative ? "-" : "") + String(n / unit)
        guard digits > 0 else { return whole }
        let fraction = String(n % unit)
        return whole + "." + String(repeating: "0", count: digits - fraction.utf8.count) + fraction
    }

    static func fmtGap(_ s: Int) -> String {
        s < 60 ? "\(s) s" : s < 3600 ? "\(s / 60) min" : "\(s / 3600) h \(s % 3600 / 60) min"
    }
}
