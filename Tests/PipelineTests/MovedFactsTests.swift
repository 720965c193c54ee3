import Foundation
import GRDB
import MediaProbe
import Synchronization
import TestSupport
import Testing

@testable import Catalog
@testable import Pipeline

/// Issue 17 (renames at scale): a folder renamed or moved ("Camera" → "Camera 2023") was probed again file by
/// file at its new paths — every byte with `--hash full`. A file met at a new path with the same name and
/// version (device, inode, size, modification time) as one that vanished this run takes over its stored
/// facts and hash (`MovedFacts`). It must change nothing but what is read.
@Suite struct MovedFactsTests {
    /// The paths an ingest probed.
    final class Probed: Sendable {
        let paths = Mutex<Set<String>>([])
        var all: Set<String> { paths.withLock { $0 } }
    }

    static func ingest(_ root: String, _ path: String, mode: HashMode, takeOver: Bool = true, probed: Probed? = nil) async throws -> IngestSummary {
        var o = IngestOptions(roots: [root], concurrency: 2)
        o.hashMode = mode
        o.takeOverMovedFacts = takeOver
        if let probed { o.beforeProbe = { p in probed.paths.withLock { _ = $0.insert(p) } } }
        return try await Ingestor(options: o, catalog: try Catalog(path: path)).run()
    }

    /// A renamed folder's run interrupted right after the old folder was committed (its rows deleted, their
    /// facts set aside, no file at the new paths reached): what was set aside is kept (`moved_out`), and the
    /// run that completes the job takes it over — the renamed files are not read, and the catalog is the one
    /// a fresh ingest makes; it then forgets what it kept. Without the kept rows every renamed file is read.
    @Test(arguments: [HashMode.full, .none])
    func aRenameSplitByAnInterruptedRunReadsNothingAgain(mode: HashMode) async throws {
        let s = try TestScratch("moved-facts-interrupted")
        let root = try LargeFolderTests.library(s)
        let path = s.path("c.sqlite"), fresh = s.path("fresh.sqlite")
        _ = try await Self.ingest(root, path, mode: mode)
        try FileManager.default.moveItem(atPath: root + "/iphone", toPath: root + "/iPhone 2023")
        let renamed = try FileManager.default.contentsOfDirectory(atPath: root + "/iPhone 2023").map { root + "/iPhone 2023/" + $0 }

        var o = IngestOptions(roots: [root], concurrency: 2)
        o.hashMode = mode
        let stop = HashModeTests.StopAfterFirst()  // the first folder handed out (the one gone) and no other
        o.stopRequested = { stop.ask() }
        let probedThen = Probed()
        o.beforeProbe = { p in probedThen.paths.withLock { _ = $0.insert(p) } }
        let interrupted = try await Ingestor(options: o, catalog: try Catalog(path: path)).run()
        #expect(interrupted.interrupted && probedThen.all.isEmpty && interrupted.filesMoved == 0)
        let kept = try Catalog(path: path).movedOut(withVersions: renamed.compactMap { FolderWalker.file($0).fingerprint })
        #expect(kept.count > 10, "the set-aside facts kept: \(kept.count)")
        #expect(try Self.statuses(path).keys.allSatisfy { !$0.contains("/iphone/") }, "the old folder was committed")

        let probed = Probed()
        let resumed = try await Self.ingest(root, path, mode: mode, probed: probed)
        let unread = Set(renamed).subtracting(probed.all)
        #expect(unread.count == kept.count && resumed.filesMoved == kept.count, "\(unread.count) of \(renamed.count) not read")
        #expect(try Catalog(path: path).movedOut(withVersions: renamed.compactMap { FolderWalker.file($0).fingerprint }).isEmpty)
        _ = try await Self.ingest(root, fresh, mode: mode)
        let (x, z) = (try LargeFolderTests.storedBytes(path), try LargeFolderTests.storedBytes(fresh))
        let wrong = Set(x.facts.keys).union(z.facts.keys).filter { x.facts[$0] != z.facts[$0] }.sorted()
        #expect(!x.facts.isEmpty && wrong.isEmpty, "facts unlike a fresh ingest's: \(wrong.prefix(3))")
    }

