#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PhotoModel

/// One asset as the moment segmenter sees it. `ID` names the asset: its local identifier, or (in the
/// organize stage, to hold no string per asset) its catalog row.
public struct MomentItem<ID: Hashable & Sendable>: Sendable, Equatable, Hashable {
    public var id: ID
    /// Capture time, UTC seconds since 1970.
    public var instant: Double
    /// The local calendar day where it was taken, `YYYY-MM-DD`.
    public var localDate: String
    public var latitude: Double?
    public var longitude: Double?
    /// The name of the place it was taken at (reverse geocoded by the caller), for titles.
    public var place: String?

    public init(
        id: ID, instant: Double, localDate: String, latitude: Double? = nil, longitude: Double? = nil, place: String? = nil
    ) {
        self.id = id
        self.instant = instant
        self.localDate = localDate
        self.latitude = latitude
        self.longitude = longitude
        self.place = place
    }

    var coordinate: Coordinate? {
        guard let latitude, let longitude else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }
}

/// A moment from an earlier run: its identifier and members, so that identifiers survive re-ingest.
public struct PreviousMoment<ID: Hashable & Sendable>: Sendable, Equatable {
    public var localIdentifier: String
    public var members: [ID]
    public init(localIdentifier: String, members: [ID]) {
        self.localIdentifier = localIdentifier
        self.members = members
    }
}

public struct Coordinate: Sendable, Equatable, Hashable {
    public var latitude: Double
    public var longitude: Double
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Great-circle distance in kilometres (haversine, mean Earth radius 6371.0088 km).
    public func distanceKm(to o: Coordinate) -> Double {
        let r = Double.pi / 180
        let dLat = (o.latitude - latitude) * r, dLon = (o.longitude - longitude) * r
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(latitude * r) * cos(o.latitude * r) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6371.0088 * asin(min(1, sqrt(a)))
    }

    /// The centre of several points (mean of unit vectors, so it is right across the antimeridian).
    static func mean(_ points: [Coordinate]) -> Coordinate? {
        guard !points.isEmpty else { return nil }
        let r = Double.pi / 180
        var x = 0.0, y = 0.0, z = 0.0
        for p in points {
            x += cos(p.latitude * r) * cos(p.longitude * r)
            y += cos(p.latitude * r) * sin(p.longitude * r)
            z += sin(p.latitude * r)
        }
        let h = sqrt(x * x + y * y)
        guard h > 1e-12 || abs(z) > 1e-12 else { return points[0] }
        return Coordinate(latitude: atan2(z, h) / r, longitude: atan2(y, x) / r)
    }
}

/// A named place for titles, from a small offline table the caller supplies (none is built in).
public struct Place: Sendable, Equatable {
    public var name: String
    public var center: Coordinate
    public var radiusKm: Double
    public init(name: String, latitude: Double, longitude: Double, radiusKm: Double) {
        self.name = name
        self.center = Coordinate(latitude: latitude, longitude: longitude)
        self.radiusKm = radiusKm
    }

    /// The nearest place whose radius covers `c`.
    static func name(for c: Coordinate?, in places: [Place]) -> String? {
        guard let c else { return nil }
        return places.map { ($0, $0.center.distanceKm(to: c)) }.filter { $0.1 <= $0.0.radiusKm }
            .min { $0.1 < $1.1 }?.0.name
    }
}

/// A moment (`PHAssetCollection` of type `.moment`).
public struct Moment<ID: Hashable & Sendable>: Sendable, Equatable {
    /// `UUID/L0/040`.
    public var localIdentifier: String
    /// Member ids in time order.
    public var members: [ID]
    public var startInstant: Double
    public var endInstant: Double
    public var startLocalDate: String
    public var endLocalDate: String
    /// Mean of the members' GPS positions, nil when none has one.
    public var approximateLocation: Coordinate?
    /// `Lisbon, 12 May 2023`, `Lisbon & Sintra, 12–14 May 2023` from the members' places (`PlaceTitle`),
    /// else the local date (`22 November 2026`).
    public var title: String
    /// The place names the title was made from (dominant first), empty when it is a date only.
    public var places: [String] = []
    /// Why this moment starts where it does, and where its identifier came from.
    public var reasons: [Reason]

