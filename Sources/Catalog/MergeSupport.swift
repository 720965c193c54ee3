import Foundation
import GRDB

/// What `shoebox merge` does with each table of a catalog (docs/scale.md).
///
/// - `merged`: rows are copied from the shard catalogs (the per-file work: facts, file rows, error rows);
///   `file`'s columns are copied generically (every column both catalogs have), so a column added by a later
///   migration travels without a change here.
/// - `derived`: recomputed in the merged catalog from the merged rows (assembly per folder, then organize over
///   the whole library), never copied: shard ids are not trusted.
/// - `local`: each catalog's own (its runs, its history and tokens, its settings).
///
/// A table that is in none of these is an error the tests catch (`MergeTableTests`): a branch that adds a
/// table must say here whether merge copies or derives it.
public enum MergeTableRole: String, Sendable {
    case merged, derived, local
}

public enum MergeTables {
    public static let roles: [String: MergeTableRole] = [
        "file": .merged, "file_facts": .merged, "error": .merged,
        "asset": .derived, "resource": .derived, "collection": .derived, "collection_membership": .derived,
        "collection_list": .derived, "folder_digest": .derived, "organize_input": .derived,
        "organize_folder": .derived, "organize_moment": .derived, "organize_moment_item": .derived,
        "organize_pending": .derived, "organize_place": .derived,
        "meta": .local, "ingest_run": .local, "change": .local, "grdb_migrations": .local, "sqlite_sequence": .local,
        "moved_out": .local,
    ]

    /// `file` columns that are the merged catalog's own (row id, links to its assets, its run ids) or no
    /// longer used (the classification of schemas before 7).
    static let ownFileColumns: Set<String> = ["id", "asset_id", "first_run", "last_run", "classified", "classification"]
}

/// One file row as `shoebox merge` compares and copies it: the columns `FileRow` knows, plus every other
/// column both catalogs have (`extra`).
public struct MergeFile: Sendable, Equatable {
    public var row: FileRow
    var extra: [String: DatabaseValue]
}

extension Catalog {
    /// The tables of this catalog (`sqlite_master`, type `table`), in name order.
    public func tableNames() throws(CatalogError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") }
    }

    /// The columns of the `file` table.
    public func fileColumnNames() throws(CatalogError) -> [String] {
        try read { db in try Row.fetchAll(db, sql: "PRAGMA table_info(file)").map { $0["name"] as String } }
    }

    /// The `file` columns merge copies beyond those `FileRow` holds, given the other catalog's columns.
    public static func extraFileColumns(_ a: [String], _ b: [String]) -> [String] {
        let known = Set(fileColumnNames)
        return Set(a).intersection(b).subtracting(known).subtracting(MergeTables.ownFileColumns).sorted()
    }

    /// The file rows of some folders (without facts), with the `extra` columns, by folder.
    public func mergeFiles(inDirectories dirs: [String], extraColumns: [String]) throws(CatalogError) -> [String: [MergeFile]] {
        guard !dirs.isEmpty else { return [:] }
        return try read { db in
            var out: [String: [MergeFile]] = [:]
            let marks = Array(repeating: "?", count: dirs.count).joined(separator: ",")
            let cols = ([Self.fileColumns] + extraColumns.map { "\"\($0)\"" }).joined(separator: ", ")
            for r in try Row.fetchAll(
                db, sql: "SELECT \(cols) FROM file WHERE dir IN (\(marks)) ORDER BY path", arguments: StatementArguments(dirs))
            {
                var extra: [String: DatabaseValue] = [:]
                for c in extraColumns { extra[c] = r[c] as DatabaseValue }
                let f = MergeFile(row: Self.fileRow(r), extra: extra)
                out[f.row.dir, default: []].append(f)
            }
            return out
        }
    }

    /// The error rows that describe files as they are now, by the folder holding the path: for each path, the
    /// rows of the last run that recorded an error for it, unless its file row was written by a later run (the
    /// file was read again and is fine now).
    public func currentErrors() throws(CatalogError) -> [String: [ErrorInput]] {
        try read { db in
            var out: [String: [ErrorInput]] = [:]
            for r in try Row.fetchAll(
                db,
                sql: """
                    SELECT e.path, e.stage, e.reason, e.severity FROM error e
                    WHERE e.run_id = (SELECT MAX(x.run_id) FROM error x WHERE x.path = e.path)
                        AND NOT EXISTS (SELECT 1 FROM file f WHERE f.path = e.path AND f.last_run > e.run_id)
                    ORDER BY e.path, e.id
                    """)
            {
                let e = ErrorInput(
                    path: r["path"], stage: r["stage"], reason: r["reason"],
                    severity: ErrorSeverity(rawValue: r["severity"]) ?? .failed)
                out[Self.parentFolder(e.path), default: []].append(e)
            }
            return out
        }
    }

    static func parentFolder(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The roots of the latest run that had some (a shard's roots, even when its shard holds no file).
    public func latestRunRoots() throws(CatalogError) -> [String] {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM ingest_run WHERE roots != '' ORDER BY id DESC LIMIT 1").map(Self.runInfo)?
                .roots ?? []
        }
    }

    /// Applies one folder merged from a shard in one transaction: the folder's commit (file rows with their
    /// facts, vanished files, re-derived assets), the `extra` file columns, and its error rows replaced by
    /// the shard's (`replacing`: the paths whose earlier error rows go).
    public func commitMergedFolder(_ c: FolderCommit, files: [MergeFile], errors: [ErrorInput], replacing: Set<String>)
        throws(CatalogError)
        -> [ChangeRecord]
    {
        try write { db in
            var c = c
            c.errors = []
            let records = try Self.commitFolder(db, c)
            for f in files where !f.extra.isEmpty {
                let cols = f.extra.keys.sorted()
                try db.execute(
                    sql: "UPDATE file SET \(cols.map { "\"\($0)\" = ?" }.joined(separator: ", ")) WHERE path = ?",
                    arguments: StatementArguments(cols.map { f.extra[$0]! } + [f.row.path.databaseValue]))
            }
            for p in replacing.union(errors.map(\.path)).sorted() {
                try db.cachedStatement(sql: "DELETE FROM error WHERE path = ?").execute(arguments: [p])
            }
            for e in errors {
                try db.cachedStatement(
                    sql: "INSERT INTO error(run_id, path, stage, reason, at, severity) VALUES (?, ?, ?, ?, ?, ?)"
                )
                .execute(arguments: [c.runID, e.path, e.stage, e.reason, Self.now(), e.severity.rawValue])
            }
            try Self.fitCheckpointInterval(db)
            return records
        }
    }
}