    static func statuses(_ path: String) throws -> [String: String] {
        let q = try DatabaseQueue(path: path)
        defer { try? q.close() }
        return try q.read { db in
            var out: [String: String] = [:]
            for r in try Row.fetchAll(db, sql: "SELECT path, status FROM file") { out[r["path"]] = r["status"] }
            return out
        }
    }

    /// The generated library (Live Photos, edits, a screen recording, damaged and failed files, Takeout, XMP)
    /// ingested twice, once taking moved files' facts over and once not; then a folder renamed, another with
    /// failed files renamed, a RAW moved to a folder walked after its own, a sidecar moved to one walked
    /// before, files of the renamed folder given other names (by date, same extension: taken over; another
    /// extension: read) and a Takeout sidecar renamed in place (JSON is judged by its name: read).
    /// Re-ingested: the catalogs are the same (facts byte for byte, digests, files, assets, errors, albums and
    /// moments) and the facts are a fresh ingest's of the new tree; only the files whose facts could not be
    /// taken over were read.
    @Test(arguments: [HashMode.full, .sampled, .none])
    func movedFilesTakeOverTheirFactsAndChangeNothingElse(mode: HashMode) async throws {
        let s = try TestScratch("moved-facts")
        let root = try LargeFolderTests.library(s)
        try "trip notes".write(toFile: root + "/iphone/README.txt", atomically: false, encoding: .utf8)  // skipped: no hash
        let on = s.path("on.sqlite"), off = s.path("off.sqlite"), fresh = s.path("fresh.sqlite")
        _ = try await Self.ingest(root, on, mode: mode)
        _ = try await Self.ingest(root, off, mode: mode)
        let before = try Self.statuses(on)
        #expect(before.values.contains("error") && before.values.contains("ok") && before.values.contains("skipped"), "\(Set(before.values))")

        let fm = FileManager.default
        try fm.moveItem(atPath: root + "/iphone", toPath: root + "/iPhone 2023")
        try fm.moveItem(atPath: root + "/bad", toPath: root + "/bad files")
        try fm.moveItem(atPath: root + "/camera/DSC_0011.NEF", toPath: root + "/xmp/DSC_0011.NEF")  // walked later: taken over
        // Walked earlier: taken over, found by version before its old folder's turn — the photo too, though
        // another file now sits at its old path (read: a changed file).
        try fm.moveItem(atPath: root + "/xmp/DSC_0101.xmp", toPath: root + "/camera/DSC_0101.xmp")
        try fm.moveItem(atPath: root + "/xmp/DSC_0101.JPG", toPath: root + "/camera/DSC_0101.JPG")
        try fm.copyItem(atPath: root + "/camera/DSC_0010.JPG", toPath: root + "/xmp/DSC_0101.JPG")
        // Another link of a file that stays where it was is not a move: read.
        try fm.linkItem(atPath: root + "/xmp/DSC_0100.JPG", toPath: root + "/camera/DSC_0100.JPG")
        let alsoRead: Set<String> = [root + "/xmp/DSC_0101.JPG", root + "/camera/DSC_0100.JPG"]
        let trip = root + "/takeout/Google Photos/Trip 2019"
        let renamed = [
            (root + "/iphone/IMG_0007.JPG", root + "/iPhone 2023/2024-05-01 12.34.56.JPG", true),  // by date: taken over
            (root + "/iphone/IMG_0002.JPG", root + "/iPhone 2023/IMG_0002.jpeg", false),  // another extension: read
            (root + "/iphone/IMG_0001.AAE", root + "/iPhone 2023/IMG_0001 adjustments.AAE", true),  // a sidecar, same extension
            (trip + "/metadata.json", trip + "/metadata-2019.json", false),  // JSON is judged by its name (an album's): read
        ]
        for (old, new, _) in renamed {
            let moved = old.replacingOccurrences(of: root + "/iphone/", with: root + "/iPhone 2023/")
            try fm.moveItem(atPath: moved, toPath: new)
        }
        // Where each file came from, and which ones are taken over: same name, a reusable status, and a folder
        // that vanished (or lost the file) before the new folder was handed out.
        var origin: [String: String] = [:]
        for (old, status) in before {
            var new = old
            for (a, b) in [("/iphone/", "/iPhone 2023/"), ("/bad/", "/bad files/")] where old.contains(root + a) {
                new = old.replacingOccurrences(of: root + a, with: root + b)
            }
            if old.hasSuffix("/camera/DSC_0011.NEF") { new = root + "/xmp/DSC_0011.NEF" }
            if old.hasSuffix("/xmp/DSC_0101.xmp") { new = root + "/camera/DSC_0101.xmp" }
            if old.hasSuffix("/xmp/DSC_0101.JPG") { new = root + "/camera/DSC_0101.JPG" }
            for (from, to, _) in renamed where old == from { new = to }
            if new != old { origin[new] = status }
        }
        let read = Set(renamed.filter { !$0.2 }.map(\.1))
        let expectedMoved = Set(
            origin.filter { path, status in
                ["ok", "damaged", "skipped"].contains(status) && !read.contains(path)
            }.keys)
        #expect(expectedMoved.contains(root + "/camera/DSC_0101.xmp") && expectedMoved.contains(root + "/camera/DSC_0101.JPG"))
        #expect(renamed.allSatisfy { !$0.2 || expectedMoved.contains($0.1) }, "renamed files with reusable facts")
        #expect(expectedMoved.count > 15 && origin.count > expectedMoved.count + 3, "\(expectedMoved.count) of \(origin.count)")

        let probedOn = Probed(), probedOff = Probed()
        let a = try await Self.ingest(root, on, mode: mode, probed: probedOn)
        let b = try await Self.ingest(root, off, mode: mode, takeOver: false, probed: probedOff)
        let (readOn, readOff) = (probedOn.all, probedOff.all)
        #expect(readOff == Set(origin.keys).union(alsoRead), "without taking over, every file at a new path is read")
        #expect(readOn == readOff.subtracting(expectedMoved), "read: \(readOn.sorted())")
        #expect(read.isSubset(of: readOn) && alsoRead.isSubset(of: readOn) && readOn.contains { $0.contains("/bad files/") })
        let moved = expectedMoved.count
        #expect(a.filesMoved == moved && b.filesMoved == 0, "\(a.filesMoved)")
        #expect(a.filesProbed + a.filesMoved == b.filesProbed && a.filesSeen == b.filesSeen)
        #expect(a.notes.contains { $0.hasPrefix("\(moved) files moved or renamed from paths gone this run") }, "\(a.notes)")
        #expect(a.inserted == b.inserted && a.updated == b.updated && a.deleted == b.deleted, "\(a.inserted) \(a.updated) \(a.deleted)")

        let (x, y) = (try LargeFolderTests.storedBytes(on), try LargeFolderTests.storedBytes(off))
        #expect(!x.facts.isEmpty && x.facts == y.facts, "facts")
        #expect(x.digests == y.digests, "folder digests")
        let (p, q) = (try CatalogSnapshot(path: on), try CatalogSnapshot(path: off))
        let differing = Set(p.assets.keys).union(q.assets.keys).filter { p.assets[$0] != q.assets[$0] }.sorted()
        #expect(p.assets.count > 20 && differing.isEmpty, "assets differ: \(differing.prefix(3))")
        #expect(p.files == q.files && p.errors == q.errors, "files and errors")
        #expect(p.collections == q.collections && p.lists == q.lists, "collections")

        // The facts taken over are the ones a probe of the new paths writes.
        _ = try await Self.ingest(root, fresh, mode: mode)
        let z = try LargeFolderTests.storedBytes(fresh)
        let wrong = Set(x.facts.keys).union(z.facts.keys).filter { x.facts[$0] != z.facts[$0] }.sorted()
        #expect(wrong.isEmpty, "facts unlike a fresh ingest's: \(wrong.prefix(3))")
    }