    public init(
        localIdentifier: String, members: [ID], startInstant: Double, endInstant: Double, startLocalDate: String, endLocalDate: String,
        approximateLocation: Coordinate?, title: String, places: [String] = [], reasons: [Reason]
    ) {
        self.localIdentifier = localIdentifier
        self.members = members
        self.startInstant = startInstant
        self.endInstant = endInstant
        self.startLocalDate = startLocalDate
        self.endLocalDate = endLocalDate
        self.approximateLocation = approximateLocation
        self.title = title
        self.places = places
        self.reasons = reasons
    }
}

/// A moment list: a cluster of nearby moments or a year.
public struct MomentList: Sendable, Equatable {
    /// `UUID/L0/010`.
    public var localIdentifier: String
    public var subtype: CollectionListSubtype
    public var title: String
    /// Moment identifiers in time order.
    public var moments: [String]
    public var startInstant: Double
    public var endInstant: Double
    public var reasons: [Reason]
}

public struct MomentResult<ID: Hashable & Sendable>: Sendable, Equatable {
    public var moments: [Moment<ID>]
    /// `momentListCluster` lists.
    public var clusters: [MomentList]
    /// `momentListYear` lists.
    public var years: [MomentList]
    /// The home area the titles were made with (`PlaceTitle.home`; nil without `homeByDate`).
    public var home: String? = nil
}

/// Splits a time-ordered library into moments, and moments into clusters and years.
///
/// Apple publishes no rule (reference §8), so this follows PhotoTOC (Platt et al. 2003) plus place and day:
/// - **Adaptive time gap.** For the gap gᵢ between consecutive items, with the mean m of log(max(g, 1 s))
///   over the gaps within ±`windowRadius` (10) of it, the gap itself included, a new moment starts when
///   log gᵢ > m + K. K = log 17 ≈ 2.83 (the value cited for PhotoTOC): with the gap inside its own window
///   of 21, that is a gap about 20× the local geometric-mean gap. Two guards keep it sensible:
///   a gap below `minimumSplitGap` (10 min) never splits on time alone (a pause inside a shoot is not a
///   new event), and a gap of at least `alwaysSplitGap` (12 h) always splits (a sparse stretch whose
///   window holds few gaps can otherwise hide a long one).
/// - **Place.** A jump of more than `locationJumpKm` (50 km) between an item and the last item of the
///   current moment that has GPS (items without GPS are skipped over) starts a new moment: no single
///   "place" of a moment spans more than a drive across a city.
/// - **Local calendar day** (on by default): a new local date starts a new moment.
/// - A gap under `burstGap` (1 s) never splits, whatever the rules above say: a burst stays whole.
///
/// Identifiers: with `previous`, each new moment takes the identifier of the previous moment it shares
/// the most members with (pairs taken largest overlap first, each previous identifier used once);
/// others get `StableIdentifier.collection("moment:" + first member id)` (de-duplicated if needed).
/// Clusters: consecutive moments at most `clusterMaxGap` (3 days) apart whose locations, when both are
/// known, are within `clusterMaxDistanceKm` (100 km). Years: by the first moment's local date.
public enum MomentSegmenter {
    public struct Options: Sendable, Equatable {
        public var windowRadius = 10
        public var k = log(17.0)
        public var minimumSplitGap = 600.0
        public var alwaysSplitGap = 12 * 3600.0
        public var locationJumpKm = 50.0
        public var splitOnLocalDayChange = true
        public var burstGap = 1.0
        public var clusterMaxGap = 3 * 86400.0
        public var clusterMaxDistanceKm = 100.0
        /// Offline place names for titles; empty by default.
        public var places: [Place] = []
        /// Whether the library's home area (`PlaceTitle.home`) titles its moments by date only, as PhotoKit does.
        public var homeByDate = true
        public init() {}
    }

