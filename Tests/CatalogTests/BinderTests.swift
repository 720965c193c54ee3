import Foundation
import GRDB
import PhotoModel
import TestSupport
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

    /// A file row is inserted by a plain INSERT first: a UNIQUE conflict says "stored already" (nothing
    /// written, the statement reusable), every other failure still throws.
    @Test func aUniqueConflictIsAnAnswerOtherFailuresThrow() throws {
        let q = try DatabaseQueue()
        try q.write { db in
            try db.execute(sql: "CREATE TABLE t(k TEXT NOT NULL UNIQUE, v INTEGER)")
            func insert(_ k: String?, _ v: Int64) throws -> Bool {
                var b = try Binder(db, "INSERT INTO t(k, v) VALUES (?, ?)")
                b.text(k)
                b.int(v)
                return try b.runUnlessUniqueConflict()
            }
            #expect(try insert("a", 1))
            #expect(try !insert("a", 2))
            #expect(try insert("b", 3))
            let error = #expect(throws: DatabaseError.self) { try insert(nil, 4) }
            #expect(error?.message?.contains("NOT NULL constraint failed: t.k") == true)
            #expect(try Row.fetchAll(db, sql: "SELECT k, v FROM t ORDER BY k").map { [$0[0] as String, String($0[1] as Int64)] } == [["a", "1"], ["b", "3"]])
        }
    }

    /// A path committed again (a changed file in a later run) updates its row in place: the same row id and
    /// first run, the new values and last run, its facts replaced, and its asset kept when the commit names none.
    @Test func aStoredPathIsUpdatedInPlace() throws {
        let s = try TestScratch("binder-upsert")
        let path = s.path("c.sqlite")
        let catalog = try Catalog(path: path)
        func row(size: Int64, hash: String, facts: [UInt8]) -> FileRow {
            FileRow(
                path: "/r/a/IMG_1.JPG", root: "/r", dir: "/r/a", fingerprint: FileFingerprint(size: size, mtimeNanoseconds: size, inode: 7, device: 1),
                contentHash: hash, kind: "image", role: "primary", status: "ok", lastError: nil, facts: facts, probeVersion: 1)
        }
        let run1 = try catalog.beginRun(roots: ["/r"])
        var asset = Asset(id: "a/IMG_1.JPG", mediaType: .image)
        asset.resources = [AssetResource(type: .photo, path: "a/IMG_1.JPG", originalFilename: "IMG_1.JPG")]
        try catalog.commitFolder(
            FolderCommit(
                runID: run1, root: "/r", dir: "/r/a", files: [row(size: 10, hash: "h1", facts: [1])], vanished: [],
                assets: [AssetInput(asset: asset, root: "/r", dir: "/r/a", resourceHashes: ["h1"])], errors: []))
        let run2 = try catalog.beginRun(roots: ["/r"])
        try catalog.commitFolder(
            FolderCommit(runID: run2, root: "/r", dir: "/r/a", files: [row(size: 20, hash: "h2", facts: [2, 2])], vanished: [], assets: nil, errors: []))
        let q = try DatabaseQueue(path: path)
        try q.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT id, size, content_hash, first_run, last_run, asset_id FROM file")
            try #require(rows.count == 1)
            let r = rows[0]
            #expect(r["id"] as Int64 == 1)
            #expect(r["size"] as Int64 == 20)
            #expect(r["content_hash"] as String == "h2")
            #expect(r["first_run"] as Int64 == run1 && r["last_run"] as Int64 == run2 && run1 != run2)
            let assetID = try Int64.fetchOne(db, sql: "SELECT id FROM asset WHERE local_identifier IS NOT NULL")
            #expect(assetID != nil && r["asset_id"] as Int64? == assetID)
            #expect(try Data.fetchAll(db, sql: "SELECT facts FROM file_facts") == [Data([2, 2])])
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
