import Assemble
import Foundation
import Pipeline
import Testing

/// Issue 16 item 6: `--include` keeps an asset's companions together; one name rule (`Assembler.companionKey`).
@Suite struct CompanionTests {
    @Test(arguments: [
        ("IMG_1234.HEIC", "img_1234"), ("IMG_1234.MOV", "img_1234"), ("IMG_1234_3.MOV", "img_1234"), ("IMG_1234.AAE", "img_1234"),
        ("IMG_O1234.AAE", "img_1234"), ("IMG_E1234.JPG", "img_1234"), ("IMG_E1234.MOV", "img_1234"),
        ("IMG_1234.HEIC.json", "img_1234"),
        ("IMG_1234.xmp", "img_1234"), ("IMG_1234.HEIC.xmp", "img_1234"), ("IMG_1234(1).jpg", "img_1234"),
        ("IMG_1234.jpg.supplemental-metadata.json", "img_1234"), ("photo-edited.jpg", "photo"), ("IMG_12345.HEIC", "img_12345"),
        ("metadata.json", "metadata"),
    ])
    func companionKey(_ name: String, _ key: String) {
        #expect(Assembler.companionKey(ofFileName: name) == key)
    }

    @Test func includeKeepsCompanionsAndExcludeDropsOnlyWhatItMatches() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-companions-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let names = [
            "a/IMG_0001.HEIC", "a/IMG_0001.MOV", "a/IMG_0001.AAE", "a/IMG_E0001.HEIC", "a/IMG_0001.HEIC.json", "a/IMG_0002.MOV",
            "a/IMG_0003.JPG", "a/IMG_0003.xmp", "b/IMG_0001.MOV", "b/notes.txt",
        ]
        for n in names {
            try FileManager.default.createDirectory(
                atPath: dir + "/" + (n as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: dir + "/" + n, contents: Data())
        }
        func walked(_ include: [String], _ exclude: [String] = []) throws -> [String] {
            var c = Crawler()
            c.include = try include.map { try GlobPattern($0) }
            c.exclude = try exclude.map { try GlobPattern($0) }
            var viaWalk: [String] = []
            c.walk([dir]) { viaWalk.append(String($0.path.dropFirst(dir.count + 1))) }
            var viaFolders: [String] = []
            var walker = FolderWalker(roots: [dir], crawler: c)
            while let batch = walker.next() { viaFolders += batch.files.map { String($0.path.dropFirst(dir.count + 1)) } }
            #expect(viaWalk == viaFolders)  // the progress count and the ingest agree
            return viaFolders
        }
        // Companions are per folder: b/IMG_0001.MOV is not pulled in by a/IMG_0001.HEIC.
        #expect(
            try walked(["*.heic"]) == [
                "a/IMG_0001.AAE", "a/IMG_0001.HEIC", "a/IMG_0001.HEIC.json", "a/IMG_0001.MOV", "a/IMG_E0001.HEIC",
            ])
        #expect(
            try walked(["*.heic"], ["*.mov"]) == [
                "a/IMG_0001.AAE", "a/IMG_0001.HEIC", "a/IMG_0001.HEIC.json", "a/IMG_E0001.HEIC",
            ])
        #expect(try walked(["*.JPG"]) == ["a/IMG_0003.JPG", "a/IMG_0003.xmp"])
        #expect(
            try walked([], ["*.MOV"]) == [
                "a/IMG_0001.AAE", "a/IMG_0001.HEIC", "a/IMG_0001.HEIC.json", "a/IMG_0003.JPG", "a/IMG_0003.xmp",
                "a/IMG_E0001.HEIC", "b/notes.txt",
            ])
    }
}
