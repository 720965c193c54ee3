import Catalog
import Classify
import Foundation
import MediaProbe
import Organize
import PhotoModel

/// The organize stage: burst sets, moments with clusters and years, albums and folders from the
/// directory tree, and the built-in smart albums (stored as predicates, evaluated when read). Runs over
/// the catalog after an ingest that changed something; every change lands in the persistent history.
public enum Organizer {
    public struct Summary: Sendable {
        public var bursts = 0
        public var moments = 0
        public var albums = 0
        public var records = 0
        /// Assets with a place name, and dates given a local time by their zone, among those derived this run
        /// (every asset in a full organize).
        public var places = 0
        public var zones = 0
        /// Whether only what changed was recomputed, and how many assets had changed.
        public var incremental = false
        public var changedAssets = 0
        /// The top-level directories whose albums and folders were built again, when not the whole tree (nil).
        public var folderTops: Int? = nil
        /// The stretches of time whose moments were segmented again, when not the whole timeline (nil).
        public var momentStretches: Int? = nil
        /// Seconds spent in each step, in order (Benchmarks/README.md).
        public var steps: [(name: String, seconds: Double)] = []
    }

    /// How many recorded items or moments an incremental organize reads at first on each side of a stretch
    /// (then four times more each time it needs more).
    public static let momentPage = 64

    /// The share of the recorded assets changed from which an incremental organize is full all the same: the
    /// library's folders renamed, 71k assets of 71k, took 3.2-3.8 s incremental against 2.0-2.4 s full, and peaked
    /// 120 MB higher holding every changed asset's row twice; half of them, 1.6-1.8 s against 1.8-1.9 s, 50 MB
    /// higher (Benchmarks/README.md, session 35).
    public static let wholeShare = 0.5

    /// Live assets from which bursts and albums are computed before places rather than beside it (memory:
    /// their working sets and a places range's are then not held at once).
    public static let besidePlacesAssets = 20_000

    /// Organizes the catalog. `full` recomputes everything (a first organize, a rules or gazetteer change,
    /// `rederive`, a merge); otherwise only what the assets changed since the last organize can touch is
    /// recomputed — bursts of their folders, places of their cameras' neighbouring days, albums and folders of
    /// their top-level folders, moments of the stretches of time they can move and the lists those reach —
    /// and the result is exactly what a full organize gives (docs/architecture.md, organize). Without a record
    /// of a complete earlier organize the run is full anyway (and a step without its own record, whole).
    /// `newAssetsAfter`: the largest asset row id before the run began (`Catalog.largestAssetID`); the burst
    /// fields set on assets above it are covered by their `inserted` records, not recorded again (nil: every
    /// change is recorded). `momentPage`: how many recorded items or moments a stretch reads at first on each
    /// side (tests read fewer). `wholeAt`: the share of the recorded assets changed from which the run is full
    /// all the same (nil: never). `afterStep` is called after each step (tests stop an organize half-way).
    public static func run(
        _ catalog: Catalog, runID: Int64?, folderAlbums: FolderAlbums.Mode = .leafAlbums, userSmartAlbums: [SmartAlbumDefinition] = [],
        full: Bool = true, besidePlacesBelow: Int = besidePlacesAssets, newAssetsAfter: Int64? = nil, momentPage: Int = momentPage,
        wholeAt: Double? = wholeShare, afterStep: (String) throws -> Void = { _ in }
    ) throws -> Summary {
        var summary = Summary()
        var clock = Date()
        func step(_ name: String) throws {
            try afterStep(name)
            summary.steps.append((name, Date().timeIntervalSince(clock)))
            // What the step freed goes back to the system before the next builds its own (see releaseFreeMemory).
            ResourceLimits.releaseFreeMemory()
            clock = Date()
        }
        let changes = full ? nil : try catalog.organizeChanges(wholeAt: wholeAt)
        // Until this run records its inputs at its end, the record is not complete: one stopped half-way (a
        // second Ctrl-C, a kill, a full disk) has written some outputs from the changes (a neighbour's zone)
        // and not the rest (its moment), which the record no longer shows as pending; the next organize is full.
        try catalog.forgetOrganizeInputs()
        try step("changes")
        summary.incremental = changes != nil
        var touched = Set<String>()  // assets whose recorded inputs are renewed (incremental runs)
        if let changes {
            touched.formUnion(changes.before.map(\.localIdentifier))
            touched.formUnion(changes.after.map(\.localIdentifier))
            summary.changedAssets = touched.count
        }
        // Bursts read the assets' own dates, names and cameras and write burst columns; places and moments
        // read and write other columns (docs/architecture.md, organize): bursts run on a thread of their own
        // meanwhile, joined before the store. Their history records may interleave with the places'.
        let burstWork = Concurrent { () throws -> (Summary, Set<String>) in
            var s = Summary(), t = Set<String>()
            if let changes {
                try incrementalBursts(catalog, changes, runID: runID, newAssetsAfter: newAssetsAfter, summary: &s, touched: &t)
            } else {
                try fullBursts(catalog, runID: runID, newAssetsAfter: newAssetsAfter, summary: &s)
            }
            return (s, t)
        }
        // Albums and folders depend on the assets' paths alone, which nothing here changes: they are built on
        // a thread of their own once the bursts are done, so places, the longest step, shares the two cores
        // with one other thread instead of two (bursts and albums together still end before places at 100k
        // files: organize 4.22-4.27 -> 3.90-4.11 s, Benchmarks/README.md). They are stored there too, as soon
        // as they are built, rather than held until the moments are: 21.7k albums and their folders are ~5 MB
        // at 100k files, which stayed resident through the rest of places and set organize's peak (session
        // 19). The store replaces only albums and folders; moments and smart albums are stored below.
        let folderWork = Concurrent { () throws -> (albums: Int, records: Int, tops: Int?) in
            _ = try? burstWork.value()  // its error, if any, is rethrown where the bursts are joined below
            // What the bursts freed (a group of followed folders: 13.8k rows, ~12 MB at 100k files) goes back
            // before the albums build theirs.
            ResourceLimits.releaseFreeMemory()
            let stored = try storeFolders(catalog, changes: changes, mode: folderAlbums, runID: runID)
            // A full organize's record of its inputs: the bursts are stored, and nothing after them writes an
            // input column (places and moments write others), so every asset's row is written here, beside
            // places, rather than at the end (10-20 ms at 3,000 files, the last step). Marked complete only at
            // the end (`markOrganizeInputsComplete`): an organize that stops before keeps no record.
            if changes == nil { try catalog.recordAllOrganizeInputRows() }
            return stored
        }
        // On an error below, the two threads finish (they write to the catalog) before it is thrown.
        defer {
            _ = try? folderWork.value()
            _ = try? burstWork.value()
        }
        // In a large library they are done before places starts rather than beside it: their working sets
        // (the folders a followed burst identifier pulls in, every folder's album: ~12 MB each at 100k files)
        // then no longer add to the places ranges', and organize stays below the walk's peak (100k files:
        // 56-60 -> 53-54 MiB for ~1 s more, Benchmarks/README.md session 19). Below that size the peak is
        // the walk's either way, and beside places they cost no time.
        if try catalog.liveAssetCount() >= besidePlacesBelow {
            _ = try folderWork.value()  // after the bursts (a burst error is rethrown where they are joined)
            try step("bursts+albums")
        }
        var placesChanged: [String] = []  // assets whose place, zone or local date the places step changed
        if let changes {
            // Assets whose row changed in nothing places reads (a renamed folder's, but for the folder of one
            // without a camera) are no subjects of it, nor inputs that moved.
            placesChanged = try incrementalPlaces(
                catalog, changes.removing(Set(changes.unchanged(where: PlaceStage.sameInputs).keys)), runID: runID, summary: &summary)
        } else {
            try fullPlaces(catalog, runID: runID, summary: &summary)
        }
        try step("places")
        try PlaceStage.recordIdentity(catalog)

        // Moments, clusters and years on local days, from the dates the places step stored (in a scope of their
        // own, so the items, the stored moments and the segmenter's result are freed once stored).
        do {
            let moments =
                try changes.flatMap { changes in
                    // The moment step reads the date, position and local identifier of a live asset, and the
                    // local date and place the places step sets (those it changed are added): an asset changed in
                    // none of them stays where it is.
                    let same = Set(changes.unchanged(where: sameMomentInputs).values)
                    return try incrementalMoments(
                        catalog, changed: changes.assetIDs.filter { !same.contains($0) } + (try catalog.assetRows(ofLocalIdentifiers: Set(placesChanged))),
                        page: momentPage, summary: &summary)
                } ?? Self.moments(catalog, summary: &summary)
            summary.momentStretches = moments.stretches
            try step("moments")

            // Smart albums: definitions only; membership is computed when read. Stored with the moments while the
            // albums may still be built (neither reads the other).
            let smartAlbums = (SmartAlbums.builtIn + userSmartAlbums).map { d in
                CollectionSpec(
                    localIdentifier: d.localIdentifier, type: .smartAlbum, subtype: d.subtype, title: d.title,
                    predicate: ([d.predicate] + d.arguments).joined(separator: "\u{1F}"))
            }
            summary.records += try catalog.storeCollections(
                moments.collections + smartAlbums, replacing: [.moment, .smartAlbum], lists: moments.lists ?? [],
                replacingLists: moments.lists == nil ? [] : [.momentList],
                only: (moments.replacing?.union(smartAlbums.map(\.localIdentifier)), moments.listsReplacing), momentRecord: moments.record,
                runID: runID)
            try step("store")
        }

        let (burstSummary, burstTouched) = try burstWork.value()
        summary.bursts += burstSummary.bursts
        summary.records += burstSummary.records
        touched.formUnion(burstTouched)
        try step("bursts")

        // Albums and folders from the directory tree, one root at a time (built and stored meanwhile: above).
        let folderResult = try folderWork.value()
        summary.albums = folderResult.albums
        summary.records += folderResult.records
        summary.folderTops = folderResult.tops
        try step("albums")

        if changes == nil {
            try catalog.markOrganizeInputsComplete()  // the rows: with the albums, above
        } else {
            try catalog.recordOrganizeInputs(touched.sorted(), pendingThrough: changes?.pendingThrough)
        }
        try step("record")
        return summary
    }

