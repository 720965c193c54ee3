import Assemble
import Classify
import Foundation
import MediaProbe
import PhotoModel
import TestSupport
import Testing

/// The long tail as assets: every generated long-tail fixture gets its media type (audio is audio, the
/// new still formats are images), audio gets its duration, and dates come from IPTC / `©day` where those
/// are the only places that carry them. The real files of `../shared/longtail` are checked the same way.
@Suite struct LongTailClassifyTests {
    nonisolated(unsafe) static let expected = LongTail.generatedExpectations()
    static var names: [String] { expected.compactMap { $0["file"] as? String } }

    @Test(arguments: names)
    func fixtureIsClassified(_ name: String) throws {
        let e = try #require(Self.expected.first { $0["file"] as? String == name })
        let c = Classifier.classify(Prober().probe(path: Corpus.fixtures.appendingPathComponent("generated/" + name).path))
        #expect(c.mediaType.name == e["mediaType"] as? String, "\(name): \(c.mediaType) \(c.reasons)")
        if let d = e["duration"] as? Double {
            #expect(abs((c.duration ?? 0) - d) < 0.1, "\(name): duration \(String(describing: c.duration))")
        }
        if let d = e["creationDate"] as? String {
            #expect(c.creationDate?.description == d, "\(name): \(String(describing: c.creationDateSource))")
        }
        if c.mediaType == .audio { #expect(c.pixelWidth == 0 && c.pixelHeight == 0) }
    }

    @Test func audioFilesAreAudioAssetsWithAnAudioResource() throws {
        let root = Corpus.fixtures.appendingPathComponent("generated/longtail").path
        let files = ["tone.m4a", "tone.mp3", "tone.wav", "tone.aiff", "tone-only.mp4"]
        let cs = files.map { Classifier.classify(Prober().probe(path: root + "/" + $0)) }
        let assets = Assembler.assemble(cs, root: root).assets
        #expect(assets.count == files.count)
        for a in assets {
            #expect(a.asset.mediaType == .audio, "\(a.asset.id)")
            #expect(a.asset.resources.first?.type == .audio, "\(a.asset.id)")
            #expect(a.asset.duration > 1.4, "\(a.asset.id)")
        }
    }

    @Test(
        .enabled(if: LongTail.isAvailable, "\(LongTail.skipMessage)"),
        arguments: [
            ("m4a/Issue 337 (dotnet).m4a", "audio", nil),
            ("mp4/Issue 515 (java).mp4", "video", "2020-11-20T15:04:02+01:00"),
            ("jpg/Issue 600 (2).jpg", "image", "2009-09-09T17:00:00+00:00"),
            ("jpg/issue 121.jpg", "image", "2011-06-14T15:47:00+02:00"),
            ("bmp/24bpp-10x10.bmp", "image", nil),
            ("psd/8x4x8bit-Grayscale.psd", "image", nil),
            ("jpg2000/balloon.jp2", "image", nil),
            ("tif/BigTIFF/BigTIFF.tif", "image", nil),
        ] as [(String, String, String?)])
    func realFileIsClassified(_ file: String, _ mediaType: String, _ date: String?) throws {
        let c = Classifier.classify(Prober().probe(path: try #require(LongTail.path(file))))
        #expect(c.mediaType.name == mediaType, "\(file)")
        if let date { #expect(c.creationDate?.description == date, "\(file): \(String(describing: c.creationDateSource))") }
    }
}
