import Foundation
import MediaProbe
import Testing
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 9 through the real binary: sources are never opened for writing (traced with strace), an
/// unreadable folder costs one error row and keeps its assets, and a low open-file limit does not fail
/// files.
@Suite(.serialized) struct ReadOnlyAndLimitsTests {
    typealias Run = Subprocess.Run

    static func exec(_ tool: String, _ args: [String]) throws -> Run { try Subprocess.run(tool, args) }

    static func scratch() throws -> TestScratch {
        let s = try TestScratch("readonly")
        chmod(s.url.path, 0o777)  // the unprivileged run writes its catalog here
        return s
    }

    static let binary = ProbeCommandTests.binary.path

    static func which(_ tool: String) -> String? { Subprocess.which(tool) }

    /// strace is installed and allowed to trace here (containers may forbid ptrace).
    static let straceWorks: Bool = {
        guard let s = which("strace") else { return false }
        return (try? exec(s, ["-f", "-qq", "-o", "/dev/null", "/bin/true"]).status) == 0
    }()

    // MARK: - Read-only guarantee

    /// Syscalls that change a path whatever their flags.
    static let mutating: Set<String> = [
        "creat", "truncate", "rename", "renameat", "renameat2", "unlink", "unlinkat", "mkdir", "mkdirat", "rmdir", "link", "linkat",
        "symlink", "symlinkat", "chmod", "fchmodat", "fchmodat2", "chown", "lchown", "fchownat", "utime", "utimes", "utimensat",
        "futimesat", "setxattr", "lsetxattr", "removexattr", "lremovexattr", "mknod", "mknodat",
    ]
    static let writeFlags = ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"]

