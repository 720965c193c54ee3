import Foundation
import GRDB

/// The facts an interrupted ingest had set aside for files moved during it (`moved_out`).
///
/// A renamed folder's old rows are deleted when the folder is committed, which comes before any walked
/// folder; their facts are held for the files met at the new paths (`MovedFacts` in the pipeline). A run
/// stopped in between (Ctrl-C, SIGTERM) writes what no file took over here, and the next ingest looks its
/// new files up here by version as among the stored files, so the files are not read again. A run that
/// completes clears the table. A run killed outright writes nothing: its next run probes those files.
extension Catalog {
    static let movedOutTable = """
        CREATE TABLE moved_out (
            path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, inode INTEGER NOT NULL,
            device INTEGER NOT NULL, content_hash TEXT, sample_hash TEXT, status TEXT NOT NULL,
            probe_version INTEGER NOT NULL, facts BLOB NOT NULL
        );
        CREATE INDEX moved_out_inode ON moved_out(inode);
        """

    /// A set-aside row: the file's stored row (path, version, hashes, status, probe version) and its facts.
    public struct MovedOutRow: Sendable, Equatable {
        public var row: FileRow
        public var facts: [UInt8]

        public init(row: FileRow, facts: [UInt8]) {
            self.row = row
            self.facts = facts
        }
    }

    /// Keeps `rows` for the next ingest (a row of a path kept before is replaced).
    public func saveMovedOut(_ rows: [MovedOutRow]) throws(CatalogError) {
        guard !rows.isEmpty else { return }
        try write { db in
            let insert = try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO moved_out(path, size, mtime_ns, inode, device, content_hash, sample_hash, status, probe_version, facts)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for m in rows {
                let r = m.row, f = r.fingerprint
                try insert.execute(arguments: [
                    r.path, f.size, f.mtimeNanoseconds, f.inode, f.device, r.contentHash, r.sampleHash, r.status, r.probeVersion ?? 0,
                    Data(m.facts),
                ])
            }
        }
    }

    /// The kept rows with one of `versions` (device, inode, size, modification time), at most `perInode` of each.
    public func movedOut(withVersions versions: some Collection<FileFingerprint>, perInode: Int = 8) throws(CatalogError) -> [MovedOutRow] {
        guard !versions.isEmpty else { return [] }
        return try read { db in
            let statement = try db.cachedStatement(
                sql: "SELECT path, size, mtime_ns, inode, device, content_hash, sample_hash, status, probe_version, facts FROM moved_out WHERE inode = ? LIMIT ?")
            var out: [MovedOutRow] = []
            try Self.rows(byInodeOf: versions, perInode: perInode, statement) { r, wanted in
                let fp = FileFingerprint(size: r[1], mtimeNanoseconds: r[2], inode: r[3], device: r[4])
                guard wanted.contains(fp) else { return }
                let row = FileRow(
                    path: r[0], root: "", dir: "", fingerprint: fp, contentHash: r[5], kind: "", role: "", status: r[7], lastError: nil,
                    facts: nil, probeVersion: r[8], sampleHash: r[6])
                let facts = try r.withUnsafeData(atIndex: 9) { d in d.map { [UInt8]($0) } ?? [] }
                out.append(MovedOutRow(row: row, facts: facts))
            }
            return out
        }
    }

    /// Forgets the kept rows (a completed run: its moves are settled). No write when there are none.
    public func clearMovedOut() throws(CatalogError) {
        guard try read({ db in try Self.holdsMovedOut(db) }) else { return }
        try write { db in try db.execute(sql: "DELETE FROM moved_out") }
    }

    /// Whether an interrupted run kept rows.
    public func holdsMovedOut() throws(CatalogError) -> Bool {
        try read { db in try Self.holdsMovedOut(db) }
    }

    static func holdsMovedOut(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM moved_out)") ?? false
    }
}
