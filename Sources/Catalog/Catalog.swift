import Foundation
import GRDB
import GRDBSQLite
import PhotoModel
import Synchronization

/// An error from the catalog, with a code a command can map to an exit status.
public struct CatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case open, sql, tokenExpired, tokenUnavailable, notFound, invalidChange
        /// Opening refused: not a Shoebox catalog (foreign SQLite, empty, not SQLite, a directory); made by
        /// a newer Shoebox; older than this one while opened read-only; read-only for a writing command.
        case notACatalog, newerSchema, olderSchema, readOnly
        /// A name (an album title, a file name) that more than one object has; the message lists them.
        case ambiguous
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// The Shoebox catalog: SQLite (WAL) through GRDB. Readers use snapshots; all writes go through
/// `commitFolder`/`finishRun` and friends, one transaction each, so a killed ingest leaves a consistent
/// catalog. SQL stays behind this type so another backend can sit beside it. How a file is checked and
/// opened in each `OpenMode` is in `CatalogOpening.swift` and docs/catalog.md.
public final class Catalog: Sendable {
    /// How a command opens the catalog.
    public enum OpenMode: Sendable, Equatable {
        /// Migrated and stamped when needed, then written. `create`: a missing file becomes a new catalog.
        case readWrite(create: Bool)
        /// Never migrated, stamped or written (`query_only`); a read-only file or folder is still read.
        case readOnly
    }

    public let path: String
    public let mode: OpenMode
    let pool: any DatabaseWriter

    /// Opens (or, with `.readWrite(create: true)`, creates) the catalog at `path`. The file is checked
    /// before SQLite writes anything to it: a foreign, newer, empty or non-SQLite file is refused and
    /// left byte-identical.
    public init(path: String, mode: OpenMode = .readWrite(create: true)) throws(CatalogError) {
        self.path = path
        self.mode = mode
        switch mode {
        case .readOnly: pool = try Self.openReadOnly(path)
        case .readWrite(let create): pool = try Self.openReadWrite(path, create: create)
        }
    }

    /// Hands back the connections' page caches (the writer's holds up to `writerCacheKiB` after a large
    /// ingest) and closes idle readers, before a memory-hungry step such as organize.
    public func releaseMemory() {
        if let p = pool as? DatabasePool { p.releaseMemory() } else if let q = pool as? DatabaseQueue { q.releaseMemory() }
    }

    /// Sets the writer's page cache to `kib` KiB (nil: `writerCacheKiB`), unless `$SHOEBOX_SQLITE_CACHE_KB`
    /// fixes it. A smaller cache drops the pages over the new size.
    public func setWriterCache(kib: Int?) {
        guard Self.writerCacheOverrideKiB == nil, mode != .readOnly else { return }
        try? pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA cache_size = -\(kib ?? Self.writerCacheKiB)") }
    }

    /// Copies the write-ahead log into the catalog file (`wal_checkpoint(PASSIVE)`), so that the file alone is the
    /// catalog once a command that wrote ends — a `cp` of it is whole. Closing the last connection does the
    /// same, but only if the last reference goes before the process exits: one left on organize's threads
    /// (`Concurrent` kept its body until the thread ended, now let go before its value is returned) left the last
    /// commits in the log, and a copy of the file alone was the catalog as it was before the run (3 of ~1,800
    /// rounds of `Tools/organize-differential.py`); this holds whatever else keeps a reference. Passive:
    /// it never waits — a `query` of another process still reading an older state keeps the frames after it in
    /// the log (the next checkpoint copies them); TRUNCATE or RESTART would wait for that reader, up to the
    /// busy timeout (30 s), at the end of the ingest.
    public func checkpoint() {
        guard mode != .readOnly else { return }
        try? pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
    }