    /// A catalog hashed with another `--hash` mode stores no hash of this run's kind: a moved file keeps its
    /// facts and is hashed, not probed — the files and facts are the ones probing makes, byte for byte. And its
    /// asset is matched by the path it left, where content cannot match across modes (another kind of hash:
    /// probed, the old assets are trashed and new ones inserted).
    @Test(arguments: [(HashMode.full, HashMode.none), (.none, .sampled), (.sampled, .full)])
    func movedFilesOfAnotherModesCatalogAreHashedNotProbed(first: HashMode, then: HashMode) async throws {
        let s = try TestScratch("moved-facts-modes")
        let root = try LargeFolderTests.library(s)
        // Photos larger than the sampled windows (the library's files are hashed whole in every mode).
        for n in 0..<3 {
            try Data(HashModeTests.jpeg(size: 300_000 + n, seed: n)).write(to: URL(fileURLWithPath: root + "/iphone/BIG_\(n).JPG"))
        }
        let on = s.path("on.sqlite"), off = s.path("off.sqlite")
        _ = try await Self.ingest(root, on, mode: first)
        _ = try await Self.ingest(root, off, mode: first)
        try FileManager.default.moveItem(atPath: root + "/iphone", toPath: root + "/iPhone 2023")
        let probedOn = Probed(), probedOff = Probed()
        let a = try await Self.ingest(root, on, mode: then, probed: probedOn)
        let b = try await Self.ingest(root, off, mode: then, takeOver: false, probed: probedOff)
        #expect(!probedOn.all.contains { $0.contains("/iPhone 2023/") }, "\(probedOn.all.sorted())")
        #expect(probedOff.all.contains { $0.contains("/iPhone 2023/") })
        #expect(a.filesMoved > 10 && a.filesProbed + a.filesMoved == b.filesProbed, "\(a.filesMoved) \(a.filesProbed) \(b.filesProbed)")
        let (x, y) = (try LargeFolderTests.storedBytes(on), try LargeFolderTests.storedBytes(off))
        #expect(!x.facts.isEmpty && x.facts == y.facts && x.digests == y.digests)
        let (p, q) = (try CatalogSnapshot(path: on), try CatalogSnapshot(path: off))
        #expect(p.files == q.files, "files (with their hashes)")
        // Taken over: every moved asset updated in place, none trashed or inserted; the live assets are the
        // other catalog's (whose moved ones are new), resource hashes of the run's kind included.
        // (A cloud identifier is made from the hash at insertion and kept for the asset's life: the kept assets
        // have the old mode's, the new ones this mode's.)
        let live = { (x: CatalogSnapshot) in
            x.assets.filter { $0.value["trashed_at"] == "NULL" }.mapValues { var c = $0; c["cloud_identifier"] = nil; return c }
        }
        #expect(a.inserted == 0 && a.deleted == 0 && p.assets.count == live(p).count, "\(a.inserted) \(a.deleted)")
        #expect(b.inserted > 0 && b.inserted == b.deleted, "\(b.inserted) \(b.deleted)")
        let differing = Set(live(p).keys).union(live(q).keys).filter { live(p)[$0] != live(q)[$0] }.sorted()
        #expect(differing.isEmpty, "live assets differ: \(differing.prefix(3))")
        let big = try Catalog(path: on).files(inDirectory: root + "/iPhone 2023").filter { $0.path.contains("/BIG_") }
        #expect(big.count == 3 && big.allSatisfy { $0.contentHash.map { !$0.hasPrefix("xxh128:") || then == .full } ?? false })
    }

