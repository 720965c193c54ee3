import Foundation
import GRDB
import PhotoModel

// PhotoKit change requests (`PHAssetChangeRequest`, `PHAssetCollectionChangeRequest`,
// `PHCollectionListChangeRequest`) performed on the catalog — never on the source files. A `ChangeSet`
// is `performChanges`: every change runs in ONE write transaction, all or nothing. Changes may create
// objects under placeholders (`$name`) and later changes may refer to them.

/// One change of a change set. Which fields matter depends on `op` (see `ChangeSet`'s documentation in
/// docs/changes.md); unknown fields are ignored, missing required ones are an error naming the change.
public struct Change: Codable, Sendable, Equatable {
    public enum Op: String, Codable, Sendable, CaseIterable {
        /// `asset` + `value` (isFavorite).
        case favorite
        /// `asset` + `value` (isHidden).
        case hide
        /// `asset` + `date` (ISO-8601 local wall clock, optional `Z`/`±HH:MM`).
        case setCreationDate
        /// `asset` + `latitude`/`longitude`[/`altitude`]; none of them clears the location.
        case setLocation
        /// `asset` to Recently Deleted (`deleteAssets`).
        case delete
        /// `asset` back from Recently Deleted.
        case restore
        /// `asset` (already in Recently Deleted) removed from the catalog.
        case purge
        /// `title` [+ `folder`] [+ `placeholder`]: a new album.
        case createAlbum
        /// `title` [+ `folder`] [+ `placeholder`]: a new folder.
        case createFolder
        /// `collection` (album or folder) + `title`.
        case rename
        /// `collection`: an album, or an empty folder.
        case deleteCollection
        /// `album` + `assets`, appended (members already there stay where they are).
        case addAssets
        /// `album` + `assets`.
        case removeAssets
        /// `album` + `assets`: these members first, in this order; the others follow in their order.
        case reorder
    }

    public var op: Op
    public var placeholder: String?
    public var asset: String?
    public var assets: [String]?
    public var album: String?
    public var collection: String?
    public var folder: String?
    public var title: String?
    public var value: Bool?
    public var date: String?
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?

    public init(
        op: Op, placeholder: String? = nil, asset: String? = nil, assets: [String]? = nil, album: String? = nil, collection: String? = nil,
        folder: String? = nil, title: String? = nil, value: Bool? = nil, date: String? = nil, latitude: Double? = nil,
        longitude: Double? = nil, altitude: Double? = nil
    ) {
        self.op = op
        self.placeholder = placeholder
        self.asset = asset
        self.assets = assets
        self.album = album
        self.collection = collection
        self.folder = folder
        self.title = title
        self.value = value
        self.date = date
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }
}

/// `{"changes": [...]}`: performed all-or-nothing by `Catalog.perform(_:)`.
public struct ChangeSet: Codable, Sendable, Equatable {
    public var changes: [Change]

    public init(changes: [Change]) { self.changes = changes }

    /// Decodes a change set, with a readable message on failure.
    public static func decode(_ data: Data) throws(CatalogError) -> ChangeSet {
        do {
            return try JSONDecoder().decode(ChangeSet.self, from: data)
        } catch let DecodingError.dataCorrupted(c) {
            throw CatalogError(.invalidChange, "not a change set: \(c.debugDescription)")
        } catch let DecodingError.keyNotFound(k, c) {
            throw CatalogError(.invalidChange, "not a change set: missing '\(k.stringValue)' at \(Self.path(c.codingPath))")
        } catch let DecodingError.typeMismatch(_, c) {
            throw CatalogError(.invalidChange, "not a change set: \(c.debugDescription) at \(Self.path(c.codingPath))")
        } catch let DecodingError.valueNotFound(_, c) {
            throw CatalogError(.invalidChange, "not a change set: \(c.debugDescription) at \(Self.path(c.codingPath))")
        } catch {
            throw CatalogError(.invalidChange, "not a change set: \(error)")
        }
    }

    static func path(_ p: [any CodingKey]) -> String {
        p.isEmpty ? "top level" : p.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined()
    }
}

