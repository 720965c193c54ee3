#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Assemble
import MediaProbe

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
///
/// Filtering, in this order, for every name below a root (a root itself is always walked/visited):
/// 1. names starting with `.` are skipped unless `includeHidden`;
/// 2. names in `junkDirectories` are skipped;
/// 3. with `followSymlinks == false`, symbolic links are skipped (neither visited nor entered);
/// 4. a path matching any `exclude` pattern is skipped — a directory is then not entered at all;
/// 5. a *file* is visited only if `include` is empty, or it matches some `include` pattern, or it is a
///    *companion* of a file in the same folder that does: same `Assembler.companionKey` (the paired
///    `.MOV`, `.AAE`, `IMG_E…` renders, XMP and Takeout JSON sidecars), so `*.heic` keeps whole assets.
///    Directories are always entered, so `include: ["*.jpg"]` finds JPEGs at any depth. An exclude
///    pattern drops only what it matches: `--include '*.heic' --exclude '*.mov'` keeps stills only.
/// Patterns are matched against the path relative to its root (see `GlobPattern`).
public struct Crawler: Sendable {
    public var includeHidden = false
    /// Directory names skipped by default (NAS thumbnails and the like).
    public var junkDirectories: Set<String> = ["@eaDir", ".thumbnails", "#recycle", ".Trash", ".Trashes", "$RECYCLE.BIN"]
    /// When non-empty, only files matching one of these are visited.
    public var include: [GlobPattern] = []
    /// Files and directories matching one of these are skipped; wins over `include`.
    public var exclude: [GlobPattern] = []
    /// When false, symbolic links below a root are skipped instead of followed (a root is always followed).
    public var followSymlinks = true

    public init(includeHidden: Bool = false) { self.includeHidden = includeHidden }

    /// Calls `visit` for every non-directory path under `roots` (a root that is a file is visited itself).
    public func walk(_ roots: [String], visit: (CrawlEntry) throws -> Void) rethrows {
        var seen = Set<DirID>()
        for root in roots {
            try walk(path: root, relative: "", companions: [], seen: &seen, depth: 0, visit: visit)
        }
    }

    struct DirID: Hashable { let dev: UInt64; let ino: UInt64 }

    /// Whether `path` names a directory (following links).
    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// The path with every link resolved (`realpath`), or the path itself when it cannot be resolved.
    static func realPath(_ path: String) -> String {
        realpath(path, nil).map { p in
            defer { free(p) }
            return String(cString: p)
        } ?? path
    }

    /// Whether a directory is gone: not there (or a path through a file), or no longer a directory. One
    /// that cannot be reached (a parent without permission) is not gone.
    public static func isMissingDirectory(_ path: String) -> Bool {
        var st = stat()
        if stat(path, &st) == 0 { return (st.st_mode & S_IFMT) != S_IFDIR }
        return errno == ENOENT || errno == ENOTDIR
    }

    /// Whether `relativePath` (a file or directory below a root) passes `exclude` (and, for files, `include`).
    public func accepts(_ relativePath: String, isDirectory: Bool) -> Bool {
        if exclude.contains(where: { $0.matches(relativePath, isDirectory: isDirectory) }) { return false }
        if isDirectory || include.isEmpty { return true }
        return include.contains(where: { $0.matches(relativePath, isDirectory: false) })
    }

    /// The companion keys of the files in one folder that `include` matches (and `exclude` does not);
    /// empty when there are no include patterns. `names`: the folder's entries; `relativeDir`: its path
    /// relative to its root ("" for the root).
    public func companionKeys(inFolder relativeDir: String, names: [String]) -> Set<String> {
        guard !include.isEmpty else { return [] }
        var keys = Set<String>()
        for name in names where accepts(relativeDir.isEmpty ? name : relativeDir + "/" + name, isDirectory: false) {
            keys.insert(Assembler.companionKey(ofFileName: name))
        }
        return keys
    }

    /// `accepts(_:isDirectory:)`, or a file not excluded whose companion key is in `companionKeys`.
    public func accepts(_ relativePath: String, isDirectory: Bool, companionKeys: Set<String>) -> Bool {
        if accepts(relativePath, isDirectory: isDirectory) { return true }
        guard !isDirectory, !companionKeys.isEmpty, !exclude.contains(where: { $0.matches(relativePath, isDirectory: false) }) else { return false }
        let name = relativePath.lastIndex(of: "/").map { String(relativePath[relativePath.index(after: $0)...]) } ?? relativePath
        return companionKeys.contains(Assembler.companionKey(ofFileName: name))
    }

