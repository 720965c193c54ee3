import Catalog
import Foundation
import Pipeline
import TestSupport
import Testing

/// Issue 20: the corpus and the generated library ingested as N = 1, 3 and 7 shards in parallel processes
/// and merged equal one ingest of the whole (every asset column, resources, pairs, bursts, moments, albums,
/// smart-album counts, collection lists, error and file rows); a merge again changes nothing; a shard
/// re-run after one file changed, merged, records exactly that change and keeps every identifier.
@Suite(.serialized) struct ShardMergeTests {
    static let binary = ProbeCommandTests.binary.path

    /// A library root whose top-level folders are the corpus folders and the generated library's folders
    /// (symbolic links: read-only sources), plus `mutable`, a scratch copy of the generated iPhone folder.
    static func library(in s: TestScratch) throws -> String {
        let lib = s.path("lib")
        try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: true)
        let fm = FileManager.default
        let corpus = try #require(Corpus.root)
        for name in try fm.contentsOfDirectory(atPath: corpus.path).sorted() {
            var dir: ObjCBool = false
            let p = corpus.appendingPathComponent(name).path
            if fm.fileExists(atPath: p, isDirectory: &dir), dir.boolValue {
                try fm.createSymbolicLink(atPath: lib + "/" + name, withDestinationPath: p)
            }
        }
        let generated = Corpus.fixtures.appendingPathComponent("generated/library")
        for name in try fm.contentsOfDirectory(atPath: generated.path).sorted() {
            try fm.createSymbolicLink(
                atPath: lib + "/gen-" + name, withDestinationPath: generated.appendingPathComponent(name).path)
        }
        let cp = try Subprocess.run("/bin/cp", ["-R", generated.appendingPathComponent("iphone").path, lib + "/mutable"])
        #expect(cp.status == 0, "\(cp.stderr)")
        return lib
    }

    /// Runs the shards of one ingest as parallel processes; returns their exit statuses.
    static func ingestShards(_ lib: String, count: Int, catalog: (Int) -> String, viaJobIndex: Bool, only: [Int]? = nil) throws
        -> [Int32]
    {
        let indexes = only ?? Array(0..<count)
        var processes: [Process] = []
        for i in indexes {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: binary)
            var env = Subprocess.environment
            var args = ["ingest", lib, "--catalog", catalog(i), "--progress", "none", "--summary", "json"]
            if viaJobIndex {
                env["JOB_COMPLETION_INDEX"] = String(i)  // what a Kubernetes Indexed Job gives each pod
                args += ["--shards", String(count)]
            } else {
                args += ["--shard", "\(i)/\(count)"]
            }
            p.arguments = args
            p.environment = env
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            processes.append(p)
        }
        return processes.map { p in
            p.waitUntilExit()
            return p.terminationStatus
        }
    }

    static func exec(_ args: [String]) throws -> Subprocess.Run { try Subprocess.run(binary, args) }

    /// Smart albums are evaluated when read: their counts, by title, and every other collection's count.
    static func collectionCounts(_ path: String) throws -> [String: Int] {
        let c = try Catalog(path: path, mode: .readOnly)
        var out: [String: Int] = [:]
        for col in try c.collections() where !col.isSavedFetch {
            out["\(col.type)|\(col.subtype)|\(col.title)|\(col.startDate ?? "")", default: 0] += col.count
        }
        return out
    }

    static func expectSame(_ a: String, _ b: String, _ label: String) throws {
        let x = try CatalogSnapshot(path: a)
        let y = try CatalogSnapshot(path: b)
        #expect(!x.assets.isEmpty)
        #expect(x == y, "\(label): \(x.differences(from: y).joined(separator: "\n"))")
        #expect(try collectionCounts(a) == collectionCounts(b), "\(label): collection counts differ")
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func shardsMergedEqualOneIngest() throws {
        let s = try TestScratch("shards")
        let lib = try Self.library(in: s)
        let single = s.path("single.sqlite")
        let one = try Self.exec(["ingest", lib, "--catalog", single, "--progress", "none"])
        #expect(one.status <= 1, "\(one.stderr)")
        let counts = try Self.collectionCounts(single)
        #expect(counts.keys.contains { $0.hasPrefix("2|") }, "no smart album in the single ingest")

        for n in [1, 3, 7] {
            let statuses = try Self.ingestShards(lib, count: n, catalog: { s.path("s\(n)-\($0).sqlite") }, viaJobIndex: n == 7)
            #expect(statuses.allSatisfy { $0 <= 1 }, "N=\(n): shard exit statuses \(statuses)")
            let shards = (0..<n).map { s.path("s\(n)-\($0).sqlite") }
            // Every folder in exactly one shard: the merge refuses overlaps, and the union must be complete.
            let all = s.path("all-\(n).sqlite")
            let m = try Self.exec(["merge"] + shards + ["--catalog", all, "--summary", "json"])
            #expect(m.status == 0, "N=\(n): \(m.stderr)")
            try Self.expectSame(single, all, "N=\(n)")
            // Idempotent: a second merge finds nothing to do and records nothing.
            let token = try Catalog(path: all, mode: .readOnly).currentToken()
            let again = try Self.exec(["merge"] + shards + ["--catalog", all])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains("0 folders changed"), "\(again.stdout)")
            #expect(try Catalog(path: all, mode: .readOnly).changes(since: token).isEmpty)
        }
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func aShardRerunAfterOneChangeRecordsExactlyThatChange() throws {
        let s = try TestScratch("shard-change")
        let lib = try Self.library(in: s)
        let n = 3
        let shard = { (i: Int) in s.path("s-\(i).sqlite") }
        #expect(try Self.ingestShards(lib, count: n, catalog: shard, viaJobIndex: false).allSatisfy { $0 <= 1 })
        let all = s.path("all.sqlite")
        #expect(try Self.exec(["merge"] + (0..<n).map(shard) + ["--catalog", all]).status == 0)
        let single = s.path("single.sqlite")
        #expect(try Self.exec(["ingest", lib, "--catalog", single, "--progress", "none"]).status <= 1)

        let before = try Catalog(path: all, mode: .readOnly)
        let ids = try Self.identifiers(before)
        let token = try before.currentToken()
        let singleToken = try Catalog(path: single, mode: .readOnly).currentToken()
        let changed = lib + "/mutable/IMG_0002.JPG"
        let changedID = try #require(ids[changed], "no asset for \(changed)")

        // One photo of the scratch copy (a Live Photo still) is replaced by another camera's JPEG: the photo
        // changes and its movie becomes an asset of its own. The sources are never written.
        let other = Corpus.fixtures.appendingPathComponent("generated/library/camera/DSC_0010.JPG").path
        try FileManager.default.removeItem(atPath: changed)
        try FileManager.default.copyItem(atPath: other, toPath: changed)
        let owner = ShardAssignment.shard(ofUnit: "mutable", count: n)
        #expect(try Self.ingestShards(lib, count: n, catalog: shard, viaJobIndex: false, only: [owner]).allSatisfy { $0 <= 1 })
        let m = try Self.exec(["merge"] + (0..<n).map(shard) + ["--catalog", all, "--summary", "json"])
        #expect(m.status == 0, "\(m.stderr)")
        #expect(m.stdout.contains("\"foldersChanged\":1,"), "\(m.stdout)")
        // The same change brought into one catalog by an ingest of the whole library.
        #expect(try Self.exec(["ingest", lib, "--catalog", single, "--progress", "none"]).status <= 1)

        let after = try Catalog(path: all, mode: .readOnly)
        let merged = try Self.describe(after.changes(since: token), in: after)
        let expected = try Self.describe(
            Catalog(path: single, mode: .readOnly).changes(since: singleToken), in: Catalog(path: single, mode: .readOnly))
        #expect(
            merged == expected, "merged:\n\(merged.joined(separator: "\n"))\none ingest:\n\(expected.joined(separator: "\n"))")
        #expect(merged.contains { $0.hasPrefix("asset updated \(changed) ") }, "\(merged)")
        #expect(try after.asset(localIdentifier: changedID) != nil)
        let idsAfter = try Self.identifiers(after)
        let kept = ids.filter { idsAfter[$0.key] != $0.value }
        #expect(kept.isEmpty, "identifiers changed: \(kept.keys.sorted().prefix(5))")

        // And the merged catalog still equals one ingest brought up to date the same way.
        try Self.expectSame(single, all, "after the change")
    }

    /// Root + primary path → local identifier, for every asset (trashed included).
    static func identifiers(_ c: Catalog) throws -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: try c.allAssets(includeTrashed: true).map { ($0.root + "/" + $0.asset.id, $0.localIdentifier) })
    }

    /// Change records as what they are about (an asset's path, a collection's title), sorted: comparable
    /// between two catalogs whose identifiers differ.
    static func describe(_ records: [ChangeRecord], in c: Catalog) throws -> [String] {
        let paths = Dictionary(uniqueKeysWithValues: try identifiers(c).map { ($0.value, $0.key) })
        let titles = Dictionary(try c.collections().map { ($0.localIdentifier, $0.title) }, uniquingKeysWith: { a, _ in a })
        return records.map { r in
            let name = paths[r.localIdentifier] ?? titles[r.localIdentifier] ?? r.objectType
            return "\(r.objectType) \(r.changeType) \(name) \(r.properties.joined(separator: ","))"
        }.sorted()
    }

    @Test func shardFlagsAreChecked() throws {
        let s = try TestScratch("shard-flags")
        try FileManager.default.createDirectory(atPath: s.path("lib"), withIntermediateDirectories: true)
        for (args, message) in [
            (["--shard", "3/3"], "--shard takes I/N"),
            (["--shard", "0/2", "--shards", "3"], "disagree"),
            (["--shards", "4"], "JOB_COMPLETION_INDEX"),
        ] {
            let r = try Self.exec(["ingest", s.path("lib"), "--catalog", s.path("c.sqlite"), "--progress", "none"] + args)
            #expect(r.status == 2 && r.stderr.contains(message), "\(args): \(r.status) \(r.stderr)")
        }
        let r = try Self.exec(["merge", s.path("missing.sqlite"), "--catalog", s.path("all.sqlite")])
        #expect(r.status == 2 && r.stderr.hasPrefix("error: "), "\(r.stderr)")
    }
}