    /// Runs a write transaction, mapping GRDB errors.
    func write<T>(_ body: (Database) throws -> T) throws(CatalogError) -> T {
        guard mode != .readOnly else { throw CatalogError(.readOnly, "catalog \(path) is open read-only") }
        do { return try pool.write(body) } catch let e as CatalogError { throw e } catch {
            throw CatalogError(.sql, "catalog write failed: \(error)")
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(CatalogError) -> T {
        do { return try pool.read(body) } catch let e as CatalogError { throw e } catch {
            throw CatalogError(.sql, "catalog read failed: \(error)")
        }
    }

    static func now() -> String {
        let date = Date()
        let second = Int(date.timeIntervalSince1970.rounded(.down))
        if let text = lastNow.withLock({ $0.second == second ? $0.text : nil }) { return text }
        let text = isoText(date)
        lastNow.withLock { $0 = (second, text) }
        return text
    }

    /// The text of the second `now()` last formatted: every row of a commit is stamped, mostly in the same second.
    private static let lastNow = Mutex<(second: Int, text: String)>((Int.min, ""))

    /// A date as ISO 8601 UTC text to the second (`2026-11-24T02:23:06Z`), as `ISO8601DateFormatter`'s
    /// default writes it, without making a formatter per call (that was a tenth of an ingest's time).
    static func isoText(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : String(v) }
        let year = String(parts.tm_year + 1900)
        return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-" + two(parts.tm_mon + 1) + "-" + two(parts.tm_mday) + "T"
            + two(parts.tm_hour) + ":" + two(parts.tm_min) + ":" + two(parts.tm_sec) + "Z"
    }

    // MARK: - Runs

    /// The largest asset row id (0 with none). Read before a run begins, it tells the assets that run inserts
    /// (SQLite gives a new row the id past the largest): organize's burst fields on those need no record
    /// of their own (`applyBursts`).
    public func largestAssetID() throws(CatalogError) -> Int64 {
        try read { db in try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM asset") ?? 0 }
    }

    /// Opens a run for this process (its pid and host are recorded, so a run killed outright can be
    /// recognised by the next one).
    public func beginRun(roots: [String], pid: Int32 = getpid(), host: String = RunInfo.hostName()) throws(CatalogError) -> Int64 {
        try write { db in
            try db.execute(
                sql: "INSERT INTO ingest_run(started_at, roots, pid, host) VALUES (?, ?, ?, ?)",
                arguments: [Self.now(), roots.joined(separator: "\n"), pid, host])
            return db.lastInsertedRowID
        }
    }

    /// Runs still marked `running` whose process is gone (killed outright, machine restarted): they are
    /// marked `interrupted` and returned. A run of another host is left alone unless `otherHosts` (its
    /// process cannot be checked from here).
    @discardableResult
    public func reapDeadRuns(host: String = RunInfo.hostName(), isAlive: (Int32) -> Bool = RunInfo.isAlive) throws(CatalogError) -> [RunInfo] {
        try write { db in
            var reaped: [RunInfo] = []
            for r in try Row.fetchAll(db, sql: "SELECT * FROM ingest_run WHERE status = 'running' ORDER BY id") {
                let pid: Int32? = r["pid"]
                let runHost: String? = r["host"]
                // Runs from before pids were recorded, or of this host with a dead process.
                guard pid == nil || (runHost == host && !isAlive(pid!)) else { continue }
                try db.execute(sql: "UPDATE ingest_run SET status = 'interrupted' WHERE id = ?", arguments: [r["id"] as Int64])
                var info = Self.runInfo(r)
                info.status = "interrupted"
                reaped.append(info)
            }
            return reaped
        }
    }

    /// Marks a run stopped by a signal (SIGINT/SIGTERM) at a folder boundary: what it committed stays.
    public func interruptRun(_ runID: Int64, filesSeen: Int, filesProbed: Int, errors: Int, elapsed: Double) throws(CatalogError) {
        try write { db in
            try db.execute(
                sql: """
                    UPDATE ingest_run SET finished_at = ?, status = 'interrupted', files_seen = ?, files_probed = ?, errors = ?,
                        elapsed_seconds = ? WHERE id = ?
                    """, arguments: [Self.now(), filesSeen, filesProbed, errors, elapsed, runID])
        }
    }

    /// The newest run, when it did not finish (running or interrupted): a catalog in the middle of an ingest.
    public func incompleteRun() throws(CatalogError) -> RunInfo? {
        try read { db in
            guard let r = try Row.fetchOne(db, sql: "SELECT * FROM ingest_run ORDER BY id DESC LIMIT 1") else { return nil }
            let info = Self.runInfo(r)
            return info.status == "finished" ? nil : info
        }
    }

    static func runInfo(_ r: Row) -> RunInfo {
        RunInfo(
            id: r["id"], status: r["status"], startedAt: r["started_at"], roots: (r["roots"] as String).split(separator: "\n").map(String.init),
            pid: r["pid"], host: r["host"])
    }

    /// Joins files moved into an earlier-committed folder to the assets they left (`adoptMovedAssets`),
    /// trashes (or, with `prune`, deletes) assets whose files vanished during the run, records the
    /// changes, compacts history older than the retention window and closes the run.
    @discardableResult
    public func finishRun(
        _ runID: Int64, filesSeen: Int, filesProbed: Int, errors: Int, damaged: Int = 0, skipped: Int = 0, elapsed: Double, prune: Bool,
        historyRetentionDays: Int?
    ) throws(CatalogError) -> [ChangeRecord] {
        try write { db in
            // Files moved into a folder committed before the one they left keep their assets first.
            var records = try Self.adoptMovedAssets(db, runID: runID)
            let now = Self.now()
            let gone = try Row.fetchAll(db, sql: "SELECT id, local_identifier FROM asset WHERE pending_vanish = 1")
            for row in gone {
                let id: Int64 = row["id"]
                let lid: String = row["local_identifier"]
                if prune {
                    try db.execute(sql: "DELETE FROM asset WHERE id = ?", arguments: [id])
                    records.append(try Self.record(db, runID, "asset", lid, "deleted", ["purged"]))
                } else {
                    try db.execute(sql: "UPDATE asset SET pending_vanish = 0, trashed_at = ?, modification_date = ? WHERE id = ?", arguments: [now, now, id])
                    records.append(try Self.record(db, runID, "asset", lid, "deleted", ["trashed"]))
                }
            }
            if let days = historyRetentionDays {
                let cutoff = Self.isoText(Date().addingTimeInterval(-Double(days) * 86400))
                if let floor = try Int64.fetchOne(db, sql: "SELECT MAX(token) FROM change WHERE at < ?", arguments: [cutoff]) {
                    try db.execute(sql: "DELETE FROM change WHERE token <= ?", arguments: [floor])
                    try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('history_floor', ?)", arguments: [String(floor)])
                }
            }
            try db.execute(
                sql: """
                    UPDATE ingest_run SET finished_at = ?, status = 'finished', files_seen = ?, files_probed = ?, errors = ?,
                        elapsed_seconds = ?, damaged = ?, skipped = ? WHERE id = ?
                    """, arguments: [now, filesSeen, filesProbed, errors, elapsed, damaged, skipped, runID])
            return records
        }
    }

    /// Error rows found after the commit stage (thumbnails), attached to a run.
    public func recordErrors(_ errors: [ErrorInput], runID: Int64) throws(CatalogError) {
        guard !errors.isEmpty else { return }
        try write { db in
            for e in errors {
                try db.execute(
                    sql: "INSERT INTO error(run_id, path, stage, reason, at, severity) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [runID, e.path, e.stage, e.reason, Self.now(), e.severity.rawValue])
            }
        }
    }

    static let insertChangeSQL = "INSERT INTO change(run_id, at, object_type, local_identifier, change_type, properties) VALUES (?, ?, ?, ?, ?, ?)"

    static func record(
        _ db: Database, _ runID: Int64?, _ type: String, _ lid: String, _ change: String, _ props: [String], using s: CommitStatements? = nil
    ) throws -> ChangeRecord {
        var b = try s?.binder(.insertChange) ?? Binder(db, insertChangeSQL)
        b.int(runID)
        b.text(now())
        b.text(type)
        b.text(lid)
        b.text(change)
        b.text(props.joined(separator: ","))
        try b.run()
        return ChangeRecord(token: db.lastInsertedRowID, objectType: type, localIdentifier: lid, changeType: change, properties: props)
    }

    // MARK: - Files

    /// The file rows of one folder (without their facts).
    public func files(inDirectory dir: String) throws(CatalogError) -> [FileRow] {
        try read { db in
            try Array(Row.fetchCursor(db, sql: "SELECT \(Self.fileColumns) FROM file WHERE dir = ? ORDER BY path", arguments: [dir]).map(Self.fileRow))
        }
    }

    /// The file rows of several folders, without their facts: the cheap check of a re-ingest, one query
    /// per batch of folders.
    public func fingerprints(inDirectories dirs: [String]) throws(CatalogError) -> [String: [FileRow]] {
        guard !dirs.isEmpty else { return [:] }
        return try read { db in
            var out: [String: [FileRow]] = [:]
            let marks = Array(repeating: "?", count: dirs.count).joined(separator: ",")
            let rows = try Row.fetchCursor(
                db, sql: "SELECT \(Self.fileColumns) FROM file WHERE dir IN (\(marks))", arguments: StatementArguments(dirs))
            while let r = try rows.next() {
                let f = Self.fileRow(r)
                out[f.dir, default: []].append(f)
            }
            return out
        }
    }

    /// The stored files with one of `versions` (device, inode, size, modification time), wherever they are:
    /// the rows a file met at a new path may have been catalogued under (a file moved into a folder walked
    /// before the one it left). Looked up by inode (`file_inode`), at most `perInode` rows of each: a file
    /// hard-linked into hundreds of folders has a row in each, and its new link would read them all.
    public func files(withVersions versions: some Collection<FileFingerprint>, perInode: Int = 8) throws(CatalogError) -> [FileRow] {
        guard !versions.isEmpty else { return [] }
        return try read { db in
            let statement = try db.cachedStatement(sql: "SELECT \(Self.fileColumns) FROM file WHERE inode = ? LIMIT ?")
            var out: [FileRow] = []
            try Self.rows(byInodeOf: versions, perInode: perInode, statement) { r, wanted in
                let row = Self.fileRow(r)
                if wanted.contains(row.fingerprint) { out.append(row) }
            }
            return out
        }
    }

    /// Runs `statement` (bound to an inode and a limit) for each inode of `versions`, at most `perInode` rows
    /// each, handing `body` every row with the versions wanted: the rows of a version are told by their columns.
    static func rows(
        byInodeOf versions: some Collection<FileFingerprint>, perInode: Int, _ statement: Statement, _ body: (Row, Set<FileFingerprint>) throws -> Void
    ) throws {
        let wanted = Set(versions)
        for inode in Set(versions.map(\.inode)).sorted() {
            let rows = try Row.fetchCursor(statement, arguments: [inode, perInode])
            while let r = try rows.next() { try body(r, wanted) }
        }
    }

    /// Stored probe facts (JSON `ProbeReport`s) by path for one folder.
    public func facts(inDirectory dir: String) throws(CatalogError) -> [String: [UInt8]] {
        try read { db in
            try Self.factsByPath(
                Row.fetchCursor(db, sql: "SELECT x.path, x.facts FROM file f JOIN file_facts x ON x.path = f.path WHERE f.dir = ?", arguments: [dir]))
        }
    }

    /// Stored probe facts (JSON `ProbeReport`s) by path for the given files (those without facts are left out).
    public func facts(paths: some Collection<String>) throws(CatalogError) -> [String: [UInt8]] {
        guard !paths.isEmpty else { return [:] }
        return try read { db in
            try Self.factsByPath(
                Row.fetchCursor(db, sql: "SELECT path, facts FROM file_facts WHERE path IN (SELECT value FROM json_each(?))", arguments: [Self.jsonArray(paths)]))
        }
    }

    /// Rows of (path, facts) by path, read through the cursor with each blob copied once (with `fetchAll`, a
    /// folder of 20,000 files held its ~50 MB of facts twice).
    static func factsByPath(_ rows: RowCursor) throws -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        while let r = try rows.next() {
            out[r[0]] = try r.withUnsafeData(atIndex: 1) { d in d.map { [UInt8]($0) } ?? [] }
        }
        return out
    }

    /// Stored probe facts of the files of one asset (its resources and the sidecars it read), by path.
    public func facts(ofAsset localIdentifier: String) throws(CatalogError) -> [(path: String, facts: [UInt8], probeVersion: Int?)] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT f.path, f.probe_version, x.facts FROM asset a JOIN file f ON f.asset_id = a.id
                    JOIN file_facts x ON x.path = f.path WHERE a.local_identifier = ? ORDER BY f.path
                    """, arguments: [localIdentifier]
            ).map { ($0["path"], [UInt8]($0["facts"] as Data), $0["probe_version"]) }
        }
    }

    /// Every folder that holds file rows, with the root its rows carry (for a re-derivation without the
    /// sources).
    public func folders() throws(CatalogError) -> [(dir: String, root: String)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT dir, MIN(root) AS root FROM file GROUP BY dir ORDER BY dir").map { ($0["dir"], $0["root"]) }
        }
    }

    /// A value in the `meta` table.
    public func metaValue(_ key: String) throws(CatalogError) -> String? {
        try read { db in try Self.metaValue(db, key) }
    }

    /// Sets (or, with nil, removes) a value in the `meta` table.
    public func setMetaValue(_ key: String, _ value: String?) throws(CatalogError) {
        try write { db in try Self.setMetaValue(db, key, value) }
    }

    /// `metaValue` and `setMetaValue` inside a transaction already open.
    static func metaValue(_ db: Database, _ key: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key])
    }

    static func setMetaValue(_ db: Database, _ key: String, _ value: String?) throws {
        if let value {
            try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", arguments: [key, value])
        } else {
            try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [key])
        }
    }

    /// The columns `fileRow(_:)` reads, by position: every query that decodes a `FileRow` selects them first.
    static let fileColumnNames = [
        "path", "root", "dir", "size", "mtime_ns", "inode", "device", "content_hash", "kind", "role", "status", "last_error",
        "skip_category", "probe_version", "sample_hash",
    ]
    static let fileColumns = fileColumnNames.joined(separator: ", ")

    /// Folders at or below `path` that hold file rows, whatever root they belong to, and that `keep` accepts,
    /// in order (to find folders that vanished whole below the folder an ingest walked). Read through a
    /// cursor: only the kept ones are held (the ingest asks for the few its walk did not reach, among 21.7k
    /// at 100k files).
    public func directories(under path: String, where keep: (String) -> Bool) throws(CatalogError) -> [String] {
        // One range of the dir index, in order: from `path` to the prefix with its "/" made "0", the next
        // byte, which bounds every text that starts with the prefix whatever follows (an upper bound of
        // prefix + U+FFFF left out folders whose name starts with a character past it, an emoji: a vanished
        // "📷 Trip" went unnoticed). The range also holds siblings whose name continues `path` with a byte
        // below "/" ("x-old", "x copy"), skipped here; `dir = ? OR (range)` read two ranges and sorted them
        // to drop duplicates (26 against 8 ms for 20.7k folders).
        let end = path == "/" ? "0" : path + "0"
        return try read { db in
            var kept: [String] = []
            let dirs = try String.fetchCursor(
                db, sql: "SELECT DISTINCT dir FROM file WHERE dir >= ? AND dir < ? ORDER BY dir", arguments: [path, end])
            while let d = try dirs.next() {
                guard PathText.isInside(d, path) else { continue }  // by bytes, as SQLite compares
                if keep(d) { kept.append(d) }
            }
            return kept
        }
    }

    /// Every root that files were ingested under.
    public func knownRoots() throws(CatalogError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT DISTINCT root FROM file ORDER BY root") }
    }

    /// A row whose first columns are `fileColumns`, read by position (a read by name compares the name with
    /// every column of the row, case-insensitively: a third of the cost of a folder's check).
    static func fileRow(_ r: Row) -> FileRow {
        FileRow(
            path: r[0], root: r[1], dir: r[2],
            fingerprint: FileFingerprint(size: r[3], mtimeNanoseconds: r[4], inode: r[5], device: r[6]),
            contentHash: r[7], kind: r[8], role: r[9], status: r[10], lastError: r[11],
            facts: nil, probeVersion: r[13], skipCategory: r[12], sampleHash: r[14])
    }

    /// Stored files whose partial hash (`sample_hash`) is one of `hashes`: the duplicate candidates of newly
    /// hashed files (their `content_hash` is the partial one until completed to a full hash).
    ///
    /// `hashes` maps each partial hash to the identities of the new files that have it: rows are read only
    /// for a hash that another identity shares too (hard links of one file are one identity); the check
    /// reads the index alone.
    ///
    /// Every row not yet completed is returned. Of the completed ones, one row per file version (partial
    /// hash, device, inode, size, modification time) is: the others say nothing more, and a file copied into
    /// a thousand folders would otherwise be read a thousand times per folder. Rows at `excluding` (paths
    /// whose newer rows the caller holds; asked for only when some hash is shared) are left out before that
    /// choice.
    public func files(
        sharingPartialHashes hashes: [String: Set<FileIdentity>], excluding: @autoclosure () -> Set<String> = []
    ) throws(CatalogError) -> [FileRow] {
        guard !hashes.isEmpty else { return [] }
        return try read { db in
            // Per hash, the lowest and the highest identity stored with it (two seeks in the index
            // `file_sample_hash`): one identity throughout, or the new files have one and it differs, decide;
            // only several new identities against several stored ones need the scan of the hash's rows, which
            // visits every row — a file hard-linked into many folders has one in each (~940 a hash in the
            // 100k benchmark tree, where the scan was 3.5 s of a first ingest's CPU). Cached statements, run per
            // hash (one of as many variables as hashes was prepared anew for every folder).
            var sharedKeys: [String] = []
            let identities = try db.cachedStatement(sql: "SELECT DISTINCT device, inode FROM file WHERE sample_hash = ?")
            let lowest = try db.cachedStatement(sql: "SELECT device, inode FROM file WHERE sample_hash = ? ORDER BY device, inode LIMIT 1")
            let highest = try db.cachedStatement(
                sql: "SELECT device, inode FROM file WHERE sample_hash = ? ORDER BY device DESC, inode DESC LIMIT 1")
            func identity(_ statement: Statement, _ hash: String) throws -> FileIdentity? {
                var b = Binder(statement, db)
                b.text(hash)
                return try b.firstRow { FileIdentity(device: sqlite3_column_int64($0, 0), inode: sqlite3_column_int64($0, 1)) }
            }
            for h in hashes.keys.sorted() {
                guard let known = hashes[h], let low = try identity(lowest, h), let high = try identity(highest, h) else { continue }
                if low == high || known.count == 1 {
                    if low != high || !known.contains(low) { sharedKeys.append(h) }
                    continue
                }
                let ids = try Row.fetchCursor(identities, arguments: [h])
                while let r = try ids.next() {
                    if !known.contains(FileIdentity(device: r[0], inode: r[1])) {
                        sharedKeys.append(h)
                        break
                    }
                }
            }
            guard !sharedKeys.isEmpty else { return [] }
            let sharing = "sample_hash IN (\(Array(repeating: "?", count: sharedKeys.count).joined(separator: ",")))"
            var args = StatementArguments(sharedKeys)
            var notExcluded = ""
            let excluding = excluding()  // only now: most calls share no hash with another file
            if !excluding.isEmpty {
                // One JSON array, not a variable per path: a folder may hold more paths than SQLite's limit.
                notExcluded = " AND path NOT IN (SELECT value FROM json_each(?))"
                args += [Self.jsonArray(excluding.sorted())]
            }
            return try Array(
                Row.fetchCursor(
                    db,
                    sql: """
                        SELECT \(Self.fileColumns) FROM file
                        WHERE \(sharing) AND (content_hash IS NULL OR content_hash = sample_hash)\(notExcluded)
                        UNION ALL
                        SELECT \(Self.fileColumns) FROM file
                        WHERE \(sharing) AND content_hash != sample_hash\(notExcluded)
                        GROUP BY sample_hash, device, inode, size, mtime_ns
                        """,
                    arguments: args + args
                ).map(Self.fileRow))
        }
    }

    // MARK: - Commit

    /// Applies one folder's files, assets and errors in a single transaction; returns the history records.
    @discardableResult
    public func commitFolder(_ c: FolderCommit) throws(CatalogError) -> [ChangeRecord] {
        try write { db in
            let records = try Self.commitFolder(db, c)
            try Self.fitCheckpointInterval(db)
            return records
        }
    }

    /// Several folders' commits in one transaction, applied in order exactly as `commitFolder(_:)` applies
    /// each: a first ingest writes its WAL pages (the B-tree and index pages every folder touches) once per
    /// batch instead of once per folder. Each folder is still all or nothing; a kill loses the batch, which
    /// the next ingest probes again.
    @discardableResult
    public func commitFolders(_ commits: [FolderCommit]) throws(CatalogError) -> [ChangeRecord] {
        try write { db in
            var records: [ChangeRecord] = []
            let statements = CommitStatements(db)
            for c in commits { records += try Self.commitFolder(db, c, using: statements) }
            try Self.fitCheckpointInterval(db)
            return records
        }
    }

    /// Sets how often the writer's commits copy the write-ahead log into the catalog file (SQLite's
    /// `wal_autocheckpoint`) to suit the catalog's size now (`checkpointPages(forCatalogPages:)`).
    static func fitCheckpointInterval(_ db: Database) throws {
        // Prepared once per connection: `rederive` and `merge` commit a folder at a time.
        let want = checkpointPages(forCatalogPages: try Int.fetchOne(db.cachedStatement(sql: "PRAGMA page_count")) ?? 0)
        if try Int.fetchOne(db.cachedStatement(sql: "PRAGMA wal_autocheckpoint")) != want {
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(want)")
        }
    }

    /// Pages of write-ahead log after which a commit checkpoints, for a catalog of `pages` pages: a quarter
    /// of the catalog, as a power of two from 1,024 (SQLite's default is 1,000: 4 MiB) to 16,384 (64 MiB).
    /// A checkpoint reads back every page in the log, writes it into the catalog and syncs both files, so a
    /// page that several commits changed since the last one (an index's, a table's last) is copied once per
    /// checkpoint. A first ingest of 95k files (a 500 MB catalog) synced the catalog 212 times at the
    /// default; fitted, 42 times, its catalog I/O 3.3 -> 3.0 GB read and 1.5 -> 1.3 GB written (under
    /// `strace`), system time 5.0-5.2 -> 4.45-4.6 s and organize's places step 1.6-1.7 -> 1.3-1.4 s
    /// (Benchmarks/README.md, session 29). Not a fixed 16,384: what the log holds when the catalog closes is
    /// checkpointed then, on the ingest's serial end, and at 3,000 files (a 16 MB catalog) that put 40 ms
    /// there for nothing won.
    static func checkpointPages(forCatalogPages pages: Int) -> Int {
        var n = 1024
        while n < 16_384 && n * 2 <= pages / 4 { n *= 2 }
        return n
    }

    /// A new file row. Tried before `upsertFileSQL`: a single-row INSERT needs no statement journal (SQLite
    /// checks its constraints before it writes), where the upsert copies every page it is about to change
    /// into one (`isMultiWrite`), and past 64 KiB into a temporary file under /var/tmp: ~6,000 writes there
    /// in a 3,000-file first ingest, all on the writer's thread.
    static let insertFileSQL = """
        INSERT INTO file(path, root, dir, size, mtime_ns, inode, device, content_hash, kind, role, status, last_error,
            probe_version, first_run, last_run, skip_category, sample_hash, asset_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// A file row, inserted or replacing the one at its path (its first run kept): for a path already stored.
    static let upsertFileSQL = insertFileSQL + """

        ON CONFLICT(path) DO UPDATE SET root = excluded.root, dir = excluded.dir, size = excluded.size,
            mtime_ns = excluded.mtime_ns, inode = excluded.inode, device = excluded.device,
            content_hash = excluded.content_hash, kind = excluded.kind, role = excluded.role,
            status = excluded.status, last_error = excluded.last_error,
            probe_version = excluded.probe_version, last_run = excluded.last_run, skip_category = excluded.skip_category,
            sample_hash = excluded.sample_hash, asset_id = COALESCE(excluded.asset_id, asset_id)
        """

    /// `commitFolder(_:)` inside a transaction the caller holds (`shoebox merge` adds to it).
    static func commitFolder(_ db: Database, _ c: FolderCommit, using statements: CommitStatements? = nil) throws -> [ChangeRecord] {
        let st = statements ?? CommitStatements(db)
        do {
            var records: [ChangeRecord] = []
            // The per-row statements are looked up once per transaction (`CommitStatements`); the values of the
            // per-file and per-asset rows are bound straight into SQLite (`Binder`).
            // The folder's file rows are written once, with the asset each path belongs to, after the assets (a
            // second write per file, setting its asset afterwards, was ~2 % of a first ingest's instructions).
            // Stored files completed to a full hash are updated after the file rows, as a path of this folder
            // can be among them: then the file rows go first, and the assets are linked afterwards.
            var links: [FilePathKey: Int64] = [:]
            func writeFiles() throws {
                for f in c.files {
                    let asset = links.isEmpty ? nil : links.removeValue(forKey: FilePathKey(f.path))  // nil: the stored asset stays
                    func bind(_ b: inout Binder) {
                        b.text(f.path)
                        b.text(f.root)
                        b.text(f.dir)
                        b.int(f.fingerprint.size)
                        b.int(f.fingerprint.mtimeNanoseconds)
                        b.int(f.fingerprint.inode)
                        b.int(f.fingerprint.device)
                        b.text(f.contentHash)
                        b.text(f.kind)
                        b.text(f.role)
                        b.text(f.status)
                        b.text(f.lastError)
                        b.int(f.probeVersion)
                        b.int(c.runID)
                        b.int(c.runID)
                        b.text(f.skipCategory)
                        b.text(f.sampleHash)
                        b.int(asset)
                    }
                    // A new path is inserted; a stored one (the insert changed nothing) is updated in place.
                    var insert = try st.binder(.insertFile)
                    bind(&insert)
                    if try !insert.runUnlessUniqueConflict() {
                        var upsert = try st.binder(.upsertFile)
                        bind(&upsert)
                        try upsert.run()
                    }
                    // New facts replace the stored ones; a row re-derived from its stored facts (facts nil, version
                    // kept) leaves them; a row without facts (unreadable) has none.
                    if let blob = try f.facts ?? f.spooledFacts?.bytes() {
                        var facts = try st.binder(.insertFacts)
                        facts.text(f.path)
                        facts.blob(blob)
                        try facts.run()
                    } else if f.probeVersion == nil {
                        try db.cachedStatement(sql: "DELETE FROM file_facts WHERE path = ?").execute(arguments: [f.path])
                    }
                }
            }
            let filesFirst = !c.completedHashes.isEmpty
            if filesFirst { try writeFiles() }
            for h in c.completedHashes {
                // A stored file that shares a partial hash with a new one, now hashed in full: its resource rows
                // (by the asset its file row links) follow.
                try db.cachedStatement(sql: "UPDATE resource SET content_hash = ? WHERE content_hash = ? AND asset_id = (SELECT asset_id FROM file WHERE path = ?)")
                    .execute(arguments: [h.full, h.partial, h.path])
                try db.cachedStatement(sql: "UPDATE file SET content_hash = ?, sample_hash = ? WHERE path = ?")
                    .execute(arguments: [h.full, h.partial, h.path])
            }
            for p in c.vanished {
                try db.cachedStatement(sql: "DELETE FROM file WHERE path = ?").execute(arguments: [p])
                try db.cachedStatement(sql: "DELETE FROM file_facts WHERE path = ?").execute(arguments: [p])
            }
            for e in c.errors {
                var b = try st.binder(.insertError)
                b.int(c.runID)
                b.text(e.path)
                b.text(e.stage)
                b.text(e.reason)
                b.text(Self.now())
                b.text(e.severity.rawValue)
                try b.run()
            }
            if c.assets != nil { records = try commitAssets(db, c, links: &links, using: st) }
            if !filesFirst { try writeFiles() }
            // Resources whose file rows were not written with their asset (unchanged files of a re-assembled
            // folder; every file when they went first).
            for (path, id) in links { try linkFile(db, path: path.path, assetID: id) }
            return records
        }
    }

    /// The assets part of `commitFolder`: the folder's digest, its assets inserted, updated or left pending, and
    /// in `links` the asset each resource's absolute path belongs to (a path in two assets: the later one, as
    /// when each asset's files were linked in turn).
    static func commitAssets(_ db: Database, _ c: FolderCommit, links: inout [FilePathKey: Int64], using st: CommitStatements) throws -> [ChangeRecord] {
        do {
            var records: [ChangeRecord] = []
            func link(_ id: Int64, _ i: AssetInput) {
                for path in i.resourcePaths { links[FilePathKey(path)] = id }
            }
            guard let incoming = c.assets else { return records }
            // Each asset's column values, made once for the digest and the row (before the writer, mostly); a
            // very large folder's are made again one asset at a time instead of being held.
            let columnValues = c.derived.map(\.values) ?? (c.holdsValues ? incoming.map(values) : nil)
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO folder_digest(dir, digest) VALUES (?, ?)")
                .execute(arguments: [c.dir, c.derived?.digest ?? Self.derivationDigest(c, columnValues: columnValues)])
            if let t = c.takeoutAlbumTitle {
                try db.cachedStatement(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)").execute(arguments: ["takeout_album:" + c.dir, t])
            } else {
                try db.cachedStatement(sql: "DELETE FROM meta WHERE key = ?").execute(arguments: ["takeout_album:" + c.dir])
            }

            // Existing assets of this folder, by primary path: their ids, paths and whether they are trashed; the
            // whole rows are read a chunk at a time when compared below (held at once, a 30,000-file folder's
            // rows were 77 MB of a re-ingest's 172 MB peak heap). (Most folders of a first ingest have none: an
            // existence check first.)
            var any = try Binder(db, "SELECT EXISTS (SELECT 1 FROM asset WHERE dir = ? AND root = ?)")
            any.text(c.dir)
            any.text(c.root)
            var existing: [(id: Int64, trashed: Bool)] = []
            var byPath: [String: Int64] = [:]
            if try any.firstInt() == 1 {
                let rows = try Row.fetchCursor(
                    db.cachedStatement(sql: "SELECT id, primary_path, trashed_at IS NOT NULL FROM asset WHERE dir = ? AND root = ?"),
                    arguments: [c.dir, c.root])
                while let r = try rows.next() {
                    let id: Int64 = r[0]
                    existing.append((id, r[2]))
                    byPath[r[1]] = id
                }
            }
            // For the comparison of each asset with its row: the rows' column positions (from the first row read),
            // and the stored resources of each chunk's assets in one query (not one per asset).
            var stored: StoredAssets? = nil
            var matched = Set<Int64>()
            // First by primary path, then (for what is left) by content: a file that kept its path keeps its
            // asset even when an identical copy appears beside it.
            var oldIDs: [Int64?] = incoming.map { byPath[$0.asset.id] }
            for o in oldIDs { if let o { matched.insert(o) } }
            byPath = [:]
            // A moved file can only match an asset of this folder or one whose files vanished (few, on a partial
            // index): when there are none, no asset is looked up by content (a first ingest of many copies
            // would otherwise scan every asset of a hash for each new one).
            let anyVanishing = try Binder(db, "SELECT EXISTS (SELECT 1 FROM asset WHERE pending_vanish = 1 OR trashed_at IS NOT NULL)").firstInt() != 0
            // A file moved here from a path the run knows (`FolderCommit.movedFrom`): the vanished asset whose
            // primary file was there keeps its identity — that copy's own, where the content match below takes
            // the first vanished asset of the content — read once per folder it left (each commit's content
            // match read every asset of each content: a tree of 900 copies of each file took 95 s to rename).
            if anyVanishing && !c.movedFrom.isEmpty {
                let base = c.root.hasSuffix("/") ? c.root : c.root + "/"
                var left: [String: [(k: Int, name: String)]] = [:]  // folder left → the assets whose primary left it
                var folders: [String] = []
                for (k, input) in incoming.enumerated() where oldIDs[k] == nil {
                    guard let from = c.movedFrom[base + input.asset.id] else { continue }
                    let (parent, name) = PathText.parentAndName(from)
                    guard let parent else { continue }
                    let folder = parent.isEmpty ? "/" : String(parent)
                    if left[folder] == nil { folders.append(folder) }
                    left[folder, default: []].append((k, String(name)))
                }
                for folder in folders {
                    var byName: [String: Int64] = [:]
                    let rows = try Row.fetchCursor(
                        db.cachedStatement(
                            sql: "SELECT id, filename FROM asset WHERE dir = ? AND (pending_vanish = 1 OR trashed_at IS NOT NULL) ORDER BY pending_vanish DESC, id"),
                        arguments: [folder])
                    while let r = try rows.next() {
                        let name: String = r[1]
                        if byName[name] == nil { byName[name] = r[0] }
                    }
                    for (k, name) in left[folder]! {
                        guard let id = byName[name], !matched.contains(id) else { continue }
                        // Its files must all have left with it (a Live Photo whose movie stayed is not taken).
                        let elsewhere =
                            try Int.fetchOne(
                                db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM file WHERE asset_id = ? AND dir != ?)"), arguments: [id, c.dir]) ?? 0
                        guard elsewhere == 0 else { continue }
                        oldIDs[k] = id
                        matched.insert(id)
                    }
                }
            }
            // A moved or renamed file: an asset whose files vanished (this run or earlier) with the same primary
            // content keeps its identity. The candidates of each content are read once, in the order they are
            // taken, and handed to its incoming assets in turn: a query per incoming asset read every asset of
            // its content each time — quadratic in the copies of a file (a renamed folder of 5,000 copies of
            // one photo took minutes), and past the 64 it was limited to, copies were inserted anew and merged
            // at the end of the run instead (Benchmarks/README.md, session 32).
            // (Ids only: the rows are read with the others below; a renamed folder of 20,000 files held every
            // moved asset's whole row until its commit.)
            var byContent: [String: [Int]] = [:]
            var contents: [String] = []
            if anyVanishing || !existing.isEmpty {
                for (k, input) in incoming.enumerated() where oldIDs[k] == nil {
                    guard let h = input.primaryHash else { continue }
                    if byContent[h] == nil { contents.append(h) }
                    byContent[h, default: []].append(k)
                }
            }
            for h in contents {
                let candidates = try Int64.fetchCursor(
                    db.cachedStatement(
                        sql: """
                        SELECT a.id FROM asset a JOIN resource r ON r.asset_id = a.id AND r.ord = 0
                        WHERE r.content_hash = ? AND (a.pending_vanish = 1 OR a.trashed_at IS NOT NULL OR a.dir = ?)
                            AND NOT EXISTS (SELECT 1 FROM file f WHERE f.asset_id = a.id AND f.dir != ?)
                        ORDER BY a.pending_vanish DESC, a.id
                        """), arguments: [h, c.dir, c.dir])
                var waiting = byContent[h]![...]
                while let first = waiting.first, let o = try candidates.next() {
                    guard !matched.contains(o) else { continue }
                    oldIDs[first] = o
                    matched.insert(o)
                    waiting = waiting.dropFirst()
                }
            }
            // The rows of the assets matched (by path or by content), a chunk of the incoming assets at a time.
            for chunk in stride(from: 0, to: incoming.count, by: Self.comparedRowsChunk) {
                let range = chunk..<min(incoming.count, chunk + Self.comparedRowsChunk)
                let ids = range.compactMap { oldIDs[$0] }
                var rows: [Int64: Row] = [:]
                if !ids.isEmpty {
                    let cursor = try Row.fetchCursor(
                        db.cachedStatement(sql: "SELECT * FROM asset WHERE id IN (SELECT value FROM json_each(?))"),
                        arguments: ["[" + ids.map(String.init).joined(separator: ",") + "]"])
                    while let r = try cursor.next() {
                        if stored == nil { stored = try StoredAssets(columnsOf: r) }
                        rows[r[stored!.id]] = r.copy()
                    }
                    try stored?.readResources(db, of: ids)
                }
                for k in range {
                    let input = incoming[k]
                    if let id = oldIDs[k], let old = rows[id], let stored {
                        let changed = try Self.update(db, id: id, old: old, input, values: columnValues?[k] ?? values(input), stored: stored, using: st)
                        if !changed.isEmpty {
                            records.append(try Self.record(db, c.runID, "asset", old[stored.localIdentifier], "updated", changed, using: st))
                        }
                        link(id, input)
                    } else {
                        let (id, lid) = try Self.insert(db, input, values: columnValues?[k] ?? values(input), using: st)
                        records.append(try Self.record(db, c.runID, "asset", lid, "inserted", [], using: st))
                        link(id, input)
                    }
                }
            }
            // Assets of this folder that no longer assemble: their files are gone (trashed at the end of the run,
            // unless a later folder claims them as moved).
            for e in existing where !matched.contains(e.id) && !e.trashed {
                try db.cachedStatement(sql: "UPDATE asset SET pending_vanish = 1 WHERE id = ?").execute(arguments: [e.id])
            }
            return records
        }
    }

    /// Incoming assets compared with their stored rows at once (`commitAssets`): the rows read per chunk.
    static let comparedRowsChunk = 512

    /// The digest a folder's derived assets leave in `folder_digest`: every column `commitFolder` would
    /// write for them, their resources with hashes, and the folder's Takeout album title (FNV-1a 64).
    /// `columnValues`: `values(_:)` of each of `c.assets`, in order, when the caller has them already.
    public static func derivationDigest(_ c: FolderCommit, columnValues: [ColumnValues]? = nil) -> String {
        // The bytes are gathered, then hashed in a loop every 64 KiB (a call per byte was most of the cost; FNV-1a
        // goes byte by byte, so the digest is the same, and a huge folder's text is not held whole).
        var bytes = OutBytes(capacity: 4096)
        defer { bytes.deallocate() }
        var h: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a 64
        func fold() {
            for b in bytes.bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
            bytes.removeAll()
        }
        func add(_ s: String) {
            bytes.append(s)
            bytes.append(0x1F)
        }
        add(c.takeoutAlbumTitle ?? "-")
        let assets = c.assets ?? []
        for n in assets.indices.sorted(by: { assets[$0].asset.id < assets[$1].asset.id }) {
            let i = assets[n]
            let columns = columnValues.map { $0[n] } ?? values(i)
            for k in derivedColumnsByName {
                bytes.append(derivedColumns[k])
                bytes.append(UInt8(ascii: "="))
                describe(columns[k], into: &bytes)
                bytes.append(0x1F)
            }
            for (r, hash) in zip(i.asset.resources, i.resourceHashes) {
                // "type|path|name|uti|size|hash|offset+length", a part at a time.
                let bar = UInt8(ascii: "|")
                bytes.append(String(r.type.rawValue))
                bytes.append(bar)
                bytes.append(r.path)
                bytes.append(bar)
                bytes.append(r.originalFilename)
                bytes.append(bar)
                bytes.append(r.uniformTypeIdentifier ?? "")
                bytes.append(bar)
                bytes.append(String(r.fileSize ?? 0))
                bytes.append(bar)
                bytes.append(hash ?? "")
                bytes.append(bar)
                if let range = r.byteRange {
                    bytes.append(String(range.offset))
                    bytes.append(UInt8(ascii: "+"))
                    bytes.append(String(range.length))
                }
                bytes.append(0x1F)
            }
            if bytes.count >= 1 << 16 { fold() }
        }
        fold()
        return String(h, radix: 16)
    }

    /// Appends the UTF-8 bytes of `v.description` (so digests stored by earlier versions stay valid) without
    /// building that string. For text made of printable ASCII, tabs, newlines, carriage returns and other
    /// scalars, Swift's debug description is the text in quotes with `"`, `'`, `\`, tab, newline and carriage
    /// return escaped (`Unicode.Scalar.escaped(asASCII:)`) and every scalar beyond ASCII as it is — except
    /// one that could join the opening quote or an escape before it, or the closing quote after it, into one
    /// character (`String.debugDescription`: a combining mark there is escaped). So text in which every
    /// non-ASCII scalar follows a printable ASCII character or another non-ASCII scalar, and which does not
    /// end in one, is written from its bytes; anything else takes the slow path (control characters, DEL,
    /// such a scalar first, after an escaped character or last). The slow path was ~1 % of a first
    /// ingest's instructions: a `reasons` text with a `°` in it.
    static func describe(_ v: DatabaseValue, into out: inout OutBytes) {
        switch v.storage {
        case .string(var s):
            let done = s.withUTF8 { b -> Bool in
                // Printable ASCII with no quote, apostrophe or backslash (most values): the text in quotes.
                if !mayNeedDescribeEscape(b) {
                    out.append(0x22)
                    out.append(b)
                    out.append(0x22)
                    return true
                }
                var afterEscape = true  // the opening quote counts as one
                var endsBeyondASCII = false
                for c in b {
                    if c < 0x80 {
                        if c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D || c == 0x7F { return false }
                        afterEscape = c < 0x20 || c == 0x22 || c == 0x27 || c == 0x5C
                        endsBeyondASCII = false
                    } else if c >= 0xC0 {  // the first byte of a scalar beyond ASCII
                        if afterEscape { return false }
                        endsBeyondASCII = true
                    }
                }
                if endsBeyondASCII { return false }
                out.append(0x22)
                var start = 0
                for (i, c) in b.enumerated() {
                    let escaped: UInt8
                    switch c {
                    case 0x22, 0x27, 0x5C: escaped = c
                    case 0x09: escaped = UInt8(ascii: "t")
                    case 0x0A: escaped = UInt8(ascii: "n")
                    case 0x0D: escaped = UInt8(ascii: "r")
                    default: continue
                    }
                    out.append(UnsafeBufferPointer(rebasing: b[start..<i]))
                    out.append(0x5C)
                    out.append(escaped)
                    start = i + 1
                }
                out.append(UnsafeBufferPointer(rebasing: b[start...]))
                out.append(0x22)
                return true
            }
            if !done { out.append(v.description) }
        case .int64(let n): out.append(String(n))
        case .null: out.append("NULL" as StaticString)
        default: out.append(v.description)
        }
    }

    /// Whether some byte of `b` is not printable ASCII or is `"`, `'` or `\`: `describe` then escapes or
    /// looks further (exact for "no"; eight bytes at a time, as `OutBytes.mayNeedEscape`).
    static func mayNeedDescribeEscape(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = b.baseAddress else { return false }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        var i = 0
        while i + 8 <= b.count {
            let w = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
            if w & highs != 0 || (w &- ones &* 0x20) & ~w & highs != 0 || hasZero(w ^ (ones &* 0x7F))
                || hasZero(w ^ (ones &* 0x22)) || hasZero(w ^ (ones &* 0x27)) || hasZero(w ^ (ones &* 0x5C))
            {
                return true
            }
            i += 8
        }
        while i < b.count {
            let c = b[i]
            if c < 0x20 || c >= 0x7F || c == 0x22 || c == 0x27 || c == 0x5C { return true }
            i += 1
        }
        return false
    }

    /// Folder → digest of what it was last derived to (see `derivationDigest`).
    public func folderDigests() throws(CatalogError) -> [String: String] {
        try read { db in
            var out: [String: String] = [:]
            for r in try Row.fetchAll(db, sql: "SELECT dir, digest FROM folder_digest") { out[r["dir"]] = r["digest"] }
            return out
        }
    }

    /// The asset columns a folder's derivation writes, in the order `values(_:)` gives them. The burst
    /// identifier the files give is `file_burst_identifier`; `burst_identifier` is organize's (the set an
    /// asset is in, by the files' identifier, name or time), written by an insert and then only by organize,
    /// so a folder derived again does not reset it to the files' value for organize to set it back (two
    /// history records for every member of an inferred burst each time).
    static let derivedColumns: [String] = [
        "root", "dir", "primary_path", "filename", "media_type", "media_subtypes", "traits", "playback_style",
        "playback_variation", "creation_date", "creation_offset", "creation_date_source", "latitude", "longitude", "altitude",
        "location_source", "pixel_width", "pixel_height", "duration", "content_identifier", "file_burst_identifier", "has_adjustments",
        "is_favorite", "is_hidden", "make", "model", "lens_model", "pairing_confidence", "embedded_video_offset",
        "embedded_video_length", "paired_video_duration", "metadata_sources", "reasons",
    ]
    static let reasonsColumn = derivedColumns.firstIndex(of: "reasons")!
    /// Positions in `derivedColumns` in column-name order: the order of the folder digest.
    static let derivedColumnsByName: [Int] = derivedColumns.indices.sorted { derivedColumns[$0] < derivedColumns[$1] }
    /// The columns an insert writes: the derived ones, then `local_identifier`, `cloud_identifier`,
    /// `modification_date`, `added_date` and `burst_identifier` (the files' until organize runs; the values
    /// `insert` appends).
    static let insertedColumns = derivedColumns + ["local_identifier", "cloud_identifier", "modification_date", "added_date", "burst_identifier"]
    static let fileBurstColumn = derivedColumns.firstIndex(of: "file_burst_identifier")!
    /// Positions in `insertedColumns` in column-name order: the order of `insertAssetSQL`'s columns.
    static let insertAssetOrder: [Int] = insertedColumns.indices.sorted { insertedColumns[$0] < insertedColumns[$1] }
    /// The one insert statement of a new asset: every column named once, in name order.
    static let insertAssetSQL: String = {
        let cols = insertAssetOrder.map { insertedColumns[$0] }
        return "INSERT INTO asset(\(cols.joined(separator: ", "))) VALUES (\(cols.map { _ in "?" }.joined(separator: ", ")))"
    }()

    /// Column values of an asset, in the order of `derivedColumns` (fixed positions: no dictionary of names
    /// per asset, no boxed values; `insert` and the digest take them in name order by `insertAssetOrder` and
    /// `derivedColumnsByName`).
    public typealias ColumnValues = [DatabaseValue]

    static func values(_ i: AssetInput) -> ColumnValues {
        let a = i.asset
        let sources = metadataSourcesJSON(i.metadataSources)
        // One reason per line (newlines inside a reason become spaces): cheap to read back in bulk.
        let reasons = a.reasons.map { r in
            let d = r.description
            var text = d
            // memchr: the generic `utf8.contains` walked ~10 instructions a byte of every reason.
            let newline = text.withUTF8 { b in b.baseAddress.map { memchr($0, 0x0A, b.count) != nil } ?? false }
            return newline ? d.replacingOccurrences(of: "\n", with: " ") : d
        }.joined(separator: "\n")
        let name = PathText.fileName(a.id)
        return [
            i.root.databaseValue, i.dir.databaseValue, a.id.databaseValue, name.databaseValue,
            a.mediaType.rawValue.databaseValue, Int64(a.mediaSubtypes.rawValue).databaseValue,
            a.traits.map(\.rawValue).sorted().joined(separator: ",").databaseValue, a.playbackStyle.rawValue.databaseValue,
            a.playbackVariation.rawValue.databaseValue, a.creationDate?.local.databaseValue ?? .null,
            a.creationDate?.offsetSeconds.databaseValue ?? .null, a.creationDateSource.databaseValue,
            a.location?.latitude.databaseValue ?? .null, a.location?.longitude.databaseValue ?? .null,
            a.location?.altitude.databaseValue ?? .null, a.locationSource.databaseValue, a.pixelWidth.databaseValue,
            a.pixelHeight.databaseValue, a.duration.databaseValue, a.contentIdentifier.databaseValue, a.burstIdentifier.databaseValue,
            a.hasAdjustments.databaseValue, a.isFavorite.databaseValue, a.isHidden.databaseValue, a.make.databaseValue,
            a.model.databaseValue, a.lensModel.databaseValue, i.pairingConfidence.databaseValue,
            (i.embeddedVideo.map { Int64($0.offset) }).databaseValue, (i.embeddedVideo.map { Int64($0.length) }).databaseValue,
            i.pairedVideoDuration.databaseValue, sources.databaseValue, reasons.databaseValue,
        ]
    }

    /// `[{"path":…,"type":…}]`, byte for byte what `JSONEncoder` (sorted keys, slashes unescaped) writes,
    /// built directly when no text needs escaping (the encoder is kept for the rest).
    static func metadataSourcesJSON(_ refs: [MetadataSourceRef]) -> String {
        func plain(_ s: String) -> Bool { s.utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") } }
        guard refs.allSatisfy({ plain($0.path) && plain($0.type) }) else {
            let enc = JSONEncoder()
            enc.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return (try? enc.encode(refs)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        }
        return "[" + refs.map { "{\"path\":\"" + $0.path + "\",\"type\":\"" + $0.type + "\"}" }.joined(separator: ",") + "]"
    }

    /// The columns behind each property a user can change (`shoebox change`); see `update`.
    static let userColumns: [String: [String]] = [
        "isFavorite": ["is_favorite"], "isHidden": ["is_hidden"],
        "creationDate": ["creation_date", "creation_offset", "creation_date_source"],
        "location": ["latitude", "longitude", "altitude", "location_source"],
    ]

    /// PhotoKit-style property names for the columns a change can touch.
    static let propertyNames: [String: String] = [
        "primary_path": "resources", "filename": "filename", "media_type": "mediaType", "media_subtypes": "mediaSubtypes",
        "traits": "traits", "playback_style": "playbackStyle", "playback_variation": "playbackVariation",
        "creation_date": "creationDate", "creation_offset": "creationDate", "latitude": "location", "longitude": "location",
        "altitude": "location", "pixel_width": "pixelWidth", "pixel_height": "pixelHeight", "duration": "duration",
        "content_identifier": "contentIdentifier", "burst_identifier": "burstIdentifier", "has_adjustments": "hasAdjustments",
        "is_favorite": "isFavorite", "is_hidden": "isHidden", "make": "make", "model": "model", "lens_model": "lensModel",
        "embedded_video_offset": "resources", "embedded_video_length": "resources", "metadata_sources": "metadataSources",
        "dir": "resources",
    ]

    static func insert(_ db: Database, _ i: AssetInput, values known: ColumnValues? = nil, using s: CommitStatements? = nil) throws -> (Int64, String) {
        let lid = RandomUUID.string() + "/L0/001"
        let now = now().databaseValue
        let derived = known ?? values(i)
        let v = derived + [lid.databaseValue, cloudIdentifier(i).databaseValue, now, now, derived[fileBurstColumn]]  // as `insertedColumns`
        var b = try s?.binder(.insertAsset) ?? Binder(db, insertAssetSQL)
        for k in insertAssetOrder { b.value(v[k]) }
        try b.run()
        let id = db.lastInsertedRowID
        try insertResources(db, id, i, using: s)
        return (id, lid)
    }

    /// What `update` compares stored assets with: where each column is in a `SELECT *` row of the asset table
    /// (by position: by name GRDB looks each name up lower-cased, 8–12 % of a renamed 20,000-file folder's
    /// run), and the stored resource keys of the assets being compared, read a chunk of them at a time.
    struct StoredAssets {
        /// `derivedColumns[k]` is at `columnIndex[k]` of a row.
        let columnIndex: [Int]
        let id: Int
        let localIdentifier: Int
        let trashedAt: Int
        let pendingVanish: Int
        let userProperties: Int
        private(set) var resources: [Int64: [String]] = [:]

        /// The positions of `row`'s columns (any row of `SELECT * FROM asset`).
        init(columnsOf row: Row) throws {
            let names = Array(row.columnNames)
            func index(_ name: String) throws -> Int {
                guard let i = names.firstIndex(of: name) else { throw CatalogError(.sql, "the asset table has no column \(name)") }
                return i
            }
            columnIndex = try derivedColumns.map(index)
            id = try index("id")
            localIdentifier = try index("local_identifier")
            trashedAt = try index("trashed_at")
            pendingVanish = try index("pending_vanish")
            userProperties = try index("user_properties")
        }

        /// The stored resources of `ids` (and only theirs) in one query: "type|path|hash" in order.
        mutating func readResources(_ db: Database, of ids: [Int64]) throws {
            var r: [Int64: [String]] = [:]
            for id in ids { r[id] = [] }
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: "SELECT asset_id, type, path, content_hash FROM resource WHERE asset_id IN (SELECT value FROM json_each(?)) ORDER BY asset_id, ord"),
                arguments: ["[" + ids.map(String.init).joined(separator: ",") + "]"])
            while let row = try rows.next() {
                r[row[0], default: []].append(Catalog.resourceKey(type: row[1], path: row[2], hash: row[3]))
            }
            resources = r
        }

        /// True when the row holds exactly `derived`, is neither trashed nor pending, and `keys` are its stored
        /// resources: `update` would then change nothing, whatever the user owns.
        func unchanged(_ old: Row, _ derived: ColumnValues, resources keys: [String], id: Int64) -> Bool {
            guard old[pendingVanish] as Int64? == 0, (old[trashedAt] as DatabaseValue).isNull else { return false }
            for k in derived.indices where (old[columnIndex[k]] as DatabaseValue) != derived[k] { return false }
            return (resources[id] ?? []) == keys
        }
    }

    /// A resource as `update` compares it: "type|path|hash".
    static func resourceKey(type: Int, path: String, hash: String?) -> String { "\(type)|\(path)|\(hash ?? "")" }

    /// Updates an asset in place (identifiers kept); returns the names of the properties that changed.
    /// `stored`: the rows' column positions and the stored resources of the asset.
    static func update(
        _ db: Database, id: Int64, old: Row, _ i: AssetInput, values known: ColumnValues? = nil, stored: StoredAssets, using st: CommitStatements? = nil
    ) throws -> [String] {
        let derived = known ?? values(i)
        let newResources = zip(i.asset.resources, i.resourceHashes).map { resourceKey(type: $0.0.type.rawValue, path: $0.0.path, hash: $0.1) }
        // Most assets of a re-derived folder are as they were: told by position, without the by-name work below.
        if stored.unchanged(old, derived, resources: newResources, id: id) { return [] }
        func oldValue(_ k: Int) -> DatabaseValue { old[stored.columnIndex[k]] }
        // What the user changed (favorite, hidden, date, location) stays the user's, whatever the files say.
        let userText = String.fromDatabaseValue(old[stored.userProperties]) ?? ""
        let owned = Set(userText.split(separator: ",").flatMap { userColumns[String($0)] ?? [] })
        var changedCols: [String] = []
        for (k, name) in derivedColumns.enumerated() where k != reasonsColumn && !owned.contains(name) && oldValue(k) != derived[k] {
            changedCols.append(name)
        }
        changedCols.sort()
        let oldResources = try stored.resources[id] ?? resourceKeys(db, id)
        var props = Set(changedCols.compactMap { propertyNames[$0] })
        if oldResources != newResources { props.insert("resources") }
        let wasTrashed = !(old[stored.trashedAt] as DatabaseValue).isNull
        if wasTrashed { props.insert("isTrashed") }
        let reasonsChanged = oldValue(reasonsColumn) != derived[reasonsColumn]
        // A column no property stands for (the files' burst identifier: organize's is the property) is
        // written without a record.
        let wasPending = Int64.fromDatabaseValue(old[stored.pendingVanish]) ?? 0
        guard !props.isEmpty || !changedCols.isEmpty || reasonsChanged || wasPending != 0 else { return [] }
        if owned.isEmpty {
            // Every derived column (the usual case: nothing the user owns): one statement of fixed columns, bound
            // by position (a dictionary of the columns, its keys sorted and the SQL made and looked up were half
            // of this function's time for a renamed folder's moved assets).
            var b = try st?.binder(props.isEmpty ? .updateAsset : .updateAssetModified) ?? Binder(db, props.isEmpty ? updateAssetSQL : updateAssetModifiedSQL)
            for value in derived { b.value(value) }
            if !props.isEmpty { b.text(now()) }
            b.int(id)
            try b.run()
        } else {
            var sets: [String: (any DatabaseValueConvertible)?] = [:]
            for (k, name) in derivedColumns.enumerated() where !owned.contains(name) { sets[name] = derived[k] }
            sets["pending_vanish"] = 0
            // `sets[key] = nil` would remove the key (and leave the asset in Recently Deleted): store a NULL.
            sets.updateValue(nil, forKey: "trashed_at")
            if !props.isEmpty { sets["modification_date"] = now() }
            let cols = sets.keys.sorted()
            let arguments: [(any DatabaseValueConvertible)?] = cols.map { sets[$0] ?? nil } + [id]
            try db.cachedStatement(sql: "UPDATE asset SET \(cols.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?")
                .execute(arguments: StatementArguments(arguments))
        }
        if props.contains("resources") {
            try db.cachedStatement(sql: "DELETE FROM resource WHERE asset_id = ?").execute(arguments: [id])
            try insertResources(db, id, i, using: st)
        }
        return props.sorted()
    }

    /// `update` of an asset none of whose columns the user owns: every derived column, in `derivedColumns` order,
    /// then (`…Modified`) the modification date, then the id.
    static let updateAssetSQL = "UPDATE asset SET " + derivedColumns.map { $0 + " = ?, " }.joined() + "pending_vanish = 0, trashed_at = NULL WHERE id = ?"
    static let updateAssetModifiedSQL =
        "UPDATE asset SET " + derivedColumns.map { $0 + " = ?, " }.joined() + "modification_date = ?, pending_vanish = 0, trashed_at = NULL WHERE id = ?"

    /// An asset's stored resources as "type|path|hash", in order: what tells a `resources` change.
    static func resourceKeys(_ db: Database, _ id: Int64) throws -> [String] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT type, path, content_hash FROM resource WHERE asset_id = ? ORDER BY ord"), arguments: [id])
            .map { resourceKey(type: $0["type"], path: $0["path"], hash: $0["content_hash"]) }
    }

    static let insertResourceSQL = """
        INSERT INTO resource(asset_id, ord, type, path, original_filename, uti, file_size, content_hash, byte_offset, byte_length)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    static func insertResources(_ db: Database, _ id: Int64, _ i: AssetInput, using s: CommitStatements? = nil) throws {
        for (n, r) in i.asset.resources.enumerated() {
            let h = n < i.resourceHashes.count ? i.resourceHashes[n] : nil
            var b = try s?.binder(.insertResource) ?? Binder(db, insertResourceSQL)
            b.int(id)
            b.int(n)
            b.int(r.type.rawValue)
            b.text(r.path)
            b.text(r.originalFilename)
            b.text(r.uniformTypeIdentifier)
            b.int(r.fileSize.map { Int64($0) })
            b.text(h)
            b.int(r.byteRange.map { Int64($0.offset) })
            b.int(r.byteRange.map { Int64($0.length) })
            try b.run()
        }
    }

    /// A path compared and hashed by its bytes, as SQLite compares `file.path` (two names that differ only in
    /// Unicode normalization are two files; Swift's `String` equality would make them one key).
    struct FilePathKey: Hashable {
        let path: String
        init(_ path: String) { self.path = path }
        static func == (a: FilePathKey, b: FilePathKey) -> Bool {
            var (x, y) = (a.path, b.path)
            return x.withUTF8 { p in y.withUTF8 { q in p.count == q.count && (p.isEmpty || memcmp(p.baseAddress!, q.baseAddress!, p.count) == 0) } }
        }
        func hash(into h: inout Hasher) {
            var p = path
            p.withUTF8 { h.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    static func linkFiles(_ db: Database, assetID: Int64, _ i: AssetInput) throws {
        for path in i.resourcePaths { try linkFile(db, path: path, assetID: assetID) }
    }

    /// Sets the asset of the file row at `path`.
    static func linkFile(_ db: Database, path: String, assetID: Int64) throws {
        var b = try Binder(db, "UPDATE file SET asset_id = ? WHERE path = ?")
        b.int(assetID)
        b.text(path)
        try b.run()
    }

    /// Content-derived: the same files ingested on another machine get the same identifier.
    static func cloudIdentifier(_ i: AssetInput) -> String {
        guard let h = i.primaryHash, let colon = h.firstIndex(of: ":") else { return RandomUUID.string() + ":001:local" }
        // ASCII hex (every hash shoebox writes): the same text, built from the bytes.
        let hexBytes = h.utf8[h.utf8.index(after: colon)...]
        if hexBytes.count >= 32, hexBytes.allSatisfy({ $0 < 0x80 }) {
            var out: [UInt8] = []
            out.reserveCapacity(40)
            for (n, b) in hexBytes.prefix(32).enumerated() {
                if n == 8 || n == 12 || n == 16 || n == 20 { out.append(UInt8(ascii: "-")) }
                out.append(b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z") ? b - 0x20 : b)
            }
            out.append(contentsOf: ":001".utf8)
            return String(decoding: out, as: UTF8.self)
        }
        let hex = Array(h[h.index(after: colon)...].uppercased())
        guard hex.count >= 32 else { return RandomUUID.string() + ":001:local" }
        let s = String(hex)
        func part(_ a: Int, _ b: Int) -> String { String(s[s.index(s.startIndex, offsetBy: a)..<s.index(s.startIndex, offsetBy: b)]) }
        return "\(part(0, 8))-\(part(8, 12))-\(part(12, 16))-\(part(16, 20))-\(part(20, 32)):001"
    }
}

extension Catalog {
    /// Copies the catalog, consistently (SQLite's backup API, whatever the WAL holds), into a new file at
    /// `path` — for dry runs, which work on a copy and leave this catalog as it was.
    public func copy(to path: String) throws(CatalogError) {
        do {
            let target = try DatabaseQueue(path: path)
            try pool.backup(to: target)
            try target.close()
        } catch {
            throw CatalogError(.sql, "cannot copy catalog \(self.path) to \(path): \(error)")
        }
    }
}

/// A temporary copy of a catalog (or a new empty one) in a private temporary folder, removed with this
/// object: dry runs write there and leave the catalog itself as it was.
public final class ScratchCatalog: Sendable {
    public let catalog: Catalog
    /// The private folder the copy lives in.
    public let directory: String

    /// Copies `original` (nil: starts empty).
    public init(copying original: Catalog?) throws(CatalogError) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-dry-run-\(UUID().uuidString)").path
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CatalogError(.open, "cannot make a folder for a dry run's copy of the catalog: \(error.localizedDescription)")
        }
        directory = dir
        do {
            if let original { try original.copy(to: dir + "/catalog.sqlite") }
            catalog = try Catalog(path: dir + "/catalog.sqlite", mode: .readWrite(create: true))
        } catch {
            try? FileManager.default.removeItem(atPath: dir)
            throw error
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
}
