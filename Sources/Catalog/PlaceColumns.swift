import Foundation
import GRDB
import PhotoModel

/// An asset's place and local time as the organize stage derived them (docs/places.md): stored so that
/// queries can filter by place, and diffed so that a gazetteer update shows up as recorded changes.
public struct AssetPlaceInfo: Sendable, Equatable, Codable {
    /// GeoNames' identifier of the place.
    public var placeID: Int?
    public var placeName: String?
    public var placeAdmin1: String?
    /// ISO 3166 alpha-2.
    public var placeCountry: String?
    public var placeCountryName: String?
    public var placeReason: String?
    /// The capture time as local wall clock with its offset, when the date stated none (or stated UTC only).
    public var localDate: AssetDate?
    public var timeZone: String?
    public var zoneReason: String?
    /// `medium` (the zone at its own GPS position) or `low` (borrowed from a neighbour, or at sea).
    public var zoneConfidence: String?

    public init(
        placeID: Int? = nil, placeName: String? = nil, placeAdmin1: String? = nil, placeCountry: String? = nil,
        placeCountryName: String? = nil,
        placeReason: String? = nil, localDate: AssetDate? = nil, timeZone: String? = nil, zoneReason: String? = nil,
        zoneConfidence: String? = nil
    ) {
        self.placeID = placeID
        self.placeName = placeName
        self.placeAdmin1 = placeAdmin1
        self.placeCountry = placeCountry
        self.placeCountryName = placeCountryName
        self.placeReason = placeReason
        self.localDate = localDate
        self.timeZone = timeZone
        self.zoneReason = zoneReason
        self.zoneConfidence = zoneConfidence
    }

    /// `Lisbon, Lisbon, Portugal`; nil without a place.
    public var placeText: String? {
        guard let placeName else { return nil }
        return ([placeName] + [placeAdmin1, placeCountryName].compactMap { $0 }.filter { !$0.isEmpty }).joined(separator: ", ")
    }

    /// The place with its GeoNames id and reason, as `show` and the report print it.
    public var placeDescription: String? {
        guard let text = placeText else { return nil }
        return text + (placeID.map { " (GeoNames \($0))" } ?? "") + (placeReason.map { "   ← \($0)" } ?? "")
    }

    /// The local capture time with the zone's reason and confidence, as `show` and the report print it.
    public var localDateDescription: String? {
        guard let d = localDate else { return nil }
        return "\(d)" + (zoneReason.map { "   ← \($0)" } ?? "") + (zoneConfidence.map { ", confidence \($0)" } ?? "")
    }

    /// The change-history property names of what differs from `o`: `place`, `localDate`.
    func changedProperties(from o: AssetPlaceInfo) -> [String] {
        var props: [String] = []
        if (placeID, placeName, placeAdmin1, placeCountry, placeCountryName) != (
            o.placeID, o.placeName, o.placeAdmin1, o.placeCountry, o.placeCountryName
        ) {
            props.append("place")
        }
        if (localDate, timeZone, zoneReason, zoneConfidence) != (o.localDate, o.timeZone, o.zoneReason, o.zoneConfidence) {
            props.append("localDate")
        }
        return props
    }

    static let columns =
        "place_id, place_name, place_admin1, place_country, place_country_name, place_reason, local_date, local_offset, time_zone, zone_reason, zone_confidence"

    /// From a row whose columns `at` onwards are `columns`, in that order (by position: a name lookup per
    /// column and row was most of the places step's reading).
    init(row r: Row, at k: Int = 0) {
        self.init(
            placeID: r[k], placeName: r[k + 1], placeAdmin1: r[k + 2], placeCountry: r[k + 3],
            placeCountryName: r[k + 4], placeReason: r[k + 5],
            localDate: (r[k + 6] as String?).map { AssetDate(local: $0, offsetSeconds: r[k + 7]) },
            timeZone: r[k + 8],
            zoneReason: r[k + 9], zoneConfidence: r[k + 10])
    }

