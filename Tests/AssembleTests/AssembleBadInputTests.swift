import Assemble
import Classify
import Foundation
import MediaProbe
import PhotoModel
import Testing
import TestSupport

/// Mismatched pairs and broken sidecars are reported with a reason; nothing crashes, nothing is dropped.
@Suite struct AssembleBadInputTests {
    /// Copies corpus files (or writes bytes) into a scratch folder and assembles it.
    final class Tree {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-assemble-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }

        func copy(_ corpusPath: String, as name: String) throws {
            let root = try #require(Corpus.root)
            try FileManager.default.copyItem(at: root.appendingPathComponent(corpusPath), to: url.appendingPathComponent(name))
        }

        func write(_ name: String, _ text: String) throws {
            try Data(text.utf8).write(to: url.appendingPathComponent(name))
        }

        func assemble() throws -> Assembly {
            let names = try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
            let prober = Prober()
            return Assembler.assemble(names.map { Classifier.classify(prober.probe(path: url.path + "/" + $0)) }, root: url.path)
        }
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func sameContentIdentifierOnTwoStills() throws {
        let t = try Tree()
        try t.copy("lychee/train.jpg", as: "IMG_0001.JPG")
        try t.copy("lychee/train.jpg", as: "IMG_0002.JPG")
        try t.copy("lychee/train.mov", as: "IMG_0001.MOV")
        let a = try t.assemble()
        #expect(a.assets.count == 2)
        let live = try #require(a.assets.first { $0.asset.id == "IMG_0001.JPG" })
        #expect(live.asset.mediaSubtypes.contains(.photoLive))
        #expect(live.asset.resources.map(\.type) == [.photo, .pairedVideo])
        let other = try #require(a.assets.first { $0.asset.id == "IMG_0002.JPG" })
        #expect(!other.asset.mediaSubtypes.contains(.photoLive))
        #expect(a.notes.contains { $0.contains("shared by two stills") && $0.contains("IMG_0002.JPG") })
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func movieWhoseIdentifierMatchesNothingIsAPlainVideo() throws {
        let t = try Tree()
        try t.copy("lychee/train.mov", as: "clip.mov")
        try t.copy("lychee/mongolia.jpeg", as: "clip.jpg")  // same stem, different capture: no pairing
        let a = try t.assemble()
        #expect(a.assets.count == 2)
        let v = try #require(a.assets.first { $0.asset.id == "clip.mov" })
        #expect(v.asset.mediaType == .video)
        #expect(v.asset.contentIdentifier == "E905E6C6-C747-4805-942F-9904A0281F02")
        #expect(a.assets.allSatisfy { !$0.asset.mediaSubtypes.contains(.photoLive) })
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func aaeThatIsNotAPlist() throws {
        let t = try Tree()
        try t.copy("lychee/mongolia.jpeg", as: "IMG_0005.JPG")
        try t.write("IMG_0005.AAE", "this is not a property list\n")
        let a = try t.assemble()
        let asset = try #require(a.assets.first)
        #expect(a.assets.count == 1)
        #expect(!asset.asset.resources.contains { $0.type == .adjustmentData })
        #expect(!asset.asset.hasAdjustments)
        let o = try #require(a.orphans.first { $0.path == "IMG_0005.AAE" })
        #expect(o.kind == "aae" && o.reason.contains("unreadable AAE") && o.reason.contains("IMG_0005.JPG"))
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func takeoutJSONThatIsNotJSON() throws {
        let t = try Tree()
        try t.copy("lychee/mongolia.jpeg", as: "photo.jpg")
        try t.write("photo.jpg.json", "{\"title\": \"photo.jpg\", ")
        let a = try t.assemble()
        #expect(a.assets.count == 1)
        #expect(a.assets[0].metadataSources.isEmpty)
        let o = try #require(a.orphans.first { $0.path == "photo.jpg.json" })
        #expect(o.reason.contains("not Google Takeout metadata"))
    }

    @Test func sidecarsWithoutMediaAreOrphans() throws {
        let t = try Tree()
        try t.write("IMG_O0008.AAE", "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>adjustmentFormatIdentifier</key><string>com.apple.photo</string></dict></plist>")
        try t.write("IMG_0009.jpg.json", "{\"title\": \"IMG_0009.jpg\", \"photoTakenTime\": {\"timestamp\": \"1459209908\"}}")
        let a = try t.assemble()
        #expect(a.assets.isEmpty)
        #expect(a.orphans.map(\.path) == ["IMG_0009.jpg.json", "IMG_O0008.AAE"])
        #expect(a.orphans.first { $0.path == "IMG_O0008.AAE" }?.reason == "no media file with stem IMG_0008 in folder")
    }

    /// Undated files (PNGs without a date) are dated by their own modification time as a last resort, each
    /// asset by its primary file's — found through an index since a scan per asset made a folder of 20,000
    /// undated files quadratic. A dated file keeps its own date.
    @Test func undatedFilesTakeTheirOwnModificationTimes() throws {
        let t = try Tree()
        try Corpus.pngFolder(at: t.url.path, count: 300)
        let lib = Corpus.fixtures.appendingPathComponent("generated/library/camera/DSC_0010.JPG")
        try FileManager.default.copyItem(at: lib, to: t.url.appendingPathComponent("DSC_0010.JPG"))
        let a = try t.assemble()
        #expect(a.assets.count == 301)
        var undated = 0
        for x in a.assets where x.asset.id.hasSuffix(".png") {
            let attrs = try FileManager.default.attributesOfItem(atPath: t.url.path + "/" + x.asset.id)
            let mtime = try #require(attrs[.modificationDate] as? Date)
            let date = try #require(x.asset.creationDate, "\(x.asset.id)")
            // The local time the file's time gives at the offset stored with it.
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(secondsFromGMT: date.offsetSeconds ?? 0)
            f.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
            #expect(date.local.hasPrefix(f.string(from: mtime)), "\(x.asset.id): \(date)")
            #expect(x.asset.creationDateSource?.hasPrefix(Asset.fileTimeDateSource + " (last resort") == true)
            undated += 1
        }
        #expect(undated == 300)
        let jpeg = try #require(a.assets.first { $0.asset.id == "DSC_0010.JPG" })
        #expect(jpeg.asset.creationDateSource?.hasPrefix(Asset.fileTimeDateSource) == false)
    }
}
