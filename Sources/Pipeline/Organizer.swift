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
        /// Assets with a place name, and dates given a local time by their zone.
        public var places = 0
        public var zones = 0
    }

    public static func run(
        _ catalog: Catalog, runID: Int64?, folderAlbums: FolderAlbums.Mode = .leafAlbums, userSmartAlbums: [SmartAlbumDefinition] = []
    ) throws -> Summary {
        var summary = Summary()
        let rows = try catalog.organizeRows()

        // Bursts. The candidates live only here: freed before places and moments make their own lists.
        let sets = burstSets(rows)
        summary.bursts = sets.count
        var updates: [(localIdentifier: String, burstIdentifier: String?, represents: Bool, selection: UInt)] = []
        var inSet = Set<String>()
        for s in sets {
            for m in s.members {
                inSet.insert(m)
                updates.append((m, s.identifier, m == s.representative, s.selectionTypes[m]?.rawValue ?? 0))
            }
        }
        for r in rows where !inSet.contains(r.localIdentifier) && (r.representsBurst || r.burstSelectionTypes != 0) {
            updates.append((r.localIdentifier, r.burstIdentifier, false, 0))
        }
        summary.records += try catalog.applyBursts(updates, runID: runID).count

        // Places and local times (docs/places.md), then moments, clusters and years on local days.
        let places = try PlaceStage.run(catalog, rows: rows, runID: runID)
        summary.records += places.records
        summary.places = places.infos.values.filter { $0.placeID != nil }.count
        summary.zones = places.infos.values.filter { $0.localDate != nil }.count
        let items: [MomentItem] = rows.compactMap { r in
            let info = places.infos[r.localIdentifier]
            guard let d = info?.localDate ?? r.creationDate, let t = Classifier.epochSeconds(d.local) else { return nil }
            return MomentItem(
                id: r.localIdentifier, instant: Double(t - (d.offsetSeconds ?? 0)), localDate: String(d.local.prefix(10)),
                latitude: r.latitude, longitude: r.longitude, place: info?.placeName)
        }
        let previous = try catalog.moments().map { PreviousMoment(localIdentifier: $0.localIdentifier, members: $0.members) }
        let result = MomentSegmenter.segment(items, previous: previous)
        summary.moments = result.moments.count
        var collections = result.moments.map { m in
            CollectionSpec(
                localIdentifier: m.localIdentifier, type: .moment, subtype: AssetCollectionSubtype(rawValue: 0), title: m.title,
                startDate: iso(m.startInstant), endDate: iso(m.endInstant), latitude: m.approximateLocation?.latitude,
                longitude: m.approximateLocation?.longitude, members: m.members)
        }
        var lists = (result.clusters + result.years).map { l in
            CollectionListSpec(
                localIdentifier: l.localIdentifier, type: .momentList, subtype: l.subtype, title: l.title, startDate: iso(l.startInstant),
                endDate: iso(l.endInstant), children: l.moments)
        }

        // Albums and folders from the directory tree, per root.
        let takeout = try catalog.takeoutAlbumTitles()
        var byRoot: [String: [Int]] = [:]  // row indices, not copies of the rows
        for (i, r) in rows.enumerated() { byRoot[r.root, default: []].append(i) }
        for (root, indices) in byRoot.sorted(by: { $0.key < $1.key }) {
            var idByPath: [String: String] = [:]
            idByPath.reserveCapacity(indices.count)
            for i in indices { idByPath[rows[i].primaryPath] = rows[i].localIdentifier }
            let prefix = root.hasSuffix("/") ? root : root + "/"
            var titles: [String: String] = [:]
            for (dir, t) in takeout where dir.hasPrefix(prefix) { titles[String(dir.dropFirst(prefix.count))] = t }
            let (albums, folders) = FolderAlbums.build(paths: indices.map { rows[$0].primaryPath }, mode: folderAlbums, takeoutTitles: titles)
            let rootName = root.split(separator: "/").last.map(String.init) ?? root
            // Identifiers qualified by the root (two roots may hold folders of the same name); the children
            // FolderAlbums lists use its own identifiers, so translate them.
            var qualified: [String: String] = [:]
            for a in albums { qualified[a.localIdentifier] = StableIdentifier.collection("album:" + root + "/" + a.directory) }
            for f in folders { qualified[f.localIdentifier] = StableIdentifier.collectionList("folder:" + root + "/" + f.directory) }
            for a in albums {
                collections.append(
                    CollectionSpec(
                        localIdentifier: StableIdentifier.collection("album:" + root + "/" + a.directory), type: .album, subtype: a.subtype,
                        title: a.title.isEmpty ? rootName : a.title, members: a.members.compactMap { idByPath[$0] }))
            }
            for f in folders {
                lists.append(
                    CollectionListSpec(
                        localIdentifier: StableIdentifier.collectionList("folder:" + root + "/" + f.directory), type: .folder, subtype: f.subtype,
                        title: f.title, children: f.children.map { qualified[$0] ?? $0 }))
            }
        }
        summary.albums = collections.filter { $0.type == .album }.count

        // Smart albums: definitions only; membership is computed when read.
        for d in SmartAlbums.builtIn + userSmartAlbums {
            collections.append(
                CollectionSpec(
                    localIdentifier: d.localIdentifier, type: .smartAlbum, subtype: d.subtype, title: d.title,
                    predicate: ([d.predicate] + d.arguments).joined(separator: "\u{1F}")))
        }
        summary.records += try catalog.storeCollections(
            collections, replacing: [.moment, .album, .smartAlbum], lists: lists, replacingLists: [.momentList, .folder], runID: runID
        ).count
        return summary
    }

    static func iso(_ t: Double) -> String { FileDate.utcText(Int(t)) + "Z" }

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
}