    /// The values of `columns`, bound in that order.
    func bind(into b: inout Binder) {
        b.int(placeID)
        b.text(placeName)
        b.text(placeAdmin1)
        b.text(placeCountry)
        b.text(placeCountryName)
        b.text(placeReason)
        b.text(localDate?.local)
        b.int(localDate?.offsetSeconds)
        b.text(timeZone)
        b.text(zoneReason)
        b.text(zoneConfidence)
    }
}

extension Catalog {
    /// The meta key holding the identity of the gazetteer the places were derived with.
    public static let gazetteerMetaKey = "places_gazetteer"

    /// Every asset's stored place information (assets without any are left out).
    public func placeInfos() throws(CatalogError) -> [String: AssetPlaceInfo] {
        try read { db in
            var out: [String: AssetPlaceInfo] = [:]
            for r in try Row.fetchAll(
                db,
                sql:
                    "SELECT local_identifier, \(AssetPlaceInfo.columns) FROM asset WHERE place_id IS NOT NULL OR local_date IS NOT NULL"
            ) {
                out[r[0]] = AssetPlaceInfo(row: r, at: 1)
            }
            return out
        }
    }

    /// One asset's place information; nil for an unknown identifier.
    public func placeInfo(_ localIdentifier: String) throws(CatalogError) -> AssetPlaceInfo? {
        try read { db in
            try Row.fetchOne(
                db, sql: "SELECT \(AssetPlaceInfo.columns) FROM asset WHERE local_identifier = ?", arguments: [localIdentifier]
            )
            .map { AssetPlaceInfo(row: $0) }
        }
    }