    /// The hashes a moved file's row takes from a vanished one's are the ones the run's mode makes of it,
    /// whatever mode wrote the stored row (or none: it is read). Real files of each size class the modes tell
    /// apart, stored rows of every mode, completed or not.
    @Test func takenOverHashesAreTheOnesTheModeMakes() throws {
        let s = try TestScratch("moved-hashes")
        var checked = 0
        for size in [10_000, 100_000, 150_000, 1_000_000] {
            let path = s.path("f\(size).bin")
            try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }).write(to: URL(fileURLWithPath: path))
            var made: [HashMode: String] = [:]
            for m in HashMode.allCases { made[m] = try ContentHasher.hash(path: path, mode: m) }
            let full = made[.full]!
            for stored in HashMode.allCases {
                let h = made[stored]!
                var rows: [(String?, String?)] = [(h, ContentHasher.isPartial(h) ? h : nil)]
                if ContentHasher.isPartial(h) { rows.append((full, h)) }  // completed to a full hash
                for (content, sample) in rows {
                    for run in HashMode.allCases {
                        let r = MovedFacts.hashes(contentHash: content, sampleHash: sample, mode: run, size: Int64(size))
                        let want: String = made[run]!
                        let label = "\(size) \(stored) → \(run)"
                        if stored == run || want == h { #expect(r != nil, "\(label)") }
                        guard let r else { continue }
                        checked += 1
                        let partial: String? = ContentHasher.isPartial(want) ? want : nil
                        #expect((r.sampleHash ?? r.hash) == want, "\(label)")
                        #expect(r.sampleHash == partial, "\(label)")
                        let completed = r.hash == full && content == full
                        #expect(r.hash == want || completed, "\(label): \(r.hash)")
                    }
                }
            }
        }
        #expect(checked > 20)
    }
}