    /// (syscall, first path, whole line) for every traced call with a path.
    static func calls(in log: String) -> [(String, String, String)] {
        var out: [(String, String, String)] = []
        for line in log.split(separator: "\n") {
            // "1234  openat(AT_FDCWD, "/x/y", O_RDONLY|O_CLOEXEC) = 3"
            guard let paren = line.firstIndex(of: "(") else { continue }
            let head = line[..<paren].split(separator: " ").last.map(String.init) ?? ""
            guard let q1 = line.firstIndex(of: "\"") else { continue }
            let rest = line[line.index(after: q1)...]
            guard let q2 = rest.firstIndex(of: "\"") else { continue }
            out.append((head, String(rest[..<q2]), String(line)))
        }
        return out
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"), .enabled(if: straceWorks, "strace is missing or ptrace is not permitted here"))
    func noSourceIsEverOpenedForWriting() throws {
        let s = try Self.scratch()
        // Root 1: the corpus. Root 2: a copy of the generated library made read-only (files and folders).
        let corpus = try #require(Corpus.root).path
        let ro = s.path("ro")
        _ = try Self.exec("/bin/cp", ["-R", Corpus.fixtures.appendingPathComponent("generated/library").path, ro])
        _ = try Self.exec("/bin/chmod", ["-R", "a-w", ro])
        let roots = [corpus, ro]
        let before = try roots.map(Self.snapshot)

        let log = s.path("trace.log")
        let r = try Self.exec(
            try #require(Self.which("strace")),
            ["-f", "-qq", "-s", "4096", "-e", "trace=%file", "-o", log, Self.binary, "ingest"] + roots + [
                "--catalog", s.path("c.sqlite"), "--progress", "none", "--cross-check", "--thumbnails", s.path("thumbs"),
                "--thumbnail-sizes", "64",
            ])
        #expect(r.status == 0 || r.status == 1, "ingest failed: \(r.stderr)")
        let calls = Self.calls(in: try String(contentsOfFile: log, encoding: .utf8))
        func underRoot(_ p: String) -> Bool { roots.contains { p == $0 || p.hasPrefix($0 + "/") } }
        var reads = 0
        var violations: [String] = []
        for (name, path, line) in calls where underRoot(path) {
            if name.hasPrefix("open") || name == "creat" {
                if Self.writeFlags.contains(where: { line.contains($0) }) { violations.append(line) } else { reads += 1 }
            } else if Self.mutating.contains(name) {
                violations.append(line)
            }
        }
        #expect(violations.isEmpty, "writes under a root:\n\(violations.prefix(20).joined(separator: "\n"))")
        // The trace did see the files being read (by us, libavformat, libheif and libvips alike).
        let files = before.reduce(0) { $0 + $1.count }
        #expect(reads >= files, "only \(reads) read-only opens traced for \(files) files")
        #expect(try roots.map(Self.snapshot) == before, "a source changed")
    }

    static func snapshot(_ root: String) throws -> [String: String] {
        var out: [String: String] = [:]
        let en = FileManager.default.enumerator(atPath: root)
        while let rel = en?.nextObject() as? String {
            let p = root + "/" + rel
            var st = stat()
            guard lstat(p, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            out[rel] = "\(st.st_mode) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec) " + ((try? ContentHasher.hash(path: p)) ?? "unreadable")
        }
        return out
    }

    /// JPEGs of the generated library that probe without an error (it also holds broken ones on purpose).
    static func cleanJPEGs() throws -> [String] {
        let lib = Corpus.fixtures.appendingPathComponent("generated/library").path
        return try FileManager.default.subpathsOfDirectory(atPath: lib).filter { $0.lowercased().hasSuffix(".jpg") }.sorted().filter {
            !Prober().probe(path: lib + "/" + $0).issues.contains { $0.severity == .error }
        }
    }

    // MARK: - Unreadable folder

    /// As root every folder is readable, so the run drops to `nobody` with setpriv.
    @Test(.enabled(if: Subprocess.canDropPrivileges, "running as root without setpriv: no folder can be made unreadable"))
    func anUnreadableFolderIsOneErrorRowAndKeepsItsAssets() throws {
        let s = try Self.scratch()
        let root = s.path("lib")
        let lib = Corpus.fixtures.appendingPathComponent("generated/library").path
        let jpegs = try Self.cleanJPEGs()
        try #require(jpegs.count >= 2)
        try FileManager.default.createDirectory(atPath: root + "/locked", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: lib + "/" + jpegs[0], toPath: root + "/open.jpg")
        try FileManager.default.copyItem(atPath: lib + "/" + jpegs[1], toPath: root + "/locked/inside.jpg")
        _ = try Self.exec("/bin/chmod", ["-R", "a+rX", s.url.path])
        let catalog = s.path("c.sqlite")
        func ingest() throws -> Run {
            try Subprocess.runUnprivileged(Self.binary, ["ingest", root, "--catalog", catalog, "--progress", "none"])
        }
        // First run: everything readable, two assets.
        let first = try ingest()
        #expect(first.status == 0, "\(first.stdout)\n\(first.stderr)")
        #expect(first.stdout.contains("assets inserted 2"))
        // Second run: the folder cannot be listed. One error row for it; its asset is not trashed.
        chmod(root + "/locked", 0)
        let second = try ingest()
        chmod(root + "/locked", 0o755)
        #expect(second.status == 1)
        #expect(second.stdout.contains("1 failed"), "\(second.stdout)")
        #expect(second.stdout.contains("deleted 0"), "\(second.stdout)")
        #expect(second.stdout.contains("in Recently Deleted: 0"), "\(second.stdout)")
        let errors = try Self.exec(Self.binary, ["errors", "--catalog", catalog, "--format", "ndjson", "--run", "2"])
        let rows = errors.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(rows.count == 1)
        #expect(rows.first?["path"] as? String == root + "/locked")
        #expect((rows.first?["reason"] as? String)?.contains("Permission denied") == true, "\(rows)")
    }

    // MARK: - Memory

    /// Under a 256 MiB data limit (heap and private mappings), probing the hostile files — a 2^63-byte box,
    /// a 2 GB sparse JPEG, EXIF counts of 2 GB — next to the corpus (libheif and libavformat included)
    /// completes: no reader allocates by a declared size.
    @Test(.enabled(if: which("prlimit") != nil, "prlimit (util-linux) is missing"))
    func probesStayWithinAMemoryCap() throws {
        let s = try Self.scratch()
        let dir = s.path("hostile")
        _ = try Self.exec("/bin/cp", ["-R", Corpus.fixtures.appendingPathComponent("hostile").path, dir])
        let sparse = dir + "/sparse-2g.jpg"
        let head: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        FileManager.default.createFile(atPath: sparse, contents: Data(head))
        #expect(truncate(sparse, 2 << 30) == 0)
        let roots = [dir] + (Corpus.root.map { [$0.path] } ?? [])
        let r = try Self.exec(
            try #require(Self.which("prlimit")), ["--data=\(256 << 20)", Self.binary, "probe", "--format", "ndjson"] + roots)
        #expect(r.status == 1, "exit \(r.status) (a crash is a signal status): \(r.stderr.suffix(2000))")
        let reports = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let hostile = reports.filter { ($0["path"] as? String)?.hasPrefix(dir + "/") == true }
        #expect(hostile.count == 6, "\(hostile.map { $0["path"] ?? "" })")
        for rep in hostile {
            let issues = rep["issues"] as? [[String: Any]] ?? []
            #expect(issues.contains { $0["severity"] as? String == "error" }, "\(rep["path"] ?? ""): no error")
        }
    }

    // MARK: - Open files

    /// Under `ulimit -n 128`, an ingest asked for 32 files at once fits its width to the limit and no file
    /// fails with "Too many open files" (before the shared pool, 32 folders × 32 files were in flight).
    @Test(.enabled(if: which("prlimit") != nil, "prlimit (util-linux) is missing"))
    func aLowOpenFileLimitFailsNoFile() throws {
        let s = try Self.scratch()
        let root = s.path("many")
        let lib = Corpus.fixtures.appendingPathComponent("generated/library").path
        let jpeg = try Self.cleanJPEGs().first
        let bytes = try Data(contentsOf: URL(fileURLWithPath: lib + "/" + (try #require(jpeg))))
        for d in 0..<40 {
            try FileManager.default.createDirectory(atPath: root + "/d\(d)", withIntermediateDirectories: true)
            for f in 0..<40 {
                var b = bytes
                b.append(contentsOf: [UInt8(d), UInt8(f)])
                FileManager.default.createFile(atPath: root + "/d\(d)/f\(f).jpg", contents: b)
            }
        }
        let r = try Self.exec(
            try #require(Self.which("prlimit")),
            ["--nofile=128:128", Self.binary, "ingest", root, "--catalog", s.path("c.sqlite"), "--progress", "none", "--jobs", "32"])
        #expect(r.stderr.contains("the open-file limit is 128"), "\(r.stderr)")
        #expect(r.stdout.contains("1600 files"), "\(r.stdout)")
        #expect(r.stdout.contains("0 damaged (catalogued), 0 failed"), "\(r.stdout)\n\(r.stderr)")
        #expect(!r.stdout.contains("Too many open files"))
        #expect(r.status == 0)
    }
}
