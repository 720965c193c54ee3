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

    /// Why `name` (in folder `dir`, whose entries are `siblings`) is one of ours; nil when it is not.
    /// `folderFD`: `dir` open, when the caller has it — a folder's marker is then looked up from it, not by
    /// its whole path (a lookup of every component of the path, for each folder of a walk).
    public func reason(dir: String, name: String, siblings: Set<String>, isDirectory: Bool, in folderFD: Int32? = nil) -> String? {
        let path = dir == "/" ? "/" + name : dir + "/" + name
        if paths.contains(path) { return isDirectory ? "thumbnail folder" : "catalog" }
        if isDirectory {
            let found =
                folderFD.map { faccessat($0, name + "/" + Self.thumbnailMarker, F_OK, 0) == 0 }
                ?? (access(path + "/" + Self.thumbnailMarker, F_OK) == 0)
            return found ? "thumbnail folder" : nil
        }
        if OutputFile.temporaryTarget(ofName: name) != nil { return "temporary file" }
        for suffix in Self.companionSuffixes where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            let basePath = dir == "/" ? "/" + base : dir + "/" + base
            if paths.contains(basePath) || (siblings.contains(base) && Catalog.isCatalog(atPath: basePath)) {
                return "catalog \(suffix.dropFirst())"
            }
        }
        let ext = name.lastIndex(of: ".").map { name[name.index(after: $0)...].lowercased() } ?? ""
        if Self.databaseExtensions.contains(ext) || siblings.contains(name + "-wal") || siblings.contains(name + "-shm") {
            if Catalog.isCatalog(atPath: path) { return "catalog" }
        }
        return nil
    }
}