    /// Whether two rows of an asset give it the same moment item, its place and local date aside (the places
    /// step says when it changes those).
    static func sameMomentInputs(_ a: OrganizeRow, _ b: OrganizeRow) -> Bool {
        a.creationDate == b.creationDate && a.latitude == b.latitude && a.longitude == b.longitude
    }

    /// The moments to store, their lists (nil: the stored ones stay), the stored moments they replace (nil:
    /// all), the record to write of them, and how many stretches of time were segmented (nil: the whole).
    struct MomentBuild {
        var collections: [CollectionSpec]
        var lists: [CollectionListSpec]?
        var replacing: Set<String>?
        /// The stored lists `lists` replace (nil: all).
        var listsReplacing: Set<String>? = nil
        var record: MomentRecordUpdate
        var stretches: Int?
    }

    /// Every dated asset's moment item, segmented with the stored moments as the previous ones. Assets are
    /// named by their place in local identifier order (`AssetOrder`; no string per asset: at 100k assets the
    /// identifiers, a map back to rows and a sorted copy of the items were ~25 MB of the organize peak), so
    /// that a tuple orders assets of one instant; the moments' members are catalog rows again at the end, and
    /// the few local identifiers the new moments' identifiers derive from are read then.
    static func moments(_ catalog: Catalog, summary: inout Summary) throws -> MomentBuild {
        var items: [MomentItem<Int64>] = []
        // Sized once: grown by appending, the array of 75k items was 131k long (9.4 MB, and the copy before
        // it alive while it was filled) at organize's peak at 100k files.
        let order = try catalog.momentInputs(expecting: { items.reserveCapacity($0) }) { _, position, d, latitude, longitude, place in
            guard let t = instant(d) else { return }
            items.append(
                MomentItem(
                    id: Int64(position), instant: Double(t), localDate: String(d.local.prefix(10)),
                    latitude: latitude, longitude: longitude, place: place))
        }
        // In time order, assets of one instant in local identifier order (as MomentSegmenter.segment orders
        // identifiers).
        items.sort { $0.instant != $1.instant ? $0.instant < $1.instant : $0.id < $1.id }
        // A stored member no longer among the assets (another process deleted it meanwhile) stays a member
        // that matches no item, under a value no position takes.
        let previous = try catalog.momentMemberRows().map { m in
            PreviousMoment(localIdentifier: m.localIdentifier, members: m.members.map { row in order.position(ofRow: row).map(Int64.init) ?? -1 - row })
        }
        func row(_ position: Int64) -> Int64 { order.rows[Int(position)] }
        // An asset gone since its item was read (another process) still seeds a stable name: its row.
        let result = try MomentSegmenter.segment(
            sorted: items, previous: previous,
            seedNames: { positions in
                let rows = positions.map(row)
                return zip(rows, try catalog.localIdentifiers(ofRows: rows)).map { $1 ?? "row \($0)" }
            })
        // What the next organize segments again from: each item's instant, what the lists are made from.
        let recordItems = items.map { (assetID: row($0.id), instant: Int64($0.instant), place: $0.place) }
        items = []
        summary.moments = result.moments.count
        let collections = result.moments.map { momentSpec($0, row: row) }
        let lists = (result.clusters + result.years).map(listSpec)
        return MomentBuild(
            collections: collections, lists: lists, replacing: nil,
            record: MomentRecordUpdate(replacing: nil, moments: result.moments.map(record), itemsOf: nil, items: recordItems, home: result.home),
            stretches: nil)
    }

