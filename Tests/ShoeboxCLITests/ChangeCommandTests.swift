import Foundation
import Testing
import TestSupport

/// `shoebox change` end to end: exit codes of --apply (0 applied, 1 failed change set, 2 usage) and
/// `query --changes`.
@Suite(.serialized) struct ChangeCommandTests {
    static func shoebox(_ args: [String]) throws -> ProbeCommandTests.Run { try ProbeCommandTests.shoebox(args) }

    @Test func usageErrorsExitTwo() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-change-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cat = dir.appendingPathComponent("c.sqlite").path
        #expect(try Self.shoebox(["change", "--catalog", cat]).status == 2)  // no action
        #expect(try Self.shoebox(["change", "--favorite", "--hidden", "X", "--catalog", cat]).status == 2)
        #expect(try Self.shoebox(["change", "--add", "X", "--catalog", cat]).status == 2)  // no --to
        #expect(try Self.shoebox(["change", "--location", "north", "X", "--catalog", cat]).status == 2)
        let bad = dir.appendingPathComponent("bad.json")
        try Data("{\"changes\":[{\"op\":\"frobnicate\"}]}".utf8).write(to: bad)
        let r = try Self.shoebox(["change", "--apply", bad.path, "--catalog", cat])
        #expect(r.status == 2, "stderr: \(r.stderr)")
        #expect(try Self.shoebox(["change", "--apply", dir.appendingPathComponent("missing.json").path, "--catalog", cat]).status == 2)
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func applyExitCodesAndQueryChanges() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-change-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cat = dir.appendingPathComponent("c.sqlite").path
        let corpus = try #require(Corpus.root)
        let ingest = try Self.shoebox(["ingest", corpus.appendingPathComponent("lychee").path, "--catalog", cat, "--progress", "none"])
        #expect(ingest.status == 0, "stderr: \(ingest.stderr)")
        let q = try Self.shoebox(["query", "--sort", "creationDate", "--format", "csv", "--fields", "localIdentifier", "--save", "all", "--catalog", cat])
        let ids = q.stdout.split(separator: "\n").dropFirst().map(String.init)
        #expect(ids.count >= 4)

        // A failing set: exit 1, the change named, nothing applied.
        let fail = dir.appendingPathComponent("fail.json")
        try Data(
            """
            {"changes":[{"op":"createAlbum","placeholder":"$a","title":"Trip"},{"op":"favorite","asset":"\(ids[0])","value":true},
            {"op":"addAssets","album":"$b","assets":["\(ids[1])"]}]}
            """.utf8
        ).write(to: fail)
        let f = try Self.shoebox(["change", "--apply", fail.path, "--catalog", cat])
        #expect(f.status == 1)
        #expect(f.stderr.contains("change 2 (addAssets)") && f.stderr.contains("$b"), "stderr: \(f.stderr)")
        #expect(try Self.shoebox(["query", "--favorite", "--count", "--catalog", cat]).stdout == "0\n")

        // A good one: exit 0, placeholders printed.
        let ok = dir.appendingPathComponent("ok.json")
        try Data(
            """
            {"changes":[{"op":"createAlbum","placeholder":"$a","title":"Trip"},{"op":"addAssets","album":"$a","assets":["\(ids[1])","\(ids[2])"]},
            {"op":"favorite","asset":"\(ids[0])","value":true},{"op":"setCreationDate","asset":"\(ids[0])","date":"2099-01-01T00:00:00"}]}
            """.utf8
        ).write(to: ok)
        let g = try Self.shoebox(["change", "--apply", ok.path, "--catalog", cat])
        #expect(g.status == 0, "stderr: \(g.stderr)")
        #expect(g.stdout.hasPrefix("$a\t") && g.stdout.contains("/L0/040"))
        // A new date moves the asset between moments at the next ingest, which it says; a favorite does not.
        #expect(g.stderr.contains("note: moments, places and bursts follow at the next 'shoebox ingest'"), "stderr: \(g.stderr)")
        #expect(try Self.shoebox(["query", "--favorite", "--count", "--catalog", cat]).stdout == "1\n")
        // One-off flags.
        let favorite = try Self.shoebox(["change", "--favorite", ids[2], "--catalog", cat])
        #expect(favorite.status == 0 && !favorite.stderr.contains("note:"), "stderr: \(favorite.stderr)")
        #expect(try Self.shoebox(["change", "--delete", ids[3], "--catalog", cat]).status == 0)
        #expect(try Self.shoebox(["change", "--purge", ids[0], "--catalog", cat]).status == 1)  // not trashed

        // Change details of the saved fetch: ids[3] removed, ids[0] changed and moved to the end.
        let table = try Self.shoebox(["query", "--changes", "all", "--catalog", cat])
        #expect(table.stdout.hasPrefix("CHANGE") && table.stdout.contains(ids[3]) && table.stdout.lowercased().contains(".jp"), "\(table.stdout)")
        let c = try Self.shoebox(["query", "--changes", "all", "--update", "--format", "csv", "--catalog", cat])
        #expect(c.status == 0, "stderr: \(c.stderr)")
        let lines = c.stdout.split(separator: "\n").map(String.init)
        // change,index,localIdentifier,filename: the file name is there for people.
        #expect(lines.contains { $0.hasPrefix("removed,3,\(ids[3]),") && !$0.hasSuffix(",") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("changed,\(ids.count - 2),\(ids[0]),") })
        #expect(lines.contains { $0.hasPrefix("moved,0->\(ids.count - 2),") })
        let again = try Self.shoebox(["query", "--changes", "all", "--format", "ndjson", "--catalog", cat])
        #expect(again.status == 0 && again.stdout.isEmpty, "\(again.stdout)")
        #expect(try Self.shoebox(["query", "--changes", "nope", "--catalog", cat]).status == 2)
    }
}
