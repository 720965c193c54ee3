import Foundation
import GRDB
import PhotoModel

/// What the last organize segmented into moments (`organize_moment_item`: each dated asset's instant) and
/// what it made of them (`organize_moment`: what the moment lists are built from), so that an incremental
/// organize segments again only the stretch of the timeline its changed assets can move (docs/architecture.md,
/// organize). The meta key `organize_moments` holds the home area the titles were made with; absent while the
/// record is not whole.
public struct MomentRecord: Sendable, Equatable {
    public var localIdentifier: String
    public var startInstant: Int64
    public var endInstant: Int64
    public var startLocalDate: String
    public var endLocalDate: String
    public var latitude: Double?
    public var longitude: Double?
    /// The place names the moment's title names (none when titled by date).
    public var places: [String]

    public init(
        localIdentifier: String, startInstant: Int64, endInstant: Int64, startLocalDate: String, endLocalDate: String, latitude: Double?,
        longitude: Double?, places: [String]
    ) {
        self.localIdentifier = localIdentifier
        self.startInstant = startInstant
        self.endInstant = endInstant
        self.startLocalDate = startLocalDate
        self.endLocalDate = endLocalDate
        self.latitude = latitude
        self.longitude = longitude
        self.places = places
    }
}

/// A dated asset as the moment step reads it: its row, local identifier (what orders assets of one instant),
/// date, position and place name.
public struct MomentInputRow: Sendable {
    public var assetID: Int64
    public var localIdentifier: String
    public var date: AssetDate
    public var latitude: Double?
    public var longitude: Double?
    public var place: String?
}

/// What `storeCollections` writes of the moment record: every moment and item (`replacing` nil), or the
/// moments of a stretch in place of those it replaces and the items of some assets.
public struct MomentRecordUpdate: Sendable {
    /// The recorded moments replaced (nil: all).
    public var replacing: Set<String>?
    public var moments: [MomentRecord]
    /// The assets whose items are written again (nil: all), and their items now (row, instant, place name).
    public var itemsOf: [Int64]?
    public var items: [(assetID: Int64, instant: Int64, place: String?)]
    public var home: String?

    public init(
        replacing: Set<String>?, moments: [MomentRecord], itemsOf: [Int64]?, items: [(assetID: Int64, instant: Int64, place: String?)], home: String?
    ) {
        self.replacing = replacing
        self.moments = moments
        self.itemsOf = itemsOf
        self.items = items
        self.home = home
    }
}

extension Catalog {
    static let organizeMomentTables = """
        CREATE TABLE organize_moment (
            local_identifier TEXT PRIMARY KEY, start_instant INTEGER NOT NULL, end_instant INTEGER NOT NULL,
            start_local_date TEXT NOT NULL, end_local_date TEXT NOT NULL, latitude REAL, longitude REAL, places TEXT NOT NULL
        );
        CREATE INDEX organize_moment_start ON organize_moment(start_instant);
        CREATE INDEX organize_moment_day ON organize_moment(start_local_date);
        CREATE TABLE organize_moment_item (asset_id INTEGER PRIMARY KEY, instant INTEGER NOT NULL, place TEXT);
        CREATE INDEX organize_moment_item_instant ON organize_moment_item(instant);
        CREATE TABLE organize_place (place TEXT PRIMARY KEY, items INTEGER NOT NULL);
        """

    static let organizeMomentMetaKey = "organize_moments"

    /// The home area the recorded moments were titled with (`.some(nil)`: none), nil when there is no whole record.
    public func momentRecordHome() throws(CatalogError) -> String?? {
        guard let v = try metaValue(Self.organizeMomentMetaKey) else { return nil }
        return .some(v.hasPrefix("home:") ? String(v.dropFirst(5)) : nil)
    }

    /// The recorded instants and place names of these assets (those the last organize segmented).
    public func recordedItems(of assets: [Int64]) throws(CatalogError) -> [Int64: (instant: Int64, place: String?)] {
        try read { db in
            var out: [Int64: (instant: Int64, place: String?)] = [:]
            let s = try db.cachedStatement(sql: "SELECT instant, place FROM organize_moment_item WHERE asset_id = ?")
            for a in assets { if let r = try Row.fetchOne(s, arguments: [a]) { out[a] = (r[0], r[1]) } }
            return out
        }
    }

    /// How many items are recorded.
    public func recordedItemCount() throws(CatalogError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM organize_moment_item") ?? 0 }
    }

    /// How many recorded items carry each place name (`organize_place`).
    public func recordedPlaceCounts() throws(CatalogError) -> [String: Int] {
        try read { db in
            var out: [String: Int] = [:]
            for r in try Row.fetchAll(db, sql: "SELECT place, items FROM organize_place") { out[r[0]] = r[1] }
            return out
        }
    }

