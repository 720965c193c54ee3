import Catalog
import Foundation
import PhotoModel
import TestSupport
import Testing

@testable import Pipeline

/// The run summary's counts come from indexes (`Catalog.summaryCounts`); they must be what a pass over the
/// asset table counts, with trashed assets, Live Photo pairs and subtypes present.
@Suite struct SummaryCountsTests {
    /// The counts as the table gives them, each by its own statement.
    static func counted(_ path: String) throws -> [String: Int] {
        func count(_ condition: String) throws -> Int {
            Int(try SQLiteFiles.strings(path, "SELECT COUNT(*) FROM asset a WHERE \(condition)").first ?? "") ?? -1
        }
        let live = "a.trashed_at IS NULL"
        var out = [
            "assets": try count(live), "images": try count("\(live) AND media_type = 1"), "videos": try count("\(live) AND media_type = 2"),
            "audio": try count("\(live) AND media_type = 3"), "in Recently Deleted": try count("a.trashed_at IS NOT NULL"),
            "Live Photo pairs": try count("\(live) AND EXISTS (SELECT 1 FROM resource r WHERE r.asset_id = a.id AND r.type = 9)"),
        ]
        for (subtype, name) in MediaSubtypes.named {
            let n = try count("\(live) AND (media_subtypes & \(subtype.rawValue)) != 0")
            if n > 0 { out[name] = n }
        }
        return out
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func summaryCountsAreWhatTheTableCounts() async throws {
        let s = try IngestTests.Scratch()
        let tree = s.url.appendingPathComponent("tree")
        try OrganizeIncrementalTests.link(Corpus.mediaFiles(), into: tree)
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await OrganizeIncrementalTests.ingest(tree.path, catalog)
        // Trash a Live Photo's still and one video, so the trashed assets have types of their own.
        let gone = [
            try #require(Corpus.mediaFiles().first { $0.hasSuffix("IMG_4394.HEIC") }),
            try #require(Corpus.mediaFiles().first { $0.uppercased().hasSuffix(".MP4") }),
        ]
        for f in gone { try FileManager.default.removeItem(at: tree.appendingPathComponent(f)) }
        _ = try await OrganizeIncrementalTests.ingest(tree.path, catalog)
        let expected = try Self.counted(s.catalogPath)
        #expect((expected["in Recently Deleted"] ?? 0) >= 2 && (expected["Live Photo pairs"] ?? 0) > 0 && (expected["videos"] ?? 0) > 0)
        #expect((expected["audio"] ?? 0) >= 0 && expected.count > 8, "subtypes present: \(expected)")
        let counts = try catalog.summaryCounts()
        #expect(Dictionary(counts, uniquingKeysWith: { a, _ in a }) == expected)
        #expect(counts.prefix(6).map(\.0) == ["assets", "images", "videos", "audio", "Live Photo pairs", "in Recently Deleted"])
        #expect(Array(counts.dropFirst(6).map(\.0)) == MediaSubtypes.named.map(\.1).filter { expected[$0] != nil }, "subtypes in their order")
    }
}