    /// An asset's instant (UTC seconds) from its date as the moment step reads it; nil when the text is no date.
    static func instant(_ d: AssetDate) -> Int? {
        Classifier.epochSeconds(d.local).map { $0 - (d.offsetSeconds ?? 0) }
    }

    static func momentSpec<ID>(_ m: Moment<ID>, row: (ID) -> Int64) -> CollectionSpec {
        CollectionSpec(
            localIdentifier: m.localIdentifier, type: .moment, subtype: AssetCollectionSubtype(rawValue: 0), title: m.title,
            startDate: iso(m.startInstant), endDate: iso(m.endInstant), latitude: m.approximateLocation?.latitude,
            longitude: m.approximateLocation?.longitude, members: m.members.map(row))
    }

    static func listSpec(_ l: MomentList) -> CollectionListSpec {
        CollectionListSpec(
            localIdentifier: l.localIdentifier, type: .momentList, subtype: l.subtype, title: l.title, startDate: iso(l.startInstant),
            endDate: iso(l.endInstant), children: l.moments)
    }

    static func record<ID>(_ m: Moment<ID>) -> MomentRecord {
        MomentRecord(
            localIdentifier: m.localIdentifier, startInstant: Int64(m.startInstant), endInstant: Int64(m.endInstant), startLocalDate: m.startLocalDate,
            endLocalDate: m.endLocalDate, latitude: m.approximateLocation?.latitude, longitude: m.approximateLocation?.longitude, places: m.places)
    }

    /// A recorded moment as the lists are made from it (no members).
    static func moment(_ r: MomentRecord) -> Moment<Int64> {
        var m = Moment<Int64>(
            localIdentifier: r.localIdentifier, members: [], startInstant: Double(r.startInstant), endInstant: Double(r.endInstant),
            startLocalDate: r.startLocalDate, endLocalDate: r.endLocalDate,
            approximateLocation: r.latitude.flatMap { la in r.longitude.map { Coordinate(latitude: la, longitude: $0) } }, title: "", reasons: [])
        m.places = r.places
        return m
    }

