import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A failure to write a path the user chose: a code to match on, the path, and the C call that failed.
public struct OutputError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The path is a directory (or a link to one) where a file was wanted.
        public static let isDirectory = Code(rawValue: "isDirectory")
        /// The folder the file would go in does not exist.
        public static let noFolder = Code(rawValue: "noFolder")
        /// A socket, a block device, or `-` where standard output makes no sense.
        public static let unsupported = Code(rawValue: "unsupported")
        /// A system call failed (permissions, a full disk, …).
        public static let io = Code(rawValue: "io")
    }

    public var code: Code
    public var path: String
    /// The C function that failed, when one did.
    public var function: String?
    public var message: String

    public init(_ code: Code, path: String, function: String? = nil, _ message: String) {
        self.code = code
        self.path = path
        self.function = function
        self.message = message
    }

    public var description: String { message }

    static func system(_ function: String, _ path: String, _ what: String) -> OutputError {
        OutputError(.io, path: path, function: function, "cannot \(what) \(path): \(String(cString: strerror(errno)))")
    }
}

/// Where a path the user chose for output leads, decided before a byte is written.
public enum OutputTarget: Sendable, Equatable {
    /// `-`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`: the already open descriptor is written.
    case descriptor(Int32)
    /// A new path, or a regular file of ours (one link, our user): written to `.<name>.<UUID>.tmp`
    /// beside it and renamed into place, so a reader never sees half a file.
    case replace(path: String)
    /// A symbolic link (the link stays, its target gets the bytes), a terminal, `/dev/null`, a FIFO, or a
    /// regular file we must not replace (another user's, or hard-linked): opened for writing in place.
    case writeThrough(path: String)
}

/// The one way Shoebox writes a path a user chose (`--out`, `--mapping`, a new `--catalog`, thumbnails):
/// never replaces a link, a device or a FIFO with a regular file, never writes into a directory's name,
/// and renames a temporary file into place only where the file is ours.
public enum OutputFile {
    /// What writing `path` means. `-` is standard output when `allowStandardOutput` (the formats that
    /// stream); otherwise it is refused rather than taken as a file named `-`.
    public static func target(for path: String, allowStandardOutput: Bool = false) throws(OutputError) -> OutputTarget {
        if path == "-" {
            guard allowStandardOutput else {
                throw OutputError(.unsupported, path: path, "'-' (standard output) cannot be used here; give a file")
            }
            return .descriptor(1)
        }
        if path.isEmpty { throw OutputError(.unsupported, path: path, "an empty path is not a file name") }
        if let fd = openDescriptor(named: path) { return .descriptor(fd) }
        var st = stat()
        guard lstat(path, &st) == 0 else {
            guard errno == ENOENT else { throw .system("lstat", path, "reach") }
            try requireFolder(of: path)
            return .replace(path: path)
        }
        switch st.st_mode & S_IFMT {
        case S_IFDIR: throw directoryError(path)
        case S_IFREG:
            return st.st_nlink == 1 && st.st_uid == geteuid() ? .replace(path: path) : .writeThrough(path: path)
        case S_IFLNK:
            var target = stat()
            guard stat(path, &target) == 0 else {
                // A link to nothing yet: opening it creates its target (whose folder must exist).
                guard errno == ENOENT else { throw .system("stat", path, "follow the link") }
                return .writeThrough(path: path)
            }
            if (target.st_mode & S_IFMT) == S_IFDIR { throw directoryError(path) }
            try refuseUnwritableKind(target.st_mode, path)
            return .writeThrough(path: path)
        default:
            try refuseUnwritableKind(st.st_mode, path)
            return .writeThrough(path: path)
        }
    }

    /// Writes `bytes` to `path` as `target(for:)` decides.
    public static func write(_ bytes: some DataProtocol, to path: String, allowStandardOutput: Bool = false) throws(OutputError) {
        let data = Data(bytes)
        switch try target(for: path, allowStandardOutput: allowStandardOutput) {
        case .descriptor(let fd):
            try writeAll(fd, data, path)
        case .writeThrough(let p):
            try writeThrough(data, p)
        case .replace(let p):
            let tmp = temporaryPath(beside: p)
            let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            guard fd >= 0 else {
                // A file of ours in a folder we may not write: it can still be written in place.
                if errno == EACCES || errno == EROFS, access(p, W_OK) == 0 { return try writeThrough(data, p) }
                throw .system("open", tmp, "create")
            }
            var existing = stat()
            if stat(p, &existing) == 0 { fchmod(fd, existing.st_mode & 0o7777) }  // a replaced file keeps its mode
            do {
                try writeAll(fd, data, tmp)
                close(fd)
                try place(tmp, at: p)
            } catch {
                close(fd)
                unlink(tmp)
                throw error
            }
        }
    }

    static func writeThrough(_ data: Data, _ path: String) throws(OutputError) {
        let fd = try openInPlace(path)
        defer { close(fd) }
        try writeAll(fd, data, path)
    }

