import Foundation
import GRDB
import TestSupport
import Testing

@testable import Catalog
@testable import Pipeline

/// A folder's album and folder are named after its path; a folder renamed or moved keeps its album's and
/// folder's identifiers (its assets keep theirs), so a sync client sees a new title, not an album deleted
/// and another made.
@Suite(.serialized) struct FolderIdentityTests {
    static func identifiers(_ path: String) throws -> (albums: [String: String], folders: [String: String]) {
        let q = try DatabaseQueue(path: path)
        defer { try? q.close() }
        return try q.read { db in
            let albums = try Row.fetchAll(db, sql: "SELECT title, local_identifier FROM collection WHERE type = 1")
            let folders = try Row.fetchAll(db, sql: "SELECT title, local_identifier FROM collection_list WHERE type = 2")
            return (
                Dictionary(albums.map { ($0[0] as String, $0[1] as String) }, uniquingKeysWith: { a, _ in a }),
                Dictionary(folders.map { ($0[0] as String, $0[1] as String) }, uniquingKeysWith: { a, _ in a })
            )
        }
    }

    /// `layout`'s paths under `<scratch>/lib`, each a copy of another clean JPEG of the generated library;
    /// the root, and the library's JPEGs not used.
    static func library(_ s: TestScratch, _ layout: [String]) throws -> (root: String, spare: [String]) {
        let lib = Corpus.fixtures.appendingPathComponent("generated/library").path
        let jpegs = try FactsTests.cleanJPEGs(in: lib)
        try #require(jpegs.count > layout.count)
        let root = s.path("lib")
        for (rel, source) in zip(layout, jpegs) {
            try FileManager.default.createDirectory(atPath: root + "/" + (rel as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: lib + "/" + source, toPath: root + "/" + rel)
        }
        return (root, jpegs.dropFirst(layout.count).map { lib + "/" + $0 })
    }

    @Test func aRenamedFolderKeepsItsAlbumAndFolder() async throws {
        let s = try TestScratch("folder-identity")
        let (root, _) = try Self.library(s, ["2019/trip/a.jpg", "2019/trip/b.jpg", "2019/trip/c.jpg", "2019/home/d.jpg", "2019/home/e.jpg", "misc/f.jpg"])
        let path = s.path("c.sqlite")
        _ = try await FactsTests.ingest(root, try Catalog(path: path))
        let before = try Self.identifiers(path)
        try #require(before.albums["trip"] != nil && before.albums["home"] != nil && before.folders["2019"] != nil)
        let token = try Catalog(path: path).currentToken()

        try FileManager.default.moveItem(atPath: root + "/2019/trip", toPath: root + "/2019/Trip to Lisbon")
        try FileManager.default.moveItem(atPath: root + "/2019", toPath: root + "/Year 2019")
        _ = try await FactsTests.ingest(root, try Catalog(path: path))
        let after = try Self.identifiers(path)
        #expect(after.albums["Trip to Lisbon"] == before.albums["trip"])
        #expect(after.albums["home"] == before.albums["home"])
        #expect(after.folders["Year 2019"] == before.folders["2019"])
        let c = try Catalog(path: path)
        let albums = try c.changes(since: token, objectType: "assetCollection").filter { Set(before.albums.values).contains($0.localIdentifier) }
        #expect(albums.allSatisfy { $0.changeType == "updated" }, "\(albums.map { ($0.changeType, $0.properties) })")
        #expect(albums.contains { $0.localIdentifier == before.albums["trip"] && $0.properties == ["localizedTitle"] })
        let lists = try c.changes(since: token, objectType: "collectionList")
        #expect(lists.allSatisfy { $0.changeType == "updated" }, "\(lists.map { ($0.changeType, $0.properties) })")

        // A folder emptied into another is gone: the other, stored under its own name, stays itself.
        try FileManager.default.moveItem(atPath: root + "/misc/f.jpg", toPath: root + "/Year 2019/home/f.jpg")
        try FileManager.default.removeItem(atPath: root + "/misc")
        _ = try await FactsTests.ingest(root, try Catalog(path: path))
        let last = try Self.identifiers(path)
        #expect(last.albums["home"] == before.albums["home"])
        #expect(last.albums["misc"] == nil && !last.albums.values.contains(before.albums["misc"] ?? "-"))
    }

    /// Albums and folders a user made are the user's: organize, which makes the directories' anew on every
    /// run, leaves them (it deleted them at the next ingest). A directory's album or folder cannot be edited:
    /// organize would undo the edit.
    @Test func aUsersAlbumsAndFoldersOutliveOrganize() async throws {
        let s = try TestScratch("user-albums")
        let (root, spare) = try Self.library(s, ["trip/0.jpg", "trip/1.jpg", "trip/2.jpg"])
        let path = s.path("c.sqlite")
        _ = try await FactsTests.ingest(root, try Catalog(path: path))
        var c = try Catalog(path: path)
        let assets = try c.allAssets().map(\.localIdentifier).sorted()
        let made = try c.perform(
            ChangeSet(changes: [
                Change(op: .createFolder, placeholder: "$f", title: "Mine"),
                Change(op: .createAlbum, placeholder: "$a", folder: "$f", title: "Picks"),
                Change(op: .addAssets, assets: [assets[0], assets[2]], album: "$a"),
            ]))
        let album = try #require(made["$a"]), folder = try #require(made["$f"])
        let token = try c.currentToken()
        try FileManager.default.copyItem(atPath: spare[0], toPath: root + "/trip/3.jpg")
        _ = try await FactsTests.ingest(root, try Catalog(path: path))
        c = try Catalog(path: path)
        let kept = try #require(try c.albumsWithMembers().first { $0.localIdentifier == album })
        #expect(kept.title == "Picks" && kept.members == [assets[0], assets[2]])
        #expect(try c.collectionLists(type: .folder).first { $0.localIdentifier == folder }?.children == [album])
        let gone = try c.changes(since: token, objectType: "assetCollection") + c.changes(since: token, objectType: "collectionList")
        #expect(!gone.contains { $0.changeType == "deleted" }, "\(gone.map { ($0.localIdentifier, $0.changeType) })")

        // `shoebox collections` tells them apart.
        let listed = try c.collections(type: .album)
        #expect(listed.first { $0.title == "Picks" }?.byUser == true && listed.first { $0.title == "trip" }?.byUser == false)

        let trip = try #require(try Self.identifiers(path).albums["trip"])
        #expect {
            try c.perform(ChangeSet(changes: [Change(op: .addAssets, assets: [assets[1]], album: trip)]))
        } throws: { e in
            (e as? CatalogError)?.message.contains("is the album of a directory") == true
        }
        #expect {
            try c.perform(ChangeSet(changes: [Change(op: .rename, collection: trip, title: "Not the folder's")]))
        } throws: { e in
            (e as? CatalogError)?.message.contains("is the album of a directory") == true
        }
    }

    /// A catalog from before: its user albums and folders are told by their random identifiers (version 4
    /// UUIDs), organize's by their name-based ones (version 5).
    @Test func theMigrationTellsTheUsersAlbumsByTheirIdentifiers() throws {
        let s = try TestScratch("user-albums-migration")
        let q = try DatabaseQueue(path: s.path("old.sqlite"))
        let migrator = Schema.migrator()
        try migrator.migrate(q, upTo: "bursts: the files' own burst identifier")
        let user = "41C65B74-B5E0-4479-9F2B-2121AE72B8A4/L0/040", organize = "D1314A13-CAC0-5E3D-802F-19F63B270DED/L0/040"
        let userFolder = "5A1F0C2E-1111-4222-8333-444455556666/L0/010", organizeFolder = "0D9B2F11-2B6C-5A31-9C4E-0F1E2D3C4B5A/L0/010"
        try q.write { db in
            for (lid, title) in [(user, "Picks"), (organize, "trip")] {
                try db.execute(sql: "INSERT INTO collection(local_identifier, type, subtype, title) VALUES (?, 1, 2, ?)", arguments: [lid, title])
            }
            for lid in [userFolder, organizeFolder] {
                try db.execute(sql: "INSERT INTO collection_list(local_identifier, type, subtype, title, children) VALUES (?, 2, 2, 'f', '')", arguments: [lid])
            }
        }
        try migrator.migrate(q)
        let flags = try q.read { db in
            try Dictionary(
                uniqueKeysWithValues: Row.fetchAll(
                    db, sql: "SELECT local_identifier, by_user FROM collection UNION ALL SELECT local_identifier, by_user FROM collection_list"
                ).map { ($0[0] as String, $0[1] as Bool) })
        }
        #expect(flags == [user: true, organize: false, userFolder: true, organizeFolder: false])
        try q.close()
    }

    /// Each new item continues the previous one it shares most with, only past half of both, each once.
    @Test func continuationsNeedMoreThanHalfOfBoth() {
        let names = ["old0", "old1"]
        // new "a": 3 parts, all of old0 (size 3); "b": 4 parts, 2 of old1 (size 5): not more than half of old1.
        let found = Organizer.continuations([("a", [0, 0, 0], 3), ("b", [1, 1], 4)], previousSizes: [3, 5], previousNames: names)
        #expect(found == ["a": "old0"])
        // Two new items both share with old0: the larger share takes it.
        let two = Organizer.continuations([("x", [0, 0], 2), ("y", [0, 0, 0], 4)], previousSizes: [3, 1], previousNames: names)
        #expect(two == ["y": "old0"])
    }
}
