import Foundation
import TestSupport
import Testing

@testable import Catalog

/// A catalog knows itself: new catalogs are stamped (application_id 'SBOX', user_version), files that
/// are not ours are refused before SQLite touches them, and the open modes do what they say.
@Suite struct CatalogFileTests {
    /// The bytes of `path` and the names in its folder: a refused file must leave both as they were.
    static func state(_ path: String) throws -> (Data, [String]) {
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return (
            try Data(contentsOf: URL(fileURLWithPath: path)), try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        )
    }

    static func header(_ path: String) throws -> Catalog.FileHeader { try #require(Catalog.FileHeader(path: path)) }

    @Test func aNewCatalogIsStampedAndMadeUnderATemporaryName() throws {
        let s = try TestScratch("catalog-new")
        let path = s.path("c.sqlite")
        _ = try Catalog(path: path)
        let h = try Self.header(path)
        #expect(h.applicationID == 0x5342_4F58)
        #expect(h.applicationID == Catalog.applicationID)
        #expect(h.userVersion == Catalog.schemaVersion && Catalog.schemaVersion >= 5)
        #expect(Catalog.isCatalog(atPath: path))
        // No temporary file (or its journal) is left beside it.
        let names = try FileManager.default.contentsOfDirectory(atPath: s.url.path)
        #expect(names.allSatisfy { $0.hasPrefix("c.sqlite") }, "\(names)")
    }

    /// While a catalog is open its last commits may be in the write-ahead log only: a copy of the file alone
    /// is the catalog as it was before them. `checkpoint()` (every command that writes calls it at its end)
    /// copies them into the file, so the file alone is whole even when the process exits before closing its
    /// connections.
    @Test func aCheckpointLeavesTheFileAloneWhole() throws {
        let s = try TestScratch("catalog-checkpoint")
        let path = s.path("c.sqlite")
        let catalog = try Catalog(path: path)
        try catalog.setMetaValue("written", "before the checkpoint")
        func copy(_ name: String) throws -> String {
            let to = s.path(name)
            try FileManager.default.copyItem(atPath: path, toPath: to)
            return to
        }
        let query = "SELECT count(*) FROM meta WHERE key = 'written'"
        #expect(try SQLiteFiles.strings(try copy("alone.sqlite"), query) == ["0"], "the commit is in the log only")
        catalog.checkpoint()
        #expect(try SQLiteFiles.strings(try copy("whole.sqlite"), query) == ["1"])
        // Read-only: nothing to do, nothing thrown.
        try Catalog(path: path, mode: .readOnly).checkpoint()
    }

    enum Stranger: String, CaseIterable, CustomTestStringConvertible {
        case otherApplication, noShoeboxTables, otherGRDBApplication, empty, text, newer
        var testDescription: String { rawValue }

        func make(_ path: String) throws {
            switch self {
            case .otherApplication: try SQLiteFiles.foreign(path, applicationID: 0x1234_5678)
            case .noShoeboxTables: try SQLiteFiles.foreign(path, applicationID: 0)
            case .otherGRDBApplication: try SQLiteFiles.otherGRDBApplication(path)
            case .empty: FileManager.default.createFile(atPath: path, contents: Data())
            case .text:
                FileManager.default.createFile(
                    atPath: path, contents: Data(String(repeating: "not a database\n", count: 20).utf8))
            case .newer:
                _ = try Catalog(path: path)
                try SQLiteFiles.setHeader(path, userVersion: Catalog.schemaVersion + 7)
            }
        }

        var expected: (CatalogError.Code, String) {
            switch self {
            case .otherApplication: (.notACatalog, "(application_id 0x12345678)")
            case .noShoeboxTables, .otherGRDBApplication: (.notACatalog, "no Shoebox tables")
            case .empty: (.notACatalog, "is an empty file")
            case .text: (.notACatalog, "is not a SQLite database")
            case .newer:
                (
                    .newerSchema,
                    "was made by a newer Shoebox (schema \(Catalog.schemaVersion + 7)); this one reads up to \(Catalog.schemaVersion)"
                )
            }
        }
    }

    @Test(arguments: Stranger.allCases, [Catalog.OpenMode.readOnly, .readWrite(create: true)])
    func aFileThatIsNotOursIsRefusedAndLeftAsItWas(_ stranger: Stranger, mode: Catalog.OpenMode) throws {
        let s = try TestScratch("catalog-stranger")
        let path = s.path("x.sqlite")
        try stranger.make(path)
        let before = try Self.state(path)
        let error = #expect(throws: CatalogError.self) { try Catalog(path: path, mode: mode) }
        #expect(error?.code == stranger.expected.0)
        #expect(error?.message.contains(stranger.expected.1) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(path) == true)
        let after = try Self.state(path)
        #expect(after.0 == before.0, "the file changed")
        #expect(after.1 == before.1, "files appeared beside it: \(after.1)")
    }

    @Test func aCatalogMadeBeforeTheStampIsReadAsItIsAndAdoptedByAWrite() throws {
        let s = try TestScratch("catalog-legacy")
        let path = s.path("old.sqlite")
        _ = try Catalog(path: path)
        try SQLiteFiles.setHeader(path, applicationID: 0, userVersion: 0)
        #expect(!Catalog.isCatalog(atPath: path))

        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let reader = try Catalog(path: path, mode: .readOnly)
        #expect(try reader.countAssets() == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "a read-only open stamped the file")

        _ = try Catalog(path: path, mode: .readWrite(create: false))
        let h = try Self.header(path)
        #expect(h.applicationID == Catalog.applicationID && h.userVersion == Catalog.schemaVersion)
    }

    /// A catalog behind only by migrations that add what the ingest alone reads (the `file_inode` index, the
    /// `moved_out` table and organize's record) is read as it is — read-only, nothing written — and upgraded by the next writer; one behind by any
    /// other migration is refused (below).
    @Test func aCatalogLackingOnlyAnIngestIndexIsRead() throws {
        let s = try TestScratch("catalog-reader-optional")
        let path = s.path("c.sqlite")
        do {
            let c = try Catalog(path: path)
            try c.write { db in
                try db.execute(sql: "DROP INDEX file_inode; DROP TABLE moved_out; DROP TABLE organize_folder; DROP TABLE organize_moment; DROP TABLE organize_moment_item; DROP TABLE organize_place; DROP TABLE organize_pending")
                try db.execute(sql: "DROP TRIGGER organize_pending_insert; DROP TRIGGER organize_pending_delete; DROP TRIGGER organize_pending_update")
                try db.execute(
                    sql: """
                        DELETE FROM grdb_migrations WHERE identifier IN ('moves: file inode index', 'moves: facts an interrupted run set aside',
                            'organize: what it read and what it made albums, folders and moments from')
                        """)
            }
        }
        // Schema 13: before the inode index, the kept facts of an interrupted run and the directories of the
        // albums (only the ingest reads them).
        let behind = Catalog.schemaVersion - 3
        try SQLiteFiles.setHeader(path, userVersion: behind)
        #expect(Catalog.readsWithout(from: behind) && Catalog.readsWithout(from: behind + 1) && Catalog.readsWithout(from: behind + 2))
        #expect(!Catalog.readsWithout(from: behind - 1) && !Catalog.readsWithout(from: Catalog.schemaVersion))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let reader = try Catalog(path: path, mode: .readOnly)
        #expect(try reader.countAssets() == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "a read-only open changed the file")

        let writer = try Catalog(path: path, mode: .readWrite(create: false))
        #expect(try Self.header(path).userVersion == Catalog.schemaVersion)
        #expect(try writer.read { db in try db.indexes(on: "file").contains { $0.name == "file_inode" } && db.tableExists("moved_out") && db.tableExists("organize_folder") })
    }

    @Test func anOlderSchemaIsRefusedForReadingAndUpgradedByAWrite() throws {
        let s = try TestScratch("catalog-older")
        let path = s.path("c.sqlite")
        _ = try Catalog(path: path)
        try SQLiteFiles.setHeader(path, userVersion: 2)
        let error = #expect(throws: CatalogError.self) { try Catalog(path: path, mode: .readOnly) }
        #expect(error?.code == .olderSchema)
        #expect(
            error?.message.contains("has schema 2, older than this Shoebox's \(Catalog.schemaVersion)") == true,
            "\(error?.message ?? "")")
        #expect(error?.message.contains("run 'shoebox ingest' (or any writing command) to upgrade it") == true)

        _ = try Catalog(path: path, mode: .readWrite(create: false))
        #expect(try Self.header(path).userVersion == Catalog.schemaVersion)
        _ = try Catalog(path: path, mode: .readOnly)
    }