extension Catalog {
    /// `performChanges`: runs every change in one transaction; on any failure nothing is applied and the
    /// error names the change (0-based index) and the reason. Returns placeholder → new local identifier.
    @discardableResult
    public func perform(_ changeSet: ChangeSet) throws(CatalogError) -> [String: String] {
        try write { db in
            var ctx = ChangeContext(db: db)
            for (k, c) in changeSet.changes.enumerated() {
                do {
                    try ctx.apply(c)
                } catch let e as ChangeFailure {
                    throw CatalogError(.invalidChange, "change \(k) (\(c.op.rawValue)): \(e.reason); nothing was applied")
                } catch let e as CatalogError {
                    // A message with a list (the albums a title names) keeps the list last.
                    let lines = e.message.split(separator: "\n", maxSplits: 1)
                    let message = "change \(k) (\(c.op.rawValue)): \(lines[0]); nothing was applied" + (lines.count > 1 ? "\n" + lines[1] : "")
                    throw CatalogError(e.code == .sql ? .sql : .invalidChange, message)
                } catch {
                    throw CatalogError(.sql, "change \(k) (\(c.op.rawValue)): \(error); nothing was applied")
                }
            }
            try ctx.flushHistory()
            return ctx.placeholders
        }
    }

    /// What `perform` would do, found by performing the set on a `ScratchCatalog` copy: the change records
    /// it would add to the history, placeholders' made-up identifiers replaced by the placeholder names. A
    /// failing set throws as `perform` does. This catalog is only read.
    public func preview(_ changeSet: ChangeSet) throws(CatalogError) -> [ChangeRecord] {
        let scratch = try ScratchCatalog(copying: self)
        let before = try scratch.catalog.currentToken()
        let placeholders = try scratch.catalog.perform(changeSet)
        let names = Dictionary(placeholders.map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
        return try scratch.catalog.changes(since: before).map { r in
            var r = r
            r.localIdentifier = names[r.localIdentifier] ?? r.localIdentifier
            return r
        }
    }

    /// Every catalog table that change requests touch, serialised row by row in a stable order (for tests:
    /// two equal dumps mean the same catalog state).
    public func dump() throws(CatalogError) -> String {
        try read { db in
            var out = ""
            for (table, order) in [
                ("asset", "id"), ("resource", "id"), ("collection", "id"), ("collection_membership", "collection_id, asset_id"),
                ("collection_list", "id"), ("change", "token"), ("meta", "key"), ("sqlite_sequence", "name"),
            ] {
                out += "# \(table)\n"
                for r in try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY \(order)") {
                    out += r.columnNames.map { "\($0)=\(r[$0] as DatabaseValue)" }.joined(separator: "|") + "\n"
                }
            }
            return out
        }
    }
}

struct ChangeFailure: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

/// The state of one `perform`: placeholders made so far and the history to record, coalesced per object
/// (PhotoKit reports one change per object per transaction: inserted absorbs later updates; properties
/// of several updates are merged; a deletion wins).
struct ChangeContext {
    let db: Database
    var placeholders: [String: String] = [:]
    var pending: [(type: String, lid: String, change: String, props: [String])] = []
    let now = Catalog.now()

    init(db: Database) { self.db = db }

    mutating func note(_ type: String, _ lid: String, _ change: String, _ props: [String] = []) {
        if let k = pending.firstIndex(where: { $0.type == type && $0.lid == lid }) {
            switch (pending[k].change, change) {
            case ("inserted", "deleted"): pending.remove(at: k)
            case ("inserted", _): break
            case (_, "deleted"): pending[k] = (type, lid, "deleted", props)
            case ("updated", "updated"):
                for p in props where !pending[k].props.contains(p) { pending[k].props.append(p) }
            default: break
            }
        } else {
            pending.append((type, lid, change, props))
        }
    }

    func flushHistory() throws {
        for p in pending { _ = try Catalog.record(db, nil, p.type, p.lid, p.change, p.props) }
    }

    func resolve(_ ref: String?, _ what: String) throws -> String {
        guard let ref, !ref.isEmpty else { throw ChangeFailure("missing '\(what)'") }
        if ref.hasPrefix("$") {
            guard let lid = placeholders[ref] else { throw ChangeFailure("unknown placeholder '\(ref)' (\(what))") }
            return lid
        }
        return ref
    }

