#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Catalog
import MediaProbe

/// One folder's files, as the ingest sees them: path, stat fingerprint, or why it could not be read.
public struct FolderBatch: Sendable {
    public struct File: Sendable {
        public var path: String
        public var fingerprint: FileFingerprint?
        public var error: String?
        /// The walk's `stat` of the path (type and owner), which the probe's open then need not repeat.
        public var seen: FileSource.Seen? = nil
    }

    /// Absolute folder path (no trailing slash).
    public var dir: String
    public var files: [File]
    /// Set when the folder itself could not be read (then `files` is empty).
    public var error: String?
}

/// Walks roots folder by folder, so memory holds one folder at a time (plus the stack of folders still to
/// visit). Follows symbolic links, enters each directory once by (device, inode), skips hidden entries and
/// NAS junk unless asked, applies the crawler's include/exclude rules, and never opens a file.
public struct FolderWalker {
    let crawler: Crawler
    /// Folders still to visit, with their path relative to the root they belong to.
    var stack: [(path: String, relative: String)]
    var seen = Set<Crawler.DirID>()
    /// Roots that are files, reported once as a batch of their own.
    var loose: [String] = []
    /// Shoebox's own files, recognised and left out (see `OwnFiles`).
    let own: OwnFiles
    /// What was left out as ours: path and why (catalog, thumbnail folder, temporary file).
    public private(set) var ownExcluded: [(path: String, why: String)] = []
    /// Folders reached again under another path (a symbolic link to a folder already walked, a cycle back
    /// to an ancestor, a bind mount) and so not walked twice: the path, and the folder it is (`realpath`).
    public private(set) var revisited: [(path: String, sameAs: String)] = []
    /// A sharded ingest: only the folders of this shard's units are walked (see `ShardAssignment`).
    public var shard: ShardAssignment?

    public init(roots: [String], crawler: Crawler = Crawler(), own: OwnFiles = OwnFiles()) {
        self.crawler = crawler
        self.own = own
        var dirs: [String] = []
        for r in roots {
            if Crawler.isDirectory(r) { dirs.append(Self.trim(r)) } else { loose.append(r) }
        }
        stack = dirs.reversed().map { ($0, "") }
    }

    static func trim(_ p: String) -> String { p.count > 1 && p.hasSuffix("/") ? String(p.dropLast()) : p }

    /// Whether every folder has been returned.
    public var isDone: Bool { loose.isEmpty && stack.isEmpty }

    /// Why a folder could not be read: the system's words, and for a path past PATH_MAX how long it is and
    /// that nothing below it is catalogued (the files it holds cannot be opened by path).
    static func why(_ e: Int32, _ path: String) -> String {
        let text = String(cString: strerror(e))
        guard e == ENAMETOOLONG else { return text }
        return "\(text) (\(path.utf8.count) bytes, more than the \(PATH_MAX) the system allows): nothing below it is catalogued"
    }

