import Catalog
import Foundation
import TestSupport
import Testing

/// Issue 14 through the binary: with the roots gone (an unmounted NAS), `shoebox rederive` derives a rules
/// change from the catalog alone — strace shows no file under the old root touched — keeps every id and
/// records only the real differences; `show --facts` prints every stored fact with its tag or box.
@Suite(.serialized) struct RederiveTests {
    typealias T = ReadOnlyAndLimitsTests

    @Test(
        .enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"),
        .enabled(if: ReadOnlyAndLimitsTests.straceWorks, "strace is missing or ptrace is not permitted here"))
    func rederiveWithTheRootsOfflineReadsNoSourceFile() throws {
        let s = try TestScratch("rederive")
        let tree = s.url.appendingPathComponent("tree")
        _ = try CrashSafetyTests.makeTree(at: tree, copies: 1)
        let catalog = s.path("c.sqlite")
        #expect(try T.exec(T.binary, ["ingest", "--catalog", catalog, "--progress", "none", tree.path]).status == 0)
        let before = try Catalog(path: catalog, mode: .readOnly)
        let ids = try before.allAssets(includeTrashed: true).map(\.localIdentifier).sorted()
        let token = try before.currentToken()
        let screenshot = try #require(try before.allAssets().first { $0.asset.mediaSubtypes.contains(.photoScreenshot) })
        // The facts of one asset, from the catalog alone, each with where it was read.
        let facts = try T.exec(T.binary, ["show", screenshot.localIdentifier, "--facts", "--catalog", catalog])
        #expect(facts.status == 0)
        #expect(facts.stdout.contains("pixelWidth = ") && facts.stdout.contains("   ← "), "\(facts.stdout.prefix(2000))")

        // The NAS is unmounted: the tree is gone from where the catalog knows it.
        let away = s.path("away")
        #expect(rename(tree.path, away) == 0)
        let log = s.path("trace.log")
        let r = try T.exec(
            try #require(T.which("strace")),
            [
                "-f", "-qq", "-s", "4096", "-e", "trace=%file", "-o", log, "/usr/bin/env", "SHOEBOX_TEST_RULES_VARIANT=1",
                T.binary, "rederive",
                "--catalog", catalog,
            ])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stdout.contains("mediaSubtypes: 2"), "\(r.stdout)")
        let touched = T.calls(in: try String(contentsOfFile: log, encoding: .utf8)).filter {
            $0.1.hasPrefix(tree.path + "/") || $0.1 == tree.path || $0.1.hasPrefix(away + "/")
        }
        #expect(touched.isEmpty, "source paths touched:\n\(touched.prefix(10).map(\.2).joined(separator: "\n"))")
        let after = try Catalog(path: catalog, mode: .readOnly)
        #expect(try after.allAssets(includeTrashed: true).map(\.localIdentifier).sorted() == ids)
        let changes = try after.changes(since: token, objectType: "asset")
        #expect(
            changes.count == 2 && changes.allSatisfy { $0.changeType == "updated" && $0.properties == ["mediaSubtypes"] },
            "\(changes)")
    }
}
