import Catalog
import Foundation
import TestSupport
import Testing

/// Issue 16 item 8: `--dry-run` for `ingest`, `change` and `thumbnails --prune` says what would happen and
/// writes nothing: no catalog made, the catalog's bytes and mtime unchanged, no thumbnail deleted.
@Suite struct DryRunTests {
    static func shoebox(_ args: [String]) throws -> Subprocess.Run { try Subprocess.run(ProbeCommandTests.binary.path, args) }

    /// The catalog file's bytes and modification time, and a non-empty `-wal` or `-journal` beside it (an
    /// empty `-wal` and a `-shm` are what any read-only open of a WAL database leaves).
    static func state(_ catalog: String) throws -> String {
        let attrs = try FileManager.default.attributesOfItem(atPath: catalog)
        let data = try Data(contentsOf: URL(fileURLWithPath: catalog))
        var s = "\(data.hashValue) \((attrs[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        for suffix in ["-wal", "-journal"] {
            if let a = try? FileManager.default.attributesOfItem(atPath: catalog + suffix), (a[.size] as? Int ?? 0) > 0 {
                s += " \(suffix) \(a[.size] ?? 0)"
            }
        }
        return s
    }

    @Test func ingestDryRunWritesNothing() throws {
        let scratch = try TestScratch("dry-ingest")
        let root = try NamesAndGlobsTests.iphone(scratch)
        let cat = scratch.path("c.sqlite")
        // No catalog: none is made, the folder stays empty of it.
        let first = try Self.shoebox(["ingest", root, "--include", "*.JPG", "--dry-run", "--catalog", cat, "--progress", "none"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            first.stdout == """
                dry run: nothing was written to \(cat) (from --catalog)
                  would probe 9 of 9 files, insert 4 assets, update 0, move 0 to Recently Deleted, delete 0
                  outcomes: 0 damaged (catalogued), 0 failed (not catalogued), 0 skipped as not media
                  probe \(root)/IMG_0001.AAE
                  probe \(root)/IMG_0001.JPG
                  probe \(root)/IMG_0001.MOV
                  probe \(root)/IMG_0002.JPG
                  probe \(root)/IMG_0003.JPG
                  probe \(root)/IMG_0003.MOV
                  probe \(root)/IMG_0007.JPG
                  probe \(root)/IMG_E0001.JPG
                  probe \(root)/IMG_E0001.MOV
                  insert \(root)/IMG_0001.JPG
                  insert \(root)/IMG_0002.JPG
                  insert \(root)/IMG_0003.JPG
                  insert \(root)/IMG_0007.JPG

                """)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["iphone"])

        // An existing catalog: the dry run's counts are the next ingest's, and the catalog is untouched.
        #expect(try Self.shoebox(["ingest", root, "--catalog", cat, "--progress", "none"]).status == 0)
        try FileManager.default.removeItem(atPath: root + "/IMG_0007.JPG")
        try FileManager.default.copyItem(
            atPath: Corpus.fixtures.appendingPathComponent("generated/panorama.jpg").path, toPath: root + "/PANO.jpg")
        let before = try Self.state(cat)
        let dry = try Self.shoebox(["ingest", root, "--dry-run", "--catalog", cat, "--progress", "none"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(
            dry.stdout == """
                dry run: nothing was written to \(cat) (from --catalog)
                  would probe 1 of 15 files, insert 1 assets, update 0, move 1 to Recently Deleted, delete 0
                  outcomes: 0 damaged (catalogued), 0 failed (not catalogued), 0 skipped as not media
                  probe \(root)/PANO.jpg
                  insert \(root)/PANO.jpg
                  trash \(root)/IMG_0007.JPG

                """)
        #expect(try Self.state(cat) == before)
        let pruned = try Self.shoebox(["ingest", root, "--dry-run", "--prune", "--catalog", cat, "--progress", "none"])
        #expect(pruned.stdout.contains("move 0 to Recently Deleted, delete 1\n"), "\(pruned.stdout)")
        #expect(pruned.stdout.hasSuffix("  delete \(root)/IMG_0007.JPG\n"))
        #expect(try Self.state(cat) == before)
        let real = try Self.shoebox(["ingest", root, "--catalog", cat, "--progress", "none"])
        #expect(
            real.stdout.contains("\n  probed 1, unchanged 14, folders changed 1\n  assets inserted 1, updated 0, deleted 1;"),
            "\(real.stdout)")
    }

    /// The dry run's insert/update lines are the ingest's own counts: what organize sets on assets the run
    /// inserted (here a burst frame's `representsBurst`) does not make an inserted asset an update too, in the
    /// counts or in the history (the `inserted` record covers it).
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func dryRunCountsWhatTheIngestCounts() throws {
        let scratch = try TestScratch("dry-counts")
        let root = scratch.path("media_types")
        try FileManager.default.copyItem(atPath: try #require(Corpus.root).appendingPathComponent("osxphotos/media_types").path, toPath: root)
        let cat = scratch.path("c.sqlite")
        let dry = try Self.shoebox(["ingest", root, "--dry-run", "--catalog", cat, "--progress", "none"])
        #expect(dry.status == 0, "\(dry.stderr)")
        let real = try Self.shoebox(["ingest", root, "--catalog", cat, "--progress", "none"])
        #expect(real.status == 0, "\(real.stderr)")
        // The case this guards: organize changed an asset the run had just inserted (a burst's representative).
        let catalog = try Catalog(path: cat, mode: .readOnly)
        #expect(try catalog.allAssets().contains { $0.asset.representsBurst })
        let history = try catalog.changes(since: try #require(try catalog.tokens(forChanges: [0]).first), objectType: "asset")
        #expect(history.allSatisfy { $0.changeType == "inserted" }, "\(history.map { ($0.changeType, $0.properties) })")
        let counts = try #require(real.stdout.split(separator: "\n").first { $0.contains("assets inserted") })
        let inserted = try #require(Int(counts.split(separator: " ")[2].dropLast()))
        #expect(counts.contains("updated 0, deleted 0"), "\(counts)")
        #expect(dry.stdout.contains("insert \(inserted) assets, update 0, move 0 to Recently Deleted, delete 0"), "\(dry.stdout)")
        let listed = dry.stdout.split(separator: "\n").filter { $0.hasPrefix("  insert ") || $0.hasPrefix("  update ") }
        #expect(listed.count == inserted)
    }

    @Test func changeDryRunAppliesNothing() throws {
        let scratch = try TestScratch("dry-change")
        let root = try NamesAndGlobsTests.iphone(scratch)
        let cat = scratch.path("c.sqlite")
        #expect(try Self.shoebox(["ingest", root, "--catalog", cat, "--progress", "none"]).status == 0)
        let asset = try #require(try Catalog(path: cat, mode: .readOnly).findAsset("IMG_0002.JPG")).localIdentifier
        let dump = try Catalog(path: cat, mode: .readOnly).dump()
        let before = try Self.state(cat)
        let fav = try Self.shoebox(["change", "--favorite", asset, "--dry-run", "--catalog", cat])
        #expect(fav.status == 0, "\(fav.stderr)")
        #expect(
            fav.stdout
                == "dry run: nothing was applied to \(cat); the change history would record:\n  updated asset \(asset) (isFavorite)\n"
        )
        let album = try Self.shoebox(["change", "--create-album", "Trip", "--dry-run", "--catalog", cat])
        #expect(
            album.stdout
                == "dry run: nothing was applied to \(cat); the change history would record:\n  inserted assetCollection $new\n")
        let bad = try Self.shoebox(["change", "--add", asset, "--to", "Nope", "--dry-run", "--catalog", cat])
        #expect(bad.status == 1)
        #expect(
            bad.stderr.hasPrefix("error: change 0 (addAssets): no album titled or identified 'Nope'"), "\(bad.stderr)")
        #expect(try Self.state(cat) == before)
        #expect(try Catalog(path: cat, mode: .readOnly).dump() == dump)
        // --create --dry-run on no catalog: the set on an empty one; no file made.
        let none = scratch.path("none.sqlite")
        let created = try Self.shoebox(["change", "--create-album", "Trip", "--create", "--dry-run", "--catalog", none])
        #expect(
            created.stdout
                == "dry run: nothing was applied to \(none); the change history would record:\n  inserted assetCollection $new\n",
            "\(created.stderr)")
        #expect(!FileManager.default.fileExists(atPath: none))
    }

    @Test func thumbnailsPruneDryRunDeletesNothing() throws {
        let scratch = try TestScratch("dry-thumbs")
        let root = try NamesAndGlobsTests.iphone(scratch)
        let cat = scratch.path("c.sqlite")
        let out = scratch.path("thumbs")
        #expect(try Self.shoebox(["ingest", root, "--catalog", cat, "--progress", "none"]).status == 0)
        let made = try Self.shoebox(["thumbnails", "--out", out, "--sizes", "64", "--catalog", cat, "--progress", "none"])
        #expect(made.status == 0, "\(made.stderr)")
        let asset = try #require(try Catalog(path: cat, mode: .readOnly).findAsset("IMG_0007.JPG"))
        #expect(try Self.shoebox(["change", "--delete", asset.localIdentifier, "--catalog", cat]).status == 0)
        #expect(try Self.shoebox(["change", "--purge", asset.localIdentifier, "--catalog", cat]).status == 0)
        let files = { FileManager.default.enumerator(atPath: out)?.allObjects.compactMap { $0 as? String }.sorted() ?? [] }
        let before = files()
        let stale = try #require(before.first { $0.contains(asset.cloudIdentifier.replacingOccurrences(of: ":", with: "-")) })
        let dry = try Self.shoebox(["thumbnails", "--out", out, "--prune", "--dry-run", "--catalog", cat])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout == "dry run: would prune 1 stale files, keep 7; nothing was rendered or deleted\n  \(out)/\(stale)\n")
        #expect(files() == before)
        #expect(try Self.shoebox(["thumbnails", "--out", out, "--dry-run", "--catalog", cat]).status == 2)  // --dry-run goes with --prune
    }
}
