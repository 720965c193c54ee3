import Foundation
import GRDB

/// The directory each album and folder organize made from the tree was made from (`organize_folder`), so that
/// an incremental organize rebuilds the albums and folders of the top-level directories its changed assets are
/// in, and leaves the rest as stored (docs/architecture.md, organize).
///
/// A folder album's shape depends only on the directories below its top-level directory (the first component
/// of its path under the root): its album, the folders above it and their children are all inside that
/// directory; nothing lists the top level. So the albums and folders of one top-level directory can be built
/// alone — from its assets only — and give what a build of the whole tree gives for it, provided the titles
/// (Google Takeout albums, which a library-wide rule reads) and the mode are those of the last build: the
/// record holds a digest of them, and a build with others is a whole one.
public struct FolderRecord: Sendable, Equatable, Hashable {
    public var localIdentifier: String
    /// A folder (`collection_list`) rather than an album (`collection`).
    public var isFolder: Bool
    public var root: String
    /// The directory relative to the root (`a/b`), and its first component (`a`).
    public var directory: String
    public var top: String { Self.top(of: directory) }

    public init(localIdentifier: String, isFolder: Bool, root: String, directory: String) {
        self.localIdentifier = localIdentifier
        self.isFolder = isFolder
        self.root = root
        self.directory = directory
    }

    /// The first component of a relative directory.
    public static func top(of directory: String) -> String {
        guard let slash = directory.utf8.firstIndex(of: UInt8(ascii: "/")) else { return directory }
        return String(directory[..<slash])
    }
}

/// A top-level directory of a root: what an incremental organize rebuilds albums and folders by.
public struct TopDirectory: Sendable, Hashable, Comparable {
    public var root: String
    public var top: String
    /// The catalog directory (`asset.dir`) of the top-level directory: the root's assets' directories below it
    /// start with it and a slash.
    public var catalogDirectory: String

    public init(root: String, top: String, catalogDirectory: String) {
        self.root = root
        self.top = top
        self.catalogDirectory = catalogDirectory
    }

    public static func < (a: Self, b: Self) -> Bool { (a.root, a.top) < (b.root, b.top) }
}

/// What `storeCollections` writes of the folder record beside the albums and folders: the records of every
/// album and folder stored (replacing the whole record, `tops` nil) or of some top-level directories, and
/// the digest of the titles and mode they were built with.
public struct FolderRecordUpdate: Sendable {
    public var tops: [TopDirectory]?
    public var records: [FolderRecord]
    public var digest: String

    public init(tops: [TopDirectory]?, records: [FolderRecord], digest: String) {
        self.tops = tops
        self.records = records
        self.digest = digest
    }
}

extension Catalog {
    static let organizeFolderTable = """
        CREATE TABLE organize_folder (
            is_folder INTEGER NOT NULL, local_identifier TEXT NOT NULL, root TEXT NOT NULL, top TEXT NOT NULL,
            directory TEXT NOT NULL, PRIMARY KEY (is_folder, local_identifier)
        );
        CREATE INDEX organize_folder_top ON organize_folder(root, top);
        """

    /// The meta key holding the digest the albums and folders of `organize_folder` were built with; absent
    /// when the record is not whole (a catalog from before it, or a build that stopped).
    static let organizeFolderMetaKey = "organize_folders"

    /// The digest the recorded albums and folders were built with; nil when there is no whole record.
    public func folderRecordDigest() throws(CatalogError) -> String? {
        try metaValue(Self.organizeFolderMetaKey)
    }

    /// The recorded albums and folders of these top-level directories.
    public func folderRecords(in tops: some Collection<TopDirectory>) throws(CatalogError) -> [FolderRecord] {
        try read { db in
            var out: [FolderRecord] = []
            let s = try db.cachedStatement(sql: "SELECT is_folder, local_identifier, directory FROM organize_folder WHERE root = ? AND top = ?")
            for t in tops {
                let rows = try Row.fetchCursor(s, arguments: [t.root, t.top])
                while let r = try rows.next() { out.append(FolderRecord(localIdentifier: r[1], isFolder: r[0], root: t.root, directory: r[2])) }
            }
            return out
        }
    }

