import GRDB

extension ChangeRecord {
    /// The deletion of an asset merged into the one its file moved from (`Catalog.adoptMovedAssets`): the
    /// move is that asset's update, not a deletion.
    public var isMerge: Bool { changeType == "deleted" && properties.contains(Catalog.mergedProperty) }
}

extension Catalog {
    /// The change property of an asset inserted earlier in a run and then found to be a moved file: its row
    /// was merged into the asset it moved from (`adoptMovedAssets`).
    public static let mergedProperty = "merged"

    /// The assets `runID` inserted, from its records after change number `token` (the history's end when the
    /// run began): one range of the history's index, where a query per merged asset for the run that inserted
    /// it read the history back from its end each time (2,000 files moved into a folder walked first: 1.4 s).
    public func identifiersInserted(byRun runID: Int64, after token: Int64) throws(CatalogError) -> Set<String> {
        try read { db in
            Set(
                try String.fetchAll(
                    db,
                    sql: "SELECT local_identifier FROM change WHERE object_type = 'asset' AND token > ? AND change_type = 'inserted' AND run_id = ?",
                    arguments: [token, runID]))
        }
    }

    /// Files moved into a folder that was committed before the folder they left (which still exists, so it is
    /// walked in its turn): when the new folder was committed, the old asset was not pending vanish yet, so the
    /// file was inserted as a new asset; only the old folder's commit, later, left the old asset pending.
    /// Here, before pending assets are trashed, each such pair is joined the way a commit joins a moved file
    /// to a vanished asset (same primary content, no file of the old asset left outside the new one's folder;
    /// inserted by this run or by an interrupted one it completes):
    /// the old asset takes the new one's files, resources and derived columns (what the user changed stays
    /// the user's) and keeps its identifiers, dates, albums and history; the new asset is removed. Records:
    /// the old asset `updated` (the properties that changed), the new one `deleted` with `merged`.
    static func adoptMovedAssets(_ db: Database, runID: Int64) throws -> [ChangeRecord] {
        // The pending assets' ids and primary contents (their whole rows only for the few adopted).
        var pending: [(id: Int64, hash: String)] = []
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT a.id, r.content_hash FROM asset a JOIN resource r ON r.asset_id = a.id AND r.ord = 0
                WHERE a.pending_vanish = 1 AND r.content_hash IS NOT NULL ORDER BY a.id
                """)
        while let r = try rows.next() { pending.append((r[0], r[1])) }
        guard !pending.isEmpty else { return [] }
        // The assets this run inserted, and the interrupted or killed runs since the last finished one, whose
        // work this run completes (read once, only when something vanished).
        let inserted = Set(
            try String.fetchAll(
                db,
                sql: """
                    SELECT local_identifier FROM change WHERE object_type = 'asset' AND change_type = 'inserted' AND run_id <= ?
                        AND run_id > (SELECT COALESCE(MAX(id), 0) FROM ingest_run WHERE status = 'finished' AND id < ?)
                    """,
                arguments: [runID, runID]))
        guard !inserted.isEmpty else { return [] }
        // The candidates of each content are read once (id, identifier, folder), in id order, and the pending
        // assets of that content take them in turn, each the first it may: a query of every asset of the
        // content per pending asset (whole rows) was quadratic in the copies of a file — 5,000 copies of one
        // photo moved into a folder walked first: minutes (Benchmarks/README.md, session 32). A candidate has
        // one primary content, so the contents are independent and the pairs those of the old order.
        var byContent: [String: [Int64]] = [:]
        var contents: [String] = []
        for p in pending {
            if byContent[p.hash] == nil { contents.append(p.hash) }
            byContent[p.hash, default: []].append(p.id)
        }
        var pairs: [(old: Int64, new: Int64)] = []
        for h in contents {
            var candidates: [(id: Int64, dir: String)] = []
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT a.id, a.local_identifier, a.dir FROM asset a JOIN resource r ON r.asset_id = a.id AND r.ord = 0
                        WHERE r.content_hash = ? AND a.pending_vanish = 0 AND a.trashed_at IS NULL ORDER BY a.id
                        """), arguments: [h])
            while let r = try rows.next() {
                let lid: String = r[1]
                if inserted.contains(lid) { candidates.append((r[0], r[2])) }
            }
            // Each takes the first candidate not taken, so the taken ones are a prefix.
            var next = 0
            for oldID in byContent[h]! where next < candidates.count {
                // The old asset must have no file outside the new one's folder.
                let new = candidates[next]
                let elsewhere =
                    try Int.fetchOne(
                        db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM file WHERE asset_id = ? AND dir != ?)"),
                        arguments: [oldID, new.dir]) ?? 0
                guard elsewhere == 0 else { continue }
                next += 1
                pairs.append((oldID, new.id))
            }
        }
        var records: [ChangeRecord] = []
        for (oldID, newID) in pairs.sorted(by: { $0.old < $1.old }) {
            let fetch = try db.cachedStatement(sql: "SELECT * FROM asset WHERE id = ?")
            guard let old = try Row.fetchOne(fetch, arguments: [oldID]), let new = try Row.fetchOne(fetch, arguments: [newID]) else { continue }
            records.append(contentsOf: try adopt(db, old: old, new: new, runID: runID))
        }
        return records
    }

    /// Moves `new`'s files, resources and derived columns onto `old` and removes `new` (see `adoptMovedAssets`).
    private static func adopt(_ db: Database, old: Row, new: Row, runID: Int64) throws -> [ChangeRecord] {
        let oldID: Int64 = old["id"]
        let newID: Int64 = new["id"]
        let userProperties = Set(((old["user_properties"] as String?) ?? "").split(separator: ",").map(String.init))
        let kept = Set(userColumns.filter { userProperties.contains($0.key) }.flatMap(\.value))
        let columns = derivedColumns.filter { !kept.contains($0) }
        var props = Set<String>()
        for c in columns where c != "reasons" && (old[c] as DatabaseValue) != (new[c] as DatabaseValue) {
            if let p = propertyNames[c] { props.insert(p) }
        }
        if try resourceKeys(db, oldID) != resourceKeys(db, newID) { props.insert("resources") }
        if (old["trashed_at"] as String?) != nil { props.insert("isTrashed") }
        var arguments: [DatabaseValue] = columns.map { new[$0] as DatabaseValue }
        var sets = columns.map { "\($0) = ?" } + ["pending_vanish = 0", "trashed_at = NULL"]
        if !props.isEmpty {
            sets.append("modification_date = ?")
            arguments.append(now().databaseValue)
        }
        arguments.append(oldID.databaseValue)
        try db.execute(
            sql: "UPDATE asset SET \(sets.joined(separator: ", ")) WHERE id = ?", arguments: StatementArguments(arguments))
        try db.execute(sql: "DELETE FROM resource WHERE asset_id = ?", arguments: [oldID])
        try db.execute(sql: "UPDATE resource SET asset_id = ? WHERE asset_id = ?", arguments: [oldID, newID])
        try db.execute(sql: "UPDATE file SET asset_id = ? WHERE asset_id = ?", arguments: [oldID, newID])
        try db.execute(sql: "DELETE FROM asset WHERE id = ?", arguments: [newID])
        var records = [try record(db, runID, "asset", new["local_identifier"], "deleted", [mergedProperty])]
        if !props.isEmpty { records.append(try record(db, runID, "asset", old["local_identifier"], "updated", props.sorted())) }
        return records
    }
}