    func assetRow(_ ref: String?, _ what: String = "asset") throws -> Row {
        let lid = try resolve(ref, what)
        guard let r = try Row.fetchOne(db, sql: "SELECT id, local_identifier, trashed_at, user_properties FROM asset WHERE local_identifier = ?", arguments: [lid])
        else { throw ChangeFailure("no asset '\(lid)'") }
        return r
    }

    /// A user album (type album, not transient).
    func albumRow(_ ref: String?, _ what: String = "album") throws -> Row {
        var lid = try resolve(ref, what)
        // A title names an album when exactly one has it (`Catalog.resolveAlbum`); identifiers go on as before.
        if ref?.hasPrefix("$") == false, try Row.fetchOne(db, sql: "SELECT 1 FROM collection WHERE local_identifier = ?", arguments: [lid]) == nil {
            lid = try Catalog.resolveAlbum(db, lid)
        }
        guard let r = try Row.fetchOne(db, sql: "SELECT id, local_identifier, type, transient, list_id, by_user FROM collection WHERE local_identifier = ?", arguments: [lid])
        else { throw ChangeFailure("no album '\(lid)'") }
        guard (r["type"] as Int) == AssetCollectionType.album.rawValue, (r["transient"] as Bool) == false else {
            throw ChangeFailure("'\(lid)' is not a user album (smart albums, moments and saved fetches cannot be edited)")
        }
        guard r["by_user"] as Bool else {
            throw ChangeFailure(
                "'\(lid)' is the album of a directory: it follows the files there (organize makes it anew); make an album of your own with createAlbum (--create-album)")
        }
        return r
    }

    func folderRow(_ lid: String) throws -> Row? {
        guard let r = try Row.fetchOne(db, sql: "SELECT id, local_identifier, type, children, by_user FROM collection_list WHERE local_identifier = ?", arguments: [lid])
        else { return nil }
        guard (r["type"] as Int) == CollectionListType.folder.rawValue else {
            throw ChangeFailure("'\(lid)' is not a folder (moment lists cannot be edited)")
        }
        guard r["by_user"] as Bool else {
            throw ChangeFailure(
                "'\(lid)' is the folder of a directory: it follows the files there (organize makes it anew); make a folder of your own with createFolder (--create-folder)")
        }
        return r
    }

    func title(_ c: Change) throws -> String {
        guard let t = c.title, !t.trimmingCharacters(in: .whitespaces).isEmpty else { throw ChangeFailure("missing or empty 'title'") }
        return t
    }

    mutating func setAsset(_ c: Change, _ sql: String, _ args: [any DatabaseValueConvertible], _ prop: String) throws {
        let r = try assetRow(c.asset)
        // Remembered, so that a re-ingest or re-derivation keeps what the user set.
        var mine = ((r["user_properties"] as String?) ?? "").split(separator: ",").map(String.init)
        if !mine.contains(prop) { mine.append(prop) }
        try db.execute(
            sql: "UPDATE asset SET \(sql), user_properties = ?, modification_date = ? WHERE id = ?",
            arguments: StatementArguments(args + [mine.sorted().joined(separator: ","), now, r["id"] as Int64]))
        note("asset", r["local_identifier"], "updated", [prop])
    }

    func members(_ cid: Int64) throws -> [Int64] { try Catalog.memberRows(db, cid) }

