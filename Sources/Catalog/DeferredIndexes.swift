import Foundation
import GRDB

/// Secondary indexes built after the bulk of a first ingest (issue 17: a lean writer).
///
/// Into an empty catalog, every row of a first ingest is new, and each insert also inserts into every
/// index of its table: into the indexes on hashes, identifiers and dates that means a page at a random
/// place in a B-tree, read into the page cache (or from the OS) and written back. The indexes that only
/// queries and the organize stage read are dropped for the walk and built at its end, in one sorted pass
/// each. Kept throughout are those the walk itself reads: paths and folders (`file_dir`, `asset_dir`, the
/// unique columns), the partial hashes the duplicate check looks up (`file_sample_hash`), the links between
/// tables (`file_asset`, `resource_asset`) and the vanishing assets (`asset_vanishing`). The content hashes
/// (`file_hash`, `resource_hash`) are deferred too: only the move check looks a resource up by its hash, and
/// it runs for a folder with stored assets or when something is vanishing — never in a first ingest, whose
/// catalog was empty (were it to, the lookup would scan, not err). At 100k files their random-key inserts
/// were ~3 s of the walk's SQLite time (Benchmarks/README.md, sessions 22–23). So is the inode index
/// (`file_inode`): files moved into a folder walked first are looked up by version only when the catalog had
/// files (`MovedFacts.registerMoved(into:)`).
///
/// Crash safety: the dropped indexes' SQL is kept in `meta` (`deferred_indexes`) in the transaction that
/// drops them, and removed in the one that builds them again. A run that is killed leaves the note; the
/// next writer to open the catalog builds them (`Catalog.openReadWrite`). Readers meanwhile get the same
/// answers, more slowly.
extension Catalog {
    /// The indexes a first ingest defers (docs/catalog.md, indexes).
    static let deferrableIndexes: Set<String> = [
        "asset_cloud", "asset_creation", "asset_type", "asset_subtypes", "asset_burst_representative", "asset_type_creation",
        "asset_place_country", "file_root", "change_object", "error_run", "membership_asset", "collection_type", "file_hash",
        "resource_hash", "file_inode",
    ]
    static let deferredIndexesMetaKey = "deferred_indexes"

    /// Drops the deferrable indexes when the catalog holds no file and no asset yet; returns whether it did.
    @discardableResult
    public func deferIndexesIfEmpty() throws(CatalogError) -> Bool {
        guard mode != .readOnly else { return false }
        return try write { db in
            let empty = try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM file) AND NOT EXISTS (SELECT 1 FROM asset)") ?? false
            guard empty, try Self.deferredIndexNote(db) == nil else { return false }
            let rows = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
            let dropped: [[String]] = rows.filter { Self.deferrableIndexes.contains($0["name"]) }.map { [$0["name"], $0["sql"]] }
            guard !dropped.isEmpty else { return false }
            let note = String(decoding: try JSONEncoder().encode(dropped), as: UTF8.self)
            try db.execute(sql: "INSERT INTO meta(key, value) VALUES (?, ?)", arguments: [Self.deferredIndexesMetaKey, note])
            for d in dropped { try db.execute(sql: "DROP INDEX \(d[0].quotedDatabaseIdentifier)") }
            return true
        }
    }

    /// Builds the indexes a first ingest deferred, if any are noted; returns how many it built.
    @discardableResult
    public func buildDeferredIndexes() throws(CatalogError) -> Int {
        guard mode != .readOnly else { return 0 }
        return try write { db in try Self.buildDeferredIndexes(db) }
    }

    /// The note of deferred indexes (a JSON array of `[name, sql]`), nil when there is none.
    static func deferredIndexNote(_ db: Database) throws -> String? {
        guard try db.tableExists("meta") else { return nil }
        return try metaValue(db, deferredIndexesMetaKey)
    }

    /// Whether indexes are noted as deferred (a read: opening needs no write lock when there are none).
    static func hasDeferredIndexes(_ db: Database) throws -> Bool { try deferredIndexNote(db) != nil }

    /// The page cache the indexes are built with, which also bounds the memory SQLite sorts each index in
    /// before it spills sorted runs to a temporary file (the larger of the cache and 250 pages). With a
    /// first ingest's 8 MiB the build was the heap's peak of a 100k-file first ingest (the sorter's 8.4 MB
    /// beside the full cache; heaptrack); at 2 MiB it takes the same time (0.48–0.64 s at 100k files;
    /// Benchmarks/README.md, session 16). `$SHOEBOX_SQLITE_CACHE_KB`, when set, is kept.
    static let indexBuildCacheKiB = 2 * 1024
    /// … unless the catalog has fewer assets than this: its tables then fit in the cache the walk had (a first
    /// ingest's 8 MiB), each index's sort is small, and shrinking the cache only made every build read the
    /// tables from the OS again (3,000 files: the builds 16–23 → 11–18 ms; Benchmarks/README.md, session 20).
    static let indexBuildKeepsCacheBelowAssets = 20_000

    /// In `db`'s open transaction: builds the noted indexes (those missing) and removes the note, with the
    /// connection's cache at `indexBuildCacheKiB` meanwhile in a large catalog.
    static func buildDeferredIndexes(_ db: Database) throws -> Int {
        guard let note = try deferredIndexNote(db) else { return 0 }
        // The largest row id bounds the assets (a first ingest deletes none), without counting the rows.
        let small = try (Int.fetchOne(db, sql: "SELECT MAX(id) FROM asset") ?? 0) < indexBuildKeepsCacheBelowAssets
        let saved = writerCacheOverrideKiB == nil && !small ? try Int.fetchOne(db, sql: "PRAGMA cache_size") : nil
        if saved != nil { try db.execute(sql: "PRAGMA cache_size = -\(indexBuildCacheKiB)") }
        defer { if let saved { try? db.execute(sql: "PRAGMA cache_size = \(saved)") } }
        // A note that cannot be read builds nothing: the schema's own indexes are then what the migrations made.
        let noted = (try? JSONDecoder().decode([[String]].self, from: Data(note.utf8))) ?? []
        var built = 0
        for entry in noted where entry.count == 2 {
            guard try !db.indexExists(name: entry[0]) else { continue }
            try db.execute(sql: entry[1])
            built += 1
        }
        try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [deferredIndexesMetaKey])
        return built
    }
}

extension Database {
    /// Whether an index of this name exists.
    func indexExists(name: String) throws -> Bool {
        try Bool.fetchOne(self, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?)", arguments: [name]) ?? false
    }
}
