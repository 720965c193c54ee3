import Foundation
import GRDB

/// What a catalog says about a library, without what is the catalog's own (row ids, local identifiers,
/// added/modification dates, run ids): two catalogs of one library made different ways (one ingest, or
/// shards merged) must have equal snapshots. Assets are compared on every column the `asset` table has
/// (columns added by later migrations included), keyed by root + primary path.
public struct CatalogSnapshot: Equatable, Sendable {
    /// "root/primaryPath" → every other column as text, and its resources.
    public var assets: [String: [String: String]] = [:]
    /// Collections (albums, smart albums, moments): type, subtype, title, dates, place, predicate, members (in
    /// order; a moment's as a set).
    public var collections: [String] = []
    /// Collection lists (moment clusters, years, folders): type, subtype, title, dates, children described.
    public var lists: [String] = []
    /// Error rows: path, stage, reason, severity.
    public var errors: [String] = []
    /// File rows: path, status, kind, role, content hash, skip category.
    public var files: [String] = []

    /// Columns that belong to one catalog, not to the library.
    public static let ownAssetColumns: Set<String> = ["id", "local_identifier", "modification_date", "added_date"]

    public init(path: String) throws {
        var config = Configuration()
        config.readonly = true
        let q = try DatabaseQueue(path: path, configuration: config)
        defer { try? q.close() }
        try q.read { db in
            var pathOf: [Int64: String] = [:]
            var lidPath: [String: String] = [:]
            for r in try Row.fetchAll(db, sql: "SELECT * FROM asset") {
                let key = (r["root"] as String) + "/" + (r["primary_path"] as String)
                pathOf[r["id"]] = key
                lidPath[r["local_identifier"]] = key
                var cols: [String: String] = [:]
                for (name, value) in r where !Self.ownAssetColumns.contains(name) { cols[name] = value.description }
                cols["resources"] = try String.fetchAll(
                    db,
                    sql:
                        "SELECT ord || '|' || type || '|' || path || '|' || ifnull(content_hash, '') || '|' || ifnull(file_size, '') FROM resource WHERE asset_id = ? ORDER BY ord",
                    arguments: [r["id"] as Int64]
                ).joined(separator: ";")
                assets[key] = cols
            }
            var collectionName: [String: String] = [:]
            for r in try Row.fetchAll(db, sql: "SELECT * FROM collection WHERE transient = 0") {
                var members = try Int64.fetchAll(
                    db, sql: "SELECT asset_id FROM collection_membership WHERE collection_id = ? ORDER BY position",
                    arguments: [r["id"] as Int64]
                ).map { pathOf[$0] ?? "?" }
                // A moment orders members by time, equal times by local identifier (random per catalog): the
                // set is the library's, the order of equal times is not.
                if (r["type"] as Int) == 3 { members.sort() }
                let head =
                    "\(r["type"] as Int)|\(r["subtype"] as Int)|\((r["title"] as String?) ?? "")|\((r["start_date"] as String?) ?? "")|\((r["end_date"] as String?) ?? "")"
                collectionName[r["local_identifier"]] = head
                let place =
                    "\((r["latitude"] as Double?).map { String($0) } ?? "")|\((r["longitude"] as Double?).map { String($0) } ?? "")"
                collections.append(
                    head + "|" + place + "|" + ((r["predicate"] as String?) ?? "") + "|" + members.joined(separator: ","))
            }
            let listRows = try Row.fetchAll(db, sql: "SELECT * FROM collection_list")
            for r in listRows {
                collectionName[r["local_identifier"]] = "list:\(r["type"] as Int)|\((r["title"] as String?) ?? "")"
            }
            for r in listRows {
                let children = (r["children"] as String).split(separator: "\n").map {
                    collectionName[String($0)] ?? lidPath[String($0)] ?? "?"
                }
                lists.append(
                    "\(r["type"] as Int)|\(r["subtype"] as Int)|\((r["title"] as String?) ?? "")|\((r["start_date"] as String?) ?? "")|\((r["end_date"] as String?) ?? "")|"
                        + children.joined(separator: ","))
            }
            errors = try String.fetchAll(db, sql: "SELECT path || '|' || stage || '|' || reason || '|' || severity FROM error")
            files = try String.fetchAll(
                db,
                sql:
                    "SELECT path || '|' || status || '|' || kind || '|' || role || '|' || ifnull(content_hash, '') || '|' || ifnull(skip_category, '') FROM file"
            )
        }
        collections.sort()
        lists.sort()
        errors.sort()
        files.sort()
    }

    /// The first differences, for a test's message.
    public func differences(from other: CatalogSnapshot, limit: Int = 8) -> [String] {
        var out: [String] = []
        for key in Set(assets.keys).union(other.assets.keys).sorted() {
            guard let a = assets[key], let b = other.assets[key] else {
                out.append("asset \(key): only in \(assets[key] == nil ? "the second" : "the first")")
                continue
            }
            for col in Set(a.keys).union(b.keys).sorted() where a[col] != b[col] {
                out.append("asset \(key) \(col): \(a[col] ?? "-") ≠ \(b[col] ?? "-")")
            }
        }
        for (name, x, y) in [
            ("collection", collections, other.collections), ("list", lists, other.lists), ("error", errors, other.errors),
            ("file", files, other.files),
        ] {
            for d in x.difference(from: y) {
                switch d {
                case .insert(_, let e, _): out.append("\(name) only in the first: \(e.prefix(300))")
                case .remove(_, let e, _): out.append("\(name) only in the second: \(e.prefix(300))")
                }
            }
        }
        return Array(out.prefix(limit))
    }
}

extension SQLiteFiles {
    /// Runs SQL on a database file through a connection of its own (a test standing in for another
    /// branch's migration).
    public static func execute(_ path: String, _ sql: String) throws {
        let q = try DatabaseQueue(path: path)
        try q.write { try $0.execute(sql: sql) }
        try q.close()
    }

    /// The first column of every row of a query, as text.
    public static func strings(_ path: String, _ sql: String) throws -> [String] {
        var config = Configuration()
        config.readonly = true
        let q = try DatabaseQueue(path: path, configuration: config)
        defer { try? q.close() }
        return try q.read { db in try String?.fetchAll(db, sql: sql).map { $0 ?? "NULL" } }
    }
}
