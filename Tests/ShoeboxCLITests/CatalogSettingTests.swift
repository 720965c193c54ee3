import Foundation
import Pipeline
import TestSupport
import Testing

/// Issue 16 item 5: one catalog setting (`--catalog` > `SHOEBOX_CATALOG` > config file > `./shoebox.sqlite`
/// > `$XDG_DATA_HOME/shoebox/catalog.sqlite`), the config file, stored roots and `shoebox roots`.
/// Every run gets its own scratch home, so nothing here reads or writes the real one.
@Suite struct CatalogSettingTests {
    /// A scratch home (HOME only: the XDG variables unset), a working folder and a small tree to ingest.
    struct Home {
        let scratch: TestScratch
        var env: [String: String]
        var home: String { scratch.path("home") }
        var work: String { scratch.path("work") }
        var tree: String { scratch.path("photos") }

        init() throws {
            scratch = try TestScratch("catalog-setting")
            env = Subprocess.environment
            env["XDG_DATA_HOME"] = nil
            env["XDG_CONFIG_HOME"] = nil
            env["HOME"] = scratch.path("home")
            for d in ["home", "work", "photos/a"] {
                try FileManager.default.createDirectory(atPath: scratch.path(d), withIntermediateDirectories: true)
            }
            let gen = Corpus.fixtures.appendingPathComponent("generated")
            try FileManager.default.copyItem(
                atPath: gen.appendingPathComponent("panorama.jpg").path, toPath: scratch.path("photos/a/pano.jpg"))
            try FileManager.default.copyItem(
                atPath: gen.appendingPathComponent("screenshot.png").path, toPath: scratch.path("photos/shot.png"))
        }

        func shoebox(_ args: [String], _ extra: [String: String] = [:]) throws -> Subprocess.Run {
            try Subprocess.run(ProbeCommandTests.binary.path, args, environment: env.merging(extra) { $1 }, directory: work)
        }

        func writeConfig(_ text: String) throws {
            let dir = home + "/.config/shoebox"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/config.yml"))
        }
    }

