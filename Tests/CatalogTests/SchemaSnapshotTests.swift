import Foundation
import GRDB
import TestSupport
import Testing

@testable import Catalog

/// A new catalog is made from `SchemaSnapshot` (its statements, then the migrations after it), not by
/// running every migration: both ways must make the same database.
@Suite struct SchemaSnapshotTests {
    /// Everything a database holds that the schema decides: its objects with their SQL, the applied
    /// migrations, the rows of every table.
    static func contents(_ queue: DatabaseQueue) throws -> [String] {
        try queue.read { db in
            var out = try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").map { "\($0)" }
            out += try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier").map { "migration \($0)" }
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
                out += try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"").map { "\(table): \($0)" }
            }
            for pragma in ["user_version", "application_id", "foreign_keys"] {
                out.append("\(pragma) \(try Int.fetchOne(db, sql: "PRAGMA \(pragma)") ?? -1)")
            }
            return out
        }
    }

    @Test func snapshotIsWhatTheMigrationsMake() throws {
        let migrated = try DatabaseQueue()
        try Catalog.makeSchema(migrated, fromSnapshot: false)
        let fromSnapshot = try DatabaseQueue()
        try Catalog.makeSchema(fromSnapshot)

        let registered = Schema.migrator().migrations
        let current = SchemaSnapshot.migrations == registered
        let same = try Self.contents(migrated) == Self.contents(fromSnapshot)
        if !current || !same {
            let file = try Self.regenerated(from: migrated, migrations: registered)
            Issue.record(
                """
                SchemaSnapshot.swift \(current ? "makes another schema than the migrations" : "is older than the migrations (\(SchemaSnapshot.migrations.count) of \(registered.count))"): \
                a current one is at \(file); copy it to Sources/Catalog/SchemaSnapshot.swift
                """)
        }
    }

    @Test func aSnapshotOfOtherMigrationsIsNotApplied() throws {
        let queue = try DatabaseQueue()
        let applied = try queue.write { db in try SchemaSnapshot.apply(db, registered: ["another schema's first migration"]) }
        #expect(!applied)
        #expect(try queue.read { db in try db.tableExists("asset") } == false)
    }

    @Test func aNewCatalogHasTheCurrentSchema() throws {
        let s = try TestScratch("schema-snapshot")
        let catalog = try Catalog(path: s.path("c.sqlite"))
        let applied = try catalog.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(Set(applied) == Set(Schema.migrator().migrations))
        #expect(try catalog.read { db in try db.columns(in: "asset").map(\.name).contains("places_derived") })
    }

    /// This test's source file with the generated part of `SchemaSnapshot.swift` made from `db`, written to
    /// a temporary file; its path.
    static func regenerated(from db: DatabaseQueue, migrations: [String]) throws -> String {
        let sourceURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Catalog/SchemaSnapshot.swift")
        let source = try String(contentsOf: sourceURL, encoding: .utf8)
        let statements = try db.read { db in
            try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid")
        }
        func literal(_ s: String, indent: String) -> String {
            let body = s.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : indent + $0 }.joined(separator: "\n")
            return indent + "#\"\"\"\n" + body + "\n" + indent + "\"\"\"#"
        }
        var generated = "    static let migrations: [String] = [\n"
        generated += migrations.map { "        \"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"," }.joined(separator: "\n")
        generated += "\n    ]\n    static let statements: [String] = [\n"
        generated += statements.map { literal($0, indent: "        ") + "," }.joined(separator: "\n")
        generated += "\n    ]\n"
        guard let begin = source.range(of: "// BEGIN GENERATED\n"), let end = source.range(of: "    // END GENERATED") else {
            throw CocoaError(.fileReadCorruptFile)
        }
        let text = String(source[..<begin.upperBound]) + generated + String(source[end.lowerBound...])
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("SchemaSnapshot.swift").path
        try text.write(toFile: out, atomically: true, encoding: .utf8)
        return out
    }
}
