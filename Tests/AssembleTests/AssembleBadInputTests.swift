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
}
