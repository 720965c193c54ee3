import Catalog
import Foundation
@testable import Pipeline
import TestSupport
import Testing

/// Issue 20: which shard owns which folder, and what `shoebox merge` does with every table.
@Suite struct ShardAssignmentTests {
    @Test func theHashIsFNV1a64OfTheRelativePath() {
        // Published FNV-1a 64 test vectors: the assignment must not change between releases.
        #expect(ShardAssignment.fnv1a64("") == 0xcbf2_9ce4_8422_2325)
        #expect(ShardAssignment.fnv1a64("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(ShardAssignment.fnv1a64("foobar") == 0x8594_4171_f739_67e8)
        #expect(ShardAssignment.shard(ofUnit: "a", count: 7) == Int(UInt64(0xaf63_dc4c_8601_ec8c) % 7))
    }

    @Test func unitsAreTopLevelFoldersAndTakeoutAlbums() {
        #expect(ShardAssignment.unit(ofRelativeFolder: "") == nil)
        #expect(ShardAssignment.unit(ofRelativeFolder: "2019") == "2019")
        #expect(ShardAssignment.unit(ofRelativeFolder: "2019/Summer/Day 1") == "2019")
        #expect(
            ShardAssignment.unit(ofRelativeFolder: "takeout-20240101T000000Z-001/Takeout/Google Photos/Trip")
                == "takeout-20240101T000000Z-001")
        #expect(ShardAssignment.unit(ofRelativeFolder: "Takeout") == nil)
        #expect(ShardAssignment.unit(ofRelativeFolder: "Takeout/Google Photos") == nil)
        #expect(ShardAssignment.unit(ofRelativeFolder: "Takeout/Google Photos/Trip 2019") == "Takeout/Google Photos/Trip 2019")
        #expect(
            ShardAssignment.unit(ofRelativeFolder: "Takeout/Google Photos/Trip 2019/sub") == "Takeout/Google Photos/Trip 2019")
        #expect(
            ShardAssignment.unit(ofRelativeFolder: "Takeout/YouTube and YouTube Music/x") == "Takeout/YouTube and YouTube Music")
        // Files directly in a folder above the units form the unit of that folder.
        #expect(ShardAssignment.fileUnit(ofRelativeFolder: "") == "")
        #expect(ShardAssignment.fileUnit(ofRelativeFolder: "Takeout/Google Photos") == "Takeout/Google Photos")
    }

    @Test func everyFolderHasExactlyOneShard() throws {
        let folders = [
            "", "a", "a/b", "b", "Takeout", "Takeout/Google Photos", "Takeout/Google Photos/X", "Takeout/Google Photos/Y/z",
            "c d/e",
        ]
        for n in [1, 2, 3, 7, 50] {
            for f in folders {
                let owners = (0..<n).filter { ShardAssignment(index: $0, count: n)!.ownsFiles(inRelativeFolder: f) }
                #expect(owners.count == 1, "\(f) under \(n) shards: \(owners)")
                // The shard that owns a folder's files walks into it (and every folder above it).
                let owner = ShardAssignment(index: owners[0], count: n)!
                var path = ""
                for c in f.split(separator: "/") {
                    path = path.isEmpty ? String(c) : path + "/" + c
                    #expect(owner.enters(relativeFolder: path), "\(owner) does not walk into \(path)")
                }
            }
        }
        #expect(
            ShardAssignment("3/3") == nil && ShardAssignment("-1/3") == nil && ShardAssignment("1/0") == nil
                && ShardAssignment("1") == nil)
        #expect(ShardAssignment("2/3")?.description == "2/3")
        #expect(
            ShardAssignment(index: 0, count: 2)!.ownsFiles(inFolder: "/lib/a/b", root: "/lib")
                == ShardAssignment(index: 0, count: 2)!.ownsFiles(inRelativeFolder: "a"))
    }

    /// Every table of a new catalog is merged, derived or local (`MergeTables.roles`). A branch that adds a
    /// table fails here until it says which: copy it from shards (merged), recompute it in the merged
    /// catalog (derived), or keep it per catalog (local) — and `Merger` handles it accordingly.
    @Test func everyCatalogTableHasAMergeRole() throws {
        let s = try TestScratch("merge-tables")
        let catalog = try Catalog(path: s.path("c.sqlite"), mode: .readWrite(create: true))
        let tables = try catalog.tableNames()
        #expect(tables.contains("asset") && tables.contains("file"))
        let unknown = tables.filter { MergeTables.roles[$0] == nil }
        #expect(
            unknown.isEmpty,
            "tables with no merge role (add them to MergeTables.roles in Sources/Catalog/MergeSupport.swift): \(unknown)")
        let stale = MergeTables.roles.keys.filter { !tables.contains($0) && $0 != "sqlite_sequence" }
        #expect(stale.isEmpty, "MergeTables.roles names tables the catalog does not have: \(stale.sorted())")
    }

    /// Columns of `file` beyond those merge knows travel with the rows (another branch's migration): a
    /// column both catalogs have is copied; a shard whose value changed is a changed folder.
    @Test func extraFileColumnsAreCopied() async throws {
        let ours = ["id", "path", "root", "dir", "size", "asset_id", "first_run", "last_run", "place_hint"]
        #expect(Catalog.extraFileColumns(ours, ours) == ["place_hint"])
        #expect(Catalog.extraFileColumns(ours, ours.filter { $0 != "place_hint" }).isEmpty)

        let s = try TestScratch("merge-columns")
        let library = Corpus.fixtures.appendingPathComponent("generated/library/xmp").path
        let shardPath = s.path("shard.sqlite"), allPath = s.path("all.sqlite")
        do {
            let shard = try Catalog(path: shardPath, mode: .readWrite(create: true))
            _ = try await Ingestor(options: IngestOptions(roots: [library], concurrency: 1), catalog: shard).run()
        }
        _ = try Catalog(path: allPath, mode: .readWrite(create: true))
        for p in [shardPath, allPath] { try SQLiteFiles.execute(p, "ALTER TABLE file ADD COLUMN place_hint TEXT") }
        try SQLiteFiles.execute(shardPath, "UPDATE file SET place_hint = 'Ulaanbaatar ' || size")
        func merge() throws -> Merger.Summary {
            let all = try Catalog(path: allPath, mode: .readWrite(create: false))
            return try Merger(
                into: all, shards: [Merger.Shard(path: shardPath, catalog: try Catalog(path: shardPath, mode: .readOnly))]
            ).run()
        }
        #expect(try merge().foldersChanged == 1)
        let expected = try SQLiteFiles.strings(shardPath, "SELECT path || '=' || place_hint FROM file ORDER BY path")
        #expect(!expected.isEmpty)
        #expect(try SQLiteFiles.strings(allPath, "SELECT path || '=' || place_hint FROM file ORDER BY path") == expected)
        #expect(try merge().foldersChanged == 0)
        try SQLiteFiles.execute(shardPath, "UPDATE file SET place_hint = 'Darkhan'")
        #expect(try merge().foldersChanged == 1)
        #expect(Set(try SQLiteFiles.strings(allPath, "SELECT place_hint FROM file")) == ["Darkhan"])

        // A shard whose ingest has not finished (killed, interrupted, still running) is refused: the
        // folders it did not reach would look deleted.
        let token = try Catalog(path: allPath, mode: .readOnly).currentToken()
        _ = try Catalog(path: shardPath, mode: .readWrite(create: false)).beginRun(roots: [library])
        #expect {
            try merge()
        } throws: { error in
            "\(error)".contains("not finished")
        }
        #expect(try Catalog(path: allPath, mode: .readOnly).changes(since: token).isEmpty)
    }

    /// A folder of more than 256 files is judged in slices on every core when merged: the merged catalog is
    /// the one an ingest makes; a file whose stored facts do not read stops the merge with its name. Also with
    /// the folder taken as large (`largeFolder` 1): its facts read in windows and spooled, its column values
    /// made by the writer.
    @Test(arguments: [IngestOptions.defaultLargeFolder, 1])
    func aBigFolderMergesAsOneIngestMakesIt(largeFolder: Int) async throws {
        let s = try TestScratch("merge-big-folder")
        let dir = s.path("big")
        try Corpus.pngFolder(at: dir, count: 300)
        let shardPath = s.path("shard.sqlite"), allPath = s.path("all.sqlite"), onePath = s.path("one.sqlite")
        for p in [shardPath, onePath] {
            let c = try Catalog(path: p, mode: .readWrite(create: true))
            _ = try await Ingestor(options: IngestOptions(roots: [dir], concurrency: 2), catalog: c).run()
        }
        func merge() throws -> Merger.Summary {
            var m = try Merger(
                into: try Catalog(path: allPath, mode: .readWrite(create: true)),
                shards: [Merger.Shard(path: shardPath, catalog: try Catalog(path: shardPath, mode: .readOnly))]
            )
            m.largeFolder = largeFolder
            return try m.run()
        }
        _ = try merge()
        let merged = try CatalogSnapshot(path: allPath), one = try CatalogSnapshot(path: onePath)
        #expect(merged.assets.count == 300)
        #expect(merged.assets == one.assets, "\(merged.differences(from: one))")
        let facts = "SELECT path || hex(facts) FROM file_facts ORDER BY path"
        #expect(try SQLiteFiles.strings(allPath, facts) == SQLiteFiles.strings(onePath, facts), "the facts merged byte for byte")

        try SQLiteFiles.execute(shardPath, "UPDATE file_facts SET facts = x'7b226b696e64223a' WHERE path = '\(dir)/1299.png'")
        try SQLiteFiles.execute(shardPath, "UPDATE file SET size = size + 1 WHERE path = '\(dir)/1299.png'")  // the folder changed
        #expect {
            try merge()
        } throws: { error in
            "\(error)".contains("1299.png") && "\(error)".contains("cannot be read")
        }
    }
}
