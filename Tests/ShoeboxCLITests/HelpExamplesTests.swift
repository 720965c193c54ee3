import Foundation
import TestSupport
import Testing

/// Every example in `--help`, and the README's tour, run as written in a folder holding the bundled sample
/// library as `Photos` (a usage mistake is exit 2; 0 and 1 are outcomes).
@Suite(.serialized) struct HelpExamplesTests {
    static var binDir: String { ProbeCommandTests.binary.deletingLastPathComponent().path }

    /// A scratch folder with `Photos` (a copy of Fixtures/generated/library) and an environment that
    /// keeps every default path inside it.
    static func workspace() throws -> (TestScratch, [String: String]) {
        let scratch = try TestScratch("examples")
        let library = Corpus.fixtures.appendingPathComponent("generated/library").path
        let cp = try Subprocess.run("/bin/cp", ["-R", library, scratch.path("Photos")])
        #expect(cp.status == 0, "\(cp.stderr)")
        let env = [
            "PATH": binDir + ":/usr/local/bin:/usr/bin:/bin", "HOME": scratch.path("home"),
            "XDG_DATA_HOME": scratch.path("home/.local/share"), "XDG_CONFIG_HOME": scratch.path("home/.config"),
            "LANG": "C.UTF-8",
        ]
        return (scratch, env)
    }

    static func sh(_ line: String, in scratch: TestScratch, _ env: [String: String]) throws -> Subprocess.Run {
        try Subprocess.run("/bin/sh", ["-c", line], environment: env, directory: scratch.url.path)
    }

    /// The subcommands `shoebox --help` lists.
    static func subcommands() throws -> [String] {
        let help = try Subprocess.run(ProbeCommandTests.binary.path, ["--help"]).stdout
        guard let start = help.range(of: "SUBCOMMANDS:") else { return [] }
        return help[start.upperBound...].split(separator: "\n").compactMap { line in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let name = line.split(separator: " ").first else { return nil }
            return String(name)
        }.filter { $0 != "See" }
    }

    /// The examples of a help text: the lines after "Examples:" that start with `shoebox`, a line ending
    /// in `\` continued by the next. Also says whether the block is intact (no line wrapped by the help
    /// formatter: every line is an example or the continuation of one).
    static func examples(in help: String) -> (examples: [String], intact: Bool) {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "Examples:" }) else {
            return ([], true)
        }
        var out: [String] = []
        var intact = true
        var continuing = false
        for line in lines[(start + 1)...] {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.isEmpty { break }
            if continuing {
                out[out.count - 1] += "\n" + line
            } else if t.hasPrefix("shoebox ") {
                out.append(t)
            } else {
                intact = false
            }
            continuing = t.hasSuffix("\\")
        }
        return (out, intact)
    }

    @Test func everySubcommandHasExamplesThatRun() throws {
        let names = try Self.subcommands()
        #expect(names.count >= 17, "subcommands found: \(names)")
        let (scratch, env) = try Self.workspace()
        // The catalog the examples read is made first (as people would).
        let ingest = try Self.sh("shoebox ingest Photos --progress none", in: scratch, env)
        #expect(ingest.status == 0 || ingest.status == 1, "\(ingest.stderr)")
        var ran = 0
        for name in names {
            let help = try Subprocess.run(
                ProbeCommandTests.binary.path, ["help", name], environment: env.merging(["COLUMNS": "80"]) { $1 })
            let (examples, intact) = Self.examples(in: help.stdout)
            #expect(!examples.isEmpty, "shoebox help \(name) has no examples")
            #expect(intact, "shoebox help \(name): an example is wrapped at 80 columns:\n\(help.stdout)")
            for example in examples {
                #expect(example.hasPrefix("shoebox \(name)"), "an example of \(name) runs another command: \(example)")
                let r = try Self.sh(example, in: scratch, env)
                ran += 1
                #expect(!r.signalled, "\(example) crashed")
                #expect(r.status == 0 || r.status == 1, "\(example) → exit \(r.status): \(r.stderr.prefix(500))")
                #expect(
                    !r.stderr.contains("Unknown option") && !r.stderr.contains("Unexpected argument"), "\(example): \(r.stderr)")
            }
        }
        #expect(ran >= 30)
    }

    /// The README's "Five minutes with Shoebox", line by line, exit 0 each.
    @Test func readmeTourRunsAsWritten() throws {
        let readme = try String(contentsOf: Corpus.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let section = readme.range(of: "## Five minutes with Shoebox") else {
            Issue.record("README has no 'Five minutes with Shoebox' section")
            return
        }
        let rest = readme[section.upperBound...]
        guard let open = rest.range(of: "```sh\n"), let close = rest[open.upperBound...].range(of: "```") else {
            Issue.record("the tour has no sh block")
            return
        }
        let commands = rest[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init).filter {
            $0.hasPrefix("shoebox ")
        }
        #expect(commands.count >= 6)
        let (scratch, env) = try Self.workspace()
        for c in commands {
            let r = try Self.sh(c, in: scratch, env)
            // The sample holds three broken files on purpose: ingest exits 1 for them.
            let allowed: Set<Int32> = c.hasPrefix("shoebox ingest") ? [0, 1] : [0]
            #expect(allowed.contains(r.status), "\(c) → exit \(r.status): \(r.stderr.prefix(500))")
            #expect(!r.stdout.isEmpty || c.contains("changes --since"), "\(c) printed nothing")
        }
    }
}