    /// The moments of an incremental organize: only the stretches of the timeline the changed assets can
    /// move are segmented again, from the instants the last organize recorded (`organize_moment_item`) and
    /// the changed assets' now, and the lists are made again from the recorded moments and the new ones. What
    /// a whole segmentation gives, by the segmenter's rule (`MomentSegmenter`): the boundary before an item
    /// depends on the gaps up to 11 items either side of it, the local days of it and the one before, and the
    /// last position with GPS since the boundary before; a boundary the gap or the day forces
    /// (`MomentSegmenter.forcedBoundary`) depends on its two items alone. So a stretch starts at a forced
    /// boundary with at least 11 unchanged items between it and the first time a changed asset has (now, or as
    /// recorded), ends likewise, and no changed asset's time falls in the gap before its first item or after
    /// its last; it is segmented with 11 items either side for the gaps, and it replaces the stored moments
    /// over its time. nil when there is no whole record, when the home area moved (every title may change),
    /// or when a check fails: the caller segments the whole timeline then.
    static func incrementalMoments(_ catalog: Catalog, changed: [Int64], page: Int = momentPage, summary: inout Summary) throws -> MomentBuild? {
        guard let recordedHome = try catalog.momentRecordHome() else { return nil }
        let page = max(1, page)
        let dirty = Set(changed)
        // Changed assets a quarter of the timeline or more: read whole, it is segmented whole at about the cost
        // of its stretches (a library of renamed folders: 2,242 changed assets of 2,242, 0.01 s whole).
        guard dirty.count * 4 < (try catalog.recordedItemCount()) else { return nil }
        let rows = Array(dirty).sorted()
        // The changed assets now, and as recorded.
        var now: [Int64: (input: MomentInputRow, instant: Int)] = [:]
        for r in try catalog.momentInputs(ofRows: rows) { if let t = instant(r.date) { now[r.assetID] = (r, t) } }
        let recorded = try catalog.recordedItems(of: rows)
        // The home area from the recorded counts of place names, the changed assets' as they are now.
        var counts = try catalog.recordedPlaceCounts()
        for (_, r) in recorded { if let p = r.place { counts[p, default: 0] -= 1 } }
        for (_, n) in now { if let p = n.input.place { counts[p, default: 0] += 1 } }
        let home = PlaceTitle.home(counts: counts.filter { $0.value > 0 })
        guard home == recordedHome else { return nil }
        let times = (recorded.values.map { Int($0.instant) } + now.values.map(\.instant)).sorted()
        let update = { (moments: [MomentRecord], replacing: Set<String>) in
            MomentRecordUpdate(
                replacing: replacing, moments: moments, itemsOf: rows,
                items: now.map { (assetID: $0.key, instant: Int64($0.value.instant), place: $0.value.input.place) }, home: home)
        }
        guard !times.isEmpty else {
            // No changed asset is dated, nor was: every moment stays.
            summary.moments = try catalog.momentRecordCount()
            return MomentBuild(collections: [], lists: nil, replacing: [], record: update([], []), stretches: 0)
        }
        /// The items around `core` as they are now, in time order (ties by local identifier): every one with a
        /// time in it, and up to `left` and `right` recorded ones before and after it (those at the farthest
        /// time read on each side left out — some of that time's may not be read — unless the library ends
        /// there). Whether the library's first and last items are among them.
        var identifiers: [Int64: String] = [:]
        func window(_ core: ClosedRange<Int>, left: Int, right: Int) throws -> (items: [MomentItem<Int64>], atStart: Bool, atEnd: Bool) {
            let before = try catalog.recordedMomentInputs(left, before: Int64(core.lowerBound))
            let after = try catalog.recordedMomentInputs(right, after: Int64(core.upperBound))
            let atStart = before.count < left, atEnd = after.count < right
            let from = atStart ? Int.min : Int(before.last!.instant) + 1, to = atEnd ? Int.max : Int(after.last!.instant) - 1
            var out: [(item: MomentItem<Int64>, lid: String)] = []
            func add(_ r: MomentInputRow, _ t: Int) {
                out.append(
                    (MomentItem(id: r.assetID, instant: Double(t), localDate: String(r.date.local.prefix(10)), latitude: r.latitude, longitude: r.longitude,
                        place: r.place), r.localIdentifier))
            }
            let inside = try catalog.recordedMomentInputs(from: Int64(core.lowerBound), to: Int64(core.upperBound))
            // An unchanged asset's recorded instant is its instant now (its date is as the record read it).
            for r in before + inside + after where Int(r.instant) >= from && Int(r.instant) <= to {
                if let input = r.input, !dirty.contains(input.assetID) { add(input, Int(r.instant)) }
            }
            for (_, n) in now where n.instant >= from && n.instant <= to { add(n.input, n.instant) }
            out.sort { $0.item.instant != $1.item.instant ? $0.item.instant < $1.item.instant : $0.lid < $1.lid }
            for o in out { identifiers[o.item.id] = o.lid }
            return (out.map(\.item), atStart, atEnd)
        }

        /// A stretch: the items read (in time order), the range of them segmented again, and the first and last
        /// changed time it covers.
        struct Stretch {
            var items: [MomentItem<Int64>]
            var region: Range<Int>
            var core: ClosedRange<Int>
            /// The instants of the items before and after the region (the library's ends: none), between which
            /// the stored moments are replaced.
            var after: Int
            var before: Int
        }
        let radius = MomentSegmenter.Options().windowRadius + 1
        /// The stretch around changed times `core`: the window of items read grows until both ends are found.
        /// A changed asset of another core inside it (or where it needs unchanged items) is one of an earlier
        /// core, whose stretch then overlaps it, or of a later one, whose stretch will: overlapping stretches
        /// are merged below.
        func stretch(_ core: ClosedRange<Int>) throws -> Stretch {
            var left = page, right = page
            while true {
                let (w, atStart, atEnd) = try window(core, left: left, right: right)
                let n = w.count
                let p0 = w.firstIndex { Int($0.instant) >= core.lowerBound } ?? n
                let p1 = (w.lastIndex { Int($0.instant) <= core.upperBound } ?? -1)
                func forced(_ i: Int) -> Bool {
                    MomentSegmenter.forcedBoundary(w[i - 1], w[i]) && !dirty.contains(w[i - 1].id) && !dirty.contains(w[i].id)
                }
                // First item: a forced boundary at least `radius` items before the first changed time, or the
                // library's first item; the item after the last likewise, past the last changed time.
                var b = p0 - radius >= 1 ? (1...(p0 - radius)).reversed().first(where: forced) : nil
                if b == nil, atStart { b = 0 }
                var e = p1 + 1 + radius < n ? (p1 + 1 + radius..<n).first(where: forced) : nil
                if e == nil, atEnd { e = n }
                // With `radius` items either side read for the gaps, unless the library ends there.
                let leftFound = b.map { $0 - radius >= 0 || atStart } ?? false, rightFound = e.map { $0 + radius <= n || atEnd } ?? false
                if leftFound, rightFound, let b, let e {
                    let lower = max(0, b - radius), upper = min(n, e + radius)
                    return Stretch(
                        items: Array(w[lower..<upper]), region: (b - lower)..<(e - lower), core: core, after: b > 0 ? Int(w[b - 1].instant) : Int.min,
                        before: e < n ? Int(w[e].instant) : Int.max)
                }
                if !leftFound { left *= 4 }
                if !rightFound { right *= 4 }
            }
        }

        // Stretches in time order. One reaching into the one before (their regions overlap) is made again with
        // both cores; one holding changed times outside its core is made again with all of them in its core
        // (made one by one, a library of changed assets was made again once per asset).
        var stretches: [Stretch] = []
        var k = 0
        while k < times.count {
            var core = times[k]...times[k]
            while true {
                let s = try stretch(core)
                if let last = stretches.last, s.after < last.before {
                    core = last.core.lowerBound...core.upperBound
                    stretches.removeLast()
                    continue
                }
                let inside = times.lazy.filter { $0 >= s.after && $0 <= s.before }
                if let lo = inside.min(), let hi = inside.max(), lo < core.lowerBound || hi > core.upperBound {
                    core = min(lo, core.lowerBound)...max(hi, core.upperBound)
                    continue
                }
                stretches.append(s)
                break
            }
            while k < times.count, times[k] <= core.upperBound { k += 1 }
        }

        // The stored moments each stretch replaces: those over its time (the boundaries at its ends are ones
        // the old timeline had too, so none straddles them: checked before the first) — each member of them in
        // the stretch or changed. Read from the first stretch to the last, the moments between them too.
        let after = stretches.map(\.after).min()!, before = stretches.map(\.before).max()!
        let earlier = try catalog.momentRecords(page, startingBefore: Int64(after) + 1).map(moment)
        if let straddling = earlier.first, straddling.endInstant > Double(after) { return nil }
        let middle = try catalog.momentRecords(startingAfter: Int64(after), before: Int64(before)).map(moment)
        var replaced: [Moment<Int64>] = []
        var previousMembers: [String: [Int64]] = [:]
        var new: [Moment<Int64>] = []
        for s in stretches {
            let over = middle.filter { $0.endInstant > Double(s.after) && $0.startInstant < Double(s.before) }
            let members = try catalog.momentMembers(over.map(\.localIdentifier))
            let inStretch = Set(s.items[s.region].map(\.id))
            for m in over where !(members[m.localIdentifier] ?? []).allSatisfy({ inStretch.contains($0) || dirty.contains($0) }) { return nil }
            replaced += over
            previousMembers.merge(members) { a, _ in a }
            // A stretch whose assets are all gone (or no longer dated) replaces its moments with none.
            guard !s.region.isEmpty else { continue }
            guard let moments = MomentSegmenter.segment(sorted: s.items, region: s.region, home: home) else { return nil }
            new += moments
        }
        let replacedIDs = Set(replaced.map(\.localIdentifier))
        try MomentSegmenter.assignIdentifiers(
            to: &new, previous: replaced.map { PreviousMoment(localIdentifier: $0.localIdentifier, members: previousMembers[$0.localIdentifier] ?? []) },
            reserved: { try catalog.isStoredMoment($0) }, seedNames: { ids in ids.map { identifiers[$0] ?? "row \($0)" } })

        // The lists the change reaches: the clusters from the last break before the stretches (between two
        // moments before them) to the first after, made again from the moments now and, to know which stored
        // ones they replace, from the moments before; the years of the moments replaced and new.
        func unbroken(_ a: Moment<Int64>, _ b: Moment<Int64>) -> Bool { MomentSegmenter.clusterBreak(a, b).isEmpty }
        /// Recorded moments from `first` on (a page, then pages four times larger: `more` from a start instant)
        /// while each is `joined` to the one before.
        func walk(
            _ first: [Moment<Int64>], more: (Int64, Int) throws -> [MomentRecord], joined: (Moment<Int64>, Moment<Int64>) -> Bool
        ) throws -> [Moment<Int64>] {
            var out: [Moment<Int64>] = []
            var next = first[...], full = first.count == page, limit = page
            while let m = next.popFirst() {
                out.append(m)
                if next.isEmpty && full {
                    limit *= 4
                    let more = try more(Int64(m.startInstant), limit).map(moment)
                    (next, full) = (more[...], more.count == limit)
                }
                guard let n = next.first, joined(m, n) else { break }
            }
            return out
        }
        let left = try walk(earlier, more: { try catalog.momentRecords($1, startingBefore: $0) }, joined: { unbroken($1, $0) })
        let right = try walk(
            try catalog.momentRecords(page, startingAfter: Int64(before) - 1).map(moment), more: { try catalog.momentRecords($1, startingAfter: $0) },
            joined: unbroken)
        let kept = middle.filter { !replacedIDs.contains($0.localIdentifier) }
        let nowSlice = left.reversed() + (kept + new).sorted { $0.startInstant < $1.startInstant } + right
        let oldSlice = left.reversed() + middle + right
        let (clusters, _) = MomentSegmenter.lists(nowSlice)
        let (oldClusters, _) = MomentSegmenter.lists(oldSlice)
        let touchedYears = Set((new.map(\.startLocalDate) + replaced.map(\.startLocalDate)).map { String($0.prefix(4)) })
        var yearMoments: [Moment<Int64>] = new.filter { touchedYears.contains(String($0.startLocalDate.prefix(4))) }
        for y in touchedYears { yearMoments += try catalog.momentRecords(inYear: y).filter { !replacedIDs.contains($0.localIdentifier) }.map(moment) }
        let (_, years) = MomentSegmenter.lists(yearMoments.sorted { $0.startInstant < $1.startInstant })
        let listIDs = Set(oldClusters.map(\.localIdentifier) + touchedYears.map { StableIdentifier.collectionList("year:" + $0) })
        summary.moments = try catalog.momentRecordCount() - replaced.count + new.count
        return MomentBuild(
            collections: new.map { momentSpec($0, row: { $0 }) }, lists: (clusters + years).map(listSpec), replacing: replacedIDs,
            listsReplacing: listIDs, record: update(new.map(record), replacedIDs), stretches: stretches.count)
    }

