import Foundation
import GRDB
import PhotoModel

/// `NSSortDescriptor` over an asset key path.
public struct SortDescriptor: Sendable, Equatable {
    public var key: String
    public var ascending: Bool

    public init(key: String, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }

    /// `creationDate` or `-creationDate` (descending).
    public init(parsing text: String) {
        if text.hasPrefix("-") {
            self.init(key: String(text.dropFirst()), ascending: false)
        } else {
            self.init(key: text.hasPrefix("+") ? String(text.dropFirst()) : text, ascending: true)
        }
    }

    /// Sortable key paths and their columns.
    public static let columns: [String: String] = [
        "creationDate": "a.creation_date", "modificationDate": "a.modification_date", "addedDate": "a.added_date",
        "filename": "a.filename", "pixelWidth": "a.pixel_width", "pixelHeight": "a.pixel_height", "duration": "a.duration",
        "mediaType": "a.media_type", "mediaSubtypes": "a.media_subtypes", "isFavorite": "a.is_favorite", "isHidden": "a.is_hidden",
        "make": "a.make", "model": "a.model", "lensModel": "a.lens_model", "localIdentifier": "a.local_identifier",
        "burstIdentifier": "a.burst_identifier", "latitude": "a.latitude", "longitude": "a.longitude", "path": "a.primary_path",
    ]
}

/// `PHFetchOptions`: a predicate (already compiled to parameterised SQL), sort descriptors, a limit, and
/// PhotoKit's inclusion switches.
public struct FetchOptions: Sendable {
    /// A boolean SQL expression over `asset a` (from `PredicateCompiler`), with its arguments (values are
    /// never spliced into SQL text).
    public var predicateSQL: String?
    public var predicateArguments: [PredicateValue] = []
    public var sortDescriptors: [SortDescriptor] = []
    public var fetchLimit: Int?
    public var includeHiddenAssets = false
    /// PhotoKit shows only a burst's representative unless asked for all.
    public var includeAllBurstAssets = false
    public var includeTrashed = false

    public init() {}

    /// Options with a compiled predicate.
    public init(predicate: CompiledPredicate) {
        predicateSQL = predicate.sql
        predicateArguments = predicate.arguments
    }
}

extension PredicateValue {
    var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .int(let v): return v.databaseValue
        case .double(let v): return v.databaseValue
        case .text(let v): return v.databaseValue
        }
    }
}

/// `PHFetchResult<PHAsset>`: the identifiers of the matching assets in order, with objects loaded lazily
/// in batches. `count`, `index(of:)` and `contains` are answered from identifiers without loading rows;
/// memory is 8 bytes per result plus one batch of objects.
public final class FetchResult: @unchecked Sendable {
    let catalog: Catalog
    /// Row ids in result order.
    public let rowIDs: [Int64]
    public let batchSize: Int
    private var cache: (start: Int, assets: [StoredAsset])?

    init(catalog: Catalog, rowIDs: [Int64], batchSize: Int) {
        self.catalog = catalog
        self.rowIDs = rowIDs
        self.batchSize = max(1, batchSize)
    }

    public var count: Int { rowIDs.count }

    /// The asset at `index`, loading the batch around it.
    public func object(at index: Int) throws(CatalogError) -> StoredAsset {
        guard index >= 0 && index < rowIDs.count else { throw CatalogError(.notFound, "index \(index) is outside 0..<\(rowIDs.count)") }
        if let c = cache, index >= c.start, index < c.start + c.assets.count { return c.assets[index - c.start] }
        let start = (index / batchSize) * batchSize
        let batch = try catalog.assets(rowIDs: Array(rowIDs[start..<min(rowIDs.count, start + batchSize)]))
        cache = (start, batch)
        return batch[index - start]
    }

    public var firstObject: StoredAsset? { count > 0 ? try? object(at: 0) : nil }
    public var lastObject: StoredAsset? { count > 0 ? try? object(at: count - 1) : nil }

