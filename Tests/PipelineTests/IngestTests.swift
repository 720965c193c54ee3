import Catalog
import Derivatives
import Foundation
import MediaProbe
import PhotoModel
import Testing
import TestSupport

@testable import Pipeline

/// Ingest into a real catalog: the corpus read back equals the ground truth; re-ingests are incremental
/// and the change history says exactly what changed; sources are never written.
@Suite(.serialized) struct IngestTests {
    final class Scratch {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-ingest-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }
        var catalogPath: String { url.appendingPathComponent("catalog.sqlite").path }
    }

    /// Content hashes of every file under `root` (sources must be byte-identical after every ingest).
    static func snapshot(_ root: String) throws -> [String: String] {
        var out: [String: String] = [:]
        Crawler(includeHidden: true).walk([root]) { e in
            out[e.path] = (try? ContentHasher.hash(path: e.path)) ?? "unreadable"
        }
        return out
    }

    static func ingest(_ roots: [String], _ catalog: Catalog, retention: Int? = 30) async throws -> IngestSummary {
        var o = IngestOptions(roots: roots, concurrency: 2)
        o.historyRetentionDays = retention
        return try await Ingestor(options: o, catalog: catalog).run()
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func corpusReadBackFromTheCatalogMatchesGroundTruth() async throws {
        let root = try #require(Corpus.root).path
        let before = try Self.snapshot(root)
        let s = try Scratch()
        let catalog = try Catalog(path: s.catalogPath)
        let summary = try await Self.ingest([root], catalog)
        #expect(summary.filesSeen >= 106)
        let stored = try catalog.allAssets()
        let truth = try GroundTruth.load()
        let report = GroundTruth.compare(Dictionary(uniqueKeysWithValues: stored.map { ($0.asset.id, $0.asset) }), with: truth.assets)
        #expect(report.missing.isEmpty, "missing: \(report.missing)")
        #expect(report.extra.isEmpty, "extra: \(report.extra)")
        for f in report.failures { Issue.record(Comment(rawValue: f)) }
        print("catalog vs assets.json:\n\(report.summary)")
        // Identifiers: PhotoKit-shaped local ids, content-derived cloud ids.
        #expect(stored.allSatisfy { $0.localIdentifier.hasSuffix("/L0/001") && $0.localIdentifier.count == 43 })
        #expect(Set(stored.map(\.cloudIdentifier)).count == stored.count)
        #expect(try catalog.integrityCheck() == "ok")
        #expect(try Self.snapshot(root) == before, "sources changed during ingest")

        // A second catalog of the same files on "another machine" gets the same cloud identifiers.
        let s2 = try Scratch()
        let other = try Catalog(path: s2.catalogPath)
        _ = try await Self.ingest([root], other)
        #expect(Set(try other.allAssets().map(\.cloudIdentifier)) == Set(stored.map(\.cloudIdentifier)))
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func reingestReportsExactlyWhatChanged() async throws {
        let corpus = try #require(Corpus.root)
        let s = try Scratch()
        let tree = s.url.appendingPathComponent("photos")
        try FileManager.default.copyItem(at: corpus.appendingPathComponent("lychee"), to: tree)
        let catalog = try Catalog(path: s.catalogPath)
        let first = try await Self.ingest([tree.path], catalog)
        #expect(first.inserted == 8)  // 9 files: train.jpg + train.mov are one Live Photo

        // An ingest with no change probes nothing and adds no history.
        let t0 = try catalog.currentToken()
        let again = try await Self.ingest([tree.path], catalog)
        #expect(again.filesProbed == 0)
        #expect(try catalog.changes(since: t0).isEmpty)

        let before = Dictionary(uniqueKeysWithValues: try catalog.allAssets().map { ($0.asset.id, $0.localIdentifier) })
        let fm = FileManager.default
        // Modify one, rename one, delete one, add one.
        let h = try FileHandle(forWritingTo: tree.appendingPathComponent("mongolia.jpeg"))
        h.seekToEndOfFile()
        h.write(Data([0, 0, 0, 0]))
        try h.close()
        try fm.moveItem(at: tree.appendingPathComponent("aarhus.jpg"), to: tree.appendingPathComponent("aarhus-renamed.jpg"))
        let aside = s.url.appendingPathComponent("gif-aside.gif")  // out of the tree: vanished (its mtime kept)
        try fm.moveItem(at: tree.appendingPathComponent("gif.gif"), to: aside)
        try fm.copyItem(at: corpus.appendingPathComponent("exiftool-t-images/GPS.jpg"), to: tree.appendingPathComponent("gps.jpg"))

        let t1 = try catalog.currentToken()
        let third = try await Self.ingest([tree.path], catalog)
        // Only the modified and added files are probed; the renamed one (same extension, same version) takes
        // over its stored facts (MovedFacts).
        #expect(third.filesProbed == 2 && third.filesMoved == 1, "\(third.filesProbed) probed, \(third.filesMoved) moved")
        let records = try catalog.changes(since: t1, objectType: "asset")
        let summary = records.map { "\($0.changeType) \($0.localIdentifier)" }.sorted()
        let after = try catalog.allAssets(includeTrashed: true)
        func lid(_ id: String) -> String? { after.first { $0.asset.id == id }?.localIdentifier }
        #expect(lid("aarhus-renamed.jpg") == before["aarhus.jpg"], "a renamed file keeps its asset")
        #expect(lid("mongolia.jpeg") == before["mongolia.jpeg"])
        let expected = [
            "deleted \(before["gif.gif"] ?? "?")", "inserted \(lid("gps.jpg") ?? "?")",
            "updated \(before["aarhus.jpg"] ?? "?")", "updated \(before["mongolia.jpeg"] ?? "?")",
        ].sorted()
        #expect(summary == expected, "records: \(records)")
        #expect(records.first { $0.localIdentifier == before["gif.gif"] }?.properties == ["trashed"])
        #expect(after.first { $0.asset.id == "gif.gif" }?.isTrashed == true, "a vanished file's asset goes to Recently Deleted")
        #expect(try catalog.allAssets().count == 8)

        // The file comes back at its path: its asset leaves Recently Deleted, with its identifier, and the
        // history says so (it used to record "isTrashed" and leave the asset trashed). Its modification time
        // is its creation date (a GIF has no other), so it comes back as it left.
        try fm.moveItem(at: aside, to: tree.appendingPathComponent("gif.gif"))
        let t2 = try catalog.currentToken()
        let fourth = try await Self.ingest([tree.path], catalog)
        #expect(fourth.inserted == 0 && fourth.updated == 1 && fourth.deleted == 0)
        let back = try #require(try catalog.allAssets().first { $0.asset.id == "gif.gif" })
        #expect(back.localIdentifier == before["gif.gif"] && !back.isTrashed)
        let restored = try catalog.changes(since: t2, objectType: "asset").map { "\($0.changeType) \($0.properties)" }
        #expect(restored == ["updated [\"isTrashed\"]"], "\(restored)")
        #expect(try catalog.allAssets().count == 9)
    }

    @Test func tokensExpireAndMalformedTokensAreUnavailable() async throws {
        let s = try Scratch()
        let tree = s.url.appendingPathComponent("t")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: tree.appendingPathComponent("a.jpg"))
        let catalog = try Catalog(path: s.catalogPath)
        let t0 = try catalog.currentToken()
        _ = try await Self.ingest([tree.path], catalog)
        try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: tree.appendingPathComponent("b.jpg"))
        try await Task.sleep(nanoseconds: 1_100_000_000)
        _ = try await Self.ingest([tree.path], catalog, retention: 0)  // compacts everything older than now
        #expect(throws: CatalogError.self) { try catalog.changes(since: t0) }
        do {
            _ = try catalog.changes(since: t0)
        } catch {
            #expect(error.code == .tokenExpired)
            #expect(error.message.contains("refetch"))
        }
        for bad in ["", "garbage", "sbx1.deadbeef.3", "sbx1.x.-1"] {
            do {
                _ = try catalog.changes(since: bad)
                Issue.record("token '\(bad)' was accepted")
            } catch {
                #expect(error.code == .tokenUnavailable, "token '\(bad)'")
            }
        }
    }
}

