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
}
