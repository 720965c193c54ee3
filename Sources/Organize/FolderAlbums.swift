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

    /// The albums and folders of directories holding `directories[dir]` media files each, with the albums'
    /// `members` left empty: a caller that streams a large library fills them in its own terms (asset row
    /// ids, in path order) instead of holding every path.
    public static func build(
        directories filesByDir: [String: Int], mode: Mode = .leafAlbums, takeoutTitles: [String: String] = [:],
        skipTakeoutYearFolders: Bool = true
    ) -> (albums: [AlbumSpec], folders: [FolderSpec]) {
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
        // A directory that is both: a folder with an album of its own files inside.
        func albumParent(_ dir: String) -> String? {
            guard nested else { return nil }
            if folderDirs.contains(dir) { return dir }
            return parent(dir)
        }

        var folders: [FolderSpec] = folderDirs.sorted().map { d in
            FolderSpec(localIdentifier: StableIdentifier.collectionList("folder:" + d), subtype: .regularFolder,
                       title: name(d), directory: d, parentFolder: parent(d).map { StableIdentifier.collectionList("folder:" + $0) },
                       children: [], reasons: [Reason("folder", "directory \(d) holds albums below it")])
        }
        let albums: [AlbumSpec] = albumDirs.map { d in
            var reasons: [Reason] = []
            let title: String
            if let t = takeoutTitles[d] {
                title = t
                reasons.append(Reason("album", "Google Takeout album metadata.json in \(d): title \"\(t)\""))
            } else {
                title = name(d)
                reasons.append(Reason("album", "directory \(d) holds \(filesByDir[d]!) media files"))
            }
            if folderDirs.contains(d) {
                reasons.append(Reason("album", "its own files, inside folder \(d), because the directory also has albums below it"))
            }
            return AlbumSpec(localIdentifier: StableIdentifier.collection("album:" + d), subtype: .albumRegular, title: title,
                             directory: d, parentFolder: albumParent(d).map { StableIdentifier.collectionList("folder:" + $0) },
                             members: [], reasons: reasons)
        }
        var index: [String: Int] = [:]
        for (i, f) in folders.enumerated() { index[f.localIdentifier] = i }
        var children: [String: [(String, String)]] = [:]
        for f in folders { if let p = f.parentFolder { children[p, default: []].append((f.directory, f.localIdentifier)) } }
        for a in albums { if let p = a.parentFolder { children[p, default: []].append((a.directory + "\u{0}", a.localIdentifier)) } }
        for (p, list) in children { if let i = index[p] { folders[i].children = list.sorted { $0.0 < $1.0 }.map(\.1) } }
        return (albums, folders)
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
