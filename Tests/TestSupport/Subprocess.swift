import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program to completion and captures its output. stderr is drained on another thread, so a
/// chatty child never blocks on a full pipe.
public enum Subprocess {
    public struct Run: Sendable {
        public var status: Int32
        /// The child died of a signal (`status` is then the signal number).
        public var signalled: Bool
        public var stdout: String
        public var stderr: String
    }

    /// The environment children run with: this one, but with `HOME`, `XDG_DATA_HOME` and `XDG_CONFIG_HOME`
    /// in a scratch home of this test process and `SHOEBOX_CATALOG` unset, so that no test reads or writes
    /// the real home folder (the catalog's default location and the config file are there).
    public static let environment: [String: String] = {
        var env = ProcessInfo.processInfo.environment
        let scratch = try? TestScratch.untilExit("test-home")
        let home = scratch?.url.path ?? FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-test-home-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        _ = chmod(home, 0o777)
        env["HOME"] = home
        env["XDG_DATA_HOME"] = home + "/.local/share"
        env["XDG_CONFIG_HOME"] = home + "/.config"
        env["SHOEBOX_CATALOG"] = nil
        return env
    }()

    /// Runs `executable` to completion. `environment` defaults to `Subprocess.environment` (a scratch
    /// home); `directory` is the working directory (default: this process's).
    public static func run(_ executable: String, _ args: [String], environment: [String: String]? = nil, directory: String? = nil) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        p.environment = environment ?? Self.environment
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let errData = LockedData()
        let errDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            errData.append(err.fileHandleForReading.readDataToEndOfFile())
            errDone.signal()
        }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        errDone.wait()
        p.waitUntilExit()
        return Run(
            status: p.terminationStatus, signalled: p.terminationReason == .uncaughtSignal, stdout: String(decoding: o, as: UTF8.self),
            stderr: String(decoding: errData.data, as: UTF8.self))
    }

    /// Whether `runUnprivileged` can run as a user that file permissions apply to: not root, or root with
    /// util-linux `setpriv` to become `nobody`. (Root reads and writes any file whatever its mode.)
    public static let canDropPrivileges: Bool = getuid() != 0 || which("setpriv") != nil

    /// Runs a program as `nobody` (uid and gid 65534, no groups) when the tests run as root, else as the
    /// current user, so that read-only files and folders are read-only for it.
    public static func runUnprivileged(_ executable: String, _ args: [String]) throws -> Run {
        guard getuid() == 0, let setpriv = which("setpriv") else { return try run(executable, args) }
        return try run(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", executable] + args)
    }

    /// The path of a program in the usual system folders, nil when absent.
    public static func which(_ tool: String) -> String? {
        for dir in ["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: dir + "/" + tool) {
            return dir + "/" + tool
        }
        return nil
    }

    public final class LockedData: @unchecked Sendable {
        private let lock = NSLock()
        private var _data = Data()
        public init() {}
        public func append(_ d: Data) { lock.withLock { _data.append(d) } }
        public var data: Data { lock.withLock { _data } }
    }
}

/// A temporary folder for one test, removed afterwards. Folders get their owner's permissions back first
/// (removing a file needs only its folder's), so trees a test made read-only or unreadable go too. Files
/// are never chmodded: a tree may hold hard links to the corpus (`CrashSafetyTests.makeTree`), and a
/// file's mode belongs to its inode, so `chmod -R` here once made the read-only corpus writable.
public final class TestScratch: @unchecked Sendable {
    public let url: URL

    public init(_ label: String = "test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        Self.openFolders(url.path)
        try? FileManager.default.removeItem(at: url)
    }

    /// Gives every folder under `path` its owner's rights back, each before it is listed, so an unreadable
    /// one opens. Symbolic links are not followed; files are left alone.
    private static func openFolders(_ path: String) {
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { return }
        if st.st_mode & 0o700 != 0o700 { _ = chmod(path, (st.st_mode & 0o7777) | 0o700) }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
        for name in names { openFolders(path + "/" + name) }
    }

    public func path(_ rel: String) -> String { url.appendingPathComponent(rel).path }

    /// A scratch folder that lives as long as the test process (for a catalog built once and shared by a
    /// suite's tests): removed when the process exits, so runs do not leave catalogs behind in `/tmp`.
    public static func untilExit(_ label: String) throws -> TestScratch {
        let scratch = try TestScratch(label)
        UntilExit.keep(scratch)
        return scratch
    }
}

/// Scratch folders removed at process exit (`atexit`; Swift Testing's runner returns from `main` normally).
enum UntilExit {
    nonisolated(unsafe) private static var kept: [TestScratch] = []
    private static let lock = NSLock()
    private static let registered: Void = { atexit { UntilExit.removeAll() } }()

    static func keep(_ scratch: TestScratch) {
        lock.lock()
        defer { lock.unlock() }
        _ = registered
        kept.append(scratch)
    }

    private static func removeAll() {
        lock.lock()
        let all = kept
        kept = []
        lock.unlock()
        _ = all  // each folder goes with its last reference, in TestScratch.deinit
    }
}
