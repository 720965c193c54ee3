import GRDB
import TestSupport
import Testing

@testable import Catalog

/// The readers of a catalog opened for writing keep a small page cache (`Catalog.readerCacheKiB`): organize
/// reads on several readers at once, each reading its rows once. The writer keeps its own cache, and a
/// catalog opened read-only, as queries open it, keeps SQLite's default.
@Suite struct ReaderCacheTests {
    static func readerCache(_ catalog: Catalog) throws -> Int? {
        try catalog.read { try Int.fetchOne($0, sql: "PRAGMA cache_size") }
    }

    @Test func readersOfAWritableCatalogKeepASmallCache() throws {
        let s = try TestScratch("reader-cache")
        let path = s.path("c.sqlite")
        let catalog = try Catalog(path: path)
        #expect(try Self.readerCache(catalog) == -Catalog.readerCacheKiB)
        let writer = try catalog.write { try Int.fetchOne($0, sql: "PRAGMA cache_size") }
        #expect(writer == -(Catalog.writerCacheOverrideKiB ?? Catalog.writerCacheKiB))
        // Readers opened again after `releaseMemory` (which closes them) are set up the same way.
        catalog.releaseMemory()
        #expect(try Self.readerCache(catalog) == -Catalog.readerCacheKiB)

        let readOnly = try Catalog(path: path, mode: .readOnly)
        let sqliteDefault = try DatabaseQueue().read { try Int.fetchOne($0, sql: "PRAGMA cache_size") }
        #expect(try Self.readerCache(readOnly) == sqliteDefault)
        #expect(sqliteDefault != -Catalog.readerCacheKiB)
    }
}