    @Test func aNewerSchemaStillInTheWALIsRefusedToo() throws {
        let s = try TestScratch("catalog-newer-wal")
        let path = s.path("c.sqlite")
        _ = try Catalog(path: path)
        let writer = try SQLiteFiles.setHeaderInWAL(path, userVersion: Catalog.schemaVersion + 1)
        defer { try? writer.close() }
        #expect(try Self.header(path).userVersion == Catalog.schemaVersion, "the file's own header should still be the old one")
        for mode in [Catalog.OpenMode.readOnly, .readWrite(create: false)] {
            let error = #expect(throws: CatalogError.self) { try Catalog(path: path, mode: mode) }
            #expect(error?.code == .newerSchema)
        }
    }

    @Test func readOnlyModeNeverWrites() throws {
        let s = try TestScratch("catalog-readonly")
        let path = s.path("c.sqlite")
        _ = try Catalog(path: path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let catalog = try Catalog(path: path, mode: .readOnly)
        #expect(catalog.mode == .readOnly)
        let error = #expect(throws: CatalogError.self) {
            try catalog.perform(ChangeSet(changes: [Change(op: .createAlbum, placeholder: "$a", title: "Trip")]))
        }
        #expect(error?.code == .readOnly)
        #expect(try catalog.collections().isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test func aMissingCatalogIsCreatedOnlyWhenAsked() throws {
        let s = try TestScratch("catalog-missing")
        let path = s.path("none.sqlite")
        for mode in [Catalog.OpenMode.readOnly, .readWrite(create: false)] {
            let error = #expect(throws: CatalogError.self) { try Catalog(path: path, mode: mode) }
            #expect(error?.code == .notFound)
        }
        #expect(!FileManager.default.fileExists(atPath: path))

        let deep = s.path("no/such/folder/c.sqlite")
        let error = #expect(throws: CatalogError.self) { try Catalog(path: deep, mode: .readWrite(create: true)) }
        #expect(error?.code == .notFound)
        #expect(
            error?.message.contains("the folder \(s.path("no/such/folder")) does not exist") == true, "\(error?.message ?? "")")

        let dir = #expect(throws: CatalogError.self) { try Catalog(path: s.url.path, mode: .readWrite(create: true)) }
        #expect(dir?.code == .notACatalog)
        #expect(dir?.message.contains("is a directory") == true)
    }

    @Test func aCatalogThroughALinkIsMadeAtTheTarget() throws {
        let s = try TestScratch("catalog-link")
        let target = s.path("real.sqlite")
        let link = s.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.sqlite")
        _ = try Catalog(path: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real.sqlite")
        #expect(Catalog.isCatalog(atPath: target))
    }
}