    /// Opens a link's target, a device, a FIFO (waiting for its reader) or a file for writing in place.
    static func openInPlace(_ path: String) throws(OutputError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw .system("open", path, "open") }
        return fd
    }

    /// Puts a finished temporary file (from `temporaryPath(beside:)`) at `path`: renamed into place for a
    /// new path or a regular file of ours; copied into a link's target, a device or a FIFO, and then
    /// removed. With `replacing: false` an existing file is never replaced: `false` is returned and the
    /// temporary file is removed. The temporary file is gone whatever happens.
    @discardableResult
    public static func place(_ temporary: String, at path: String, replacing: Bool = true) throws(OutputError) -> Bool {
        defer { unlink(temporary) }
        if !replacing {
            // link() refuses an existing name, where rename() would replace it.
            if link(temporary, path) == 0 { return true }
            if errno == EEXIST { return false }
            var st = stat()
            guard lstat(path, &st) != 0 else { return false }
        }
        switch try target(for: path) {
        case .replace(let p):
            guard rename(temporary, p) == 0 else { throw .system("rename", p, "rename into place") }
        case .descriptor(let fd):
            try copy(temporary, into: fd, path)
        case .writeThrough(let p):
            let fd = try openInPlace(p)
            defer { close(fd) }
            try copy(temporary, into: fd, p)
        }
        return true
    }

    /// `.<name>.<UUID>.tmp` in the folder of `path` (of the link's target, for a link): the one naming
    /// scheme of Shoebox's temporary files, which the crawler and the thumbnail pruner recognise.
    public static func temporaryPath(beside path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
    }

    /// The final name of a temporary file named by `temporaryPath(beside:)` (`.<name>.<UUID>.tmp`), else nil.
    public static func temporaryTarget(ofName name: String) -> String? {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return nil }
        let inner = name.dropFirst().dropLast(4)  // "<name>.<UUID>"
        guard let dot = inner.lastIndex(of: "."), UUID(uuidString: String(inner[inner.index(after: dot)...])) != nil else {
            return nil
        }
        return String(inner[..<dot])
    }

    /// Throws unless the folder a new file at `path` would go in exists.
    public static func requireFolder(of path: String) throws(OutputError) {
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var st = stat()
        guard stat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw OutputError(.noFolder, path: path, function: "stat", "cannot write \(path): the folder \(dir) does not exist")
        }
    }

    /// Whether `path` can be an output folder: a directory (or a link to one), or nothing yet.
    public static func isFolderOrNew(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) != 0 ? errno == ENOENT : (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// `path` with symbolic links followed (up to 32), even to a target that does not exist yet; `path`
    /// itself when it is not a link.
    public static func resolvingLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<32 {
            var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buf, buf.count - 1)
            guard n > 0 else { return current }
            let target = String(decoding: buf[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current =
                target.hasPrefix("/")
                ? target : URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(target).path
        }
        return current
    }

    /// An open descriptor named by `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or `/proc/self/fd/N`: writing
    /// it directly keeps the shell's redirection (its offset, `>>`), which reopening the path would not.
    static func openDescriptor(named path: String) -> Int32? {
        let fd: Int32?
        switch path {
        case "/dev/stdout": fd = 1
        case "/dev/stderr": fd = 2
        default:
            let prefix = ["/dev/fd/", "/proc/self/fd/"].first { path.hasPrefix($0) }
            fd = prefix.flatMap { Int32(path.dropFirst($0.count)) }
        }
        guard let fd, fcntl(fd, F_GETFD) != -1 else { return nil }
        return fd
    }

    static func directoryError(_ path: String) -> OutputError {
        OutputError(.isDirectory, path: path, "\(path) is a directory; give a file name")
    }

    /// Sockets and block devices are never written: a manifest on a disk device is never what was meant.
    static func refuseUnwritableKind(_ mode: mode_t, _ path: String) throws(OutputError) {
        switch mode & S_IFMT {
        case S_IFSOCK: throw OutputError(.unsupported, path: path, "\(path) is a socket; give a file, a FIFO or a terminal")
        case S_IFBLK: throw OutputError(.unsupported, path: path, "\(path) is a block device; give a file, a FIFO or a terminal")
        default: return
        }
    }

    static func writeAll(_ fd: Int32, _ data: Data, _ path: String) throws(OutputError) {
        let failed: Bool = data.withUnsafeBytes { buf in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                if n < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                off += n
            }
            return false
        }
        if failed { throw .system("write", path, "write") }
    }

    static func copy(_ source: String, into fd: Int32, _ path: String) throws(OutputError) {
        let src = open(source, O_RDONLY | O_CLOEXEC)
        guard src >= 0 else { throw .system("open", source, "read") }
        defer { close(src) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(src, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .system("read", source, "read") }
            if n == 0 { return }
            try writeAll(fd, Data(buffer[..<n]), path)
        }
    }
}
