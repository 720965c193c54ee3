import Assemble
import Catalog
import Classify
import Foundation
import GRDB
import MediaProbe
import PhotoModel
import TestSupport
import Testing

@testable import Pipeline

/// Issue 14: the catalog stores facts and derives judgements. A record that does not decode, or facts of
/// an older probe, mean "probe again" — never "the file vanished"; a rules change is re-derived.
@Suite(.serialized) struct FactsTests {
    /// A folder of three real images (from the generated library): a, b, c.
    static func folder(_ s: TestScratch) throws -> String {
        let lib = Corpus.fixtures.appendingPathComponent("generated/library").path
        let names = try Self.cleanJPEGs(in: lib).prefix(3)
        try #require(names.count == 3)
        let dir = s.path("photos")
        // Flat names: the library keeps them in subfolders.
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (n, name) in zip(["a", "b", "c"], names) {
            try FileManager.default.copyItem(atPath: lib + "/" + name, toPath: "\(dir)/\(n).jpg")
        }
        return dir
    }

    /// JPEGs of the generated library that probe without an error.
    static func cleanJPEGs(in lib: String) throws -> [String] {
        var all: [String] = []
        let en = FileManager.default.enumerator(atPath: lib)
        while let p = en?.nextObject() as? String { if p.lowercased().hasSuffix(".jpg") { all.append(p) } }
        return all.sorted().filter {
            !Prober().probe(path: lib + "/" + $0).issues.contains { $0.severity != .warning }
        }
    }

    static func ingest(_ dir: String, _ catalog: Catalog, rederive: Bool = false) async throws -> IngestSummary {
        var o = IngestOptions(roots: [dir], concurrency: 2)
        o.rederive = rederive
        return try await Ingestor(options: o, catalog: catalog).run()
    }

    static func sql(_ path: String, _ statement: String) throws {
        let q = try DatabaseQueue(path: path)
        try q.write { try $0.execute(sql: statement) }
        try q.close()
    }

    /// Before facts were stored, a stored classification that no longer decoded dropped its file out of
    /// assembly, and the asset went to Recently Deleted without a word. Now the file is probed again.
    @Test func aRecordThatDoesNotDecodeIsProbedAgainAndKeepsItsAsset() async throws {
        let s = try TestScratch("facts-undecodable")
        let dir = try Self.folder(s)
        let path = s.path("c.sqlite")
        let first = try await Self.ingest(dir, try Catalog(path: path))
        #expect(first.inserted == 3)
        let before = try Catalog(path: path).allAssets(includeTrashed: true).map(\.localIdentifier).sorted()
        // a.jpg's stored facts no longer decode (a renamed field, a cut record); b.jpg changes on disk.
        try Self.sql(path, "UPDATE file_facts SET facts = x'7b226b696e64223a' WHERE path = '\(dir)/a.jpg'")
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/b.jpg"))
        h.seekToEndOfFile()
        h.write(Data([0]))
        try h.close()
        let second = try await Self.ingest(dir, try Catalog(path: path))
        #expect(second.filesProbed == 2, "a (facts unreadable) and b (changed) are probed, c is not")
        #expect(second.deleted == 0)
        let c = try Catalog(path: path)
        let after = try c.allAssets(includeTrashed: true)
        #expect(after.map(\.localIdentifier).sorted() == before)
        #expect(!after.contains { $0.isTrashed })
        // And the facts are whole again.
        #expect(try c.facts(inDirectory: dir)[dir + "/a.jpg"].flatMap(DerivationRules.decode) != nil)
    }


