import Catalog
import Foundation
import MediaProbe
import Testing
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `shoebox ingest` killed with SIGKILL at several points: the catalog stays sound, the next run finishes
/// the job, and the result equals an uninterrupted ingest. Sources are never written.
@Suite(.serialized) struct CrashSafetyTests {
    // MARK: - Process helpers

    typealias Run = Subprocess.Run

    /// Runs `shoebox` to completion.
    static func shoebox(_ args: [String]) throws -> Run { try Subprocess.run(ProbeCommandTests.binary.path, args) }

    /// Where a kill landed: whether the process was still running, and what it had reported.
    struct Kill {
        var label: String
        var landed: Bool  // the process died of SIGKILL (it had not finished on its own)
        var status: Int32
        var seconds: Double
        var lastFilesDone: Int?
    }

    /// Starts `shoebox ingest` and SIGKILLs it after `delay` seconds.
    static func killAfter(_ delay: Double, args: [String]) throws -> Kill {
        let p = Process()
        p.executableURL = ProbeCommandTests.binary
        p.environment = Subprocess.environment
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        let t0 = Date()
        try p.run()
        Thread.sleep(forTimeInterval: delay)
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        return Kill(
            label: "after \(delay) s", landed: p.terminationReason == .uncaughtSignal, status: p.terminationStatus,
            seconds: Date().timeIntervalSince(t0), lastFilesDone: nil)
    }

