import CVips
import Catalog
import Foundation
import PhotoModel
import Pipeline
import Testing
import TestSupport

@testable import Derivatives

/// Pixel facts of written files, read back with libvips.
enum Pixels {
    static func open(_ path: String) -> VipsImageRef? {
        guard (try? Vips.ensureInitialised()) != nil, let p = shoebox_vips_open(path) else { return nil }
        return VipsImageRef(p)
    }

    static func size(_ path: String) -> (width: Int, height: Int)? {
        guard let im = open(path) else { return nil }
        return (im.width, im.height)
    }

    /// A 32×32 grayscale (mean of the bands) of the picture, squashed to a square.
    static func gray32(_ path: String) -> [Double]? {
        guard (try? Vips.ensureInitialised()) != nil else { return nil }
        var out: UnsafeMutablePointer<VipsImage>? = nil
        guard shoebox_vips_thumbnail(path, &out, 32, 32, Int32(VIPS_INTERESTING_NONE.rawValue), Int32(VIPS_SIZE_FORCE.rawValue)) == 0, let out else { return nil }
        let im = VipsImageRef(out)
        var n: Int = 0
        guard let mem = vips_image_write_to_memory(im.pointer, &n) else { return nil }
        defer { g_free(mem) }
        let bands = Int(vips_image_get_bands(im.pointer))
        guard bands >= 1, n == 32 * 32 * bands else { return nil }
        let bytes = mem.assumingMemoryBound(to: UInt8.self)
        let colour = min(bands, 3)
        return (0..<(32 * 32)).map { i in
            (0..<colour).reduce(0.0) { $0 + Double(bytes[i * bands + $1]) } / Double(colour)
        }
    }

    static func meanAbsDiff(_ a: [Double], _ b: [Double]) -> Double {
        zip(a, b).reduce(0.0) { $0 + abs($1.0 - $1.1) } / Double(max(a.count, 1))
    }
}