    /// The position of an asset, by local identifier, without loading objects (NSNotFound → nil).
    public func index(of localIdentifier: String) throws(CatalogError) -> Int? {
        guard let id = try catalog.rowID(localIdentifier: localIdentifier) else { return nil }
        return rowIDs.firstIndex(of: id)
    }

    public func contains(_ localIdentifier: String) throws(CatalogError) -> Bool { try index(of: localIdentifier) != nil }

    /// Enumerates in batches of at least 1000 (two queries each); memory holds one batch.
    public func enumerate(_ body: (Int, StoredAsset) throws -> Void) throws {
        let step = max(batchSize, 1000)
        var start = 0
        while start < rowIDs.count {
            let batch = try catalog.assets(rowIDs: Array(rowIDs[start..<min(rowIDs.count, start + step)]))
            for (k, a) in batch.enumerated() { try body(start + k, a) }
            start += step
        }
    }
}

extension Catalog {
    /// `PHAsset.fetchAssets(with:)`: every asset matching the options.
    public func fetchAssets(_ options: FetchOptions = FetchOptions(), batchSize: Int = 200) throws(CatalogError) -> FetchResult {
        let (sql, args) = try Self.fetchSQL("a.id", options)
        let ids = try read { db in try Int64.fetchAll(db, sql: sql, arguments: StatementArguments(args)) }
        return FetchResult(catalog: self, rowIDs: ids, batchSize: batchSize)
    }

    /// `SELECT columns FROM asset a` with the options' filters, order (ties by row id) and limit: the one
    /// statement both the id list of `fetchAssets` and the row stream (`forEachAssetRow`) run.
    static func fetchSQL(_ columns: String, _ options: FetchOptions) throws(CatalogError) -> (String, [DatabaseValue]) {
        let (whereSQL, args) = whereClause(options)
        var order: [String] = []
        for s in options.sortDescriptors {
            guard let col = SortDescriptor.columns[s.key] else { throw CatalogError(.notFound, "cannot sort by '\(s.key)': not a sortable key path") }
            order.append("\(col) \(s.ascending ? "ASC" : "DESC")")
        }
        order.append("a.id ASC")
        var sql = "SELECT \(columns) FROM asset a" + whereSQL + " ORDER BY " + order.joined(separator: ", ")
        if let limit = options.fetchLimit, limit >= 0 { sql += " LIMIT \(limit)" }
        return (sql, args)
    }

    /// The number of assets a fetch would return, counted by SQLite without materialising identifiers.
    public func countAssets(_ options: FetchOptions = FetchOptions()) throws(CatalogError) -> Int {
        let (whereSQL, args) = Self.whereClause(options)
        var n = try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM asset a" + whereSQL, arguments: StatementArguments(args)) ?? 0 }
        if let limit = options.fetchLimit, limit >= 0 { n = min(n, limit) }
        return n
    }

