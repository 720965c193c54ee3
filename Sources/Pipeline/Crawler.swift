#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One path found by the crawl, or a path the crawl could not enter.
public struct CrawlEntry: Sendable, Equatable {
    public var path: String
    /// Set when the path could not be read as a file or directory (loop, permission, vanished…).
    public var error: String?

    public init(path: String, error: String? = nil) {
        self.path = path
        self.error = error
    }
}

/// Walks files and directories, following symbolic links without ever looping.
///
/// Directories are identified by (device, inode): a directory reached twice (a symlink cycle, a bind
/// mount) is entered once. Entries are sorted per directory so runs are reproducible. Nothing is opened
/// for writing.
public struct Crawler: Sendable {
    public var includeHidden = false
    /// Directory names skipped by default (NAS thumbnails and the like).
    public var junkDirectories: Set<String> = ["@eaDir", ".thumbnails", "#recycle", ".Trash", ".Trashes", "$RECYCLE.BIN"]

    public init(includeHidden: Bool = false) { self.includeHidden = includeHidden }

    /// Calls `visit` for every non-directory path under `roots` (a root that is a file is visited itself).
    public func walk(_ roots: [String], visit: (CrawlEntry) throws -> Void) rethrows {
        var seen = Set<DirID>()
        for root in roots {
            try walk(path: root, isRoot: true, seen: &seen, depth: 0, visit: visit)
        }
    }

    struct DirID: Hashable { let dev: UInt64; let ino: UInt64 }

    /// Whether `path` names a directory (following links).
    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    private func walk(path: String, isRoot: Bool, seen: inout Set<DirID>, depth: Int, visit: (CrawlEntry) throws -> Void) rethrows {
        var st = stat()
        guard stat(path, &st) == 0 else {
            let e = errno
            let why = e == ELOOP ? "symbolic link loop" : String(cString: strerror(e))
            try visit(CrawlEntry(path: path, error: "cannot stat: \(why)"))
            return
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else {
            try visit(CrawlEntry(path: path))
            return
        }
        let id = DirID(dev: UInt64(st.st_dev), ino: UInt64(st.st_ino))
        guard !seen.contains(id) else { return }  // already walked through another link
        seen.insert(id)
        guard depth < 256 else {
            try visit(CrawlEntry(path: path, error: "directory nesting deeper than 256 levels"))
            return
        }
        guard let dir = opendir(path) else {
            try visit(CrawlEntry(path: path, error: "cannot open directory: \(String(cString: strerror(errno)))"))
            return
        }
        var names: [String] = []
        while let ent = readdir(dir) {
            let name = withUnsafePointer(to: ent.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            if !includeHidden && name.hasPrefix(".") { continue }
            if junkDirectories.contains(name) { continue }
            names.append(name)
        }
        closedir(dir)
        names.sort()
        let base = path.hasSuffix("/") ? path : path + "/"
        for name in names {
            try walk(path: base + name, isRoot: false, seen: &seen, depth: depth + 1, visit: visit)
        }
    }
}
