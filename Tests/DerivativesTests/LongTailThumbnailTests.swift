import Catalog
import Foundation
import Pipeline
import TestSupport
import Testing

@testable import Derivatives

/// The long-tail still formats render through libvips (BMP, TGA, ICO and PSD through its ImageMagick
/// loader, JPEG 2000 through OpenJPEG, Netpbm natively); a header-only JPEG XL is one clear error entry;
/// audio assets have nothing to render.
@Suite(.serialized) struct LongTailThumbnailTests {
    @Test func longTailStillsRender() async throws {
        let src = Corpus.fixtures.appendingPathComponent("generated/longtail")
        let names = [
            "image.bmp", "image.tga", "image.ppm", "image.pgm", "image.pam", "image.jp2", "image.j2k", "image.psd", "icon.ico",
            "stereo.mpo", "bigtiff.tif", "codestream.jxl", "tone.m4a",
        ]
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-longtail-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let tree = scratch.appendingPathComponent("photos", isDirectory: true)
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        for n in names { try FileManager.default.copyItem(at: src.appendingPathComponent(n), to: tree.appendingPathComponent(n)) }
        let catalog = try Catalog(path: scratch.appendingPathComponent("c.sqlite").path)
        var o = IngestOptions(roots: [tree.path], concurrency: 2)
        o.organize = false
        _ = try await Ingestor(options: o, catalog: catalog).run()
        let request = ThumbnailRequest(sizes: [64], mode: .fit, outputDirectory: scratch.appendingPathComponent("out"))
        let summary = await Thumbnailer(request: request).run(assets: try catalog.allAssets())
        let failed = summary.errors.map { URL(fileURLWithPath: $0.path).lastPathComponent }
        #expect(failed == ["codestream.jxl"], "\(summary.errors)")
        #expect(summary.errors.first?.reason.contains("vips") == true)
        #expect(summary.created.count == names.count - 2, "every still but the header-only JPEG XL; audio has nothing to render")
    }
}