    mutating func apply(_ c: Change) throws {
        switch c.op {
        case .favorite, .hide:
            guard let v = c.value else { throw ChangeFailure("missing 'value' (true or false)") }
            try setAsset(c, c.op == .favorite ? "is_favorite = ?" : "is_hidden = ?", [v], c.op == .favorite ? "isFavorite" : "isHidden")
        case .setCreationDate:
            guard let d = c.date else { throw ChangeFailure("missing 'date'") }
            guard let parsed = Self.parseDate(d) else { throw ChangeFailure("'\(d)' is not an ISO-8601 date (YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM])") }
            try setAsset(c, "creation_date = ?, creation_offset = ?, creation_date_source = 'user'", [parsed.local, parsed.offsetSeconds], "creationDate")
        case .setLocation:
            switch (c.latitude, c.longitude) {
            case (nil, nil):
                guard c.altitude == nil else { throw ChangeFailure("'altitude' without 'latitude' and 'longitude'") }
                try setAsset(c, "latitude = NULL, longitude = NULL, altitude = NULL, location_source = NULL", [], "location")
            case (let lat?, let lon?):
                guard (-90...90).contains(lat), (-180...180).contains(lon) else { throw ChangeFailure("location \(lat),\(lon) is out of range") }
                try setAsset(c, "latitude = ?, longitude = ?, altitude = ?, location_source = 'user'", [lat, lon, c.altitude], "location")
            default: throw ChangeFailure("give both 'latitude' and 'longitude' (or neither, to clear the location)")
            }
        case .delete, .restore:
            let r = try assetRow(c.asset)
            let trashed = (r["trashed_at"] as String?) != nil
            if c.op == .delete && trashed { throw ChangeFailure("asset '\(r["local_identifier"] as String)' is already in Recently Deleted") }
            if c.op == .restore && !trashed { throw ChangeFailure("asset '\(r["local_identifier"] as String)' is not in Recently Deleted") }
            try db.execute(
                sql: "UPDATE asset SET trashed_at = ?, modification_date = ? WHERE id = ?",
                arguments: [c.op == .delete ? now : nil, now, r["id"] as Int64])
            note("asset", r["local_identifier"], "updated", ["isTrashed"])
        case .purge:
            let r = try assetRow(c.asset)
            guard (r["trashed_at"] as String?) != nil else {
                throw ChangeFailure("asset '\(r["local_identifier"] as String)' is not in Recently Deleted (delete it first)")
            }
            // Albums lose the member (memberships cascade): record them as updated.
            for lid in try String.fetchAll(
                db, sql: "SELECT c.local_identifier FROM collection c JOIN collection_membership m ON m.collection_id = c.id WHERE m.asset_id = ? AND c.transient = 0 AND c.type = 1",
                arguments: [r["id"] as Int64])
            {
                note("assetCollection", lid, "updated", ["assets"])
            }
            try db.execute(sql: "DELETE FROM asset WHERE id = ?", arguments: [r["id"] as Int64])
            note("asset", r["local_identifier"], "deleted", ["purged"])
        case .createAlbum, .createFolder:
            let t = try title(c)
            if let p = c.placeholder {
                guard p.hasPrefix("$"), p.count > 1 else { throw ChangeFailure("placeholder '\(p)' must start with '$'") }
                guard placeholders[p] == nil else { throw ChangeFailure("placeholder '\(p)' is already used") }
            }
            var parent: Row?
            if let f = c.folder {
                let flid = try resolve(f, "folder")
                guard let row = try folderRow(flid) else { throw ChangeFailure("no folder '\(flid)'") }
                parent = row
            }
            let lid: String
            if c.op == .createAlbum {
                lid = UUID().uuidString.uppercased() + "/L0/040"
                try db.execute(
                    sql: "INSERT INTO collection(local_identifier, type, subtype, title, list_id, by_user) VALUES (?, ?, ?, ?, ?, 1)",
                    arguments: [lid, AssetCollectionType.album.rawValue, AssetCollectionSubtype.albumRegular.rawValue, t, parent?["id"] as Int64?])
                note("assetCollection", lid, "inserted")
            } else {
                lid = UUID().uuidString.uppercased() + "/L0/010"
                try db.execute(
                    sql: "INSERT INTO collection_list(local_identifier, type, subtype, title, children, parent_id, by_user) VALUES (?, ?, ?, ?, '', ?, 1)",
                    arguments: [lid, CollectionListType.folder.rawValue, CollectionListSubtype.regularFolder.rawValue, t, parent?["id"] as Int64?])
                note("collectionList", lid, "inserted")
            }
            if let parent {
                let kids: String = parent["children"]
                try db.execute(
                    sql: "UPDATE collection_list SET children = ? WHERE id = ?",
                    arguments: [kids.isEmpty ? lid : kids + "\n" + lid, parent["id"] as Int64])
                note("collectionList", parent["local_identifier"], "updated", ["collections"])
            }
            if let p = c.placeholder { placeholders[p] = lid }
        case .rename:
            let t = try title(c)
            let lid = try resolve(c.collection, "collection")
            if let f = try folderRow(lid) {
                try db.execute(sql: "UPDATE collection_list SET title = ? WHERE id = ?", arguments: [t, f["id"] as Int64])
                note("collectionList", lid, "updated", ["localizedTitle"])
            } else {
                let a = try albumRow(lid, "collection")
                try db.execute(sql: "UPDATE collection SET title = ? WHERE id = ?", arguments: [t, a["id"] as Int64])
                note("assetCollection", lid, "updated", ["localizedTitle"])
            }
        case .deleteCollection:
            let lid = try resolve(c.collection, "collection")
            let type: String
            if let f = try folderRow(lid) {
                guard (f["children"] as String).isEmpty else { throw ChangeFailure("folder '\(lid)' is not empty") }
                try db.execute(sql: "DELETE FROM collection_list WHERE id = ?", arguments: [f["id"] as Int64])
                type = "collectionList"
            } else {
                let a = try albumRow(lid, "collection")
                try db.execute(sql: "DELETE FROM collection WHERE id = ?", arguments: [a["id"] as Int64])
                type = "assetCollection"
            }
            // Out of its parent folder.
            for p in try Row.fetchAll(db, sql: "SELECT id, local_identifier, children FROM collection_list WHERE type = 2 AND instr(children, ?) > 0", arguments: [lid]) {
                let kids = (p["children"] as String).split(separator: "\n").map(String.init)
                guard kids.contains(lid) else { continue }
                try db.execute(
                    sql: "UPDATE collection_list SET children = ? WHERE id = ?",
                    arguments: [kids.filter { $0 != lid }.joined(separator: "\n"), p["id"] as Int64])
                note("collectionList", p["local_identifier"], "updated", ["collections"])
            }
            note(type, lid, "deleted")
        case .addAssets, .removeAssets, .reorder:
            let album = try albumRow(c.album)
            let cid: Int64 = album["id"]
            guard let refs = c.assets, !refs.isEmpty else { throw ChangeFailure("missing or empty 'assets'") }
            var ids: [Int64] = []
            for ref in refs { ids.append(try assetRow(ref)["id"]) }
            let old = try members(cid)
            var new: [Int64]
            switch c.op {
            case .addAssets:
                new = old
                for id in ids where !new.contains(id) { new.append(id) }
            case .removeAssets:
                let drop = Set(ids)
                new = old.filter { !drop.contains($0) }
            default:
                let current = Set(old)
                for (ref, id) in zip(refs, ids) where !current.contains(id) { throw ChangeFailure("asset '\(ref)' is not in the album") }
                guard Set(ids).count == ids.count else { throw ChangeFailure("an asset is listed twice") }
                let first = Set(ids)
                new = ids + old.filter { !first.contains($0) }
            }
            if new != old {
                try Catalog.setMembers(db, cid, new)
                note("assetCollection", album["local_identifier"], "updated", ["assets"])
            }
        }
    }

    /// `YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|±HH[:]MM]` → the catalog's local wall clock and offset.
    static func parseDate(_ s: String) -> AssetDate? {
        guard let m = s.wholeMatch(of: /(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?/) else { return nil }
        guard let mo = Int(m.2), (1...12).contains(mo), let d = Int(m.3), (1...31).contains(d) else { return nil }
        let hh = m.4.map(String.init) ?? "00", mi = m.5.map(String.init) ?? "00", ss = m.6.map(String.init) ?? "00"
        guard let h = Int(hh), h < 24, let mm = Int(mi), mm < 60, let sec = Int(ss), sec < 60 else { return nil }
        let local = "\(m.1)-\(m.2)-\(m.3)T\(hh):\(mi):\(ss)" + (m.7.map(String.init) ?? "")
        var offset: Int?
        if let z = m.8 {
            if z == "Z" {
                offset = 0
            } else {
                let digits = z.dropFirst().filter(\.isNumber)
                guard let oh = Int(digits.prefix(2)), let om = Int(digits.suffix(2)), oh <= 14, om < 60 else { return nil }
                offset = (z.first == "-" ? -1 : 1) * (oh * 3600 + om * 60)
            }
        }
        return AssetDate(local: local, offsetSeconds: offset)
    }
}