/// Many copies of one file moved (a folder of duplicates renamed, or moved into a folder walked before the one
/// they left): each copy keeps an asset of its own with its identifiers, whichever way the move is found.
/// Matching by content read every asset of the content once per copy — quadratic: 5,000 copies took minutes —
/// and past 64 candidates the copies were inserted anew and merged at the end of the run.
@Suite struct ManyCopiesMoveTests {
    /// `dir/copy-NNN.jpg` for `count` copies of one photo, and one other photo.
    static func copies(_ s: IngestTests.Scratch, in dir: String, count: Int) throws {
        let photo = HashModeTests.jpeg(size: 20_000, seed: 7)
        for n in 0..<count { try s.write(String(format: "%@/copy-%03d.jpg", dir, n), photo) }
        try s.write(dir + "/other.jpg", HashModeTests.jpeg(size: 20_000, seed: 8))
    }

    static func identifiers(_ c: Catalog) throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try c.allAssets(includeTrashed: true).map { ($0.asset.id, $0.localIdentifier) })
    }

    /// A renamed folder of 150 copies: every asset updated in place, none inserted, merged or trashed, and the
    /// identifiers are the old ones (as a set: copies are interchangeable), each asset one copy.
    @Test(arguments: [HashMode.full, .none])
    func aRenamedFolderOfCopiesKeepsEveryAsset(mode: HashMode) async throws {
        let s = try IngestTests.Scratch()
        try Self.copies(s, in: "Camera", count: 150)
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await HashModeTests.ingest(s.root, catalog, mode: mode)
        let before = try Self.identifiers(catalog)
        #expect(before.count == 151)
        let token = try catalog.currentToken()
        try FileManager.default.moveItem(atPath: s.root + "/Camera", toPath: s.root + "/Camera 2023")
        let summary = try await HashModeTests.ingest(s.root, catalog, mode: mode)
        let after = try Self.identifiers(catalog)
        #expect(summary.inserted == 0 && summary.deleted == 0 && summary.updated == 151, "\(summary.inserted) \(summary.updated)")
        #expect(after.count == 151 && after.keys.allSatisfy { $0.hasPrefix("Camera 2023/") })
        #expect(Set(after.values) == Set(before.values))
        #expect(after["Camera 2023/other.jpg"] == before["Camera/other.jpg"])
        let records = try catalog.changes(since: token, objectType: "asset")
        #expect(records.allSatisfy { $0.changeType == "updated" } && records.count == 151, "\(Set(records.map(\.changeType)))")
    }

    /// Two copies of one photo, the second a favorite; the folder renamed and the first copy renamed so that it
    /// now sorts last ("a.jpg" → "z.jpg"). Each copy keeps its own asset, matched by the path it left: by content
    /// alone "b.jpg", now first, took the first copy's asset and the favorite went to "z.jpg".
    @Test func eachMovedCopyKeepsItsOwnAsset() async throws {
        let s = try IngestTests.Scratch()
        let photo = HashModeTests.jpeg(size: 20_000, seed: 3)
        try s.write("Camera/a.jpg", photo)
        try s.write("Camera/b.jpg", photo)
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await HashModeTests.ingest(s.root, catalog, mode: .full)
        let before = try Self.identifiers(catalog)
        let b = try #require(before["Camera/b.jpg"])
        _ = try catalog.perform(ChangeSet(changes: [Change(op: .favorite, asset: b, value: true)]))
        try FileManager.default.moveItem(atPath: s.root + "/Camera", toPath: s.root + "/Camera 2023")
        try FileManager.default.moveItem(atPath: s.root + "/Camera 2023/a.jpg", toPath: s.root + "/Camera 2023/z.jpg")
        let summary = try await HashModeTests.ingest(s.root, catalog, mode: .full)
        #expect(summary.filesMoved == 2 && summary.inserted == 0 && summary.updated == 2)
        let after = try catalog.allAssets()
        #expect(after.first { $0.asset.id == "Camera 2023/b.jpg" }?.localIdentifier == b)
        #expect(after.first { $0.asset.id == "Camera 2023/z.jpg" }?.localIdentifier == before["Camera/a.jpg"])
        #expect(after.first { $0.asset.id == "Camera 2023/b.jpg" }?.asset.isFavorite == true)
        #expect(after.first { $0.asset.id == "Camera 2023/z.jpg" }?.asset.isFavorite == false)
    }

    /// 100 copies moved out of a folder that stays into one walked before it: inserted when their new folder is
    /// committed, then each joined to an asset it left at the end of the run (`adoptMovedAssets`).
    @Test func copiesMovedIntoAFolderWalkedFirstAreJoinedToTheirAssets() async throws {
        let s = try IngestTests.Scratch()
        try Self.copies(s, in: "z-old", count: 100)
        try s.write("a-new/first.jpg", HashModeTests.jpeg(size: 20_000, seed: 9))
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await HashModeTests.ingest(s.root, catalog, mode: .full)
        let before = try Self.identifiers(catalog)
        let token = try catalog.currentToken()
        for n in 0..<100 {
            let name = String(format: "copy-%03d.jpg", n)
            try FileManager.default.moveItem(atPath: s.root + "/z-old/" + name, toPath: s.root + "/a-new/" + name)
        }
        let summary = try await HashModeTests.ingest(s.root, catalog, mode: .full)
        let after = try Self.identifiers(catalog)
        let live = try catalog.allAssets().count
        #expect(after.count == 102 && live == 102, "nothing trashed")
        let moved = (0..<100).map { String(format: "a-new/copy-%03d.jpg", $0) }
        #expect(Set(moved.compactMap { after[$0] }) == Set((0..<100).compactMap { before[String(format: "z-old/copy-%03d.jpg", $0)] }))
        #expect(after["z-old/other.jpg"] == before["z-old/other.jpg"] && after["a-new/first.jpg"] == before["a-new/first.jpg"])
        let records = try catalog.changes(since: token, objectType: "asset")
        // The inserts merged away are not counted: the summary says 100 updated, nothing inserted or deleted.
        #expect(records.filter { $0.isMerge }.count == 100 && summary.updated == 100, "\(summary.updated)")
        #expect(summary.inserted == 0 && summary.deleted == 0, "\(summary.inserted) \(summary.deleted)")
    }
}