    /// Starts `shoebox ingest --progress json`, reads its stderr line by line and SIGKILLs it as soon as a
    /// progress event reports `filesDone >= fraction × filesTotal`.
    static func killAtProgress(_ fraction: Double, args: [String]) throws -> Kill {
        let p = Process()
        p.executableURL = ProbeCommandTests.binary
        p.environment = Subprocess.environment
        p.arguments = args + ["--progress", "json"]
        p.standardOutput = FileHandle.nullDevice
        let err = Pipe()
        p.standardError = err
        let t0 = Date()
        try p.run()
        let pid = p.processIdentifier
        let seen = Subprocess.LockedData()
        let done = DispatchSemaphore(value: 0)
        let handle = err.fileHandleForReading
        Thread.detachNewThread {
            var buffer = Data()
            var killed = false
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = buffer[buffer.startIndex..<nl]
                    buffer = Data(buffer[buffer.index(after: nl)...])
                    guard !killed,
                        let obj = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                        obj["event"] as? String == "progress", let doneFiles = obj["filesDone"] as? Int,
                        let total = obj["filesTotal"] as? Int, total > 0
                    else { continue }
                    seen.append(Data("\(doneFiles)\n".utf8))
                    if doneFiles > 0 && Double(doneFiles) >= fraction * Double(total) {
                        kill(pid, SIGKILL)
                        killed = true
                    }
                }
            }
            done.signal()
        }
        p.waitUntilExit()
        // The reader ends at EOF (the child's end of the pipe closes when it dies).
        _ = done.wait(timeout: .now() + 10)
        let last = String(decoding: seen.data, as: UTF8.self).split(separator: "\n").last.flatMap { Int($0) }
        return Kill(
            label: "at \(Int(fraction * 100))% progress", landed: p.terminationReason == .uncaughtSignal, status: p.terminationStatus,
            seconds: Date().timeIntervalSince(t0), lastFilesDone: last)
    }

    // MARK: - Tree and source fingerprints

    /// Corpus media files (no `facts/`, no docs, no `assets.json`), relative paths.
    static func corpusMedia() -> [String] {
        Corpus.mediaFiles().filter { !$0.hasSuffix(".md") && $0 != "assets.json" && !$0.hasPrefix("facts/") }
    }

    /// `copies` replicas of the corpus under `dir/copy-NN/…`, hard-linked (copied when linking fails).
    /// Each corpus folder stays together, so Live Photo pairs, edits and sidecars keep their partners.
    /// `withErrors` adds `copy-NN/zz-errors/` with an empty, a garbage and a truncated file.
    /// The links share their inodes with the corpus: nothing may chmod, touch or write them (see
    /// `scratchCleanupLeavesHardLinkedSourcesAlone`).
    static func makeTree(at dir: URL, copies: Int, withErrors: Bool = false) throws -> [String] {
        let fm = FileManager.default
        let corpus = try #require(Corpus.root)
        var out: [String] = []
        for c in 0..<copies {
            let copyDir = dir.appendingPathComponent(String(format: "copy-%02d", c))
            for rel in corpusMedia() {
                let dst = copyDir.appendingPathComponent(rel)
                try fm.createDirectory(at: dst.deletingLastPathComponent(), withIntermediateDirectories: true)
                let src = corpus.appendingPathComponent(rel).path
                if link(src, dst.path) != 0 { try fm.copyItem(atPath: src, toPath: dst.path) }
                out.append(dst.path)
            }
            if withErrors {
                // Files that fail to probe, so error rows are compared too (written by the test, not sources).
                let errs = copyDir.appendingPathComponent("zz-errors")
                try fm.createDirectory(at: errs, withIntermediateDirectories: true)
                var rng = UInt64(0x9E37_79B9_7F4A_7C15)
                var garbage = [UInt8]()
                for _ in 0..<4096 {
                    rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    garbage.append(UInt8(truncatingIfNeeded: rng >> 33))
                }
                let heic = try Data(contentsOf: corpus.appendingPathComponent(try #require(corpusMedia().first { $0.hasSuffix(".heic") })))
                for (name, data) in [("empty.jpg", Data()), ("garbage.mov", Data(garbage)), ("truncated.heic", heic.prefix(3000))] {
                    let dst = errs.appendingPathComponent(name)
                    try data.write(to: dst)
                    out.append(dst.path)
                }
            }
        }
        return out
    }

    /// Content hash, size, mtime and mode of every source file (hashes computed once per inode).
    static func fingerprint(_ paths: [String]) throws -> [String: String] {
        var byInode: [String: String] = [:]
        var out: [String: String] = [:]
        for p in paths {
            var st = stat()
            guard stat(p, &st) == 0 else {
                out[p] = "missing"
                continue
            }
            let key = "\(st.st_dev):\(st.st_ino)"
            let h: String
            if let known = byInode[key] { h = known } else {
                h = try ContentHasher.hash(path: p)
                byInode[key] = h
            }
            out[p] = "\(h) size=\(st.st_size) mtime=\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec) mode=\(String(st.st_mode, radix: 8))"
        }
        return out
    }

    // MARK: - Catalog comparison

    /// What must match between two catalogs of the same tree (identifiers and timestamps differ by design).
    static func comparable(_ s: StoredAsset) -> String {
        let a = s.asset
        let resources = zip(a.resources, s.resourceHashes + Array(repeating: nil, count: max(0, a.resources.count - s.resourceHashes.count)))
            .map { "\($0.0.type.rawValue):\($0.0.path):\($0.1 ?? "-")" }.joined(separator: ",")
        // A cloud identifier without content (no hash) is random by design (`…:001:local`).
        let cloud = s.cloudIdentifier.hasSuffix(":local") ? "local" : s.cloudIdentifier
        return [
            "type=\(a.mediaType.rawValue)", "subtypes=\(a.mediaSubtypes.rawValue)", "traits=\(a.traits.map(\.rawValue).sorted())",
            "playback=\(a.playbackStyle.rawValue)", "resources=[\(resources)]", "contentID=\(a.contentIdentifier ?? "-")",
            "created=\(a.creationDate.map { "\($0.local)\($0.offsetSeconds.map { "@\($0)" } ?? "")" } ?? "-")",
            "location=\(a.location.map { "\($0.latitude),\($0.longitude),\($0.altitude.map { "\($0)" } ?? "-")" } ?? "-")",
            "size=\(a.pixelWidth)x\(a.pixelHeight)", "duration=\(a.duration)", "adjusted=\(a.hasAdjustments)", "cloud=\(cloud)",
            "trashed=\(s.isTrashed)",
        ].joined(separator: " ")
    }

    struct Snapshot {
        var assets: [String: String]  // root/primary path → comparable
        var trashed: Int
        var errors: Set<String>  // path|stage|reason
        var integrity: String
        /// The whole change history, as counts of "objectType changeType properties".
        var history: [String: Int]
        var insertedAssets: Set<String>  // local identifiers with an "inserted" record
        var localIdentifiers: Set<String>
    }

    static func snapshot(_ path: String) throws -> Snapshot {
        let catalog = try Catalog(path: path)
        let all = try catalog.allAssets(includeTrashed: true)
        var assets: [String: String] = [:]
        for s in all { assets[s.root + "/" + s.asset.id] = comparable(s) }
        let errors = Set(try catalog.errors().map { "\($0.path)|\($0.stage)|\($0.reason)" })
        // Asset records only: the organize stage (bursts, moments, albums) adds collection records and burst
        // updates whose number depends on how many runs completed, not on what was ingested.
        let records = try catalog.changes(since: "sbx1.\(try catalog.catalogID().prefix(8)).0", objectType: "asset")
            .filter { $0.changeType != "updated" || !$0.properties.allSatisfy { $0.hasPrefix("burst") || $0 == "representsBurst" } }
        var history: [String: Int] = [:]
        for r in records { history["\(r.objectType) \(r.changeType) \(r.properties.joined(separator: ","))", default: 0] += 1 }
        return Snapshot(
            assets: assets, trashed: all.filter(\.isTrashed).count, errors: errors, integrity: try catalog.integrityCheck(), history: history,
            insertedAssets: Set(records.filter { $0.changeType == "inserted" }.map(\.localIdentifier)),
            localIdentifiers: Set(all.map(\.localIdentifier)))
    }

    static func integrity(_ path: String) throws -> (String, Int) {
        let catalog = try Catalog(path: path)
        return (try catalog.integrityCheck(), try catalog.allAssets(includeTrashed: true).count)
    }

    static func time<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
        let t0 = Date()
        let r = try body()
        print(String(format: "CrashSafetyTests: %@ %.2f s", label, Date().timeIntervalSince(t0)))
        return r
    }

    static func tempDir(_ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Replicas of the corpus (default 25 × 106 files ≈ 2650; `SHOEBOX_CRASH_COPIES` overrides).
    static var copies: Int { ProcessInfo.processInfo.environment["SHOEBOX_CRASH_COPIES"].flatMap { Int($0) } ?? 25 }

    // MARK: - Tests

    @Test(.enabled(if: Corpus.isAvailable, "the crash test replicates ../shared/corpus, which is absent"))
    func killedIngestLeavesSoundCatalogAndResumesToSameResult() throws {
        let work = try Self.tempDir("crash")
        defer { try? FileManager.default.removeItem(at: work) }
        let tree = work.appendingPathComponent("tree")
        let sources = try Self.time("build tree") { try Self.makeTree(at: tree, copies: Self.copies, withErrors: true) }
        print("CrashSafetyTests: \(sources.count) files in \(Self.copies) copies")
        #expect(sources.count >= 1000)
        let before = try Self.time("hash sources") { try Self.fingerprint(sources) }

        // Reference: one uninterrupted run.
        let catalogA = work.appendingPathComponent("A.sqlite").path
        let ref = try Self.time("reference ingest") { try Self.shoebox(["ingest", tree.path, "--catalog", catalogA, "--progress", "none"]) }
        #expect(!ref.signalled && (ref.status == 0 || ref.status == 1), "reference ingest failed: \(ref.stderr)")
        #expect(ref.stdout.contains("\(sources.count) files"), "reference summary: \(ref.stdout)")

        // Interrupted: SIGKILL at several points; every kill resumes the same catalog B.
        let catalogB = work.appendingPathComponent("B.sqlite").path
        let args = ["ingest", tree.path, "--catalog", catalogB]
        var kills: [Kill] = []
        let plan: [(String, () throws -> Kill)] = [
            ("0.05 s", { try Self.killAfter(0.05, args: args + ["--progress", "none"]) }),
            ("0.1 s", { try Self.killAfter(0.1, args: args + ["--progress", "none"]) }),
            ("0.2 s", { try Self.killAfter(0.2, args: args + ["--progress", "none"]) }),
            ("half", { try Self.killAtProgress(0.5, args: args) }),
            ("0.5 s", { try Self.killAfter(0.5, args: args + ["--progress", "none"]) }),
            ("1 s", { try Self.killAfter(1.0, args: args + ["--progress", "none"]) }),
        ]
        for (label, run) in plan {
            let k = try Self.time("kill \(label)") { try run() }
            kills.append(k)
            if FileManager.default.fileExists(atPath: catalogB) {
                let (check, count) = try Self.integrity(catalogB)
                print(
                    "CrashSafetyTests: kill \(k.label): landed \(k.landed) after \(String(format: "%.2f", k.seconds)) s"
                        + "\(k.lastFilesDone.map { ", last progress \($0) files" } ?? ""); \(count) assets; integrity \(check)")
                #expect(check == "ok", "integrity_check after kill \(k.label): \(check)")
            } else {
                print("CrashSafetyTests: kill \(k.label): landed \(k.landed), no catalog yet")
            }
        }
        #expect(kills.filter(\.landed).count >= 3, "too few kills interrupted a run: \(kills.map { "\($0.label): \($0.landed)" })")
        #expect(kills[3].landed, "the progress-driven kill must interrupt a run")

        // Resume to completion.
        let fin = try Self.time("resume ingest") { try Self.shoebox(args + ["--progress", "none"]) }
        #expect(!fin.signalled && (fin.status == 0 || fin.status == 1), "final ingest failed: \(fin.stderr)")
        #expect(fin.stdout.contains("\(sources.count) files"), "final summary: \(fin.stdout)")

        let (a, b) = try Self.time("compare") { (try Self.snapshot(catalogA), try Self.snapshot(catalogB)) }
        #expect(a.integrity == "ok")
        #expect(b.integrity == "ok")
        #expect(a.assets.count > 0)
        #expect(a.assets.count == b.assets.count, "assets: reference \(a.assets.count), interrupted \(b.assets.count)")
        let missing = Set(a.assets.keys).subtracting(b.assets.keys).sorted()
        let extra = Set(b.assets.keys).subtracting(a.assets.keys).sorted()
        #expect(missing.isEmpty, "missing after resume: \(missing.prefix(10))")
        #expect(extra.isEmpty, "extra after resume: \(extra.prefix(10))")
        let differing = a.assets.keys.sorted().filter { k in b.assets[k].map { $0 != a.assets[k] } ?? false }
        #expect(
            differing.isEmpty,
            "\(differing.count) assets differ, e.g. \(differing.prefix(3).map { "\($0)\n  A: \(a.assets[$0]!)\n  B: \(b.assets[$0]!)" })")
        #expect(a.errors.count >= 2 * Self.copies, "expected error rows from zz-errors/, got \(a.errors.count)")
        #expect(a.errors == b.errors, "error rows: only in A \(a.errors.subtracting(b.errors).sorted().prefix(5)), only in B \(b.errors.subtracting(a.errors).sorted().prefix(5))")
        #expect(a.trashed == 0, "reference has \(a.trashed) assets in Recently Deleted")
        #expect(b.trashed == 0, "interrupted catalog has \(b.trashed) assets in Recently Deleted")
        // History: one "inserted" per asset and nothing else, interrupted or not (a resumed run re-commits no folder).
        #expect(a.history == ["asset inserted ": a.assets.count], "reference history: \(a.history)")
        #expect(b.history == a.history, "interrupted history: \(b.history), reference \(a.history)")
        #expect(b.insertedAssets == b.localIdentifiers, "inserted records do not match the assets")
        print("CrashSafetyTests: \(a.assets.count) assets, \(a.errors.count) distinct error rows in both catalogs")

        // Sources were never written.
        let after = try Self.time("hash sources again") { try Self.fingerprint(sources) }
        let changed = before.keys.filter { before[$0] != after[$0] }.sorted()
        #expect(
            changed.isEmpty,
            "\(changed.count) sources changed, e.g. \(changed.prefix(3).map { "\($0)\n  before: \(before[$0] ?? "-")\n  after: \(after[$0] ?? "-")" })")
    }

    /// A test's scratch folder holding hard links to read-only files (as `makeTree` makes) and a folder
    /// made unreadable: removing it removes everything and leaves the linked files' mode and time alone.
    @Test func scratchCleanupLeavesHardLinkedSourcesAlone() throws {
        let sources = try Self.tempDir("sources")
        defer {
            chmod(sources.path, 0o755)
            try? FileManager.default.removeItem(at: sources)
        }
        let file = sources.appendingPathComponent("photo.jpg").path
        try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: URL(fileURLWithPath: file))
        #expect(chmod(file, 0o444) == 0)
        chmod(sources.path, 0o555)
        var before = stat()
        #expect(stat(file, &before) == 0)

        var scratchPath = ""
        do {
            let scratch = try TestScratch("links")
            scratchPath = scratch.url.path
            let inner = scratch.url.appendingPathComponent("locked/deeper")
            try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
            #expect(link(file, scratch.url.appendingPathComponent("link.jpg").path) == 0)
            #expect(link(file, inner.appendingPathComponent("link.jpg").path) == 0)
            chmod(inner.path, 0)
            chmod(scratch.url.appendingPathComponent("locked").path, 0)
        }
        #expect(!FileManager.default.fileExists(atPath: scratchPath), "the scratch folder was not removed")
        var after = stat()
        #expect(stat(file, &after) == 0)
        #expect(after.st_mode == before.st_mode, "mode \(String(before.st_mode, radix: 8)) became \(String(after.st_mode, radix: 8))")
        #expect(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
        #expect(after.st_nlink == 1)
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus, which is absent"))
    func unchangedReingestAddsNoHistory() throws {
        let work = try Self.tempDir("unchanged")
        defer { try? FileManager.default.removeItem(at: work) }
        let tree = work.appendingPathComponent("tree")
        let sources = try Self.makeTree(at: tree, copies: 2)
        let before = try Self.fingerprint(sources)
        let catalog = work.appendingPathComponent("c.sqlite").path

        let first = try Self.shoebox(["ingest", tree.path, "--catalog", catalog, "--progress", "none"])
        #expect(!first.signalled && (first.status == 0 || first.status == 1), "first ingest failed: \(first.stderr)")
        #expect(first.stdout.contains("probed \(sources.count),"), "first summary: \(first.stdout)")
        let token = try Self.shoebox(["changes", "--catalog", catalog, "--current-token"])
        #expect(token.status == 0)
        let t = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(t.hasPrefix("sbx1."))

        let second = try Self.shoebox(["ingest", tree.path, "--catalog", catalog, "--progress", "none"])
        #expect(second.status == 0, "unchanged ingest: status \(second.status)\n\(second.stdout)\n\(second.stderr)")
        #expect(second.stdout.contains("probed 0, unchanged \(sources.count), folders changed 0"), "second summary: \(second.stdout)")
        #expect(second.stdout.contains("assets inserted 0, updated 0, deleted 0"), "second summary: \(second.stdout)")
        #expect(second.stdout.contains("change token: \(t)"), "token moved: \(second.stdout)")

        let changes = try Self.shoebox(["changes", "--catalog", catalog, "--since", t, "--format", "json"])
        #expect(changes.status == 0, "changes: \(changes.stderr)")
        let doc = try JSONSerialization.jsonObject(with: Data(changes.stdout.utf8)) as? [String: Any]
        let records = doc?["records"] as? [Any]
        #expect(records != nil && records!.isEmpty, "history records after an unchanged ingest: \(changes.stdout.prefix(2000))")
        #expect(doc?["currentToken"] as? String == t)

        let after = try Self.fingerprint(sources)
        #expect(before == after, "sources changed")
    }
    /// Two byte-identical files in one folder (`IMG_1.jpg` and `IMG_1 (1).jpg`, a common Takeout shape) are two
    /// assets, and re-ingesting the folder after an unrelated change records no updates for them.
    /// (Regression: the moved-file lookup once matched the asset just inserted for the first copy. Assets are
    /// now matched by path first, then by content among the rest, each at most once.)
    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus, which is absent"))
    func identicalFilesInOneFolderAreTwoAssets() throws {
        let work = try Self.tempDir("dup")
        defer { try? FileManager.default.removeItem(at: work) }
        let corpus = try #require(Corpus.root)
        let jpg = try #require(Self.corpusMedia().first { $0.hasSuffix("mongolia.jpeg") } ?? Self.corpusMedia().first { $0.hasSuffix(".jpg") })
        let other = try #require(Self.corpusMedia().first { $0.hasSuffix(".jpg") && !$0.hasSuffix(jpg) })
        let tree = work.appendingPathComponent("tree")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        for name in ["a.jpg", "b.jpg"] {
            try FileManager.default.copyItem(at: corpus.appendingPathComponent(jpg), to: tree.appendingPathComponent(name))
        }
        let catalog = work.appendingPathComponent("c.sqlite").path
        _ = try Self.shoebox(["ingest", tree.path, "--catalog", catalog, "--progress", "none"])
        // An unrelated new file makes the folder commit again.
        try FileManager.default.copyItem(at: corpus.appendingPathComponent(other), to: tree.appendingPathComponent("c.jpg"))
        _ = try Self.shoebox(["ingest", tree.path, "--catalog", catalog, "--progress", "none"])
        let c = try Catalog(path: catalog)
        let paths = try c.allAssets(includeTrashed: true).map(\.asset.id).sorted()
        let updates = try c.changes(since: "sbx1.\(try c.catalogID().prefix(8)).0").filter { $0.changeType != "inserted" }
        #expect(paths == ["a.jpg", "b.jpg", "c.jpg"])
        #expect(updates.isEmpty, "spurious history: \(updates.map { "\($0.changeType) \($0.properties)" })")
    }
}
