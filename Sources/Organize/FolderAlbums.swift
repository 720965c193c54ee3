import PhotoModel

/// A regular album made from a directory (or a Takeout album folder).
public struct AlbumSpec: Sendable, Equatable {
    /// `UUID/L0/040` from `album:<directory>`.
    public var localIdentifier: String
    public var subtype: AssetCollectionSubtype
    public var title: String
    /// The directory, relative to the root.
    public var directory: String
    /// The folder holding it, nil at the top level.
    public var parentFolder: String?
    /// Asset ids (primary paths) directly in the directory, sorted.
    public var members: [String]
    public var reasons: [Reason]
}

/// A folder (`PHCollectionList` of type `.folder`, subtype `regularFolder`) made from a directory.
public struct FolderSpec: Sendable, Equatable {
    /// `UUID/L0/010` from `folder:<directory>`.
    public var localIdentifier: String
    public var subtype: CollectionListSubtype
    public var title: String
    public var directory: String
    public var parentFolder: String?
    /// Identifiers of the albums and folders inside, sorted by directory.
    public var children: [String]
    public var reasons: [Reason]
}

/// Albums and folders from the directory tree.
///
/// `.leafAlbums`: every directory that directly holds media becomes an album titled with the directory's
/// name, and every directory above it becomes a folder (folders nest like the directories). PhotoKit
/// folders cannot hold assets, so a directory that holds media **and** has subdirectories with media
/// becomes a folder that contains an album of the same name for its own files. Files at the root belong to
/// no album. `.none`: no albums or folders from directories.
///
/// Google Takeout: `takeoutTitles` maps a directory to the `title` of the album `metadata.json` in it (the
/// caller reads the JSON). Such a directory is an album with that title in either mode (with `.none` it
/// sits at the top level); Takeout's own year folders (`Photos from 2014`) are not albums when
/// `skipTakeoutYearFolders` is on and some Takeout album title was given.
public enum FolderAlbums {
    public enum Mode: String, Sendable, Equatable {
        case leafAlbums, none
    }

    public static func build(
        paths: [String], mode: Mode = .leafAlbums, takeoutTitles: [String: String] = [:],
        skipTakeoutYearFolders: Bool = true
    ) -> (albums: [AlbumSpec], folders: [FolderSpec]) {
        var filesByDir: [String: [String]] = [:]
        for p in paths {
            guard let dir = directory(of: p) else { continue }
            filesByDir[dir, default: []].append(p)
        }
        var (albums, folders) = build(
            directories: filesByDir.mapValues(\.count), mode: mode, takeoutTitles: takeoutTitles, skipTakeoutYearFolders: skipTakeoutYearFolders)
        for i in albums.indices { albums[i].members = filesByDir[albums[i].directory]!.sorted() }
        return (albums, folders)
    }

