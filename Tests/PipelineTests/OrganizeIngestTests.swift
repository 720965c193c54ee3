import Catalog
import Foundation
import GRDB
import PhotoModel
import Testing
import TestSupport

@testable import Pipeline

/// The organize stage through a real catalog: the corpus burst as Apple's database has it, smart-album
/// counts against a table computed by hand from assets.json, and stable collection identifiers.
@Suite(.serialized) struct OrganizeIngestTests {
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func corpusBurstAndSmartAlbums() async throws {
        let root = try #require(Corpus.root).path
        let s = try IngestTests.Scratch()
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await IngestTests.ingest([root], catalog)

        // The burst: same identifier, same members, Apple's representative (the key frame, IMG_0658).
        let burst = try catalog.fetchAssets(burstIdentifier: "D4E4B3D1-0E45-4987-BE12-76D604E25D2C")
        var frames: [StoredAsset] = []
        try burst.enumerate { _, a in frames.append(a) }
        #expect(frames.map(\.asset.id) == ["IMG_0658", "IMG_0664", "IMG_0667", "IMG_0675"].map { "osxphotos/media_types/\($0).JPG" })
        #expect(frames.map(\.asset.representsBurst) == [true, false, false, false])
        #expect(frames[0].asset.burstSelectionTypes == .autoPick)
        // A default fetch shows only the representative, as PhotoKit does.
        var o = FetchOptions()
        o.predicateSQL = "a.burst_identifier IS NOT NULL"
        #expect(try catalog.fetchAssets(o).count == 1)
        o.includeAllBurstAssets = true
        #expect(try catalog.fetchAssets(o).count == 4)

        // Smart albums, counted now, against assets.json by hand.
        let truth = try GroundTruth.load().assets
        func n(_ keep: ([String: Any]) -> Bool) -> Int { truth.filter(keep).count }
        func sub(_ s: String) -> ([String: Any]) -> Bool { { ($0["mediaSubtypes"] as? [String] ?? []).contains(s) } }
        func trait(_ s: String) -> ([String: Any]) -> Bool { { ($0["traits"] as? [String] ?? []).contains(s) } }
        let hiddenBurstFrames = n { $0["burstIdentifier"] is String } - 1
        let expected: [String: Int] = [
            "Panoramas": n(sub("photoPanorama")), "Videos": n { $0["mediaType"] as? String == "video" },
            "Time-lapse": n(sub("videoTimelapse")), "Bursts": 1, "Slo-mo": n(sub("videoHighFrameRate")),
            "Selfies": n(trait("selfie")), "Screenshots": n(sub("photoScreenshot")), "Portrait": n(sub("photoDepthEffect")),
            "Live Photos": n(sub("photoLive")), "Animated": n(trait("animated")), "RAW": n(trait("raw")), "Spatial": n(sub("spatialMedia")),
            "Recents": truth.count - hiddenBurstFrames, "Recently Added": truth.count - hiddenBurstFrames,
            "Favorites": 0, "Hidden": 0, "Recently Deleted": 0, "Cinematic": 0, "Screen Recordings": 0, "Long Exposure": 0,
        ]
        let albums = try catalog.collections(type: .smartAlbum)
        #expect(albums.count == 20)
        for a in albums {
            #expect(a.count == expected[a.title], "\(a.title): \(a.count), by hand \(expected[a.title] ?? -1)")
        }
        print("smart albums: " + albums.map { "\($0.title) \($0.count)" }.joined(separator: ", "))
        // Albums from the directory tree: one per leaf folder with media.
        let folderAlbums = try catalog.collections(type: .album)
        #expect(folderAlbums.contains { $0.title == "media_types" && $0.count == 11 }, "albums: \(folderAlbums.map { "\($0.title) \($0.count)" })")
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func addingOnePhotoChangesOnlyItsMoment() async throws {
        let corpus = try #require(Corpus.root)
        let s = try IngestTests.Scratch()
        let tree = s.url.appendingPathComponent("photos")
        try FileManager.default.copyItem(at: corpus.appendingPathComponent("osxphotos/media_types"), to: tree)
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await IngestTests.ingest([tree.path], catalog)
        let before = try catalog.collections(type: .moment)
        #expect(before.count >= 3)

        // A second ingest of the same tree keeps every collection identifier and writes no history.
        let t0 = try catalog.currentToken()
        _ = try await IngestTests.ingest([tree.path], catalog)
        #expect(try catalog.collections(type: .moment).map(\.localIdentifier) == before.map(\.localIdentifier))
        #expect(try catalog.changes(since: t0).isEmpty)

        // A copy of one burst frame under a new name lands in the burst's moment (same capture time).
        try FileManager.default.copyItem(at: tree.appendingPathComponent("IMG_0675.JPG"), to: tree.appendingPathComponent("IMG_9999.JPG"))
        let t1 = try catalog.currentToken()
        _ = try await IngestTests.ingest([tree.path], catalog)
        let after = try catalog.collections(type: .moment)
        #expect(after.map(\.localIdentifier) == before.map(\.localIdentifier), "moment identifiers are stable")
        let changedMoments = try catalog.changes(since: t1, objectType: "assetCollection")
        let burstMoment = before.first { ($0.startDate ?? "").hasPrefix("2016-10-09") }
        #expect(changedMoments.map(\.localIdentifier) == [burstMoment?.localIdentifier ?? "?"], "only the moment that gained the photo: \(changedMoments)")
        #expect(changedMoments.first?.properties.contains("assets") == true)
        #expect(try catalog.changes(since: t1, objectType: "asset").filter { $0.changeType == "inserted" }.count == 1)
    }
}

extension OrganizeIngestTests {
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func momentListsAndDateRanges() async throws {
        let corpus = try #require(Corpus.root)
        let s = try IngestTests.Scratch()
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await IngestTests.ingest([corpus.appendingPathComponent("osxphotos").path], catalog)
        let years = try catalog.collectionLists(type: .momentList, subtype: .momentListYear)
        let moments = try catalog.collections(type: .moment)
        // Every moment is in exactly one year and one cluster.
        for m in moments {
            #expect(try catalog.collectionLists(containing: m.localIdentifier).count == 2, "\(m.title)")
        }
        #expect(Set(years.map(\.title)).isSuperset(of: ["2016", "2020"]))
        let in2016 = try catalog.moments(from: "2016-01-01T00:00:00Z", to: "2016-12-31T23:59:59Z")
        #expect(!in2016.isEmpty)
        #expect(in2016.allSatisfy { ($0.startDate ?? "").hasPrefix("2016") })
        // A collection fetch returns the members.
        let burstMoment = try #require(in2016.first { ($0.startDate ?? "").hasPrefix("2016-10-09") })
        #expect(burstMoment.count >= 4)
        var all = FetchOptions()
        all.includeAllBurstAssets = true
        #expect(try catalog.fetchAssets(inCollection: burstMoment.localIdentifier, all).count == burstMoment.count)
    }
}

extension OrganizeIngestTests {
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func usersOwnSmartAlbums() async throws {
        let corpus = try #require(Corpus.root)
        let s = try IngestTests.Scratch()
        let yml = s.url.appendingPathComponent("mine.yml")
        try Data("""
            userSmartAlbums:
              - subtype: 200
                title: "iPhone 15 Pro Live Photos"
                predicate: "model == %@ AND mediaSubtypes CONTAINS photoLive"
                arguments: ["iPhone 15 Pro"]
              - title: "Before 2017"
                predicate: "creationDate < %@"
                arguments: ["2017-01-01"]
            """.utf8).write(to: yml)
        let defs = try SmartAlbumFile.load(path: yml.path)
        #expect(defs.map(\.title) == ["iPhone 15 Pro Live Photos", "Before 2017"])
        var o = IngestOptions(roots: [corpus.appendingPathComponent("osxphotos").path], concurrency: 2)
        o.userSmartAlbums = defs
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await Ingestor(options: o, catalog: catalog).run()
        let albums = try catalog.collections(type: .smartAlbum)
        #expect(albums.first { $0.title == "iPhone 15 Pro Live Photos" }?.count == 3)  // IMG_4394, IMG_4580, IMG_3582
        let before2017 = try #require(albums.first { $0.title == "Before 2017" })
        #expect(before2017.count > 0)

        // A mistake in a user predicate is reported with the album's title, before anything is stored.
        try Data("userSmartAlbums:\n  - title: \"Broken\"\n    predicate: \"mediaType == vidoe\"\n".utf8).write(to: yml)
        #expect(throws: SmartAlbumFile.Error.self) { try SmartAlbumFile.load(path: yml.path) }
        do { _ = try SmartAlbumFile.load(path: yml.path) } catch { #expect("\(error)".contains("Broken") && "\(error)".contains("^")) }
    }
}

extension OrganizeIngestTests {
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func takeoutAlbumTitlesName() async throws {
        let corpus = try #require(Corpus.root)
        let s = try IngestTests.Scratch()
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await IngestTests.ingest([corpus.appendingPathComponent("osxphotos/Takeout").path], catalog)
        // The album folder with a metadata.json becomes an album with its title; "Photos from YYYY" folders are
        // Takeout's date buckets, not albums.
        let albums = try catalog.collections(type: .album)
        #expect(albums.map(\.title) == ["Adelaide"])
        #expect(albums.first?.count == 1)
    }

