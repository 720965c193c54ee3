import Catalog
import Foundation
import TestSupport
import Testing

@testable import Derivatives

/// iPhone HEICs with gain-map references libheif 1.15 refuses (`HEIFCompatibility`): which references are
/// renamed, that nothing else changes, and that the thumbnails equal an independent decode of the tiles.
@Suite(.serialized) struct HEIFCompatibilityTests {
    /// The corpus HEICs libheif 1.15 refuses (`heif-info` says why), and two it reads, as a control.
    static let refused = [
        "osxphotos/media_types/IMG_4076.HEIC", "osxphotos/media_types/IMG_4394.HEIC",
        "osxphotos/media_types/IMG_4580.HEIC", "osxphotos/media_types/IMG_5747.HEIC",
        "osxphotos/original_aae/IMG_3582_edited.heic",
    ]
    static let readable = ["lychee/classic-car.heic", "osxphotos/test-images/IMG_1853.HEIC"]

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func findsTheReferencesLibheifRefusesAndOnlyThose() throws {
        let root = try #require(Corpus.root)
        // IMG_4076 (iPhone 15 Pro, spatial): item 68 is the `tmap` of primary 46 and gain map 64.
        let refs = HEIFCompatibility.references(path: root.appendingPathComponent(Self.refused[0]).path)
        #expect(refs.map(\.description) == ["auxl 65 → 46,68", "cdsc 69 → 46,68", "cdsc 70 → 46,68"])
        for rel in Self.refused {
            let refs = HEIFCompatibility.references(path: root.appendingPathComponent(rel).path)
            #expect(!refs.isEmpty, "\(rel)")
            #expect(refs.allSatisfy { ["auxl", "cdsc"].contains($0.type) && $0.to.count > 1 }, "\(rel): \(refs)")
        }
        for rel in Self.readable + ["lychee/classic-car.jpg", "osxphotos/media_types/IMG_4394.mov"] {
            #expect(HEIFCompatibility.references(path: root.appendingPathComponent(rel).path).isEmpty, "\(rel)")
        }
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func thePatchedCopyDiffersOnlyInTheRenamedTypesAndTheSourceIsUntouched() throws {
        let root = try #require(Corpus.root)
        for rel in Self.refused {
            let path = root.appendingPathComponent(rel).path
            let before = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
            let original = try Data(contentsOf: URL(fileURLWithPath: path))
            let refs = HEIFCompatibility.references(path: path)
            let patched = try HEIFCompatibility.patched(path: path, refs)
            let bytes = patched.bytes
            #expect(bytes.count == original.count)
            let changed = (0..<original.count).filter { original[$0] != bytes[$0] }
            let expected = refs.flatMap { r in
                (0..<4).filter { i in Array(r.type.utf8)[i] != Array(HEIFCompatibility.renamed[r.type]!.utf8)[i] }
                    .map { r.typeOffset + $0 }
            }
            #expect(changed == expected.sorted(), "\(rel)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date == before)
        }
    }

    /// Cut, empty, garbage, a directory, a missing file and references whose counts run past their box:
    /// no references (libheif then reports on the file itself), no crash.
    @Test func hostileInputsGiveNoReferences() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-heifcompat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let n = UInt32(8 + body.count)
            return [UInt8(n >> 24), UInt8(n >> 16 & 255), UInt8(n >> 8 & 255), UInt8(n & 255)] + Array(type.utf8) + body
        }
        let ftyp = box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
        // iref v0: auxl from 2 to [1, 3] (refused), cdsc from 4 to [1] (fine).
        let good = box("auxl", [0, 2, 0, 2, 0, 1, 0, 3]) + box("cdsc", [0, 4, 0, 1, 0, 1])
        let meta = { (refs: [UInt8]) in
            box("meta", [0, 0, 0, 0] + box("hdlr", [UInt8](repeating: 0, count: 24)) + box("iref", [0, 0, 0, 0] + refs))
        }
        let cases: [String: [UInt8]] = [
            "empty": [],
            "garbage": (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 13) },
            "cut-ftyp": Array(ftyp.prefix(6)),
            "meta-runs-past-end": ftyp + Array(meta(good).dropLast(5)),
            "count-past-box": ftyp + meta(box("auxl", [0, 2, 0xFF, 0xFF, 0, 1])),
            "huge-size": ftyp + [0x7F, 0xFF, 0xFF, 0xFF] + Array("meta".utf8) + [0, 0, 0, 0],
            "zero-size-child": ftyp + meta([0, 0, 0, 0] + Array("auxl".utf8)),
            "no-ftyp": meta(good),
        ]
        for (name, bytes) in cases {
            let url = dir.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            #expect(HEIFCompatibility.references(path: url.path).isEmpty, "\(name)")
        }
        #expect(HEIFCompatibility.references(path: dir.path).isEmpty)
        #expect(HEIFCompatibility.references(path: dir.appendingPathComponent("missing").path).isEmpty)
        // The well-formed synthetic file: exactly the two-target auxl.
        let url = dir.appendingPathComponent("synthetic.heic")
        try Data(ftyp + meta(good)).write(to: url)
        let refs = HEIFCompatibility.references(path: url.path)
        #expect(refs.map(\.description) == ["auxl 2 → 1,3"])
        #expect(refs.first?.typeOffset == ftyp.count + 12 + 32 + 12 + 4)
    }

    /// Thumbnails of the refused files (and of two files libheif reads, through its normal path) against
    /// the primary image decoded without libheif: `Fixtures/heic-reference.py` extracts the HEVC tiles,
    /// decodes them with ffmpeg, stitches the grid and applies `irot`/`imir`.
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func thumbnailsMatchTheTilesDecodedByFFmpeg() async throws {
        let root = try #require(Corpus.root)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/heic-reference.py").path
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), FileManager.default.fileExists(atPath: script)
        else {
            print("skipped: the tile reference needs /usr/bin/ffmpeg and \(script)")
            return
        }
        let s = try ThumbnailTests.Scratch()
        let tree = s.url.appendingPathComponent("photos", isDirectory: true)
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        for rel in Self.refused + Self.readable {
            try FileManager.default.copyItem(
                at: root.appendingPathComponent(rel), to: tree.appendingPathComponent(URL(fileURLWithPath: rel).lastPathComponent)
            )
        }
        let catalog = try Catalog(path: s.catalogPath)
        try await ThumbnailTests.ingest([tree.path], catalog)
        let assets = try catalog.allAssets()
        let request = ThumbnailRequest(sizes: [256], mode: .fit, outputDirectory: s.out)
        let summary = await Thumbnailer(request: request, concurrency: 2).run(assets: assets)
        #expect(summary.errors.isEmpty, "\(summary.errors)")
        for rel in Self.refused + Self.readable {
            let name = URL(fileURLWithPath: rel).lastPathComponent
            guard let a = assets.first(where: { $0.asset.resources.contains { $0.path == name } }) else {
                Issue.record("no asset for \(name)")
                continue
            }
            let ours = try #require(request.outputURL(for: a, size: 256)).path
            let ref = s.url.appendingPathComponent("ref-\(name).png").path
            let run = try Subprocess.run("/usr/bin/python3", [script, tree.appendingPathComponent(name).path, ref])
            try #require(run.status == 0, "\(name): \(run.stderr)")
            let (size, refSize) = (try #require(Pixels.size(ours)), try #require(Pixels.size(ref)))
            let long = Double(max(refSize.width, refSize.height))
            #expect(max(size.width, size.height) == 256)
            #expect(abs(Double(size.width) - 256 * Double(refSize.width) / long) <= 1, "\(name): \(size) vs \(refSize)")
            #expect(abs(Double(size.height) - 256 * Double(refSize.height) / long) <= 1, "\(name): \(size) vs \(refSize)")
            let g1 = try #require(Pixels.gray32(ours)), g2 = try #require(Pixels.gray32(ref))
            let right = Pixels.meanAbsDiff(g1, g2), wrong = Pixels.meanAbsDiff(g1, g2.reversed())
            print(
                "\(name): diff \(String(format: "%.2f", right)) against the tiles (turned 180°: \(String(format: "%.2f", wrong)))"
            )
            #expect(right < 6, "\(name): mean abs diff \(right)")
            #expect(wrong > right + 10, "\(name): 180° diff \(wrong) vs \(right)")
        }
    }
}