    /// The directory of a path relative to the root (`a/b` of `a/b/c.jpg`), nil for a file at the root.
    public static func directory(of path: some StringProtocol) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }

    /// `directory(of:)` of a `String` (what organize passes, once per asset): the last `/` byte, when its
    /// neighbours are ASCII, is the last "/" character (no scalar before it can be a grapheme prefix, none
    /// after it a mark or joiner); anything else goes the character search (~11,000 instructions a path
    /// through the generic one).
    public static func directory(of path: String) -> String? {
        let u = path.utf8
        guard let slash = u.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        let after = u.index(after: slash)
        guard slash == u.startIndex || u[u.index(before: slash)] < 0x80, after == u.endIndex || u[after] < 0x80 else {
            return directory(of: Substring(path))
        }
        return String(path[..<slash])
    }

    /// The albums and folders of directories holding `directories[dir]` media files each, with the albums'
    /// `members` left empty (`build(paths:)` fills them; the organize stage uses `layout` instead).
    public static func build(
        directories filesByDir: [String: Int], mode: Mode = .leafAlbums, takeoutTitles: [String: String] = [:],
        skipTakeoutYearFolders: Bool = true
    ) -> (albums: [AlbumSpec], folders: [FolderSpec]) {
        let tree = layout(directories: filesByDir, mode: mode, takeoutTitles: takeoutTitles, skipTakeoutYearFolders: skipTakeoutYearFolders)
        let folderIDs = tree.folders.map { StableIdentifier.collectionList("folder:" + $0.directory) }
        let albumIDs = tree.albums.map { StableIdentifier.collection("album:" + $0.directory) }
        let folders = tree.folders.enumerated().map { k, f in
            FolderSpec(
                localIdentifier: folderIDs[k], subtype: .regularFolder, title: f.title, directory: f.directory,
                parentFolder: f.parent.map { folderIDs[$0] }, children: f.children.map { $0.identifier(albums: albumIDs, folders: folderIDs) },
                reasons: [Reason("folder", "directory \(f.directory) holds albums below it")])
        }
        let albums = tree.albums.enumerated().map { k, a in
            var reasons: [Reason] = []
            if let t = takeoutTitles[a.directory] {
                reasons.append(Reason("album", "Google Takeout album metadata.json in \(a.directory): title \"\(t)\""))
            } else {
                reasons.append(Reason("album", "directory \(a.directory) holds \(filesByDir[a.directory]!) media files"))
            }
            if a.holdsFolder {
                reasons.append(Reason("album", "its own files, inside folder \(a.directory), because the directory also has albums below it"))
            }
            return AlbumSpec(
                localIdentifier: albumIDs[k], subtype: .albumRegular, title: a.title, directory: a.directory,
                parentFolder: a.parent.map { folderIDs[$0] }, members: [], reasons: reasons)
        }
        return (albums, folders)
    }

    /// The shape of the albums and folders `build` makes, without identifiers, reasons or members: albums
    /// and folders each in directory order, a parent or child named by its position. The organize stage
    /// qualifies the identifiers by root itself: at 21,700 directories the full specs (an identifier, a
    /// parent's and a reason text each, all thrown away there) took twice the memory, ~12 MB where the
    /// layout and the qualified identifiers take ~6 MB (Benchmarks/README.md, session 13).
    public struct Layout: Sendable, Equatable {
        public struct Album: Sendable, Equatable {
            /// The directory, relative to the root.
            public var directory: String
            public var title: String
            /// The folder holding it (a position in `folders`), nil at the top level.
            public var parent: Int?
            /// The directory is also a folder (media of its own and albums below it): this album holds its own files.
            public var holdsFolder: Bool
        }
        public struct Folder: Sendable, Equatable {
            public var directory: String
            public var title: String
            public var parent: Int?
            /// The albums and folders inside, by directory (an album of a folder's own files after its
            /// subfolder of the same name).
            public var children: [Child]
        }
        public enum Child: Sendable, Equatable {
            case album(Int), folder(Int)

            /// This child's identifier among the albums' and folders' identifiers (by position).
            public func identifier(albums: [String], folders: [String]) -> String {
                switch self {
                case .album(let i): albums[i]
                case .folder(let i): folders[i]
                }
            }
        }
        public var albums: [Album] = []
        public var folders: [Folder] = []
    }

    /// The albums and folders of directories holding `directories[dir]` media files each (see `build`).
    public static func layout(
        directories filesByDir: [String: Int], mode: Mode = .leafAlbums, takeoutTitles: [String: String] = [:],
        skipTakeoutYearFolders: Bool = true
    ) -> Layout {
        let isTakeout = !takeoutTitles.isEmpty
        func isYearFolder(_ dir: String) -> Bool {
            guard isTakeout && skipTakeoutYearFolders && takeoutTitles[dir] == nil else { return false }
            let n = name(dir)
            return n.hasPrefix("Photos from ") && n.count == 16 && n.suffix(4).allSatisfy(\.isNumber)
        }

        var albumDirs: [String] = []
        for dir in filesByDir.keys.sorted() {
            if takeoutTitles[dir] != nil || (mode == .leafAlbums && !isYearFolder(dir)) { albumDirs.append(dir) }
        }
        let nested = mode == .leafAlbums
        // Folders: every proper ancestor of an album directory (only in leafAlbums mode).
        var folderDirs = Set<String>()
        if nested { for d in albumDirs { for a in ancestors(d) { folderDirs.insert(a) } } }
        var tree = Layout()
        var folderAt: [String: Int] = [:]
        for d in folderDirs.sorted() {
            folderAt[d] = tree.folders.count
            tree.folders.append(Layout.Folder(directory: d, title: name(d), parent: nil, children: []))
        }
        for k in tree.folders.indices { tree.folders[k].parent = parent(tree.folders[k].directory).flatMap { folderAt[$0] } }
        tree.albums = albumDirs.map { d in
            // A directory that is both: a folder with an album of its own files inside.
            let holdsFolder = folderAt[d] != nil
            let parentDir = nested ? (holdsFolder ? d : parent(d)) : nil
            return Layout.Album(
                directory: d, title: takeoutTitles[d] ?? name(d), parent: parentDir.flatMap { folderAt[$0] }, holdsFolder: holdsFolder)
        }
        // Each folder's children sorted by directory; an album of a folder's own files sorts as its directory
        // followed by NUL, after a subfolder of the same name.
        var children: [Int: [(key: String, child: Layout.Child)]] = [:]
        for (k, f) in tree.folders.enumerated() { if let p = f.parent { children[p, default: []].append((f.directory, .folder(k))) } }
        for (k, a) in tree.albums.enumerated() { if let p = a.parent { children[p, default: []].append((a.directory + "\u{0}", .album(k))) } }
        for (p, list) in children { tree.folders[p].children = list.sorted { $0.key < $1.key }.map(\.child) }
        return tree
    }

    static func name(_ dir: String) -> String { PathText.fileName(dir) }

    static func parent(_ dir: String) -> String? {
        guard let i = dir.lastIndex(of: "/") else { return nil }
        return String(dir[..<i])
    }

    static func ancestors(_ dir: String) -> [String] {
        var out: [String] = []
        var d = dir
        while let p = parent(d) { out.append(p); d = p }
        return out
    }
}
