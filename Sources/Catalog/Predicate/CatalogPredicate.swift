import GRDB

extension Catalog {
    /// How many assets match a compiled predicate (`SELECT COUNT(*) FROM asset a WHERE …`).
    public func count(where predicate: CompiledPredicate) throws(CatalogError) -> Int {
        try read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM asset a WHERE " + predicate.sql, arguments: Self.arguments(predicate)) ?? 0
        }
    }

    /// The local identifiers of the matching assets, in primary-path order.
    public func localIdentifiers(where predicate: CompiledPredicate) throws(CatalogError) -> [String] {
        try read { db in
            try String.fetchAll(
                db, sql: "SELECT a.local_identifier FROM asset a WHERE " + predicate.sql + " ORDER BY a.root, a.primary_path",
                arguments: Self.arguments(predicate))
        }
    }

    static func arguments(_ p: CompiledPredicate) -> StatementArguments {
        StatementArguments(
            p.arguments.map { v -> DatabaseValue in
                switch v {
                case .null: return .null
                case .int(let i): return i.databaseValue
                case .double(let d): return d.databaseValue
                case .text(let s): return s.databaseValue
                }
            })
    }
}
