import Catalog
import Foundation
import TestSupport
import Testing

/// Issue 16 §1, 3, 7, 9, 10: outputs people and scripts rely on — the same bytes for the same input, JSON
/// that matches the published schemas, every listing in every format, readable changes, a summary as JSON.
@Suite(.serialized) struct StableOutputTests {
    static var bin: String { ProbeCommandTests.binary.path }
    static let docs = Corpus.packageRoot.appendingPathComponent("docs")

    static func schema(_ name: String) throws -> JSONSchema {
        try JSONSchema(text: String(contentsOf: docs.appendingPathComponent(name), encoding: .utf8))
    }

    /// The sample library ingested into a fresh catalog; returns the scratch folder and the catalog path.
    static func ingested() throws -> (TestScratch, String, Subprocess.Run) {
        let scratch = try TestScratch("stable")
        let library = Corpus.fixtures.appendingPathComponent("generated/library").path
        _ = try Subprocess.run("/bin/cp", ["-R", library, scratch.path("Photos")])
        let catalog = scratch.path("c.sqlite")
        let r = try Subprocess.run(
            bin, ["ingest", scratch.path("Photos"), "--catalog", catalog, "--progress", "json", "--summary", "json"])
        #expect(r.status == 1, "the sample holds three broken files: \(r.stderr)")
        return (scratch, catalog, r)
    }

    static func lines(_ s: String) -> [String] { s.split(separator: "\n").map(String.init) }