    /// Albums list their members in path order as Swift orders strings (canonical equivalence), although the
    /// organize step reads the paths a directory at a time in SQLite's byte order: a decomposed "é" (e +
    /// U+0301) sorts after "f" as text, before it as bytes. A file at the root is in no album; a directory
    /// with files and a subdirectory with files is a folder holding an album of its own files.
    @Test func folderAlbumMembersInPathOrder() async throws {
        let s = try IngestTests.Scratch()
        let jpeg = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("generated/library/camera/DSC_0010.JPG"))
        let root = s.url.appendingPathComponent("Photos")
        let names = ["trip/f.jpg", "trip/e\u{301}.jpg", "trip/a.jpg", "trip/day2/b.jpg", "loose.jpg", "trip-notes/c.jpg"]
        for (i, n) in names.enumerated() {
            let url = root.appendingPathComponent(n)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            var b = jpeg
            b.append(UInt8(i))  // distinct files, not duplicates
            try b.write(to: url)
        }
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await IngestTests.ingest([root.path], catalog)
        let q = try DatabaseQueue(path: s.catalogPath)
        let members = try await q.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT c.title, a.primary_path FROM collection c JOIN collection_membership m ON m.collection_id = c.id
                    JOIN asset a ON a.id = m.asset_id WHERE c.type = 1 ORDER BY c.title, m.position
                    """
            ).map { "\($0[0] as String): \($0[1] as String)" }
        }
        #expect(members == ["day2: trip/day2/b.jpg", "trip: trip/a.jpg", "trip: trip/f.jpg", "trip: trip/e\u{301}.jpg", "trip-notes: trip-notes/c.jpg"])
        let folders = try catalog.collectionLists(type: .folder)
        #expect(folders.map(\.title) == ["trip"])
    }
}
