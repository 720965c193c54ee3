import Foundation
import GRDB
import MediaProbe
import Synchronization
import TestSupport
import Testing

@testable import Catalog
@testable import Pipeline

/// Issue 17 (memory at scale): a folder of thousands of files is committed in one transaction, so what its
/// commit carries is held until the last file is probed. A large folder's encoded facts wait in a spool file
/// (`BlobSpool`) and its assets' column values are made by the writer one at a time; the catalog must be the
/// one a small folder's path makes, byte for byte where it matters (facts, digests) and asset by asset.
@Suite struct LargeFolderTests {
    /// The generated library (Live Photos, edits, RAW+JPEG, Takeout, XMP, damaged files) copied, with a second
    /// copy of one photo beside it: with `--hash sampled` the two share a partial hash and are completed to
    /// full hashes in the commit (`completePartialHashes`, which re-makes the commit's assets).
    static func library(_ s: TestScratch) throws -> String {
        let lib = Corpus.fixtures.appendingPathComponent("generated/library").path
        let dir = s.path("library")
        try FileManager.default.copyItem(atPath: lib, toPath: dir)
        try FileManager.default.copyItem(atPath: dir + "/iphone/IMG_0002.JPG", toPath: dir + "/iphone/IMG_0902.JPG")
        return dir
    }

    static func ingest(_ root: String, _ path: String, largeFolder: Int, mode: HashMode) async throws -> IngestSummary {
        var o = IngestOptions(roots: [root], concurrency: 2)
        o.largeFolder = largeFolder
        o.hashMode = mode
        o.commitBatchRows = 1
        return try await Ingestor(options: o, catalog: try Catalog(path: path)).run()
    }

    /// Facts by path and folder digests: what the spool and the writer's values must leave exactly as before.
    static func storedBytes(_ path: String) throws -> (facts: [String: Data], digests: [String: String]) {
        let q = try DatabaseQueue(path: path)
        defer { try? q.close() }
        return try q.read { db in
            var facts: [String: Data] = [:]
            for r in try Row.fetchAll(db, sql: "SELECT path, facts FROM file_facts") { facts[r["path"]] = r["facts"] }
            var digests: [String: String] = [:]
            for r in try Row.fetchAll(db, sql: "SELECT dir, digest FROM folder_digest") { digests[r["dir"]] = r["digest"] }
            return (facts, digests)
        }
    }

    /// Every folder treated as large (threshold 1) against none (the default: the library's folders are small),
    /// on a first ingest and on a re-ingest after a file was added (known files judged from stored facts, the
    /// folder's assets compared with their rows): the same facts, digests, assets, albums and moments.
    @Test(arguments: [HashMode.full, .sampled])
    func largeFoldersMakeTheCatalogSmallOnesMake(mode: HashMode) async throws {
        let s = try TestScratch("large-folder")
        let root = try Self.library(s)
        let small = s.path("small.sqlite"), large = s.path("large.sqlite")
        let a = try await Self.ingest(root, small, largeFolder: Int.max, mode: mode)
        let b = try await Self.ingest(root, large, largeFolder: 1, mode: mode)
        #expect(a.inserted > 20 && a.inserted == b.inserted && a.errors == b.errors, "\(a.inserted) \(b.inserted)")
        func same(_ when: String) throws {
            let (x, y) = (try Self.storedBytes(small), try Self.storedBytes(large))
            #expect(!x.facts.isEmpty && x.facts == y.facts, "\(when): facts")
            #expect(!x.digests.isEmpty && x.digests == y.digests, "\(when): folder digests")
            let (p, q) = (try CatalogSnapshot(path: small), try CatalogSnapshot(path: large))
            // By key, so a failure names the assets that differ rather than printing both catalogs.
            let differing = Set(p.assets.keys).union(q.assets.keys).filter { p.assets[$0] != q.assets[$0] }.sorted()
            #expect(p.assets.count > 20 && differing.isEmpty, "\(when): assets differ: \(differing.prefix(3))")
            #expect(p.files == q.files && p.errors == q.errors, "\(when): files and errors")
            #expect(p.collections == q.collections && p.lists == q.lists, "\(when): collections")
        }
        try same("first ingest")
        if mode == .sampled {
            // The two copies were completed to one full hash, in both catalogs.
            let c = try Catalog(path: large)
            let rows = try c.files(inDirectory: root + "/iphone").filter { $0.path.hasSuffix("IMG_0002.JPG") || $0.path.hasSuffix("IMG_0902.JPG") }
            #expect(rows.count == 2 && rows[0].contentHash == rows[1].contentHash && rows[0].contentHash != rows[0].sampleHash)
        }
        try FileManager.default.copyItem(atPath: root + "/camera/DSC_0010.JPG", toPath: root + "/iphone/DSC_0910.JPG")
        let a2 = try await Self.ingest(root, small, largeFolder: Int.max, mode: mode)
        let b2 = try await Self.ingest(root, large, largeFolder: 1, mode: mode)
        #expect(a2.filesProbed == 1 && b2.filesProbed == 1)
        #expect(a2.inserted == 1 && b2.inserted == 1 && a2.updated == b2.updated && b2.deleted == 0, "\(a2.updated) \(b2.updated)")
        try same("re-ingest with a file added")
    }

