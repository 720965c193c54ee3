import Catalog
import Foundation
import TestSupport
import Testing

@testable import Pipeline

/// The ingest's folder walk, link by link and own folder by own folder.
struct FolderWalkerTests {
    /// With links not followed, a linked file or folder is left out and a plain file's fingerprint is its
    /// `lstat` (one call per entry: not a link, so `stat` would say the same); followed, the linked file is a
    /// file of its own and the linked folder is the folder it names, walked once. Either way a folder holding
    /// the thumbnails stage's marker is ours (looked up from its open parent) and not walked.
    @Test(arguments: [false, true])
    func linksAndOwnFoldersAsTheWalkMeetsThem(follow: Bool) throws {
        let s = try TestScratch("folder-walker")
        let dir = s.path("root")
        let fm = FileManager.default
        for sub in ["sub", "thumbs"] { try fm.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true) }
        try Data("12345".utf8).write(to: URL(fileURLWithPath: dir + "/a.jpg"))
        try Data("1".utf8).write(to: URL(fileURLWithPath: dir + "/sub/b.jpg"))
        try Data().write(to: URL(fileURLWithPath: dir + "/thumbs/" + OwnFiles.thumbnailMarker))
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/thumbs/x.jpg"))
        try fm.createSymbolicLink(atPath: dir + "/link-a.jpg", withDestinationPath: "a.jpg")
        try fm.createSymbolicLink(atPath: dir + "/link-sub", withDestinationPath: "sub")
        let mtime = Date(timeIntervalSince1970: 1.6e9)
        try fm.setAttributes([.modificationDate: mtime], ofItemAtPath: dir + "/a.jpg")

        var c = Crawler()
        c.followSymlinks = follow
        var walker = FolderWalker(roots: [dir], crawler: c)
        var files: [String: FolderBatch.File] = [:]
        while let batch = walker.next() {
            for f in batch.files { files[String(f.path.dropFirst(dir.count + 1))] = f }
        }
        // Followed, "link-sub" comes first by name and "sub" is the same folder met again.
        #expect(Set(files.keys) == (follow ? ["a.jpg", "link-a.jpg", "link-sub/b.jpg"] : ["a.jpg", "sub/b.jpg"]))
        let a = try #require(files["a.jpg"]?.fingerprint)
        #expect(a.size == 5 && a.mtimeNanoseconds == 1_600_000_000 * 1_000_000_000)
        if follow { #expect(files["link-a.jpg"]?.fingerprint?.inode == a.inode, "a link followed is its target") }
        #expect(walker.ownExcluded.map(\.path) == [dir + "/thumbs"] && walker.ownExcluded.first?.why == "thumbnail folder")
    }

    /// The walk run ahead on a thread of its own gives the same folders, files, fingerprints and errors in the
    /// same order as the walker itself, with the same folders met again and own files left out — whether
    /// only one folder or file may wait (the walk stops for room at every folder) or many; stopped after a
    /// few folders, it hands its walker back at once.
    @Test func walkingAheadGivesTheSameWalk() throws {
        let s = try TestScratch("walk-ahead")
        let dir = s.path("root")
        let fm = FileManager.default
        for i in 0..<150 {
            let sub = dir + "/d\(i % 5)/e\(i)"
            try fm.createDirectory(atPath: sub, withIntermediateDirectories: true)
            for j in 0..<(i % 4) { try Data(repeating: UInt8(j), count: i + j).write(to: URL(fileURLWithPath: sub + "/f\(j).jpg")) }
        }
        try fm.createDirectory(atPath: dir + "/thumbs", withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: dir + "/thumbs/" + OwnFiles.thumbnailMarker))
        try fm.createSymbolicLink(atPath: dir + "/d1/back", withDestinationPath: "..")  // a cycle, met again
        try fm.createSymbolicLink(atPath: dir + "/d2/gone", withDestinationPath: "nowhere")  // cannot stat
        var c = Crawler()
        c.followSymlinks = true
        func signature(_ b: FolderBatch) -> String {
            b.dir + "|" + (b.error ?? "") + "|"
                + b.files.map { f in "\(f.path):\(f.fingerprint.map { "\($0.size),\($0.inode),\($0.mtimeNanoseconds)" } ?? "-"):\(f.error ?? "")" }
                .joined(separator: ";")
        }
        var direct = FolderWalker(roots: [dir], crawler: c)
        var expected: [String] = []
        while let b = direct.next() { expected.append(signature(b)) }
        #expect(expected.count >= 100 && expected.contains { $0.contains("cannot stat") })
        #expect(!direct.revisited.isEmpty && direct.ownExcluded.map(\.path) == [dir + "/thumbs"])