    /// Albums and folders as built from the tree, with the directory each was made from (by position).
    struct FolderBuild {
        var albums: [CollectionSpec] = []
        var lists: [CollectionListSpec] = []
        var albumDirectories: [(root: String, directory: String)] = []
        var listDirectories: [(root: String, directory: String)] = []

        /// What `organize_folder` records of them (after their identifiers are settled).
        var records: [FolderRecord] {
            zip(albums, albumDirectories).map { FolderRecord(localIdentifier: $0.localIdentifier, isFolder: false, root: $1.root, directory: $1.directory) }
                + zip(lists, listDirectories).map { FolderRecord(localIdentifier: $0.localIdentifier, isFolder: true, root: $1.root, directory: $1.directory) }
        }
    }

    /// What the albums and folders of a build depend on besides the assets' paths: the mode and the Google
    /// Takeout album titles (one of which turns Takeout's year folders into no album, library-wide).
    static func folderDigest(mode: FolderAlbums.Mode, takeout: [String: String]) -> String {
        var text = mode.rawValue + "\n"
        for k in takeout.keys.sorted() { text += k + "\u{1F}" + takeout[k]! + "\n" }
        return "1:" + String(ShardAssignment.fnv1a64(text), radix: 16)
    }

    /// Builds and stores the albums and folders: in an incremental organize, those of the top-level directories
    /// the changed assets are in and were in — when the catalog records what every stored one was built from,
    /// with the titles and mode of now (`organize_folder`) — else all of them. Returns how many albums are
    /// stored, the change records written, and how many top-level directories were built (nil: all).
    static func storeFolders(_ catalog: Catalog, changes: OrganizeChanges?, mode: FolderAlbums.Mode, runID: Int64?) throws
        -> (albums: Int, records: Int, tops: Int?)
    {
        let takeout = try catalog.takeoutAlbumTitles()
        let digest = folderDigest(mode: mode, takeout: takeout)
        /// Builds and stores the albums and folders of these top-level directories and their records (nil:
        /// the whole tree); nil when an identifier built is stored for a directory elsewhere (a folder renamed,
        /// then one made under its old name): the whole tree decides who keeps it.
        func store(_ part: (tops: [TopDirectory], records: [FolderRecord])?) throws -> (albums: Int, records: Int, tops: Int?)? {
            var build = try folders(catalog, mode: mode, takeout: takeout, under: part?.tops)
            guard
                let stored = try catalog.storedFolderCollections(
                    currentAlbums: Set(build.albums.map(\.localIdentifier)), currentFolders: Set(build.lists.map(\.localIdentifier)),
                    records: part?.records)
            else { return nil }
            keepFolderIdentities(stored, albums: &build.albums, folders: &build.lists)
            let only = part.map { p in
                (Set(p.records.lazy.filter { !$0.isFolder }.map(\.localIdentifier)) as Set<String>?, Set(p.records.lazy.filter(\.isFolder).map(\.localIdentifier)) as Set<String>?)
            }
            let n = try catalog.storeCollections(
                build.albums, replacing: [.album], lists: build.lists, replacingLists: [.folder], only: only ?? (nil, nil),
                folderRecord: FolderRecordUpdate(tops: part?.tops, records: build.records, digest: digest), runID: runID)
            return (part == nil ? build.albums.count : try catalog.folderAlbumCount(), n, part?.tops.count)
        }
        if let changes, try catalog.folderRecordDigest() == digest, let tops = topDirectories(changes) {
            if tops.isEmpty { return (try catalog.folderAlbumCount(), 0, 0) }
            if let done = try store((tops, try catalog.folderRecords(in: tops))) { return done }
        }
        return try store(nil)!
    }

    /// The top-level directories the changed assets are in now and were in before (a file at a root is in
    /// no album: none); nil when one's catalog directory cannot be told from an asset's row.
    static func topDirectories(_ changes: OrganizeChanges) -> [TopDirectory]? {
        var out: [String: [String: TopDirectory]] = [:]  // root -> top -> directory
        for r in changes.before + changes.after {
            guard let relative = FolderAlbums.directory(of: r.primaryPath) else { continue }
            // The catalog directory is the root's folder and the relative one: what precedes the relative
            // directory in it, then the top-level component.
            let dir = Array(r.dir.utf8), rel = Array(relative.utf8)
            guard dir.count > rel.count, dir.suffix(rel.count).elementsEqual(rel), dir[dir.count - rel.count - 1] == UInt8(ascii: "/") else { return nil }
            let top = FolderRecord.top(of: relative)
            let catalogDirectory = String(decoding: dir.prefix(dir.count - rel.count) + Array(top.utf8), as: UTF8.self)
            if let known = out[r.root]?[top] {
                guard known.catalogDirectory == catalogDirectory else { return nil }
                continue
            }
            out[r.root, default: [:]][top] = TopDirectory(root: r.root, top: top, catalogDirectory: catalogDirectory)
        }
        return out.values.flatMap(\.values).sorted()
    }