    /// Stores every untrashed asset's place information (an asset missing from `infos` has none) and
    /// records an `updated` change (`place`, `localDate`) for each asset whose information changed. An
    /// asset the places step meets for the first time (`places_derived` = 0: new, or from before the places
    /// migration) is written without a change record: its `inserted` change covers it, as for every other
    /// property, and an interrupted ingest resumed later writes the same history as one that was not.
    ///
    /// With `only` (local identifiers) or `condition` (SQL on `asset`), just those assets are compared and
    /// written, as if `infos` were every asset's: the organize stage derives places a range of days at a time.
    /// With a `condition` and `markingSeen` false, the assets in scope whose place information is unchanged
    /// and who need only the mark that the places step has seen them are left unmarked, for one
    /// `markPlacesSeen()` after the last range (each range's mark rewrote its rows in date order, pages all
    /// over the table; one pass in row order writes each page once).
    @discardableResult
    public func applyPlaces(
        _ infos: [String: AssetPlaceInfo], only: [String]? = nil, where condition: String? = nil, arguments: [String] = [],
        markingSeen: Bool = true, runID: Int64?
    ) throws(CatalogError) -> [ChangeRecord] {
        try write { db in
            var records: [ChangeRecord] = []
            // One write per row: the place columns and the mark that the places step has seen the row, by
            // row id (the row is read here; a second pass to set the mark rewrote every row once more).
            var setAll = try Binder(
                db,
                "UPDATE asset SET "
                    + AssetPlaceInfo.columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) + " = ?" }
                    .joined(separator: ", ") + ", places_derived = 1 WHERE id = ?")
            let markDerived = try db.cachedStatement(sql: "UPDATE asset SET places_derived = 1 WHERE id = ?")
            // Every row read here has `applyColumns`: whether all place columns are NULL (most rows of a first
            // organize: nothing to decode), then the columns.
            let applyColumns = "id, local_identifier, places_derived, COALESCE(\(AssetPlaceInfo.columns)) IS NULL, \(AssetPlaceInfo.columns)"
            // What a row needs: nothing, the mark alone, or its columns, named by their place in `infos` (none:
            // every column NULL), with a change record when the places step has seen the row before.
            enum Write { case none, mark, set(Dictionary<String, AssetPlaceInfo>.Index?, record: (lid: String, props: [String])?) }
            func info(_ index: Dictionary<String, AssetPlaceInfo>.Index?) -> AssetPlaceInfo { index.map { infos[$0].value } ?? AssetPlaceInfo() }
            func decide(_ r: Row) -> Write {
                let lid: String = r[1]
                let derived: Bool = r[2]
                let old = r[3] as Bool ? AssetPlaceInfo() : AssetPlaceInfo(row: r, at: 4)
                let index = infos.index(forKey: lid)
                let props = info(index).changedProperties(from: old)
                guard !props.isEmpty else { return derived ? .none : .mark }
                return .set(index, record: derived ? (lid, props) : nil)
            }
            func write(_ id: Int64, _ w: Write) throws {
                switch w {
                case .none: return
                case .mark: try markDerived.execute(arguments: [id])
                case .set(let index, let record):
                    setAll.restart()
                    info(index).bind(into: &setAll)
                    setAll.int(id)
                    try setAll.run()
                    if let record { records.append(try Self.record(db, runID, "asset", record.lid, "updated", record.props)) }
                }
            }
            func apply(_ r: Row) throws { try write(r[0], decide(r)) }
            if let only {
                let one = try db.cachedStatement(
                    sql: "SELECT \(applyColumns) FROM asset WHERE trashed_at IS NULL AND local_identifier = ?")
                for lid in only {
                    guard let r = try Row.fetchOne(one, arguments: [lid]) else { continue }
                    try apply(r)
                }
                return records
            }
            if let condition {
                // Read through a cursor and written once it is done (no row is updated under a statement still
                // stepping over the table): what is held meanwhile is each row's id and what it needs, where
                // copied rows (every column, and GRDB's copy of the column names) were ~7 MB for a range of 20k
                // rows at 100k files.
                // The rows that need the mark alone (most of a first organize: no place, never seen) are marked
                // by one statement after the others are written, not one by one.
                var writes: [(Int64, Write)] = []
                var marks = 0
                let rows = try Row.fetchCursor(db, sql: "SELECT \(applyColumns) FROM asset WHERE trashed_at IS NULL AND (\(condition))", arguments: StatementArguments(arguments))
                while let r = try rows.next() {
                    let w = decide(r)
                    switch w {
                    case .none: continue
                    case .mark: marks += 1
                    case .set: writes.append((r[0], w))
                    }
                }
                // In row order, not the cursor's date order: the rows of a range of days lie all over the table
                // (imports are by folder), so in date order the writer's small organize cache evicted pages it
                // came back to, reading them again from the log; in row order each page is visited once.
                writes.sort { $0.0 < $1.0 }
                for (id, w) in writes { try write(id, w) }
                if marks > 0 && markingSeen {
                    // Every row in scope not written above has the mark already (`.none`) or needs it. `OR IGNORE`
                    // (a constant 1 breaks no constraint): a statement that can abort midway copies every page it
                    // changes into a statement journal first, a temporary file past 64 KiB.
                    try db.execute(
                        sql: "UPDATE OR IGNORE asset SET places_derived = 1 WHERE places_derived = 0 AND trashed_at IS NULL AND (\(condition))",
                        arguments: StatementArguments(arguments))
                }
                return records
            }
            // In batches by row id: memory stays one batch, and the rows updated are never ones a statement
            // still has to step over.
            let batch = try db.cachedStatement(
                sql: "SELECT \(applyColumns) FROM asset WHERE trashed_at IS NULL AND id > ? ORDER BY id LIMIT 2000")
            var after: Int64 = 0
            while true {
                let rows = try Row.fetchAll(batch, arguments: [after])
                guard let last = rows.last else { break }
                after = last[0]
                for r in rows { try apply(r) }
            }
            return records
        }
    }

    /// Marks every untrashed asset as seen by the places step (after ranges stored with `markingSeen: false`).
    public func markPlacesSeen() throws(CatalogError) {
        try write { db in
            // `OR IGNORE`: no statement journal (see `applyPlaces`).
            try db.execute(sql: "UPDATE OR IGNORE asset SET places_derived = 1 WHERE places_derived = 0 AND trashed_at IS NULL")
        }
    }
}