extension IngestTests {
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func aFileRootCoversOnlyItself() async throws {
        let corpus = try #require(Corpus.root)
        let s = try Scratch()
        let tree = s.url.appendingPathComponent("photos")
        try FileManager.default.copyItem(at: corpus.appendingPathComponent("lychee"), to: tree)
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await Self.ingest([tree.path], catalog)
        let t = try catalog.currentToken()
        try FileManager.default.copyItem(at: corpus.appendingPathComponent("exiftool-t-images/GPS.jpg"), to: tree.appendingPathComponent("new.jpg"))
        let one = try await Self.ingest([tree.appendingPathComponent("new.jpg").path], catalog)
        #expect(one.filesProbed == 1)
        let records = try catalog.changes(since: t, objectType: "asset")
        #expect(records.map(\.changeType) == ["inserted"], "only the new file; nothing else in the folder vanished: \(records)")
        #expect(try catalog.allAssets().count == 9)
    }
}

extension IngestTests {
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func thumbnailsStageWritesOnceAndRecordsErrors() async throws {
        let corpus = try #require(Corpus.root)
        let s = try Scratch()
        let tree = s.url.appendingPathComponent("photos")
        try FileManager.default.copyItem(at: corpus.appendingPathComponent("lychee"), to: tree)
        let jpeg = try Data(contentsOf: corpus.appendingPathComponent("lychee/mongolia.jpeg"))
        try jpeg.prefix(jpeg.count / 2).write(to: tree.appendingPathComponent("cut.jpg"))
        let out = s.url.appendingPathComponent("thumbs")
        var o = IngestOptions(roots: [tree.path], concurrency: 2)
        o.thumbnails = ThumbnailRequest(sizes: [96], outputDirectory: out)
        let catalog = try Catalog(path: s.catalogPath)
        let first = try await Ingestor(options: o, catalog: catalog).run()
        #expect(first.thumbnails?.created.count == 8)
        #expect(first.thumbnails?.errors.map(\.path).contains { $0.hasSuffix("cut.jpg") } == true)
        #expect(try catalog.errors().contains { $0.stage == "thumbnail" && $0.path.hasSuffix("cut.jpg") })
        let second = try await Ingestor(options: o, catalog: catalog).run()
        #expect(second.thumbnails?.created.isEmpty == true)
        #expect(second.thumbnails?.existing == 8)

        // A photo removed from the tree and purged: with prune, the stage deletes its thumbnail only.
        try FileManager.default.removeItem(at: tree.appendingPathComponent("mongolia.jpeg"))
        o.prune = true
        o.pruneThumbnails = true
        let stray = out.appendingPathComponent("notes.txt")
        try Data("mine".utf8).write(to: stray)
        let third = try await Ingestor(options: o, catalog: catalog).run()
        #expect(third.thumbnailsPruned?.removed.count == 1, "\(third.thumbnailsPruned?.removed ?? [])")
        #expect(third.thumbnailsPruned?.kept == 7)
        #expect(FileManager.default.fileExists(atPath: stray.path), "a file outside the scheme was touched")
    }
}