    /// Albums and folders from the directory tree, one root at a time: the whole tree, or the top-level
    /// directories `under` (what they are built as is what a build of the whole tree gives for them:
    /// `FolderRecord`). The assets come a directory at a time (`Catalog.assetPaths`), and only that
    /// directory's paths are held: what is kept of the library is each directory's file count and its
    /// members' row ids, in path order.
    static func folders(_ catalog: Catalog, mode: FolderAlbums.Mode, takeout: [String: String], under tops: [TopDirectory]?) throws -> FolderBuild {
        var build = FolderBuild()
        var root = "", members: [String: [Int64]] = [:]
        var dir: String? = nil, run: [(path: String, id: Int64)] = []
        func flushDirectory() {
            if let dir, !run.isEmpty {
                // Sorted as Swift orders strings (canonical equivalence), as FolderAlbums.build(paths:) sorts.
                members[dir, default: []].append(contentsOf: run.sorted { $0.path < $1.path }.map(\.id))
            }
            run.removeAll(keepingCapacity: true)
        }
        func flushRoot() {
            flushDirectory()
            guard !members.isEmpty else { return }
            albums(root: root, members: members, mode: mode, takeout: takeout, into: &build)
            members = [:]
        }
        func add(_ r: String, _ path: String, _ id: Int64) {
            if r != root {
                flushRoot()
                root = r
                dir = nil
            }
            guard let d = FolderAlbums.directory(of: path) else { return }  // a file at the root: no album
            if d != dir {
                flushDirectory()
                dir = d
            }
            run.append((path, id))
        }
        if let tops {
            // A directory's assets come together (the index's order), its top-level directories in root order.
            for t in tops {
                try catalog.assetPaths(under: t) { path, id in
                    guard let d = FolderAlbums.directory(of: path), FolderRecord.top(of: d) == t.top else { return }
                    add(t.root, path, id)
                }
            }
        } else {
            try catalog.assetPaths { r, path, id in add(r, path, id) }
        }
        flushRoot()
        return build
    }

    /// A folder's album and folder are named after its path, so a folder renamed or moved (its assets keep
    /// their identifiers: docs/catalog.md, moves) would be a new album and the old one deleted, for a sync
    /// client a different album. An album whose identifier is new continues the stored album it shares most
    /// members with when those are more than half of each (greedily, largest shares first, each stored album
    /// continued once): it keeps that identifier, and its title is an update. Then folders the same way by
    /// their children (after the albums' identifiers are carried over), repeated up the tree. `stored`: the
    /// stored albums and folders the build may replace (every one, or those of the directories built).
    static func keepFolderIdentities(_ stored: StoredFolderCollections, albums: inout [CollectionSpec], folders: inout [CollectionListSpec]) {
        var renamed: [String: String] = [:]  // new identifier -> the stored one it continues
        let gone = stored.goneAlbums
        if !gone.isEmpty {
            var owner: [Int64: Int] = [:]  // asset row -> the gone album holding it (an asset is in one folder album)
            for (k, g) in gone.enumerated() { for m in g.members { owner[m] = k } }
            // Only an album whose identifier is new continues another: one stored under its own stays itself.
            let new = albums.indices.filter { !stored.albums.contains(albums[$0].localIdentifier) }
            renamed = continuations(
                new.map { (albums[$0].localIdentifier, albums[$0].members.compactMap { owner[$0] }, albums[$0].members.count) },
                previousSizes: gone.map(\.members.count), previousNames: gone.map(\.localIdentifier))
            for k in new { if let old = renamed[albums[k].localIdentifier] { albums[k].localIdentifier = old } }
        }
        var left = stored.goneFolders
        var new = folders.indices.filter { !stored.folders.contains(folders[$0].localIdentifier) }
        // Up the tree: a folder's children are carried over before the folder is matched by them.
        while !left.isEmpty && !new.isEmpty {
            for k in folders.indices { folders[k].children = folders[k].children.map { renamed[$0] ?? $0 } }
            var owner: [String: Int] = [:]
            for (k, g) in left.enumerated() { for c in g.children { owner[c] = k } }
            let found = continuations(
                new.map { (folders[$0].localIdentifier, folders[$0].children.compactMap { owner[$0] }, folders[$0].children.count) },
                previousSizes: left.map(\.children.count), previousNames: left.map(\.localIdentifier))
            if found.isEmpty { break }
            for k in new { if let old = found[folders[k].localIdentifier] { folders[k].localIdentifier = old } }
            renamed.merge(found) { a, _ in a }
            let taken = Set(found.values)
            left.removeAll { taken.contains($0.localIdentifier) }
            new.removeAll { taken.contains(folders[$0].localIdentifier) }
        }
        if !renamed.isEmpty { for k in folders.indices { folders[k].children = folders[k].children.map { renamed[$0] ?? $0 } } }
    }

    /// New identifier -> previous one: each new item (its identifier, the previous item of each of its parts
    /// that had one, its size) continues the previous item it shares the most parts with, when they are more
    /// than half of both; largest shares first, each previous item once.
    static func continuations(_ items: [(name: String, previous: [Int], size: Int)], previousSizes: [Int], previousNames: [String]) -> [String: String] {
        var pairs: [(shared: Int, item: Int, previous: Int)] = []
        for (i, item) in items.enumerated() where !item.previous.isEmpty {
            var counts: [Int: Int] = [:]
            for p in item.previous { counts[p, default: 0] += 1 }
            for (p, n) in counts where 2 * n > item.size && 2 * n > previousSizes[p] { pairs.append((n, i, p)) }
        }
        pairs.sort { ($0.shared, $1.item, $1.previous) > ($1.shared, $0.item, $0.previous) }
        var out: [String: String] = [:], taken = Set<Int>(), done = Set<Int>()
        for p in pairs where !taken.contains(p.previous) && !done.contains(p.item) {
            taken.insert(p.previous)
            done.insert(p.item)
            out[items[p.item].name] = previousNames[p.previous]
        }
        return out
    }

    /// One root's albums and folders from the directory tree; `members` are the row ids of each directory's
    /// assets (relative to the root), in path order.
    static func albums(root: String, members: [String: [Int64]], mode: FolderAlbums.Mode, takeout: [String: String], into build: inout FolderBuild) {
        var titles: [String: String] = [:]
        for (dir, t) in takeout { if let r = PathText.relative(dir, to: root) { titles[r] = t } }
        let tree = FolderAlbums.layout(directories: members.mapValues(\.count), mode: mode, takeoutTitles: titles)
        let rootName = PathText.fileName(root)
        // Identifiers qualified by the root (two roots may hold folders of the same name), each made once.
        let albumIDs = tree.albums.map { StableIdentifier.collection("album:" + root + "/" + $0.directory) }
        let folderIDs = tree.folders.map { StableIdentifier.collectionList("folder:" + root + "/" + $0.directory) }
        // Grown once to its size (appending one by one doubled the array: 4.5 MB held twice at 19k albums).
        build.albums.reserveCapacity(build.albums.count + tree.albums.count)
        build.albumDirectories.reserveCapacity(build.albums.count + tree.albums.count)
        build.lists.reserveCapacity(build.lists.count + tree.folders.count)
        build.listDirectories.reserveCapacity(build.lists.count + tree.folders.count)
        for (k, a) in tree.albums.enumerated() {
            build.albums.append(
                CollectionSpec(
                    localIdentifier: albumIDs[k], type: .album, subtype: .albumRegular, title: a.title.isEmpty ? rootName : a.title,
                    members: members[a.directory] ?? []))
            build.albumDirectories.append((root, a.directory))
        }
        for (k, f) in tree.folders.enumerated() {
            build.lists.append(
                CollectionListSpec(
                    localIdentifier: folderIDs[k], type: .folder, subtype: .regularFolder, title: f.title,
                    children: f.children.map { $0.identifier(albums: albumIDs, folders: folderIDs) }))
            build.listDirectories.append((root, f.directory))
        }
    }

