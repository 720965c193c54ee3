import Foundation
import GRDB
import PhotoModel

/// The organize stage's inputs as it last read them, one row per live asset (`organize_input`), so that the
/// next organize knows which assets changed since — and what they were before: the folder a moved asset
/// left, the day and camera a re-dated one had (docs/architecture.md, organize).
public struct OrganizeChanges: Sendable {
    /// The changed assets' rows as the last organize read them (absent: assets new since).
    public var before: [OrganizeRow] = []
    /// The changed assets' rows now (absent: assets trashed or deleted since).
    public var after: [OrganizeRow] = []
    /// The changed assets' rows (those deleted since included).
    public var assetIDs: [Int64] = []
    /// The last row of `organize_pending` when they were read: recording the inputs clears the rows up to it.
    public var pendingThrough: Int64 = 0
    public var isEmpty: Bool { before.isEmpty && after.isEmpty }

    /// The changed assets that were live before and are now with rows `same` holds equal, by local identifier
    /// (with their row ids): changes a step that reads only what `same` compares does not see (a renamed
    /// folder's assets, to places and moments).
    public func unchanged(where same: (OrganizeRow, OrganizeRow) -> Bool) -> [String: Int64] {
        var was: [String: OrganizeRow] = [:]
        for r in before { was[r.localIdentifier] = r }
        var out: [String: Int64] = [:]
        for r in after where was[r.localIdentifier].map({ same($0, r) }) == true { out[r.localIdentifier] = r.assetID }
        return out
    }

    /// These changes without the rows of the assets named (`assetIDs` and `pendingThrough` as they are).
    public func removing(_ localIdentifiers: Set<String>) -> OrganizeChanges {
        guard !localIdentifiers.isEmpty else { return self }
        var out = self
        out.before.removeAll { localIdentifiers.contains($0.localIdentifier) }
        out.after.removeAll { localIdentifiers.contains($0.localIdentifier) }
        return out
    }
}

extension Catalog {
    static let organizeInputTable = """
        CREATE TABLE IF NOT EXISTS organize_input (
            asset_id INTEGER PRIMARY KEY, local_identifier TEXT NOT NULL, root TEXT NOT NULL, primary_path TEXT NOT NULL,
            filename TEXT NOT NULL, creation_date TEXT, creation_offset INTEGER, make TEXT, model TEXT, burst_identifier TEXT,
            represents_burst INTEGER NOT NULL, burst_selection_types INTEGER NOT NULL, latitude REAL, longitude REAL,
            creation_date_source TEXT, dir TEXT NOT NULL
        )
        """

    /// The meta key set once `organize_input` holds every live asset as a complete organize left it.
    static let organizeInputMetaKey = "organize_inputs"

    /// The meta key set while `organize_pending` names every asset written since `organize_input` was
    /// recorded (`organize_pending` below).
    static let organizePendingMetaKey = "organize_pending"

    /// The organize stage's record of the assets written since it last recorded its inputs: triggers on `asset`
    /// add a row for every asset inserted, deleted, or updated in a column organize reads (`organizeColumns`,
    /// `trashed_at`), whether or not the value changed. So the next organize compares those assets with their
    /// record rather than every asset (one join over the library: 0.08 s at 71k assets for 100 changed), and
    /// after recording its inputs clears the rows it read (`seq` up to the last it read) and those of the
    /// assets it recorded. Kept, and trusted, once an organize has left it complete (`meta`
    /// `organize_pending`): before, the triggers add nothing (a first ingest, whose organize is whole, or a
    /// shard catalog, which is never organized, would only grow it), and the next organize compares every
    /// asset once.
    static let organizePendingTable = """
        CREATE TABLE organize_pending (seq INTEGER PRIMARY KEY, asset_id INTEGER NOT NULL);
        CREATE TRIGGER organize_pending_insert AFTER INSERT ON asset WHEN \(pendingKept)
            BEGIN INSERT INTO organize_pending(asset_id) VALUES (new.id); END;
        CREATE TRIGGER organize_pending_delete AFTER DELETE ON asset WHEN \(pendingKept)
            BEGIN INSERT INTO organize_pending(asset_id) VALUES (old.id); END;
        CREATE TRIGGER organize_pending_update AFTER UPDATE OF \(organizeColumns), trashed_at ON asset WHEN \(pendingKept)
            BEGIN INSERT INTO organize_pending(asset_id) VALUES (new.id); END;
        """
    static let pendingKept = "EXISTS (SELECT 1 FROM meta WHERE key = '\(organizePendingMetaKey)')"