extension IngestTests {
    /// A folder reached again under another path — a link back to an ancestor, a second link to a folder —
    /// is walked once: its files are catalogued once, under the path met first, and the summary says which
    /// paths were not walked again and what they are.
    /// A name that is not UTF-8 (a Latin-1 "café.jpg" from an old card or a zip; a folder too) cannot be a
    /// path in the catalog: each is an error naming its bytes, counted, and the rest of the folder is
    /// catalogued. Made into a `String` its bytes were replaced, and the walk reported "cannot stat: No such
    /// file or directory" for a file that is there. A name is hidden by its first byte: ".\u{301}x.jpg" starts
    /// with ".", though to `hasPrefix` its first character is not ".".
    @Test func namesThatAreNotUTF8AreReportedAndHiddenNamesGoByTheirFirstByte() async throws {
        let s = try Scratch()
        let root = s.url.appendingPathComponent("photos").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Data(HashModeTests.jpeg(size: 4096)).write(to: URL(fileURLWithPath: root + "/ok.jpg"))
        try Data(HashModeTests.jpeg(size: 4096, seed: 2)).write(to: URL(fileURLWithPath: root + "/.\u{301}hidden.jpg"))
        func create(_ bytes: [UInt8], directory: Bool) {
            let path = Array(root.utf8) + [UInt8(ascii: "/")] + bytes + [0]
            path.withUnsafeBufferPointer { p in
                p.withMemoryRebound(to: CChar.self) { c in
                    if directory {
                        #expect(mkdir(c.baseAddress!, 0o755) == 0)
                    } else {
                        let fd = open(c.baseAddress!, O_CREAT | O_WRONLY, 0o644)
                        let jpeg = HashModeTests.jpeg(size: 4096, seed: 3)
                        #expect(fd >= 0 && write(fd, jpeg, jpeg.count) == jpeg.count)
                        close(fd)
                    }
                }
            }
        }
        create(Array("caf".utf8) + [0xE9] + Array(".jpg".utf8), directory: false)  // Latin-1 é
        create([0xFF, 0x41], directory: true)
        let catalog = try Catalog(path: s.catalogPath)
        let summary = try await Self.ingest([root], catalog)
        #expect(try catalog.allAssets().map(\.asset.id) == ["ok.jpg"])
        #expect(summary.outcomes.failed == 2, "\(summary.outcomes)")
        let errors = try catalog.errors().map(\.reason).sorted()
        #expect(errors.count == 2)
        #expect(errors.contains { $0.hasPrefix("name is not valid UTF-8 (caf\\xE9.jpg): not catalogued") }, "\(errors)")
        #expect(errors.contains { $0.hasPrefix("name is not valid UTF-8 (\\xFFA): not catalogued") }, "\(errors)")
        #expect(!errors.contains { $0.contains("No such file") })
    }

