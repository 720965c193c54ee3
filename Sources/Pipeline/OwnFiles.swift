#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Catalog
import Derivatives

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
    public func reason(dir: String, name: String, siblings: Set<String>, isDirectory: Bool) -> String? {
        let path = dir == "/" ? "/" + name : dir + "/" + name
        if paths.contains(path) { return isDirectory ? "thumbnail folder" : "catalog" }
        if isDirectory {
            return access(path + "/" + Self.thumbnailMarker, F_OK) == 0 ? "thumbnail folder" : nil
        }
        if Self.isTemporaryName(name) { return "temporary file" }
        for suffix in Self.companionSuffixes where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            let basePath = dir == "/" ? "/" + base : dir + "/" + base
            if paths.contains(basePath) || (siblings.contains(base) && Self.isCatalog(basePath)) { return "catalog \(suffix.dropFirst())" }
        }
        let ext = name.lastIndex(of: ".").map { name[name.index(after: $0)...].lowercased() } ?? ""
        if Self.databaseExtensions.contains(ext) || siblings.contains(name + "-wal") || siblings.contains(name + "-shm") {
            if Self.isCatalog(path) { return "catalog" }
        }
        return nil
    }

    /// `.<name>.<UUID>.tmp`: a file being written by Shoebox (thumbnails, outputs).
    public static func isTemporaryName(_ name: String) -> Bool {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return false }
        let inner = name.dropFirst().dropLast(4)
        guard let dot = inner.lastIndex(of: ".") else { return false }
        let uuid = inner[inner.index(after: dot)...]
        // 8-4-4-4-12 hexadecimal digits.
        let groups = uuid.split(separator: "-", omittingEmptySubsequences: false).map(\.count)
        return groups == [8, 4, 4, 4, 12] && uuid.allSatisfy { $0 == "-" || $0.isHexDigit }
    }

    /// Whether the file is a SQLite database carrying Shoebox's `application_id` (header bytes 68–71).
    public static func isCatalog(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return false }
        var header = [UInt8](repeating: 0, count: 72)
        let n = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 72, 0) }
        guard n == 72, header.starts(with: Array("SQLite format 3\0".utf8)) else { return false }
        let id = UInt32(header[68]) << 24 | UInt32(header[69]) << 16 | UInt32(header[70]) << 8 | UInt32(header[71])
        return id == catalogApplicationID
    }

    /// SQLite `application_id` of a Shoebox catalog ('SBOX').
    public static let catalogApplicationID: UInt32 = 0x5342_4F58
}
