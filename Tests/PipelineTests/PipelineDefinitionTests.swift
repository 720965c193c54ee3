import Foundation
import Testing

@testable import Pipeline

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// Parses `yaml`, expecting an error; returns it (or records a failure and returns nil).
private func failure(_ yaml: String, file: String = "p.yml", sourceLocation: SourceLocation = #_sourceLocation) -> PipelineDefinitionError? {
    do {
        let def = try PipelineDefinition.parse(yaml, baseDirectory: "/lib", file: file)
        Issue.record("expected an error, parsed \(def)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

@Suite struct PipelineDefinitionTests {
    // MARK: The shipped default

    @Test func loadsTheShippedDefault() throws {
        let path = packageRoot + "/Pipelines/default.yml"
        let def = try PipelineDefinition.load(path: path)
        #expect(def.roots == [packageRoot + "/Pipelines"])
        #expect(def.catalog == nil)
        #expect(def.include == [])
        #expect(def.exclude == ["**/@eaDir/**", "**/.thumbnails/**", "**/*.tmp", "**/Thumbs.db", "**/.DS_Store"])
        #expect(def.includeHidden == false)
        #expect(def.followSymlinks == true)
        #expect(def.concurrency == nil)
        #expect(def.historyRetentionDays == 30)
        #expect(def.prune == false)
        #expect(def.stages == PipelineDefinition.Stages())
        #expect(def.stages.thumbnails == .init(enabled: false, sizes: [256, 1024], mode: .fit, format: .jpeg, out: nil))
        for name in ["probe", "classify", "assemble", "organize", "commit"] { #expect(def.stages.isEnabled(name) == true) }
        #expect(def.stages.isEnabled("thumbnails") == false)
        #expect(def.stages.isEnabled("nope") == nil)
        let crawler = try def.makeCrawler()
        #expect(crawler.exclude.count == 5)
        #expect(!crawler.accepts("2024/@eaDir", isDirectory: true))
        #expect(!crawler.accepts("2024/IMG_1.jpg.tmp", isDirectory: false))
        #expect(!crawler.accepts("Thumbs.db", isDirectory: false))
        #expect(crawler.accepts("2024/IMG_1.jpg", isDirectory: false))
    }

    @Test func loadRelativePathResolvesAgainstTheFilesFolder() throws {
        let dir = try TempTree()
        try dir.write("lib/p.yml", "roots: [., ../other, /abs/x, sub/./y/]\ncatalog: cat.sqlite\nstages:\n  thumbnails: {out: thumbs}\n")
        let def = try PipelineDefinition.load(path: dir.path + "/lib/p.yml")
        #expect(def.roots == [dir.path + "/lib", dir.path + "/other", "/abs/x", dir.path + "/lib/sub/y"])
        #expect(def.catalog == dir.path + "/lib/cat.sqlite")
        #expect(def.stages.thumbnails.enabled)  // a mapping turns the stage on
        #expect(def.stages.thumbnails.out == dir.path + "/lib/thumbs")
    }

    @Test func everyKeyParses() throws {
        let yaml = """
            roots: photos
            catalog: /var/shoebox/catalog.sqlite
            include: ["(?i)*.jpg", "*.heic"]
            exclude: "**/tmp/**"
            includeHidden: yes
            followSymlinks: false
            concurrency: 8
            stages:
              probe: true
              classify: {enabled: true}
              assemble: true
              organize: false
              commit: false
              thumbnails:
                sizes: [128, 512, 2048]
                mode: fill
                format: webp
                out: /tmp/thumbs
                prune: yes
            historyRetentionDays: ~
            prune: true
            fileTimeout: 15
            """
        let def = try PipelineDefinition.parse(yaml, baseDirectory: "/lib")
        #expect(def.fileTimeout == 15)
        var withoutTimeout = def
        withoutTimeout.fileTimeout = nil
        #expect(withoutTimeout == PipelineDefinition(
            roots: ["/lib/photos"], catalog: "/var/shoebox/catalog.sqlite", include: ["(?i)*.jpg", "*.heic"],
            exclude: ["**/tmp/**"], includeHidden: true, followSymlinks: false, concurrency: 8,
            stages: .init(probe: true, classify: true, assemble: true, organize: false, commit: false,
                          thumbnails: .init(enabled: true, sizes: [128, 512, 2048], mode: .fill, format: .webp, out: "/tmp/thumbs", prune: true)),
            historyRetentionDays: nil, prune: true))
    }

    // MARK: Errors, with positions

    @Test func wrongTypeMatchesTheDocumentedExample() throws {
        let yaml = """
            # Shoebox pipeline
            roots:
              - .
            stages:
              probe: true
            prune: false
            concurrency: many
            """
        let e = try #require(failure(yaml, file: "Pipelines/default.yml"))
        #expect(e.kind == .wrongType)
        #expect(e.file == "Pipelines/default.yml")
        #expect((e.line, e.column) == (7, 14))
        #expect(e.message == "'concurrency' must be an integer from 1 to 256, found 'many'")
        #expect(e.description == """
            Pipelines/default.yml:7:14: error: 'concurrency' must be an integer from 1 to 256, found 'many'
            concurrency: many
                         ^
            """)
    }

    @Test func outOfRange() throws {
        var e = try #require(failure("roots: [.]\nconcurrency: 0\n"))
        #expect(e.kind == .outOfRange)
        #expect((e.line, e.column) == (2, 14))
        #expect(e.message == "'concurrency' must be an integer from 1 to 256, found '0'")
        e = try #require(failure("roots: [.]\nconcurrency: 257\n"))
        #expect((e.kind, e.line, e.column) == (.outOfRange, 2, 14))
        e = try #require(failure("roots: [.]\nhistoryRetentionDays: -1\n"))
        #expect((e.kind, e.line, e.column) == (.outOfRange, 2, 23))
        #expect(e.message == "'historyRetentionDays' must be a number of days from 0 to 36500, found '-1'")
        e = try #require(failure("roots: [.]\nstages:\n  thumbnails:\n    sizes: [256, 9000]\n"))
        #expect((e.kind, e.line, e.column) == (.outOfRange, 4, 18))
        e = try #require(failure("roots: [.]\nfileTimeout: -5\n"))
        #expect((e.kind, e.line, e.column) == (.outOfRange, 2, 14))
        #expect(e.message == "'fileTimeout' must be a number of seconds from 0 to 86400, found '-5'")
        e = try #require(failure("roots: [.]\nconcurrency: 99999999999999999999999\n"))
        #expect((e.kind, e.line, e.column) == (.wrongType, 2, 14))  // does not fit an Int at all
    }

    @Test func wrongTypes() throws {
        var e = try #require(failure("roots: [.]\nincludeHidden: maybe\n"))
        #expect((e.kind, e.line, e.column) == (.wrongType, 2, 16))
        #expect(e.message == "'includeHidden' must be true or false, found 'maybe'")
        e = try #require(failure("roots: {a: b}\n"))
        #expect((e.kind, e.line, e.column) == (.wrongType, 1, 8))
        #expect(e.message == "'roots' must be a list of folders, found a mapping")
        e = try #require(failure("roots: [., [x]]\n"))
        #expect((e.kind, e.line, e.column) == (.wrongType, 1, 12))
        e = try #require(failure("roots: [.]\nconcurrency: \"4\"\n"))  // quoted: a string, not an integer
        #expect((e.kind, e.line, e.column) == (.wrongType, 2, 14))
        e = try #require(failure("roots: [.]\nstages:\n  probe: sometimes\n"))
        #expect((e.kind, e.line, e.column) == (.wrongType, 3, 10))
        #expect(e.message == "stage 'probe' must be true, false or a mapping with 'enabled', found 'sometimes'")
        e = try #require(failure("- roots\n- .\n"))
        #expect((e.kind, e.line, e.column) == (.wrongType, 1, 1))
        e = try #require(failure("roots: [.]\nstages:\n  thumbnails:\n    mode: crop\n"))
        #expect((e.kind, e.line, e.column) == (.invalidValue, 4, 11))
        #expect(e.message == "'thumbnails.mode' must be one of fit, fill; found 'crop'")
        e = try #require(failure("roots: [.]\nstages:\n  thumbnails:\n    format: webb\n"))
        #expect((e.kind, e.line, e.column) == (.invalidValue, 4, 13))
        #expect(e.message.hasSuffix("did you mean 'webp'?"))
        e = try #require(failure("roots: [.]\nstages:\n  thumbnails:\n    sizes: [256, 256]\n"))
        #expect((e.kind, e.line, e.column) == (.invalidValue, 4, 18))
        e = try #require(failure("roots: []\n"))
        #expect((e.kind, e.line, e.column) == (.invalidValue, 1, 8))
        e = try #require(failure("roots: [\"\"]\n"))
        #expect((e.kind, e.line, e.column) == (.invalidValue, 1, 9))
    }

    @Test func unknownKeys() throws {
        var e = try #require(failure("roots: [.]\n\nconcurency: 4\n"))
        #expect(e.kind == .unknownKey)
        #expect((e.line, e.column) == (3, 1))
        #expect(e.message.hasPrefix("unknown key 'concurency' in the pipeline definition; did you mean 'concurrency'?"))
        e = try #require(failure("roots: [.]\ninclude_hidden: true\n"))
        #expect((e.kind, e.line, e.column) == (.unknownKey, 2, 1))
        #expect(e.message.contains("did you mean 'includeHidden'?"))
        e = try #require(failure("roots: [.]\nstages:\n  thumbnails:\n    quality: 80\n"))
        #expect((e.kind, e.line, e.column) == (.unknownKey, 4, 5))
        e = try #require(failure("roots: [.]\nstages:\n  probe: {enabled: true, deep: true}\n"))
        #expect((e.kind, e.line, e.column) == (.unknownKey, 3, 26))
    }

    @Test func unknownStage() throws {
        let e = try #require(failure("roots: [.]\nstages:\n  probe: true\n  thumbnail: true\n"))
        #expect(e.kind == .unknownStage)
        #expect((e.line, e.column) == (4, 3))
        #expect(e.message == "unknown stage 'thumbnail' in 'stages'; did you mean 'thumbnails'? (known: probe, classify, assemble, organize, commit, thumbnails)")
    }

    @Test func badGlobsPointAtTheCharacter() throws {
        var e = try #require(failure("roots: [.]\nexclude:\n  - \"**/*.[jpg\"\n"))
        #expect(e.kind == .badGlob)
        #expect((e.line, e.column) == (3, 11))
        #expect(e.message == "bad glob pattern '**/*.[jpg' in 'exclude': '[' is never closed; write '\\[' for a literal bracket")
        #expect(e.description.hasSuffix("  - \"**/*.[jpg\"\n          ^"))
        e = try #require(failure("roots: [.]\ninclude: [a**b]\n"))
        #expect((e.kind, e.line, e.column) == (.badGlob, 2, 12))
        e = try #require(failure("roots: [.]\ninclude:\n  - 'x//y'\n"))
        #expect((e.kind, e.line, e.column) == (.badGlob, 3, 8))
        e = try #require(failure("roots: [.]\nexclude: ['[z-a]']\n"))
        #expect((e.kind, e.line, e.column) == (.badGlob, 2, 13))
        #expect(e.message.hasSuffix("range 'z-a' is reversed"))
    }

    @Test func missingRootsAndEmptyDocument() throws {
        var e = try #require(failure("# nothing yet\n\nprune: true\nconcurrency: 2\n"))
        #expect(e.kind == .missingKey)
        #expect((e.line, e.column) == (3, 1))
        #expect(e.message.hasPrefix("missing required key 'roots'"))
        e = try #require(failure("# only a comment\n"))
        #expect((e.kind, e.line, e.column) == (.missingKey, 1, 1))
    }

    @Test func yamlSyntaxErrorsKeepTheirMark() throws {
        var e = try #require(failure("roots: [.]\nprune: true: false\n"))
        #expect(e.kind == .syntax)
        #expect((e.line, e.column) == (2, 12))
        #expect(e.message == "invalid YAML: mapping values are not allowed in this context")
        e = try #require(failure("roots:\n  - .\n bad: 1\n"))
        #expect((e.kind, e.line, e.column) == (.syntax, 3, 2))
        // The classic mistake: an unquoted glob starts with '*' and YAML reads an alias.
        e = try #require(failure("roots: [.]\nexclude:\n  - **/@eaDir/**\n"))
        #expect((e.kind, e.line, e.column) == (.syntax, 3, 5))
        #expect(e.message.contains("quote glob patterns"))
        e = try #require(failure("roots: [.]\nexclude: [*tmp]\n"))
        #expect((e.kind, e.line, e.column) == (.syntax, 2, 11))
        #expect(e.message.contains("undefined alias"))
        e = try #require(failure("roots: [.]\nroots: [x]\n"))
        #expect((e.kind, e.line, e.column) == (.duplicateKey, 1, 1))
        #expect(e.message == "key 'roots' appears more than once in this mapping")
    }

    @Test func caretFollowsTabsAndDescriptionWithoutPosition() throws {
        let e = PipelineDefinitionError(kind: .wrongType, file: "f.yml", line: 1, column: 4, message: "m", sourceLine: "\t\tab")
        #expect(e.description == "f.yml:1:4: error: m\n\t\tab\n\t\t ^")
        var caught: PipelineDefinitionError?
        do { _ = try PipelineDefinition.load(path: "/nonexistent/pipeline.yml") } catch { caught = error }
        let io = try #require(caught)
        #expect(io.kind == .io)
        #expect((io.line, io.column) == (0, 0))
        #expect(io.description.hasPrefix("/nonexistent/pipeline.yml: error: cannot open the pipeline definition: "))
    }

    @Test func invalidUTF8IsReportedWithItsPosition() throws {
        let dir = try TempTree()
        try dir.writeBytes("p.yml", Array("roots: [.]\ncatalog: caf".utf8) + [0xE9] + Array("\n".utf8))
        do {
            _ = try PipelineDefinition.load(path: dir.path + "/p.yml")
            Issue.record("expected an error")
        } catch {
            #expect((error.kind, error.line, error.column) == (.syntax, 2, 13))
        }
    }

    // MARK: Size and expansion limits

    @Test(.timeLimit(.minutes(1))) func billionLaughsFailsFast() throws {
        var yaml = "roots: [.]\nlol0: &lol0 \"lol\"\n"
        for i in 1...9 {
            let refs = Array(repeating: "*lol\(i - 1)", count: 10).joined(separator: ", ")
            yaml += "lol\(i): &lol\(i) [\(refs)]\n"
        }
        let start = Date()
        let e = try #require(failure(yaml))
        #expect(Date().timeIntervalSince(start) < 1)
        #expect(e.kind == .aliasLimit)
        #expect((e.line, e.column) == (3, 70))  // the ninth alias: third line, ninth '*lol0'
        #expect(e.message.contains("billion laughs"))

        // As mapping keys (Yams hashes keys deeply): also refused before composing.
        var keys = "roots: [.]\na: &a [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1...9 { keys += "k\(i): &k\(i) [*\(i == 1 ? "a" : "k\(i - 1)"), *\(i == 1 ? "a" : "k\(i - 1)")]\n" }
        keys += "? *k9\n: boom\n"
        let k = try #require(failure(keys))
        #expect(k.kind == .aliasLimit)
    }

    @Test func expansionBeyondTheNodeBudgetIsRefused() throws {
        // Few aliases, but each repeats a 2,000-item list: 12,000+ nodes once expanded.
        let big = Array(repeating: "x", count: 2000).joined(separator: ", ")
        let yaml = "roots: [.]\nbig: &big [\(big)]\nmore: [*big, *big, *big, *big, *big]\n"
        let e = try #require(failure(yaml))
        #expect((e.kind, e.line, e.column) == (.nodeLimit, 3, 1))  // the key whose value crossed the budget
        #expect(e.message == "the value of 'more' takes the document past 10000 YAML nodes (aliases expanded); refusing it ('billion laughs')")
        // Without aliases too: a literal list of 10,001 patterns.
        let many = Array(repeating: "\"a\"", count: 10_001).joined(separator: ", ")
        let m = try #require(failure("roots: [.]\nexclude: [\(many)]\n"))
        #expect((m.kind, m.line, m.column) == (.nodeLimit, 2, 1))
    }

    @Test func anchorsAndAliasesInModerationWork() throws {
        let yaml = "roots: [a]\ninclude: &x [\"**/@eaDir/**\", \"*.tmp\"]\nexclude: *x\nstages:\n  probe: &on true\n  commit: *on\n"
        let def = try PipelineDefinition.parse(yaml, baseDirectory: "/b")
        #expect(def.roots == ["/b/a"])
        #expect(def.include == ["**/@eaDir/**", "*.tmp"])
        #expect(def.exclude == def.include)
        #expect(def.stages.commit)
    }

    @Test func deepNestingIsAnErrorNotACrash() throws {
        // libyaml stops at 1,000 levels; below that Yams and the reader recurse, which must stay safe.
        let deep = "roots: [.]\nx: " + String(repeating: "[", count: 990) + String(repeating: "]", count: 990) + "\n"
        let e = try #require(failure(deep))
        #expect((e.kind, e.line, e.column) == (.unknownKey, 2, 1))
        let tooDeep = "roots: " + String(repeating: "[", count: 200_000) + "\n"
        let t = try #require(failure(tooDeep))
        #expect(t.kind == .syntax)
        #expect(t.line == 1)
    }

    @Test func documentsOverOneMebibyteAreRefused() throws {
        let text = "roots: [.]\n#" + String(repeating: "x", count: PipelineDefinition.maximumDocumentBytes) + "\n"
        let e = try #require(failure(text))
        #expect(e.kind == .tooLarge)
        let dir = try TempTree()
        try dir.write("big.yml", text)
        do {
            _ = try PipelineDefinition.load(path: dir.path + "/big.yml")
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .tooLarge)
            #expect(error.description.hasPrefix(dir.path + "/big.yml: error: the pipeline definition is larger than 1048576 bytes"))
        }
    }

    // MARK: Globs

    static let globTable: [(pattern: String, path: String, dir: Bool, matches: Bool)] = [
        ("*.jpg", "a.jpg", false, true),
        ("*.jpg", "2024/05/a.jpg", false, true),  // no '/': the name, at any depth
        ("*.jpg", "a.jpeg", false, false),
        ("*.jpg", "a.JPG", false, true),  // a literal extension at the end ignores case (issue 16)
        ("*.JPG", "2024/a.jpg", false, true),
        ("IMG_1.heic", "IMG_1.HEIC", false, true),
        ("IMG_1.heic", "img_1.heic", false, false),  // only the extension: the rest is case-sensitive
        ("*.j?g", "a.JPG", false, false),  // not a literal extension: case-sensitive
        ("DCIM/*.jpg", "dcim/a.JPG", false, false),
        ("(?i)*.jpg", "2024/a.JPG", false, true),
        ("(?i)IMG_[0-9]*.HEIC", "img_1234.heic", false, true),
        ("*", ".hidden", false, true),  // '*' matches a leading dot (hidden files are the crawler's business)
        ("a?c", "abc", false, true),
        ("a?c", "a/c", false, false),
        ("a?c", "ac", false, false),
        ("[abc].txt", "b.txt", false, true),
        ("[abc].txt", "d.txt", false, false),
        ("[a-c]x", "bx", false, true),
        ("[!a-c]x", "bx", false, false),
        ("[!a-c]x", "dx", false, true),
        ("[^x]y", "zy", false, true),
        ("[]]", "]", false, true),  // a leading ']' is literal
        ("\\*.txt", "*.txt", false, true),
        ("\\*.txt", "a.txt", false, false),
        ("Import/*.jpg", "Import/a.jpg", false, true),
        ("Import/*.jpg", "x/Import/a.jpg", false, false),  // with '/': anchored at the root
        ("Import/*.jpg", "Import/sub/a.jpg", false, false),  // '*' stays within a component
        ("/Import/*.jpg", "Import/a.jpg", false, true),  // a leading '/' changes nothing
        ("**/*.jpg", "a.jpg", false, true),  // '**' matches zero components
        ("**/*.jpg", "a/b/c/d.jpg", false, true),
        ("a/**/b", "a/b", false, true),
        ("a/**/b", "a/x/y/z/b", false, true),
        ("a/**/b", "a/x/y/z/c", false, false),
        ("a/**", "a", true, true),  // trailing '**' with zero components: the folder itself
        ("a/**", "a/x/y", false, true),
        ("a/**", "ab/x", false, false),
        ("**", "anything/at/all", false, true),
        ("**/@eaDir/**", "2024/@eaDir", true, true),
        ("**/@eaDir/**", "2024/@eaDir/SYNOFILE_THUMB_M.jpg", false, true),
        ("**/@eaDir/**", "2024/notes@eaDir", true, false),
        ("**/**/x", "x", false, true),
        ("a/**/**/b", "a/q/b", false, true),
        ("cache/", "cache", true, true),  // trailing '/': directories only
        ("cache/", "cache", false, false),
        ("*a*b*c", "xxaybzzc", false, true),
        ("*a*b*c", "xxaybzz", false, false),
        ("caf\u{E9}.jpg", "cafe\u{301}.jpg", false, true),  // NFC pattern, NFD name
        ("(?i)[a-c]x", "BX", false, true),
    ]

    @Test func globTable() throws {
        #expect(Self.globTable.count >= 25)
        for row in Self.globTable {
            let g = try GlobPattern(row.pattern)
            #expect(g.matches(row.path, isDirectory: row.dir) == row.matches, "\(row.pattern) vs \(row.path)")
        }
        #expect(try GlobPattern("*.JPG", caseInsensitive: true).matches("a.jpg"))
        #expect(try GlobPattern("(?i)x").caseInsensitive)
        #expect(try GlobPattern("a/b").isAnchored)
        #expect(try !GlobPattern("b").isAnchored)
    }

    @Test func badGlobs() {
        let bad: [(String, Int)] = [
            ("", 0), ("[abc", 0), ("x/[", 2), ("a**", 1), ("**b/c", 0), ("a//b", 2), ("[]", 0), ("a\\", 1), ("[z-a]", 1),
            ("(?i)a**", 5),
        ]
        for (pattern, offset) in bad {
            #expect(throws: GlobPattern.SyntaxError.self, "\(pattern)") { try GlobPattern(pattern) }
            do {
                _ = try GlobPattern(pattern)
            } catch {
                #expect(error.offset == offset, "\(pattern): \(error)")
            }
        }
    }

    // MARK: Crawler filters

    @Test func crawlerIncludeExcludeHiddenAndSymlinks() throws {
        let t = try TempTree()
        for f in ["a.jpg", "b.png", "c.tmp", ".hidden.jpg", "sub/d.jpg", "sub/e.JPG", "sub/deeper/f.jpg",
                  "skip/g.jpg", "sub/skip/h.jpg", ".dotdir/i.jpg", "@eaDir/j.jpg"] {
            try t.write(f, "x")
        }
        symlink(t.path + "/sub", t.path + "/zlink-to-sub")
        symlink(t.path, t.path + "/sub/loop")  // a cycle back to the root
        func walk(_ c: Crawler) -> [String] {
            var out: [String] = []
            c.walk([t.path]) { e in out.append(String(e.path.dropFirst(t.path.count + 1)) + (e.error.map { " ! \($0)" } ?? "")) }
            return out
        }

        // Proof that an excluded folder is not entered: walking into it would report these two error entries
        // (a self-referencing link, and — unless we are root — an unreadable folder).
        symlink("selfloop", t.path + "/skip/selfloop")
        #expect(walk(Crawler()).contains("skip/selfloop ! cannot stat: symbolic link loop"))
        chmod(t.path + "/skip", 0)
        defer { chmod(t.path + "/skip", 0o755) }

        var c = Crawler()
        c.exclude = [try GlobPattern("skip/**"), try GlobPattern("*.tmp")]
        // 'skip/**' is anchored: the top-level folder only; sub/skip is still walked.
        #expect(walk(c) == ["a.jpg", "b.png", "sub/d.jpg", "sub/deeper/f.jpg", "sub/e.JPG", "sub/skip/h.jpg"])
        #expect(!c.accepts("skip", isDirectory: true))

        c.include = [try GlobPattern("*.jpg")]  // the extension ignores case: sub/e.JPG too
        #expect(walk(c) == ["a.jpg", "sub/d.jpg", "sub/deeper/f.jpg", "sub/e.JPG", "sub/skip/h.jpg"])

        c.include = [try GlobPattern("(?i)*.jpg")]
        c.exclude = [try GlobPattern("**/skip/**")]
        #expect(walk(c) == ["a.jpg", "sub/d.jpg", "sub/deeper/f.jpg", "sub/e.JPG"])

        c.includeHidden = true
        #expect(walk(c) == [".dotdir/i.jpg", ".hidden.jpg", "a.jpg", "sub/d.jpg", "sub/deeper/f.jpg", "sub/e.JPG"])

        // Symlinks: followed (zlink-to-sub is the same directory as sub, walked once; the loop is not entered).
        var plain = Crawler()
        plain.exclude = [try GlobPattern("skip/")]
        let followed = walk(plain)
        #expect(!followed.contains { $0.hasPrefix("skip") })
        #expect(followed.filter { $0.hasSuffix("d.jpg") }.count == 1)
        #expect(!followed.contains { $0.contains("!") })
        plain.followSymlinks = false
        let notFollowed = walk(plain)
        #expect(!notFollowed.contains { $0.hasPrefix("zlink-to-sub") })
        #expect(notFollowed.contains("sub/d.jpg"))
    }
}

// MARK: - Helpers

/// A temporary directory removed on deinit.
private final class TempTree {
    let path: String
    init() throws {
        var template = Array((PipelineDefinition.normalize(NSTemporaryDirectory()) + "/shoebox-pipeline-XXXXXX").utf8CString)
        guard let p = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: p)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func write(_ relative: String, _ text: String) throws { try writeBytes(relative, Array(text.utf8)) }
    func writeBytes(_ relative: String, _ bytes: [UInt8]) throws {
        let url = URL(fileURLWithPath: path + "/" + relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }
}