    /// The next folder, or nil when the walk is done.
    public mutating func next() -> FolderBatch? {
        if let shard, !shard.ownsFiles(inRelativeFolder: "") { loose = [] }  // file roots form the unit ""
        if !loose.isEmpty {
            let files = loose.map { Self.file($0) }
            let dir = loose.first.map { p in p.lastIndex(of: "/").map { String(p[..<$0]) } ?? "." } ?? "."
            loose = []
            return FolderBatch(dir: dir, files: files)
        }
        while let (dir, relDir) = stack.popLast() {
            // Opened first, and known by the open folder (`fstat`): a `stat` of the path resolved every
            // component of it again for each folder. A folder that cannot be opened is told apart as before
            // (gone or unreachable: "cannot stat"; there but unreadable: "cannot open").
            var st = stat()
            let opened = opendir(dir)
            let openError = errno
            defer { if let opened { closedir(opened) } }
            let known = opened.map { fstat(dirfd($0), &st) == 0 } ?? (stat(dir, &st) == 0)
            guard known else {
                return FolderBatch(dir: dir, files: [], error: "cannot stat folder: " + Self.why(errno, dir))
            }
            let id = Crawler.DirID(dev: UInt64(st.st_dev), ino: UInt64(st.st_ino))
            if seen.contains(id) {
                // Its files are the ones walked under its first path (the catalog keeps one path per file).
                revisited.append((dir, Crawler.realPath(dir)))
                continue
            }
            seen.insert(id)
            guard let folder = opened else {
                return FolderBatch(dir: dir, files: [], error: "cannot open folder: " + Self.why(openError, dir))
            }
            let dirFD = dirfd(folder)
            let listing = crawler.entryNames(folder)
            let names = listing.names
            // Entries no path can name (`Crawler.Listing`), in name order among the others: reported as files
            // that could not be read (a folder among them cannot be told from a file without its bytes).
            let unnamed = Dictionary(listing.notUTF8.map { ($0.shown, $0.reason) }, uniquingKeysWith: { a, _ in a })
            var files: [FolderBatch.File] = []
            var subdirs: [(String, String)] = []
            let siblings = OwnFiles.Siblings(sorted: names)
            let companions = crawler.companionKeys(inFolder: relDir, names: names)
            // Paths relative to the root are read by include/exclude patterns and shards only: without them
            // none is made (two strings per file were a tenth of the walk's own time).
            let relative = !crawler.include.isEmpty || !crawler.exclude.isEmpty || shard != nil
            for name in unnamed.isEmpty ? names : (names + unnamed.keys).sorted() {
                let path = dir == "/" ? "/" + name : dir + "/" + name
                let rel = !relative ? "" : relDir.isEmpty ? name : relDir + "/" + name
                if let why = unnamed[name] {
                    if crawler.accepts(rel, isDirectory: false, companionKeys: companions) {
                        files.append(FolderBatch.File(path: path, fingerprint: nil, error: why))
                    }
                    continue
                }
                // By name in the open folder: the same answers as `lstat`/`stat` of `path`.
                // Links not followed: one `lstat` (for anything but a link it is the `stat`), and links left out.
                var s = stat()
                if fstatat(dirFD, name, &s, crawler.followSymlinks ? 0 : AT_SYMLINK_NOFOLLOW) != 0 {
                    let e = errno
                    guard crawler.accepts(rel, isDirectory: false, companionKeys: companions) else { continue }
                    files.append(FolderBatch.File(path: path, fingerprint: nil, error: e == ELOOP ? "symbolic link loop" : "cannot stat: \(String(cString: strerror(e)))"))
                } else if (s.st_mode & S_IFMT) == S_IFLNK {
                    continue
                } else if (s.st_mode & S_IFMT) == S_IFDIR {
                    guard crawler.accepts(rel, isDirectory: true), shard?.enters(relativeFolder: rel) ?? true else { continue }
                    if let why = own.reason(path: path, name: name, siblings: siblings, isDirectory: true, in: dirFD) {
                        ownExcluded.append((path, why))
                        continue
                    }
                    subdirs.append((path, rel))
                } else if crawler.accepts(rel, isDirectory: false, companionKeys: companions) {
                    if let why = own.reason(path: path, name: name, siblings: siblings, isDirectory: false) {
                        ownExcluded.append((path, why))
                        continue
                    }
                    files.append(Self.file(path, s))
                }
            }
            // Depth-first, in name order.
            stack.append(contentsOf: subdirs.reversed())
            if let shard, !shard.ownsFiles(inRelativeFolder: relDir) { continue }
            if files.isEmpty { continue }
            return FolderBatch(dir: dir, files: files)
        }
        return nil
    }

    static func file(_ path: String) -> FolderBatch.File {
        var s = stat()
        guard stat(path, &s) == 0 else {
            return FolderBatch.File(path: path, fingerprint: nil, error: "cannot stat: \(String(cString: strerror(errno)))")
        }
        return file(path, s)
    }

    static func file(_ path: String, _ s: stat) -> FolderBatch.File {
        let fp = FileFingerprint(
            size: Int64(s.st_size), mtimeNanoseconds: Int64(s.st_mtim.tv_sec) * 1_000_000_000 + Int64(s.st_mtim.tv_nsec),
            inode: Int64(bitPattern: UInt64(s.st_ino)), device: Int64(bitPattern: UInt64(s.st_dev)))
        return FolderBatch.File(path: path, fingerprint: fp, error: nil, seen: FileSource.Seen(s))
    }

    /// Counts the files under `roots` without stat'ing them (for a progress total).
    public static func countFiles(_ roots: [String], crawler: Crawler = Crawler()) -> Int {
        var n = 0
        crawler.walk(roots) { _ in n += 1 }
        return n
    }
}
