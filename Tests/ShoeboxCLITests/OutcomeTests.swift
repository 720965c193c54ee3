import Catalog
import Foundation
import MediaProbe
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 13 through the binary: every file ends catalogued, damaged, failed or skipped; our own files are
/// never input; the exit status says whether media failed; runs stopped by a signal or killed end honestly;
/// a folder inside a known root keeps its assets.
@Suite(.serialized) struct OutcomeTests {
    typealias Scratch = TestScratch

    static func shoebox(_ args: [String]) throws -> Subprocess.Run { try Subprocess.run(ProbeCommandTests.binary.path, args) }

    /// The corpus's own bad files, as a user should see them: both are catalogued (Apple's database has
    /// them), with what is wrong.
    static let corpusDamaged: [String: String] = [
        // Deliberately damaged: 2,505 junk bytes after APP1 swallow the frame header; Photos imports it.
        "osxphotos/test-images/badimage.jpeg": "no readable frame header",
        // The test suite stripped the image data; IFD0 still points past the end of the file.
        "exiftool-t-images/Panasonic.rw2": "truncated",
    ]

    /// The corpus files that are not media: its docs, the ground truth and the exiftool facts.
    static func corpusNonMedia() throws -> [String] {
        let facts = try FileManager.default.contentsOfDirectory(
            atPath: try #require(Corpus.root).appendingPathComponent("facts").path)
        return facts.map { "facts/" + $0 } + ["README.md", "SOURCES.md", "assets.json"]
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func catalogThumbnailsAndNonMediaInsideTheRoot() throws {
        let s = try Scratch("outcomes")
        let root = s.path("root")
        let corpus = try #require(Corpus.root).path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // The corpus itself sits in the root through a link (sources stay read-only); the rest is ours.
        #expect(symlink(corpus, root + "/corpus") == 0)
        let junk = root + "/junk"
        try FileManager.default.createDirectory(atPath: junk, withIntermediateDirectories: true)
        let nonMedia: [String: Data] = [
            "README": Data("read me\n".utf8), "notes.txt": Data("hello\n".utf8), "export.json": Data(#"{"items":[1,2]}"#.utf8),
            "Thumbs.db": Data([0xD0, 0xCF, 0x11, 0xE0] + [UInt8](repeating: 7, count: 60)),
            "desktop.ini": Data("[.ShellClassInfo]\n".utf8),
            "budget.xlsx": Data([0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 0, count: 40)),
            ".DS_Store": Data([0, 0, 0, 1, 0x42, 0x75, 0x64, 0x31]),
        ]
        for (name, data) in nonMedia { FileManager.default.createFile(atPath: junk + "/" + name, contents: data) }
        let catalog = root + "/shoebox.sqlite"

        // First run writes thumbnails into the root as well (a stage failing on the stripped RAWs: exit 1).
        let first = try Self.shoebox([
            "ingest", "--catalog", catalog, "--progress", "none", "--thumbnails", root + "/thumbs", "--thumbnail-sizes", "32",
            root,
        ])
        #expect(first.status == 1, "\(first.stdout)\n\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: root + "/thumbs/.shoebox-thumbnails"))
        // A creation-request manifest written into the root is ours too (recognised by its header line).
        let manifest = try Self.shoebox(["requests", "--catalog", catalog, "--out", root + "/requests.jsonl"])
        #expect(manifest.status == 0, "\(manifest.stderr)")
        // Second run without the stage: the thumbnail folder is recognised by its marker, the catalog and its
        // -wal/-shm by SQLite's application_id or path; only real media problems remain.
        try? FileManager.default.removeItem(atPath: catalog)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: catalog + suffix) }
        let run = try Self.shoebox(["ingest", "--catalog", catalog, "--progress", "none", root])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")

        let c = try Catalog(path: catalog)
        let errors = try c.errors()
        let byPath = Dictionary(grouping: errors) { String($0.path.dropFirst(root.count + "/corpus/".count)) }
        #expect(Set(byPath.keys) == Set(Self.corpusDamaged.keys), "\(errors.map { "\($0.severity) \($0.path) \($0.reason)" })")
        for (rel, why) in Self.corpusDamaged {
            let rows = byPath[rel] ?? []
            #expect(!rows.isEmpty && rows.allSatisfy { $0.severity == .damaged && $0.reason.contains(why) }, "\(rel): \(rows)")
        }
        // Skipped: the corpus's docs and facts plus the junk folder (the hidden .DS_Store is not even crawled).
        let skipped = try c.skippedFiles()
        #expect(skipped.count == (try Self.corpusNonMedia()).count + nonMedia.count - 1, "\(skipped.map(\.path))")
        let categories = Dictionary(grouping: skipped.filter { $0.path.hasPrefix(junk) }) {
            $0.path.split(separator: "/").last.map(String.init) ?? ""
        }
        .mapValues { $0.first?.category ?? "" }
        #expect(
            categories == [
                "README": "other", "notes.txt": "text", "export.json": "json", "Thumbs.db": "system", "desktop.ini": "system",
                "budget.xlsx": "document",
            ])
        // None of our own files is a file row, an error or an asset.
        let assets = try c.allAssets(includeTrashed: true)
        #expect(!assets.contains { $0.asset.id.hasPrefix("thumbs/") || $0.asset.id.contains("shoebox.sqlite") })
        #expect(
            !skipped.contains {
                $0.path.hasPrefix(root + "/thumbs") || $0.path.hasPrefix(catalog) || $0.path.hasSuffix("requests.jsonl")
            })
        #expect(run.stdout.contains("of Shoebox's own files left out"), "\(run.stdout)")
        #expect(
            run.stdout.contains("2 damaged (catalogued), 0 failed (not catalogued), \(skipped.count) skipped"), "\(run.stdout)")
        // The assets equal the corpus ground truth's count (damaged files included).
        let truth = try GroundTruth.load()
        #expect(assets.count == truth.assets.count)

        // `errors --severity` and `skipped` list what the summary counted.
        let damaged = try Self.shoebox(["errors", "--catalog", catalog, "--severity", "damaged", "--format", "ndjson"])
        #expect(damaged.status == 0)
        #expect(damaged.stdout.split(separator: "\n").count == errors.count)
        let failed = try Self.shoebox(["errors", "--catalog", catalog, "--severity", "failed", "--format", "ndjson"])
        #expect(failed.stdout.isEmpty)
        let listed = try Self.shoebox(["skipped", "--catalog", catalog, "--category", "system"])
        #expect(listed.stdout.contains("Thumbs.db") && listed.stdout.contains("desktop.ini"))
        let with = try Self.shoebox(["errors", "--catalog", catalog, "--include-skipped", "--format", "ndjson"])
        #expect(with.stdout.split(separator: "\n").count == errors.count + skipped.count)
    }

    /// Truncated copies of real files, random bytes, empty, FIFO, sparse 2 GB, a `meta` box claiming 4 GiB:
    /// each is damaged (still an asset) or failed (no asset), never silently an asset.
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func hostileSetGetsTheRightSeverity() throws {
        let s = try Scratch("severity")
        let dir = s.path("hostile")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let corpus = try #require(Corpus.root)
        func bytes(_ rel: String) throws -> Data { try Data(contentsOf: corpus.appendingPathComponent(rel)) }
        let heic = try bytes("osxphotos/test-images/IMG_1853.HEIC")
        let jpeg = try bytes("osxphotos/test-images/wedding.jpg")
        let mov = try bytes("osxphotos/test-images/Jellyfish.mov")
        let dng = try bytes("exiftool-t-images/DNG.dng")
        let png = try bytes("osxphotos/media_types/IMG_2908.PNG")
        // A HEIC whose meta box claims 4 GiB.
        var metaHuge = heic.prefix(4096)
        let metaAt = try #require(metaHuge.firstRange(of: Data("meta".utf8))).lowerBound - 4
        metaHuge.replaceSubrange(metaAt..<metaAt + 4, with: [0xFF, 0xFF, 0xFF, 0xFF])
        var rng = UInt64(42)
        let noise = Data(
            (0..<8192).map { _ in
                rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: rng >> 33)
            })
        let files: [(String, Data?, ErrorSeverity)] = [
            ("third.heic", heic.prefix(heic.count / 3), .damaged),
            ("head.heic", heic.prefix(2000), .failed),
            ("third.jpg", jpeg.prefix(jpeg.count / 3), .damaged),
            ("head.jpg", jpeg.prefix(2000), .failed),
            ("third.mov", mov.prefix(mov.count / 3), .failed),  // its moov is at the end: no track left
            ("cut.dng", dng.prefix(dng.count / 3), .damaged),  // its own stem: a RAW beside a JPEG of the same stem pairs with it
            ("third.png", png.prefix(png.count / 3), .damaged),
            ("meta-4g.heic", metaHuge, .failed),
            ("noise.jpg", noise, .failed),
            ("empty.heic", Data(), .failed),
            ("fifo.jpg", nil, .failed),
            (
                "sparse-2g.jpg",
                Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]), .failed
            ),
        ]
        for (name, data, _) in files {
            if let data { FileManager.default.createFile(atPath: dir + "/" + name, contents: data) }
        }
        #expect(mkfifo(dir + "/fifo.jpg", 0o644) == 0)
        #expect(truncate(dir + "/sparse-2g.jpg", 2 << 30) == 0)

        let catalog = s.path("c.sqlite")
        let run = try Self.shoebox(["ingest", "--catalog", catalog, "--progress", "none", "--file-timeout", "5", dir])
        #expect(run.status == 1, "\(run.stdout)\n\(run.stderr)")
        let c = try Catalog(path: catalog)
        let errors = Dictionary(grouping: try c.errors()) { String($0.path.split(separator: "/").last ?? "") }
        let assets = Set(try c.allAssets(includeTrashed: true).map(\.asset.id))
        for (name, _, severity) in files {
            let rows = errors[name] ?? []
            #expect(!rows.isEmpty, "\(name): no error row")
            #expect(
                rows.allSatisfy { $0.severity == severity }, "\(name): \(rows.map { "\($0.severity) \($0.stage) \($0.reason)" })")
            #expect(
                assets.contains(name) == (severity == .damaged), "\(name): asset \(assets.contains(name)), severity \(severity)")
        }
        let expectedFailed = files.filter { $0.2 == .failed }.count
        #expect(
            run.stdout.contains("\(files.count - expectedFailed) damaged (catalogued), \(expectedFailed) failed"), "\(run.stdout)"
        )
        // --strict counts damaged files as failed; without failures the plain run exits 0.
        let damagedOnly = s.path("damaged")
        try FileManager.default.createDirectory(atPath: damagedOnly, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: damagedOnly + "/third.jpg", contents: jpeg.prefix(jpeg.count / 3))
        #expect(try Self.shoebox(["ingest", "--catalog", s.path("d1.sqlite"), "--progress", "none", damagedOnly]).status == 0)
        #expect(
            try Self.shoebox(["ingest", "--catalog", s.path("d2.sqlite"), "--progress", "none", "--strict", damagedOnly]).status
                == 1)
    }

    // MARK: - Runs end honestly

    /// The newest run's status in a catalog.
    static func runStatuses(_ path: String) throws -> [String] {
        let c = try Catalog(path: path)
        return try c.runStatuses()
    }

    /// SIGINT stops at a folder boundary: the run is `interrupted`, the next one says it resumes it and ends
    /// equal to an uninterrupted run. SIGKILL leaves the run `running` with a dead pid: found and marked.
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func interruptedAndKilledRunsEndHonestly() throws {
        let s = try Scratch("interrupt")
        let tree = s.url.appendingPathComponent("tree")
        _ = try CrashSafetyTests.makeTree(at: tree, copies: 8)
        let reference = s.path("reference.sqlite")
        #expect(try Self.shoebox(["ingest", "--catalog", reference, "--progress", "none", "--jobs", "1", tree.path]).status == 0)

        for sig in [SIGINT, SIGTERM, SIGKILL] {
            let catalog = s.path("c-\(sig).sqlite")
            if sig == SIGKILL {
                // Killed outright at its first progress report (JSON progress comes once a second; a fast
                // machine ingests this tree in less): the run stays `running` with a dead pid.
                let k = try CrashSafetyTests.killAtProgress(
                    0, args: ["ingest", "--catalog", catalog, "--jobs", "1", tree.path])
                try #require(k.landed, "the ingest finished before the kill")
                #expect(try Self.runStatuses(catalog) == ["running"])
            } else {
                try Self.interrupt(with: sig, catalog: catalog, tree: tree.path)
            }
            // Readers say the catalog is partial.
            let q = try Self.shoebox(["query", "--catalog", catalog, "--count"])
            #expect(q.stderr.contains("did not finish"), "\(q.stderr)")
            // The next run resumes and ends equal to the uninterrupted one.
            let next = try Self.shoebox(["ingest", "--catalog", catalog, "--progress", "none", "--jobs", "2", tree.path])
            #expect(next.status == 0, "\(next.stdout)\n\(next.stderr)")
            #expect(next.stderr.contains("resuming run 1"), "\(next.stderr)")
            #expect(try Self.runStatuses(catalog) == ["interrupted", "finished"])
            let a = try CrashSafetyTests.snapshot(reference), b = try CrashSafetyTests.snapshot(catalog)
            #expect(a.assets == b.assets, "signal \(sig): assets differ")
            #expect(a.errors == b.errors)
            #expect(b.integrity == "ok")
            let q2 = try Self.shoebox(["query", "--catalog", catalog, "--count"])
            #expect(!q2.stderr.contains("did not finish"))
        }
    }

    /// Starts an ingest with JSON progress, sends `sig` at the first report of files done (reports come once
    /// a second, and a fast machine ingests the whole tree in less): the run stops at a folder boundary with
    /// exit status 130 and is marked `interrupted`.
    static func interrupt(with sig: Int32, catalog: String, tree: String) throws {
        let p = Process()
        p.executableURL = ProbeCommandTests.binary
        p.environment = Subprocess.environment
        p.arguments = ["ingest", "--catalog", catalog, "--progress", "json", "--jobs", "1", tree]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let pid = p.processIdentifier
        let stderr = Subprocess.LockedData()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var sent = false
            while true {
                let chunk = err.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                stderr.append(chunk)
                guard !sent else { continue }
                for line in String(decoding: chunk, as: UTF8.self).split(separator: "\n") {
                    guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                        let doneFiles = obj["filesDone"] as? Int, let total = obj["filesTotal"] as? Int, doneFiles > 0,
                        doneFiles < total
                    else { continue }
                    kill(pid, sig)
                    sent = true
                    break
                }
            }
            done.signal()
        }
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        _ = done.wait(timeout: .now() + 10)
        let errText = String(decoding: stderr.data, as: UTF8.self)
        #expect(p.terminationStatus == 130, "\(stdout)\n\(errText.suffix(2000))")
        #expect(stdout.contains("INTERRUPTED"), "\(stdout)")
        #expect(errText.contains("stopping at the next folder boundary"))
        #expect(try Self.runStatuses(catalog) == ["interrupted"])
    }

    // MARK: - Roots inside roots

    /// `ingest big` then `ingest big/copy-01` (and back), or a root ingested before the root around it:
    /// files keep their assets and identifiers, nothing is probed again, no change is recorded.
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func foldersInsideKnownRootsKeepTheirAssets() throws {
        let s = try Scratch("subroot")
        let big = s.url.appendingPathComponent("big")
        _ = try CrashSafetyTests.makeTree(at: big, copies: 2)
        let sub = big.appendingPathComponent("copy-01").path
        for order in [[big.path, sub, big.path, sub], [sub, big.path, sub]] {
            let catalog = s.path("c-\(order.count).sqlite")
            var ids: Set<String>?
            var tokenBefore = ""
            for (n, root) in order.enumerated() {
                let r = try Self.shoebox(["ingest", "--catalog", catalog, "--progress", "none", root])
                #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
                let c = try Catalog(path: catalog)
                let now = Set(try c.allAssets(includeTrashed: true).filter { !$0.isTrashed }.map(\.localIdentifier))
                let token = try c.currentToken()
                let firstBig = order.firstIndex(of: big.path)!
                if n > firstBig {
                    // Everything was known: nothing probed, no change, the same identifiers.
                    #expect(r.stdout.contains("probed 0,"), "run \(n) (\(root)): \(r.stdout)")
                    #expect(r.stdout.contains("assets inserted 0, updated 0, deleted 0"), "run \(n): \(r.stdout)")
                    #expect(now == ids, "run \(n): identifiers changed")
                    #expect(token == tokenBefore, "run \(n): history grew")
                }
                if n >= firstBig {
                    ids = now
                    tokenBefore = token
                }
            }
        }
    }
}