    /// The assets whose organize inputs differ from what the last organize read (new, trashed, deleted,
    /// or any input column changed); nil when there is no record of a complete organize to compare with.
    /// Among the assets written since (`organize_pending`), or every asset when that record is not trusted.
    /// Also nil when `wholeAt` is given and the changed assets are that share of the recorded ones or more
    /// (before their rows are read): an organize of the whole is then as quick, and holds no rows of them.
    public func organizeChanges(wholeAt share: Double? = nil) throws(CatalogError) -> OrganizeChanges? {
        guard try metaValue(Self.organizeInputMetaKey) == "1" else { return nil }
        return try read { db in
            let columns = Self.organizeColumns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            let differs = columns.map { "a.\($0) IS NOT s.\($0)" }.joined(separator: " OR ")
            let pending = try Self.metaValue(db, Self.organizePendingMetaKey) == "1"
            let seq = try Int64.fetchOne(db, sql: "SELECT ifnull(MAX(seq), 0) FROM organize_pending") ?? 0
            let written = pending ? "JOIN (SELECT DISTINCT asset_id FROM organize_pending) p ON p.asset_id = " : nil
            var ids: [Int64] = try Int64.fetchAll(
                db,
                sql: """
                    SELECT a.id FROM asset a \(written.map { $0 + "a.id" } ?? "") LEFT JOIN organize_input s ON s.asset_id = a.id
                    WHERE a.trashed_at IS NULL AND (s.asset_id IS NULL OR \(differs))
                    UNION
                    SELECT s.asset_id FROM organize_input s \(written.map { $0 + "s.asset_id" } ?? "") LEFT JOIN asset a ON a.id = s.asset_id
                    WHERE a.id IS NULL OR a.trashed_at IS NOT NULL
                    """)
            if let share, !ids.isEmpty, Double(ids.count) >= share * Double(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM organize_input") ?? 0) {
                return nil
            }
            ids.sort()
            var out = OrganizeChanges()
            out.assetIDs = ids
            out.pendingThrough = seq
            var shared = StringInterner()
            let columnList = Self.organizeColumns
            for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
                let list = chunk.map(String.init).joined(separator: ",")
                // The record has no burst reason (read as none), and each row is read with its asset's id, last.
                let before = try Row.fetchCursor(db, sql: "SELECT \(columnList), 0, asset_id FROM organize_input WHERE asset_id IN (\(list))")
                let after = try Row.fetchCursor(
                    db, sql: "SELECT \(Self.organizeRowColumns), id FROM asset WHERE trashed_at IS NULL AND id IN (\(list))")
                for (cursor, rows) in [(before, \OrganizeChanges.before), (after, \.after)] {
                    while let r = try cursor.next() {
                        var row = OrganizeRow(row: r, shared: &shared)
                        row.assetID = r[r.count - 1]
                        out[keyPath: rows].append(row)
                    }
                }
            }
            return out
        }
    }

    /// Whether organize has work left whatever an ingest finds: its record is not complete (an organize
    /// stopped half-way), or assets were written since it was recorded (`organize_pending`: a `shoebox change`
    /// of a date, a position or Recently Deleted between ingests).
    public func organizeIsBehind() throws(CatalogError) -> Bool {
        try read { db in
            try Self.metaValue(db, Self.organizeInputMetaKey) != "1"
                || (try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM organize_pending)") ?? false)
        }
    }

    /// Records the organize inputs of every live asset (`all`) or of the assets named (by local
    /// identifier), and marks the record complete; the assets written up to `pendingThrough` and those
    /// recorded now are no longer pending.
    public func recordOrganizeInputs(_ localIdentifiers: [String]? = nil, pendingThrough: Int64? = nil) throws(CatalogError) {
        try write { db in
            let select = "SELECT id, \(Self.organizeColumns) FROM asset WHERE trashed_at IS NULL"
            let insert = "INSERT OR REPLACE INTO organize_input(asset_id, \(Self.organizeColumns)) "
            if let ids = localIdentifiers {
                // Two statements for the lot, not two per asset: a mass change (a folder of 10,000 files deleted,
                // or renamed) made 20,000 statement runs.
                let list = Self.jsonArray(ids)
                try db.execute(
                    sql: "DELETE FROM organize_input WHERE asset_id IN (SELECT id FROM asset WHERE local_identifier IN (SELECT value FROM json_each(?)))",
                    arguments: [list])
                try db.execute(sql: insert + select + " AND local_identifier IN (SELECT value FROM json_each(?))", arguments: [list])
                // Assets deleted outright (`--prune`) have no row left to name them: among those written since
                // (a deletion is one), or every recorded one while that record is not trusted.
                let pending = try Self.metaValue(db, Self.organizePendingMetaKey) == "1"
                try db.execute(
                    sql: "DELETE FROM organize_input WHERE "
                        + (pending ? "asset_id IN (SELECT asset_id FROM organize_pending) AND " : "") + "asset_id NOT IN (SELECT id FROM asset)")
                try db.execute(sql: "DELETE FROM organize_pending WHERE seq <= ?", arguments: [pendingThrough ?? 0])
                try db.execute(
                    sql: """
                        DELETE FROM organize_pending WHERE asset_id IN (SELECT id FROM asset WHERE local_identifier IN (SELECT value FROM json_each(?)))
                            OR asset_id NOT IN (SELECT id FROM asset)
                        """, arguments: [list])
            } else {
                try Self.writeAllOrganizeInputRows(db)
            }
            try Self.markInputsRecorded(db)
        }
    }

    /// Records the organize inputs of every live asset without marking the record complete (a full organize
    /// writes them once the bursts are stored, on a thread of its own, and marks them complete at its end:
    /// `markOrganizeInputsComplete`).
    public func recordAllOrganizeInputRows() throws(CatalogError) {
        try write { db in try Self.writeAllOrganizeInputRows(db) }
    }

    static func writeAllOrganizeInputRows(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM organize_input")
        try db.execute(sql: "INSERT INTO organize_input(asset_id, \(organizeColumns)) SELECT id, \(organizeColumns) FROM asset WHERE trashed_at IS NULL")
        // Every asset is recorded as it is: none is pending any more.
        try db.execute(sql: "DELETE FROM organize_pending")
    }

    /// Marks the recorded organize inputs complete (after `recordAllOrganizeInputRows`), and what was
    /// written since trusted to be pending.
    public func markOrganizeInputsComplete() throws(CatalogError) {
        try write { db in try Self.markInputsRecorded(db) }
    }

    /// The record of the inputs is complete, and the assets written since are kept (`organize_pending`).
    static func markInputsRecorded(_ db: Database) throws {
        try setMetaValue(db, organizeInputMetaKey, "1")
        try setMetaValue(db, organizePendingMetaKey, "1")
    }

    /// Forgets that the recorded inputs are complete: a full organize starts so, and only its end records
    /// them again, so one that stops half-way (rules or gazetteer changed, its outputs half written) is
    /// followed by another full one, not an incremental one that trusts the old record.
    public func forgetOrganizeInputs() throws(CatalogError) {
        try setMetaValue(Self.organizeInputMetaKey, nil)
    }

    /// The catalog directories holding live assets, with how many each holds, in order.
    /// Read through a cursor, not fetched as a GRDB `Row` per folder first (21.7k at 100k files, while the
    /// places step reads its first range beside it).
    public func organizeDirectories() throws(CatalogError) -> [(dir: String, assets: Int)] {
        try read { db in
            var out: [(dir: String, assets: Int)] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT dir, COUNT(*) FROM asset WHERE trashed_at IS NULL GROUP BY dir ORDER BY dir")
            while let r = try rows.next() { out.append((r[0], r[1])) }
            return out
        }
    }

    /// How many assets are live (not in Recently Deleted): a count from an index, not a scan of the rows.
    public func liveAssetCount() throws(CatalogError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM asset WHERE trashed_at IS NULL") ?? 0 }
    }

    /// The directories of the live assets carrying any of these burst identifiers.
    public func directories(withBurstIdentifiers ids: some Collection<String>) throws(CatalogError) -> Set<String> {
        try read { db in
            var out = Set<String>()
            let s = try db.cachedStatement(
                sql: "SELECT DISTINCT dir FROM asset WHERE burst_identifier = ? AND trashed_at IS NULL")
            for id in ids { for d in try String.fetchAll(s, arguments: [id]) { out.insert(d) } }
            return out
        }
    }

    /// The capture days (`YYYY-MM-DD`, the date's first ten characters as written) of the live assets, in
    /// order, with how many assets each has; undated assets are left out.
    public func organizeDays() throws(CatalogError) -> [(day: String, assets: Int)] {
        try read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT substr(creation_date, 1, 10) AS d, COUNT(*) FROM asset WHERE trashed_at IS NULL AND creation_date IS NOT NULL GROUP BY d ORDER BY d"
            ).map { ($0[0], $0[1]) }
        }
    }

    /// What the moment segmenter needs of every dated live asset: the local date the places step gave it
    /// (else its capture date), its position and place name, read after the places are stored. Delivered in
    /// row order, each with its place in the order of the assets' local identifiers (`AssetOrder`), which the
    /// segmenter keeps for assets taken at the same instant; the identifiers themselves are not read (a string
    /// per asset is memory a large library does not need to spend here). Read in identifier order, through
    /// their index, each row was a lookup of its own on pages all over the table (0.11–0.13 s at 71k assets
    /// against 0.03 s for the table in row order and 4 ms for the index alone; Benchmarks/README.md, session
    /// 30). `expecting` is told first how many rows can follow at most (every asset, trashed and undated ones
    /// too: an exact count was a scan of the table of its own), so a caller can size its array once.
    /// Returns the order, read in the same transaction as the rows.
    @discardableResult
    public func momentInputs(
        expecting: (Int) -> Void = { _ in },
        _ body: (_ assetID: Int64, _ position: Int, _ date: AssetDate, _ latitude: Double?, _ longitude: Double?, _ place: String?) -> Void
    )
        throws(CatalogError) -> AssetOrder
    {
        try read { db in
            var places = StringInterner()
            let order = AssetOrder(rows: try Int64.fetchAll(db, sql: "SELECT id FROM asset ORDER BY local_identifier"))
            expecting(order.rows.count)
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT id, coalesce(local_date, creation_date),
                        CASE WHEN local_date IS NULL THEN creation_offset ELSE local_offset END, latitude, longitude, place_name
                    FROM asset WHERE trashed_at IS NULL AND (local_date IS NOT NULL OR creation_date IS NOT NULL)
                    ORDER BY id
                    """)
            while let r = try rows.next() {
                let id: Int64 = r[0]
                guard let position = order.position(ofRow: id) else { continue }  // not in this read: cannot be
                body(id, position, AssetDate(local: r[1], offsetSeconds: r[2]), r[3], r[4], places.intern(r[5] as String?))
            }
            return order
        }
    }

    /// The local identifiers of these assets (catalog rows), in the same order; nil for a row that is gone.
    public func localIdentifiers(ofRows rows: [Int64]) throws(CatalogError) -> [String?] {
        guard !rows.isEmpty else { return [] }
        return try read { db in
            let statement = try db.cachedStatement(sql: "SELECT local_identifier FROM asset WHERE id = ?")
            return try rows.map { r in try String.fetchOne(statement, arguments: [r]) }
        }
    }
}

extension Catalog {
    /// The live assets in these directories (`asset.dir`), in capture order.
    public func organizeRows(inDirectories dirs: some Collection<String>) throws(CatalogError) -> [OrganizeRow] {
        guard !dirs.isEmpty else { return [] }
        return try organizeRows(where: "dir IN (SELECT value FROM json_each(?))", arguments: [Self.jsonArray(dirs)])
    }

    /// The live assets whose capture date as written lies in [`from`, `before`) (texts compared as SQLite
    /// does; `YYYY-MM-DD` bounds take whole days), in capture order.
    public func organizeRows(datedFrom from: String, before: String) throws(CatalogError) -> [OrganizeRow] {
        try organizeRows(where: "creation_date >= ? AND creation_date < ?", arguments: [from, before])
    }

    /// Every live asset's root, primary path and row id, by root, then directory, then path: one directory's
    /// assets come one after another, so a caller can hold one directory's paths at a time.
    public func assetPaths(_ body: (_ root: String, _ primaryPath: String, _ assetID: Int64) throws -> Void)
        throws(CatalogError)
    {
        try read { db in
            var roots = StringInterner()
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT root, primary_path, id FROM asset WHERE trashed_at IS NULL ORDER BY root, dir, primary_path"
            )
            while let r = try rows.next() { try body(roots.intern(r[0] as String), r[1], r[2]) }
        }
    }

    static func jsonArray(_ values: some Collection<String>) -> String {
        // The hand-written writer (`JSONSerialization` cost ~30,000 instructions a string).
        var out: [UInt8] = []
        AssetRowWriter.strings(Array(values), into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

/// The catalog's assets in the order of their local identifiers (bytewise: they are ASCII, so as Swift orders
/// them), by row: what orders assets of the same instant the same way in every catalog, whatever rows an
/// ingest, a merge or a rederive gave them. Every asset, trashed ones too.
public struct AssetOrder: Sendable {
    /// `rows[k]`: the row of the k-th asset in local identifier order.
    public let rows: [Int64]
    /// Positions in `rows`, sorted by the row they hold.
    private let byRow: [Int32]

    public init(rows: [Int64]) {
        self.rows = rows
        byRow = (0..<Int32(rows.count)).sorted { rows[Int($0)] < rows[Int($1)] }
    }

    /// The place of this row's asset in local identifier order; nil for a row not among them.
    public func position(ofRow row: Int64) -> Int? {
        var low = 0, high = byRow.count
        while low < high {
            let mid = (low + high) / 2
            if rows[Int(byRow[mid])] < row { low = mid + 1 } else { high = mid }
        }
        return low < byRow.count && rows[Int(byRow[low])] == row ? Int(byRow[low]) : nil
    }
}
