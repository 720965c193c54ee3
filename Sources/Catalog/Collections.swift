import Foundation
import GRDB
import PhotoModel

/// What the organize stage needs to know of each asset.
public struct OrganizeRow: Sendable {
    public var localIdentifier: String
    public var root: String
    public var primaryPath: String
    public var filename: String
    public var creationDate: AssetDate?
    public var make: String?
    public var model: String?
    /// The burst identifier the files give (Apple's BurstUUID, Google's BurstID): what the burst grouper
    /// reads, and what follows a burst across folders.
    public var burstIdentifier: String?
    public var representsBurst: Bool
    public var burstSelectionTypes: UInt
    public var latitude: Double?
    public var longitude: Double?
    /// Where the date came from (`… photoTakenTime (UTC)` marks a UTC instant rather than a wall clock).
    public var creationDateSource: String? = nil

    /// The catalog's directory of the asset (`asset.dir`): what organize recomputes bursts by.
    public var dir: String = ""

    /// The burst identifier organize stored last (`asset.burst_identifier`: the set's, found by the files'
    /// identifier, by name or by time), or, for an asset no organize has seen, the files'.
    public var storedBurstIdentifier: String? = nil
    /// Whether organize stored a reason for the asset's set (`asset.burst_reason`).
    public var hasBurstReason: Bool = false

    /// The asset's row id, where it was read with the row (`Catalog.organizeChanges`), else 0.
    public var assetID: Int64 = 0

    /// The folder of the asset's primary file: the root and the path's directory.
    public var folder: String { Self.folder(root: root, primaryPath: primaryPath) }

    /// `root + "/" + primaryPath.split(separator: "/").dropLast().joined(separator: "/")`, without the split
    /// when the path has no empty component (no leading, doubled or trailing slash).
    static func folder(root: String, primaryPath: String) -> String {
        guard PathText.hasNoEmptyComponent(primaryPath) else {
            return root + "/" + primaryPath.split(separator: "/").dropLast().joined(separator: "/")
        }
        return root + "/" + (PathText.parentAndName(primaryPath).parent.map(String.init) ?? "")
    }

    /// The local calendar day of the capture date as written (`YYYY-MM-DD`), nil without a date.
    public var day: String? { creationDate.map { String($0.local.prefix(10)) } }
}

extension OrganizeRow {
    init(row r: Row, shared: inout StringInterner) {
        self.init(
            localIdentifier: r[0], root: shared.intern(r[1] as String, slot: 1), primaryPath: r[2], filename: r[3],
            creationDate: (r[4] as String?).map { AssetDate(local: $0, offsetSeconds: r[5]) },
            make: shared.intern(r[6] as String?, slot: 2), model: shared.intern(r[7] as String?, slot: 3), burstIdentifier: r[8],
            representsBurst: r[9], burstSelectionTypes: UInt(r[10] as Int64), latitude: r[11], longitude: r[12],
            creationDateSource: shared.intern(r[13] as String?, slot: 4), dir: shared.intern(r[14] as String, slot: 5),
            storedBurstIdentifier: r[15], hasBurstReason: r.count > 16 ? r[16] : false)
    }
}

/// A collection to store: a moment, an album or a smart album.
public struct CollectionSpec: Sendable, Equatable {
    public var localIdentifier: String
    public var type: AssetCollectionType
    public var subtype: AssetCollectionSubtype
    public var title: String
    public var startDate: String?
    public var endDate: String?
    public var latitude: Double?
    public var longitude: Double?
    /// Smart albums: the predicate text (evaluated when read) and its arguments.
    public var predicate: String?
    /// The members' asset row ids (`asset.id`), in order: eight bytes each where a local identifier costs
    /// some eighty, and no map from identifiers to rows is built to store them (a library's albums and
    /// moments together name every asset).
    public var members: [Int64]

    public init(
        localIdentifier: String, type: AssetCollectionType, subtype: AssetCollectionSubtype, title: String, startDate: String? = nil,
        endDate: String? = nil, latitude: Double? = nil, longitude: Double? = nil, predicate: String? = nil, members: [Int64] = []
    ) {
        self.localIdentifier = localIdentifier
        self.type = type
        self.subtype = subtype
        self.title = title
        self.startDate = startDate
        self.endDate = endDate
        self.latitude = latitude
        self.longitude = longitude
        self.predicate = predicate
        self.members = members
    }
}

