import Foundation
import GRDB
import TestSupport
import Testing

@testable import Catalog
@testable import Pipeline

/// The burst identifier the files give (`asset.file_burst_identifier`) is kept apart from organize's
/// (`asset.burst_identifier`: the set an asset is in). A folder derived again writes the files' value only,
/// so the members of a burst found by name or by time are not recorded as changed twice (reset by the
/// commit, set back by organize) every time a file is added beside them.
@Suite(.serialized) struct BurstIdentifierTests {
    /// Three frames a phone names as one burst (`<stem>_BURST<n>`), and one other photo: copies of clean
    /// JPEGs from the generated library, which carry no burst identifier of their own.
    static func burstFolder(_ s: TestScratch) throws -> (dir: String, lib: String, spare: String) {
        let lib = Corpus.fixtures.appendingPathComponent("generated/library").path
        let jpegs = try FactsTests.cleanJPEGs(in: lib)
        try #require(jpegs.count >= 5)
        let dir = s.path("burst")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let names = ["IMG_20180101_120000_BURST001.jpg", "IMG_20180101_120000_BURST002_COVER.jpg", "IMG_20180101_120000_BURST003.jpg", "other.jpg"]
        for (name, source) in zip(names, jpegs) { try FileManager.default.copyItem(atPath: lib + "/" + source, toPath: dir + "/" + name) }
        return (dir, lib, jpegs[4])
    }

    static func bursts(_ path: String) throws -> [String: (organized: String?, files: String?, represents: Bool)] {
        let q = try DatabaseQueue(path: path)
        defer { try? q.close() }
        return try q.read { db in
            var out: [String: (String?, String?, Bool)] = [:]
            for r in try Row.fetchAll(db, sql: "SELECT filename, burst_identifier, file_burst_identifier, represents_burst FROM asset") {
                out[r[0]] = (r[1], r[2], r[3])
            }
            return out
        }
    }

    @Test func aFileAddedBesideANamedBurstRecordsOnlyItself() async throws {
        let s = try TestScratch("burst-added")
        let (dir, lib, spare) = try Self.burstFolder(s)
        let path = s.path("c.sqlite")
        _ = try await FactsTests.ingest(dir, try Catalog(path: path))
        let first = try Self.bursts(path)
        let frames = ["IMG_20180101_120000_BURST001.jpg", "IMG_20180101_120000_BURST002_COVER.jpg", "IMG_20180101_120000_BURST003.jpg"]
        let identifier = try #require(first[frames[0]]?.organized, "the three frames are one burst by their names")
        #expect(frames.allSatisfy { first[$0]?.organized == identifier && first[$0]?.files == nil })
        #expect(first[frames[1]]?.represents == true, "the COVER frame represents the burst")
        #expect(first["other.jpg"]?.organized == nil)
        // Why, as `shoebox show` and the query outputs give it: organize's reasons after the derivation's.
        let stored = try Catalog(path: path).allAssets()
        let cover = try #require(stored.first { $0.asset.id.hasSuffix("_BURST002_COVER.jpg") })
        #expect(cover.asset.reasons.contains { $0.subject == "burst" && $0.evidence.hasPrefix("3 files in one folder named like a vendor") })
        #expect(cover.asset.reasons.contains { $0.subject == "representsBurst" && $0.evidence.contains("COVER in the file name") })
        #expect(cover.asset.reasons.first?.subject == "mediaType", "the derivation's reasons come first")
        #expect(!(stored.first { $0.asset.id == "other.jpg" }?.asset.reasons.contains { $0.subject == "burst" } ?? true))

        let token = try Catalog(path: path).currentToken()
        try FileManager.default.copyItem(atPath: lib + "/" + spare, toPath: dir + "/added.jpg")
        let second = try await FactsTests.ingest(dir, try Catalog(path: path))
        #expect(second.filesProbed == 1)
        let c = try Catalog(path: path)
        let changes = try c.changes(since: token, objectType: "asset")
        let lid = Dictionary(uniqueKeysWithValues: try c.allAssets().map { (PathTextName.of($0.asset.id), $0.localIdentifier) })
        #expect(changes.map(\.localIdentifier) == [lid["added.jpg"]], "only the new asset is recorded: \(changes.map { ($0.localIdentifier, $0.changeType, $0.properties) })")
        let after = try Self.bursts(path)
        #expect(frames.allSatisfy { after[$0]?.organized == identifier }, "organize's identifier stays where it was")
        #expect(after[frames[1]]?.represents == true)
    }