    /// The sorted names in a directory, without `.`/`..`, hidden entries (unless asked) and NAS junk;
    /// nil when the directory cannot be opened (`errno` says why).
    func entryNames(_ path: String) -> Listing? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        return entryNames(dir)
    }

    /// A folder's entries: the names, sorted, and the entries whose name is not valid UTF-8, which no path
    /// in the catalog (text) can name: shown with U+FFFD in place of the bad bytes, and why (the name with
    /// those bytes escaped). Each is reported as a file that could not be read, not dropped in silence: made
    /// into a `String` the name no longer exists, and its `stat` said "No such file or directory".
    struct Listing {
        var names: [String] = []
        var notUTF8: [(shown: String, reason: String)] = []
    }

    /// Why a name made of these bytes (not UTF-8) cannot be catalogued: the name, its bad bytes escaped.
    static func notUTF8Reason(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var escaped = "", offset = 0
        var parser = Unicode.UTF8.ForwardParser()
        var input = bytes.makeIterator()
        parsing: while true {
            switch parser.parseScalar(from: &input) {
            case .valid(let encoded):
                escaped.unicodeScalars.append(Unicode.UTF8.decode(encoded))
                offset += encoded.count
            case .error(let length):
                for byte in bytes[offset..<offset + length] {
                    let hex = String(byte, radix: 16, uppercase: true)
                    escaped += "\\x" + (hex.count == 1 ? "0" : "") + hex
                }
                offset += length
            case .emptyInput:
                break parsing
            }
        }
        return "name is not valid UTF-8 (\(escaped)): not catalogued, as paths are stored as text; rename it in UTF-8 (Latin-1 names: convmv -f latin1 -t utf8 --notest)"
    }

    /// A folder's entries (as `entryNames(_:)`) from the folder open as `dir` (`opendir`), which the caller
    /// keeps open: its entries can then be looked at by name (`fstatat` on `dirfd(dir)`) rather than by a
    /// path the kernel resolves from the root again for each of them.
    func entryNames(_ dir: OpaquePointer) -> Listing {
        var out = Listing()
        while let ent = readdir(dir) {
            let (name, notUTF8) = withUnsafePointer(to: ent.pointee.d_name) {
                $0.withMemoryRebound(to: UInt8.self, capacity: 256) { p in
                    let bytes = UnsafeBufferPointer(start: p, count: strlen(UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self)))
                    // Hidden by its first byte: a name starting with "." and then a combining mark is one
                    // character, not ".", to `hasPrefix`.
                    if bytes.first == UInt8(ascii: "."), !includeHidden { return ("", nil as String?) }
                    if let name = UTF8Text.validated(bytes) { return (name, nil) }
                    return (String(decoding: bytes, as: UTF8.self), Self.notUTF8Reason(bytes))
                }
            }
            if name.isEmpty || name == "." || name == ".." { continue }
            if junkDirectories.contains(name) { continue }
            if let notUTF8 {
                out.notUTF8.append((name, notUTF8))
                continue
            }
            out.names.append(name)
        }
        out.names.sort()
        out.notUTF8.sort { $0.shown < $1.shown }
        return out
    }

    private func walk(
        path: String, relative: String, companions: Set<String>, seen: inout Set<DirID>, depth: Int, visit: (CrawlEntry) throws -> Void
    ) rethrows {
        let isRoot = relative.isEmpty
        var st = stat()
        if !isRoot && !followSymlinks {
            guard lstat(path, &st) == 0 else {
                try visit(CrawlEntry(path: path, error: "cannot stat: \(String(cString: strerror(errno)))"))
                return
            }
            if (st.st_mode & S_IFMT) == S_IFLNK { return }
        }
        guard stat(path, &st) == 0 else {
            let e = errno
            // An excluded path that cannot be read (a dangling link in @eaDir…) is not worth a report.
            if !isRoot && exclude.contains(where: { $0.matches(relative, isDirectory: false) }) { return }
            let why = e == ELOOP ? "symbolic link loop" : String(cString: strerror(e))
            try visit(CrawlEntry(path: path, error: "cannot stat: \(why)"))
            return
        }
        let isDirectory = (st.st_mode & S_IFMT) == S_IFDIR
        if !isRoot && !accepts(relative, isDirectory: isDirectory, companionKeys: companions) { return }
        guard isDirectory else {
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
        guard let listing = entryNames(path) else {
            try visit(CrawlEntry(path: path, error: "cannot open directory: \(String(cString: strerror(errno)))"))
            return
        }
        let names = listing.names
        let base = path.hasSuffix("/") ? path : path + "/"
        let keys = companionKeys(inFolder: relative, names: names)
        for (shown, why) in listing.notUTF8 where accepts(relative.isEmpty ? shown : relative + "/" + shown, isDirectory: false, companionKeys: keys) {
            try visit(CrawlEntry(path: base + shown, error: why))
        }
        for name in names {
            let rel = relative.isEmpty ? name : relative + "/" + name
            try walk(path: base + name, relative: rel, companions: keys, seen: &seen, depth: depth + 1, visit: visit)
        }
    }
}