/// A collection list to store (moment clusters and years, folders) with its children's identifiers.
public struct CollectionListSpec: Sendable, Equatable {
    public var localIdentifier: String
    public var type: CollectionListType
    public var subtype: CollectionListSubtype
    public var title: String
    public var startDate: String?
    public var endDate: String?
    /// Child collections' or lists' local identifiers, in order.
    public var children: [String]

    public init(
        localIdentifier: String, type: CollectionListType, subtype: CollectionListSubtype, title: String, startDate: String? = nil,
        endDate: String? = nil, children: [String]
    ) {
        self.localIdentifier = localIdentifier
        self.type = type
        self.subtype = subtype
        self.title = title
        self.startDate = startDate
        self.endDate = endDate
        self.children = children
    }
}

/// A stored collection with its count.
public struct StoredCollection: Sendable, Equatable {
    public var localIdentifier: String
    public var type: Int
    public var subtype: Int
    public var title: String
    public var startDate: String?
    public var endDate: String?
    public var count: Int
    public var predicate: String?
    /// A saved fetch (`query --save NAME`): a transient list, never an album.
    public var isSavedFetch = false
    /// An album the user made (`shoebox change`, or replayed requests), not a directory's (`by_user`).
    public var byUser = false
}

extension Catalog {
    /// The live assets matching an SQL condition on `asset` (columns unqualified), in capture order, with
    /// what organizing needs. Read through a cursor, and the values many assets share — the root, make,
    /// model, the date's source, the directory — are stored once. Organize reads a group of folders or a
    /// range of days at a time, never every asset (issue 17, docs/architecture.md).
    public func organizeRows(where condition: String, arguments: StatementArguments) throws(CatalogError) -> [OrganizeRow] {
        try read { db in
            var out: [OrganizeRow] = []
            var shared = StringInterner()
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT \(Self.organizeRowColumns) FROM asset WHERE trashed_at IS NULL AND (\(condition)) ORDER BY creation_date, id",
                arguments: arguments)
            while let r = try rows.next() { out.append(OrganizeRow(row: r, shared: &shared)) }
            return out
        }
    }

    /// The `asset` columns an `OrganizeRow` is read from, in `OrganizeRow(row:shared:)`'s order (the
    /// organize inputs snapshot has the same columns).
    static let organizeColumns = """
        local_identifier, root, primary_path, filename, creation_date, creation_offset, make, model, file_burst_identifier,
        represents_burst, burst_selection_types, latitude, longitude, creation_date_source, dir, burst_identifier
        """
    /// What an `OrganizeRow` is read from in `asset`: `organizeColumns`, then whether organize stored a burst
    /// reason (not an input: the record of the inputs has no such column, and its rows read as none).
    static let organizeRowColumns = organizeColumns + ", burst_reason IS NOT NULL"

    /// An asset's burst fields as organize sets them, with why (`asset.burst_reason`: "subject: evidence"
    /// lines, as `reasons`; nil for an asset in no set).
    public struct BurstUpdate: Sendable {
        public var localIdentifier: String
        public var burstIdentifier: String?
        public var represents: Bool
        public var selection: UInt
        public var reason: String?
        public init(_ localIdentifier: String, _ burstIdentifier: String?, represents: Bool, selection: UInt, reason: String?) {
            self.localIdentifier = localIdentifier
            self.burstIdentifier = burstIdentifier
            self.represents = represents
            self.selection = selection
            self.reason = reason
        }
    }

    /// Sets burst fields; records an `updated` change for each asset whose fields changed (a reason alone
    /// that changed is written without a record: it is no PhotoKit property). An asset this run inserted (row
    /// id above `newAssetsAfter`, the largest before the run began: SQLite numbers new rows past the largest)
    /// is written without a record: its `inserted` change, of the same run, covers the fields organize sets,
    /// as it covers the places step's, so a first ingest records each burst frame once.
    @discardableResult
    public func applyBursts(_ updates: [BurstUpdate], runID: Int64?, newAssetsAfter: Int64? = nil) throws(CatalogError) -> [ChangeRecord] {
        try write { db in
            var records: [ChangeRecord] = []
            let read = try db.cachedStatement(
                sql: "SELECT burst_identifier, represents_burst, burst_selection_types, burst_reason, id FROM asset WHERE local_identifier = ?")
            for u in updates {
                guard let old = try Row.fetchOne(read, arguments: [u.localIdentifier]) else { continue }
                var props: [String] = []
                if (old[0] as String?) != u.burstIdentifier { props.append("burstIdentifier") }
                if (old[1] as Bool) != u.represents { props.append("representsBurst") }
                if UInt(old[2] as Int64) != u.selection { props.append("burstSelectionTypes") }
                guard !props.isEmpty || (old[3] as String?) != u.reason else { continue }
                try db.cachedStatement(
                    sql: "UPDATE asset SET burst_identifier = ?, represents_burst = ?, burst_selection_types = ?, burst_reason = ? WHERE local_identifier = ?"
                ).execute(arguments: [u.burstIdentifier, u.represents, Int64(u.selection), u.reason, u.localIdentifier])
                let insertedThisRun = newAssetsAfter.map { (old[4] as Int64) > $0 } ?? false
                if !props.isEmpty && !insertedThisRun { records.append(try Self.record(db, runID, "asset", u.localIdentifier, "updated", props)) }
            }
            return records
        }
    }

    /// The stored collections and lists organize makes and replaces (`storeCollections`): not a saved fetch
    /// (`transient`), not made by the user (`by_user`).
    static let organizesCollection = "transient = 0 AND by_user = 0"
    static let organizesList = "by_user = 0"

    /// An album's members (asset row ids) in their order.
    static func memberRows(_ db: Database, _ collectionID: Int64) throws -> [Int64] {
        var read = try Binder(db, "SELECT asset_id FROM collection_membership WHERE collection_id = ? ORDER BY position")
        read.int(collectionID)
        return try read.allInts()
    }

    /// The identifiers of the stored collections of `type` that `storeCollections` would replace (not
    /// transient), and those of them not in `current` with their members (asset row ids): what a collection
    /// built anew under another identifier may continue (`Organizer.keepFolderIdentities`). No member is read
    /// when every stored one is current.
    public func replacedCollections(type: AssetCollectionType, current: Set<String>) throws(CatalogError)
        -> (stored: Set<String>, gone: [(localIdentifier: String, members: [Int64])])
    {
        try read { db in
            var stored = Set<String>(), gone: [Int64: String] = [:]
            let rows = try Row.fetchCursor(
                db, sql: "SELECT id, local_identifier FROM collection WHERE \(Self.organizesCollection) AND type = ?", arguments: [type.rawValue])
            while let r = try rows.next() {
                let lid: String = r[1]
                stored.insert(lid)
                if !current.contains(lid) { gone[r[0]] = lid }
            }
            return (stored, try gone.keys.sorted().map { id in (gone[id]!, try Self.memberRows(db, id)) })
        }
    }

    /// The identifiers of the stored lists of `type`, and those not in `current` with their children's.
    public func replacedLists(type: CollectionListType, current: Set<String>) throws(CatalogError)
        -> (stored: Set<String>, gone: [(localIdentifier: String, children: [String])])
    {
        try read { db in
            var stored = Set<String>(), gone: [(String, [String])] = []
            let rows = try Row.fetchCursor(
                db, sql: "SELECT local_identifier, children FROM collection_list WHERE \(Self.organizesList) AND type = ? ORDER BY id",
                arguments: [type.rawValue])
            while let r = try rows.next() {
                let lid: String = r[0], children: String = r[1]
                stored.insert(lid)
                if !current.contains(lid) { gone.append((lid, children.isEmpty ? [] : children.components(separatedBy: "\n"))) }
            }
            return (stored, gone)
        }
    }

    /// Replaces the stored collections of the given types with `collections` (matched by local identifier),
    /// and the lists of the given list types with `lists`; records inserted/updated/deleted changes and
    /// returns how many. Albums and folders a user made (`by_user`) are not organize's to replace. `only`:
    /// of the stored ones, only the collections and lists with these identifiers are replaced (an incremental
    /// organize's albums and folders of some directories, its moments of a stretch of time); `folderRecord`,
    /// `momentRecord`: what to write of the record of what albums, folders and moments were made from, in the
    /// same transaction.
    @discardableResult
    public func storeCollections(
        _ collections: [CollectionSpec], replacing types: Set<AssetCollectionType>, lists: [CollectionListSpec],
        replacingLists listTypes: Set<CollectionListType>, only: (collections: Set<String>?, lists: Set<String>?) = (nil, nil),
        folderRecord: FolderRecordUpdate? = nil, momentRecord: MomentRecordUpdate? = nil, runID: Int64?
    ) throws(CatalogError) -> Int {
        try write { db in
            var records = 0  // change records written (only their number is wanted: 20k+ in a first organize)
            func record(_ type: String, _ lid: String, _ change: String, _ props: [String] = []) throws {
                _ = try Self.record(db, runID, type, lid, change, props)
                records += 1
            }
            let typeList = types.map { String($0.rawValue) }.joined(separator: ",")
            // What is compared of each stored collection, read through a cursor (not every column of every
            // row as a `Row`, names included: 21.7k albums and the moments at 100k files).
            var existing: [String: ComparedCollection] = [:]
            if !types.isEmpty {
                let rows = try Row.fetchCursor(
                    db,
                    sql: "SELECT local_identifier, id, title, start_date, end_date, predicate FROM collection WHERE \(Self.organizesCollection) AND type IN (\(typeList))")
                while let r = try rows.next() {
                    let lid: String = r[0]
                    if let keep = only.collections, !keep.contains(lid) { continue }
                    existing[lid] = ComparedCollection(id: r[1], title: r[2], startDate: r[3], endDate: r[4], predicate: r[5])
                }
            }
            var keep = Set<String>()
            for c in collections {
                keep.insert(c.localIdentifier)
                let members = c.members
                if let old = existing[c.localIdentifier] {
                    let cid = old.id
                    var props: [String] = []
                    if old.title != c.title { props.append("localizedTitle") }
                    if old.startDate != c.startDate || old.endDate != c.endDate { props.append("dates") }
                    if old.predicate != c.predicate { props.append("predicate") }
                    if try Self.memberRows(db, cid) != members { props.append("assets") }
                    if props.isEmpty { continue }
                    try db.cachedStatement(sql: "UPDATE collection SET title = ?, start_date = ?, end_date = ?, latitude = ?, longitude = ?, predicate = ?, subtype = ? WHERE id = ?")
                        .execute(arguments: [c.title, c.startDate, c.endDate, c.latitude, c.longitude, c.predicate, c.subtype.rawValue, cid])
                    if props.contains("assets") { try Self.setMembers(db, cid, members) }
                    try record("assetCollection", c.localIdentifier, "updated", props)
                } else {
                    try db.cachedStatement(
                        sql: """
                            INSERT INTO collection(local_identifier, type, subtype, title, start_date, end_date, latitude, longitude, predicate)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """
                    ).execute(
                        arguments: [c.localIdentifier, c.type.rawValue, c.subtype.rawValue, c.title, c.startDate, c.endDate, c.latitude, c.longitude, c.predicate])
                    try Self.setMembers(db, db.lastInsertedRowID, members)
                    try record("assetCollection", c.localIdentifier, "inserted")
                }
            }
            for (lid, old) in existing where !keep.contains(lid) {
                try db.cachedStatement(sql: "DELETE FROM collection WHERE id = ?").execute(arguments: [old.id])
                try record("assetCollection", lid, "deleted")
            }
            // Lists.
            if !listTypes.isEmpty {
                let lt = listTypes.map { String($0.rawValue) }.joined(separator: ",")
                var oldLists: [String: ComparedCollection] = [:]
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT local_identifier, id, title, start_date, end_date, children FROM collection_list WHERE \(Self.organizesList) AND type IN (\(lt))")
                while let r = try rows.next() {
                    let lid: String = r[0]
                    if let keep = only.lists, !keep.contains(lid) { continue }
                    oldLists[lid] = ComparedCollection(id: r[1], title: r[2], startDate: r[3], endDate: r[4], children: r[5])
                }
                var keepLists = Set<String>()
                for l in lists {
                    keepLists.insert(l.localIdentifier)
                    let children = l.children.joined(separator: "\n")
                    if let old = oldLists[l.localIdentifier] {
                        var props: [String] = []
                        if old.title != l.title { props.append("localizedTitle") }
                        if old.startDate != l.startDate || old.endDate != l.endDate { props.append("dates") }
                        if old.children != children { props.append("collections") }
                        if props.isEmpty { continue }
                        try db.cachedStatement(sql: "UPDATE collection_list SET title = ?, start_date = ?, end_date = ?, children = ? WHERE id = ?")
                            .execute(arguments: [l.title, l.startDate, l.endDate, children, old.id])
                        try record("collectionList", l.localIdentifier, "updated", props)
                    } else {
                        try db.cachedStatement(sql: "INSERT INTO collection_list(local_identifier, type, subtype, title, start_date, end_date, children) VALUES (?, ?, ?, ?, ?, ?, ?)")
                            .execute(arguments: [l.localIdentifier, l.type.rawValue, l.subtype.rawValue, l.title, l.startDate, l.endDate, children])
                        try record("collectionList", l.localIdentifier, "inserted")
                    }
                }
                for (lid, old) in oldLists where !keepLists.contains(lid) {
                    try db.cachedStatement(sql: "DELETE FROM collection_list WHERE id = ?").execute(arguments: [old.id])
                    try record("collectionList", lid, "deleted")
                }
            }
            if let folderRecord { try Self.writeFolderRecord(db, folderRecord) }
            if let momentRecord { try Self.writeMomentRecord(db, momentRecord) }
            return records
        }
    }

    /// What `storeCollections` compares of a stored collection or list.
    struct ComparedCollection {
        let id: Int64
        let title: String?
        let startDate: String?
        let endDate: String?
        var predicate: String? = nil
        var children: String? = nil
    }

    static func setMembers(_ db: Database, _ cid: Int64, _ members: [Int64]) throws {
        try db.cachedStatement(sql: "DELETE FROM collection_membership WHERE collection_id = ?").execute(arguments: [cid])
        var seen = Set<Int64>()
        seen.reserveCapacity(members.count)
        var insert = try Binder(db, "INSERT INTO collection_membership(collection_id, asset_id, position) VALUES (?, ?, ?)")
        for (k, a) in members.enumerated() where seen.insert(a).inserted {
            insert.restart()
            insert.int(cid)
            insert.int(a)
            insert.int(k)
            try insert.run()
        }
    }

    /// Google Takeout album titles by absolute folder (from each folder's album `metadata.json`).
    public func takeoutAlbumTitles() throws(CatalogError) -> [String: String] {
        try read { db in
            var out: [String: String] = [:]
            for r in try Row.fetchAll(db, sql: "SELECT key, value FROM meta WHERE key LIKE 'takeout_album:%'") {
                let k: String = r["key"]
                out[String(k.dropFirst("takeout_album:".count))] = r["value"]
            }
            return out
        }
    }

    /// How many (non-transient) collections of a type are stored.
    public func collectionCount(type: AssetCollectionType) throws(CatalogError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM collection WHERE transient = 0 AND type = ?", arguments: [type.rawValue]) ?? 0 }
    }

    /// The stored moments' members as catalog rows, for stable identifiers on re-segmentation (no string
    /// per member).
    public func momentMemberRows() throws(CatalogError) -> [(localIdentifier: String, members: [Int64])] {
        try storedMoments(member: "m.asset_id", join: "")
    }

    /// Members of a stored moment type, for stable identifiers on re-segmentation.
    public func moments() throws(CatalogError) -> [(localIdentifier: String, members: [String])] {
        try storedMoments(member: "a.local_identifier", join: "JOIN asset a ON a.id = m.asset_id")
    }

    /// Every stored moment in start order with its members (`member`, a column of `m`, the membership, or of
    /// what `join` adds), read in one statement (a statement prepared per moment was a fifth of the moments
    /// step at 100k assets).
    private func storedMoments<Member: DatabaseValueConvertible>(member: String, join: String) throws(CatalogError)
        -> [(localIdentifier: String, members: [Member])]
    {
        try read { db in
            var members: [Int64: [Member]] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT m.collection_id, \(member) FROM collection_membership m
                    JOIN collection c ON c.id = m.collection_id \(join)
                    WHERE c.type = 3 ORDER BY m.collection_id, m.position
                    """)
            while let r = try rows.next() { members[r[0], default: []].append(r[1]) }
            return try Row.fetchAll(db, sql: "SELECT id, local_identifier FROM collection WHERE type = 3 ORDER BY start_date").map { r in
                (r["local_identifier"], members[r["id"] as Int64] ?? [])
            }
        }
    }

    /// Stored collections (optionally of one type), with counts; smart albums are counted by evaluating
    /// their predicate now (they are always current).
    public func collections(type: AssetCollectionType? = nil) throws(CatalogError) -> [StoredCollection] {
        let rows: [StoredCollection] = try read { db in
            var sql = "SELECT c.*, (SELECT COUNT(*) FROM collection_membership m JOIN asset a ON a.id = m.asset_id WHERE m.collection_id = c.id AND a.trashed_at IS NULL) AS n FROM collection c WHERE c.transient = 0"
            if let type { sql += " AND c.type = \(type.rawValue)" }
            sql += " ORDER BY c.type, c.start_date, c.subtype, c.title"
            return try Row.fetchAll(db, sql: sql).map {
                StoredCollection(
                    localIdentifier: $0["local_identifier"], type: $0["type"], subtype: $0["subtype"], title: ($0["title"] as String?) ?? "",
                    startDate: $0["start_date"], endDate: $0["end_date"], count: $0["n"], predicate: $0["predicate"], byUser: $0["by_user"])
            }
        }
        // Moments span local times: their first and last asset's wall-clock date with its offset (the stored
        // bounds are UTC instants), so a moment reads as the photos in it do; a date given a zone by the
        // places step (docs/places.md) reads as its local time.
        let local = rows.contains { $0.type == AssetCollectionType.moment.rawValue } ? try momentLocalBounds() : [:]
        return try rows.map { c throws(CatalogError) in
            var c = c
            if let b = local[c.localIdentifier] { (c.startDate, c.endDate) = b }
            guard let p = c.predicate else { return c }
            c.count = try countAssets(smartAlbumOptions(subtype: c.subtype, predicate: p))
            return c
        }
    }

    /// Each moment's first and last live asset by instant, as local dates (`2024-05-01T12:34:56+02:00`).
    func momentLocalBounds() throws(CatalogError) -> [String: (String, String)] {
        try read { db in
            var out: [String: (String, String)] = [:]
            var first: [String: String] = [:]
            for agg in ["MIN", "MAX"] {
                let sql = """
                    SELECT c.local_identifier AS id, coalesce(a.local_date, a.creation_date) AS d,
                        CASE WHEN a.local_date IS NULL THEN a.creation_offset ELSE a.local_offset END AS o,
                        \(agg)(julianday(coalesce(a.local_date, a.creation_date))
                            - coalesce(CASE WHEN a.local_date IS NULL THEN a.creation_offset ELSE a.local_offset END, 0) / 86400.0) AS t
                    FROM collection c JOIN collection_membership m ON m.collection_id = c.id JOIN asset a ON a.id = m.asset_id
                    WHERE c.type = \(AssetCollectionType.moment.rawValue) AND a.trashed_at IS NULL AND a.creation_date IS NOT NULL
                    GROUP BY c.id
                    """
                for r in try Row.fetchAll(db, sql: sql) {
                    let id: String = r["id"]
                    let text = AssetDate(local: r["d"], offsetSeconds: r["o"]).description
                    if agg == "MIN" { first[id] = text } else if let f = first[id] { out[id] = (f, text) }
                }
            }
            return out
        }
    }

    /// The assets of a smart album: its predicate compiled and fetched now, with the album's scope.
    public func fetchAssets(smartAlbum subtype: Int, predicate: String, includeAllBurstAssets: Bool = false) throws(CatalogError) -> FetchResult {
        var o = try smartAlbumOptions(subtype: subtype, predicate: predicate)
        o.includeAllBurstAssets = includeAllBurstAssets
        return try fetchAssets(o)
    }

    /// A smart album's stored predicate (text and arguments) compiled into fetch options with its scope.
    func smartAlbumOptions(subtype: Int, predicate: String) throws(CatalogError) -> FetchOptions {
        var parts = predicate.components(separatedBy: "\u{1F}")
        let text = parts.removeFirst()
        let compiled: CompiledPredicate
        do {
            compiled = try PredicateCompiler.compile(text, arguments: parts.map(Self.resolveArgument))
        } catch {
            throw CatalogError(.notFound, "smart album \(subtype): \(error)")
        }
        var o = FetchOptions(predicate: compiled)
        // Scope: Hidden and Recently Deleted look where a normal fetch does not.
        if subtype == AssetCollectionSubtype.smartAlbumAllHidden.rawValue { o.includeHiddenAssets = true }
        if subtype == AssetCollectionSubtype.smartAlbumRecentlyDeleted.rawValue { o.includeTrashed = true; o.includeHiddenAssets = true }
        return o
    }

    /// Smart-album arguments: `now - 30 days` style relative dates, else the text itself.
    public static func resolveSmartAlbumArgument(_ a: String) -> String { resolveArgument(a) }

    static func resolveArgument(_ a: String) -> String {
        let t = a.trimmingCharacters(in: .whitespaces)
        if t.hasPrefix("now"), let n = Double(t.components(separatedBy: CharacterSet.decimalDigits.inverted).joined()), t.contains("day") {
            let d = Date().addingTimeInterval(-n * 86400)
            return ISO8601DateFormatter().string(from: d)
        }
        return t
    }
}

/// A stored collection list (moment cluster or year, folder) with its children.
public struct StoredCollectionList: Sendable, Equatable {
    public var localIdentifier: String
    public var type: Int
    public var subtype: Int
    public var title: String
    public var startDate: String?
    public var endDate: String?
    public var children: [String]
}

extension Catalog {
    /// `fetchMoments(inMomentList:)`-style: moments overlapping [start, end] (ISO-8601 UTC text).
    public func moments(from start: String, to end: String) throws(CatalogError) -> [StoredCollection] {
        try collections(type: .moment).filter { c in
            guard let s = c.startDate, let e = c.endDate else { return false }
            return e >= start && s <= end
        }
    }

    /// `PHCollectionList.fetchCollectionLists(with:subtype:options:)`.
    public func collectionLists(type: CollectionListType? = nil, subtype: CollectionListSubtype? = nil) throws(CatalogError) -> [StoredCollectionList] {
        try read { db in
            var sql = "SELECT * FROM collection_list WHERE 1 = 1"
            var args: [any DatabaseValueConvertible] = []
            if let type { sql += " AND type = ?"; args.append(type.rawValue) }
            if let subtype { sql += " AND subtype = ?"; args.append(subtype.rawValue) }
            return try Row.fetchAll(db, sql: sql + " ORDER BY start_date, title", arguments: StatementArguments(args)).map {
                let children: String = $0["children"]
                return StoredCollectionList(
                    localIdentifier: $0["local_identifier"], type: $0["type"], subtype: $0["subtype"], title: ($0["title"] as String?) ?? "",
                    startDate: $0["start_date"], endDate: $0["end_date"], children: children.isEmpty ? [] : children.components(separatedBy: "\n"))
            }
        }
    }

    /// `fetchCollectionListsContaining(_:)`: the lists a collection (or list) is a child of.
    public func collectionLists(containing localIdentifier: String) throws(CatalogError) -> [StoredCollectionList] {
        try collectionLists().filter { $0.children.contains(localIdentifier) }
    }
}

/// One stored copy of each value that many rows repeat (a root, a camera model, a date's source), so a
/// list of a hundred thousand rows holds a few of them, not one per row. Values past `limit` distinct
/// ones are passed through: a column that turns out to be unique costs no table.
public struct StringInterner {
    private var table: [String: String] = [:]
    public var limit = 4096
    /// The last string handed out for each of a few slots (a row's fields): rows read in order mostly repeat
    /// their neighbour's root, folder or camera, and comparing with it costs less than hashing it (organize
    /// reads every row twice at least).
    private var recent: [String?] = [nil, nil, nil, nil, nil, nil, nil, nil]

    public init() {}

    public mutating func intern(_ s: String, slot: Int = 0) -> String {
        if let last = recent[slot & 7], last == s { return last }
        let interned: String
        if let known = table[s] {
            interned = known
        } else {
            if table.count < limit { table[s] = s }
            interned = s
        }
        recent[slot & 7] = interned
        return interned
    }

    public mutating func intern(_ s: String?, slot: Int = 0) -> String? { s.map { intern($0, slot: slot) } }
}