    /// A file added to a folder re-derives the folder from its stored facts (decoded on the pool) and compares
    /// each asset with its row by column position and the folder's resources read at once: the new asset is
    /// the only change recorded, and a row that differs from what the files say — a column, a resource's
    /// hash — is still told apart and put right, with only that property recorded.
    @Test func aFileAddedToAFolderRecordsOnlyWhatChanged() async throws {
        let s = try TestScratch("facts-added")
        let dir = try Self.folder(s)
        let path = s.path("c.sqlite")
        _ = try await Self.ingest(dir, try Catalog(path: path))
        let lib = Corpus.fixtures.appendingPathComponent("generated/library").path
        let fourth = try #require(try Self.cleanJPEGs(in: lib).dropFirst(3).first)
        let before = try Catalog(path: path).allAssets().map { ($0.asset.id, $0.localIdentifier, $0.asset.make) }
        try #require(before.count == 3)
        // The catalog says otherwise than the files for a.jpg's camera maker and b.jpg's content hash.
        try Self.sql(path, "UPDATE asset SET make = 'Not the file''s' WHERE primary_path = 'a.jpg'")
        try Self.sql(
            path, "UPDATE resource SET content_hash = 'not-the-file' WHERE asset_id = (SELECT id FROM asset WHERE primary_path = 'b.jpg')")
        let token = try Catalog(path: path).currentToken()
        try FileManager.default.copyItem(atPath: lib + "/" + fourth, toPath: dir + "/d.jpg")

        let second = try await Self.ingest(dir, try Catalog(path: path))
        #expect(second.filesProbed == 1, "only d.jpg is read; a, b and c are derived from their facts")
        let c = try Catalog(path: path)
        let changes = try c.changes(since: token, objectType: "asset")
        let lid = Dictionary(uniqueKeysWithValues: try c.allAssets().map { ($0.asset.id, $0.localIdentifier) })
        #expect(changes.filter { $0.changeType == "inserted" }.map(\.localIdentifier) == [lid["d.jpg"]])
        let updated = Dictionary(grouping: changes.filter { $0.changeType == "updated" }, by: \.localIdentifier)
        #expect(Set(updated.keys) == Set([lid["a.jpg"], lid["b.jpg"]].compactMap { $0 }))
        #expect(updated[lid["a.jpg"] ?? ""]?.flatMap(\.properties) == ["make"])
        #expect(updated[lid["b.jpg"] ?? ""]?.flatMap(\.properties) == ["resources"])
        // Put right from the facts: the maker as before, the hash the file's own.
        let after = try c.allAssets()
        #expect(after.first { $0.asset.id == "a.jpg" }?.asset.make == before.first { $0.0 == "a.jpg" }?.2)
        let hashes = try SQLiteFiles.strings(path, "SELECT content_hash FROM resource WHERE content_hash = 'not-the-file'")
        #expect(hashes.isEmpty)
    }
    /// A folder of more than one slice (256 files) is re-derived in slices on every core: in order, to the
    /// same assets (so the folder's digest is unchanged and nothing is written or recorded); a file whose
    /// facts do not decode keeps the whole folder as it is.
    @Test func aBigFolderIsDerivedAgainInSlicesInOrder() async throws {
        let s = try TestScratch("facts-slices")
        let lib = Corpus.fixtures.appendingPathComponent("generated/library").path
        let jpegs = try Self.cleanJPEGs(in: lib)
        try #require(!jpegs.isEmpty)
        let dir = s.path("big")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for i in 0..<300 { try FileManager.default.copyItem(atPath: lib + "/" + jpegs[i % jpegs.count], toPath: "\(dir)/\(1000 + i).jpg") }
        let path = s.path("c.sqlite")
        let first = try await Self.ingest(dir, try Catalog(path: path))
        #expect(first.inserted == 300)
        var c = try Catalog(path: path)
        let token = try c.currentToken()
        var r = Ingestor.RederiveSummary()
        try Ingestor(options: IngestOptions(roots: [], concurrency: 2), catalog: c).rederiveStored(runID: try c.beginRun(roots: [dir]), into: &r)
        #expect(r.folders == 1 && r.files == 300 && r.keptFolders.isEmpty)
        #expect(r.records.isEmpty, "derived again to the same assets: nothing written")
        #expect(try c.changes(since: token).isEmpty)

        try Self.sql(path, "UPDATE file_facts SET facts = x'7b226b696e64223a' WHERE path = '\(dir)/1299.jpg'")
        c = try Catalog(path: path)
        r = Ingestor.RederiveSummary()
        try Ingestor(options: IngestOptions(roots: [], concurrency: 2), catalog: c).rederiveStored(runID: try c.beginRun(roots: [dir]), into: &r)
        #expect(r.keptFolders == [dir] && r.folders == 0)
    }

