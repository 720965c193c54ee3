import Catalog
import Foundation
import PhotoModel
import Testing
import TestSupport

@testable import Pipeline

/// PhotoKit change requests on the catalog (all-or-nothing change sets, placeholders, history) and change
/// details of saved fetches.
@Suite(.serialized) struct ChangeRequestTests {
    typealias Scratch = IngestTests.Scratch

    /// A catalog of the corpus's lychee folder (8 assets), in a temp dir.
    static func lychee() async throws -> (Scratch, Catalog) {
        let corpus = try #require(Corpus.root)
        let s = try Scratch()
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await IngestTests.ingest([corpus.appendingPathComponent("lychee").path], catalog)
        return (s, catalog)
    }

    static func ids(_ c: Catalog) throws -> [String] { try c.allAssets().map(\.localIdentifier).sorted() }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func failedChangeSetLeavesTheCatalogExactlyAsBefore() async throws {
        let (scratch, catalog) = try await Self.lychee()
        defer { withExtendedLifetime(scratch) {} }  // the scratch folder holds the catalog
        let a = try Self.ids(catalog)
        let before = try catalog.dump()
        let set = ChangeSet(changes: [
            Change(op: .createAlbum, placeholder: "$a", title: "Trip"),
            Change(op: .addAssets, assets: [a[0], a[1]], album: "$a"),
            Change(op: .favorite, asset: a[2], value: true),
            Change(op: .delete, asset: a[3]),
            Change(op: .addAssets, assets: [a[4]], album: "$nope"),
        ])
        #expect {
            try catalog.perform(set)
        } throws: { e in
            let e = e as! CatalogError
            return e.code == .invalidChange && e.message.contains("change 4 (addAssets)") && e.message.contains("unknown placeholder '$nope'")
        }
        #expect(try catalog.dump() == before)