    /// Blobs appended from many threads at once read back whole and in place; the spool leaves no name in its
    /// folder; a folder that cannot hold one is passed over for the next; none at all: nil (the caller keeps
    /// its blobs in memory).
    /// (Both ways of opening one: `O_TMPFILE`, and the named file removed at once where a file system has none.)
    @Test(arguments: [true, false])
    func spooledBlobsReadBackWhatWasAppended(tmpfile: Bool) async throws {
        let s = try TestScratch("blob-spool")
        let dir = s.path("spool")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let spool = try #require(BlobSpool(directories: [s.path("missing"), dir], name: "c.sqlite-facts", tmpfile: tmpfile))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty, "the spool file has no name")
        let blobs: [(Int, SpooledBlob?)] = await withTaskGroup(of: (Int, SpooledBlob?).self) { group in
            for i in 0..<400 {
                group.addTask { (i, spool.append((0..<(i * 37 % 5000)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) })) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(blobs.count == 400)
        for (i, blob) in blobs {
            let b = try #require(blob, "blob \(i)")
            #expect(try b.bytes() == (0..<(i * 37 % 5000)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) }, "blob \(i)")
        }
        #expect(BlobSpool(directories: [s.path("missing"), ""]) == nil)
    }

    /// Progress counts the files of a folder as they are probed: a folder is taken in (and was counted) only
    /// when its last file is done, so one folder of 30,000 files showed 0 files until then. The first file
    /// probed is reported at once; the counts never go back; the last report of the walk has them all.
    @Test func progressCountsAFoldersFilesAsTheyAreProbed() async throws {
        let s = try TestScratch("large-folder-progress")
        let dir = s.path("one")
        try Corpus.pngFolder(at: dir, count: 120)
        let events = Mutex<[IngestProgress]>([])
        let summary = try await Ingestor(options: IngestOptions(roots: [dir], concurrency: 2), catalog: try Catalog(path: s.path("c.sqlite")))
            .run { p in events.withLock { $0.append(p) } }
        #expect(summary.filesProbed == 120)
        let all = events.withLock { $0 }
        let walk = all.filter { $0.stage == .walk }
        #expect(walk.contains { $0.filesDone > 0 && $0.filesDone < 120 }, "\(walk.map(\.filesDone))")
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.filesDone <= $1.filesDone && $0.filesProbed <= $1.filesProbed }, "\(all.map(\.filesDone))")
        #expect(walk.last?.filesDone == 120 && walk.last?.filesProbed == 120 && all.last?.filesDone == 120)

        // Re-ingested with one file added, the known files count as they are judged from their stored facts
        // (done, not probed): the folder does not sit at 0 while 120 of them are read.
        try Corpus.pngFolder(at: s.path("extra"), count: 1)
        try FileManager.default.moveItem(atPath: s.path("extra/1000.png"), toPath: dir + "/new.png")
        let again = Mutex<[IngestProgress]>([])
        let second = try await Ingestor(options: IngestOptions(roots: [dir], concurrency: 2), catalog: try Catalog(path: s.path("c.sqlite")))
            .run { p in again.withLock { $0.append(p) } }
        #expect(second.filesProbed == 1 && second.filesUnchanged == 120)
        let reported = again.withLock { $0 }.filter { $0.stage == .walk }
        #expect(reported.contains { $0.filesDone > 0 && $0.filesDone < 121 && $0.filesProbed == 0 }, "\(reported.map(\.filesDone))")
        #expect(zip(reported, reported.dropFirst()).allSatisfy { $0.filesDone <= $1.filesDone && $0.filesProbed <= $1.filesProbed })
        #expect(reported.last?.filesDone == 121 && reported.last?.filesProbed == 1)
    }

