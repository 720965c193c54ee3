import GRDB
import TestSupport
import Testing

@testable import Catalog

/// The writer checkpoints its write-ahead log less often as the catalog grows (`Catalog.checkpointPages`):
/// a quarter of the catalog's pages, a power of two from 1,024 to 16,384, fitted at each commit of folders.
@Suite struct CheckpointIntervalTests {
    @Test func theIntervalIsAQuarterOfTheCatalogWithinItsBounds() {
        #expect(Catalog.checkpointPages(forCatalogPages: 0) == 1024)
        #expect(Catalog.checkpointPages(forCatalogPages: 8191) == 1024)
        #expect(Catalog.checkpointPages(forCatalogPages: 8192) == 2048)
        #expect(Catalog.checkpointPages(forCatalogPages: 65_535) == 8192)
        #expect(Catalog.checkpointPages(forCatalogPages: 65_536) == 16_384)
        #expect(Catalog.checkpointPages(forCatalogPages: 10_000_000) == 16_384)
    }

    /// Committing folders sets the writer's `wal_autocheckpoint` for the catalog's size after the commit:
    /// 1,024 for a small one (SQLite's default is 1,000), more once it has grown past 32 MiB.
    @Test func aCommitFitsTheWritersIntervalToTheCatalog() throws {
        let s = try TestScratch("checkpoint-interval")
        let catalog = try Catalog(path: s.path("c.sqlite"))
        func interval() throws -> (setting: Int?, pages: Int?) {
            try catalog.write { db in
                (try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint"), try Int.fetchOne(db, sql: "PRAGMA page_count"))
            }
        }
        func commit(_ dir: String, files: Int, factsBytes: Int) throws {
            let run = try catalog.beginRun(roots: ["/r"])
            let rows = (0..<files).map { i in
                FileRow(
                    path: "/r/\(dir)/IMG_\(i).JPG", root: "/r", dir: "/r/\(dir)",
                    fingerprint: FileFingerprint(size: 10, mtimeNanoseconds: 10, inode: Int64(i + 1), device: 1),
                    contentHash: "\(dir)-\(i)", kind: "image", role: "primary", status: "ok", lastError: nil,
                    facts: [UInt8](repeating: UInt8(i & 0xFF), count: factsBytes), probeVersion: 1)
            }
            _ = try catalog.commitFolders([FolderCommit(runID: run, root: "/r", dir: "/r/\(dir)", files: rows, vanished: [], assets: nil, errors: [])])
        }
        try commit("a", files: 2, factsBytes: 100)
        let small = try interval()
        #expect(small.setting == 1024)
        // 40 files of 1 MB of facts each: ~10,000 pages of 4 KiB.
        try commit("b", files: 40, factsBytes: 1 << 20)
        let large = try interval()
        let pages = try #require(large.pages)
        #expect(pages >= 8192)
        #expect(large.setting == Catalog.checkpointPages(forCatalogPages: pages))
        #expect((large.setting ?? 0) >= 2048)
    }
}