    static func iso(_ t: Double) -> String { FileDate.utcText(Int(t)) + "Z" }

    // MARK: - Bursts

    /// Burst sets are recomputed a group of folders at a time: every rule but Apple's BurstUUID works inside
    /// one folder (file names and the time rule: one folder's frames), and the BurstUUID rule is followed
    /// across folders — a group takes in every folder holding an asset with a burst identifier its assets'
    /// files give (looked up among the stored identifiers, `asset.burst_identifier`: organize stores a file's
    /// identifier as its set's, and an insert stores it until organize runs), until no new folder joins. So a
    /// group's sets are exactly the sets a whole-library grouping finds for its assets.
    static let burstChunkAssets = 4000

    /// Every folder, in groups of about `burstChunkAssets` assets (memory: one group's rows and candidates).
    static func fullBursts(_ catalog: Catalog, runID: Int64?, newAssetsAfter: Int64? = nil, summary: inout Summary) throws {
        var done = Set<String>(), chunk = Set<String>(), n = 0
        var ignored = Set<String>()
        for (dir, count) in try catalog.organizeDirectories() where !done.contains(dir) {
            chunk.insert(dir)
            n += count
            if n >= burstChunkAssets {
                try bursts(catalog, dirs: chunk, followed: [], done: &done, runID: runID, newAssetsAfter: newAssetsAfter, summary: &summary, touched: &ignored)
                chunk = []
                n = 0
            }
        }
        try bursts(
            catalog, dirs: chunk.subtracting(done), followed: [], done: &done, runID: runID, newAssetsAfter: newAssetsAfter, summary: &summary,
            touched: &ignored)
    }

    /// The folders the changed assets are in now and were in before, with the burst identifiers they had.
    static func incrementalBursts(
        _ catalog: Catalog, _ changes: OrganizeChanges, runID: Int64?, newAssetsAfter: Int64? = nil, summary: inout Summary, touched: inout Set<String>
    ) throws {
        let rows = changes.before + changes.after
        var done = Set<String>()
        try bursts(
            catalog, dirs: Set(rows.map(\.dir)), followed: Set(rows.compactMap(\.burstIdentifier)), done: &done, runID: runID,
            newAssetsAfter: newAssetsAfter, summary: &summary, touched: &touched)
    }

    /// Groups the live assets of `dirs` — and of every folder sharing a burst identifier with them — into
    /// burst sets and stores each asset's burst fields.
    static func bursts(
        _ catalog: Catalog, dirs: Set<String>, followed identifiers: Set<String>, done: inout Set<String>, runID: Int64?,
        newAssetsAfter: Int64? = nil, summary: inout Summary, touched: inout Set<String>
    ) throws {
        var rows: [OrganizeRow] = []
        var followed = Set<String>()
        var frontier = dirs.subtracting(done).union(try catalog.directories(withBurstIdentifiers: identifiers).subtracting(done))
        followed.formUnion(identifiers)
        while !frontier.isEmpty {
            let found = try catalog.organizeRows(inDirectories: frontier)
            done.formUnion(frontier)
            rows += found
            let more = Set(found.compactMap(\.burstIdentifier)).subtracting(followed)
            followed.formUnion(more)
            frontier = try catalog.directories(withBurstIdentifiers: more).subtracting(done)
        }
        guard !rows.isEmpty else { return }
        let sets = burstSets(rows)
        summary.bursts += sets.count
        var updates: [Catalog.BurstUpdate] = []
        var inSet = Set<String>()
        for s in sets {
            // Why these frames are a set and why its representative is (`shoebox show` prints it).
            let reason = s.reasons.map(\.description).joined(separator: "\n")
            for m in s.members {
                inSet.insert(m)
                updates.append(.init(m, s.identifier, represents: m == s.representative, selection: s.selectionTypes[m]?.rawValue ?? 0, reason: reason))
            }
        }
        // An asset in no set has the identifier its files give (none, or a lone frame's BurstUUID), no more
        // the one of a set it has left, nor its reason.
        for r in rows
        where !inSet.contains(r.localIdentifier)
            && (r.representsBurst || r.burstSelectionTypes != 0 || r.storedBurstIdentifier != r.burstIdentifier || r.hasBurstReason)
        {
            updates.append(.init(r.localIdentifier, r.burstIdentifier, represents: false, selection: 0, reason: nil))
        }
        summary.records += try catalog.applyBursts(updates, runID: runID, newAssetsAfter: newAssetsAfter).count
        touched.formUnion(updates.map(\.localIdentifier))
    }

    /// Burst sets from the rows (folder names stored once each: many assets share one).
    static func burstSets(_ rows: [OrganizeRow]) -> [BurstSet] {
        var folderNames = StringInterner()
        let candidates = rows.map { r in
            var c = BurstCandidate(
                id: r.localIdentifier, filename: r.filename, creationDate: r.creationDate, make: r.make, model: r.model,
                appleBurstUUID: r.burstIdentifier, googleBurstID: nil, googleBurstPrimary: false, userPicked: false)
            c.folder = folderNames.intern(r.folder)
            return c
        }
        return BurstGrouper.group(candidates)
    }

    // MARK: - Places

    /// Places and local times are derived a range of capture days at a time. An asset's place comes from
    /// its own position; a date without an offset borrows one from the nearest anchor of the same camera
    /// within `PlaceInference.neighbourWindowSeconds` (3 h) of wall clock or instant, and a wall clock is
    /// within a day of its instant, so an asset's result depends only on assets of its camera at most
    /// `placeReachDays` (2) capture days away. A range of days is derived with `placeReachDays` days of
    /// neighbours on each side and stored for its own days only; an incremental run derives the days within
    /// `placeReachDays` of a changed asset, so it reads `placeInputDays` (4) days either side of it.
    static let placeReachDays = 2
    static let placeInputDays = 2 * placeReachDays
    /// With each range's memory given back after it (ResourceLimits.releaseFreeMemory), ranges of 2,500
    /// rather than 5,000 assets lowered the peak of a first ingest of 100k files from 77-84 to 70-73 MiB
    /// (three interleaved pairs; places 3.0-3.5 s either way: a range re-reads its neighbouring days, but
    /// fewer rows at once).
    static let placeChunkAssets = 2500