@Suite(.serialized) struct ThumbnailTests {
    final class Scratch {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-thumbs-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }
        var catalogPath: String { url.appendingPathComponent("catalog.sqlite").path }
        var out: URL { url.appendingPathComponent("thumbs", isDirectory: true) }
    }

    static func ingest(_ roots: [String], _ catalog: Catalog) async throws {
        var o = IngestOptions(roots: roots, concurrency: 2)
        o.organize = false
        _ = try await Ingestor(options: o, catalog: catalog).run()
    }

    static func files(under dir: URL) -> [String: Date] {
        var out: [String: Date] = [:]
        guard let e = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: [.contentModificationDateKey]) else { return out }
        for case let u as URL in e where !u.hasDirectoryPath {
            out[u.path] = (try? u.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate
        }
        return out
    }

    /// Corpus files libvips 8.14 / libheif 1.15 / ffmpeg 5.1 cannot render, each with the reason: stripped
    /// RAWs and truly broken files. (The iPhone gain-map HEICs libheif refuses are rendered: HEIFCompatibilityTests.)
    static let expectedFailures: [String: String] = [
        // RAWs: the stripped corpus files have dummy, cut or 8×8 previews (RawThumbnailTests checks the reasons).
        "exiftool-t-images/CanonRaw.cr2": "RAW: no usable embedded JPEG preview",
        "exiftool-t-images/CanonRaw.cr3": "RAW: no usable embedded JPEG preview",
        "exiftool-t-images/DNG.dng": "RAW: no usable embedded JPEG preview (IFD0 is an uncompressed 8x8)",
        "exiftool-t-images/FujiFilm.raf": "RAW: embedded preview 8x8 is smaller than 256",
        "exiftool-t-images/Nikon.nef": "RAW: no usable embedded JPEG preview",
        "exiftool-t-images/Panasonic.rw2": "RAW: its JpgFromRaw is cut short",
        "exiftool-t-images/QuickTime.mov": "a metadata sample without frames",
        "exiftool-t-images/QuickTime.heic": "a metadata sample, image data truncated",
        "osxphotos/test-images/badimage.jpeg": "not a JPEG inside",
    ]

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func corpusFitAndFillSizesOrientationAndRerun() async throws {
        let root = try #require(Corpus.root).path
        let s = try Scratch()
        let catalog = try Catalog(path: s.catalogPath)
        try await Self.ingest([root], catalog)
        let assets = try catalog.allAssets().filter { $0.asset.mediaType == .image || $0.asset.mediaType == .video }
        #expect(assets.count >= 70)

        for mode in ThumbnailRequest.Mode.allCases {
            let request = ThumbnailRequest(sizes: [256], mode: mode, outputDirectory: s.out)
            let summary = await Thumbnailer(request: request, concurrency: 2).run(assets: assets)
            let failed = Set(summary.errors.map { $0.path.hasPrefix(root + "/") ? String($0.path.dropFirst(root.count + 1)) : $0.path })
            #expect(failed.isSubset(of: Set(Self.expectedFailures.keys)), "unexpected failures: \(summary.errors.filter { !Self.expectedFailures.keys.contains(String($0.path.dropFirst(root.count + 1))) })")
            #expect(summary.errors.allSatisfy { $0.stage == "thumbnail" && !$0.reason.isEmpty })
            #expect(summary.created.count + summary.errors.count == assets.count)
            print("\(mode): \(summary.created.count) written, \(summary.errors.count) errors of \(assets.count) assets")

            var checked = 0
            for a in assets {
                let url = try #require(request.outputURL(for: a, size: 256))
                let source = Thumbnailer.source(of: a.asset, version: .current).map { root + "/" + $0.path } ?? ""
                if summary.errors.contains(where: { $0.path == source }) {
                    #expect(!FileManager.default.fileExists(atPath: url.path))
                    continue
                }
                guard let size = Pixels.size(url.path) else {
                    Issue.record("no readable thumbnail for \(a.asset.id) at \(url.path)")
                    continue
                }
                switch mode {
                case .fill:
                    #expect(size.width == 256 && size.height == 256, "\(a.asset.id): \(size)")
                case .fit:
                    // The current version of an edited asset is its render, with the render's own size.
                    var (pw, ph) = (Double(a.asset.pixelWidth), Double(a.asset.pixelHeight))
                    if let r = a.asset.resources.first(where: { $0.type == .fullSizePhoto }), let rs = Pixels.size(root + "/" + r.path) {
                        (pw, ph) = (Double(rs.width), Double(rs.height))
                    }
                    let long = max(pw, ph)
                    let ew = 256 * pw / long, eh = 256 * ph / long
                    #expect(max(size.width, size.height) == 256, "\(a.asset.id): \(size)")
                    #expect(abs(Double(size.width) - ew) <= 1 && abs(Double(size.height) - eh) <= 1,
                            "\(a.asset.id): \(size.width)x\(size.height), asset \(a.asset.pixelWidth)x\(a.asset.pixelHeight)")
                }
                checked += 1
            }
            #expect(checked == summary.created.count)
            #expect(checked >= 60)

            // A second run writes nothing and touches nothing.
            let before = Self.files(under: s.out)
            let again = await Thumbnailer(request: request, concurrency: 2).run(assets: assets)
            #expect(again.created.isEmpty)
            #expect(again.existing == summary.created.count)
            #expect(Self.files(under: s.out) == before)
        }

        // Orientation against vipsthumbnail's render of the same file (EXIF 8, 3, 6; HEIF irot 3).
        let vipsthumbnail = "/usr/bin/vipsthumbnail"
        if FileManager.default.isExecutableFile(atPath: vipsthumbnail) {
            let request = ThumbnailRequest(sizes: [256], mode: .fit, outputDirectory: s.out)
            for rel in ["lychee/google_motion_photo_broken.jpg", "osxphotos/photos_library_cloud/IMG_0021.JPG",
                        "metadata-extractor-images/jpg/Samsung GT-I9000 (Galaxy S).jpg", "lychee/classic-car.heic",
                        "osxphotos/test-images/IMG_1853.HEIC"] {
                guard let a = assets.first(where: { $0.asset.resources.contains { $0.path == rel } }) else {
                    Issue.record("no asset for \(rel)")
                    continue
                }
                let ours = try #require(request.outputURL(for: a, size: 256)).path
                let ref = s.url.appendingPathComponent("ref-\(UUID().uuidString).jpg").path
                let p = Process()
                p.executableURL = URL(fileURLWithPath: vipsthumbnail)
                p.arguments = [root + "/" + rel, "-s", "256", "--export-profile", "srgb", "-o", ref]
                p.standardError = FileHandle.nullDevice
                try p.run()
                p.waitUntilExit()
                let g1 = try #require(Pixels.gray32(ours), "\(rel): ours unreadable")
                let g2 = try #require(Pixels.gray32(ref), "\(rel): reference unreadable")
                let right = Pixels.meanAbsDiff(g1, g2)
                let wrong = Pixels.meanAbsDiff(g1, g2.reversed())  // the reference turned 180°
                print("orientation \(rel): diff \(String(format: "%.2f", right)) (turned 180°: \(String(format: "%.2f", wrong)))")
                #expect(right < 8, "\(rel): mean abs diff \(right)")
                #expect(wrong > right + 5, "\(rel): 180° diff \(wrong) vs \(right)")
                #expect(Pixels.size(ours).map { ($0.width, $0.height) } ?? (0, 0) == Pixels.size(ref).map { ($0.width, $0.height) } ?? (1, 1))
            }
            // A rotated iPhone video (display matrix -90°): portrait poster.
            if let v = assets.first(where: { $0.asset.id == "osxphotos/media_types/IMG_3539.MOV" }) {
                let size = try #require(Pixels.size(request.outputURL(for: v, size: 256)!.path))
                #expect(size.width == 144 && size.height == 256, "\(size)")
            }
        }

        // Video posters against ffmpeg's frame at the same time (10 % in; ffmpeg applies the display matrix).
        let ffmpeg = "/usr/bin/ffmpeg"
        if FileManager.default.isExecutableFile(atPath: ffmpeg) {
            let request = ThumbnailRequest(sizes: [256], mode: .fit, outputDirectory: s.out)
            var compared = 0
            for v in assets where v.asset.mediaType == .video {
                guard let url = request.outputURL(for: v, size: 256), FileManager.default.fileExists(atPath: url.path),
                    let src = Thumbnailer.source(of: v.asset, version: .current), v.asset.duration > 0
                else { continue }
                let duration = v.asset.duration
                let ref = s.url.appendingPathComponent("ref-\(UUID().uuidString).png").path
                let p = Process()
                p.executableURL = URL(fileURLWithPath: ffmpeg)
                p.arguments = [
                    "-v", "error", "-ss", String(format: "%.3f", duration * 0.1), "-i", root + "/" + src.path, "-frames:v", "1",
                    "-vf", "scale=256:256:force_original_aspect_ratio=decrease", ref,
                ]
                p.standardError = FileHandle.nullDevice
                try p.run()
                p.waitUntilExit()
                guard p.terminationStatus == 0, let g2 = Pixels.gray32(ref) else { continue }  // ffmpeg could not either
                let g1 = try #require(Pixels.gray32(url.path), "\(v.asset.id): ours unreadable")
                let right = Pixels.meanAbsDiff(g1, g2)
                let wrong = Pixels.meanAbsDiff(g1, g2.reversed())
                print("poster \(v.asset.id): diff \(String(format: "%.2f", right)) (turned 180°: \(String(format: "%.2f", wrong)))")
                #expect(right < 12, "\(v.asset.id): mean abs diff \(right) against ffmpeg's frame")
                let ours = Pixels.size(url.path), theirs = Pixels.size(ref)
                #expect(ours.map { [$0.width, $0.height] } == theirs.map { [$0.width, $0.height] }, "\(v.asset.id): \(String(describing: ours)) vs ffmpeg \(String(describing: theirs))")
                compared += 1
            }
            #expect(compared >= 5, "only \(compared) posters compared with ffmpeg")
        }
    }

    /// A tree of a good JPEG, the same JPEG cut short, a video without frames and a cut iPhone 15 Pro HEIC:
    /// the bad ones are error entries, the good one is written.
    @Test func undecodableInputsAreErrorEntriesAndTheRunGoesOn() async throws {
        let s = try Scratch()
        let tree = s.url.appendingPathComponent("photos", isDirectory: true)
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        // A 640×480 gradient JPEG made with libvips.
        try Vips.ensureInitialised()
        var rgb = [UInt8](repeating: 0, count: 640 * 480 * 3)
        for y in 0..<480 { for x in 0..<640 { let i = (y * 640 + x) * 3; rgb[i] = UInt8(x % 256); rgb[i + 1] = UInt8(y % 256); rgb[i + 2] = UInt8((x + y) % 256) } }
        let made = rgb.withUnsafeBytes { vips_image_new_from_memory_copy($0.baseAddress, $0.count, 640, 480, 3, VIPS_FORMAT_UCHAR) }
        let image = VipsImageRef(try #require(made))
        let good = tree.appendingPathComponent("good.jpg").path
        #expect(shoebox_vips_jpegsave(image.pointer, good, 90) == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        try bytes.prefix(bytes.count / 2).write(to: tree.appendingPathComponent("truncated.jpg"))
        var expectedBad = ["truncated.jpg"]
        if let corpus = Corpus.root {
            let mov = corpus.appendingPathComponent("exiftool-t-images/QuickTime.mov")
            try FileManager.default.copyItem(at: mov, to: tree.appendingPathComponent(mov.lastPathComponent))
            // An iPhone 15 Pro HEIC (gain-map references: the patched in-memory path) cut after 40 %.
            let heic = try Data(contentsOf: corpus.appendingPathComponent("osxphotos/media_types/IMG_4394.HEIC"))
            try heic.prefix(heic.count * 2 / 5).write(to: tree.appendingPathComponent("IMG_4394.HEIC"))
            expectedBad += ["QuickTime.mov", "IMG_4394.HEIC"]
        }
        let catalog = try Catalog(path: s.catalogPath)
        try await Self.ingest([tree.path], catalog)
        let assets = try catalog.allAssets()
        let request = ThumbnailRequest(sizes: [128, 256], mode: .fit, outputDirectory: s.out)
        let summary = await Thumbnailer(request: request).run(assets: assets)
        let failed = Set(summary.errors.map { URL(fileURLWithPath: $0.path).lastPathComponent })
        #expect(failed == Set(expectedBad), "\(summary.errors)")
        #expect(summary.errors.allSatisfy { $0.stage == "thumbnail" })
        for e in summary.errors { print("error entry: \(e)") }
        #expect(summary.created.count == 2)
        let g = try #require(assets.first { $0.asset.id.hasSuffix("good.jpg") })
        #expect(Pixels.size(request.outputURL(for: g, size: 256)!.path).map { [$0.width, $0.height] } == [256, 192])
        #expect(Pixels.size(request.outputURL(for: g, size: 128)!.path).map { [$0.width, $0.height] } == [128, 96])
        // No temporary files are left behind by the failures.
        #expect(Self.files(under: s.out).keys.allSatisfy { !$0.hasSuffix(".tmp") })

        // A file changed in place keeps its cloud identifier; its content hash is in the names, so it gets new
        // thumbnails instead of the stale ones being skipped (which stay).
        #expect(shoebox_vips_jpegsave(image.pointer, good, 60) == 0)
        try await Self.ingest([tree.path], catalog)
        let changed = try #require(try catalog.allAssets().first { $0.asset.id.hasSuffix("good.jpg") })
        #expect(changed.cloudIdentifier == g.cloudIdentifier)  // identity survives an in-place change
        let rerun = await Thumbnailer(request: request).run(assets: [changed])
        #expect(rerun.created.count == 2 && rerun.existing == 0)
        #expect(FileManager.default.fileExists(atPath: request.outputURL(for: g, size: 256)!.path))

        // Fill, a crop, fast resize and the other formats on the good file.
        let cropped = ThumbnailRequest(sizes: [100, 1000], mode: .fill, resize: .fast, crop: try .init(x: 0.5, y: 0, width: 0.5, height: 1), format: .webp, outputDirectory: s.out)
        let c = await Thumbnailer(request: cropped).run(assets: [g])
        #expect(c.errors.isEmpty, "\(c.errors)")
        // The crop is 320×480: fill 100 → 100×100; fast never upscales, so 1000 → 320×320.
        #expect(Pixels.size(cropped.outputURL(for: g, size: 100)!.path).map { [$0.width, $0.height] } == [100, 100])
        #expect(Pixels.size(cropped.outputURL(for: g, size: 1000)!.path).map { [$0.width, $0.height] } == [320, 320])
        // The right half of the gradient: red (x) is high on the left edge of the crop.
        let heic = ThumbnailRequest(sizes: [64], format: .heic, outputDirectory: s.out)
        let h = await Thumbnailer(request: heic).run(assets: [g])
        #expect(h.errors.isEmpty, "\(h.errors)")
        #expect(Pixels.size(heic.outputURL(for: g, size: 64)!.path).map { [$0.width, $0.height] } == [64, 48])
    }

    /// Several sizes at once: the smaller ones are shrunk from the largest result in memory (no second decode)
    /// and match what a run for that size alone writes (±1 px from rounding twice, a small pixel difference).
    /// The RAW fixtures always; with the corpus, JPEGs with EXIF orientation, HEICs and videos too.
    @Test func smallerSizesFromTheLargestMatchASingleSizeRun() async throws {
        let s = try Scratch()
        let catalog = try Catalog(path: s.catalogPath)
        var roots = [Corpus.fixtures.appendingPathComponent("generated/raw").path]
        let picks = ["osxphotos/photos_library_cloud/IMG_0021.JPG", "lychee/classic-car.heic", "osxphotos/media_types/IMG_3539.MOV",
                     "metadata-extractor-images/jpg/Samsung GT-I9000 (Galaxy S).jpg", "osxphotos/test-images/IMG_1853.HEIC"]
        if let corpus = Corpus.root {
            let tree = s.url.appendingPathComponent("picks", isDirectory: true)
            try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
            for rel in picks { try FileManager.default.copyItem(at: corpus.appendingPathComponent(rel), to: tree.appendingPathComponent(URL(fileURLWithPath: rel).lastPathComponent)) }
            roots.append(tree.path)
        }
        try await Self.ingest(roots, catalog)
        let assets = try catalog.allAssets().filter { $0.asset.mediaType == .image || $0.asset.mediaType == .video }
        #expect(assets.count == (Corpus.isAvailable ? 2 + picks.count : 2))
        for mode in ThumbnailRequest.Mode.allCases {
            let both = ThumbnailRequest(sizes: [128, 256], mode: mode, outputDirectory: s.out.appendingPathComponent("both"))
            let alone = ThumbnailRequest(sizes: [128], mode: mode, outputDirectory: s.out.appendingPathComponent("alone"))
            let b = await Thumbnailer(request: both).run(assets: assets)
            let a = await Thumbnailer(request: alone).run(assets: assets)
            #expect(b.errors.isEmpty && a.errors.isEmpty, "\(b.errors) \(a.errors)")
            #expect(b.created.count == 2 * a.created.count)
            for asset in assets {
                let p1 = try #require(both.outputURL(for: asset, size: 128)).path, p2 = try #require(alone.outputURL(for: asset, size: 128)).path
                let s1 = try #require(Pixels.size(p1)), s2 = try #require(Pixels.size(p2))
                #expect(abs(s1.width - s2.width) <= 1 && abs(s1.height - s2.height) <= 1, "\(asset.asset.id) \(mode): \(s1) vs \(s2)")
                #expect(max(s1.width, s1.height) == 128)
                let d = Pixels.meanAbsDiff(try #require(Pixels.gray32(p1)), try #require(Pixels.gray32(p2)))
                print("128 from 256 vs 128 alone, \(asset.asset.id) \(mode): mean abs diff \(String(format: "%.2f", d))")
                // Fill crops at another scale (a centre shifted by up to half a pixel); HEIF may use its embedded thumbnail.
                #expect(d < 5, "\(asset.asset.id) \(mode): mean abs diff \(d)")
            }
        }
    }

    @Test func outputNamesAndVersions() throws {
        let out = URL(fileURLWithPath: "/tmp/t", isDirectory: true)
        let r = ThumbnailRequest(sizes: [256], mode: .fill, version: .original, format: .webp, outputDirectory: out)
        #expect(r.outputURL(cloudIdentifier: "AB12CD34-0000-0000-0000-000000000000:001", size: 256).path
                == "/tmp/t/ab/AB12CD34-0000-0000-0000-000000000000-001_256_fill_original.webp")
        var fast = r
        fast.resize = .fast
        fast.crop = try .init(parsing: "0.1,0.2,0.5,0.5")
        #expect(fast.outputURL(cloudIdentifier: "X", size: 64).lastPathComponent == "X_64_fill_original_fast_c1000-2000-5000-5000.webp")
        #expect(fast.outputURL(cloudIdentifier: "X", size: 64, sourceHash: "xxh128:C0A783219079c292d3467ff543780d5d").lastPathComponent
                == "X_64_fill_original_fast_c1000-2000-5000-5000_c0a783219079.webp")
        #expect(throws: DerivativeError.self) { try ThumbnailRequest.Crop(parsing: "0.6,0,0.5,1") }
        #expect(throws: DerivativeError.self) { try ThumbnailRequest.Crop(parsing: "1,2,3") }

        var a = Asset(id: "IMG_1.HEIC", mediaType: .image)
        a.resources = [
            AssetResource(type: .photo, path: "IMG_1.HEIC", originalFilename: "IMG_1.HEIC"),
            AssetResource(type: .fullSizePhoto, path: "IMG_E1.HEIC", originalFilename: "IMG_E1.HEIC"),
            AssetResource(type: .pairedVideo, path: "IMG_1.MOV", originalFilename: "IMG_1.MOV"),
        ]
        #expect(Thumbnailer.source(of: a, version: .current)?.path == "IMG_E1.HEIC")
        #expect(Thumbnailer.source(of: a, version: .unadjusted)?.path == "IMG_1.HEIC")
        #expect(Thumbnailer.source(of: a, version: .original)?.path == "IMG_1.HEIC")
        var v = Asset(id: "m.mov", mediaType: .video)
        v.resources = [AssetResource(type: .video, path: "m.mov", originalFilename: "m.mov")]
        #expect(Thumbnailer.source(of: v, version: .current)?.path == "m.mov")
        #expect(Thumbnailer.source(of: Asset(id: "a.m4a", mediaType: .audio), version: .current) == nil)
    }
}
