import Foundation
import Testing
import TestSupport

/// `shoebox thumbnails`: summary, exit 1 on errors, predicates, re-runs, usage errors.
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

        #expect(try ProbeCommandTests.shoebox(["thumbnails", "--catalog", catalog, "--sizes", "abc", "--out", out]).status == 2)
        #expect(try ProbeCommandTests.shoebox(["thumbnails", "--catalog", catalog, "--crop", "0.9,0,0.5,1", "--out", out]).status == 2)
        #expect(try ProbeCommandTests.shoebox(["thumbnails", "--catalog", catalog, "--mode", "stretch", "--out", out]).status == 2)
        let badPredicate = try ProbeCommandTests.shoebox(["thumbnails", "mediaType ==", "--catalog", catalog, "--out", out])
        #expect(badPredicate.status == 2)
    }
}
