import Foundation
import Testing
import TestSupport

/// End-to-end tests of the `shoebox` binary: output formats and exit codes.
@Suite struct ProbeCommandTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var binary: URL {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [
            dir.appendingPathComponent("shoebox"),
            Corpus.packageRoot.appendingPathComponent(".build/debug/shoebox"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[1]
    }

    static func shoebox(_ args: [String]) throws -> Run {
        let p = Process()
        p.executableURL = binary
        p.arguments = args
        p.environment = Subprocess.environment  // a scratch home: never the real catalog or config file
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    /// A file that probes cleanly: a generated fixture, else a corpus file.
    static var goodFile: String? {
        let gen = Corpus.fixtures.appendingPathComponent("generated/panorama.jpg").path
        if FileManager.default.fileExists(atPath: gen) { return gen }
        return Corpus.root?.appendingPathComponent("lychee/mongolia.jpeg").path
    }

    @Test func usageErrorsExitTwo() throws {
        #expect(try Self.shoebox(["probe"]).status == 2)
        let bad = try Self.shoebox(["probe", "--format", "yaml", "x.jpg"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("format"))
        #expect(try Self.shoebox(["frobnicate"]).status == 2)
    }

    @Test(.enabled(if: goodFile != nil, "no fixture or corpus file to probe"))
    func cleanFileExitsZeroWithJSON() throws {
        let file = try #require(Self.goodFile)
        let r = try Self.shoebox(["probe", file])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]
        #expect(json?.count == 1)
        #expect(json?.first?["path"] as? String == file)
        #expect(json?.first?["kind"] as? String == "jpeg")
    }

    @Test(.enabled(if: goodFile != nil, "no fixture or corpus file to probe"))
    func errorsExitOneAndStillPrintEveryReport() throws {
        let file = try #require(Self.goodFile)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(atPath: file, toPath: dir.appendingPathComponent("a-good.jpg").path)
        try Data().write(to: dir.appendingPathComponent("b-empty.jpg"))
        let r = try Self.shoebox(["probe", "--format", "ndjson", dir.path])
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        let second = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any]
        #expect((second?["path"] as? String)?.hasSuffix("b-empty.jpg") == true)
        let issues = second?["issues"] as? [[String: Any]]
        #expect(issues?.first?["stage"] as? String == "sniff")
        #expect(r.stderr.contains("1 of 2 files had errors"))

        let table = try Self.shoebox(["probe", "--format", "table", dir.path])
        #expect(table.stdout.hasPrefix("KIND"))
        #expect(table.stdout.contains("ERR:sniff"))
    }
}

/// `shoebox inspect`: assets in the JSON shape of assets.json, orphans listed, relative paths.
@Suite struct InspectCommandTests {
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func inspectsALivePhotoFolder() throws {
        let dir = try #require(Corpus.root).appendingPathComponent("osxphotos/original_aae").path
        let r = try ProbeCommandTests.shoebox(["inspect", dir])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let assets = try #require(doc["assets"] as? [[String: Any]])
        #expect(assets.count == 1)
        let a = assets[0]
        #expect(a["id"] as? String == "IMG_3582.HEIC")
        #expect(a["mediaType"] as? String == "image")
        #expect(Set(a["mediaSubtypes"] as? [String] ?? []) == ["photoLive", "photoDepthEffect"])
        #expect(a["playbackStyle"] as? String == "livePhoto")
        #expect(a["hasAdjustments"] as? Bool == true)
        let types = (a["resources"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
        #expect(Set(types) == ["photo", "pairedVideo", "fullSizePhoto", "fullSizePairedVideo", "adjustmentData"])
        // Every key of the stable shape is present, null when absent.
        for key in ["creationDate", "location", "pixelWidth", "pixelHeight", "duration", "contentIdentifier", "burstIdentifier", "make", "model", "lensModel", "reasons"] {
            #expect(a.keys.contains(key), "missing \(key)")
        }
        #expect((a["reasons"] as? [String])?.contains { $0.hasPrefix("pairedVideo:") && $0.contains("content") } == true)
    }

    @Test func inspectTableAndUsage() throws {
        #expect(try ProbeCommandTests.shoebox(["inspect"]).status == 2)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-inspect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("junk".utf8).write(to: dir.appendingPathComponent("IMG_0001.AAE"))
        let r = try ProbeCommandTests.shoebox(["inspect", "--format", "table", dir.path])
        #expect(r.stdout.contains("0 assets"))
        #expect(r.stdout.contains("orphan IMG_0001.AAE"))
    }
}

/// `shoebox ingest`, `changes`, `errors`, `id` end to end, with their exit statuses.
@Suite struct IngestCommandTests {
    @Test func ingestChangesErrorsAndIdentifiers() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-cli-ingest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let catalog = dir.appendingPathComponent("c.sqlite").path
        let library = Corpus.fixtures.appendingPathComponent("generated/library/iphone").path

        let first = try ProbeCommandTests.shoebox(["ingest", "--catalog", catalog, "--progress", "json", library])
        #expect(first.status == 0, "stderr: \(first.stderr)")
        #expect(first.stdout.contains("assets inserted 8"))
        #expect(first.stderr.contains("\"event\":\"finished\""))
        let token = try ProbeCommandTests.shoebox(["changes", "--catalog", catalog, "--current-token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("sbx1."))

        let again = try ProbeCommandTests.shoebox(["ingest", "--catalog", catalog, "--progress", "none", library])
        #expect(again.stdout.contains("probed 0"))
        let none = try ProbeCommandTests.shoebox(["changes", "--catalog", catalog, "--since", token, "--format", "ndjson"])
        #expect(none.status == 0 && none.stdout.isEmpty)

        let from0 = try ProbeCommandTests.shoebox(["changes", "--catalog", catalog, "--since", token.split(separator: ".").dropLast().joined(separator: ".") + ".0", "--type", "asset", "--format", "ndjson"])
        let records = from0.stdout.split(separator: "\n")
        #expect(records.count == 8)
        let lid = try #require((try JSONSerialization.jsonObject(with: Data(records[0].utf8)) as? [String: Any])?["localIdentifier"] as? String)
        let id = try ProbeCommandTests.shoebox(["id", "--catalog", catalog, lid])
        #expect(id.status == 0 && id.stdout.hasPrefix(lid + "\t"))

        #expect(try ProbeCommandTests.shoebox(["changes", "--catalog", catalog, "--since", "nonsense"]).status == 4)
        #expect(try ProbeCommandTests.shoebox(["changes", "--catalog", catalog]).status == 2)
        #expect(try ProbeCommandTests.shoebox(["errors", "--catalog", dir.appendingPathComponent("missing.sqlite").path]).status == 2)
        let errors = try ProbeCommandTests.shoebox(["errors", "--catalog", catalog, "--format", "json"])
        #expect(errors.status == 0)

        let yml = dir.appendingPathComponent("bad.yml")
        try Data("roots: [\(library)]\nconcurrency: many\n".utf8).write(to: yml)
        let bad = try ProbeCommandTests.shoebox(["ingest", "--catalog", catalog, "--pipeline", yml.path])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("bad.yml:2:14"))
    }
}

/// `shoebox query` on the corpus: each convenience filter, the equivalent predicate(s), and the set computed
/// from assets.json by hand agree.
@Suite struct QueryCommandTests {
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func filtersAndPredicatesAgreeWithGroundTruth() throws {
        let root = try #require(Corpus.root)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-query-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let catalog = dir.appendingPathComponent("c.sqlite").path
        _ = try ProbeCommandTests.shoebox(["ingest", "--catalog", catalog, "--progress", "none", root.path])
        let data = try Data(contentsOf: root.appendingPathComponent("assets.json"))
        let truth = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["assets"] as? [[String: Any]] ?? []

        func paths(_ args: [String]) throws -> Set<String> {
            let r = try ProbeCommandTests.shoebox(["query", "--catalog", catalog, "--format", "csv", "--fields", "path", "--all-bursts"] + args)
            #expect(r.status == 0, "query \(args): \(r.stderr)")
            return Set(r.stdout.split(separator: "\n").dropFirst().map(String.init))
        }
        func expected(_ keep: ([String: Any]) -> Bool) -> Set<String> { Set(truth.filter(keep).compactMap { $0["id"] as? String }) }
        func subtype(_ s: String) -> ([String: Any]) -> Bool { { ($0["mediaSubtypes"] as? [String] ?? []).contains(s) } }
        func trait(_ s: String) -> ([String: Any]) -> Bool { { ($0["traits"] as? [String] ?? []).contains(s) } }

        let cases: [(flag: String, predicates: [String], truth: ([String: Any]) -> Bool)] = [
            ("--live", ["mediaSubtypes CONTAINS photoLive", "(mediaSubtypes & 8) != 0"], subtype("photoLive")),
            ("--hdr", ["mediaSubtypes CONTAINS photoHDR", "(mediaSubtypes & %d) != 0|2"], subtype("photoHDR")),
            ("--panorama", ["(mediaSubtypes & 1) == 1"], subtype("photoPanorama")),
            ("--screenshot", ["mediaSubtypes CONTAINS photoScreenshot"], subtype("photoScreenshot")),
            ("--portrait", ["mediaSubtypes CONTAINS photoDepthEffect", "(mediaSubtypes & 16) != 0"], subtype("photoDepthEffect")),
            ("--time-lapse", ["mediaSubtypes CONTAINS videoTimelapse"], subtype("videoTimelapse")),
            ("--slo-mo", ["mediaSubtypes CONTAINS videoHighFrameRate AND traits CONTAINS slomo"], subtype("videoHighFrameRate")),
            ("--selfie", ["traits CONTAINS selfie", "selfie IN traits"], trait("selfie")),
            ("--raw", ["traits CONTAINS raw"], trait("raw")),
            ("--burst", ["burstIdentifier != nil", "burstIdentifier != NULL"], { $0["burstIdentifier"] is String }),
            ("--video", ["mediaType == video", "mediaType = 2"], { $0["mediaType"] as? String == "video" }),
            ("--no-live", ["NOT (mediaSubtypes CONTAINS photoLive)", "!((mediaSubtypes & 8) != 0)"], { !subtype("photoLive")($0) }),
        ]
        for c in cases {
            let want = expected(c.truth)
            #expect(try paths([c.flag]) == want, "\(c.flag)")
            for p in c.predicates {
                let parts = p.split(separator: "|").map(String.init)
                #expect(try paths([parts[0]] + parts.dropFirst().flatMap { ["--arg", $0] }) == want, "\(p)")
            }
        }
        // Dates: the local capture year. A date only Apple's database knows (the file carries none) is not in
        // the catalog (AssembleCorpusTests excuses the same asset).
        let y2020 = expected {
            ($0["creationDate"] as? String)?.hasPrefix("2020") == true
                && $0["id"] as? String != "osxphotos/test-images/screenshot-really-a-png.jpeg"
        }
        #expect(try paths(["--year", "2020"]) == y2020)
        #expect(try paths(["creationDate BETWEEN {\"2020-01-01\", \"2020-12-31T23:59:59.999\"}"]) == y2020)
        #expect(try paths(["--from-date", "2020-01-01", "--to-date", "2020-12-31"]) == y2020)
        // --count, sorting and the stable JSON shape.
        let count = try ProbeCommandTests.shoebox(["query", "--catalog", catalog, "--live", "--count"])
        #expect(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == String(expected(subtype("photoLive")).count))
        let sorted = try ProbeCommandTests.shoebox(["query", "--catalog", catalog, "mediaType == video", "--sort", "-duration", "--format", "ndjson"])
        let durations = sorted.stdout.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["duration"] as? Double }
        #expect(durations.count == expected { $0["mediaType"] as? String == "video" }.count)
        #expect(durations == durations.sorted(by: >))
        // A table says what the defaults left out (the corpus has a burst), and how to see it.
        func counted(_ args: [String]) throws -> Int {
            Int(try ProbeCommandTests.shoebox(["query", "--catalog", catalog, "--count"] + args).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        let shown = try counted([]), frames = try counted(["--all-bursts"]) - shown
        #expect(frames > 0)
        let table = try ProbeCommandTests.shoebox(["query", "--catalog", catalog]).stdout
        #expect(table.hasSuffix("\n\(shown) assets (not shown: \(frames) more burst frames: --all-bursts)\n"), "\(table.suffix(200))")
        let everything = try ProbeCommandTests.shoebox(["query", "--catalog", catalog, "--all-bursts", "--include-hidden"]).stdout
        #expect(everything.hasSuffix("\n\(shown + frames) assets\n"), "\(everything.suffix(200))")
        // A mistake is reported with its position, exit 2.
        let bad = try ProbeCommandTests.shoebox(["query", "--catalog", catalog, "mediaType == vidoe"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("^"))
    }
}

/// `shoebox requests`: write a manifest, replay it into a new catalog, refuse a bad one whole.
@Suite struct RequestsCommandTests {
    @Test func writeReplayAndRefuse() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-requests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = Corpus.fixtures.appendingPathComponent("generated/library").path
        let a = dir.appendingPathComponent("a.sqlite").path, b = dir.appendingPathComponent("b.sqlite").path
        let manifest = dir.appendingPathComponent("m.jsonl").path
        _ = try ProbeCommandTests.shoebox(["ingest", "--catalog", a, "--progress", "none", library])
        let w = try ProbeCommandTests.shoebox(["requests", "--catalog", a, "--out", manifest])
        #expect(w.status == 0, "\(w.stderr)")
        let r = try ProbeCommandTests.shoebox(["requests", "--replay", manifest, "--catalog", b, "--root", library])
        #expect(r.status == 0, "\(r.stderr)")
        let countA = try ProbeCommandTests.shoebox(["query", "--catalog", a, "--count", "--all-bursts", "--include-hidden"]).stdout
        let countB = try ProbeCommandTests.shoebox(["query", "--catalog", b, "--count", "--all-bursts", "--include-hidden"]).stdout
        #expect(countA == countB && !countA.isEmpty)
        // A manifest with a path escaping the root is refused whole, naming the line.
        var lines = try String(contentsOfFile: manifest, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[1] = lines[1].replacingOccurrences(of: "\"path\":\"", with: "\"path\":\"../")
        let bad = dir.appendingPathComponent("bad.jsonl").path
        try lines.joined(separator: "\n").write(toFile: bad, atomically: true, encoding: .utf8)
        let c = dir.appendingPathComponent("c.sqlite").path
        let refused = try ProbeCommandTests.shoebox(["requests", "--replay", bad, "--catalog", c, "--root", library])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("bad.jsonl:2:"))
        #expect(!FileManager.default.fileExists(atPath: c))
    }
}
