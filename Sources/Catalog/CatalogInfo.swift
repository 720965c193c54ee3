import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Catalog {
    /// `PRAGMA application_id` of every Shoebox catalog: 'SBOX' (0x53424F58, 1396854616). SQLite keeps it
    /// big-endian in bytes 68–71 of the file, so a file is recognised from its first 100 bytes.
    public static let applicationID: Int32 = 0x5342_4F58

    /// `PRAGMA user_version` of a catalog this binary writes: one per migration in `Schema`, so adding a
    /// migration raises it. A catalog with a higher number is refused, one with a lower number is
    /// migrated by a writing command (and refused by a read-only one).
    public static let schemaVersion = Int32(Schema.migrator().migrations.count)

    /// What a SQLite file's header says (the first 100 bytes), read without opening it as a database.
    public struct FileHeader: Sendable, Equatable {
        /// `PRAGMA application_id` (bytes 68–71).
        public var applicationID: Int32
        /// `PRAGMA user_version` (bytes 60–63).
        public var userVersion: Int32
        /// The file is in WAL mode (bytes 18–19 are 2).
        public var isWAL: Bool

        /// The header of a SQLite file, from at least its first 72 bytes; nil for anything else.
        public init?(_ bytes: some Collection<UInt8>) {
            let b = Array(bytes.prefix(100))
            guard b.count >= 72, b.starts(with: Array("SQLite format 3\0".utf8)) else { return nil }
            func int32(_ at: Int) -> Int32 { Int32(bitPattern: b[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }) }
            applicationID = int32(68)
            userVersion = int32(60)
            isWAL = b[18] == 2 && b[19] == 2
        }

        /// The header of the regular file at `path`; nil when it is not a SQLite file (or cannot be read).
        /// Never blocks on a FIFO and never opens for writing.
        public init?(path: String) {
            var st = stat()
            guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
            guard let bytes = Self.prefix(ofFile: path) else { return nil }
            self.init(bytes)
        }

        /// Stamped as a Shoebox catalog.
        public var isShoeboxCatalog: Bool { applicationID == Catalog.applicationID }
    }

    /// Whether the file at `path` is a Shoebox catalog (stamped with `applicationID`). Catalogs made
    /// before the stamp are recognised only when a writing command has opened them once.
    public static func isCatalog(atPath path: String) -> Bool { FileHeader(path: path)?.isShoeboxCatalog == true }
}
