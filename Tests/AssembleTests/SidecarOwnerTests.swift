import Assemble
import Classify
import Foundation
import MediaProbe
import PhotoModel
import Testing
import TestSupport

/// Takeout JSON and XMP sidecars find their media through an index made once per assembly (a scan of every
/// asset's resources per sidecar was quadratic: minutes for a Takeout folder of 5,000 photos). The index
/// must attach exactly where the scan did: the first asset in order with a resource in the sidecar's folder
/// whose name the sidecar names — Takeout's clipped and edited names included, XMP by file name or stem
/// in any case.
@Suite struct SidecarOwnerTests {
    static let json = "{\"title\": \"x\", \"photoTakenTime\": {\"timestamp\": \"1459209908\"}}"
    static let xmp =
        "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
        + "<rdf:Description xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" xmp:Rating=\"3\"/></rdf:RDF></x:xmpmeta>"

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func sidecarsAttachWhereAScanOfEveryResourceWould() throws {
        let scratch = try TestScratch("sidecar-owners")
        let root = scratch.path("tree")
        let jpeg = try #require(Corpus.root).appendingPathComponent("lychee/mongolia.jpeg").path
        let long = "A_rather_long_file_name_from_a_phone_2019_trip_0001.jpg"  // clipped in its JSON's name
        let media = [
            "a/IMG_0001.jpg", "b/IMG_0001.jpg", "a/IMG_0002.jpg", "a/IMG_0002-edited.jpg", "a/" + long, "c/Photo.JPG",
            "c/Other.jpg", "c/IMG_0003(1).jpg",
        ]
        let sidecars: [(String, String)] = [
            ("a/IMG_0001.jpg.json", Self.json), ("b/IMG_0001.jpg.json", Self.json), ("a/IMG_0002.jpg.json", Self.json),
            ("a/" + String(long.prefix(46)) + ".json", Self.json), ("c/IMG_0003.jpg(1).json", Self.json),
            ("b/missing.jpg.json", Self.json), ("c/photo.xmp", Self.xmp), ("c/OTHER.JPG.xmp", Self.xmp), ("c/missing.xmp", Self.xmp),
            ("a/IMG_0001.xmp", Self.xmp),
        ]
        for m in media {
            try FileManager.default.createDirectory(atPath: root + "/" + PathText.parentAndName(m).0.map(String.init)!, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: jpeg, toPath: root + "/" + m)
        }
        for (name, text) in sidecars { try Data(text.utf8).write(to: URL(fileURLWithPath: root + "/" + name)) }
        let prober = Prober()
        let classified = (media + sidecars.map(\.0)).sorted().map { Classifier.classify(prober.probe(path: root + "/" + $0)) }
        let a = Assembler.assemble(classified, root: root)

        // The scan the index replaced, over the assembled assets.
        func dir(_ rel: String) -> String { PathText.parentAndName(rel).0.map(String.init) ?? "" }
        func file(_ rel: String) -> String { String(PathText.parentAndName(rel).1) }
        func stem(_ name: String) -> String { name.lastIndex(of: ".").map { String(name[..<$0]) } ?? name }
        func scanned(_ sidecar: String) -> Int? {
            if sidecar.hasSuffix(".json") {
                return a.assets.indices.first { i in
                    a.assets[i].asset.resources.contains { dir($0.path) == dir(sidecar) && TakeoutReader.matches(sidecar: file(sidecar), media: file($0.path)) }
                }
            }
            let target = stem(file(sidecar)).lowercased()
            return a.assets.indices.first { i in
                a.assets[i].asset.resources.contains { r in
                    dir(r.path) == dir(sidecar) && (file(r.path).lowercased() == target || stem(file(r.path)).lowercased() == target)
                }
            }
        }
        var attached = 0
        for (name, _) in sidecars {
            let owner = a.assets.indices.first { a.assets[$0].metadataSources.contains { $0.path == name } }
            #expect(owner == scanned(name), "\(name): attached to \(owner.map { a.assets[$0].asset.resources[0].path } ?? "nothing")")
            if owner == nil { #expect(a.orphans.contains { $0.path == name }, "\(name) is neither attached nor an orphan") }
            attached += owner == nil ? 0 : 1
        }
        #expect(attached == 8, "every sidecar but the two named missing attaches (\(attached))")
        // Each folder's own: the two IMG_0001.jpg.json are in different assets.
        let ownerA = a.assets.firstIndex { $0.metadataSources.contains { $0.path == "a/IMG_0001.jpg.json" } }
        let ownerB = a.assets.firstIndex { $0.metadataSources.contains { $0.path == "b/IMG_0001.jpg.json" } }
        #expect(ownerA != nil && ownerB != nil && ownerA != ownerB)
    }

    /// Edits, RAW companions and AAE files find their original by folder and stem through an index too
    /// (`Assembler.State.byStem`, the AAE's by primary): the same names in two folders stay apart.
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func editsAndAdjustmentsStayInTheirFolder() throws {
        let scratch = try TestScratch("sidecar-owners")
        let root = scratch.path("tree")
        let images = try #require(Corpus.root).appendingPathComponent("osxphotos/test-images").path
        var names: [String] = []
        for dir in ["a", "b"] {
            try FileManager.default.createDirectory(atPath: root + "/" + dir, withIntermediateDirectories: true)
            for (from, to) in [("IMG_1853.HEIC", "IMG_1853.HEIC"), ("IMG_E1853.heic", "IMG_E1853.heic"), ("IMG_1853.AAE", "img_1853.AAE")] {
                try FileManager.default.copyItem(atPath: images + "/" + from, toPath: root + "/" + dir + "/" + to)
                names.append(dir + "/" + to)
            }
        }
        let prober = Prober()
        let a = Assembler.assemble(names.sorted().map { Classifier.classify(prober.probe(path: root + "/" + $0)) }, root: root)
        #expect(a.assets.count == 2, "\(a.assets.map(\.asset.id))")
        for asset in a.assets {
            let dir = String(asset.asset.id.prefix(2))
            let paths = Set(asset.asset.resources.map(\.path))
            #expect(paths == [dir + "IMG_1853.HEIC", dir + "IMG_E1853.heic", dir + "img_1853.AAE"], "\(asset.asset.id): \(paths)")
        }
        #expect(a.orphans.isEmpty, "\(a.orphans)")
    }
}