    static let momentInputColumns = """
        a.id, a.local_identifier, coalesce(a.local_date, a.creation_date),
        CASE WHEN a.local_date IS NULL THEN a.creation_offset ELSE a.local_offset END, a.latitude, a.longitude, a.place_name
        """

    /// nil for an undated row (a recorded asset no longer dated: a changed one, which the caller leaves out).
    static func momentInputRow(_ r: Row) -> MomentInputRow? {
        guard let date = r[2] as String? else { return nil }
        return MomentInputRow(
            assetID: r[0], localIdentifier: r[1], date: AssetDate(local: date, offsetSeconds: r[3]), latitude: r[4], longitude: r[5], place: r[6])
    }

    /// The assets recorded with an instant in `from...to`, as they are now, with their recorded instants.
    public func recordedMomentInputs(from: Int64, to: Int64) throws(CatalogError) -> [(input: MomentInputRow?, instant: Int64)] {
        try recordedMomentInputs(where: "i.instant BETWEEN ? AND ?", [from, to])
    }

    /// The `limit` assets recorded last before `instant` (latest first), or first after it (`after`).
    public func recordedMomentInputs(_ limit: Int, before instant: Int64) throws(CatalogError) -> [(input: MomentInputRow?, instant: Int64)] {
        try recordedMomentInputs(where: "i.instant < ? ORDER BY i.instant DESC LIMIT ?", [instant, Int64(limit)])
    }

    public func recordedMomentInputs(_ limit: Int, after instant: Int64) throws(CatalogError) -> [(input: MomentInputRow?, instant: Int64)] {
        try recordedMomentInputs(where: "i.instant > ? ORDER BY i.instant LIMIT ?", [instant, Int64(limit)])
    }

    /// Recorded items (`i`) and their assets (`a`) as they are now (nil: an asset no longer dated, a changed
    /// one, which the caller reads apart), with the recorded instants.
    private func recordedMomentInputs(where condition: String, _ arguments: [Int64]) throws(CatalogError) -> [(input: MomentInputRow?, instant: Int64)] {
        try read { db in
            var out: [(input: MomentInputRow?, instant: Int64)] = []
            let rows = try Row.fetchCursor(
                db, sql: "SELECT \(Self.momentInputColumns), i.instant FROM organize_moment_item i JOIN asset a ON a.id = i.asset_id WHERE \(condition)",
                arguments: StatementArguments(arguments))
            while let r = try rows.next() { out.append((Self.momentInputRow(r), r[7])) }
            return out
        }
    }

    /// These assets as the moment step reads them, when they are live and dated.
    public func momentInputs(ofRows rows: [Int64]) throws(CatalogError) -> [MomentInputRow] {
        try read { db in
            let s = try db.cachedStatement(
                sql: """
                    SELECT \(Self.momentInputColumns) FROM asset a
                    WHERE a.id = ? AND a.trashed_at IS NULL AND (a.local_date IS NOT NULL OR a.creation_date IS NOT NULL)
                    """)
            return try rows.compactMap { id in try Row.fetchOne(s, arguments: [id]).flatMap(Self.momentInputRow) }
        }
    }

    /// The recorded moments starting in `after<..<before`, in time order.
    public func momentRecords(startingAfter after: Int64, before: Int64) throws(CatalogError) -> [MomentRecord] {
        try momentRecords(where: "start_instant > ? AND start_instant < ? ORDER BY start_instant", [after, before])
    }

    /// Up to `limit` recorded moments starting before `instant`, latest first.
    public func momentRecords(_ limit: Int, startingBefore instant: Int64) throws(CatalogError) -> [MomentRecord] {
        try momentRecords(where: "start_instant < ? ORDER BY start_instant DESC LIMIT ?", [instant, Int64(limit)])
    }

    /// Up to `limit` recorded moments starting after `instant`, in time order.
    public func momentRecords(_ limit: Int, startingAfter instant: Int64) throws(CatalogError) -> [MomentRecord] {
        try momentRecords(where: "start_instant > ? ORDER BY start_instant LIMIT ?", [instant, Int64(limit)])
    }

    /// The recorded moments starting in local year `year` (`YYYY`), in time order.
    public func momentRecords(inYear year: String) throws(CatalogError) -> [MomentRecord] {
        try momentRecords(where: "start_local_date >= ? AND start_local_date < ? ORDER BY start_instant", [year, year + "~"])
    }

    /// How many moments are recorded.
    public func momentRecordCount() throws(CatalogError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM organize_moment") ?? 0 }
    }

    static let momentRecordColumns = "local_identifier, start_instant, end_instant, start_local_date, end_local_date, latitude, longitude, places"