    @Test func jsonIsByteIdenticalAcrossRunsAndValidAgainstTheSchemas() throws {
        let (scratch, catalog, _) = try Self.ingested()
        defer { withExtendedLifetime(scratch) {} }
        let photos = scratch.path("Photos")
        let commands: [[String]] = [
            ["probe", photos], ["probe", "--format", "ndjson", photos], ["inspect", photos],
            ["inspect", "--format", "ndjson", photos],
            ["query", "--format", "json", "--catalog", catalog], ["query", "--format", "ndjson", "--catalog", catalog],
            ["show", "iphone/IMG_0001.JPG", "--json", "--catalog", catalog], ["stats", "--json", "--catalog", catalog],
            ["changes", "--since", "sbx1.00000000.0", "--format", "json", "--catalog", catalog],
            ["errors", "--format", "json", "--catalog", catalog], ["collections", "--format", "json", "--catalog", catalog],
            ["moments", "--format", "ndjson", "--catalog", catalog], ["bursts", "--format", "json", "--catalog", catalog],
            ["requests", "--catalog", catalog],
            ["show", "iphone/IMG_0001.JPG", "--facts", "--format", "json", "--catalog", catalog],
        ]
        for c in commands {
            // SOURCE_DATE_EPOCH fixes the one time a manifest states (its header's createdAt).
            var env = Subprocess.environment
            env["SOURCE_DATE_EPOCH"] = "1700000000"
            let a = try Subprocess.run(Self.bin, c, environment: env), b = try Subprocess.run(Self.bin, c, environment: env)
            if c[0] == "changes" { continue }  // another catalog's token: checked below with a real one
            #expect(a.status == b.status)
            #expect(!a.stdout.isEmpty, "\(c) printed nothing: \(a.stderr)")
            #expect(a.stdout == b.stdout, "shoebox \(c.joined(separator: " ")) differs between two runs")
            #expect(!a.stdout.contains("\"_0\""), "Swift enum coding leaked into \(c)")
        }
        // The schemas: every probe report, every query and inspect line, the show document.
        let probeSchema = try Self.schema("probe-report.schema.json")
        let probe = try JSONValue.parse(try Subprocess.run(Self.bin, ["probe", photos]).stdout)
        for r in probe.arrayValue ?? [] { #expect(probeSchema.validate(r).isEmpty, "\(probeSchema.validate(r))") }
        #expect((probe.arrayValue ?? []).count >= 40)
        let assetSchema = try Self.schema("asset.schema.json")
        for l in Self.lines(try Subprocess.run(Self.bin, ["query", "--format", "ndjson", "--catalog", catalog]).stdout) {
            let errors = assetSchema.validate(try JSONValue.parse(l))
            #expect(errors.isEmpty, "\(errors)")
        }
        let inspectAsset = JSONSchema(assetSchema.root["$defs"]!["asset"]!.with(defs: assetSchema.root["$defs"]!))
        for l in Self.lines(try Subprocess.run(Self.bin, ["inspect", "--format", "ndjson", photos]).stdout) {
            let v = try JSONValue.parse(l)
            guard v["orphan"] == nil else { continue }
            #expect(inspectAsset.validate(v).isEmpty, "\(inspectAsset.validate(v))")
        }
        let show = try JSONValue.parse(
            try Subprocess.run(Self.bin, ["show", "iphone/IMG_0001.JPG", "--json", "--catalog", catalog]).stdout)
        let showSchema = JSONSchema(assetSchema.root["$defs"]!["show"]!.with(defs: assetSchema.root["$defs"]!))
        #expect(showSchema.validate(show).isEmpty, "\(showSchema.validate(show))")
    }

    @Test func appleMakerNoteTagsHaveNames() throws {
        let still = Corpus.fixtures.appendingPathComponent("generated/library/bad/IMG_0200.JPG").path
        let report = try JSONValue.parse(try Subprocess.run(Self.bin, ["probe", "--format", "ndjson", still]).stdout)
        guard case .object(let entries)? = report["apple"]?["entries"] else {
            Issue.record("no maker note entries")
            return
        }
        #expect(entries["ContentIdentifier"]?.stringValue == "1A2B3C4D-0200-4E00-8E00-00000000000E")
        for key in entries.keys {
            #expect(key.first!.isUppercase || key.hasPrefix("0x"), "tag key \(key)")
            if key.hasPrefix("0x") { #expect(key.count == 6 && key.dropFirst(2).allSatisfy(\.isHexDigit), "\(key)") }
        }
    }

    @Test func ndjsonIsOneObjectALineEverywhere() throws {
        let (scratch, catalog, _) = try Self.ingested()
        defer { withExtendedLifetime(scratch) {} }
        for c in [
            ["show", "iphone/IMG_0001.JPG"], ["stats"], ["collections"], ["moments"], ["bursts"], ["errors"], ["skipped"],
            ["query"],
        ] {
            let r = try Subprocess.run(Self.bin, c + ["--format", "ndjson", "--catalog", catalog])
            #expect(r.status == 0, "\(c): \(r.stderr)")
            for l in Self.lines(r.stdout) {
                guard case .object? = try? JSONValue.parse(l) else {
                    Issue.record("\(c): not one JSON object a line: \(l.prefix(120))")
                    break
                }
            }
        }
    }

    @Test func everyListingPrintsCSVAndFieldsAreChecked() throws {
        let (scratch, catalog, _) = try Self.ingested()
        defer { withExtendedLifetime(scratch) {} }
        let listings: [[String]] = [
            ["query"], ["errors"], ["skipped"], ["collections"], ["moments"], ["bursts"], ["stats"],
            ["changes", "--since", "CURRENT"],
        ]
        let token = try Subprocess.run(Self.bin, ["changes", "--current-token", "--catalog", catalog]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        for l in listings {
            let args = l.map { $0 == "CURRENT" ? token : $0 } + ["--format", "csv", "--catalog", catalog]
            let r = try Subprocess.run(Self.bin, args)
            #expect(r.status == 0, "\(l): \(r.stderr)")
            let header = Self.lines(r.stdout).first ?? ""
            #expect(header.contains(",") && !header.contains(" "), "\(l): a CSV header, got \(header)")
        }
        let bad = try Subprocess.run(Self.bin, ["query", "--fields", "filename,localIdentifer", "--catalog", catalog])
        #expect(bad.status == 2)
        #expect(bad.stderr.hasPrefix("error: Unknown field 'localIdentifer'. Did you mean 'localIdentifier'?"), "\(bad.stderr)")
        // A table never cuts the identifier: the one printed works in show.
        let table = try Subprocess.run(
            Self.bin, ["query", "--fields", "filename,localIdentifier", "--limit", "1", "--catalog", catalog])
        let id = Self.lines(table.stdout)[1].split(separator: " ").last.map(String.init) ?? ""
        #expect(id.hasSuffix("/L0/001"), "\(table.stdout)")
        #expect(try Subprocess.run(Self.bin, ["show", id, "--catalog", catalog]).status == 0)
    }

    @Test func mistakesShareOnePrefixAndSuggest() throws {
        let cases: [([String], String)] = [
            (["querry"], "error: unknown command 'querry'. Did you mean 'query'?"),
            (["help", "sho"], "error: no help for 'sho': there is no such command. Did you mean 'show'?"),
            (["query", "--bogus"], "error: Unknown option '--bogus'"),
            (["query", "--sort", "-creationDat"], "error: Cannot sort by '-creationDat'. Did you mean 'creationDate'?"),
        ]
        for (args, prefix) in cases {
            let r = try Subprocess.run(Self.bin, args)
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr.hasPrefix(prefix), "\(args): \(r.stderr)")
        }
        let thumbs = try Subprocess.run(Self.bin, ["thumbnails", "--help"]).stdout
        #expect(thumbs.components(separatedBy: "--version").count == 2, "one --version (the tool's): \(thumbs)")
        #expect(thumbs.contains("--asset-version"))
    }

    @Test func changesNameWhatChangedAndTokensAreWhatSinceTakes() throws {
        let (scratch, catalog, _) = try Self.ingested()
        defer { withExtendedLifetime(scratch) {} }
        let first = try Subprocess.run(Self.bin, ["changes", "--current-token", "--catalog", catalog]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let start = first.split(separator: ".").dropLast().joined(separator: ".") + ".0"
        let nd = try Subprocess.run(Self.bin, ["changes", "--since", start, "--format", "ndjson", "--catalog", catalog])
        #expect(nd.status == 0, "\(nd.stderr)")
        let records = try Self.lines(nd.stdout).map(JSONValue.parse)
        let asset = records.first {
            $0["localIdentifier"]?.stringValue?.hasSuffix("/L0/001") == true && $0["objectType"]?.stringValue == "asset"
        }
        #expect(asset?["filename"]?.stringValue?.contains(".") == true, "\(String(describing: asset))")
        // A record's token is the string --since takes: from the last one, nothing is left.
        let lastToken = records.last?["token"]?.stringValue ?? ""
        #expect(lastToken == first)
        let after = try Subprocess.run(Self.bin, ["changes", "--since", lastToken, "--format", "ndjson", "--catalog", catalog])
        #expect(after.status == 0 && after.stdout.isEmpty)
        let table = try Subprocess.run(Self.bin, ["changes", "--since", start, "--catalog", catalog]).stdout
        #expect(table.contains("IMG_0001.JPG"))
    }

    @Test func ingestSummaryAsJSONAndErrorsOnStandardError() throws {
        let (_, _, r) = try Self.ingested()
        let summary = try JSONValue.parse(r.stdout)
        let events = try Self.schema("events.schema.json")
        #expect(events.validate(summary).isEmpty, "\(events.validate(summary))")
        #expect(summary["failed"]?.intValue == 3 && summary["counts"]?["assets"]?.intValue == 25, "\(r.stdout)")
        let errLines = Self.lines(r.stderr)
        #expect(errLines.filter { $0.hasPrefix("failed: ") }.count == 3, "\(r.stderr)")
        for l in errLines where l.hasPrefix("{") {
            let e = try JSONValue.parse(l)
            #expect(events.validate(e).isEmpty, "\(l): \(events.validate(e))")
        }
        #expect(errLines.contains("{\"event\":\"finished\"}"))
        // The steps after the walk are announced as they begin, with the final counts (a fresh catalog: its
        // deferred indexes are built first).
        let progress = try errLines.filter { $0.hasPrefix("{\"elapsed\"") }.map { try JSONValue.parse($0) }
        let stages = progress.compactMap { $0["stage"]?.stringValue }
        #expect(stages.count == progress.count)
        #expect(Array(stages.drop { $0 == "walk" }) == ["indexes", "finish", "organize"], "\(stages)")
        let seen = try #require(summary["filesSeen"]?.intValue)
        #expect(progress.filter { $0["stage"]?.stringValue != "walk" }.allSatisfy { $0["filesDone"]?.intValue == seen })
    }

    @Test func statsRunByYearWithTotalsAndUndatedMarked() throws {
        let (scratch, catalog, _) = try Self.ingested()
        defer { withExtendedLifetime(scratch) {} }
        let r = try Subprocess.run(Self.bin, ["stats", "--format", "csv", "--catalog", catalog])
        let rows = Self.lines(r.stdout).dropFirst().map { $0.split(separator: ",").map(String.init) }
        #expect(rows.first == ["total", "assets", "25"])
        let years = rows.filter { $0[0] == "year" }.map { $0[1] }
        #expect(years == years.sorted { a, b in a == "undated" ? false : b == "undated" ? true : a < b }, "\(years)")
        // An undated file (no date anywhere: its modification time stands in) is counted apart and marked ~.
        let plain = scratch.path("undated")
        try FileManager.default.createDirectory(atPath: plain, withIntermediateDirectories: true)
        let png = Corpus.fixtures.appendingPathComponent("generated/animated.png").path
        try FileManager.default.copyItem(atPath: png, toPath: plain + "/scan.png")
        _ = try Subprocess.run(Self.bin, ["ingest", plain, "--catalog", catalog, "--progress", "none"])
        let after = Self.lines(try Subprocess.run(Self.bin, ["stats", "--format", "csv", "--catalog", catalog]).stdout)
        #expect(after.contains("total,undated,1"), "\(after)")
        #expect(after.contains("year,undated,1"), "\(after)")
        let q = try Subprocess.run(
            Self.bin, ["query", "--fields", "filename,creationDate", "--catalog", catalog, "traits CONTAINS animated"]
        ).stdout
        #expect(q.contains("scan.png  ~"), "\(q)")
    }
}

extension StableOutputTests {
    @Test func savedFetchesAreListedReplacedOnlyOnRequestAndDeleted() throws {
        let (scratch, catalog, _) = try Self.ingested()
        defer { withExtendedLifetime(scratch) {} }
        let save = try Subprocess.run(Self.bin, ["query", "--live", "--save", "lives", "--count", "--catalog", catalog])
        #expect(save.status == 0 && save.stdout == "5\n", "\(save.stderr)")
        let again = try Subprocess.run(Self.bin, ["query", "--video", "--save", "lives", "--catalog", catalog])
        #expect(
            again.status == 2 && again.stderr.hasPrefix("error: a saved fetch named 'lives' exists: add --replace"),
            "\(again.stderr)")
        let replaced = try Subprocess.run(
            Self.bin, ["query", "--video", "--save", "lives", "--replace", "--count", "--catalog", catalog])
        #expect(replaced.status == 0 && replaced.stdout == "4\n", "\(replaced.stderr)")
        let listed = try Subprocess.run(Self.bin, ["collections", "--type", "saved", "--format", "csv", "--catalog", catalog])
        #expect(
            Self.lines(listed.stdout).dropFirst().map { $0.split(separator: ",").prefix(3).joined(separator: ",") } == [
                "saved,2,4"
            ], "\(listed.stdout)")
        #expect(try Subprocess.run(Self.bin, ["query", "--delete-saved", "lives", "--catalog", catalog]).status == 0)
        let gone = try Subprocess.run(Self.bin, ["query", "--delete-saved", "live", "--catalog", catalog])
        #expect(gone.status == 2 && gone.stderr.hasPrefix("error: no saved fetch named 'live'"), "\(gone.stderr)")
        #expect(
            Self.lines(
                try Subprocess.run(Self.bin, ["collections", "--type", "saved", "--format", "csv", "--catalog", catalog]).stdout
            ).count == 1)
    }

