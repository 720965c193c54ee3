import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#endif

/// Checking a catalog path and opening it in each `Catalog.OpenMode`. The file's bytes are checked
/// before GRDB sees it (a `DatabasePool` switches the file to WAL, a write), so a file that is not ours
/// is left exactly as it was.
extension Catalog {
    /// What a catalog path holds, from its bytes.
    enum FileState {
        case missing
        /// A Shoebox catalog at this schema version: stamped, or made before the stamp (application_id 0,
        /// our tables; its version is the number of migrations applied).
        case catalog(schema: Int32, stamped: Bool)
    }

    /// Reads what is at `path` without writing anything: refuses directories, devices, FIFOs, empty and
    /// non-SQLite files, other applications' databases and newer catalogs.
    static func examine(_ path: String) throws(CatalogError) -> FileState {
        var st = stat()
        guard stat(path, &st) == 0 else {
            guard errno == ENOENT else {
                throw CatalogError(.open, "cannot open catalog \(path): \(String(cString: strerror(errno)))")
            }
            return .missing
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR:
            throw CatalogError(.notACatalog, "\(path) is a directory, not a Shoebox catalog; give the catalog's file name")
        default:
            throw CatalogError(.notACatalog, "\(path) is not a regular file (a FIFO, socket or device), so not a Shoebox catalog")
        }
        if st.st_size == 0 {
            throw CatalogError(
                .notACatalog, "\(path) is an empty file, not a Shoebox catalog; remove it or pass another --catalog")
        }
        guard let prefix = FileHeader.prefix(ofFile: path) else {
            throw CatalogError(.open, "cannot read catalog \(path): \(String(cString: strerror(errno)))")
        }
        guard let header = FileHeader(prefix) else {
            throw CatalogError(.notACatalog, "not a Shoebox catalog: \(path) is not a SQLite database")
        }
        if header.isShoeboxCatalog {
            guard header.userVersion <= schemaVersion else { throw newerSchema(path, header.userVersion) }
            return .catalog(schema: header.userVersion, stamped: true)
        }
        guard header.applicationID == 0 else {
            let id = String(format: "0x%08X", UInt32(bitPattern: header.applicationID))
            throw CatalogError(.notACatalog, "not a Shoebox catalog: \(path) (application_id \(id))")
        }
        // Another GRDB application may have a `meta` table too: ours has applied our first migration.
        let known = Schema.migrator().migrations
        guard let applied = try unstampedMigrations(path), applied.contains(known[0]) else {
            throw CatalogError(.notACatalog, "not a Shoebox catalog: \(path) (a SQLite database with no Shoebox tables)")
        }
        guard applied.allSatisfy(known.contains) else { throw newerSchema(path, Int32(applied.count)) }
        return .catalog(schema: Int32(known.prefix { applied.contains($0) }.count), stamped: false)
    }

    static func newerSchema(_ path: String, _ version: Int32) -> CatalogError {
        CatalogError(
            .newerSchema, "\(path) was made by a newer Shoebox (schema \(version)); this one reads up to \(schemaVersion)")
    }

    /// The migrations applied to an unstamped SQLite file that has Shoebox's tables (`meta` and GRDB's
    /// `grdb_migrations`); nil when it has none. Read without a write: with no `-wal` beside it the file
    /// alone is the database, opened `immutable` (no `-wal`, `-shm` or lock); with one, SQLite must read
    /// it (its `-shm` is there already).
    static func unstampedMigrations(_ path: String) throws(CatalogError) -> [String]? {
        do {
            let wal = OutputFile.resolvingLinks(path) + "-wal"  // SQLite names it after the link's target
            let connection = try readOnlyConnection(path, immutableFirst: access(wal, F_OK) != 0)
            return try connection.read { db in
                guard try db.tableExists("meta"), try db.tableExists("grdb_migrations") else { return nil }
                return try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            }
        } catch {
            throw CatalogError(.notACatalog, "not a Shoebox catalog: \(path) cannot be read as SQLite (\(error))")
        }
    }

    /// Migrations a reader does without: they add only what an ingest reads (an index, a table), so a catalog that
    /// lacks them answers every query the same. A reader opens such a catalog as it is (a catalog on a
    /// read-only share, or not ingested since Shoebox was upgraded); the next writer applies them.
    static let readerOptionalMigrations: Set<String> = [
        "moves: file inode index", "moves: facts an interrupted run set aside", "organize: what it read and what it made albums, folders and moments from",
    ]

    /// Whether a catalog with the first `version` migrations lacks only migrations a reader does without.
    static func readsWithout(from version: Int32) -> Bool {
        let known = Schema.migrator().migrations
        guard version >= 0, Int(version) < known.count else { return false }
        return known[Int(version)...].allSatisfy(readerOptionalMigrations.contains)
    }