    /// Moments of items named by their local identifiers, in time order (ties by identifier).
    public static func segment(
        _ items: [MomentItem<String>], previous: [PreviousMoment<String>] = [], options: Options = Options()
    ) -> MomentResult<String> {
        segment(
            sorted: items.sorted { $0.instant != $1.instant ? $0.instant < $1.instant : $0.id < $1.id }, previous: previous, options: options,
            seedNames: { $0 })
    }

    /// Moments of `items`, which are in time order already (the caller orders ties). `seedNames` gives the
    /// local identifiers of the assets whose moments derive their identifier from their first member (an
    /// organize stage holding rows reads just those from the catalog).
    ///
    /// Specialized here for catalog row ids (`Int64`, the organize stage's items): called across the module
    /// boundary, the generic body ran with witness tables and boxed closures, ~55M instructions for 2,370
    /// items at 3,000 files, in organize's serial part.
    @_specialize(exported: true, where ID == Int64)
    public static func segment<ID>(
        sorted items: [MomentItem<ID>], previous: [PreviousMoment<ID>], options: Options = Options(), seedNames: ([ID]) throws -> [String]
    ) rethrows -> MomentResult<ID> {
        guard !items.isEmpty else { return MomentResult(moments: [], clusters: [], years: []) }
        let home = options.homeByDate ? PlaceTitle.home(items.map(\.place)) : nil
        var moments = build(items, groups(items, options: options), home: home, options: options)
        try assignIdentifiers(&moments, previous: previous, reserved: { _ in false }, seedNames: seedNames)
        return MomentResult(moments: moments, clusters: clusters(moments, options), years: years(moments), home: home)
    }

    /// The moments of the items `region` of `items` (in time order, ties ordered by the caller) as a
    /// segmentation of every item gives them, without identifiers yet (`assignIdentifiers`), when the region is
    /// one the items around decide alone: the items before and after it are read for the gaps the rule
    /// compares (`windowRadius` + 1 either side, fewer only where the library ends), and a boundary is forced
    /// before the region's first item and after its last (`forcedBoundary`, or the library's ends) — nil when
    /// the segmentation does not cut there. `home`: the library's home area (`PlaceTitle.home` of every item).
    @_specialize(exported: true, where ID == Int64)
    public static func segment<ID>(sorted items: [MomentItem<ID>], region: Range<Int>, home: String?, options: Options = Options()) -> [Moment<ID>]? {
        guard !region.isEmpty, region.lowerBound >= 0, region.upperBound <= items.count else { return nil }
        let all = groups(items, options: options)
        guard let first = all.firstIndex(where: { $0.range.lowerBound == region.lowerBound }),
            let last = all.firstIndex(where: { $0.range.upperBound == region.upperBound }), first <= last
        else { return nil }
        return build(items, Array(all[first...last]), home: options.homeByDate ? home : nil, options: options)
    }

    /// Identifiers for moments in time order: each takes the identifier of the `previous` moment it shares the
    /// most members with (pairs taken largest overlap first, each previous identifier once); the others one
    /// derived from their first member's local identifier (`seedNames`), avoiding every previous one and
    /// those `reserved` says are (stored moments a partial segmentation leaves as they are).
    @_specialize(exported: true, where ID == Int64)
    public static func assignIdentifiers<ID>(
        to moments: inout [Moment<ID>], previous: [PreviousMoment<ID>], reserved: (String) throws -> Bool, seedNames: ([ID]) throws -> [String]
    ) rethrows {
        try assignIdentifiers(&moments, previous: previous, reserved: reserved, seedNames: seedNames)
    }

    /// Whether a moment starts at `current` whatever the gaps around it: a gap of at least `alwaysSplitGap`,
    /// or a new local day (with `splitOnLocalDayChange`), after a gap of at least `burstGap`.
    public static func forcedBoundary<ID>(_ previous: MomentItem<ID>, _ current: MomentItem<ID>, options: Options = Options()) -> Bool {
        let gap = current.instant - previous.instant
        return gap >= options.burstGap && (gap >= options.alwaysSplitGap || (options.splitOnLocalDayChange && current.localDate != previous.localDate))
    }

    /// The clusters and years of moments in time order.
    @_specialize(exported: true, where ID == Int64)
    public static func lists<ID>(_ moments: [Moment<ID>], options: Options = Options()) -> (clusters: [MomentList], years: [MomentList]) {
        (clusters(moments, options), years(moments))
    }