    @Test func resolutionOrder() {
        let env = ["HOME": "/h"]
        func where_(_ option: String?, _ config: String?, _ env: [String: String], legacy: Bool = false) -> CatalogLocation {
            CatalogLocation.resolve(option: option, configCatalog: config, environment: env, fileExists: { _ in legacy })
        }
        #expect(where_(nil, nil, env) == CatalogLocation(path: "/h/.local/share/shoebox/catalog.sqlite", source: .dataHome))
        #expect(where_(nil, nil, ["HOME": "/h", "XDG_DATA_HOME": "/d"]).path == "/d/shoebox/catalog.sqlite")
        #expect(where_(nil, nil, ["HOME": "/h", "XDG_DATA_HOME": "rel"]).path == "/h/.local/share/shoebox/catalog.sqlite")
        #expect(where_(nil, nil, env, legacy: true) == CatalogLocation(path: "shoebox.sqlite", source: .workingDirectory))
        #expect(where_(nil, "/c.sqlite", env, legacy: true) == CatalogLocation(path: "/c.sqlite", source: .configFile))
        #expect(
            where_(nil, "/c.sqlite", ["HOME": "/h", "SHOEBOX_CATALOG": "/e.sqlite"])
                == CatalogLocation(path: "/e.sqlite", source: .environment))
        #expect(
            where_("x.sqlite", "/c.sqlite", ["SHOEBOX_CATALOG": "/e.sqlite"])
                == CatalogLocation(path: "x.sqlite", source: .option))
        #expect(CatalogLocation.configFile(["HOME": "/h"]) == "/h/.config/shoebox/config.yml")
        #expect(CatalogLocation.configFile(["HOME": "/h", "XDG_CONFIG_HOME": "/cfg"]) == "/cfg/shoebox/config.yml")
    }

    @Test func defaultCatalogUnderTheDataHomeStoredRootsAndIngestAgain() throws {
        let h = try Home()
        let expected = h.home + "/.local/share/shoebox/catalog.sqlite"
        // A reading command on no catalog: the error names the default, and nothing is created.
        let none = try h.shoebox(["stats"])
        #expect(none.status == 2)
        #expect(none.stderr == "error: No catalog at \(expected). Run 'shoebox ingest ROOT' first, or pass --catalog PATH.\n")
        #expect(!FileManager.default.fileExists(atPath: h.home + "/.local"))
        // `ingest` with nothing to ingest: a usage error, still nothing created.
        let empty = try h.shoebox(["ingest", "--progress", "none"])
        #expect(empty.status == 2)
        #expect(empty.stderr.hasPrefix("error: give at least one folder to ingest"), "\(empty.stderr)")
        #expect(!empty.stderr.contains("Usage:"), "one line, not the root command's usage: \(empty.stderr)")
        #expect(!FileManager.default.fileExists(atPath: h.home + "/.local"))

        let first = try h.shoebox(["ingest", h.tree, "--exclude", "*.PNG", "--progress", "none"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            first.stdout.hasPrefix("ingest run 1 into \(expected) (from the default location): 1 files in "), "\(first.stdout)")
        let attrs = try FileManager.default.attributesOfItem(atPath: h.home + "/.local/share/shoebox")
        #expect((attrs[.posixPermissions] as? Int) == 0o700)
        #expect(try h.shoebox(["roots"]).stdout == h.tree + "\n")
        let json = try h.shoebox(["roots", "--format", "json"])
        #expect(
            json.stdout == """
                {
                  "exclude" : [
                    "*.PNG"
                  ],
                  "followSymlinks" : true,
                  "hash" : "full",
                  "include" : [

                  ],
                  "includeHidden" : false,
                  "roots" : [
                    "\(h.tree)"
                  ]
                }

                """)
        // No roots: the stored roots with their exclude again (the PNG is still left out).
        let again = try h.shoebox(["ingest", "--progress", "none"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            again.stdout.hasPrefix("ingest run 2 into \(expected) (from the default location): 1 files in "), "\(again.stdout)")
        // A folder inside a known root does not add a root; another one does.
        let other = h.scratch.path("more")
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        #expect(try h.shoebox(["ingest", h.tree + "/a", "--progress", "none"]).status == 0)
        #expect(try h.shoebox(["ingest", other, "--progress", "none"]).status == 0)
        #expect(try h.shoebox(["roots"]).stdout == "\(h.tree)\n\(other)\n")
    }

    @Test func environmentConfigFileAndLegacyCatalog() throws {
        let h = try Home()
        // ./shoebox.sqlite in the working folder is still found (before the data home).
        #expect(try h.shoebox(["ingest", h.tree, "--catalog", "shoebox.sqlite", "--progress", "none"]).status == 0)
        let legacy = try h.shoebox(["roots"])
        #expect(legacy.stdout == h.tree + "\n", "\(legacy.stderr)")
        let help = try h.shoebox(["stats", "--help"])
        let flat = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("now: shoebox.sqlite (from ./shoebox.sqlite in the working directory)"), "\(help.stdout)")

        // The config file wins over ./shoebox.sqlite; its relative catalog is resolved against its folder,
        // and its values are ingest's defaults (exclude, history retention).
        try h.writeConfig("catalog: mine.sqlite\nexclude: ['*.png']\nhistoryRetentionDays: 7\n")
        let configured = h.home + "/.config/shoebox/mine.sqlite"
        let viaConfig = try h.shoebox(["ingest", h.tree, "--progress", "none"])
        #expect(viaConfig.status == 0, "\(viaConfig.stderr)")
        #expect(
            viaConfig.stdout.hasPrefix("ingest run 1 into \(configured) (from the config file): 1 files in "),
            "\(viaConfig.stdout)")
        let cfgHelp = try h.shoebox(["query", "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(cfgHelp.contains("now: \(configured) (from the config file)"))

        // SHOEBOX_CATALOG wins over the config file; --catalog over everything.
        let envCatalog = h.scratch.path("env.sqlite")
        let viaEnv = try h.shoebox(["ingest", h.tree, "--progress", "none"], ["SHOEBOX_CATALOG": envCatalog])
        #expect(viaEnv.stdout.hasPrefix("ingest run 1 into \(envCatalog) (from SHOEBOX_CATALOG): "), "\(viaEnv.stdout)")
        let explicit = h.scratch.path("explicit.sqlite")
        let viaOption = try h.shoebox(
            ["ingest", h.tree, "--catalog", explicit, "--progress", "none"], ["SHOEBOX_CATALOG": envCatalog])
        #expect(viaOption.stdout.hasPrefix("ingest run 1 into \(explicit): "), "\(viaOption.stdout)")

        // A malformed config file is a usage error with its line, before any catalog is touched.
        try h.writeConfig("catalog: x.sqlite\nconcurency: 2\n")
        let bad = try h.shoebox(["ingest", h.tree, "--progress", "none"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("config.yml:2:"), "\(bad.stderr)")
        #expect(bad.stderr.contains("did you mean 'concurrency'"), "\(bad.stderr)")
    }
}
