import CVips
import Catalog
import Foundation
import Pipeline
import TestSupport
import Testing

@testable import Derivatives

/// `ThumbnailKey` names and `ThumbnailPruner`: files of assets that are gone (or whose source changed) go,
/// everything else stays.
@Suite(.serialized) struct ThumbnailPruneTests {
    @Test func fileNamesParseBackToTheirKey() throws {
        let out = URL(fileURLWithPath: "/tmp/t", isDirectory: true)
        let id = "AB12CD34-0000-0000-0000-000000000000:001"
        let hash = "xxh128:C0A783219079c292d3467ff543780d5d"
        var requests = [ThumbnailRequest(sizes: [256], outputDirectory: out)]
        var r = ThumbnailRequest(
            sizes: [64], mode: .fill, resize: .fast, crop: try .init(parsing: "0.1,0.2,0.5,0.5"), version: .original,
            format: .webp, outputDirectory: out)
        requests.append(r)
        r.format = .heic
        r.crop = nil
        requests.append(r)
        for req in requests {
            for h in [hash, nil] {
                let url = req.outputURL(cloudIdentifier: id, size: 64, sourceHash: h)
                let key = try #require(ThumbnailKey(fileName: url.lastPathComponent), "\(url.lastPathComponent)")
                #expect(key == ThumbnailKey(cloudIdentifier: id, sourceHash: h))
                #expect(key.shard == url.deletingLastPathComponent().lastPathComponent)
            }
        }
        for name in [
            "notes.txt", "X_256_fit_current.png", "X_abc_fit_current.jpg", "X_256_stretch_current.jpg", "X_256_fit_edited.jpg",
            "X_256_fit_current_extra.jpg", "X_0256_fit_current.jpg", ".X_256_fit_current.jpg.1234.tmp",
            "X_256_fit_current_C0A783219079.jpg",
            "_256_fit_current.jpg", "X.Y_256_fit_current.jpg", "X_256_fit_current_fast_fast.jpg",
        ] {
            #expect(ThumbnailKey(fileName: name) == nil, "\(name)")
        }
    }

    @Test func pruneRemovesOnlyStaleFilesOfOurScheme() async throws {
        let s = try ThumbnailTests.Scratch()
        let tree = s.url.appendingPathComponent("photos", isDirectory: true)
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        try Vips.ensureInitialised()
        let rgb = (0..<(64 * 48 * 3)).map { UInt8($0 % 251) }
        let image = VipsImageRef(
            try #require(
                rgb.withUnsafeBytes { vips_image_new_from_memory_copy($0.baseAddress, $0.count, 64, 48, 3, VIPS_FORMAT_UCHAR) }))
        let a = tree.appendingPathComponent("a.jpg").path, b = tree.appendingPathComponent("b.jpg").path
        #expect(shoebox_vips_jpegsave(image.pointer, a, 90) == 0)
        #expect(shoebox_vips_jpegsave(image.pointer, b, 70) == 0)
        let catalog = try Catalog(path: s.catalogPath)
        try await ThumbnailTests.ingest([tree.path], catalog)
        let request = ThumbnailRequest(sizes: [16, 32], outputDirectory: s.out)
        let first = await Thumbnailer(request: request).run(assets: try catalog.allAssets())
        #expect(first.created.count == 4)
        // Another mode and format for the same assets: not requested below, but kept while the asset is.
        let fill = ThumbnailRequest(sizes: [16], mode: .fill, format: .webp, outputDirectory: s.out)
        #expect(await Thumbnailer(request: fill).run(assets: try catalog.allAssets()).created.count == 2)

        // Files that are not ours, in the output directory and in a shard.
        let shard = try #require(first.created.first.map { URL(fileURLWithPath: $0).deletingLastPathComponent() })
        let foreign = [
            s.out.appendingPathComponent("README.txt"), shard.appendingPathComponent("notes.txt"),
            shard.appendingPathComponent(".X_16_fit_current.jpg.0000.tmp"),
            // Our scheme, but in a shard our scheme would not put it in.
            s.out.appendingPathComponent("zz/AB-gone_16_fit_current.jpg"),
            // Our scheme in a nested directory.
            shard.appendingPathComponent("nested/AB-gone_16_fit_current.jpg"),
        ]
        for f in foreign {
            try FileManager.default.createDirectory(at: f.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: f)
        }
        // Temporary files of our renders: one left by a killed run two hours ago (pruned), one being
        // written now (kept).
        let ours = try #require(first.created.first.map { URL(fileURLWithPath: $0).lastPathComponent })
        let oldTemp = shard.appendingPathComponent(".\(ours).\(UUID().uuidString).tmp")
        let newTemp = shard.appendingPathComponent(".\(ours).\(UUID().uuidString).tmp")
        try Data("x".utf8).write(to: oldTemp)
        try Data("x".utf8).write(to: newTemp)
        var times = [timeval(tv_sec: time(nil) - 7200, tv_usec: 0), timeval(tv_sec: time(nil) - 7200, tv_usec: 0)]
        #expect(utimes(oldTemp.path, &times) == 0)

        // a.jpg changes in place (same cloud identifier, new hash); b.jpg vanishes and its asset is deleted.
        let aBefore = try #require(try catalog.allAssets().first { $0.asset.id.hasSuffix("a.jpg") })
        let bBefore = try #require(try catalog.allAssets().first { $0.asset.id.hasSuffix("b.jpg") })
        #expect(shoebox_vips_jpegsave(image.pointer, a, 40) == 0)
        try FileManager.default.removeItem(atPath: b)
        var o = IngestOptions(roots: [tree.path], concurrency: 2)
        o.organize = false
        o.prune = true
        _ = try await Ingestor(options: o, catalog: catalog).run()
        let now = try catalog.allAssets(includeTrashed: true)
        #expect(now.count == 1)
        #expect(await Thumbnailer(request: request).run(assets: now).created.count == 2)

        let pruned = ThumbnailPruner(outputDirectory: s.out, assets: try catalog.cloudIdentifiersWithResourceHashes()).run()
        #expect(pruned.errors.isEmpty)
        let gone = [
            request.outputURL(for: aBefore, size: 16), request.outputURL(for: aBefore, size: 32),
            fill.outputURL(for: aBefore, size: 16),
            request.outputURL(for: bBefore, size: 16), request.outputURL(for: bBefore, size: 32),
            fill.outputURL(for: bBefore, size: 16),
        ]
        .compactMap { $0?.path }
        #expect(Set(pruned.removed) == Set(gone + [oldTemp.path]))
        #expect(FileManager.default.fileExists(atPath: newTemp.path))
        #expect(pruned.kept == 2)
        for f in gone { #expect(!FileManager.default.fileExists(atPath: f)) }
        for f in foreign { #expect(FileManager.default.fileExists(atPath: f.path), "\(f.path)") }
        for size in [16, 32] { #expect(FileManager.default.fileExists(atPath: request.outputURL(for: now[0], size: size)!.path)) }
        // Nothing left to prune.
        #expect(
            ThumbnailPruner(outputDirectory: s.out, assets: try catalog.cloudIdentifiersWithResourceHashes()).run().removed
                .isEmpty)
        // An output directory that does not exist is nothing to prune.
        #expect(ThumbnailPruner(outputDirectory: s.url.appendingPathComponent("none"), keys: []).run().removed.isEmpty)
    }
}
