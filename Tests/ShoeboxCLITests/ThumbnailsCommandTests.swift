import Foundation
import Testing
import TestSupport

/// `shoebox thumbnails`: summary, exit 1 on errors, predicates, re-runs, progress, --prune, usage errors.
@Suite struct ThumbnailsCommandTests {
    @Test(.enabled(if: ProbeCommandTests.goodFile != nil, "no fixture or corpus file"))
    func writesSkipsAndReportsErrors() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-thumbs-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let tree = dir.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        let good = try Data(contentsOf: URL(fileURLWithPath: try #require(ProbeCommandTests.goodFile)))
        try good.write(to: tree.appendingPathComponent("good.jpg"))
        try good.prefix(good.count / 2).write(to: tree.appendingPathComponent("truncated.jpg"))
        let catalog = dir.appendingPathComponent("c.sqlite").path
        let out = dir.appendingPathComponent("thumbs").path
        let ingest = try ProbeCommandTests.shoebox(["ingest", tree.path, "--catalog", catalog, "--progress", "none"])
        #expect(ingest.status == 0, "\(ingest.stderr)")

        let r = try ProbeCommandTests.shoebox(["thumbnails", "--catalog", catalog, "--sizes", "64,128", "--out", out])
        #expect(r.status == 1, "\(r.stdout) \(r.stderr)")
        #expect(r.stdout.contains("assets 2: 2 files written, 0 already present"), "\(r.stdout)")
        #expect(r.stdout.contains("1 errors"))
        #expect(r.stderr.contains("truncated.jpg: thumbnail:"), "\(r.stderr)")

        let again = try ProbeCommandTests.shoebox(["thumbnails", "filename == \"good.jpg\"", "--catalog", catalog, "--sizes", "128,64", "--out", out])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("assets 1: 0 files written, 2 already present"), "\(again.stdout)")

        let fill = try ProbeCommandTests.shoebox(["thumbnails", "filename == \"good.jpg\"", "--catalog", catalog, "--sizes", "32", "--mode", "fill", "--format", "webp", "--crop", "0,0,0.5,0.5", "--out", out])
        #expect(fill.status == 0, "\(fill.stderr)")
        #expect(fill.stdout.contains("1 files written"))

        // JSON progress on stderr (at least the first event and the end), the summary line on stdout.
        let json = try ProbeCommandTests.shoebox(["thumbnails", "--catalog", catalog, "--sizes", "64,128", "--progress", "json", "--out", out])
        let events = json.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(events.first?.contains("\"assetsDone\":") == true && events.first?.contains("\"assetsTotal\":2") == true, "\(json.stderr)")
        #expect(events.last == "{\"event\":\"finished\"}")
        #expect(json.stdout.contains("assets 2: 0 files written, 2 already present"), "\(json.stdout)")
        #expect(json.stdout.range(of: #"errors \([0-9.]+ s, [0-9.]+ assets/s\)"#, options: .regularExpression) != nil, "\(json.stdout)")
        #expect(!json.stdout.contains("pruned"))

        // --prune: good.jpg changes in place; its old files (every size, mode and format) go, the new ones and
        // files not named by the scheme stay.
        let foreign = URL(fileURLWithPath: out).appendingPathComponent("keep-me.txt")
        try Data("x".utf8).write(to: foreign)
        var changed = good
        changed.append(contentsOf: [0, 0, 0, 0])  // bytes after EOI: a new content hash, the same picture
        try changed.write(to: tree.appendingPathComponent("good.jpg"))
        #expect(try ProbeCommandTests.shoebox(["ingest", tree.path, "--catalog", catalog, "--progress", "none"]).status != 2)
        let pruned = try ProbeCommandTests.shoebox(["thumbnails", "filename == \"good.jpg\"", "--catalog", catalog, "--sizes", "64,128", "--prune", "--progress", "none", "--out", out])
        #expect(pruned.status == 0, "\(pruned.stderr)")
        #expect(pruned.stdout.contains("assets 1: 2 files written, 0 already present"), "\(pruned.stdout)")
        #expect(pruned.stdout.contains("pruned 3 stale files, kept 2"), "\(pruned.stdout)")
        #expect(FileManager.default.fileExists(atPath: foreign.path))

        #expect(try ProbeCommandTests.shoebox(["thumbnails", "--catalog", catalog, "--sizes", "abc", "--out", out]).status == 2)
        #expect(try ProbeCommandTests.shoebox(["thumbnails", "--catalog", catalog, "--crop", "0.9,0,0.5,1", "--out", out]).status == 2)
        #expect(try ProbeCommandTests.shoebox(["thumbnails", "--catalog", catalog, "--mode", "stretch", "--out", out]).status == 2)
        let badPredicate = try ProbeCommandTests.shoebox(["thumbnails", "mediaType ==", "--catalog", catalog, "--out", out])
        #expect(badPredicate.status == 2)
    }
}