    /// Every dated asset, in ranges of about `chunk` assets (memory: one range and its neighbours), then the
    /// undated ones; a `chunk` of 0 makes each day a range (tests). The mark that the places step has seen an
    /// asset is set for all of them at the end (`markPlacesSeen`) where a range's store would mark the assets
    /// it wrote nothing else to: those are in date order, on pages all over the asset table (at 100k files in
    /// the benchmark tree each range's mark rewrote ~2,000 pages, the pass at the end rewrites each page once:
    /// places 2.6 -> 2.2 s; Benchmarks/README.md, session 25).
    static func fullPlaces(_ catalog: Catalog, runID: Int64?, summary: inout Summary, chunk: Int = placeChunkAssets) throws {
        var first: String?, last = "", n = 0
        func flush() throws {
            guard let f = first else { return }
            let inputs = try catalog.organizeRows(datedFrom: shiftDay(f, -placeReachDays) ?? f, before: shiftDay(last, placeReachDays + 1) ?? last + "~")
            // The range's own days: the same assets as a day filter (a day is the date's first ten characters).
            let end = shiftDay(last, 1) ?? last + "~"
            // Their identifiers only (the strings are shared with the rows): a copy of the rows was the largest
            // single allocation of organize at 100k files (3.7 MB for a range of 20k).
            let subjects = inputs.compactMap { r in r.creationDate.map { $0.local >= f && $0.local < end } == true ? r.localIdentifier : nil }
            try places(
                catalog, inputs: inputs, subjects: subjects, scope: ("creation_date >= ? AND creation_date < ?", [f, end]), markingSeen: false,
                runID: runID, summary: &summary)
            ResourceLimits.releaseFreeMemory()
            first = nil
            n = 0
        }
        // A range ends where the next day is more than `placeReachDays` days on (its neighbours read are then
        // its own assets only), or, in a library dense with days, at 4 × `placeChunkAssets` anyway.
        for (day, count) in try catalog.organizeDays() {
            if n >= chunk, n >= 4 * chunk || (shiftDay(last, placeReachDays + 1).map { $0 <= day } ?? true) { try flush() }
            if first == nil { first = day }
            last = day
            n += count
        }
        try flush()
        let undated = try catalog.organizeRows(where: "creation_date IS NULL", arguments: [])
        try places(
            catalog, inputs: undated, subjects: undated.map(\.localIdentifier), scope: ("creation_date IS NULL", []), markingSeen: false,
            runID: runID, summary: &summary)
        try catalog.markPlacesSeen()
    }

    /// The changed assets and every asset of the same camera within `placeReachDays` of one of them, before or after the change.
    static func incrementalPlaces(_ catalog: Catalog, _ changes: OrganizeChanges, runID: Int64?, summary: inout Summary) throws -> [String] {
        var cameras = StringInterner()
        var reach: [String: Set<String>] = [:]  // camera -> days whose assets are derived again
        var inputDays = Set<String>()
        // The days around each day met, worked out once per day: a renamed folder's 20,000 assets (before and
        // after) are a few days, and formatting 14 days per asset was 6 % of its run.
        var around: [String: (near: [String], input: [String])] = [:]
        for r in changes.before + changes.after {
            guard let day = r.day else { continue }
            let days =
                around[day]
                ?? {
                    let near = (-placeReachDays...placeReachDays).compactMap { shiftDay(day, $0) }
                    let d = (near: near.isEmpty ? [day] : near, input: (-placeInputDays...placeInputDays).compactMap { shiftDay(day, $0) } + [day])
                    around[day] = d
                    return d
                }()
            reach[PlaceStage.camera(r, &cameras), default: []].formUnion(days.near)
            inputDays.formUnion(days.input)
        }
        var inputs: [OrganizeRow] = []
        for (from, to) in dayRanges(inputDays) { inputs += try catalog.organizeRows(datedFrom: from, before: shiftDay(to, 1) ?? to + "~") }
        let changed = Set(changes.after.map(\.localIdentifier))
        inputs += changes.after.filter { $0.creationDate == nil }
        let subjects = inputs.compactMap { r in
            changed.contains(r.localIdentifier) || r.day.map { reach[PlaceStage.camera(r, &cameras)]?.contains($0) == true } == true
                ? r.localIdentifier : nil
        }
        return try places(catalog, inputs: inputs, subjects: subjects, runID: runID, summary: &summary)
    }

    /// Derives the places of `inputs` and stores those of `subjects`, local identifiers (which `scope`, SQL on
    /// `asset`, selects too when given: the rows are then read in one statement, not one by one; `markingSeen`
    /// as `Catalog.applyPlaces`).
    /// Returns the assets whose place columns changed (of those the places step had seen before: the others
    /// are new to organize, changed assets of an incremental one).
    @discardableResult
    static func places(
        _ catalog: Catalog, inputs: [OrganizeRow], subjects: [String], scope: (String, [String])? = nil, markingSeen: Bool = true,
        runID: Int64?, summary: inout Summary
    ) throws -> [String] {
        guard !subjects.isEmpty else { return [] }
        let keep = Set(subjects)
        let infos = PlaceStage.derive(inputs, keeping: keep.contains)
        let records = try catalog.applyPlaces(
            infos, only: scope == nil ? subjects : nil, where: scope?.0, arguments: scope?.1 ?? [], markingSeen: markingSeen, runID: runID)
        summary.records += records.count
        summary.places += infos.values.lazy.filter { $0.placeID != nil }.count
        summary.zones += infos.values.lazy.filter { $0.localDate != nil }.count
        return records.map(\.localIdentifier)
    }

    /// `YYYY-MM-DD` moved by whole days; nil when the text is not a date.
    static func shiftDay(_ day: String, _ by: Int) -> String? {
        guard day.utf8.count == 10, let t = WallClock.seconds(day + "T00:00:00") else { return nil }
        return String(WallClock.text(t + by * 86400).prefix(10))
    }

    /// Runs of consecutive days (texts that are not dates stand alone), as first and last day.
    static func dayRanges(_ days: Set<String>) -> [(String, String)] {
        var out: [(String, String)] = []
        for d in days.sorted() {
            if let last = out.last, shiftDay(last.1, 1) == d { out[out.count - 1].1 = d } else { out.append((d, d)) }
        }
        return out
    }
}

/// A value computed on a thread of its own; `value()` waits for it (and rethrows its error). Used where two
/// steps of the serial end of an ingest do not depend on each other.
final class Concurrent<T: Sendable>: @unchecked Sendable {
    private var result: Result<T, any Error>?
    private var body: (@Sendable () throws -> T)?
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> T) {
        self.body = body
        // The body (and what it captured: the catalog) is let go before `value()` returns, not when the thread
        // ends after it: an ingest's last reference to its catalog could be on this thread when the process
        // exited, and the catalog was never closed — its last commits left in the write-ahead log.
        Thread.detachNewThread { [self] in
            result = Result { try takeBody()() }
            done.signal()
        }
    }

    private func takeBody() -> @Sendable () throws -> T {
        defer { body = nil }
        return body!
    }

    /// The result, once the thread is done (every call after the first returns at once).
    func value() throws -> T {
        done.wait()
        done.signal()
        return try result!.get()
    }
}