    /// The moments' items as ranges of `items`, each with why it starts where it does.
    static func groups<ID>(_ items: [MomentItem<ID>], options: Options) -> [(range: Range<Int>, reasons: [Reason])] {
        guard !items.isEmpty else { return [] }
        // Boundaries: starts[i] = reasons item i starts a new moment (item 0 always does).
        let gaps = zip(items.dropFirst(), items).map { $0.instant - $1.instant }
        let logs = gaps.map { log(max($0, 1)) }
        var prefix = [0.0]
        for l in logs { prefix.append(prefix.last! + l) }
        var groups: [(range: Range<Int>, reasons: [Reason])] = []
        var start = 0
        var startReasons = [Reason("moment", "first item in time order")]
        var lastGPS = items[0].coordinate
        for i in 1..<items.count {
            let gap = gaps[i - 1], prev = items[i - 1], cur = items[i]
            var why: [Reason] = []
            if gap >= options.burstGap {
                let lo = max(0, i - 1 - options.windowRadius), hi = min(gaps.count - 1, i - 1 + options.windowRadius)
                let mean = (prefix[hi + 1] - prefix[lo]) / Double(hi - lo + 1)
                if gap >= options.alwaysSplitGap {
                    why.append(Reason("moment.timeGap", "gap \(fmt(gap)) s ≥ \(fmt(options.alwaysSplitGap)) s"))
                } else if gap >= options.minimumSplitGap && logs[i - 1] > mean + options.k {
                    why.append(Reason("moment.timeGap",
                        "gap \(fmt(gap)) s: log gap \(fmt(logs[i - 1])) > mean log gap \(fmt(mean)) over \(hi - lo + 1) gaps + K \(fmt(options.k))"))
                }
                if let a = lastGPS, let b = cur.coordinate {
                    let d = a.distanceKm(to: b)
                    if d > options.locationJumpKm {
                        why.append(Reason("moment.location", "moved \(fmt(d)) km > \(fmt(options.locationJumpKm)) km since the last item with GPS"))
                    }
                }
                if options.splitOnLocalDayChange && cur.localDate != prev.localDate {
                    why.append(Reason("moment.day", "local date \(prev.localDate) → \(cur.localDate)"))
                }
            }
            if !why.isEmpty {
                groups.append((start..<i, startReasons))
                start = i
                startReasons = why
                lastGPS = nil
            }
            if let c = cur.coordinate { lastGPS = c }
        }
        groups.append((start..<items.count, startReasons))
        return groups
    }

    /// The moments of these groups of items, without identifiers yet; `home` titles by date.
    static func build<ID>(_ items: [MomentItem<ID>], _ groups: [(range: Range<Int>, reasons: [Reason])], home: String?, options: Options) -> [Moment<ID>] {
        groups.map { g in
            let members = items[g.range]
            let loc = Coordinate.mean(members.compactMap(\.coordinate))
            let first = members.first!, last = members.last!
            let named = PlaceTitle.dominant(members.map(\.place))
            let dates = CivilDate.rangeTitle(first.localDate, last.localDate)
            var reasons = g.reasons
            let title: String
            if !named.isEmpty, named != [home] {
                title = named.joined(separator: " & ") + ", " + dates
                reasons.append(Reason("moment.title", PlaceTitle.why(named, members.map(\.place))))
            } else {
                title = Place.name(for: loc, in: options.places) ?? dates
                if let home, named == [home] { reasons.append(Reason("moment.title", "\(home) is the home area: titled by date")) }
            }
            var m = Moment(localIdentifier: "", members: members.map(\.id), startInstant: first.instant,
                           endInstant: last.instant, startLocalDate: first.localDate, endLocalDate: last.localDate,
                           approximateLocation: loc, title: title, reasons: reasons)
            m.places = named == [home] ? [] : named
            return m
        }
    }

