import Catalog
import Foundation
import GRDB
import MediaProbe
import Testing

@testable import Pipeline

/// `--hash sampled|none`: partial hashes name duplicate candidates; files that share one are hashed in full,
/// so exact duplicates and look-alikes are told apart, and moves are still followed.
@Suite(.serialized) struct HashModeTests {
    typealias Scratch = IngestTests.Scratch

    /// A baseline JPEG of `size` bytes: SOF0 (16×16), SOS, entropy-coded bytes (no FF), EOI. `mark` sets the
    /// entropy byte at that offset to 0x01 (a file of the same size and windows that differs there).
    static func jpeg(size: Int, seed: Int = 0, mark: Int? = nil) -> [UInt8] {
        var b: [UInt8] = [0xFF, 0xD8]
        b += [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x10, 0x00, 0x10, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        b += [0xFF, 0xDA, 0x00, 0x0C, 0x03, 1, 0x00, 2, 0x11, 3, 0x11, 0x00, 0x3F, 0x00]
        let body = size - b.count - 2
        b.reserveCapacity(size)
        for i in 0..<body { b.append(UInt8((i &* 131 &+ seed) % 251)) }  // never FF
        b += [0xFF, 0xD9]
        if let mark { b[mark] = b[mark] == 0x01 ? 0x02 : 0x01 }
        return b
    }

    static func ingest(_ root: String, _ catalog: Catalog, mode: HashMode, batchRows: Int = Ingestor.commitBatchRows) async throws -> IngestSummary {
        var o = IngestOptions(roots: [root], concurrency: 2)
        o.hashMode = mode
        o.commitBatchRows = batchRows
        o.organize = false
        return try await Ingestor(options: o, catalog: catalog).run()
    }

    static func row(_ catalog: Catalog, _ path: String) throws -> FileRow {
        try #require(try catalog.files(inDirectory: (path as NSString).deletingLastPathComponent).first { $0.path == path })
    }

    @Test func sampledAndHeadHashesCoverOnlyTheirWindows() throws {
        let size = 400_000
        let a = Self.jpeg(size: size)
        let b = Self.jpeg(size: size, mark: 100_000)  // outside head [0, 64K), middle, tail windows
        let w = ContentHasher.sampleWindow
        #expect(100_000 >= w && 100_000 < (size - w) / 2)
        let sa = try ContentHasher.hash(MemorySource(a), mode: .sampled)
        #expect(sa.hasPrefix("xxh128w:"))
        #expect(sa == (try ContentHasher.hash(MemorySource(b), mode: .sampled)))
        #expect(try ContentHasher.hash(MemorySource(a), mode: .none) == (try ContentHasher.hash(MemorySource(b), mode: .none)))
        #expect(try ContentHasher.hash(MemorySource(a), mode: .full) != (try ContentHasher.hash(MemorySource(b), mode: .full)))
        // A change in the middle window changes the sampled hash; a change past the head, not the head hash.
        let c = Self.jpeg(size: size, mark: size / 2)
        #expect(try ContentHasher.hash(MemorySource(c), mode: .sampled) != sa)
        #expect(try ContentHasher.hash(MemorySource(c), mode: .none) == (try ContentHasher.hash(MemorySource(a), mode: .none)))
        // Files the windows cover whole get the full hash in every mode.
        let small = Self.jpeg(size: 50_000)
        let full = try ContentHasher.hash(MemorySource(small), mode: .full)
        #expect(full.hasPrefix("xxh128:"))
        #expect(try ContentHasher.hash(MemorySource(small), mode: .sampled) == full)
        #expect(try ContentHasher.hash(MemorySource(small), mode: .none) == full)
        // The streamed hash of a file equals the hash of its bytes in memory.
        let s = try Scratch()
        let path = try s.write("a.jpg", a)
        #expect(try ContentHasher.hash(path: path, mode: .full) == (try ContentHasher.hash(MemorySource(a), mode: .full)))
    }

    /// With one folder per commit batch, the writer holds a's batch while b is checked: b's duplicate of a
    /// file of a is found among the folders not written yet, as it is in the catalog.
    @Test(arguments: [HashMode.sampled, .none], [Ingestor.commitBatchRows, 1])
    func duplicatesAndLookAlikesAreHashedInFull(_ mode: HashMode, batchRows: Int) async throws {
        let s = try Scratch()
        let size = 400_000
        let x = try s.write("a/x.jpg", Self.jpeg(size: size))
        let y = try s.write("b/y.jpg", Self.jpeg(size: size))  // an exact copy (another inode)
        let z = try s.write("b/z.jpg", Self.jpeg(size: size, mark: 100_000))  // same size and windows, other middle
        let lone = try s.write("b/lone.jpg", Self.jpeg(size: size, seed: 7))  // shares nothing: stays partial
        let catalog = try Catalog(path: s.catalogPath)
        let summary = try await Self.ingest(s.root, catalog, mode: mode, batchRows: batchRows)
        #expect(summary.errors == 0)
        let (rx, ry, rz, rl) = (try Self.row(catalog, x), try Self.row(catalog, y), try Self.row(catalog, z), try Self.row(catalog, lone))
        let fullX = try ContentHasher.hash(path: x, mode: .full)
        #expect(rx.contentHash == fullX && ry.contentHash == fullX)  // duplicates: equal full hashes
        #expect(rz.contentHash == (try ContentHasher.hash(path: z, mode: .full)) && rz.contentHash != fullX)  // look-alike
        #expect(rx.sampleHash != nil && rx.sampleHash == ry.sampleHash && ry.sampleHash == rz.sampleHash)
        #expect(rl.contentHash == rl.sampleHash && rl.contentHash.map(ContentHasher.isPartial) == true)
        // The catalog's check per hash (its lowest and highest stored identity): the lone file's own identity
        // shares nothing; another one shares its row.
        let loneID = FileIdentity(rl.fingerprint), lonePartial = try #require(rl.sampleHash)
        #expect(try catalog.files(sharingPartialHashes: [lonePartial: [loneID]]).isEmpty)
        #expect(try catalog.files(sharingPartialHashes: [lonePartial: [FileIdentity(device: loneID.device, inode: -1)]]).count == 1)
        #expect(try catalog.files(sharingPartialHashes: ["xxh128h:0": [loneID]]).isEmpty)
        // Resources carry the completed hashes; every asset has its own cloud identifier.
        let assets = try catalog.allAssets()
        #expect(assets.count == 4)
        #expect(Set(assets.map(\.cloudIdentifier)).count == 4)
        #expect(assets.first { $0.asset.id == "a/x.jpg" }?.resourceHashes.first == fullX)
        #expect(assets.first { $0.asset.id == "b/y.jpg" }?.resourceHashes.first == fullX)

        // A copy arriving in a later run completes the stored file it duplicates (file and resource rows).
        let w = try s.write("c/w.jpg", Self.jpeg(size: size, seed: 7))
        _ = try await Self.ingest(s.root, catalog, mode: mode, batchRows: batchRows)
        let fullLone = try ContentHasher.hash(path: lone, mode: .full)
        #expect(try Self.row(catalog, lone).contentHash == fullLone)
        #expect(try Self.row(catalog, w).contentHash == fullLone)
        #expect(try catalog.allAssets().first { $0.asset.id == "b/lone.jpg" }?.resourceHashes.first == fullLone)
    }

    /// A stored file whose full hash a commit still in flight completes is not read again for the next copy
    /// of it: the version read then is remembered until that commit is written (in a tree of copies every
    /// later copy re-read the first while the writer was behind). Shown by changing the first file's bytes
    /// (size and modification time kept, so its version looks the same) after its completion was read: the
    /// next commit completes it with the hash read then, not the changed bytes'.
    @Test func aVersionReadForACommitInFlightIsNotReadAgain() async throws {
        let s = try Scratch()
        let size = 400_000
        let paths = try ["a/x.jpg", "b/y.jpg", "c/z.jpg"].map { try s.write($0, Self.jpeg(size: size)) }
        let catalog = try Catalog(path: s.catalogPath)
        var o = IngestOptions(roots: [s.root], concurrency: 1)
        o.hashMode = .none
        let ingestor = Ingestor(options: o, catalog: catalog)
        let partial = try ContentHasher.hash(path: paths[0], mode: .none)
        let full = try ContentHasher.hash(path: paths[0], mode: .full)
        func commit(_ path: String) throws -> FolderCommit {
            let fingerprint = try #require(FolderWalker.file(path).fingerprint)
            let dir = (path as NSString).deletingLastPathComponent
            let row = FileRow(
                path: path, root: s.root, dir: dir, fingerprint: fingerprint, contentHash: partial, kind: "image", role: "image", status: "ok",
                lastError: nil, facts: [0], probeVersion: Prober.version, sampleHash: partial)
            return FolderCommit(runID: 1, root: s.root, dir: dir, files: [row], vanished: [], assets: nil, errors: [])
        }
        var unwritten = UnwrittenPartials()
        var first = try commit(paths[0])
        try ingestor.completePartialHashes(&first, unwritten: &unwritten)
        #expect(first.files[0].contentHash == partial && first.completedHashes.isEmpty, "one file of its content: nothing to complete")
        unwritten.add(first)
        var second = try commit(paths[1])
        try ingestor.completePartialHashes(&second, unwritten: &unwritten)
        #expect(second.files[0].contentHash == full)
        #expect(second.completedHashes == [CompletedHash(path: paths[0], partial: partial, full: full)])
        unwritten.add(second)

        // x's bytes change in the middle; its size and modification time stay.
        var st = stat()
        try #require(stat(paths[0], &st) == 0)
        try Data(Self.jpeg(size: size, mark: 200_000)).write(to: URL(fileURLWithPath: paths[0]))
        var times = [st.st_atim, st.st_mtim]
        try #require(utimensat(AT_FDCWD, paths[0], &times, 0) == 0)
        #expect(try ContentHasher.hash(path: paths[0], mode: .full) != full)

        var third = try commit(paths[2])
        try ingestor.completePartialHashes(&third, unwritten: &unwritten)
        #expect(third.files[0].contentHash == full)
        #expect(third.completedHashes.allSatisfy { $0.full == full }, "x is not read again: \(third.completedHashes)")
    }

    /// Hard links of a file in many folders, beside an exact copy (another inode): every link gets the full
    /// hash, whether its file was completed in this folder, an unwritten one or the catalog; and the catalog
    /// hands back one row per completed file version, not one per link.
    @Test(arguments: [HashMode.sampled, .none], [Ingestor.commitBatchRows, 1])
    func hardLinksShareTheirFilesFullHash(_ mode: HashMode, batchRows: Int) async throws {
        let s = try Scratch()
        let size = 400_000
        let x = try s.write("a/x.jpg", Self.jpeg(size: size))
        let y = try s.write("a/y.jpg", Self.jpeg(size: size))  // an exact copy of x
        var links = [x]
        for d in ["b", "c", "d"] {
            try FileManager.default.createDirectory(atPath: s.root + "/" + d, withIntermediateDirectories: true)
            for (n, src) in [x, y].enumerated() {
                let link = s.root + "/\(d)/\(n == 0 ? "x" : "y")-link.jpg"
                try FileManager.default.linkItem(atPath: src, toPath: link)
                if n == 0 { links.append(link) }
            }
        }
        let catalog = try Catalog(path: s.catalogPath)
        let summary = try await Self.ingest(s.root, catalog, mode: mode, batchRows: batchRows)
        #expect(summary.errors == 0)
        let full = try ContentHasher.hash(path: x, mode: .full)
        for p in links + [y, s.root + "/d/y-link.jpg"] { #expect(try Self.row(catalog, p).contentHash == full, "\(p)") }
        let rx = try Self.row(catalog, x)
        let partial = try #require(rx.sampleHash)
        // A new file of a third inode with that partial hash: the eight rows come back as two (x's and y's).
        let other = FileIdentity(device: rx.fingerprint.device, inode: -1)
        let rows = try catalog.files(sharingPartialHashes: [partial: [other]])
        #expect(rows.count == 2)
        #expect(Set(rows.map { FileIdentity($0.fingerprint) }).count == 2)
        #expect(rows.allSatisfy { $0.contentHash == full })
        // Rows whose paths the caller holds newer rows for are left out before one per version is chosen.
        let ys = [y] + ["b", "c", "d"].map { s.root + "/\($0)/y-link.jpg" }
        let left = try catalog.files(sharingPartialHashes: [partial: [other]], excluding: Set(ys))
        #expect(left.count == 1 && left.first.map { FileIdentity($0.fingerprint) } == FileIdentity(rx.fingerprint))
        // Two stored identities (x's links, y's): one of them new shares the hash with the other; both new
        // (the scan of the hash's rows) share it with nothing.
        let (idX, idY) = (FileIdentity(rx.fingerprint), FileIdentity(try Self.row(catalog, y).fingerprint))
        #expect(try catalog.files(sharingPartialHashes: [partial: [idX]]).count == 2)
        #expect(try catalog.files(sharingPartialHashes: [partial: [idX, idY]]).isEmpty)
        #expect(try catalog.files(sharingPartialHashes: [partial: [idX, other]]).count == 2)
    }

    @Test(arguments: [HashMode.full, .sampled, .none], [Ingestor.commitBatchRows, 1])
    func movesKeepTheirIdentifiers(_ mode: HashMode, batchRows: Int) async throws {
        let s = try Scratch()
        let size = 300_000
        try s.write("a/stays.jpg", Self.jpeg(size: size, seed: 3))  // the folder is still there, committed before b/
        let renamed = try s.write("a/one.jpg", Self.jpeg(size: size, seed: 1))
        let copied = try s.write("a/two.jpg", Self.jpeg(size: size, seed: 2))
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await Self.ingest(s.root, catalog, mode: mode, batchRows: batchRows)
        let before = Dictionary(uniqueKeysWithValues: try catalog.allAssets().map { ($0.asset.id, $0.localIdentifier) })
        // A rename into another folder (same inode), and a copy elsewhere whose original is removed (another inode).
        try FileManager.default.createDirectory(atPath: s.root + "/b", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: renamed, toPath: s.root + "/b/uno.jpg")
        try FileManager.default.copyItem(atPath: copied, toPath: s.root + "/b/dos.jpg")
        try FileManager.default.removeItem(atPath: copied)
        let summary = try await Self.ingest(s.root, catalog, mode: mode, batchRows: batchRows)
        let after = try catalog.allAssets()
        #expect(after.count == 3)
        #expect(after.first { $0.asset.id == "b/uno.jpg" }?.localIdentifier == before["a/one.jpg"])
        #expect(after.first { $0.asset.id == "b/dos.jpg" }?.localIdentifier == before["a/two.jpg"])
        #expect(summary.inserted == 0 && summary.deleted == 0)
    }
}

extension HashModeTests {
    /// A folder renamed as a whole: its assets keep their identifiers whether the new name sorts before the
    /// old one or after it (the missing folder is committed before any walked one).
    @Test(arguments: [HashMode.full, .sampled, .none], ["0-first", "zz-last"])
    func aRenamedFolderKeepsItsAssets(_ mode: HashMode, newName: String) async throws {
        let s = try Scratch()
        try s.write("a/stays.jpg", Self.jpeg(size: 200_000, seed: 3))
        try s.write("m/one.jpg", Self.jpeg(size: 200_000, seed: 1))
        try s.write("m/sub/two.jpg", Self.jpeg(size: 200_000, seed: 2))
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await Self.ingest(s.root, catalog, mode: mode, batchRows: Ingestor.commitBatchRows)
        let before = Dictionary(uniqueKeysWithValues: try catalog.allAssets().map { ($0.asset.id, $0.localIdentifier) })
        try FileManager.default.moveItem(atPath: s.root + "/m", toPath: s.root + "/" + newName)
        let summary = try await Self.ingest(s.root, catalog, mode: mode, batchRows: Ingestor.commitBatchRows)
        let after = try catalog.allAssets()
        #expect(after.count == 3)
        #expect(after.first { $0.asset.id == newName + "/one.jpg" }?.localIdentifier == before["m/one.jpg"])
        #expect(after.first { $0.asset.id == newName + "/sub/two.jpg" }?.localIdentifier == before["m/sub/two.jpg"])
        #expect(after.first { $0.asset.id == "a/stays.jpg" }?.localIdentifier == before["a/stays.jpg"])
        #expect(summary.inserted == 0 && summary.deleted == 0)
    }
}

extension IngestTests.Scratch {
    var root: String { url.appendingPathComponent("root").path }

    /// Writes `bytes` at `rel` under `root` (folders made as needed); returns the absolute path.
    @discardableResult
    func write(_ rel: String, _ bytes: [UInt8]) throws -> String {
        let path = root + "/" + rel
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}

extension HashModeTests {
    /// A file moved out of a folder that stays into another: it keeps its asset (identifiers, the user's
    /// favorite, its albums) whether the new folder sorts before the old one (committed first: the file is
    /// inserted, then joined to the asset it left at the end of the run) or after it (matched at commit).
    @Test(arguments: [HashMode.full, .sampled, .none], ["0-first", "zz-last"])
    func aMovedFileKeepsItsAssetWhicheverFolderIsWalkedFirst(_ mode: HashMode, newFolder: String) async throws {
        let s = try Scratch()
        try s.write("m/stays.jpg", Self.jpeg(size: 200_000, seed: 1))
        try s.write("m/moves.jpg", Self.jpeg(size: 200_000, seed: 2))
        try s.write(newFolder + "/other.jpg", Self.jpeg(size: 200_000, seed: 3))
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await Self.ingest(s.root, catalog, mode: mode)
        let before = try #require(try catalog.allAssets().first { $0.asset.id == "m/moves.jpg" })
        _ = try catalog.perform(
            ChangeSet(changes: [
                Change(op: .favorite, asset: before.localIdentifier, value: true),
                Change(op: .createAlbum, placeholder: "$a", title: "Kept"),
                Change(op: .addAssets, assets: [before.localIdentifier], album: "$a"),
            ]))
        let token = try catalog.currentToken()
        try FileManager.default.moveItem(atPath: s.root + "/m/moves.jpg", toPath: s.root + "/" + newFolder + "/moves.jpg")
        let summary = try await Self.ingest(s.root, catalog, mode: mode)

        #expect(summary.inserted == 0 && summary.deleted == 0 && summary.updated == 1)
        let all = try catalog.allAssets(includeTrashed: true)
        #expect(all.count == 3)
        let moved = try #require(all.first { $0.asset.id == newFolder + "/moves.jpg" })
        #expect(moved.localIdentifier == before.localIdentifier)
        #expect(moved.cloudIdentifier == before.cloudIdentifier)
        #expect(moved.asset.isFavorite && !moved.isTrashed)
        #expect(moved.resourceHashes == before.resourceHashes)
        #expect(all.allSatisfy { !$0.isTrashed })
        // Its file row and its album membership belong to it.
        let q = try DatabaseQueue(path: s.catalogPath)
        let movedPath = s.root + "/" + newFolder + "/moves.jpg"
        let lid = before.localIdentifier
        let (owner, albums) = try await q.read { db in
            (
                try String.fetchOne(
                    db, sql: "SELECT a.local_identifier FROM file f JOIN asset a ON a.id = f.asset_id WHERE f.path = ?",
                    arguments: [movedPath]),
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM collection_membership m JOIN asset a ON a.id = m.asset_id WHERE a.local_identifier = ?",
                    arguments: [lid])
            )
        }
        #expect(owner == before.localIdentifier)
        #expect(albums == 1)
        // The history says the asset was updated (its resources moved); an asset inserted on the way, if
        // any, is reported deleted as `merged`, never left behind.
        let records = try catalog.changes(since: token, objectType: "asset")
        #expect(records.contains { $0.localIdentifier == before.localIdentifier && $0.changeType == "updated" && $0.properties.contains("resources") })
        #expect(!records.contains { $0.localIdentifier == before.localIdentifier && $0.changeType == "deleted" })
        let inserted = Set(records.filter { $0.changeType == "inserted" }.map(\.localIdentifier))
        let merged = Set(records.filter { $0.changeType == "deleted" && $0.properties == [Catalog.mergedProperty] }.map(\.localIdentifier))
        #expect(inserted == merged)
        #expect(inserted.isEmpty == (newFolder == "zz-last"))
    }
}

extension HashModeTests {
    /// Counts calls; answers true from the second on (a run that stops after its first folder).
    final class StopAfterFirst: @unchecked Sendable {
        private let lock = NSLock()
        private var calls = 0
        func ask() -> Bool { lock.withLock { calls += 1; return calls > 1 } }
    }

    /// The move is split across an interrupted run and the run that completes it: the interrupted run
    /// commits only the new folder (the file is inserted there), the next run finds the old folder changed
    /// and joins the asset it left to the one the interrupted run inserted. Its summary counts one update.
    @Test func aMoveSplitByAnInterruptedRunKeepsItsAsset() async throws {
        let s = try Scratch()
        try s.write("m/stays.jpg", Self.jpeg(size: 200_000, seed: 1))
        try s.write("m/moves.jpg", Self.jpeg(size: 200_000, seed: 2))
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await Self.ingest(s.root, catalog, mode: .full)
        let before = try #require(try catalog.allAssets().first { $0.asset.id == "m/moves.jpg" })
        try FileManager.default.createDirectory(atPath: s.root + "/0-first", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: s.root + "/m/moves.jpg", toPath: s.root + "/0-first/moves.jpg")

        var o = IngestOptions(roots: [s.root], concurrency: 2)
        o.organize = false
        let stop = StopAfterFirst()
        o.stopRequested = { stop.ask() }
        let interrupted = try await Ingestor(options: o, catalog: catalog).run()
        #expect(interrupted.interrupted && interrupted.inserted == 1)

        let resumed = try await Self.ingest(s.root, catalog, mode: .full)
        #expect(resumed.inserted == 0 && resumed.deleted == 0 && resumed.updated == 1, "\(resumed.inserted) \(resumed.updated) \(resumed.deleted)")
        let all = try catalog.allAssets(includeTrashed: true)
        #expect(all.count == 2)
        #expect(all.first { $0.asset.id == "0-first/moves.jpg" }?.localIdentifier == before.localIdentifier)
        #expect(all.allSatisfy { !$0.isTrashed })
    }
}

extension HashModeTests {
    /// The catalog's folders a walk no longer reaches (here: excluded, still on disk) are the ones whose
    /// assets vanish, wherever they sort among the folders it does reach; the walked folders are told apart
    /// by their digests (`PathSet`), and only the unreached are read back from the catalog.
    @Test func onlyTheFoldersTheWalkNoLongerReachesVanish() async throws {
        let s = try Scratch()
        for (k, rel) in ["a/1.jpg", "b/2.jpg", "b/sub/3.jpg", "c/4.jpg", "é/5.jpg", "z/6.jpg"].enumerated() {
            try s.write(rel, Self.jpeg(size: 100_000, seed: k + 1))
        }
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await Self.ingest(s.root, catalog, mode: .full)
        var o = IngestOptions(roots: [s.root], concurrency: 2)
        o.organize = false
        o.crawler.exclude = [try GlobPattern("b")]
        let summary = try await Ingestor(options: o, catalog: catalog).run()
        let all = try catalog.allAssets(includeTrashed: true)
        #expect(all.count == 6)
        #expect(Set(all.filter(\.isTrashed).map(\.asset.id)) == ["b/2.jpg", "b/sub/3.jpg"])
        #expect(summary.deleted == 2)
    }

    /// A folder that vanished is noticed whatever its name starts with: one named with an emoji (past U+FFFF,
    /// which an upper bound of prefix + U+FFFF left out of the catalog's folders below the root), or with a
    /// combining mark. Folders of another root whose name continues this one's ("photos-old", "photos copy")
    /// are not below it, and keep their assets when this root alone is ingested again.
    @Test func vanishedFoldersAreNoticedWhateverTheirNamesAndSiblingRootsAreLeftAlone() async throws {
        let s = try Scratch()
        let root = s.url.appendingPathComponent("photos").path
        let names = ["\u{1F4F7} Trip/1.jpg", "\u{301}mark/2.jpg", "plain/3.jpg", "z\u{1F600}/4.jpg"]
        for (k, rel) in names.enumerated() {
            try FileManager.default.createDirectory(atPath: root + "/" + (rel as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(Self.jpeg(size: 50_000, seed: k + 1)).write(to: URL(fileURLWithPath: root + "/" + rel))
        }
        let siblings = ["photos-old", "photos copy"].map { s.url.appendingPathComponent($0).path }
        for (k, sibling) in siblings.enumerated() {
            try FileManager.default.createDirectory(atPath: sibling + "/sub", withIntermediateDirectories: true)
            try Data(Self.jpeg(size: 50_000, seed: 10 + k)).write(to: URL(fileURLWithPath: sibling + "/sub/x.jpg"))
        }
        let catalog = try Catalog(path: s.catalogPath)
        for r in [root] + siblings { _ = try await Self.ingest(r, catalog, mode: .full) }
        #expect(try catalog.allAssets().count == 6)
        for rel in names where rel != "plain/3.jpg" {
            try FileManager.default.removeItem(atPath: root + "/" + (rel as NSString).deletingLastPathComponent)
        }
        let summary = try await Self.ingest(root, catalog, mode: .full)
        let all = try catalog.allAssets(includeTrashed: true)
        #expect(Set(all.filter(\.isTrashed).map(\.asset.id)) == Set(names.filter { $0 != "plain/3.jpg" }))
        #expect(summary.deleted == 3)
        #expect(try catalog.directories(under: root, where: { _ in true }) == [root + "/plain"])
        #expect(try catalog.directories(under: "/", where: { _ in true }) == [siblings[1] + "/sub", siblings[0] + "/sub", root + "/plain"])
    }

    /// Every file row names the asset its path is a resource of: written with the file row (a new folder), or
    /// afterwards (the file rows went first because a stored file was completed to a full hash, or a file of a
    /// re-assembled folder did not change). Two names that differ only in Unicode normalization are two files
    /// with two assets, as the file system and SQLite see them.
    @Test(arguments: [HashMode.full, .sampled])
    func fileRowsLinkTheirOwnAssets(_ mode: HashMode) async throws {
        let s = try Scratch()
        let size = 300_000
        let nfc = try s.write("a/caf\u{E9}.jpg", Self.jpeg(size: size, seed: 1))
        let nfd = try s.write("a/cafe\u{301}.jpg", Self.jpeg(size: size, seed: 2))
        let x = try s.write("a/x.jpg", Self.jpeg(size: size, seed: 3))
        _ = try s.write("b/x-copy.jpg", Self.jpeg(size: size, seed: 3))  // sampled: completes a's stored x
        let catalog = try Catalog(path: s.catalogPath)
        func links() throws -> [[UInt8]: [UInt8]] {
            let q = try DatabaseQueue(path: s.catalogPath)
            return try q.read { db in
                var out: [[UInt8]: [UInt8]] = [:]
                for r in try Row.fetchAll(db, sql: "SELECT CAST(f.path AS BLOB), CAST(a.root || '/' || a.primary_path AS BLOB) FROM file f LEFT JOIN asset a ON a.id = f.asset_id") {
                    out[[UInt8](r[0] as Data)] = (r[1] as Data?).map { [UInt8]($0) } ?? []
                }
                return out
            }
        }
        func expectEachFileIsItsAsset(_ paths: [String]) throws {
            let l = try links()
            #expect(l.count == 4)
            for p in paths { #expect(l[Array(p.utf8)] == Array(p.utf8), "\(p)") }
        }
        // Sampled: the first run writes a alone (batches of one folder), the second adds b and completes x.
        _ = try await Self.ingest(s.root, catalog, mode: mode, batchRows: 1)
        try expectEachFileIsItsAsset([nfc, nfd, x, s.root + "/b/x-copy.jpg"])
        #expect(try catalog.allAssets().count == 4)
        // One file of a changes: the folder is assembled again; the unchanged files keep their assets.
        try FileManager.default.removeItem(atPath: nfd)
        _ = try s.write("a/cafe\u{301}.jpg", Self.jpeg(size: size + 10, seed: 4))
        _ = try await Self.ingest(s.root, catalog, mode: mode, batchRows: 1)
        try expectEachFileIsItsAsset([nfc, nfd, x, s.root + "/b/x-copy.jpg"])
    }

    @Test func pathSetsTellPathsByTheirBytes() {
        var set = PathSet()
        set.formUnion(["/p/a", "/p/ab", "/p/caf\u{E9}"])
        #expect(set.contains("/p/a") && set.contains("/p/ab") && set.contains("/p/caf\u{E9}"))
        #expect(!set.contains("/p") && !set.contains("/p/a/") && !set.contains("/p/b"))
        // Two spellings Swift's String compares equal are two names on a Linux file system.
        #expect(!set.contains("/p/cafe\u{301}"))
        var other = PathSet()
        other.insert("/q")
        set.formUnion(other)
        #expect(set.contains("/q") && set.count == 4)
    }
}