    /// A read-only connection to a catalog: no migration, no stamp, `query_only`. Current, or lacking only
    /// migrations a reader does without (`readerOptionalMigrations`).
    static func openReadOnly(_ path: String) throws(CatalogError) -> any DatabaseWriter {
        guard case .catalog(let version, _) = try examine(path) else { throw CatalogError(.notFound, "no catalog at \(path)") }
        guard version == schemaVersion || readsWithout(from: version) else {
            throw CatalogError(
                .olderSchema,
                "\(path) has schema \(version), older than this Shoebox's \(schemaVersion): run 'shoebox ingest' (or any writing command) to upgrade it"
            )
        }
        let connection: any DatabaseWriter
        do { connection = try readOnlyConnection(path, immutableFirst: false) } catch {
            throw CatalogError(.open, "cannot open catalog \(path) read-only: \(error)")
        }
        try refuseNewerInWAL(connection, path)
        return connection
    }

    /// The header checked by `examine` is the file's; a newer page 1 can still sit in the WAL (a newer
    /// Shoebox killed before its checkpoint). SQLite reads it; refuse before anything is migrated.
    static func refuseNewerInWAL(_ connection: any DatabaseWriter, _ path: String) throws(CatalogError) {
        let version: Int32
        do { version = try connection.read { db in try Int32.fetchOne(db, sql: "PRAGMA user_version") ?? 0 } } catch {
            throw CatalogError(.open, "cannot read catalog \(path): \(error)")
        }
        if version > schemaVersion { throw newerSchema(path, version) }
    }

    /// `SQLITE_OPEN_READONLY` + `query_only`. A file or folder we may not write is still read: when SQLite
    /// cannot make the `-shm` beside the file (a read-only folder), it is opened `immutable` instead —
    /// or first, with `immutableFirst`. The error thrown is the first connection's.
    static func readOnlyConnection(_ path: String, immutableFirst: Bool) throws -> any DatabaseWriter {
        let config = configuration(readOnly: true)
        func immutable() throws -> any DatabaseWriter {
            let queue = try DatabaseQueue(path: immutableURI(path), configuration: config)
            try queue.read { db in _ = try db.tableExists("meta") }
            return queue
        }
        if immutableFirst { return try immutable() }
        do {
            let pool = try DatabasePool(path: sqlitePath(path), configuration: config)
            try pool.read { db in _ = try db.tableExists("meta") }  // the -shm is made (or not) here
            return pool
        } catch {
            do { return try immutable() } catch _ { throw error }
        }
    }