    static func assignIdentifiers<ID>(
        _ moments: inout [Moment<ID>], previous: [PreviousMoment<ID>], reserved: (String) throws -> Bool,
        seedNames: ([ID]) throws -> [String]
    ) rethrows {
        var owner: [ID: Int] = [:]  // member id -> previous index
        for (p, pm) in previous.enumerated() { for m in pm.members { owner[m] = p } }
        var pairs: [(overlap: Int, moment: Int, prev: Int)] = []
        for (i, m) in moments.enumerated() {
            var counts: [Int: Int] = [:]
            for id in m.members { if let p = owner[id] { counts[p, default: 0] += 1 } }
            for (p, c) in counts { pairs.append((c, i, p)) }
        }
        pairs.sort { a, b in
            if a.overlap != b.overlap { return a.overlap > b.overlap }
            if a.moment != b.moment { return a.moment < b.moment }
            return previous[a.prev].localIdentifier < previous[b.prev].localIdentifier
        }
        var usedPrev = Set<Int>()
        var used = Set<String>()
        for pair in pairs where moments[pair.moment].localIdentifier.isEmpty && !usedPrev.contains(pair.prev) {
            let id = previous[pair.prev].localIdentifier
            guard !used.contains(id) else { continue }
            usedPrev.insert(pair.prev)
            used.insert(id)
            moments[pair.moment].localIdentifier = id
            moments[pair.moment].reasons.append(Reason("localIdentifier",
                "kept from the previous moment sharing \(pair.overlap) of its \(previous[pair.prev].members.count) members"))
        }
        // Identifiers of previous moments that were not reused stay reserved, so a derived one never collides.
        for p in previous { used.insert(p.localIdentifier) }

        let unnamed = moments.indices.filter { moments[$0].localIdentifier.isEmpty }
        let names = try seedNames(unnamed.map { moments[$0].members[0] })
        for (k, i) in unnamed.enumerated() {
            // A name the caller could not give (it owes one per member asked): the member's own description.
            let name = k < names.count ? names[k] : String(describing: moments[i].members[0])
            var seed = "moment:" + name
            var n = 1
            // And those of every stored moment a partial segmentation leaves as they are (`reserved`).
            while try used.contains(StableIdentifier.collection(seed)) || reserved(StableIdentifier.collection(seed)) {
                n += 1
                seed = "moment:" + name + "#\(n)"
            }
            let id = StableIdentifier.collection(seed)
            used.insert(id)
            moments[i].localIdentifier = id
            moments[i].reasons.append(Reason("localIdentifier", "derived from \(seed)"))
        }
    }

    static func clusters<ID>(_ moments: [Moment<ID>], _ options: Options) -> [MomentList] {
        var out: [MomentList] = []
        var current: [Moment<ID>] = []
        var why: [Reason] = []
        func flush() {
            guard let first = current.first, let last = current.last else { return }
            let loc = Coordinate.mean(current.compactMap(\.approximateLocation))
            let dates = CivilDate.rangeTitle(first.startLocalDate, last.endLocalDate)
            let named = PlaceTitle.dominant(current.flatMap { m in m.places.map { Optional($0) } })
            let title = named.isEmpty ? (Place.name(for: loc, in: options.places) ?? dates) : named.joined(separator: " & ") + ", " + dates
            out.append(MomentList(
                localIdentifier: StableIdentifier.collectionList("cluster:" + first.localIdentifier),
                subtype: .momentListCluster, title: title, moments: current.map(\.localIdentifier),
                startInstant: first.startInstant, endInstant: last.endInstant,
                reasons: why + [Reason("momentListCluster", "\(current.count) moments, each ≤ \(fmt(options.clusterMaxGap / 86400)) days and ≤ \(fmt(options.clusterMaxDistanceKm)) km from the one before")]))
        }
        for m in moments {
            if let last = current.last {
                let split = clusterBreak(last, m, options)
                if !split.isEmpty {
                    flush()
                    current = []
                    why = split
                }
            }
            current.append(m)
        }
        flush()
        return out
    }