    @Test func completionScriptsNameEverySubcommand() throws {
        for shell in ["bash", "zsh", "fish"] {
            let r = try Subprocess.run(Self.bin, ["--generate-completion-script", shell])
            #expect(r.status == 0)
            for name in ["query", "ingest", "thumbnails", "bursts"] {
                #expect(r.stdout.contains(name), "\(shell) completion lacks \(name)")
            }
            #expect(r.stdout.contains("asset-version"))
        }
    }
}

extension JSONValue {
    /// This schema fragment with the root's `$defs`, so its `$ref`s resolve on its own.
    func with(defs: JSONValue) -> JSONValue {
        guard case .object(var o) = self else { return self }
        o["$defs"] = defs
        return .object(o)
    }
}

extension StableOutputTests {
    @Test func dryRunSummaryAsJSONListsWhatWouldHappen() throws {
        let scratch = try TestScratch("dryjson")
        let library = Corpus.fixtures.appendingPathComponent("generated/library/iphone").path
        let catalog = scratch.path("c.sqlite")
        let r = try Subprocess.run(Self.bin, ["ingest", library, "--catalog", catalog, "--dry-run", "--summary", "json", "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try JSONValue.parse(r.stdout)
        #expect(try Self.schema("events.schema.json").validate(doc).isEmpty)
        #expect(doc["dryRun"]?["insert"]?.arrayValue?.count == 8 && doc["catalogSource"]?.stringValue == "--catalog", "\(r.stdout)")
        #expect(!FileManager.default.fileExists(atPath: catalog), "a dry run made a catalog")
    }
}