    /// A writing connection: the catalog is created first when missing (and `create`), then migrated
    /// and stamped (a catalog made before the stamp is adopted here).
    static func openReadWrite(_ path: String, create: Bool) throws(CatalogError) -> any DatabaseWriter {
        if case .missing = try examine(path) {
            guard create else { throw CatalogError(.notFound, "no catalog at \(path)") }
            try createCatalog(path)
            _ = try examine(path)  // another process may have made a file there meanwhile: check it again
        }
        try requireWritable(path)
        do {
            let pool = try DatabasePool(path: sqlitePath(path), configuration: configuration(readOnly: false))
            try refuseNewerInWAL(pool, path)
            // Indexes a first ingest deferred and did not build (it was killed) are built before anything
            // else, migrations included (Catalog.deferIndexesIfEmpty).
            if try pool.read(Catalog.hasDeferredIndexes) { try pool.write { db in _ = try Catalog.buildDeferredIndexes(db) } }
            try Schema.migrator().migrate(pool)
            let stamped = try pool.write { db in
                let changed = try stamp(db)
                try insertCatalogID(db)
                return changed
            }
            if stamped {
                // A new stamp sits in the WAL until a checkpoint; copy it into the file now, so that
                // whoever reads the header (the crawler, another Shoebox) sees it.
                try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.passive) }
            }
            return pool
        } catch let error as CatalogError {
            throw error
        } catch {
            throw CatalogError(.open, "cannot open catalog \(path): \(error)")
        }
    }

    /// Makes a new catalog whole under a temporary name beside `path` (`.<name>.<UUID>.tmp`, rollback
    /// journal in memory so no other file appears) and links it into place without replacing anything.
    static func createCatalog(_ path: String) throws(CatalogError) {
        let target = OutputFile.resolvingLinks(path)
        let folder = URL(fileURLWithPath: target).deletingLastPathComponent().path
        do { try OutputFile.requireFolder(of: target) } catch {
            throw CatalogError(.notFound, "cannot create the catalog \(path): the folder \(folder) does not exist")
        }
        guard access(folder, W_OK | X_OK) == 0 else {
            throw CatalogError(
                .readOnly,
                "cannot create the catalog \(path): the folder \(folder) is not writable (\(String(cString: strerror(errno))))")
        }
        let tmp = OutputFile.temporaryPath(beside: target)
        do {
            var config = Configuration()
            // No sync per migration (one `fdatasync` each, ~0.2 s in all: a fifth of a 3,000-file first
            // ingest): the file is not in place until it is whole, and it is synced once before it is.
            config.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF") }
            let queue = try DatabaseQueue(path: sqlitePath(tmp), configuration: config)
            try makeSchema(queue)
            try queue.write { db in
                try stamp(db)
                try insertCatalogID(db)
            }
            try queue.close()
            let fd = open(tmp, O_RDONLY | O_CLOEXEC)
            guard fd >= 0, fsync(fd) == 0 else {
                let reason = String(cString: strerror(errno))
                if fd >= 0 { close(fd) }
                throw CatalogError(.open, "cannot sync \(tmp): \(reason)")
            }
            close(fd)
        } catch {
            unlink(tmp)
            throw CatalogError(.open, "cannot create the catalog \(path): \(error)")
        }
        do { try OutputFile.place(tmp, at: target, replacing: false) } catch {
            throw CatalogError(.open, "cannot create the catalog \(path): \(error)")
        }
    }

    /// The schema of a new catalog in an empty database: the snapshot of the migrations (SchemaSnapshot),
    /// then whatever migrations came after it; the migrations alone with `fromSnapshot` false (tests).
    static func makeSchema(_ queue: DatabaseQueue, fromSnapshot: Bool = true) throws {
        let migrator = Schema.migrator()
        if fromSnapshot {
            try queue.write { db in _ = try SchemaSnapshot.apply(db, registered: migrator.migrations) }
        }
        try migrator.migrate(queue)
    }

    /// A writing command needs the file and its folder (SQLite writes `-wal` and `-shm` beside it).
    static func requireWritable(_ path: String) throws(CatalogError) {
        let real = OutputFile.resolvingLinks(path)
        let hint = "this command writes to the catalog; commands that only read it (query, show, stats, …) still work"
        guard access(real, R_OK | W_OK) == 0 else {
            throw CatalogError(.readOnly, "\(path) is read-only (\(String(cString: strerror(errno)))): \(hint)")
        }
        let folder = URL(fileURLWithPath: real).deletingLastPathComponent().path
        guard access(folder, W_OK | X_OK) == 0 else {
            throw CatalogError(
                .readOnly,
                "the folder of \(path) is read-only (\(String(cString: strerror(errno)))), and SQLite writes beside the catalog: \(hint)"
            )
        }
    }

    /// Sets `application_id` and `user_version` where they differ (each set rewrites page 1); true when
    /// one did.
    @discardableResult
    static func stamp(_ db: Database) throws -> Bool {
        var changed = false
        for (pragma, value) in [("application_id", applicationID), ("user_version", schemaVersion)]
        where try Int32.fetchOne(db, sql: "PRAGMA \(pragma)") != value {
            try db.execute(sql: "PRAGMA \(pragma) = \(value)")
            changed = true
        }
        return changed
    }

    static func insertCatalogID(_ db: Database) throws {
        if try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'catalog_id'") == nil {
            try db.execute(sql: "INSERT INTO meta(key, value) VALUES ('catalog_id', ?)", arguments: [UUID().uuidString])
        }
    }

    /// The writer connection's page cache (`PRAGMA cache_size`), in KiB; `$SHOEBOX_SQLITE_CACHE_KB` overrides
    /// it (Benchmarks/README.md).
    static let writerCacheKiB = 32 * 1024
    /// The page cache of each reader connection of a catalog opened for writing, in KiB (SQLite's default is
    /// 2 MiB). Organize reads on up to three readers at once (places, bursts, albums), each reading ranges
    /// and folders once through: at 100k files their caches filled to ~2 MiB each, 4-5 MiB of organize's peak
    /// (Benchmarks/README.md, session 17), with no measurable time won. A catalog opened read-only (`query`,
    /// `show`) keeps SQLite's default.
    static let readerCacheKiB = 512
    /// `$SHOEBOX_SQLITE_CACHE_KB`: the writer's page cache throughout, when set.
    static let writerCacheOverrideKiB = ProcessInfo.processInfo.environment["SHOEBOX_SQLITE_CACHE_KB"].flatMap { Int($0) }

    static func configuration(readOnly: Bool) -> Configuration {
        var config = Configuration()
        config.busyMode = .timeout(30)
        if readOnly {
            config.readonly = true
            config.prepareDatabase { db in try db.execute(sql: "PRAGMA query_only = 1") }
        } else {
            config.foreignKeysEnabled = true
            config.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                // The writer's page cache: SQLite's default (2 MiB) holds a fraction of the B-tree and index
                // pages a large ingest touches, and every miss is a read from the OS (system time).
                if !db.configuration.readonly {
                    try db.execute(sql: "PRAGMA cache_size = -\(Catalog.writerCacheOverrideKiB ?? Catalog.writerCacheKiB)")
                } else {
                    try db.execute(sql: "PRAGMA cache_size = -\(Catalog.readerCacheKiB)")
                }
            }
        }
        return config
    }

    /// `path` as SQLite must see it: this SQLite takes `file:` names as URIs, so such a relative name is
    /// prefixed with `./`.
    static func sqlitePath(_ path: String) -> String { path.hasPrefix("file:") ? "./" + path : path }

    /// `file:PATH?immutable=1`: the file is read as it is, with no `-wal`, `-shm` or lock.
    static func immutableURI(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?immutable=1"
    }
}

extension Catalog.FileHeader {
    /// The first 100 bytes of the file at `path`, opened read-only without blocking; nil (errno set)
    /// when it cannot be read.
    static func prefix(ofFile path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 100)
        let n = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 100, 0) }
        guard n >= 0 else { return nil }
        return Array(buf[..<n])
    }
}