        // The last: the whole walk waits before any folder is taken (the queue is compacted as it is taken).
        for (folders, files, waitForTheWalk) in [(1, 1, false), (256, 8192, false), (256, 8192, true)] {
            let ahead = WalkAhead(FolderWalker(roots: [dir], crawler: c), folders: folders, files: files)
            while waitForTheWalk && !ahead.isWalked { usleep(1000) }
            var got: [String] = []
            while let b = ahead.next() { got.append(signature(b)) }
            #expect(ahead.isDone)
            let walked = ahead.finish()
            let differ = zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }
            #expect(
                got.count == expected.count && differ == nil,
                "folders \(folders), files \(files), whole walk first: \(waitForTheWalk): \(got.count) folders against \(expected.count), first difference \(differ.map { "at \($0.offset): \($0.element.0) against \($0.element.1)" } ?? "none")"
            )
            #expect(walked.revisited.map(\.path) == direct.revisited.map(\.path))
            #expect(walked.ownExcluded.map(\.path) == direct.ownExcluded.map(\.path))
        }
        let stopped = WalkAhead(FolderWalker(roots: [dir], crawler: c), folders: 2, files: 100)
        for _ in 0..<3 { #expect(stopped.next() != nil) }
        _ = stopped.finish()
        #expect(stopped.next() == nil, "a finished walk gives no more folders")
    }

    /// Own files told by name and neighbours: a catalog by a database extension in any case, or by a `-wal`
    /// or `-shm` beside it whatever its name; its companions by the catalog beside them; a name like one
    /// that is not a catalog, or no such neighbour, is not ours.
    @Test func ownFilesByNameAndNeighbours() throws {
        let s = try TestScratch("own-files")
        let dir = s.path("photos")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for name in ["c.SQLite", "library", "plain.db"] {
            if name == "plain.db" {
                try Data("not a database".utf8).write(to: URL(fileURLWithPath: dir + "/" + name))
            } else {
                _ = try Catalog(path: dir + "/" + name)
            }
        }
        let names = ["IMG_1.JPG", "c.SQLite", "c.SQLite-journal", "library", "library-shm", "plain.db", "plain.db-wal", "x.sqlite-wal"]
        let siblings = OwnFiles.Siblings(sorted: names.sorted())
        let own = OwnFiles()
        func reason(_ name: String) -> String? { own.reason(path: dir + "/" + name, name: name, siblings: siblings, isDirectory: false) }
        #expect(reason("c.SQLite") == "catalog")
        #expect(reason("c.SQLite-journal") == "catalog journal")
        #expect(reason("library") == "catalog", "no extension: a catalog by the -shm beside it")
        #expect(reason("library-shm") == "catalog shm")
        #expect(reason("plain.db") == nil && reason("plain.db-wal") == nil, "a .db that is not a catalog")
        #expect(reason("x.sqlite-wal") == nil, "no catalog beside it")
        #expect(reason("IMG_1.JPG") == nil)
        #expect(siblings.contains("library") && siblings.contains("IMG_1.JPG") && !siblings.contains("IMG_2.JPG") && !siblings.contains(""))
        #expect(OwnFiles.hasDatabaseExtension("a.SQLITE3") && OwnFiles.hasDatabaseExtension("b.Db") && OwnFiles.hasDatabaseExtension(".shoebox"))
        #expect(!OwnFiles.hasDatabaseExtension("db") && !OwnFiles.hasDatabaseExtension("a.dbx") && !OwnFiles.hasDatabaseExtension("a.d"))
        #expect(!OwnFiles.hasDatabaseExtension("a.catalogue") && !OwnFiles.hasDatabaseExtension("a."))
        // A path the run knows as its own (the catalog in use) is ours whatever its name.
        let known = OwnFiles(paths: [dir + "/IMG_1.JPG"])
        #expect(known.reason(path: dir + "/IMG_1.JPG", name: "IMG_1.JPG", siblings: siblings, isDirectory: false) == "catalog")
    }
}
