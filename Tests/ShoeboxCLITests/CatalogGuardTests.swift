import Catalog
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Trust at the edges, through the binary: which files a command takes as a catalog (and the message
/// and exit status of each refusal), read-only catalogs, and `--out` paths that are links, FIFOs,
/// standard output or directories.
@Suite(.serialized) struct CatalogGuardTests {
    typealias Run = Subprocess.Run
    static let binary = ProbeCommandTests.binary.path

    static func shoebox(_ args: [String]) throws -> Run { try Subprocess.run(binary, args) }

    /// A scratch folder anyone may write (the unprivileged runs make files in it).
    static func scratch(_ label: String) throws -> TestScratch {
        let s = try TestScratch(label)
        chmod(s.url.path, 0o777)
        return s
    }

    /// A small catalog without an ingest: one album, made by `change --create`.
    static func makeCatalog(_ path: String) throws {
        let r = try shoebox(["change", "--create", "--create-album", "Trip", "--catalog", path])
        try #require(r.status == 0, "\(r.stderr)")
    }

    static func listing(_ dir: String) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir).sorted() }

    static func isLink(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK
    }

    // MARK: - Files that are not a catalog

    /// Foreign SQLite (another application_id; application_id 0 with other tables), an empty file, a
    /// text file, a newer catalog: each refused with its message and exit 2, by a reading and a writing
    /// command alike, and left byte-identical with nothing created beside it.
    @Test func filesThatAreNotOursAreRefusedAndUntouched() throws {
        let s = try Self.scratch("guard-strangers")
        let lib = Corpus.fixtures.appendingPathComponent("generated/library").path
        var cases: [(String, String)] = []
        func add(_ name: String, _ message: String, make: (String) throws -> Void) throws {
            let dir = s.path(name)
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try make(dir + "/x.sqlite")
            cases.append((dir + "/x.sqlite", message))
        }
        try add("foreign", "(application_id 0x0BADF00D)") { try SQLiteFiles.foreign($0, applicationID: 0x0BAD_F00D) }
        try add("zero", "no Shoebox tables") { try SQLiteFiles.foreign($0, applicationID: 0) }
        try add("empty", "is an empty file, not a Shoebox catalog") {
            FileManager.default.createFile(atPath: $0, contents: Data())
        }
        try add("text", "is not a SQLite database") {
            FileManager.default.createFile(atPath: $0, contents: Data(repeating: 0x41, count: 4096))
        }
        try add("newer", "was made by a newer Shoebox (schema 99); this one reads up to \(Catalog.schemaVersion)") {
            try Self.makeCatalog($0)
            try SQLiteFiles.setHeader($0, userVersion: 99)
        }
        for (path, message) in cases {
            let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let names = try Self.listing(dir)
            for args in [
                ["stats"], ["query", "--count"], ["requests"], ["ingest", lib, "--progress", "none"],
                ["change", "--create-album", "X"],
            ] {
                let r = try Self.shoebox(args + ["--catalog", path])
                #expect(r.status == 2, "\(args[0]) on \(path): \(r.status) \(r.stderr)")
                #expect(r.stderr.contains(message) && r.stderr.contains(path), "\(args[0]): \(r.stderr)")
                #expect(r.stdout.isEmpty)
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "\(path) changed")
            let after = try Self.listing(dir)
            #expect(after == names, "files appeared beside \(path): \(after)")
        }
    }

    // MARK: - Missing catalogs

    @Test func onlyWritingCommandsThatMayCreateMakeACatalog() throws {
        let s = try Self.scratch("guard-missing")
        let path = s.path("none.sqlite")
        for args in [
            ["stats"], ["query"], ["errors"], ["changes", "--current-token"], ["requests"], ["change", "--create-album", "X"],
        ] {
            let r = try Self.shoebox(args + ["--catalog", path])
            #expect(r.status == 2, "\(args[0]): \(r.stderr)")
            #expect(
                r.stderr.contains("No catalog at \(path). Run 'shoebox ingest ROOT' first, or pass --catalog PATH."),
                "\(args[0]): \(r.stderr)")
        }
        #expect(try Self.listing(s.url.path).isEmpty)

        let deep = s.path("no/such/folder/c.sqlite")
        let r = try Self.shoebox(["change", "--create", "--create-album", "X", "--catalog", deep])
        #expect(r.status == 2)
        #expect(
            r.stderr.contains("cannot create the catalog \(deep): the folder \(s.path("no/such/folder")) does not exist"),
            "\(r.stderr)")

        try Self.makeCatalog(path)
        #expect(Catalog.isCatalog(atPath: path))
        #expect(try Self.shoebox(["collections", "--catalog", path]).stdout.contains("Trip"))
    }

    // MARK: - Read-only catalogs

    /// A read-only catalog file, and a catalog in a read-only folder (a NAS share, another user's): the
    /// reading commands work, the writing ones say why they cannot, and nothing is written. Run as
    /// `nobody` when the tests run as root, since root ignores file permissions.
    @Test(.enabled(if: Subprocess.canDropPrivileges, "running as root without setpriv: nothing can be made read-only"))
    func aReadOnlyCatalogIsReadAndNeverWritten() throws {
        let s = try Self.scratch("guard-readonly")
        let file = s.path("file.sqlite")
        try Self.makeCatalog(file)
        chmod(file, 0o444)
        let folder = s.path("share")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.makeCatalog(folder + "/c.sqlite")
        chmod(folder + "/c.sqlite", 0o644)
        chmod(folder, 0o555)
        defer { chmod(folder, 0o755) }

        for path in [file, folder + "/c.sqlite"] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let names = try Self.listing(folder)
            for args in [
                ["collections"], ["stats"], ["query", "--count"], ["requests", "--out", "-"], ["changes", "--current-token"],
            ] {
                let r = try Subprocess.runUnprivileged(Self.binary, args + ["--catalog", path])
                #expect(r.status == 0, "\(args[0]) on \(path): \(r.stderr)")
                if args[0] == "collections" { #expect(r.stdout.contains("Trip")) }
            }
            let w = try Subprocess.runUnprivileged(Self.binary, ["change", "--create-album", "Y", "--catalog", path])
            #expect(w.status == 2)
            #expect(w.stderr.contains("read-only") && w.stderr.contains(path), "\(w.stderr)")
            let save = try Subprocess.runUnprivileged(Self.binary, ["query", "--save", "all", "--catalog", path])
            #expect(save.status == 2, "\(save.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "\(path) changed")
            #expect(try Self.listing(folder) == names, "files appeared in the read-only folder")
        }
    }

    // MARK: - Outputs that never clobber

    @Test func requestsStreamToStandardOutput() throws {
        let s = try Self.scratch("guard-stdout")
        let cat = s.path("c.sqlite")
        try Self.makeCatalog(cat)
        let file = try Self.shoebox(["requests", "--catalog", cat, "--out", s.path("m.jsonl")])
        #expect(file.status == 0, "\(file.stderr)")
        // Placeholders are new on every run and the header holds the time: compare sizes and titles.
        let manifest = try String(contentsOfFile: s.path("m.jsonl"), encoding: .utf8)
        #expect(manifest.contains("collectionCreationRequest"))
        for args in [[], ["--out", "-"], ["--out", "/dev/stdout"]] {
            let r = try Self.shoebox(["requests", "--catalog", cat] + args)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            #expect(r.stdout.utf8.count == manifest.utf8.count, "\(args)")
            #expect(r.stdout.hasPrefix("{\"kind\":\"header\"") && r.stdout.contains("\"title\":\"Trip\""), "\(args)")
            #expect(r.stderr.contains("wrote standard output"))
        }
        #expect(Self.isLink("/dev/stdout") || !FileManager.default.fileExists(atPath: "/dev/stdout"), "/dev/stdout was replaced")
        // No file named '-' (SQLite's own -wal and -shm may stay beside the catalog after a read).
        #expect(try Self.listing(s.url.path).filter { !$0.hasPrefix("c.sqlite") } == ["m.jsonl"])
    }

    /// `--out LINK` where the link points to a FIFO (as /dev/stdout points to a pipe): the reader gets the
    /// whole manifest, the link stays a link and the FIFO a FIFO. A link to /dev/null, and a link to a
    /// file: written through, never replaced.
    @Test func linksFIFOsAndDevicesAreWrittenThrough() throws {
        let s = try Self.scratch("guard-links")
        let cat = s.path("c.sqlite")
        try Self.makeCatalog(cat)
        let size = try Self.shoebox(["requests", "--catalog", cat]).stdout.utf8.count

        let fifo = s.path("pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: s.path("out"), withDestinationPath: fifo)
        let received = Subprocess.LockedData()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            if let h = FileHandle(forReadingAtPath: fifo) { received.append(h.readDataToEndOfFile()) }
            done.signal()
        }
        let r = try Self.shoebox(["requests", "--catalog", cat, "--out", s.path("out")])
        // Should the run have failed before opening the FIFO, this releases the reader.
        let w = open(fifo, O_WRONLY | O_NONBLOCK)
        if w >= 0 { close(w) }
        done.wait()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(received.data.count == size && size > 0)
        #expect(Self.isLink(s.path("out")))
        var st = stat()
        #expect(lstat(fifo, &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO)

        try FileManager.default.createSymbolicLink(atPath: s.path("null"), withDestinationPath: "/dev/null")
        #expect(try Self.shoebox(["requests", "--catalog", cat, "--out", s.path("null")]).status == 0)
        #expect(Self.isLink(s.path("null")))

        FileManager.default.createFile(atPath: s.path("target.jsonl"), contents: Data("old\n".utf8))
        try FileManager.default.createSymbolicLink(atPath: s.path("link.jsonl"), withDestinationPath: "target.jsonl")
        #expect(try Self.shoebox(["requests", "--catalog", cat, "--out", s.path("link.jsonl")]).status == 0)
        #expect(Self.isLink(s.path("link.jsonl")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.path("target.jsonl"))).count == size)
    }

    @Test func aDirectoryIsNeverAnOutputFile() throws {
        let s = try Self.scratch("guard-dir")
        let cat = s.path("c.sqlite")
        try Self.makeCatalog(cat)
        let dir = s.path("outdir")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for args in [["--out", dir], ["--out", s.path("m.jsonl"), "--mapping", dir]] {
            let r = try Self.shoebox(["requests", "--catalog", cat] + args)
            #expect(r.status == 2)
            #expect(r.stderr.contains("\(dir) is a directory; give a file name"), "\(r.stderr)")
        }
        #expect(try Self.listing(dir).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: s.path("m.jsonl")))

        let thumbs = try Self.shoebox(["thumbnails", "--catalog", cat, "--out", cat])
        #expect(thumbs.status == 2)
        #expect(thumbs.stderr.contains("is not a folder"), "\(thumbs.stderr)")
    }
}