        // Other failures, also all-or-nothing.
        for bad in [
            Change(op: .purge, asset: a[5]),  // not trashed
            Change(op: .favorite, asset: "nope/L0/001", value: true),
            Change(op: .setCreationDate, asset: a[5], date: "yesterday"),
            Change(op: .setLocation, asset: a[5], latitude: 95, longitude: 0),
            Change(op: .rename, collection: "$a", title: "x"),
        ] {
            #expect(throws: CatalogError.self) { try catalog.perform(ChangeSet(changes: [Change(op: .favorite, asset: a[0], value: true), bad])) }
            #expect(try catalog.dump() == before, "\(bad.op)")
        }
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func successfulChangeSetRecordsExactlyItsHistory() async throws {
        let (scratch, catalog) = try await Self.lychee()
        defer { withExtendedLifetime(scratch) {} }  // the scratch folder holds the catalog
        let a = try Self.ids(catalog)
        let t0 = try catalog.currentToken()
        let map = try catalog.perform(
            ChangeSet(changes: [
                Change(op: .createFolder, placeholder: "$f", title: "Travel"),
                Change(op: .createAlbum, placeholder: "$a", folder: "$f", title: "Trip"),
                Change(op: .addAssets, assets: [a[0], a[1], a[2]], album: "$a"),
                Change(op: .reorder, assets: [a[2]], album: "$a"),
                Change(op: .favorite, asset: a[0], value: true),
                Change(op: .hide, asset: a[0], value: true),
                Change(op: .setCreationDate, asset: a[1], date: "2020-02-03T04:05:06+01:00"),
                Change(op: .setLocation, asset: a[1], latitude: -33.86, longitude: 151.21, altitude: 5),
                Change(op: .delete, asset: a[3]),
            ]))
        let folder = try #require(map["$f"]), album = try #require(map["$a"])
        #expect(folder.hasSuffix("/L0/010") && album.hasSuffix("/L0/040"))
        let got = try catalog.changes(since: t0).map { "\($0.objectType) \($0.localIdentifier) \($0.changeType) \($0.properties.joined(separator: ","))" }
        #expect(
            got == [
                "collectionList \(folder) inserted ",
                "assetCollection \(album) inserted ",
                "asset \(a[0]) updated isFavorite,isHidden",
                "asset \(a[1]) updated creationDate,location",
                "asset \(a[3]) updated isTrashed",
            ])
        // The state.
        #expect(try catalog.fetchAssets(inCollection: album, FetchOptions()).count == 2)  // a[0] is hidden now
        let members = try catalog.albumsWithMembers().first { $0.localIdentifier == album }
        #expect(members?.members == [a[2], a[0], a[1]])
        #expect(members?.title == "Trip")
        #expect(try catalog.collectionLists(type: .folder).first { $0.localIdentifier == folder }?.children == [album])
        let s1 = try #require(try catalog.asset(localIdentifier: a[1]))
        #expect(s1.asset.creationDate == AssetDate(local: "2020-02-03T04:05:06", offsetSeconds: 3600))
        #expect(s1.asset.location?.latitude == -33.86 && s1.asset.location?.altitude == 5)
        #expect(try catalog.asset(localIdentifier: a[0])?.asset.isFavorite == true)
        #expect(try catalog.asset(localIdentifier: a[3])?.isTrashed == true)
    }

    /// Each one-off change (as the CLI performs them: a one-change set).
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func oneOffChanges() async throws {
        let (scratch, catalog) = try await Self.lychee()
        defer { withExtendedLifetime(scratch) {} }  // the scratch folder holds the catalog
        let a = try Self.ids(catalog)
        func one(_ c: Change) throws -> (map: [String: String], records: [String]) {
            let t = try catalog.currentToken()
            let m = try catalog.perform(ChangeSet(changes: [c]))
            return (m, try catalog.changes(since: t).map { "\($0.objectType) \($0.changeType) \($0.properties.joined(separator: ","))" })
        }
        #expect(try one(Change(op: .favorite, asset: a[0], value: true)).records == ["asset updated isFavorite"])
        #expect(try catalog.asset(localIdentifier: a[0])?.asset.isFavorite == true)
        #expect(try one(Change(op: .favorite, asset: a[0], value: false)).records == ["asset updated isFavorite"])
        #expect(try catalog.asset(localIdentifier: a[0])?.asset.isFavorite == false)
        #expect(try one(Change(op: .hide, asset: a[0], value: true)).records == ["asset updated isHidden"])
        #expect(try catalog.asset(localIdentifier: a[0])?.asset.isHidden == true)
        #expect(try one(Change(op: .hide, asset: a[0], value: false)).records == ["asset updated isHidden"])
        #expect(try one(Change(op: .setCreationDate, asset: a[0], date: "2001-01-01T00:00:00Z")).records == ["asset updated creationDate"])
        #expect(try catalog.asset(localIdentifier: a[0])?.asset.creationDate == AssetDate(local: "2001-01-01T00:00:00", offsetSeconds: 0))
        #expect(try one(Change(op: .setLocation, asset: a[0], latitude: 1, longitude: 2)).records == ["asset updated location"])
        #expect(try catalog.asset(localIdentifier: a[0])?.asset.location?.longitude == 2)
        #expect(try one(Change(op: .setLocation, asset: a[0])).records == ["asset updated location"])
        #expect(try catalog.asset(localIdentifier: a[0])?.asset.location == nil)
        #expect(try one(Change(op: .delete, asset: a[0])).records == ["asset updated isTrashed"])
        #expect(try catalog.asset(localIdentifier: a[0])?.isTrashed == true)
        #expect(try one(Change(op: .restore, asset: a[0])).records == ["asset updated isTrashed"])
        #expect(try catalog.asset(localIdentifier: a[0])?.isTrashed == false)

        let folder = try #require(try one(Change(op: .createFolder, placeholder: "$f", title: "F")).map["$f"])
        let album = try one(Change(op: .createAlbum, placeholder: "$a", folder: folder, title: "A"))
        #expect(album.records == ["assetCollection inserted ", "collectionList updated collections"])
        let alb = try #require(album.map["$a"])
        #expect(try one(Change(op: .rename, collection: alb, title: "B")).records == ["assetCollection updated localizedTitle"])
        #expect(try one(Change(op: .rename, collection: folder, title: "G")).records == ["collectionList updated localizedTitle"])
        #expect(try catalog.collectionLists(type: .folder).first { $0.localIdentifier == folder }?.title == "G")
        #expect(try one(Change(op: .addAssets, assets: [a[1], a[2], a[3]], album: alb)).records == ["assetCollection updated assets"])
        #expect(try one(Change(op: .removeAssets, assets: [a[2]], album: alb)).records == ["assetCollection updated assets"])
        #expect(try one(Change(op: .reorder, assets: [a[3], a[1]], album: alb)).records == ["assetCollection updated assets"])
        let m = try catalog.albumsWithMembers().first { $0.localIdentifier == alb }
        #expect(m?.title == "B" && m?.members == [a[3], a[1]])
        // A non-empty folder cannot be deleted; an album can, then the folder.
        #expect(throws: CatalogError.self) { try catalog.perform(ChangeSet(changes: [Change(op: .deleteCollection, collection: folder)])) }
        #expect(try one(Change(op: .deleteCollection, collection: alb)).records == ["collectionList updated collections", "assetCollection deleted "])
        #expect(try one(Change(op: .deleteCollection, collection: folder)).records == ["collectionList deleted "])
        // Purge: only from Recently Deleted.
        #expect(throws: CatalogError.self) { try catalog.perform(ChangeSet(changes: [Change(op: .purge, asset: a[4])])) }
        #expect(try one(Change(op: .delete, asset: a[4])).records == ["asset updated isTrashed"])
        #expect(try one(Change(op: .purge, asset: a[4])).records == ["asset deleted purged"])
        #expect(try catalog.asset(localIdentifier: a[4]) == nil)
        #expect(try catalog.integrityCheck() == "ok")
    }

    @Test func changeDetailsArithmetic() {
        // old: 1 2 3 4 5; new: 2 6 4 3 5 (1 removed, 6 inserted, 3 moved after 4), 5 changed.
        let d = FetchChangeDetails.compute(before: [1, 2, 3, 4, 5], after: [2, 6, 4, 3, 5], changed: [5, 1])
        #expect(d.removedIndexes == [0])
        #expect(d.insertedIndexes == [1])
        #expect(d.changedIndexes == [4])
        // After removals and insertions: 2 6 3 4 5 → one of 3/4 moved.
        #expect(d.moves.count == 1)
        #expect(FetchChangeDetails.compute(before: [1, 2], after: [1, 2], changed: []).isEmpty)
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func savedFetchChangeDetails() async throws {
        let corpus = try #require(Corpus.root)
        let s = try Scratch()
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await IngestTests.ingest([corpus.path], catalog)
        var options = FetchOptions(predicate: try PredicateCompiler.compile("mediaType == image AND creationDate != nil"))
        options.sortDescriptors = [SortDescriptor(key: "creationDate")]
        let saved = try catalog.fetchAssets(options)
        #expect(saved.count > 20)
        try catalog.saveFetch(named: "images", rowIDs: saved.rowIDs, options: options)
        guard case .incremental(let none) = try catalog.changeDetails(forSavedFetch: "images") else { Issue.record("not incremental"); return }
        #expect(none.isEmpty)

        let old = saved.rowIDs
        let lids = try catalog.localIdentifiers(rowIDs: old)
        let favorite = lids[old[3]]!, trashed = lids[old[5]]!, redated = lids[old[1]]!
        // A new asset: a copy of a plain image (no burst, not Live) in a new tree.
        var source: StoredAsset?
        for id in old[10...] {
            let st = try #require(try catalog.asset(localIdentifier: lids[id]!))
            if st.asset.burstIdentifier == nil && st.asset.resources.count == 1 && !st.asset.mediaSubtypes.contains(.photoLive) {
                source = st
                break
            }
        }
        let src = try #require(source)
        let tree = s.url.appendingPathComponent("more")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        let name = "copy-" + (src.asset.id.split(separator: "/").last.map(String.init) ?? "x.jpg")
        try FileManager.default.copyItem(
            at: URL(fileURLWithPath: src.root).appendingPathComponent(src.asset.id), to: tree.appendingPathComponent(name))

        try catalog.perform(
            ChangeSet(changes: [
                Change(op: .favorite, asset: favorite, value: true),
                Change(op: .delete, asset: trashed),
                Change(op: .setCreationDate, asset: redated, date: "2099-01-01T00:00:00"),
            ]))
        let summary = try await IngestTests.ingest([tree.path], catalog)
        #expect(summary.inserted == 1)

        // The expectation, from first principles.
        let new = try catalog.fetchAssets(options).rowIDs
        let newLids = try catalog.localIdentifiers(rowIDs: new)
        let insertedID = try #require(new.first { !old.contains($0) })
        #expect(newLids[insertedID]!.hasSuffix("/L0/001"))
        let redatedID = old[1]
        #expect(new.last == redatedID)
        let mid: [Int64] = {
            var m = old.filter { $0 != old[5] }
            let i = new.firstIndex(of: insertedID)!
            m.insert(insertedID, at: i)
            return m
        }()
        guard case .incremental(let d) = try catalog.changeDetails(forSavedFetch: "images") else { Issue.record("not incremental"); return }
        #expect(d.removedIndexes == [5])
        #expect(d.insertedIndexes == [new.firstIndex(of: insertedID)!])
        #expect(d.changedIndexes == [new.firstIndex(of: old[3])!, new.firstIndex(of: redatedID)!].sorted())
        #expect(d.moves == [FetchMove(from: mid.firstIndex(of: redatedID)!, to: new.count - 1)])

        // --update: nothing left to report.
        try catalog.updateSavedFetch(named: "images")
        guard case .incremental(let after) = try catalog.changeDetails(forSavedFetch: "images") else { Issue.record("not incremental"); return }
        #expect(after.isEmpty)

        // A large change is not incremental.
        try catalog.perform(ChangeSet(changes: new.prefix(new.count / 2 + 2).map { Change(op: .favorite, asset: newLids[$0]!, value: true) }))
        #expect(
            {
                if case .notIncremental = try? catalog.changeDetails(forSavedFetch: "images") { return true }
                return false
            }())
    }
}
