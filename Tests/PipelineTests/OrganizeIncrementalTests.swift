import Foundation
import GRDB
import MediaProbe
import PhotoModel
import TestSupport
import Testing

@testable import Catalog
@testable import Pipeline

/// Incremental organize (issue 17): after a change, recomputing only what the changed assets can touch
/// gives exactly the catalog a full organize gives on the same state — collection identifiers, titles,
/// dates, members, lists, each asset's burst, place and zone columns, and the history records.
@Suite(.serialized) struct OrganizeIncrementalTests {
    /// Corpus files linked into a tree (hard links: the corpus is never written), all but `except`.
    static func link(_ files: [String], into tree: URL) throws {
        let corpus = try #require(Corpus.root)
        for rel in files {
            let target = tree.appendingPathComponent(rel)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.linkItem(at: corpus.appendingPathComponent(rel), to: target)
        }
    }

    /// Copies of the generated border photos (Fixtures: `generated/places/border`) at paths in `tree`, each
    /// given its capture date (`YYYY:MM:DD HH:MM:SS`, no offset) by exiftool.
    static func placeBorderPhotos(_ photos: [(fixture: String, path: String, date: String)], in tree: URL) throws {
        let border = Corpus.fixtures.appendingPathComponent("generated/places/border")
        for (name, to, date) in photos {
            let target = tree.appendingPathComponent(to)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: border.appendingPathComponent(name), to: target)
            let r = try Subprocess.run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-AllDates=" + date, target.path])
            try #require(r.status == 0, "exiftool: \(r.stderr)")
        }
    }

    /// A copy of the generated library (Fixtures) in `s`, ingested (organized whole) into a catalog beside it:
    /// the library's path and the catalog's.
    static func ingestedLibrary(_ s: TestScratch) async throws -> (root: String, catalog: String) {
        let root = s.path("library"), path = s.path("c.sqlite")
        try FileManager.default.copyItem(atPath: Corpus.fixtures.appendingPathComponent("generated/library").path, toPath: root)
        _ = try await Self.ingest(root, try Catalog(path: path))
        return (root, path)
    }

    static func token(_ path: String) throws -> Int64 {
        Int64(try SQLiteFiles.strings(path, "SELECT ifnull(MAX(token), 0) FROM change").first ?? "") ?? 0
    }

    static func ingest(_ root: String, _ catalog: Catalog, organize: Bool = true, full: Bool = false) async throws
        -> IngestSummary
    {
        var o = IngestOptions(roots: [root], concurrency: 2)
        o.historyRetentionDays = 30
        o.organize = organize
        o.fullOrganize = full
        return try await Ingestor(options: o, catalog: catalog).run()
    }

    /// The corpus linked into a tree, ingested without organizing, and a copy of that catalog: two catalogs
    /// to organize two ways from the same state, the token before, and the copy's path.
    static func twoUnorganizedCatalogs(_ s: IngestTests.Scratch, extra: (URL) throws -> Void = { _ in }) async throws
        -> (catalog: Catalog, copy: Catalog, copyPath: String, token: Int64)
    {
        let tree = s.url.appendingPathComponent("tree")
        try Self.link(Corpus.mediaFiles(), into: tree)
        try extra(tree)
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await Self.ingest(tree.path, catalog, organize: false)
        let (copy, copyPath, token) = try Self.copy(catalog, s)
        return (catalog, copy, copyPath, token)
    }

    /// A copy of the scratch catalog beside it, its path, and the scratch catalog's token before either is
    /// organized.
    static func copy(_ catalog: Catalog, _ s: IngestTests.Scratch) throws -> (copy: Catalog, path: String, token: Int64) {
        let path = s.url.appendingPathComponent("copy-\(UUID().uuidString).sqlite").path
        try catalog.copy(to: path)
        return (try Catalog(path: path), path, try Self.token(s.catalogPath))
    }

    /// Expects two catalogs to agree on everything organize decides (`OrganizeState`) after token `t`; the
    /// first one's state.
    @discardableResult
    static func expectSameOrganizeState(_ a: String, _ b: String, after t: Int64, names: (String, String)) throws -> [String: [String]] {
        let x = try OrganizeState.read(a, after: t), y = try OrganizeState.read(b, after: t)
        for key in x.keys.sorted() {
            let u = x[key] ?? [], v = y[key] ?? []
            #expect(u == v, "\(key): \(names.0) \(u.count), \(names.1) \(v.count); first differences: \(Array(u.difference(from: v).prefix(4)))")
        }
        return x
    }

    /// Organizes the catalog incrementally, and a copy of it fully; expects the two to agree on everything
    /// organize decides. Returns the incremental summary and state.
    static func organizeBothWays(_ catalog: Catalog, _ s: IngestTests.Scratch, momentPage: Int = Organizer.momentPage) throws
        -> (Organizer.Summary, [String: [String]])
    {
        let (fullCatalog, fullPath, t) = try Self.copy(catalog, s)
        let incremental = try Organizer.run(catalog, runID: nil, full: false, momentPage: momentPage, wholeAt: nil)
        let full = try Organizer.run(fullCatalog, runID: nil, full: true)
        #expect(incremental.incremental && !full.incremental)
        let a = try Self.expectSameOrganizeState(s.catalogPath, fullPath, after: t, names: ("incremental", "full"))
        return (incremental, a)
    }

    /// An incremental organize records what it read for every asset it touched, so the next one starts from
    /// the catalog as it is: after a folder deleted, another renamed and a file added (the generated library),
    /// nothing differs from the record (`organizeChanges` is empty) and a second run organizes nothing.
    @Test func incrementalOrganizeRecordsEveryTouchedAsset() async throws {
        let s = try TestScratch("organize-record")
        let (root, path) = try await Self.ingestedLibrary(s)
        try FileManager.default.removeItem(atPath: root + "/bad")
        try FileManager.default.moveItem(atPath: root + "/camera", toPath: root + "/camera-renamed")
        try FileManager.default.copyItem(atPath: root + "/xmp/DSC_0100.JPG", toPath: root + "/iphone/copy.jpg")
        let changed = try await Self.ingest(root, try Catalog(path: path))
        #expect(changed.inserted >= 1 && changed.deleted >= 1)
        let c = try Catalog(path: path)
        let left = try #require(try c.organizeChanges())
        #expect(left.isEmpty, "not recorded: \(left.before.map(\.localIdentifier)) \(left.after.map(\.localIdentifier))")
        let again = try await Self.ingest(root, try Catalog(path: path))
        #expect(again.filesProbed == 0 && again.inserted == 0 && again.updated == 0 && again.deleted == 0)
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func incrementalOrganizeEqualsFullOrganize() async throws {
        let s = try IngestTests.Scratch()
        let tree = s.url.appendingPathComponent("tree")
        // Held back: a frame of the corpus burst and another photo of an existing day, and a whole folder
        // of other days; removed later: two files; moved later: a folder.
        let heldBack = ["osxphotos/media_types/IMG_0664.JPG", "osxphotos/media_types/IMG_4076.HEIC"]
        let all = Corpus.mediaFiles()
        try Self.link(all.filter { !heldBack.contains($0) && !$0.hasPrefix("lychee/") }, into: tree)
        let catalog = try Catalog(path: s.catalogPath)
        let first = try await Self.ingest(tree.path, catalog)
        #expect(first.organized?.incremental == false, "a first organize is full")

        // Nothing changed: organize runs incrementally over nothing and writes no history.
        let t0 = try catalog.currentToken()
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("empty"), withIntermediateDirectories: true)
        _ = try await Self.ingest(tree.path, catalog)
        #expect(try catalog.changes(since: t0).isEmpty)

        // The change: files added on an existing day and on new days, two deleted, a folder moved.
        try Self.link(heldBack + all.filter { $0.hasPrefix("lychee/") }, into: tree)
        let removed = all.filter { $0.hasPrefix("immich/") }.prefix(2)
        #expect(removed.count == 2)
        for r in removed { try FileManager.default.removeItem(at: tree.appendingPathComponent(r)) }
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("moved"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(
            at: tree.appendingPathComponent("metadata-extractor-images/jpg"), to: tree.appendingPathComponent("moved/jpg"))
        _ = try await Self.ingest(tree.path, catalog, organize: false)

        // The same state organized two ways.
        let (incremental, a) = try Self.organizeBothWays(catalog, s)
        #expect(incremental.changedAssets > 0 && incremental.changedAssets < 40, "changed: \(incremental.changedAssets)")
        #expect(!(a["history"] ?? []).isEmpty, "the change shows in the history")
        #expect(try catalog.collections(type: .moment).count > 3)

        // And again through the ingest: the next organize has nothing to recompute and stays incremental.
        let t2 = try catalog.currentToken()
        let again = try await Self.ingest(tree.path, catalog)
        #expect(again.organized == nil || again.organized?.incremental == true)
        #expect(try catalog.changes(since: t2).isEmpty)
    }

    /// The next organize compares with their record only the assets written since the last one recorded its
    /// inputs (`organize_pending`, kept by triggers on `asset`): a write of the same value is pending but no
    /// change, an organize clears what it read, and a catalog whose pending record is not trusted (from before
    /// the triggers) keeps none and is compared whole.
    @Test func writtenAssetsArePendingUntilOrganized() async throws {
        let s = try TestScratch("organize-pending")
        let (root, path) = try await Self.ingestedLibrary(s)
        let c = try Catalog(path: path)
        func pending() throws -> Int { try c.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM organize_pending") ?? -1 } }
        func changed() throws -> [Int64] { try #require(try c.organizeChanges()).assetIDs }
        #expect(try pending() == 0, "a first ingest keeps nothing pending (its organize is whole), nor does its organize leave any")
        let ids = try c.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM asset WHERE creation_date IS NOT NULL ORDER BY id LIMIT 3") }
        try #require(ids.count == 3)
        try c.write { db in
            try db.execute(sql: "UPDATE asset SET creation_date = '2001-02-03T04:05:06' WHERE id = ?", arguments: [ids[0]])
            try db.execute(sql: "UPDATE asset SET creation_date = creation_date WHERE id = ?", arguments: [ids[1]])
            try db.execute(sql: "UPDATE asset SET is_favorite = 1 WHERE id = ?", arguments: [ids[2]])
        }
        #expect(try pending() == 2)
        #expect(try changed() == [ids[0]])
        _ = try Organizer.run(c, runID: nil, full: false)
        #expect(try pending() == 0 && changed().isEmpty)

        // A write the record does not hold is hidden while it is trusted (what the flag decides)…
        try c.write { db in
            try db.execute(sql: "UPDATE asset SET creation_date = '2002-03-04T05:06:07' WHERE id = ?", arguments: [ids[1]])
            try db.execute(sql: "DELETE FROM organize_pending")
        }
        #expect(try changed().isEmpty)
        // …and found once it is not (a catalog from before the triggers), whose writes are not kept: it is
        // compared whole, and the organize after leaves the record trusted again.
        try c.setMetaValue("organize_pending", nil)
        try c.write { db in try db.execute(sql: "UPDATE asset SET creation_date = '2003-04-05T06:07:08' WHERE id = ?", arguments: [ids[0]]) }
        #expect(try pending() == 0)
        #expect(try changed() == [ids[0], ids[1]])
        _ = try Organizer.run(c, runID: nil, full: false)
        #expect(try c.metaValue("organize_pending") == "1" && pending() == 0 && changed().isEmpty)

        // An asset deleted outright (as `--prune` does): a change, and its record goes with it.
        func recorded(_ id: Int64) throws -> Bool {
            try c.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM organize_input WHERE asset_id = ?)", arguments: [id]) ?? false }
        }
        #expect(try recorded(ids[2]))
        try c.write { db in try db.execute(sql: "DELETE FROM asset WHERE id = ?", arguments: [ids[2]]) }
        #expect(try changed() == [ids[2]])
        _ = try Organizer.run(c, runID: nil, full: false)
        #expect(try !recorded(ids[2]) && pending() == 0 && changed().isEmpty)
    }

    /// Albums and folders are built again for the top-level directories the changed assets are in and were in,
    /// and the rest stay as stored: each step below (files added to an album, a subfolder making its parent a
    /// folder with an album of its own files, a new nested tree, a file at the root, a folder renamed and one
    /// deleted) gives what a full organize of the same state gives, the record of directories included; a
    /// folder made under a renamed folder's old name (whose identifier the renamed album kept) is built whole.
    @Test func foldersAreBuiltForTheirTopLevelDirectoriesOnly() async throws {
        let s = try IngestTests.Scratch()
        let root = s.url.appendingPathComponent("library").path
        try FileManager.default.copyItem(atPath: Corpus.fixtures.appendingPathComponent("generated/library").path, toPath: root)
        let catalog = try Catalog(path: s.catalogPath)
        let first = try await Self.ingest(root, catalog)
        #expect(first.organized?.folderTops == nil, "a first organize builds every album")
        func copy(_ from: String, _ to: String) throws {
            try FileManager.default.createDirectory(atPath: (root + "/" + to as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: root + "/" + from, toPath: root + "/" + to)
        }
        func step(_ name: String, tops: Int?, _ change: () throws -> Void) async throws -> [String: [String]] {
            try change()
            _ = try await Self.ingest(root, catalog, organize: false)
            let (summary, state) = try Self.organizeBothWays(catalog, s)
            #expect(summary.folderTops == tops, "\(name): built \(summary.folderTops.map(String.init) ?? "all") top-level directories")
            return state
        }
        let cameraAlbum = try #require(try catalog.collections(type: .album).first { $0.title == "camera" })

        // Files added to an album, a subfolder under it (iphone becomes a folder holding an album of its own
        // files and the subfolder's), a new nested tree.
        var state = try await step("added", tops: 2) {
            try copy("xmp/DSC_0100.JPG", "iphone/copy.jpg")
            try copy("xmp/DSC_0101.JPG", "iphone/trip/day 1/a.jpg")
            try copy("camera/DSC_0010.JPG", "new/a/b/x.jpg")
        }
        #expect((state["lists"] ?? []).contains { $0.contains("|iphone|") }, "iphone is a folder now")
        // A file at the root is in no album: nothing is built.
        _ = try await step("at the root", tops: 0) { try copy("xmp/DSC_0101.JPG", "loose.jpg") }
        // A folder renamed (its album keeps its identifier) and one deleted.
        state = try await step("renamed", tops: 3) {
            try FileManager.default.moveItem(atPath: root + "/camera", toPath: root + "/camera-renamed")
            try FileManager.default.removeItem(atPath: root + "/bad")
        }
        let renamed = try #require(try catalog.collections(type: .album).first { $0.title == "camera-renamed" })
        #expect(renamed.localIdentifier == cameraAlbum.localIdentifier)
        // A folder under the old name: its album's identifier is the renamed one's, which the whole tree settles.
        _ = try await step("old name again", tops: nil) { try copy("xmp/DSC_0100.JPG", "camera/again.jpg") }
        // And the next change is built by its top-level directory again.
        _ = try await step("after a whole build", tops: 1) { try FileManager.default.removeItem(atPath: root + "/iphone/trip/day 1/a.jpg") }
    }

    /// Moments are segmented again only over the stretches of time the changed assets can move (their times
    /// now and as recorded, 11 unchanged items either side, out to boundaries the gap or the day forces): the
    /// corpus linked four times, its assets given dates of bursts, shoots, days and long gaps (instants shared,
    /// 12-hour gaps, midnights, a few positions far apart), then rounds of re-dated, moved, trashed and
    /// restored assets — each round organized both ways gives the same catalog, the record of instants and
    /// moments included, and most rounds segment stretches, not the whole timeline. Seeded: the same every run.
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func momentsAreSegmentedWhereChangesReachOnly() async throws {
        let s = try IngestTests.Scratch()
        let tree = s.url.appendingPathComponent("tree")
        let media = Corpus.mediaFiles()
        for copy in 1...4 { try Self.link(media, into: tree.appendingPathComponent("c\(copy)")) }
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await Self.ingest(tree.path, catalog)
        var rng = SplitMix(state: 17)
        let ids = try catalog.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM asset ORDER BY id") }
        #expect(ids.count > 250)
        // Dates: events (1-8 frames, a few seconds to an hour apart) hours to days apart, some 11.5-12.5 hours,
        // some across midnight, one in eight 5 days after the one before (a new cluster); offsets given,
        // absent or odd.
        func text(_ t: Int) -> String { FileDate.utcText(t) }
        var times: [Int] = []
        var t = 1_600_000_000
        while times.count < ids.count {
            let frames = Int(rng.next() % 8) + 1
            for _ in 0..<frames {
                times.append(t)
                t += [0, 1, 2, 5, 30, 90, 400, 900, 3600][Int(rng.next() % 9)]
            }
            t += [700, 3000, 41_400, 43_200, 45_000, 86_400, 2 * 86_400, 5 * 86_400][Int(rng.next() % 8)]
        }
        func date(_ db: Database, _ id: Int64, _ t: Int) throws {
            let offset: Int? = [nil, 0, 3600, -18_000, 19_800][Int(rng.next() % 5)]
            try db.execute(sql: "UPDATE asset SET creation_date = ?, creation_offset = ? WHERE id = ?", arguments: [text(t), offset, id])
        }
        try catalog.write { db in
            for (k, id) in ids.enumerated() {
                try date(db, id, times[k])
                // Positions: most none, a few in two places 300 km apart.
                let place = rng.next() % 10
                let (lat, lon): (Double?, Double?) = place < 7 ? (nil, nil) : place < 9 ? (38.72, -9.14) : (41.15, -8.61)
                try db.execute(sql: "UPDATE asset SET latitude = ?, longitude = ? WHERE id = ?", arguments: [lat, lon, id])
            }
        }
        _ = try Organizer.run(catalog, runID: nil, full: true)

        var stretched = 0
        for round in 0..<14 {
            try catalog.write { db in
                for _ in 0...(rng.next() % 3) {
                    let id = ids[Int(rng.next() % UInt64(ids.count))]
                    switch rng.next() % 8 {
                    case 0, 1:  // beside another asset's time
                        try date(db, id, times[Int(rng.next() % UInt64(times.count))] + Int(rng.next() % 7) - 3)
                    case 2:  // anywhere
                        try date(db, id, 1_590_000_000 + Int(rng.next() % 80_000_000))
                    case 3:  // moved
                        try db.execute(sql: "UPDATE asset SET latitude = 52.52, longitude = 13.40 WHERE id = ?", arguments: [id])
                    case 4:  // trashed
                        try db.execute(sql: "UPDATE asset SET trashed_at = '2026-01-01T00:00:00Z' WHERE id = ?", arguments: [id])
                    case 6:  // its folder renamed, or it moved into another's (a camera-less asset's zone is borrowed within its folder)
                        func folder(_ id: Int64) throws -> (dir: String, parent: String)? {
                            guard let r = try Row.fetchOne(db, sql: "SELECT dir, primary_path FROM asset WHERE id = ?", arguments: [id]) else { return nil }
                            let path: String = r[1]
                            return path.lastIndex(of: "/").map { (r[0], String(path[..<$0])) }
                        }
                        guard let from = try folder(id) else { break }
                        if rng.next() % 2 == 0 {
                            try db.execute(
                                sql: "UPDATE asset SET dir = ?, primary_path = ? || '/' || filename WHERE dir = ?",
                                arguments: [from.dir + "-r\(round)", from.parent + "-r\(round)", from.dir])
                        } else if let to = try folder(ids[Int(rng.next() % UInt64(ids.count))]) {
                            try db.execute(
                                sql: "UPDATE asset SET dir = ?, primary_path = ? || '/' || filename WHERE id = ?", arguments: [to.dir, to.parent, id])
                        }
                    case 7:  // another camera
                        try db.execute(sql: "UPDATE asset SET make = 'Shoebox', model = 'T' || (id % 3) WHERE id = ?", arguments: [id])
                    default:  // restored, or undated
                        if rng.next() % 2 == 0 {
                            try db.execute(sql: "UPDATE asset SET trashed_at = NULL WHERE trashed_at IS NOT NULL")
                        } else {
                            try db.execute(sql: "UPDATE asset SET creation_date = NULL, creation_offset = NULL WHERE id = ?", arguments: [id])
                        }
                    }
                }
            }
            // Reading 2 items or moments at first on each side (then 8, 32…) in half the rounds.
            let (summary, _) = try Self.organizeBothWays(catalog, s, momentPage: round % 2 == 0 ? 2 : Organizer.momentPage)
            if let n = summary.momentStretches { stretched += n > 0 ? 1 : 0 }
            #expect(summary.incremental, "round \(round)")
        }
        #expect(stretched >= 7, "rounds segmenting stretches rather than the whole: \(stretched)")
    }

    /// A date without an offset borrows its zone from the same camera up to 3 hours away, across midnight
    /// and across folders: removing the anchor late on one day changes a photo of the next day, which the
    /// incremental organize must derive again (it reaches 2 days either side of a changed asset).
    @Test(.needsGazetteerAndExiftool)
    func placesReachTheNextDay() async throws {
        try #require(PlaceStage.missingNote == nil, "\(PlaceStage.missingNote ?? "")")
        let s = try IngestTests.Scratch()
        let tree = s.url.appendingPathComponent("tree")
        try Self.placeBorderPhotos(
            [
                ("elvas.jpg", "a/anchor.jpg", "2023:07:01 23:30:00"),
                ("elvas-nogps.jpg", "b/after-midnight.jpg", "2023:07:02 00:50:00"),
                ("badajoz.jpg", "c/other.jpg", "2023:07:05 10:00:00"),
            ], in: tree)
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await Self.ingest(tree.path, catalog)
        let borrowed = try #require(try catalog.findAsset("b/after-midnight.jpg"))
        #expect(try catalog.placeInfo(borrowed.localIdentifier)?.localDate?.description == "2023-07-02T00:50:00+01:00")

        try FileManager.default.removeItem(at: tree.appendingPathComponent("a/anchor.jpg"))
        _ = try await Self.ingest(tree.path, catalog, organize: false)
        let (incremental, _) = try Self.organizeBothWays(catalog, s)
        #expect(incremental.changedAssets == 1)
        #expect(try catalog.placeInfo(borrowed.localIdentifier)?.localDate == nil, "nothing to borrow from any more")
    }

    /// An organize stopped half-way (here by an error after the places step; a second Ctrl-C or a kill alike)
    /// has changed a neighbour's zone and not its moment: the next organize cannot tell that from the record,
    /// so it is full, and the catalog is what a full organize of the same state gives. (Incremental, it left
    /// the neighbour's moment starting at its old instant.)
    @Test(.needsGazetteerAndExiftool)
    func anOrganizeStoppedHalfWayIsFollowedByAFullOne() async throws {
        try #require(PlaceStage.missingNote == nil, "\(PlaceStage.missingNote ?? "")")
        struct Stopped: Error {}
        let s = try IngestTests.Scratch()
        let tree = s.url.appendingPathComponent("tree")
        try Self.placeBorderPhotos(
            [
                ("elvas.jpg", "a/anchor.jpg", "2023:07:01 23:30:00"), ("elvas-nogps.jpg", "b/after-midnight.jpg", "2023:07:02 00:50:00"),
                ("badajoz.jpg", "c/other.jpg", "2023:07:05 10:00:00"),
                ("elvas.jpg", "e/june.jpg", "2023:06:01 10:00:00"),
            ] + (1...9).map { ("badajoz.jpg", "d/\($0).jpg", "2023:07:\(String(format: "%02d", 5 + $0)) 10:00:00") }, in: tree)
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await Self.ingest(tree.path, catalog)
        try FileManager.default.removeItem(at: tree.appendingPathComponent("a/anchor.jpg"))
        _ = try await Self.ingest(tree.path, catalog, organize: false)
        #expect(throws: Stopped.self) {
            try Organizer.run(catalog, runID: nil, full: false, wholeAt: nil, afterStep: { if $0 == "places" { throw Stopped() } })
        }
        let borrowed = try #require(try catalog.findAsset("b/after-midnight.jpg"))
        #expect(try catalog.placeInfo(borrowed.localIdentifier)?.localDate == nil, "the places step was done")

        // The next ingest, though no file changed, organizes (whole).
        let (fullCatalog, fullPath, t) = try Self.copy(catalog, s)
        let next = try await Self.ingest(tree.path, catalog)
        _ = try Organizer.run(fullCatalog, runID: nil, full: true)
        #expect(next.organized?.incremental == false)
        #expect(next.notes.contains("organized the library whole: the last organize stopped half-way"), "\(next.notes)")
        try Self.expectSameOrganizeState(s.catalogPath, fullPath, after: t, names: ("after the stop", "full"))
    }

    /// A `shoebox change` of a date, a position or Recently Deleted between ingests writes the asset, not its
    /// moment: the next ingest organizes it though no file changed (before, the asset stayed in its old moment
    /// until a file changed somewhere).
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func aChangeBetweenIngestsIsOrganizedByTheNextOne() async throws {
        let s = try IngestTests.Scratch()
        let tree = s.url.appendingPathComponent("tree")
        try Self.link(Corpus.mediaFiles().filter { $0.hasPrefix("osxphotos/") }, into: tree)
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await Self.ingest(tree.path, catalog)
        let dated = try catalog.read { db in
            try String.fetchAll(db, sql: "SELECT local_identifier FROM asset WHERE creation_date IS NOT NULL ORDER BY local_identifier LIMIT 3")
        }
        try #require(dated.count == 3)
        _ = try catalog.perform(
            ChangeSet(changes: [
                Change(op: .setCreationDate, asset: dated[0], date: "2001-01-01T12:00:00+00:00"),
                Change(op: .setLocation, asset: dated[1], latitude: 52.52, longitude: 13.40), Change(op: .delete, asset: dated[2]),
            ]))
        let (fullCatalog, fullPath, t) = try Self.copy(catalog, s)
        let next = try await Self.ingest(tree.path, catalog)
        _ = try Organizer.run(fullCatalog, runID: nil, full: true)
        #expect(next.filesProbed == 0 && next.organized?.incremental == true && next.organized?.changedAssets == 3)
        #expect(next.notes.contains("organized 3 assets changed in the catalog since the last organize (shoebox change)"), "\(next.notes)")
        try Self.expectSameOrganizeState(s.catalogPath, fullPath, after: t, names: ("the next ingest", "full"))
        let lid = try #require(try catalog.moments().first { $0.members.contains(dated[0]) }?.localIdentifier)
        let moment = try #require(try catalog.collections(type: .moment).first { $0.localIdentifier == lid })
        #expect(moment.startDate?.hasPrefix("2001-01-01") == true, "\(moment.startDate ?? "")")
        let again = try await Self.ingest(tree.path, catalog)
        #expect(again.organized == nil, "nothing left to organize")
    }

    /// The places step reads an asset's name, date, position and camera — the folder only for a file without
    /// a camera, whose date borrows a zone within its folder. A renamed folder's photos with a camera are no
    /// subjects of it (nor is anything they could lend to); a camera-less one moved to another folder is, and
    /// loses the zone its old folder lent it.
    @Test(.needsGazetteerAndExiftool)
    func aRenamedFolderChangesNoPlaceButAFileWithoutCameraMovedDoes() async throws {
        try #require(PlaceStage.missingNote == nil, "\(PlaceStage.missingNote ?? "")")
        let s = try IngestTests.Scratch()
        let tree = s.url.appendingPathComponent("tree")
        try Self.placeBorderPhotos(
            [
                ("elvas.jpg", "trip/anchor.jpg", "2023:07:01 23:30:00"), ("elvas-nogps.jpg", "trip/borrow.jpg", "2023:07:02 00:50:00"),
                ("elvas.jpg", "scans/anchor.jpg", "2023:07:01 23:00:00"), ("elvas-nogps.jpg", "scans/borrow.jpg", "2023:07:02 00:40:00"),
            ], in: tree)
        for f in ["scans/anchor.jpg", "scans/borrow.jpg"] {
            let r = try Subprocess.run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-Make=", "-Model=", tree.appendingPathComponent(f).path])
            try #require(r.status == 0, "exiftool: \(r.stderr)")
        }
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await Self.ingest(tree.path, catalog)
        func localDate(_ path: String) throws -> String? {
            try catalog.placeInfo(try #require(try catalog.findAsset(path)).localIdentifier)?.localDate?.description
        }
        #expect(try localDate("trip/borrow.jpg") == "2023-07-02T00:50:00+01:00")
        #expect(try localDate("scans/borrow.jpg") == "2023-07-02T00:40:00+01:00")

        for (from, to) in [("trip", "trip 2023"), ("scans", "scans-old")] {
            try FileManager.default.moveItem(at: tree.appendingPathComponent(from), to: tree.appendingPathComponent(to))
        }
        _ = try await Self.ingest(tree.path, catalog, organize: false)
        let (renamed, _) = try Self.organizeBothWays(catalog, s)
        #expect(renamed.changedAssets == 4)
        #expect(renamed.places == 1 && renamed.zones == 2, "derived again: the camera-less pair only (\(renamed.places), \(renamed.zones))")
        #expect(renamed.momentStretches == 0, "no moment item changed")
        #expect(try localDate("scans-old/borrow.jpg") == "2023-07-02T00:40:00+01:00")

        try FileManager.default.moveItem(
            at: tree.appendingPathComponent("scans-old/borrow.jpg"), to: tree.appendingPathComponent("trip 2023/scan.jpg"))
        _ = try await Self.ingest(tree.path, catalog, organize: false)
        let (moved, _) = try Self.organizeBothWays(catalog, s)
        #expect(moved.changedAssets == 1)
        #expect(try localDate("trip 2023/scan.jpg") == nil, "no camera-less photo to borrow from in its new folder")

        // Through an ingest, half the library changed or more is organized whole.
        try FileManager.default.moveItem(at: tree.appendingPathComponent("trip 2023"), to: tree.appendingPathComponent("trip"))
        let whole = try await Self.ingest(tree.path, catalog)
        #expect(whole.organized?.incremental == false, "3 of 4 assets changed")
    }

    /// Apple's BurstUUID groups frames across folders: when the representative goes, the frame that takes
    /// over is in another folder, which the incremental organize reaches by following the identifier.
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func burstAcrossFoldersFollowsItsIdentifier() async throws {
        let s = try IngestTests.Scratch()
        let tree = s.url.appendingPathComponent("tree")
        let frames = ["IMG_0658", "IMG_0664", "IMG_0667", "IMG_0675"].map { "osxphotos/media_types/\($0).JPG" }
        try Self.link([frames[0], frames[2], frames[3]], into: tree)
        try Self.link([frames[1]], into: tree.appendingPathComponent("other"))
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await Self.ingest(tree.path, catalog)
        let moved = try #require(try catalog.findAsset("other/" + frames[1]))
        #expect(moved.asset.burstIdentifier == "D4E4B3D1-0E45-4987-BE12-76D604E25D2C" && !moved.asset.representsBurst)

        try FileManager.default.removeItem(at: tree.appendingPathComponent(frames[0]))
        _ = try await Self.ingest(tree.path, catalog, organize: false)
        let (incremental, _) = try Self.organizeBothWays(catalog, s)
        #expect(incremental.changedAssets == 1)
        #expect(
            try catalog.findAsset("other/" + frames[1])?.asset.representsBurst == true,
            "the earliest frame left represents the burst")
    }

    /// The moment step sizes its array from the count `momentInputs` announces first: a bound on the rows it
    /// then delivers (every asset), which are the dated live assets (a trashed one left out), in row order,
    /// each with its place in local identifier order.
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func momentInputsAnnounceABoundAndDeliverPositionsInIdentifierOrder() async throws {
        let s = try IngestTests.Scratch()
        let tree = s.url.appendingPathComponent("tree")
        let files = Corpus.mediaFiles().filter { $0.hasPrefix("osxphotos/media_types/") }.prefix(12)
        try Self.link(Array(files), into: tree)
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await Self.ingest(tree.path, catalog)
        try FileManager.default.removeItem(at: tree.appendingPathComponent(files.first!))
        _ = try await Self.ingest(tree.path, catalog)
        let dated = try SQLiteFiles.strings(
            s.catalogPath, "SELECT id FROM asset WHERE trashed_at IS NULL AND coalesce(local_date, creation_date) IS NOT NULL ORDER BY id")
        let byIdentifier = try SQLiteFiles.strings(s.catalogPath, "SELECT id FROM asset ORDER BY local_identifier")
        #expect(
            dated.count >= 5 && byIdentifier.count > dated.count,
            "the tree has dated assets, and a trashed one (\(byIdentifier.count) assets, \(dated.count) dated and live)")
        var announced: [Int] = [], delivered: [(row: Int64, position: Int)] = []
        let order = try catalog.momentInputs(expecting: { announced.append($0) }) { row, position, _, _, _, _ in delivered.append((row, position)) }
        #expect(announced == [byIdentifier.count])
        #expect(delivered.map { String($0.row) } == dated, "the dated live assets, in row order")
        #expect(delivered.allSatisfy { byIdentifier[$0.position] == String($0.row) }, "each at its place in identifier order")
        #expect(order.rows.map(String.init) == byIdentifier)
        #expect(byIdentifier.allSatisfy { order.position(ofRow: Int64($0)!).map { byIdentifier[$0] } == $0 })
        #expect(order.position(ofRow: -5) == nil && order.position(ofRow: Int64.max) == nil)
    }

    /// Copies of one photo (one instant) in eight folders: their rows follow the walk, their random local
    /// identifiers do not, and the moment lists them in identifier order — what the moment step's positions
    /// (`AssetOrder`) stand for. It fails when ties keep row order, or a position is mapped back to the wrong row.
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func assetsOfOneInstantAreMomentMembersInIdentifierOrder() async throws {
        let s = try IngestTests.Scratch()
        let tree = s.url.appendingPathComponent("tree")
        let photo = "osxphotos/media_types/IMG_0658.JPG"
        let corpus = try #require(Corpus.root)
        for k in 1...8 {
            let dir = tree.appendingPathComponent("card\(k)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try FileManager.default.linkItem(at: corpus.appendingPathComponent(photo), to: dir.appendingPathComponent("IMG_0658.JPG"))
        }
        try Self.link(["osxphotos/media_types/IMG_0664.JPG", "osxphotos/media_types/IMG_0667.JPG"], into: tree)
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await Self.ingest(tree.path, catalog)
        let copies = try SQLiteFiles.strings(
            s.catalogPath, "SELECT local_identifier FROM asset WHERE primary_path LIKE 'card%' ORDER BY id")
        try #require(copies.count == 8)
        // The moment's members that are copies, in the moment's order.
        let members = try SQLiteFiles.strings(
            s.catalogPath,
            """
            SELECT a.local_identifier FROM collection c JOIN collection_membership m ON m.collection_id = c.id
            JOIN asset a ON a.id = m.asset_id WHERE c.type = 3 AND a.primary_path LIKE 'card%' ORDER BY c.start_date, m.position
            """)
        #expect(members == copies.sorted(), "rows in walk order \(copies)")
        // A full organize of the same catalog keeps every moment as it is.
        let before = try SQLiteFiles.strings(
            s.catalogPath, "SELECT c.local_identifier || ' ' || m.position || ' ' || m.asset_id FROM collection c JOIN collection_membership m ON m.collection_id = c.id WHERE c.type = 3 ORDER BY 1")
        _ = try Organizer.run(catalog, runID: nil, full: true)
        #expect(
            try SQLiteFiles.strings(
                s.catalogPath, "SELECT c.local_identifier || ' ' || m.position || ' ' || m.asset_id FROM collection c JOIN collection_membership m ON m.collection_id = c.id WHERE c.type = 3 ORDER BY 1")
                == before)
    }

    /// The places step derives a range of days at a time, with its neighbouring days as inputs: the ranges'
    /// size changes nothing stored. Ranges as small as they get (a day each) and one range of everything
    /// give the same place, zone and local date columns and history records, on the corpus and a photo
    /// that borrows its zone across midnight (it fails when a range reads its own days only).
    @Test(
        .enabled(
            if: Corpus.isAvailable && GazetteerFile.isAvailable && FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool"),
            "needs the corpus, the gazetteer and exiftool"))
    func placeRangesOfAnySizeStoreTheSame() async throws {
        try #require(PlaceStage.missingNote == nil, "\(PlaceStage.missingNote ?? "")")
        let s = try IngestTests.Scratch()
        let (catalog, whole, wholePath, t) = try await Self.twoUnorganizedCatalogs(s) { tree in
            try Self.placeBorderPhotos(
                [("elvas.jpg", "x/anchor.jpg", "2023:07:01 23:30:00"), ("elvas-nogps.jpg", "y/after-midnight.jpg", "2023:07:02 00:50:00")], in: tree)
        }
        var small = Organizer.Summary(), one = Organizer.Summary()
        try Organizer.fullPlaces(catalog, runID: nil, summary: &small, chunk: 0)
        try Organizer.fullPlaces(whole, runID: nil, summary: &one, chunk: 1 << 30)
        let borrowed = try #require(try catalog.findAsset("y/after-midnight.jpg"))
        #expect(try catalog.placeInfo(borrowed.localIdentifier)?.localDate?.description == "2023-07-02T00:50:00+01:00")
        #expect(small.places == one.places && small.zones == one.zones && small.records == one.records)
        #expect(one.places > 0 && one.zones > 0, "the corpus has assets with places and zones (\(one.places), \(one.zones))")
        try Self.expectSameOrganizeState(s.catalogPath, wholePath, after: t, names: ("a range a day", "one range"))
    }

    /// A full organize marks the assets the places step saw but wrote nothing else to in one pass at the end
    /// (`Catalog.markPlacesSeen`), not range by range: a range stored without the marks leaves exactly those
    /// assets unmarked, none is left after the whole step, and the state is that of every asset written one by
    /// one with its mark.
    @Test(.enabled(if: Corpus.isAvailable && GazetteerFile.isAvailable, "needs the corpus and the gazetteer"))
    func seenMarksAtTheEndStoreTheSame() async throws {
        try #require(PlaceStage.missingNote == nil, "\(PlaceStage.missingNote ?? "")")
        let s = try IngestTests.Scratch()
        let (catalog, single, singlePath, t) = try await Self.twoUnorganizedCatalogs(s)
        func unmarked(_ path: String, _ more: String = "") throws -> Int {
            Int(try SQLiteFiles.strings(path, "SELECT COUNT(*) FROM asset WHERE trashed_at IS NULL AND places_derived = 0" + more).first ?? "") ?? -1
        }
        let rows = try catalog.organizeRows(where: "1", arguments: [])
        let infos = PlaceStage.derive(rows)
        #expect(try unmarked(s.catalogPath) == rows.count)
        try catalog.applyPlaces(infos, where: "creation_date IS NOT NULL", markingSeen: false, runID: nil)
        let left = try unmarked(s.catalogPath)
        #expect(left > 0 && left < rows.count, "some assets have a place or zone, some not (\(left) of \(rows.count) unmarked)")
        #expect(try unmarked(s.catalogPath, " AND creation_date IS NOT NULL AND (place_id IS NOT NULL OR local_date IS NOT NULL OR zone_reason IS NOT NULL)") == 0)
        var summary = Organizer.Summary(), one = Organizer.Summary()
        try Organizer.fullPlaces(catalog, runID: nil, summary: &summary)
        #expect(try unmarked(s.catalogPath) == 0)
        try Organizer.places(single, inputs: rows, subjects: rows.map(\.localIdentifier), runID: nil, summary: &one)
        #expect(try unmarked(singlePath) == 0)
        try Self.expectSameOrganizeState(s.catalogPath, singlePath, after: t, names: ("marked at the end", "one by one"))
    }

    /// In a large library bursts and albums are done before places rather than beside it
    /// (`Organizer.besidePlacesAssets`, for memory): the order changes nothing organize stores.
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func burstsAndAlbumsBeforePlacesStoreTheSame() async throws {
        let s = try IngestTests.Scratch()
        let (catalog, before, beforePath, t) = try await Self.twoUnorganizedCatalogs(s)
        let beside = try Organizer.run(catalog, runID: nil, full: true)
        let first = try Organizer.run(before, runID: nil, full: true, besidePlacesBelow: 0)
        #expect(first.steps.map(\.name).contains("bursts+albums") && !beside.steps.map(\.name).contains("bursts+albums"))
        #expect(beside.bursts == first.bursts && beside.albums == first.albums && beside.moments == first.moments)
        #expect(beside.records == first.records && beside.places == first.places)
        #expect(beside.bursts > 0 && beside.albums > 0, "the corpus has bursts and albums (\(beside.bursts), \(beside.albums))")
        let state = try Self.expectSameOrganizeState(s.catalogPath, beforePath, after: t, names: ("beside", "before"))
        #expect(!state.isEmpty)
    }
}

extension Testing.Trait where Self == ConditionTrait {
    /// The border photos (`placeBorderPhotos`) dated by exiftool and placed by the gazetteer.
    static var needsGazetteerAndExiftool: Self {
        .enabled(if: GazetteerFile.isAvailable && FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool"), "needs the gazetteer and exiftool")
    }
}