    /// A changed folder's assets are compared with their stored rows a chunk at a time (`Catalog.comparedRowsChunk`,
    /// 512): in a folder of 1,100 (three chunks) with one file added, one removed and one renamed, every kept
    /// asset keeps its identifier and is not recorded, the renamed one keeps its identifier (matched by content)
    /// and is `updated`, the removed one is trashed, and the live assets are those a first ingest of the
    /// changed folder makes.
    @Test func aChangedLargeFolderIsComparedAChunkAtATime() async throws {
        let s = try TestScratch("large-folder-chunks")
        let dir = s.path("one")
        try Corpus.pngFolder(at: dir, count: 1100, distinctContent: true)
        let path = s.path("c.sqlite")
        let first = try await Ingestor(options: IngestOptions(roots: [dir], concurrency: 2), catalog: try Catalog(path: path)).run()
        #expect(first.inserted == 1100)
        func identifiers() throws -> [String: String] {
            Dictionary(uniqueKeysWithValues: try Catalog(path: path).allAssets().map { ($0.asset.id, $0.localIdentifier) })
        }
        let before = try identifiers()
        let token = try Catalog(path: path).currentToken()
        try Corpus.pngFolder(at: s.path("new"), count: 1, distinctContent: true)  // 1000.png with byte 0 added
        var extra = [UInt8](try Data(contentsOf: URL(fileURLWithPath: s.path("new/1000.png"))))
        extra[extra.count - 1] = 251  // a content no copy has
        try Data(extra).write(to: URL(fileURLWithPath: "\(dir)/new.png"))
        try FileManager.default.removeItem(atPath: "\(dir)/1500.png")
        try FileManager.default.moveItem(atPath: "\(dir)/1600.png", toPath: "\(dir)/renamed.png")
        let second = try await Ingestor(options: IngestOptions(roots: [dir], concurrency: 2), catalog: try Catalog(path: path)).run()
        // The added file is probed; the renamed one takes over its stored facts (MovedFacts).
        #expect(second.filesProbed == 1 && second.filesMoved == 1, "\(second.filesProbed) \(second.filesMoved)")
        #expect(second.inserted == 1 && second.updated == 1 && second.deleted == 1, "\(second.inserted) \(second.updated) \(second.deleted)")
        let changes = try Catalog(path: path).changes(since: token, objectType: "asset")
        #expect(changes.count == 3, "\(changes.map { "\($0.changeType) \($0.localIdentifier)" })")
        let after = try identifiers()
        #expect(after["renamed.png"] == before["1600.png"] && after["renamed.png"] != nil)
        #expect(after["1500.png"] == nil && after["new.png"] != nil && after.count == 1100)
        let kept = before.filter { $0.key != "1500.png" && $0.key != "1600.png" }
        #expect(kept.allSatisfy { after[$0.key] == $0.value })
        // The live assets are a first ingest's of the folder as it is now.
        let fresh = s.path("fresh.sqlite")
        _ = try await Ingestor(options: IngestOptions(roots: [dir], concurrency: 2), catalog: try Catalog(path: fresh)).run()
        let (p, q) = (try CatalogSnapshot(path: path), try CatalogSnapshot(path: fresh))
        let live = p.assets.filter { $0.value["trashed_at"] == "NULL" }
        let differing = Set(live.keys).union(q.assets.keys).filter { live[$0] != q.assets[$0] }.sorted()
        #expect(live.count == 1100 && differing.isEmpty, "\(differing.prefix(3))")
    }

    /// A re-derivation from stored facts (`shoebox rederive`, or an ingest after a rules change with a root
    /// offline) reads a large folder's facts a window of files at a time (`Ingestor.deriveFactsWindow`): in
    /// windows of 7 (300 files, 43 windows, the last one short) a folder derives to the commit one window makes
    /// (the same assets and digest); a file without usable facts in the last window keeps the folder as it is.
    @Test func aFolderIsRederivedFromItsFactsAWindowAtATime() async throws {
        let s = try TestScratch("large-folder-rederive")
        let dir = s.path("one")
        try Corpus.pngFolder(at: dir, count: 300)
        let path = s.path("c.sqlite")
        _ = try await Ingestor(options: IngestOptions(roots: [dir], concurrency: 2), catalog: try Catalog(path: path)).run()
        let c = try Catalog(path: path)
        let (folder, root) = try #require(try c.folders().first { $0.dir == dir })
        let rules = DerivationRules.current
        let windows = try Ingestor.derive(dir: folder, root: root, runID: 1, rules: rules, catalog: c, window: 7)
        let whole = try Ingestor.derive(dir: folder, root: root, runID: 1, rules: rules, catalog: c, window: 2048)
        let (a, b) = (try #require(windows.commit), try #require(whole.commit))
        #expect(windows.files == 300 && a.assets?.count == 300)
        #expect(a.assets == b.assets && a.derived?.digest == b.derived?.digest && a.files == b.files)
        try FactsTests.sql(path, "UPDATE file SET probe_version = \(Prober.version - 1) WHERE path = '\(dir)/1299.png'")
        let stale = try Ingestor.derive(dir: folder, root: root, runID: 1, rules: rules, catalog: try Catalog(path: path), window: 7)
        #expect(stale.commit == nil && stale.files == 300)
    }
}
