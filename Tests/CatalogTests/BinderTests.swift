import Foundation
import GRDB
import PhotoModel
import Testing

@testable import Catalog

/// The hot writes bind their values straight into SQLite (`Binder`): what lands in the row must be what
/// GRDB's arguments would have stored, and a failing statement must say why.
@Suite struct BinderTests {
    @Test func valuesLandAsBound() throws {
        let q = try DatabaseQueue()
        try q.write { db in
            try db.execute(sql: "CREATE TABLE t(i INTEGER, d REAL, s TEXT, b BLOB, n TEXT, e TEXT, eb BLOB)")
            var b = try Binder(db, "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)")
            b.int(Int64.min)
            b.double(-2.5)
            b.text("Århus e\u{301} 👩‍👩‍👧 nul\u{0}x")
            b.blob([0, 1, 255])
            b.text(nil)
            b.text("")
            b.blob([])
            try b.run()
            // Text is bound as GRDB binds it (up to a NUL): the same value through GRDB stores the same bytes.
            try db.execute(sql: "INSERT INTO t(s) VALUES (?)", arguments: ["Århus e\u{301} 👩‍👩‍👧 nul\u{0}x"])
            let stored = try String.fetchAll(db, sql: "SELECT hex(s) FROM t ORDER BY rowid")
            #expect(stored.count == 2 && stored[0] == stored[1])
            try db.execute(sql: "DELETE FROM t WHERE rowid = 2")
            // The statement is reset: it runs again with new values (and the old ones are not kept).
            var again = try Binder(db, "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)")
            again.int(7)
            try again.run()
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM t ORDER BY rowid")
            #expect(rows.count == 2)
            #expect(rows[0]["i"] as Int64 == Int64.min)
            #expect(rows[0]["d"] as Double == -2.5)
            #expect(rows[0]["s"] as String == "Århus e\u{301} 👩‍👩‍👧 nul")
            #expect(rows[0]["b"] as Data == Data([0, 1, 255]))
            #expect((rows[0]["n"] as DatabaseValue).isNull)
            #expect(rows[0]["e"] as DatabaseValue == "".databaseValue)
            #expect(rows[0]["eb"] as DatabaseValue == Data().databaseValue)
            #expect(rows[1]["i"] as Int64 == 7)
            #expect((rows[1]["s"] as DatabaseValue).isNull)
        }
    }

    @Test func aFailingStatementSaysWhy() throws {
        let q = try DatabaseQueue()
        try q.write { db in
            try db.execute(sql: "CREATE TABLE t(k TEXT PRIMARY KEY)")
            var first = try Binder(db, "INSERT INTO t(k) VALUES (?)")
            first.text("same")
            try first.run()
            var second = try Binder(db, "INSERT INTO t(k) VALUES (?)")
            second.text("same")
            let error = #expect(throws: DatabaseError.self) { try second.run() }
            #expect(error?.resultCode == .SQLITE_CONSTRAINT)
            #expect(error?.message?.contains("UNIQUE constraint failed: t.k") == true)
            #expect(error?.sql == "INSERT INTO t(k) VALUES (?)")
            // The failed statement was reset: the connection goes on.
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM t") == 1)
        }
    }

    /// The cloud identifier of an asset with a content hash: the first 32 hex digits, upper case, as a UUID,
    /// then ":001" (the same files ingested elsewhere get the same one).
    @Test func cloudIdentifierFromTheContentHash() {
        func input(_ hash: String?) -> AssetInput {
            AssetInput(asset: Asset(id: "a/IMG_1.JPG", mediaType: .image), root: "/r", dir: "/r/a", resourceHashes: [hash])
        }
        #expect(
            Catalog.cloudIdentifier(input("xxh128:0123456789abcdef0123456789ABCDEFff"))
                == "01234567-89AB-CDEF-0123-456789ABCDEF:001")
        // Too short, or no hash: a random identifier marked local.
        #expect(Catalog.cloudIdentifier(input("xxh128:0123")).hasSuffix(":001:local"))
        #expect(Catalog.cloudIdentifier(input(nil)).hasSuffix(":001:local"))
    }
}

/// Lists of paths reach SQL as one JSON array (`json_each`): every string must come back as it went in.
@Suite struct JSONArrayTests {
    @Test func stringsComeBackThroughJSONEach() throws {
        let values = [
            "", "/r/a b/c.jpg", "quote\"d", "back\\slash", "tab\there", "nl\nx", "ctl\u{1}\u{1F}", "Ärger/e\u{301}/東京.jpg", "👩‍👩‍👧",
            "slash/", "\u{2028}\u{FEFF}",
        ]
        let q = try DatabaseQueue()
        let back = try q.read { db in
            try String.fetchAll(db, sql: "SELECT value FROM json_each(?) ORDER BY key", arguments: [Catalog.jsonArray(values)])
        }
        #expect(back == values)
    }
}

@Suite struct BinderFirstIntTests {
    @Test func firstIntReadsOneValue() throws {
        let q = try DatabaseQueue()
        try q.write { db in
            try db.execute(sql: "CREATE TABLE t(k TEXT, n INTEGER)")
            try db.execute(sql: "INSERT INTO t VALUES ('a', 5), ('b', NULL)")
            var exists = try Binder(db, "SELECT EXISTS (SELECT 1 FROM t WHERE k = ?)")
            exists.text("a")
            #expect(try exists.firstInt() == 1)
            var missing = try Binder(db, "SELECT EXISTS (SELECT 1 FROM t WHERE k = ?)")
            missing.text("z")
            #expect(try missing.firstInt() == 0)
            var null = try Binder(db, "SELECT n FROM t WHERE k = ?")
            null.text("b")
            #expect(try null.firstInt() == nil)
            var none = try Binder(db, "SELECT n FROM t WHERE k = ?")
            none.text("z")
            #expect(try none.firstInt() == nil)
        }
    }
}