    /// Why a cluster ends between two consecutive moments (none: the second joins the first's cluster): more
    /// than `clusterMaxGap` between them, or more than `clusterMaxDistanceKm` when both have a location.
    public static func clusterBreak<ID>(_ last: Moment<ID>, _ m: Moment<ID>, _ options: Options = Options()) -> [Reason] {
        let gap = m.startInstant - last.endInstant
        let dist = last.approximateLocation.flatMap { a in m.approximateLocation.map { a.distanceKm(to: $0) } }
        var split: [Reason] = []
        if gap > options.clusterMaxGap { split.append(Reason("momentListCluster", "\(fmt(gap / 86400)) days after the previous moment")) }
        if let d = dist, d > options.clusterMaxDistanceKm { split.append(Reason("momentListCluster", "\(fmt(d)) km from the previous moment")) }
        return split
    }

    static func years<ID>(_ moments: [Moment<ID>]) -> [MomentList] {
        var order: [String] = []
        var byYear: [String: [Moment<ID>]] = [:]
        for m in moments {
            let y = String(m.startLocalDate.prefix(4))
            if byYear[y] == nil { order.append(y) }
            byYear[y, default: []].append(m)
        }
        return order.map { y in
            let ms = byYear[y]!
            return MomentList(localIdentifier: StableIdentifier.collectionList("year:" + y), subtype: .momentListYear,
                              title: y, moments: ms.map(\.localIdentifier), startInstant: ms.first!.startInstant,
                              endInstant: ms.last!.endInstant, reasons: [Reason("momentListYear", "moments starting in local year \(y)")])
        }
    }

    static func fmt(_ x: Double) -> String {
        let r = (x * 100).rounded() / 100
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}

extension MomentItem where ID == String {
    /// From an asset with a creation date (assets without one belong to no moment). Without a time zone
    /// the wall-clock time is read as UTC: order within one camera stays right, cross-zone order may not.
    public init?(asset: Asset) {
        guard let d = asset.creationDate, let t = CivilDate.seconds(d) else { return nil }
        self.init(id: asset.id, instant: t, localDate: String(d.local.prefix(10)),
                  latitude: asset.location?.latitude, longitude: asset.location?.longitude)
    }
}

/// Titles from places, PhotoKit style: the dominant place, or two joined with `&`.
public enum PlaceTitle {
    /// A second place shares the title when it holds at least this share of the located items.
    public static let secondShare = 0.25
    /// The home area holds more than this share of a library's located items (over at least two places).
    public static let homeShare = 0.5

    /// The one or two places a title names: by count, ties in order of first appearance; empty when none.
    public static func dominant(_ places: [String?]) -> [String] {
        let ranked = ranking(places)
        guard let top = ranked.first else { return [] }
        let total = ranked.reduce(0) { $0 + $1.count }
        if ranked.count > 1, Double(ranked[1].count) >= secondShare * Double(total) { return [top.name, ranked[1].name] }
        return [top.name]
    }

    /// The home area from how many located items each place has (as `home(_:)` of those items).
    public static func home(counts: [String: Int]) -> String? {
        let total = counts.values.reduce(0, +)
        guard counts.count > 1, let top = counts.max(by: { $0.value < $1.value }), Double(top.value) > homeShare * Double(total) else { return nil }
        return top.key
    }

    /// The library's home area: the place of more than half its located items, when it has several places.
    public static func home(_ places: [String?]) -> String? {
        let ranked = ranking(places)
        let total = ranked.reduce(0) { $0 + $1.count }
        guard ranked.count > 1, let top = ranked.first, Double(top.count) > homeShare * Double(total) else { return nil }
        return top.name
    }

    static func ranking(_ places: [String?]) -> [(name: String, count: Int, first: Int)] {
        var counts: [String: (count: Int, first: Int)] = [:]
        for (i, p) in places.enumerated() {
            guard let p else { continue }
            counts[p, default: (0, i)].count += 1
        }
        return counts.map { ($0.key, $0.value.count, $0.value.first) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.first < $1.first }
    }

    static func why(_ named: [String], _ places: [String?]) -> String {
        let ranked = ranking(places)
        let located = ranked.reduce(0) { $0 + $1.count }
        let parts = named.map { n in "\(n) \(ranked.first { $0.name == n }?.count ?? 0)" }
        return "places of \(located) of \(places.count) items: " + parts.joined(separator: ", ")
    }
}