    /// The live assets below a top-level directory (the directory itself and every one under it), as
    /// `assetPaths` gives them: their paths relative to the root and their rows, in no particular order.
    public func assetPaths(under top: TopDirectory, _ body: (_ primaryPath: String, _ assetID: Int64) throws -> Void) throws(CatalogError) {
        try read { db in
            // Two ranges of the directory index: the directory, and those below it (`dir/` up to `dir0`, '0'
            // following '/'): names like `dir-2` or `dir copy` sort between the two and are not read.
            let d = top.catalogDirectory
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT primary_path, id FROM asset WHERE dir = ? AND root = ? AND trashed_at IS NULL
                    UNION ALL
                    SELECT primary_path, id FROM asset WHERE dir >= ? AND dir < ? AND root = ? AND trashed_at IS NULL
                    """,
                arguments: [d, top.root, d + "/", d + "0", top.root])
            while let r = try rows.next() { try body(r[0], r[1]) }
        }
    }

    /// How stored albums and folders stand against identifiers just built (`current`): which of `current` are
    /// stored already, and the stored ones not among them (`gone`) with their members or children — what a
    /// collection built anew under another identifier may continue (`Organizer.keepFolderIdentities`). Over
    /// every stored album and folder (`records` nil), or over the recorded ones of some top-level directories;
    /// then nil when an identifier of `current` is stored for another directory than those (the build must
    /// then be a whole one).
    public func storedFolderCollections(
        currentAlbums: Set<String>, currentFolders: Set<String>, records: [FolderRecord]?
    ) throws(CatalogError) -> StoredFolderCollections? {
        guard let records else {
            let (albums, gone) = try replacedCollections(type: .album, current: currentAlbums)
            let (folders, goneFolders) = try replacedLists(type: .folder, current: currentFolders)
            return StoredFolderCollections(albums: albums, goneAlbums: gone, folders: folders, goneFolders: goneFolders)
        }
        return try read { db in
            var out = StoredFolderCollections()
            var recordedAlbums = Set<String>(), recordedFolders = Set<String>()
            for r in records { if r.isFolder { recordedFolders.insert(r.localIdentifier) } else { recordedAlbums.insert(r.localIdentifier) } }
            // An identifier built here and stored for a directory elsewhere: not a partial build's to decide.
            let album = try db.cachedStatement(sql: "SELECT id FROM collection WHERE local_identifier = ? AND \(Self.organizesCollection) AND type = 1")
            for a in currentAlbums where !recordedAlbums.contains(a) {
                if try Int64.fetchOne(album, arguments: [a]) != nil { return nil }
            }
            let list = try db.cachedStatement(sql: "SELECT id FROM collection_list WHERE local_identifier = ? AND \(Self.organizesList) AND type = 2")
            for f in currentFolders where !recordedFolders.contains(f) {
                if try Int64.fetchOne(list, arguments: [f]) != nil { return nil }
            }
            // The recorded ones as they are stored (a record without its collection is not stored), the gone ones
            // in row order as `replacedCollections` and `replacedLists` give them.
            var gone: [(id: Int64, lid: String)] = []
            for a in recordedAlbums {
                guard let id = try Int64.fetchOne(album, arguments: [a]) else { continue }
                out.albums.insert(a)
                if !currentAlbums.contains(a) { gone.append((id, a)) }
            }
            out.goneAlbums = try gone.sorted { $0.id < $1.id }.map { ($0.lid, try Self.memberRows(db, $0.id)) }
            var goneLists: [(id: Int64, lid: String, children: [String])] = []
            let listRow = try db.cachedStatement(
                sql: "SELECT id, children FROM collection_list WHERE local_identifier = ? AND \(Self.organizesList) AND type = 2")
            for f in recordedFolders {
                guard let r = try Row.fetchOne(listRow, arguments: [f]) else { continue }
                out.folders.insert(f)
                let children: String = r[1]
                if !currentFolders.contains(f) { goneLists.append((r[0], f, children.isEmpty ? [] : children.components(separatedBy: "\n"))) }
            }
            out.goneFolders = goneLists.sorted { $0.id < $1.id }.map { ($0.lid, $0.children) }
            return out
        }
    }

    /// How many albums organize made are stored.
    public func folderAlbumCount() throws(CatalogError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM collection WHERE type = 1 AND \(Self.organizesCollection)") ?? 0 }
    }

    /// Writes the folder record (in `storeCollections`' transaction).
    static func writeFolderRecord(_ db: Database, _ update: FolderRecordUpdate) throws {
        if let tops = update.tops {
            let delete = try db.cachedStatement(sql: "DELETE FROM organize_folder WHERE root = ? AND top = ?")
            for t in tops { try delete.execute(arguments: [t.root, t.top]) }
        } else {
            try db.execute(sql: "DELETE FROM organize_folder")
        }
        var insert = try Binder(db, "INSERT OR REPLACE INTO organize_folder(is_folder, local_identifier, root, top, directory) VALUES (?, ?, ?, ?, ?)")
        for r in update.records {
            insert.restart()
            insert.int(Int64(r.isFolder ? 1 : 0))
            insert.text(r.localIdentifier)
            insert.text(r.root)
            insert.text(r.top)
            insert.text(r.directory)
            try insert.run()
        }
        try setMetaValue(db, organizeFolderMetaKey, update.digest)
    }
}

/// Stored albums and folders against those just built (`Catalog.storedFolderCollections`).
public struct StoredFolderCollections: Sendable {
    public var albums = Set<String>()
    public var goneAlbums: [(localIdentifier: String, members: [Int64])] = []
    public var folders = Set<String>()
    public var goneFolders: [(localIdentifier: String, children: [String])] = []
}
