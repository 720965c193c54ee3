import Assemble
import Classify
import Foundation
import MediaProbe
import PhotoModel
import Testing
import TestSupport

/// The generated export tree (`Fixtures/generated/library`, made by `Fixtures/generate.py`) covers what
/// the corpus lacks: an edited Live Photo pair, a Live Photo whose movie has an unrelated name, the
/// name-and-time fallback, slo-mo vs high frame rate, an iPhone panorama, a screen recording by name,
/// RAW+JPEG, Takeout name truncation, `(n)` numbering and supplemental metadata, XMP sidecars, and hostile
/// pairs. `library-expected.json` is the ground truth written from the rules, not from the code.
@Suite struct LibraryFixtureTests {
    static let root = Corpus.fixtures.appendingPathComponent("generated/library").path

    @Test func libraryMatchesExpected() throws {
        let data = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("generated/library-expected.json"))
        let truth = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let expected = try #require(truth["assets"] as? [[String: Any]])

        var paths: [String] = []
        let en = FileManager.default.enumerator(atPath: Self.root)
        while let p = en?.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: Self.root + "/" + p, isDirectory: &isDir), !isDir.boolValue { paths.append(p) }
        }
        let prober = Prober()
        let assembly = Assembler.assemble(paths.sorted().map { Classifier.classify(prober.probe(path: Self.root + "/" + $0)) }, root: Self.root)
        let ours = Dictionary(uniqueKeysWithValues: assembly.assets.map { ($0.asset.id, $0) })
        #expect(Set(ours.keys) == Set(expected.compactMap { $0["id"] as? String }))

        for t in expected {
            guard let id = t["id"] as? String, let a = ours[id] else { continue }
            let x = a.asset
            #expect(x.mediaType.name == t["mediaType"] as? String, "\(id) mediaType")
            #expect(Set(x.mediaSubtypes.names) == Set(t["mediaSubtypes"] as? [String] ?? []), "\(id) subtypes \(x.mediaSubtypes.names)")
            #expect(Set(x.traits.map(\.rawValue)) == Set(t["traits"] as? [String] ?? []), "\(id) traits \(x.traits)")
            #expect(x.playbackStyle.name == t["playbackStyle"] as? String, "\(id) playbackStyle")
            let res = Set((t["resources"] as? [[String: Any]] ?? []).map { "\($0["type"] ?? "")|\($0["path"] ?? "")" })
            #expect(Set(x.resources.map { "\($0.type.name)|\($0.path)" }) == res, "\(id) resources \(x.resources.map(\.path))")
            #expect(x.contentIdentifier == t["contentIdentifier"] as? String, "\(id) contentIdentifier")
            #expect(x.hasAdjustments == (t["hasAdjustments"] as? Bool ?? false), "\(id) hasAdjustments")
            if let d = t["creationDate"] as? String {
                #expect(x.creationDate?.description.hasPrefix(String(d.prefix(19))) == true, "\(id) creationDate \(x.creationDate?.description ?? "nil") vs \(d)")
            }
            if let w = t["pixelWidth"] as? Int, let h = t["pixelHeight"] as? Int {
                #expect(x.pixelWidth == w && x.pixelHeight == h, "\(id) size \(x.pixelWidth)x\(x.pixelHeight)")
            }
            let sources = Set((t["metadataSources"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String })
            #expect(Set(a.metadataSources.map(\.path)) == sources, "\(id) metadataSources")
            if let c = t["pairingConfidence"] as? String { #expect(a.pairingConfidence == c, "\(id) pairing confidence") }
        }
        let wantOrphans = Set((truth["orphans"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String })
        #expect(Set(assembly.orphans.map(\.path)) == wantOrphans, "orphans \(assembly.orphans.map(\.path))")
        for n in truth["notes"] as? [[String: Any]] ?? [] {
            let paired = n["paired"] as? String ?? ""
            #expect(assembly.notes.contains { $0.contains(n["contentIdentifier"] as? String ?? "?") }, "note for \(paired)")
        }
    }
}