    /// A folder the walk cannot read is an error the first time it is met, not only once the catalog holds
    /// files there: a folder with no stored files and none listed looked unchanged, and its error was lost.
    /// Here a folder whose path passes PATH_MAX (made a level at a time by descriptor): nothing said the file
    /// in it was not catalogued. (An unreadable folder goes the same way, but permissions do not stop root,
    /// who runs CI.)
    @Test func aFolderThatCannotBeReadIsAnErrorTheFirstTimeItIsMet() async throws {
        let s = try Scratch()
        let root = s.url.appendingPathComponent("photos").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Data(HashModeTests.jpeg(size: 4096)).write(to: URL(fileURLWithPath: root + "/ok.jpg"))
        let name = String(repeating: "d", count: 200)
        var fds = [open(root, O_RDONLY | O_DIRECTORY)]
        var length = root.utf8.count
        while length <= 4200 {
            #expect(mkdirat(fds.last!, name, 0o755) == 0)
            fds.append(openat(fds.last!, name, O_RDONLY | O_DIRECTORY))
            length += name.utf8.count + 1
        }
        let jpeg = HashModeTests.jpeg(size: 4096, seed: 1)
        let f = openat(fds.last!, "deep.jpg", O_CREAT | O_WRONLY, 0o644)
        #expect(f >= 0 && write(f, jpeg, jpeg.count) == jpeg.count)
        close(f)
        defer {
            // Removed bottom-up by descriptor: no path names the deepest folders.
            unlinkat(fds.last!, "deep.jpg", 0)
            for k in stride(from: fds.count - 1, to: 0, by: -1) {
                close(fds[k])
                unlinkat(fds[k - 1], name, AT_REMOVEDIR)
            }
            close(fds[0])
        }
        let catalog = try Catalog(path: s.catalogPath)
        let summary = try await Self.ingest([root], catalog)
        #expect(try catalog.allAssets().map(\.asset.id) == ["ok.jpg"])
        #expect(summary.outcomes.failed == 1, "\(summary.outcomes)")
        let errors = try catalog.errors()
        #expect(errors.count == 1)
        #expect(errors.first.map { $0.path.utf8.count > 4096 && $0.reason.contains("File name too long") } == true, "\(errors)")
    }