    /// A folder renamed keeps its bursts' identifiers (its assets keep theirs): a set found by name is named
    /// by its name key and its first frame, not by the folder's path. A copy of the folder has sets of its own.
    @Test func aRenamedFolderKeepsItsBurstsIdentifiers() async throws {
        let s = try TestScratch("burst-renamed")
        let (made, _, _) = try Self.burstFolder(s)
        let root = s.path("lib")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let dir = root + "/burst"
        try FileManager.default.moveItem(atPath: made, toPath: dir)
        let path = s.path("c.sqlite")
        _ = try await FactsTests.ingest(root, try Catalog(path: path))
        let frame = "IMG_20180101_120000_BURST001.jpg"
        let before = try #require(try Self.bursts(path)[frame]?.organized)
        let token = try Catalog(path: path).currentToken()
        try FileManager.default.moveItem(atPath: dir, toPath: root + "/renamed")
        _ = try await FactsTests.ingest(root, try Catalog(path: path))
        #expect(try Self.bursts(path)[frame]?.organized == before)
        let changes = try Catalog(path: path).changes(since: token, objectType: "asset")
        #expect(!changes.contains { $0.properties.contains("burstIdentifier") }, "\(changes.map { ($0.changeType, $0.properties) })")
        try FileManager.default.copyItem(atPath: root + "/renamed", toPath: root + "/copy")
        _ = try await FactsTests.ingest(root, try Catalog(path: path))
        let q = try DatabaseQueue(path: path)
        defer { try? q.close() }
        let identifiers = try await q.read { db in
            try String?.fetchAll(db, sql: "SELECT burst_identifier FROM asset WHERE filename = ? ORDER BY dir", arguments: [frame])
        }
        #expect(identifiers.count == 2 && identifiers[0] != nil && identifiers[1] != nil && identifiers[0] != identifiers[1])
    }

    /// A frame that leaves its set (renamed out of the burst's names) takes the identifier its files give —
    /// none here — and its set's is not kept.
    @Test func aFrameThatLeavesItsSetTakesTheFilesIdentifier() async throws {
        let s = try TestScratch("burst-left")
        let (dir, _, _) = try Self.burstFolder(s)
        let path = s.path("c.sqlite")
        _ = try await FactsTests.ingest(dir, try Catalog(path: path))
        try #require(try Self.bursts(path)["IMG_20180101_120000_BURST003.jpg"]?.organized != nil)
        // Two frames named so are still a burst; renaming two of the three leaves one, which is none.
        try FileManager.default.moveItem(atPath: dir + "/IMG_20180101_120000_BURST003.jpg", toPath: dir + "/renamed3.jpg")
        try FileManager.default.moveItem(atPath: dir + "/IMG_20180101_120000_BURST001.jpg", toPath: dir + "/renamed1.jpg")
        _ = try await FactsTests.ingest(dir, try Catalog(path: path))
        let after = try Self.bursts(path)
        for name in ["renamed1.jpg", "renamed3.jpg", "IMG_20180101_120000_BURST002_COVER.jpg", "other.jpg"] {
            #expect(after[name]?.organized == nil && after[name]?.represents == false, "\(name): \(String(describing: after[name]))")
        }
        let reasons = try Catalog(path: path).allAssets().flatMap { $0.asset.reasons.map(\.subject) }
        #expect(!reasons.contains("burst") && !reasons.contains("representsBurst"), "no reason is left of a set that is gone")
    }

