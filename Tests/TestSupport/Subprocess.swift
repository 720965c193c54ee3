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

    /// `currentDirectory` and `environment` (the whole environment) default to this process's.
    public static func run(
        _ executable: String, _ args: [String], currentDirectory: String? = nil, environment: [String: String]? = nil
    ) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        if let currentDirectory { p.currentDirectoryURL = URL(fileURLWithPath: currentDirectory, isDirectory: true) }
        if let environment { p.environment = environment }
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

/// A temporary folder for one test, removed afterwards (write permission is given back first, so trees
/// a test made read-only or unreadable go too).
public final class TestScratch: @unchecked Sendable {
    public let url: URL

    public init(_ label: String = "test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        _ = try? Subprocess.run("/bin/chmod", ["-R", "u+rwX", url.path])
        try? FileManager.default.removeItem(at: url)
    }

    public func path(_ rel: String) -> String { url.appendingPathComponent(rel).path }
}