    static func momentRecord(_ r: Row) -> MomentRecord {
        let places: String = r[7]
        return MomentRecord(
            localIdentifier: r[0], startInstant: r[1], endInstant: r[2], startLocalDate: r[3], endLocalDate: r[4], latitude: r[5], longitude: r[6],
            places: places.isEmpty ? [] : places.components(separatedBy: "\n"))
    }

    private func momentRecords(where condition: String, _ arguments: StatementArguments) throws(CatalogError) -> [MomentRecord] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.momentRecordColumns) FROM organize_moment WHERE \(condition)", arguments: arguments).map(Self.momentRecord)
        }
    }

    /// The members (asset rows, in order) of stored moments, by local identifier; a moment not stored has none.
    public func momentMembers(_ localIdentifiers: some Collection<String>) throws(CatalogError) -> [String: [Int64]] {
        try read { db in
            var out: [String: [Int64]] = [:]
            let s = try db.cachedStatement(sql: "SELECT id FROM collection WHERE local_identifier = ? AND type = 3")
            for lid in localIdentifiers {
                out[lid] = try Int64.fetchOne(s, arguments: [lid]).map { try Self.memberRows(db, $0) } ?? []
            }
            return out
        }
    }

    /// Whether a moment is stored under this local identifier.
    public func isStoredMoment(_ localIdentifier: String) throws(CatalogError) -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM collection WHERE local_identifier = ? AND type = 3)", arguments: [localIdentifier]) ?? false
        }
    }

    /// The rows of these assets (by local identifier) that exist.
    public func assetRows(ofLocalIdentifiers ids: some Collection<String>) throws(CatalogError) -> [Int64] {
        guard !ids.isEmpty else { return [] }
        return try read { db in
            try Int64.fetchAll(
                db, sql: "SELECT id FROM asset WHERE local_identifier IN (SELECT value FROM json_each(?))", arguments: [Self.jsonArray(ids)])
        }
    }

    /// Writes the moment record (in `storeCollections`' transaction).
    static func writeMomentRecord(_ db: Database, _ update: MomentRecordUpdate) throws {
        if let replacing = update.replacing {
            let delete = try db.cachedStatement(sql: "DELETE FROM organize_moment WHERE local_identifier = ?")
            for lid in replacing { try delete.execute(arguments: [lid]) }
        } else {
            try db.execute(sql: "DELETE FROM organize_moment")
        }
        var insert = try Binder(
            db,
            """
            INSERT OR REPLACE INTO organize_moment(local_identifier, start_instant, end_instant, start_local_date, end_local_date, latitude,
                longitude, places) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for m in update.moments {
            insert.restart()
            insert.text(m.localIdentifier)
            insert.int(m.startInstant)
            insert.int(m.endInstant)
            insert.text(m.startLocalDate)
            insert.text(m.endLocalDate)
            insert.double(m.latitude)
            insert.double(m.longitude)
            insert.text(m.places.joined(separator: "\n"))
            try insert.run()
        }
        // The items, and how many carry each place name: counted again from all of them, or less the
        // replaced items' and plus the new ones'.
        if let rows = update.itemsOf {
            let old = try db.cachedStatement(sql: "SELECT place FROM organize_moment_item WHERE asset_id = ? AND place IS NOT NULL")
            let less = try db.cachedStatement(sql: "UPDATE organize_place SET items = items - 1 WHERE place = ?")
            let delete = try db.cachedStatement(sql: "DELETE FROM organize_moment_item WHERE asset_id = ?")
            for r in rows {
                if let place = try String.fetchOne(old, arguments: [r]) { try less.execute(arguments: [place]) }
                try delete.execute(arguments: [r])
            }
            let more = try db.cachedStatement(
                sql: "INSERT INTO organize_place(place, items) VALUES (?, 1) ON CONFLICT(place) DO UPDATE SET items = items + 1")
            for i in update.items { if let place = i.place { try more.execute(arguments: [place]) } }
            try db.execute(sql: "DELETE FROM organize_place WHERE items <= 0")
        } else {
            try db.execute(sql: "DELETE FROM organize_moment_item")
        }
        var item = try Binder(db, "INSERT OR REPLACE INTO organize_moment_item(asset_id, instant, place) VALUES (?, ?, ?)")
        for i in update.items {
            item.restart()
            item.int(i.assetID)
            item.int(i.instant)
            item.text(i.place)
            try item.run()
        }
        if update.itemsOf == nil {
            try db.execute(sql: "DELETE FROM organize_place")
            try db.execute(
                sql: "INSERT INTO organize_place(place, items) SELECT place, COUNT(*) FROM organize_moment_item WHERE place IS NOT NULL GROUP BY place")
        }
        try setMetaValue(db, organizeMomentMetaKey, update.home.map { "home:" + $0 } ?? "none")
    }
}