    /// A burst found by the first ingest is recorded once per frame: the `inserted` change covers the fields
    /// the same run's organize sets (as it covers the places step's). On assets an earlier run inserted, a
    /// change to their set is recorded: the first frame removed renames the set (its identifier is the name
    /// key's and the first frame's), so the two frames left are `updated`.
    @Test func aFirstIngestRecordsEachFrameOnceAndLaterChangesAreRecorded() async throws {
        let s = try TestScratch("burst-history")
        let (dir, _, _) = try Self.burstFolder(s)
        let path = s.path("c.sqlite")
        _ = try await FactsTests.ingest(dir, try Catalog(path: path))
        let c = try Catalog(path: path)
        let first = try c.changes(since: Catalog.token(catalogID: try c.catalogID(), change: 0), objectType: "asset")
        #expect(first.count == 4 && first.allSatisfy { $0.changeType == "inserted" }, "\(first.map { ($0.changeType, $0.properties) })")
        let before = try Self.bursts(path)
        try #require(before["IMG_20180101_120000_BURST002_COVER.jpg"]?.organized != nil)

        let token = try c.currentToken()
        try FileManager.default.removeItem(atPath: dir + "/IMG_20180101_120000_BURST001.jpg")
        _ = try await FactsTests.ingest(dir, try Catalog(path: path))
        let after = try Self.bursts(path)
        let kept = ["IMG_20180101_120000_BURST002_COVER.jpg", "IMG_20180101_120000_BURST003.jpg"]
        let renamed = try #require(after[kept[0]]?.organized)
        #expect(renamed != before[kept[0]]?.organized && after[kept[1]]?.organized == renamed)
        let lid = Dictionary(uniqueKeysWithValues: try Catalog(path: path).allAssets().map { (PathTextName.of($0.asset.id), $0.localIdentifier) })
        let updated = try Catalog(path: path).changes(since: token, objectType: "asset").filter { $0.changeType == "updated" }
        #expect(Set(updated.map(\.localIdentifier)) == Set(kept.compactMap { lid[$0] }), "\(updated.map { ($0.localIdentifier, $0.properties) })")
        #expect(updated.allSatisfy { $0.properties.contains("burstIdentifier") })
    }

    /// A catalog from before the files' identifier had a column of its own: the migration keeps, as the
    /// files', the identifiers the asset's reasons name as read (Apple's BurstUUID, Google's BurstID), and
    /// no identifier organize found by name or time; the record of organize's inputs is filled the same.
    @Test func theMigrationTellsTheFilesIdentifierFromOrganizes() throws {
        let s = try TestScratch("burst-migration")
        let path = s.path("old.sqlite")
        let q = try DatabaseQueue(path: path)
        let migrator = Schema.migrator()
        try migrator.migrate(q, upTo: "organize: inputs of the last organize")
        try q.write { db in
            let rows: [(String, String?, String)] = [
                ("apple.jpg", "D4E4B3D1-0E45-4987-BE12-76D604E25D2C", "burst: Apple MakerNote 0x000B BurstUUID=D4E4B3D1-0E45-4987-BE12-76D604E25D2C"),
                ("google.jpg", "G-1", "burst: XMP GCamera:BurstID=G-1"),
                ("named.jpg", "6A1F0C2E-0000-5000-8000-000000000001", "type: image (JPEG)"),
                ("none.jpg", nil, "type: image (JPEG)"),
            ]
            for (n, (name, burst, reasons)) in rows.enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO asset(local_identifier, cloud_identifier, root, dir, primary_path, filename, media_type, media_subtypes,
                            traits, playback_style, playback_variation, pixel_width, pixel_height, duration, has_adjustments,
                            metadata_sources, burst_identifier, reasons, modification_date, added_date)
                        VALUES (?, ?, '/r', '/r', ?, ?, 1, 0, '', 1, 0, 1, 1, 0, 0, '[]', ?, ?, '2026-01-01', '2026-01-01')
                        """, arguments: ["L\(n)/L0/001", "C\(n)", name, name, burst, reasons])
                try db.execute(
                    sql: """
                        INSERT INTO organize_input(asset_id, local_identifier, root, primary_path, filename, burst_identifier,
                            represents_burst, burst_selection_types, dir)
                        SELECT id, local_identifier, root, primary_path, filename, burst_identifier, 0, 0, dir FROM asset WHERE filename = ?
                        """, arguments: [name])
            }
        }
        try migrator.migrate(q)
        let files = try q.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT filename, file_burst_identifier FROM asset").map { ($0[0] as String, $0[1] as String?) })
        }
        #expect(files["apple.jpg"] == "D4E4B3D1-0E45-4987-BE12-76D604E25D2C")
        #expect(files["google.jpg"] == "G-1")
        #expect(files["named.jpg"] == .some(nil) && files["none.jpg"] == .some(nil))
        let differing = try q.read { db in
            try Int.fetchOne(
                db,
                sql: "SELECT COUNT(*) FROM organize_input s JOIN asset a ON a.id = s.asset_id WHERE s.file_burst_identifier IS NOT a.file_burst_identifier")
        }
        #expect(differing == 0)
        try q.close()
    }
}

/// The file name of a catalog path (`a/b/c.jpg` → `c.jpg`).
enum PathTextName {
    static func of(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }
}
