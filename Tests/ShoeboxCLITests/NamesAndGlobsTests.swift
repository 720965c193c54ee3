import Foundation
import TestSupport
import Testing

/// Issue 16 item 6: globs and names as people type them — extensions ignore case and `--include` keeps an
/// asset's companions; `show` takes ids, paths and unique file names; albums by title or id, an ambiguous
/// or unknown album being an error that says so.
@Suite struct NamesAndGlobsTests {
    static func shoebox(_ args: [String], in dir: String? = nil) throws -> Subprocess.Run {
        try Subprocess.run(ProbeCommandTests.binary.path, args, directory: dir)
    }

    /// The generated iPhone folder (Live Photos, edits, AAE files) copied to a scratch folder.
    static func iphone(_ scratch: TestScratch) throws -> String {
        let src = Corpus.fixtures.appendingPathComponent("generated/library/iphone").path
        try FileManager.default.copyItem(atPath: src, toPath: scratch.path("iphone"))
        return scratch.path("iphone")
    }

    static func lines(_ s: String) -> [String] { s.split(separator: "\n").map(String.init) }

    @Test func includeKeepsWholeAssetsWhateverTheCase() throws {
        let scratch = try TestScratch("globs")
        let root = try Self.iphone(scratch)
        let cat = scratch.path("c.sqlite")
        let r = try Self.shoebox(["ingest", root, "--include", "*.jpg", "--catalog", cat, "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        // IMG_0001.JPG, .MOV, .AAE, IMG_E0001.JPG/.MOV; IMG_0002.JPG; IMG_0003.JPG/.MOV; IMG_0007.JPG — not the
        // lone movies, the screen recording or IMG_O0008.AAE (no IMG_0008 still).
        #expect(Self.lines(r.stdout).first?.hasPrefix("ingest run 1 into \(cat): 9 files in ") == true, "\(r.stdout)")
        let show = try Self.shoebox(["show", "IMG_0001.JPG", "--catalog", cat])
        let resources = Self.lines(show.stdout).drop { $0 != "  resources:" }.dropFirst().prefix { $0.hasPrefix("    ") }
            .map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
        #expect(
            resources == [
                "photo IMG_0001.JPG", "pairedVideo IMG_0001.MOV", "fullSizePhoto IMG_E0001.JPG",
                "fullSizePairedVideo IMG_E0001.MOV", "adjustmentData IMG_0001.AAE",
            ])
        let csv = try Self.shoebox(["query", "--sort", "filename", "--format", "csv", "--fields", "filename", "--catalog", cat])
        #expect(csv.stdout == "filename\nIMG_0001.JPG\nIMG_0002.JPG\nIMG_0003.JPG\nIMG_0007.JPG\n", "\(csv.stderr)")

        // An exclude drops only what it matches: the stills keep their AAE and render, not their movies.
        let cat2 = scratch.path("c2.sqlite")
        let r2 = try Self.shoebox([
            "ingest", root, "--include", "*.JPG", "--exclude", "*.mov", "--catalog", cat2, "--progress", "none",
        ])
        #expect(Self.lines(r2.stdout).first?.hasPrefix("ingest run 1 into \(cat2): 6 files in ") == true, "\(r2.stdout)")
    }

    @Test func showTakesIdsPathsAndUniqueFileNames() throws {
        let scratch = try TestScratch("show-names")
        let root = try Self.iphone(scratch)
        let cat = scratch.path("c.sqlite")
        #expect(try Self.shoebox(["ingest", root, "--catalog", cat, "--progress", "none"]).status == 0)
        let byName = try Self.shoebox(["show", "IMG_E0001.MOV", "--catalog", cat])
        #expect(byName.status == 0, "\(byName.stderr)")
        let first = Self.lines(byName.stdout)
        #expect(first.first == "IMG_0001.JPG")
        let lid = try #require(first.first { $0.hasPrefix("  localIdentifier") }?.split(separator: " ").last.map(String.init))
        let cloud = try #require(first.first { $0.hasPrefix("  cloudIdentifier") }?.split(separator: " ").last.map(String.init))
        for key in [
            lid, cloud, root + "/IMG_0001.AAE", "IMG_0001.MOV", "iphone/IMG_E0001.JPG", "./iphone/../iphone/IMG_0001.JPG",
        ] {
            let r = try Self.shoebox(["show", key, "--catalog", cat], in: scratch.url.path)
            #expect(Self.lines(r.stdout).first == "IMG_0001.JPG", "\(key): \(r.stderr)")
        }
        let missing = try Self.shoebox(["show", "IMG_9999.JPG", "--catalog", cat])
        #expect(missing.status == 1)
        #expect(missing.stderr == "error: no asset matches 'IMG_9999.JPG'\n")

        // A file name two assets have is an error listing both; their root-relative paths tell them apart.
        for sub in ["x", "y"] {
            try FileManager.default.createDirectory(atPath: root + "/" + sub, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: root + "/IMG_0002.JPG", toPath: root + "/\(sub)/DUP.JPG")
        }
        #expect(try Self.shoebox(["ingest", root, "--catalog", cat, "--progress", "none"]).status == 0)
        let twice = try Self.shoebox(["show", "DUP.JPG", "--catalog", cat])
        #expect(twice.status == 2)
        #expect(twice.stdout.isEmpty)
        let err = Self.lines(twice.stderr)
        #expect(err.first == "error: 2 assets have a file named 'DUP.JPG'; give one's identifier or path:")
        #expect(
            err.dropFirst().map { String($0.split(separator: " ").last ?? "") }.sorted() == [
                root + "/x/DUP.JPG", root + "/y/DUP.JPG",
            ])
        #expect(Self.lines(try Self.shoebox(["show", "y/DUP.JPG", "--catalog", cat]).stdout).first == "y/DUP.JPG")
    }