    /// A folder `photos` in the scratch folder holding two generated JPEGs at these paths below it (folders
    /// made as needed); its path.
    static func twoPhotos(_ s: Scratch, _ first: String, _ second: String) throws -> String {
        let root = s.url.appendingPathComponent("photos").path
        for (k, rel) in [first, second].enumerated() {
            let path = root + "/" + rel
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(HashModeTests.jpeg(size: 4096, seed: k)).write(to: URL(fileURLWithPath: path))
        }
        return root
    }

    /// A root given twice, inside another root, or reached through a link to another root is walked once:
    /// walked again, every file of it was counted twice in the summary ("6 files" for a tree of 3). The note
    /// says which roots were left out and why.
    @Test func rootsCoveredByAnotherAreWalkedOnceAndNoted() async throws {
        let s = try Scratch()
        let root = try Self.twoPhotos(s, "a/1.jpg", "2.jpg")
        let link = s.url.appendingPathComponent("link").path
        #expect(symlink(root, link) == 0)
        let catalog = try Catalog(path: s.catalogPath)
        let summary = try await Self.ingest([root + "/a", root, root, link, link + "/a/1.jpg"], catalog)
        #expect(summary.filesSeen == 2 && summary.inserted == 2, "\(summary.filesSeen) files, \(summary.inserted) inserted")
        let note = try #require(summary.notes.first { $0.contains("not walked on its own") })
        #expect(
            note == "4 roots were not walked on its own, another root covers it: \(root)/a is inside \(root), \(root) was given twice, "
                + "\(link) is \(root), and 1 more", "\(note)")
        #expect(try catalog.allAssets().map(\.asset.id).sorted() == ["2.jpg", "a/1.jpg"])
        #expect(Ingestor.distinctRoots(["/x/y", "/x"]).walk == ["/x"] && Ingestor.distinctRoots(["/x", "/x-old"]).walk == ["/x", "/x-old"])
        #expect(Ingestor.coveredRootsNote([]) == nil)
    }

    @Test func aFolderReachedAgainThroughALinkIsWalkedOnceAndNoted() async throws {
        let s = try Scratch()
        let root = try Self.twoPhotos(s, "a/IMG_0001.JPG", "IMG_0002.JPG")
        #expect(symlink(root, root + "/a/loop") == 0)  // a cycle back to the root
        #expect(symlink(root + "/a", root + "/z-again") == 0)  // a second path to a/, met after it
        let catalog = try Catalog(path: s.catalogPath)
        let summary = try await Self.ingest([root], catalog)
        #expect(summary.filesSeen == 2)
        #expect(try catalog.allAssets().map(\.asset.id).sorted() == ["IMG_0002.JPG", "a/IMG_0001.JPG"])
        let real = { (p: String) in URL(fileURLWithPath: p).resolvingSymlinksInPath().path }
        let note = try #require(summary.notes.first { $0.contains("not walked twice") })
        #expect(note.hasPrefix("2 folders reached again under other paths were not walked twice: "))
        #expect(note.contains(root + "/a/loop is " + real(root)))
        #expect(note.contains(root + "/z-again is " + real(root + "/a")))
        #expect(Ingestor.revisitedNote([]) == nil)
    }
}
