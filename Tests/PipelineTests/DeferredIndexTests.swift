import Catalog
import Foundation
import GRDB
import Testing
import TestSupport

@testable import Pipeline

/// A first ingest into an empty catalog drops the indexes only queries and organize read, and builds them
/// after the walk (Catalog.deferIndexesIfEmpty): the catalog it leaves has the schema of any other, and a
/// run killed in between leaves a note the next writer acts on.
@Suite struct DeferredIndexTests {
    /// Every index of the catalog at `path`: name → SQL.
    static func indexes(_ path: String) throws -> [String: String] {
        let q = try DatabaseQueue(path: path)
        defer { try? q.close() }
        return try q.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").map {
                ($0["name"] as String, $0["sql"] as String)
            })
        }
    }

    static func note(_ catalog: Catalog) throws -> String? { try catalog.metaValue("deferred_indexes") }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func aFirstIngestEndsWithEveryIndex() async throws {
        let scratch = try TestScratch("deferred-index")
        let path = scratch.path("c.sqlite")
        let catalog = try Catalog(path: path)
        let schema = try Self.indexes(path)
        #expect(schema["asset_creation"] != nil && schema["file_hash"] != nil)

        var o = IngestOptions(roots: [try #require(Corpus.root).appendingPathComponent("lychee").path], concurrency: 2)
        o.organize = true
        let summary = try await Ingestor(options: o, catalog: catalog).run()
        #expect(summary.inserted > 0)
        #expect(try Self.indexes(path) == schema)
        #expect(try Self.note(catalog) == nil)
        #expect(try catalog.integrityCheck() == "ok")
        // Not empty any more: nothing is deferred again.
        #expect(try catalog.deferIndexesIfEmpty() == false)
        #expect(try Self.indexes(path) == schema)
    }

    @Test func indexesOfAKilledFirstIngestAreBuiltByTheNextWriter() throws {
        let scratch = try TestScratch("deferred-index")
        let path = scratch.path("c.sqlite")
        let schema: [String: String]
        do {
            let catalog = try Catalog(path: path)
            schema = try Self.indexes(path)
            #expect(try catalog.deferIndexesIfEmpty())
            // What a run killed mid-walk leaves: the query-only and content-hash indexes gone, the paths' and partial
            // hashes' kept, a note.
            let during = try Self.indexes(path)
            #expect(during["asset_creation"] == nil && during["asset_type_creation"] == nil && during["change_object"] == nil)
            #expect(during["file_hash"] == nil && during["resource_hash"] == nil)
            #expect(during["file_dir"] != nil && during["file_sample_hash"] != nil && during["asset_vanishing"] != nil)
            #expect(Set(schema.keys).subtracting(during.keys).count == 15)
            #expect(try Self.note(catalog) != nil)
            // A second call finds the note and defers nothing more.
            #expect(try catalog.deferIndexesIfEmpty() == false)
        }
        // A reader answers without them, and does not build them.
        do {
            let reader = try Catalog(path: path, mode: .readOnly)
            #expect(try reader.summaryCounts().first { $0.0 == "assets" }?.1 == 0)
            #expect(try Self.indexes(path).count < schema.count)
        }
        // The next writer builds them before anything else.
        let writer = try Catalog(path: path)
        #expect(try Self.indexes(path) == schema)
        #expect(try Self.note(writer) == nil)
    }

    @Test func aNoteNamingIndexesThatExistBuildsNothingTwice() throws {
        let scratch = try TestScratch("deferred-index")
        let path = scratch.path("c.sqlite")
        let catalog = try Catalog(path: path)
        let schema = try Self.indexes(path)
        #expect(try catalog.deferIndexesIfEmpty())
        #expect(try catalog.buildDeferredIndexes() == 15)
        #expect(try catalog.buildDeferredIndexes() == 0)
        #expect(try Self.indexes(path) == schema)
    }
}