    @Test func albumsByTitleOrIdentifier() throws {
        let scratch = try TestScratch("albums")
        let root = try Self.iphone(scratch)
        let cat = scratch.path("c.sqlite")
        #expect(try Self.shoebox(["ingest", root, "--catalog", cat, "--progress", "none"]).status == 0)
        let ids = Self.lines(
            try Self.shoebox(["query", "--sort", "filename", "--format", "csv", "--fields", "localIdentifier", "--catalog", cat])
                .stdout
        ).dropFirst()
        let asset = try #require(ids.first)
        let best = Self.lines(try Self.shoebox(["change", "--create-album", "Best of", "--catalog", cat]).stdout).first ?? ""
        // A title that one album has works for change --to and query --in-album alike.
        let add = try Self.shoebox(["change", "--add", asset, "--to", "Best of", "--catalog", cat])
        #expect(add.status == 0, "\(add.stderr)")
        for ref in ["Best of", best] {
            let q = try Self.shoebox([
                "query", "--in-album", ref, "--format", "csv", "--fields", "localIdentifier", "--catalog", cat,
            ])
            #expect(q.stdout == "localIdentifier\n\(asset)\n", "\(ref): \(q.stderr)")
        }
        // Two albums titled alike: an error listing both, for query and change; the identifier still works.
        let a = Self.lines(try Self.shoebox(["change", "--create-album", "heic", "--catalog", cat]).stdout).first ?? ""
        let b = Self.lines(try Self.shoebox(["change", "--create-album", "heic", "--catalog", cat]).stdout).first ?? ""
        let listing = [a, b].sorted().map { "  \($0)  0 assets" }.joined(separator: "\n")
        let q = try Self.shoebox(["query", "--in-album", "heic", "--catalog", cat])
        #expect(q.status == 2)
        #expect(q.stdout.isEmpty)
        #expect(q.stderr == "error: 2 albums are titled 'heic'; give one's identifier:\n\(listing)\n")
        let c = try Self.shoebox(["change", "--add", asset, "--to", "heic", "--catalog", cat])
        #expect(c.status == 1)
        #expect(
            c.stderr
                == "error: change 0 (addAssets): 2 albums are titled 'heic'; give one's identifier:; nothing was applied\n\(listing)\n"
        )
        #expect(try Self.shoebox(["change", "--add", asset, "--to", a, "--catalog", cat]).status == 0)
        // An unknown album is an error, not 0 results.
        let unknown = try Self.shoebox(["query", "--in-album", "Nope", "--count", "--catalog", cat])
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "error: no album titled or identified 'Nope' ('shoebox collections' lists them)\n")
        #expect(try Self.shoebox(["change", "--add", asset, "--to", "Nope", "--catalog", cat]).status == 1)
    }
}
