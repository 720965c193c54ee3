import Catalog
import Derivatives

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Recognises Shoebox's own files wherever they sit, so that they are never ingested: catalogs (by
/// SQLite's `application_id`), their `-wal`/`-shm`/`-journal` companions, thumbnail folders (by the
/// marker file the thumbnails stage writes), and our temporary files (`.<name>.<UUID>.tmp`).
///
/// Only a name that could be a catalog (a database extension, or the base of a `-wal`/`-shm` beside it)
/// costs an open of its first 72 bytes; everything else is decided by name.
public struct OwnFiles: Sendable {
    /// Absolute paths known to be ours this run (the catalog in use, the thumbnail folder being written).
    public var paths: Set<String> = []

    public init(paths: Set<String> = []) { self.paths = paths }

    /// The marker file the thumbnails stage leaves in every folder it writes into.
    public static let thumbnailMarker = Thumbnailer.outputMarker

    static let companionSuffixes = ["-wal", "-shm", "-journal"]
    static let databaseExtensions: Set<String> = ["sqlite", "sqlite3", "db", "shoebox", "catalog"]

    /// A folder's entry names, for the checks that look at a file's neighbours: the sorted listing, searched
    /// by halves, and the names with a `-wal` or `-shm` beside them, found once a folder (usually none). A
    /// `Set` of the names and two names made and hashed per file were a fifth of a walk's own time.
    public struct Siblings: Sendable {
        let names: [String]
        let journalled: Set<Substring>

        /// `names` sorted (`<`), as a walk lists a folder.
        public init(sorted names: [String]) {
            self.names = names
            var journalled = Set<Substring>()
            for n in names where n.hasSuffix("-wal") || n.hasSuffix("-shm") { journalled.insert(n.dropLast(4)) }
            self.journalled = journalled
        }

        /// Whether `name` is one of them.
        public func contains(_ name: some StringProtocol) -> Bool {
            var low = 0, high = names.count
            while low < high {
                let mid = (low + high) / 2
                if names[mid] < name { low = mid + 1 } else { high = mid }
            }
            return low < names.count && names[low] == name
        }
    }

    /// Why the file `name` at `path` (in a folder whose entries are `siblings`) is one of ours; nil when it is
    /// not. `folderFD`: the folder open, when the caller has it — a folder's marker is then looked up from it,
    /// not by its whole path (a lookup of every component of the path, for each folder of a walk).
    public func reason(path: String, name: String, siblings: Siblings, isDirectory: Bool, in folderFD: Int32? = nil) -> String? {
        if !paths.isEmpty && paths.contains(path) { return isDirectory ? "thumbnail folder" : "catalog" }
        if isDirectory {
            let found =
                folderFD.map { faccessat($0, name + "/" + Self.thumbnailMarker, F_OK, 0) == 0 }
                ?? (access(path + "/" + Self.thumbnailMarker, F_OK) == 0)
            return found ? "thumbnail folder" : nil
        }
        if name.utf8.first == UInt8(ascii: "."), OutputFile.temporaryTarget(ofName: name) != nil { return "temporary file" }
        for suffix in Self.companionSuffixes where name.hasSuffix(suffix) {
            let base = name.dropLast(suffix.count)
            let basePath = String(path.dropLast(suffix.count))
            if paths.contains(basePath) || (siblings.contains(base) && Catalog.isCatalog(atPath: basePath)) {
                return "catalog \(suffix.dropFirst())"
            }
        }
        if Self.hasDatabaseExtension(name) || (!siblings.journalled.isEmpty && siblings.journalled.contains(Substring(name))) {
            if Catalog.isCatalog(atPath: path) { return "catalog" }
        }
        return nil
    }

    /// Whether `name` ends in `.` and one of `databaseExtensions`, in any case (no lowered copy of it made).
    static func hasDatabaseExtension(_ name: String) -> Bool {
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")) else { return false }
        let ext = name.utf8[name.utf8.index(after: dot)...]
        guard ext.count <= 8 else { return false }
        return databaseExtensions.contains { e in
            e.utf8.count == ext.count && zip(e.utf8, ext).allSatisfy { $0 == ($1 | (($1 >= 65 && $1 <= 90) ? 0x20 : 0)) }
        }
    }
}