    /// A folder derived again when a file is added reads its stored facts a window at a time: with windows of
    /// 7 files (300 files: 43 windows, the last one short) the catalog is the one windows of 1,024 make, and the
    /// new file's asset is the only change recorded. (Copies of a PNG without a camera, dated by their
    /// modification times an hour apart: no inferred bursts, whose members a re-derivation records twice —
    /// Benchmarks/README.md, session 26.)
    @Test func storedFactsAreReadAWindowAtATime() async throws {
        let s = try TestScratch("facts-windows")
        let png = Corpus.fixtures.appendingPathComponent("generated/animated.png").path
        var snapshots: [CatalogSnapshot] = []
        for window in [7, 1024] {
            let dir = s.path("w\(window)/big")
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            func add(_ name: String, hours: Double) throws {
                try FileManager.default.copyItem(atPath: png, toPath: "\(dir)/\(name)")
                try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1.6e9 + hours * 3600)], ofItemAtPath: "\(dir)/\(name)")
            }
            for i in 0..<300 { try add("\(1000 + i).png", hours: Double(i)) }
            let path = s.path("w\(window)/c.sqlite")
            _ = try await Self.ingest(dir, try Catalog(path: path))
            let token = try Catalog(path: path).currentToken()
            try add("new.png", hours: -1)
            var o = IngestOptions(roots: [dir], concurrency: 2)
            o.factsWindow = window
            let second = try await Ingestor(options: o, catalog: try Catalog(path: path)).run()
            #expect(second.filesProbed == 1 && second.filesUnchanged == 300 && second.inserted == 1 && second.updated == 0, "window \(window)")
            let c = try Catalog(path: path)
            let changes = try c.changes(since: token, objectType: "asset")
            #expect(changes.map(\.changeType) == ["inserted"], "window \(window): \(changes)")
            var snap = try CatalogSnapshot(path: path)
            let here = "/w\(window)/"
            snap.assets = Dictionary(
                uniqueKeysWithValues: snap.assets.map { k, v in
                    (k.replacingOccurrences(of: here, with: "/w/"), v.mapValues { $0.replacingOccurrences(of: here, with: "/w/") })
                })
            #expect(snap.assets.count == 301)
            snapshots.append(snap)
        }
        #expect(snapshots[0].assets == snapshots[1].assets)
    }

    /// Facts written by an older probe are probed again — exactly those files.
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func staleProbeVersionReprobesExactlyThoseFiles() async throws {
        let s = try TestScratch("facts-stale")
        let corpus = try #require(Corpus.root).path
        let path = s.path("c.sqlite")
        _ = try await Self.ingest(corpus, try Catalog(path: path))
        let stale = ["osxphotos/test-images/wedding.jpg", "lychee/train.mov", "osxphotos/test-images/IMG_1853.HEIC"].map {
            corpus + "/" + $0
        }
        try Self.sql(
            path,
            "UPDATE file SET probe_version = \(Prober.version - 1) WHERE path IN (\(stale.map { "'\($0)'" }.joined(separator: ",")))"
        )
        let again = try await Self.ingest(corpus, try Catalog(path: path))
        #expect(again.filesProbed == stale.count)
        #expect(again.inserted == 0 && again.deleted == 0 && again.updated == 0, "same facts, same judgements")
        // The summary says why unchanged files were read again.
        #expect(again.notes.contains { $0.hasPrefix("\(stale.count) unchanged files were probed again") }, "\(again.notes)")
        let q = try DatabaseQueue(path: path)
        let versions = try await q.read { (db: Database) throws -> [Int] in
            try Int.fetchAll(db, sql: "SELECT DISTINCT probe_version FROM file WHERE probe_version IS NOT NULL")
        }
        #expect(versions == [Prober.version])
    }

    /// A rules change (the test-only variant) re-derives from facts: the same assets and ids, only the
    /// expected property recorded, users' own changes kept; `--rederive` with the same rules changes nothing.
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func aRulesChangeIsDerivedAgainFromFactsAlone() async throws {
        let s = try TestScratch("facts-rules")
        let corpus = try #require(Corpus.root).path
        let path = s.path("c.sqlite")
        _ = try await Self.ingest(corpus, try Catalog(path: path))
        var c = try Catalog(path: path)
        let ids = try c.allAssets(includeTrashed: true).map(\.localIdentifier).sorted()
        let screenshots = try c.allAssets().filter { $0.asset.mediaSubtypes.contains(.photoScreenshot) }
        try #require(screenshots.count == 2)
        // The user marks one screenshot a favorite and moves its date: a re-derivation must keep both.
        let mine = screenshots[0].localIdentifier
        _ = try c.perform(
            ChangeSet(changes: [
                Change(op: .favorite, asset: mine, value: true),
                Change(op: .setCreationDate, asset: mine, date: "2001-02-03T04:05:06"),
            ]))
        let token = try c.currentToken()

        var o = IngestOptions(roots: [], concurrency: 1)
        o.rules = DerivationRules(version: DerivationRules.version + 1_000_000, screenshotsIgnored: true)
        let r = try Ingestor(options: o, catalog: c).rederiveAll()
        #expect(r.keptFolders.isEmpty)
        c = try Catalog(path: path)
        #expect(try c.allAssets(includeTrashed: true).map(\.localIdentifier).sorted() == ids)
        let changes = try c.changes(since: token, objectType: "asset")
        #expect(Set(changes.map(\.localIdentifier)) == Set(screenshots.map(\.localIdentifier)))
        #expect(changes.allSatisfy { $0.changeType == "updated" && $0.properties == ["mediaSubtypes"] }, "\(changes)")
        let kept = try #require(try c.findAsset(mine))
        #expect(kept.asset.isFavorite)
        #expect(kept.asset.creationDate?.local == "2001-02-03T04:05:06")
        #expect(try c.metaValue("rules_version") == String(DerivationRules.version + 1_000_000))

        // An ingest with the real rules notices the difference and derives back, reading nothing unchanged.
        let back = try await Self.ingest(corpus, c)
        #expect(back.rederived != nil)
        #expect(back.filesProbed == 0)
        #expect(back.updated == 2)
        #expect(try Catalog(path: path).findAsset(mine)?.asset.isFavorite == true)
        // Same rules again: nothing to record.
        let same = try await Self.ingest(corpus, try Catalog(path: path), rederive: true)
        #expect(same.filesProbed == 0 && same.updated == 0 && same.inserted == 0 && same.deleted == 0)
    }
}