    static func whereClause(_ options: FetchOptions) -> (String, [DatabaseValue]) {
        var clauses: [String] = []
        var args: [DatabaseValue] = []
        if !options.includeTrashed { clauses.append("a.trashed_at IS NULL") }
        if !options.includeHiddenAssets { clauses.append("a.is_hidden = 0") }
        if !options.includeAllBurstAssets {
            clauses.append("(a.burst_identifier IS NULL OR a.represents_burst = 1 OR NOT EXISTS (SELECT 1 FROM asset b WHERE b.burst_identifier = a.burst_identifier AND b.represents_burst = 1))")
        }
        if let p = options.predicateSQL {
            clauses.append("(\(p))")
            args += options.predicateArguments.map(\.databaseValue)
        }
        return (clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND "), args)
    }

    /// `fetchAssets(with: mediaType, options:)`.
    public func fetchAssets(mediaType: MediaType, _ options: FetchOptions = FetchOptions()) throws(CatalogError) -> FetchResult {
        var o = options
        let clause = "a.media_type = \(mediaType.rawValue)"
        o.predicateSQL = o.predicateSQL.map { "(\($0)) AND \(clause)" } ?? clause
        return try fetchAssets(o)
    }

    /// `fetchAssets(withLocalIdentifiers:options:)`, in the order given.
    public func fetchAssets(localIdentifiers: [String]) throws(CatalogError) -> FetchResult {
        var ids: [Int64] = []
        for l in localIdentifiers { if let id = try rowID(localIdentifier: l) { ids.append(id) } }
        return FetchResult(catalog: self, rowIDs: ids, batchSize: 200)
    }

    /// `fetchAssets(withBurstIdentifier:options:)`: every frame of a burst, in capture order.
    public func fetchAssets(burstIdentifier: String) throws(CatalogError) -> FetchResult {
        var o = FetchOptions()
        o.includeAllBurstAssets = true
        o.predicateSQL = "a.burst_identifier = ?"
        o.predicateArguments = [.text(burstIdentifier)]
        o.sortDescriptors = [SortDescriptor(key: "creationDate")]
        return try fetchAssets(o)
    }

    /// `fetchAssets(in: collection, options:)` for a stored collection (by local identifier), in its order.
    public func fetchAssets(inCollection localIdentifier: String, _ options: FetchOptions = FetchOptions()) throws(CatalogError) -> FetchResult {
        var o = options
        let clause = "a.id IN (SELECT m.asset_id FROM collection_membership m JOIN collection c ON c.id = m.collection_id WHERE c.local_identifier = ?)"
        o.predicateSQL = o.predicateSQL.map { "(\($0)) AND \(clause)" } ?? clause
        o.predicateArguments = options.predicateArguments + [.text(localIdentifier)]
        return try fetchAssets(o)
    }

    func rowID(localIdentifier: String) throws(CatalogError) -> Int64? {
        try read { db in try Int64.fetchOne(db, sql: "SELECT id FROM asset WHERE local_identifier = ?", arguments: [localIdentifier]) }
    }

    /// Assets by row id, in the order given.
    func assets(rowIDs: [Int64]) throws(CatalogError) -> [StoredAsset] {
        guard !rowIDs.isEmpty else { return [] }
        return try read { db in
            let marks = Array(repeating: "?", count: rowIDs.count).joined(separator: ",")
            // All resources of the batch in one query.
            var resources: [Int64: [Row]] = [:]
            let resourceStatement = try db.makeStatement(sql: "SELECT * FROM resource WHERE asset_id IN (\(marks)) ORDER BY asset_id, ord")
            let resourceIndex = ColumnIndex(names: resourceStatement.columnNames)
            let rc = ResourceColumns(resourceIndex)
            let resourceRows = try Row.fetchCursor(resourceStatement, arguments: StatementArguments(rowIDs))
            let assetIDColumn = resourceIndex.i("asset_id")
            while let r = try resourceRows.next() { resources[r[assetIDColumn], default: []].append(r.copy()) }
            // Asset rows are read in place (a cursor's row is not copied) and turned into values at once.
            var byID: [Int64: StoredAsset] = [:]
            byID.reserveCapacity(rowIDs.count)
            let statement = try db.makeStatement(sql: "SELECT * FROM asset WHERE id IN (\(marks))")
            let assetIndex = ColumnIndex(names: statement.columnNames)
            let c = AssetColumns(assetIndex)
            let rows = try Row.fetchCursor(statement, arguments: StatementArguments(rowIDs))
            let idColumn = assetIndex.i("id")
            while let r = try rows.next() {
                let id: Int64 = r[idColumn]
                byID[id] = Self.storedAsset(r, resources: resources[id] ?? [], c, rc)
            }
            return rowIDs.compactMap { byID[$0] }
        }
    }

    /// Library statistics: counts by media type, subtype, trait, year and camera.
    public func statistics() throws(CatalogError) -> [(section: String, rows: [(String, Int)])] {
        try read { db in
            func grouped(_ expr: String) throws -> [(String, Int)] {
                try Row.fetchAll(db, sql: "SELECT \(expr) AS k, COUNT(*) AS n FROM asset a WHERE a.trashed_at IS NULL GROUP BY k ORDER BY n DESC, k")
                    .map { (($0["k"] as String?) ?? "(none)", $0["n"]) }
            }
            func byCount(_ counts: [String: Int]) -> [(String, Int)] {
                counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { ($0.key, $0.value) }
            }
            var out: [(String, [(String, Int)])] = []
            out.append(("media type", try grouped("CASE a.media_type WHEN 1 THEN 'image' WHEN 2 THEN 'video' WHEN 3 THEN 'audio' ELSE 'unknown' END")))
            var subs: [(String, Int)] = []
            for (bit, name) in MediaSubtypes.named {
                let n = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM asset WHERE trashed_at IS NULL AND (media_subtypes & ?) != 0", arguments: [Int64(bit.rawValue)]) ?? 0
                if n > 0 { subs.append((name, n)) }
            }
            out.append(("subtype", subs))
            var traits: [String: Int] = [:]
            for t in try String.fetchAll(db, sql: "SELECT traits FROM asset WHERE trashed_at IS NULL AND traits != ''") {
                for name in t.split(separator: ",") { traits[String(name), default: 0] += 1 }
            }
            out.append(("trait", byCount(traits)))
            // Years in order, oldest first; undated assets last. An undated asset's date is its file's
            // modification time: counted apart, not under that year.
            let undated = "(a.creation_date IS NULL OR a.creation_date_source LIKE '\(Asset.fileTimeDateSource)%')"
            let years = try Row.fetchAll(
                db,
                sql: """
                    SELECT CASE WHEN \(undated) THEN 'undated' ELSE substr(a.creation_date, 1, 4) END AS k, COUNT(*) AS n
                    FROM asset a WHERE a.trashed_at IS NULL GROUP BY k ORDER BY k = 'undated', k
                    """
            ).map { (($0["k"] as String?) ?? "undated", $0["n"] as Int) }
            out.append(("year", years))
            // Every live asset is in one year row (undated included): the totals come from them.
            let total = years.reduce(0) { $0 + $1.1 }
            out.insert(("total", [("assets", total), ("undated", years.first { $0.0 == "undated" }?.1 ?? 0)]), at: 0)
            // Cameras as Photos names them ("Canon EOS 350D", not "Canon Canon EOS 350D DIGITAL").
            var cameras: [String: Int] = [:]
            for r in try Row.fetchAll(db, sql: "SELECT a.make AS make, a.model AS model, COUNT(*) AS n FROM asset a WHERE a.trashed_at IS NULL GROUP BY make, model") {
                cameras[CameraName.display(make: r["make"], model: r["model"]) ?? "(none)", default: 0] += r["n"] as Int
            }
            out.append(("camera", byCount(cameras)))
            return out.map { (section: $0.0, rows: $0.1) }
        }
    }
}

extension Catalog {
    /// An asset by local identifier, cloud identifier, or primary resource path.
    public func findAsset(_ key: String) throws(CatalogError) -> StoredAsset? {
        if let a = try asset(localIdentifier: key) { return a }
        return try read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT a.* FROM asset a WHERE a.cloud_identifier = ? OR a.primary_path = ?
                        OR a.id IN (SELECT asset_id FROM resource WHERE path = ?) ORDER BY a.trashed_at IS NOT NULL LIMIT 1
                    """, arguments: [key, key, key])
            if let row { return try Self.storedAsset(db, row) }
            // An absolute path: a root it lies in, then the path below it.
            if key.hasPrefix("/") {
                for root in try String.fetchAll(db, sql: "SELECT DISTINCT root FROM asset") {
                    guard let rel = PathText.relative(key, to: root) else { continue }  // by bytes, as stored
                    if let r = try Row.fetchOne(
                        db,
                        sql: """
                            SELECT a.* FROM asset a WHERE a.root = ? AND (a.primary_path = ? OR a.id IN (SELECT asset_id FROM resource WHERE path = ?))
                            ORDER BY a.trashed_at IS NOT NULL LIMIT 1
                            """, arguments: [root, rel, rel])
                    {
                        return try Self.storedAsset(db, r)
                    }
                }
                return nil
            }
            // A file name alone: when exactly one asset has a file of that name.
            guard !key.contains("/") else { return nil }
            let hits = try Row.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT a.id, a.local_identifier, a.root, r.path FROM resource r JOIN asset a ON a.id = r.asset_id
                    WHERE r.path = ? OR r.path LIKE ? ESCAPE '\\' ORDER BY a.local_identifier, r.path
                    """, arguments: [key, "%/" + Self.escapeLike(key)])
            let ids = Set(hits.map { $0["id"] as Int64 })
            if ids.count > 1 {
                var lines = ["\(ids.count) assets have a file named '\(key)'; give one's identifier or path:"]
                for h in hits { lines.append("  \(h["local_identifier"] as String)  \(h["root"] as String)/\(h["path"] as String)") }
                throw CatalogError(.ambiguous, lines.joined(separator: "\n"))
            }
            guard let id = ids.first, let r = try Row.fetchOne(db, sql: "SELECT * FROM asset WHERE id = ?", arguments: [id]) else { return nil }
            return try Self.storedAsset(db, r)
        }
    }

    static func escapeLike(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }

    /// Titles (and identifiers) of the collections an asset belongs to.
    public func collections(containing localIdentifier: String) throws(CatalogError) -> [String] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT c.title, c.local_identifier FROM collection c JOIN collection_membership m ON m.collection_id = c.id
                    JOIN asset a ON a.id = m.asset_id WHERE a.local_identifier = ? ORDER BY c.type, c.title
                    """, arguments: [localIdentifier]
            ).map { "\(($0["title"] as String?) ?? "untitled") [\($0["local_identifier"] as String)]" }
        }
    }
}

extension Catalog {
    /// A fetch result narrowed to some row ids, order kept.
    public func restrict(_ result: FetchResult, to keep: Set<Int64>) throws(CatalogError) -> FetchResult {
        FetchResult(catalog: self, rowIDs: result.rowIDs.filter { keep.contains($0) }, batchSize: result.batchSize)
    }

    /// Saves a result's assets as a transient collection (`shoebox query --save NAME`); replaces an earlier one.
    public func saveFetch(named name: String, rowIDs: [Int64]) throws(CatalogError) {
        try write { db in
            try db.execute(sql: "DELETE FROM collection WHERE transient = 1 AND title = ?", arguments: [name])
            try db.execute(
                sql: "INSERT INTO collection(local_identifier, type, subtype, title, transient) VALUES (?, 1, 2, ?, 1)",
                arguments: [UUID().uuidString + "/L0/040", name])
            let cid = db.lastInsertedRowID
            for (k, id) in rowIDs.enumerated() {
                try db.execute(sql: "INSERT INTO collection_membership(collection_id, asset_id, position) VALUES (?, ?, ?)", arguments: [cid, id, k])
            }
        }
    }

    /// The saved fetches (`query --save NAME`), by name, with their live counts.
    public func savedFetches() throws(CatalogError) -> [StoredCollection] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT c.local_identifier, c.title, c.saved_token,
                        (SELECT COUNT(*) FROM collection_membership m JOIN asset a ON a.id = m.asset_id
                         WHERE m.collection_id = c.id AND a.trashed_at IS NULL) AS n
                    FROM collection c WHERE c.transient = 1 ORDER BY c.title
                    """
            ).map {
                var c = StoredCollection(
                    localIdentifier: $0["local_identifier"], type: 1, subtype: 2, title: $0["title"] ?? "", count: $0["n"])
                c.isSavedFetch = true
                return c
            }
        }
    }

    /// Deletes a saved fetch; false when there is none by that name.
    @discardableResult
    public func deleteSavedFetch(named name: String) throws(CatalogError) -> Bool {
        try write { db in
            guard let cid = try Int64.fetchOne(db, sql: "SELECT id FROM collection WHERE transient = 1 AND title = ?", arguments: [name]) else {
                return false
            }
            try db.execute(sql: "DELETE FROM collection_membership WHERE collection_id = ?", arguments: [cid])
            try db.execute(sql: "DELETE FROM collection WHERE id = ?", arguments: [cid])
            return true
        }
    }

    /// The row ids of a saved fetch, in order; nil when there is none by that name.
    public func savedFetch(named name: String) throws(CatalogError) -> [Int64]? {
        try read { db in
            guard let cid = try Int64.fetchOne(db, sql: "SELECT id FROM collection WHERE transient = 1 AND title = ?", arguments: [name]) else {
                return nil
            }
            return try Self.memberRows(db, cid)
        }
    }

    /// The local identifier of the album given by `ref`: its local identifier, or a title that exactly one
    /// album has. Several albums with the title: `.ambiguous`, the message listing each (identifier,
    /// folder path, count); none: `.notFound`.
    public func resolveAlbum(_ ref: String) throws(CatalogError) -> String {
        try read { db in try Self.resolveAlbum(db, ref) }
    }

    static func resolveAlbum(_ db: Database, _ ref: String) throws -> String {
        let albums = "type = \(AssetCollectionType.album.rawValue) AND transient = 0"
        if try Bool.fetchOne(db, sql: "SELECT 1 FROM collection WHERE local_identifier = ? AND \(albums)", arguments: [ref]) == true { return ref }
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT c.local_identifier, c.list_id, (SELECT count(*) FROM collection_membership m WHERE m.collection_id = c.id) AS n
                FROM collection c WHERE c.title = ? AND \(albums) ORDER BY c.local_identifier
                """, arguments: [ref])
        if rows.count == 1 { return rows[0]["local_identifier"] }
        guard !rows.isEmpty else {
            let unknown = try Bool.fetchOne(db, sql: "SELECT 1 FROM collection WHERE local_identifier = ?", arguments: [ref]) == true
            throw CatalogError(.notFound, unknown ? "'\(ref)' is not an album (smart albums, moments and saved fetches are not)" : "no album titled or identified '\(ref)' ('shoebox collections' lists them)")
        }
        var lines = ["\(rows.count) albums are titled '\(ref)'; give one's identifier:"]
        for r in rows {
            let n: Int = r["n"]
            let folder = try (r["list_id"] as Int64?).flatMap { try folderPath(db, $0) }
            lines.append("  \(r["local_identifier"] as String)  \(n) asset\(n == 1 ? "" : "s")\(folder.map { " in folder \($0)" } ?? "")")
        }
        throw CatalogError(.ambiguous, lines.joined(separator: "\n"))
    }

    /// `Parent/Child` titles of a folder (collection list) and its ancestors.
    static func folderPath(_ db: Database, _ id: Int64) throws -> String? {
        var titles: [String] = []
        var next: Int64? = id
        while let cur = next, titles.count < 64, let r = try Row.fetchOne(db, sql: "SELECT title, parent_id FROM collection_list WHERE id = ?", arguments: [cur]) {
            titles.insert((r["title"] as String?) ?? "untitled", at: 0)
            next = r["parent_id"]
        }
        return titles.isEmpty ? nil : titles.joined(separator: "/")
    }

    /// Members of the album given by a local identifier or a unique title (`resolveAlbum`), in album order.
    public func albumMembers(of ref: String) throws(CatalogError) -> [Int64] {
        let lid = try resolveAlbum(ref)
        return try read { db in
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT m.asset_id FROM collection_membership m JOIN collection c ON c.id = m.collection_id
                    WHERE c.local_identifier = ? ORDER BY m.position
                    """, arguments: [lid])
        }
    }

    /// Members of the (non-transient) albums with this title.
    public func albumMembers(titled title: String) throws(CatalogError) -> [Int64] {
        try read { db in
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT m.asset_id FROM collection_membership m JOIN collection c ON c.id = m.collection_id
                    WHERE c.transient = 0 AND c.type = 1 AND c.title = ? ORDER BY m.position
                    """, arguments: [title])
        }
    }
}
