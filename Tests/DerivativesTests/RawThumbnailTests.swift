import Catalog
import Foundation
import PhotoModel
import TestSupport
import Testing

@testable import Derivatives

/// RAW thumbnails from the embedded JPEG preview: the generated DNG and RAF (`Fixtures/generated/raw`,
/// facts in `raw-expected.json`), the corpus RAWs (stripped to tiny or dummy previews) and hostile files.
@Suite(.serialized) struct RawThumbnailTests {
    static let fixtures = Corpus.fixtures.appendingPathComponent("generated")

    struct Expected {
        var file: String
        var offset: Int, length: Int, width: Int, height: Int
        var location: String
        var jpegOrientation: Int?
        var rawOrientation: Int
        var displayWidth: Int, displayHeight: Int
        var path: String { RawThumbnailTests.fixtures.appendingPathComponent(file).path }
    }

    static let expected: [Expected] = {
        guard let data = try? Data(contentsOf: fixtures.appendingPathComponent("raw-expected.json")),
            let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let files = obj["files"] as? [[String: Any]]
        else { return [] }
        return files.compactMap { f in
            guard let file = f["file"] as? String, let p = f["preview"] as? [String: Any], let offset = p["offset"] as? Int,
                let length = p["length"] as? Int, let w = p["width"] as? Int, let h = p["height"] as? Int,
                let location = p["location"] as? String, let ro = p["rawOrientation"] as? Int,
                let dw = f["displayWidth"] as? Int, let dh = f["displayHeight"] as? Int
            else { return nil }
            return Expected(
                file: file, offset: offset, length: length, width: w, height: h, location: location,
                jpegOrientation: p["jpegOrientation"] as? Int, rawOrientation: ro, displayWidth: dw, displayHeight: dh)
        }
    }()

    @Test func fixturesArePresent() {
        #expect(Self.expected.map(\.file) == ["raw/preview.dng", "raw/preview.raf"])
    }

    @Test(arguments: expected.map(\.file))
    func readerFindsTheLargestPreview(_ file: String) throws {
        let e = try #require(Self.expected.first { $0.file == file })
        let p = try RawPreview.largest(path: e.path)
        #expect(p.width == e.width && p.height == e.height)
        #expect(p.location == e.location)
        #expect(p.rawOrientation == e.rawOrientation)
        #expect(p.jpegOrientation == e.jpegOrientation)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: e.path)))
        #expect(p.jpeg == Array(bytes[e.offset..<(e.offset + e.length)]))
    }

    /// Layouts the fixtures do not cover, built here around the fixture JPEGs (640×480 DNG preview, 480×320 RAF
    /// preview): a CR3 with `THMB` and `PRVW`, and a CR2-like TIFF with an IFD0 JPEG strip and an IFD1
    /// JPEGInterchangeFormat thumbnail. The larger preview wins in both.
    @Test func cr3AndCR2LayoutsPickTheLargestPreview() throws {
        let s = try ThumbnailTests.Scratch()
        let dng = try #require(Self.expected.first { $0.file.hasSuffix(".dng") })
        let raf = try #require(Self.expected.first { $0.file.hasSuffix(".raf") })
        let big = Array([UInt8](try Data(contentsOf: URL(fileURLWithPath: dng.path)))[dng.offset..<(dng.offset + dng.length)])
        let small = Array([UInt8](try Data(contentsOf: URL(fileURLWithPath: raf.path)))[raf.offset..<(raf.offset + raf.length)])
        func be(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * (n - 1 - $0))) } }
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be(8 + payload.count, 4) + Array(type.utf8) + payload }
        let thmb = box("THMB", [0, 0, 0, 0] + be(480, 2) + be(320, 2) + be(small.count, 4) + be(1, 2) + be(0, 2) + small)
        let canon = box("uuid", RawScan.canonUUID + box("CNCV", Array("CanonCR3_001/00.09.00/00.00.00".utf8)) + thmb)
        let prvw = box("PRVW", [0, 0, 0, 0] + be(1, 2) + be(640, 2) + be(480, 2) + be(1, 2) + be(big.count, 4) + big)
        let cr3 =
            box("ftyp", Array("crx ".utf8) + be(1, 4) + Array("crx isom".utf8)) + box("moov", canon)
            + box("uuid", RawScan.cr3PreviewUUID + [0, 0, 0, 0, 0, 0, 0, 1] + prvw) + box("mdat", [1, 2, 3, 4])
        let cr3Path = s.url.appendingPathComponent("synthetic.cr3").path
        try Data(cr3).write(to: URL(fileURLWithPath: cr3Path))
        let p3 = try RawPreview.largest(path: cr3Path)
        #expect([p3.width, p3.height] == [640, 480] && p3.location == "CR3 PRVW" && p3.jpeg == big)

        // CR2-like: IFD0 (Compression 6, one strip = the 640×480 JPEG, Orientation 8) -> IFD1 (0x201/0x202 = the 480×320 one).
        func entry(_ tag: Int, _ type: Int, _ value: Int) -> [UInt8] { le(tag, 2) + le(type, 2) + le(1, 4) + le(value, 4) }
        let ifd0 = 8, ifd1 = ifd0 + 2 + 4 * 12 + 4
        let jpeg0 = ifd1 + 2 + 2 * 12 + 4, jpeg1 = jpeg0 + big.count
        var cr2: [UInt8] = Array("II".utf8) + le(42, 2) + le(ifd0, 4)
        cr2 +=
            le(4, 2) + entry(0x0103, 3, 6) + entry(0x0111, 4, jpeg0) + entry(0x0112, 3, 8) + entry(0x0117, 4, big.count)
            + le(ifd1, 4)
        cr2 += le(2, 2) + entry(0x0201, 4, jpeg1) + entry(0x0202, 4, small.count) + le(0, 4)
        cr2 += big + small
        let cr2Path = s.url.appendingPathComponent("synthetic.cr2").path
        try Data(cr2).write(to: URL(fileURLWithPath: cr2Path))
        let p2 = try RawPreview.largest(path: cr2Path)
        #expect(
            [p2.width, p2.height] == [640, 480] && p2.location == "IFD0 strip" && p2.rawOrientation == 8
                && p2.orientationToApply == 8)
        // A PRVW that is not a JPEG (FFD8 broken): the THMB is the largest usable preview.
        var bad = cr3
        let i = try #require(bad.indices.first { Array(bad[$0..<min($0 + 4, bad.count)]) == Array("PRVW".utf8) })
        bad[i + 20] = 0x00  // type at i, payload at i + 4, the JPEG 16 bytes into the payload
        try Data(bad).write(to: URL(fileURLWithPath: cr3Path))
        let thumb = try RawPreview.largest(path: cr3Path)
        #expect([thumb.width, thumb.height] == [480, 320] && thumb.location == "CR3 THMB" && thumb.jpegOrientation == 8)
        #expect(throws: DerivativeError.self) { try RawPreview.largest(path: cr3Path + ".missing") }
    }

    /// Ingests `root` into a scratch catalog and returns its image assets.
    static func assets(_ root: String, _ s: ThumbnailTests.Scratch) async throws -> [StoredAsset] {
        let catalog = try Catalog(path: s.catalogPath)
        try await ThumbnailTests.ingest([root], catalog)
        return try catalog.allAssets().filter { $0.asset.mediaType == .image }
    }

    /// Fit and fill at 256 from the fixture RAWs: the display size and orientation of the preview, compared
    /// with `vipsthumbnail` on the extracted preview (turned by the RAW's orientation when the JPEG has none).
    @Test func fixtureRAWsGetOrientedThumbnails() async throws {
        let s = try ThumbnailTests.Scratch()
        let assets = try await Self.assets(Self.fixtures.appendingPathComponent("raw").path, s)
        #expect(assets.count == 2)
        for mode in ThumbnailRequest.Mode.allCases {
            let request = ThumbnailRequest(sizes: [256], mode: mode, outputDirectory: s.out)
            let summary = await Thumbnailer(request: request, concurrency: 2).run(assets: assets)
            #expect(summary.errors.isEmpty, "\(summary.errors)")
            #expect(summary.created.count == 2)
            for e in Self.expected {
                let a = try #require(assets.first { $0.asset.id.hasSuffix(URL(fileURLWithPath: e.file).lastPathComponent) })
                let ours = try #require(request.outputURL(for: a, size: 256)).path
                let size = try #require(Pixels.size(ours))
                if mode == .fill {
                    #expect(size.width == 256 && size.height == 256)
                } else {
                    let long = Double(max(e.displayWidth, e.displayHeight))
                    #expect(max(size.width, size.height) == 256)
                    #expect(abs(Double(size.width) - 256 * Double(e.displayWidth) / long) <= 1, "\(e.file): \(size)")
                    #expect(abs(Double(size.height) - 256 * Double(e.displayHeight) / long) <= 1, "\(e.file): \(size)")
                }
                guard mode == .fit, FileManager.default.isExecutableFile(atPath: "/usr/bin/vipsthumbnail") else { continue }
                // The reference: the preview cut out by the offsets the generator recorded, rendered by vipsthumbnail
                // (which applies the JPEG's own orientation), then turned as the RAW's orientation says.
                let bytes = try Data(contentsOf: URL(fileURLWithPath: e.path))
                let jpeg = s.url.appendingPathComponent("preview-\(UUID().uuidString).jpg")
                try bytes.subdata(in: e.offset..<(e.offset + e.length)).write(to: jpeg)
                let ref = s.url.appendingPathComponent("ref-\(UUID().uuidString).jpg").path
                let p = Process()
                p.executableURL = URL(fileURLWithPath: "/usr/bin/vipsthumbnail")
                p.arguments = [jpeg.path, "-s", "256", "-o", ref]
                try p.run()
                p.waitUntilExit()
                var g2 = try #require(Pixels.gray32(ref))
                if e.jpegOrientation == nil, e.rawOrientation == 6 { g2 = Self.turnedClockwise(g2) }
                let g1 = try #require(Pixels.gray32(ours))
                let right = Pixels.meanAbsDiff(g1, g2)
                let wrong = Pixels.meanAbsDiff(g1, Array(g2.reversed()))
                print(
                    "RAW orientation \(e.file): diff \(String(format: "%.2f", right)) (turned 180°: \(String(format: "%.2f", wrong)))"
                )
                #expect(right < 8, "\(e.file): mean abs diff \(right)")
                #expect(wrong > right + 5, "\(e.file): 180° diff \(wrong) vs \(right)")
            }
        }
    }

    /// A 32×32 grid turned 90° clockwise.
    static func turnedClockwise(_ g: [Double]) -> [Double] {
        (0..<32).flatMap { y in (0..<32).map { x in g[(31 - x) * 32 + y] } }
    }

    /// A preview smaller than the size: an error naming the preview, unless `fast`; sizes it can serve are written.
    @Test func previewSmallerThanTheSize() async throws {
        let s = try ThumbnailTests.Scratch()
        let assets = try await Self.assets(Self.fixtures.appendingPathComponent("raw").path, s)
        let dng = try #require(assets.first { $0.asset.id.hasSuffix("preview.dng") })
        let exact = ThumbnailRequest(sizes: [256, 1024], outputDirectory: s.out)
        let r = await Thumbnailer(request: exact).run(assets: [dng])
        #expect(r.created.count == 1)
        #expect(r.errors.count == 1)
        let reason = r.errors.first?.reason ?? ""
        #expect(reason.hasPrefix("RAW embedded preview 640×480 (IFD0 strip) is smaller than 1024"), "\(reason)")
        #expect(!FileManager.default.fileExists(atPath: exact.outputURL(for: dng, size: 1024)!.path))

        let fast = ThumbnailRequest(sizes: [1024], resize: .fast, outputDirectory: s.out)
        let f = await Thumbnailer(request: fast).run(assets: [dng])
        #expect(f.errors.isEmpty, "\(f.errors)")
        #expect(Pixels.size(fast.outputURL(for: dng, size: 1024)!.path).map { [$0.width, $0.height] } == [480, 640])

        // Fill needs the short side: 480 serves 400 but not 500.
        let fill = ThumbnailRequest(sizes: [400, 500], mode: .fill, outputDirectory: s.out)
        let g = await Thumbnailer(request: fill).run(assets: [dng])
        #expect(g.created.count == 1 && g.errors.count == 1)
        #expect(g.errors.first?.reason.contains("smaller than 500 (fill needs its short side)") == true, "\(g.errors)")
    }

    /// The corpus RAWs are stripped: dummy previews ("<Dummy preview image data>"), an 8×8 JPEG and a cut
    /// one. Each is an error row that says so; none crashes.
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func corpusRAWsGiveClearErrors() async throws {
        let root = try #require(Corpus.root).path
        let s = try ThumbnailTests.Scratch()
        let tree = s.url.appendingPathComponent("raws", isDirectory: true)
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        let want: [String: String] = [
            "CanonRaw.cr2": "no usable embedded JPEG preview", "CanonRaw.cr3": "no usable embedded JPEG preview",
            "DNG.dng": "no usable embedded JPEG preview", "Nikon.nef": "no usable embedded JPEG preview",
            "FujiFilm.raf": "RAW embedded preview 8×8 (RAF header JPEG) is smaller than 256",
            // Its JpgFromRaw is cut (no EOI): libvips would render a grey-filled picture from a buffer.
            "Panasonic.rw2": "IFD0 JpgFromRaw (0x002E): JPEG 8×8 cut short",
        ]
        for name in want.keys {
            try FileManager.default.copyItem(
                atPath: root + "/exiftool-t-images/" + name, toPath: tree.appendingPathComponent(name).path)
        }
        let assets = try await Self.assets(tree.path, s)
        #expect(assets.count == want.count)
        let summary = await Thumbnailer(request: ThumbnailRequest(sizes: [256], outputDirectory: s.out)).run(assets: assets)
        #expect(summary.created.isEmpty)
        for e in summary.errors { print("RAW error row: \(e)") }
        for (name, reason) in want {
            let e = summary.errors.first { $0.path.hasSuffix("/" + name) }
            #expect(e?.reason.contains(reason) == true, "\(name): \(e?.reason ?? "no error row")")
        }
        // `fast` renders the RAF's 8×8 preview at its own size.
        let fast = await Thumbnailer(request: ThumbnailRequest(sizes: [256], resize: .fast, outputDirectory: s.out)).run(
            assets: assets)
        #expect(fast.created.count == 1, "\(fast.errors)")
        for f in fast.created { #expect(Pixels.size(f).map { [$0.width, $0.height] } == [8, 8]) }
    }

    /// RAW+JPEG: the JPEG is the primary and is used; a NEF alone with only an uncompressed 2×2 preview is an error row.
    @Test func rawPlusJPEGUsesTheJPEG() async throws {
        let s = try ThumbnailTests.Scratch()
        let assets = try await Self.assets(Self.fixtures.appendingPathComponent("library/camera").path, s)
        let request = ThumbnailRequest(sizes: [64], outputDirectory: s.out)
        let summary = await Thumbnailer(request: request).run(assets: assets)
        let pair = try #require(assets.first { $0.asset.resources.contains { $0.path.hasSuffix("DSC_0010.NEF") } })
        #expect(Thumbnailer.source(of: pair.asset, version: .current)?.path.hasSuffix("DSC_0010.JPG") == true)
        #expect(Pixels.size(request.outputURL(for: pair, size: 64)!.path) != nil)
        #expect(summary.errors.map { URL(fileURLWithPath: $0.path).lastPathComponent } == ["DSC_0011.NEF"])
        #expect(summary.errors.first?.reason.contains("uncompressed 2×2") == true, "\(summary.errors)")
    }

    /// Truncations, a cut preview, lying lengths, IFD loops and noise: errors, never a crash or a huge read.
    @Test func hostileRAWsAreErrors() async throws {
        let s = try ThumbnailTests.Scratch()
        let dng = try #require(Self.expected.first { $0.file.hasSuffix(".dng") })
        let raf = try #require(Self.expected.first { $0.file.hasSuffix(".raf") })
        let dngBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dng.path)))
        let rafBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raf.path)))
        func write(_ name: String, _ b: [UInt8]) throws -> String {
            let p = s.url.appendingPathComponent(name).path
            try Data(b).write(to: URL(fileURLWithPath: p))
            return p
        }
        func reason(_ path: String) -> String {
            do {
                _ = try RawPreview.largest(path: path)
                return ""
            } catch { return error.description }
        }
        // The file ends inside the preview: its range runs past the end.
        let cut = try write("cut.dng", Array(dngBytes.prefix(dng.offset + dng.length / 2)))
        #expect(reason(cut).contains("run past the end of the file"), "\(reason(cut))")
        // Header only, empty, noise.
        #expect(reason(try write("head.dng", Array(dngBytes.prefix(8)))).contains("no usable embedded JPEG preview"))
        #expect(reason(try write("empty.raf", [])).contains("not a RAW layout"))
        #expect(reason(try write("short.raf", Array(rafBytes.prefix(40)))).contains("RAF header"))
        #expect(!reason(try write("noise.dng", [0x49, 0x49, 42, 0] + (0..<4000).map { UInt8(($0 * 131 + 7) & 0xFF) })).isEmpty)
        // A RAF claiming a 2 GiB preview: refused before any allocation.
        var huge = rafBytes
        huge.replaceSubrange(88..<92, with: [0x7F, 0xFF, 0xFF, 0xFF])
        #expect(reason(try write("huge.raf", huge)).contains("over the 64 MiB limit"))
        // An IFD whose next pointer is itself (a loop), and SubIFDs pointing back at IFD0.
        var loop = dngBytes
        let n = Int(loop[8]) | Int(loop[9]) << 8
        let next = 10 + n * 12
        loop.replaceSubrange(next..<(next + 4), with: [8, 0, 0, 0])
        #expect(try RawPreview.largest(path: write("loop.dng", loop)).width == 640)

        // Through the thumbnailer: a preview whose declared length cuts the JPEG short is an error row (libvips
        // would render it with a grey bottom), and the run goes on to the good file.
        var short = rafBytes
        let half = raf.length / 2
        short.replaceSubrange(
            88..<92, with: [UInt8(half >> 24 & 0xFF), UInt8(half >> 16 & 0xFF), UInt8(half >> 8 & 0xFF), UInt8(half & 0xFF)])
        let tree = s.url.appendingPathComponent("tree", isDirectory: true)
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        try Data(short).write(to: tree.appendingPathComponent("short.raf"))
        try Data(dngBytes.prefix(dng.offset + dng.length / 2)).write(to: tree.appendingPathComponent("cut.dng"))
        try Data(rafBytes).write(to: tree.appendingPathComponent("good.raf"))
        let assets = try await Self.assets(tree.path, s)
        let summary = await Thumbnailer(request: ThumbnailRequest(sizes: [128], outputDirectory: s.out)).run(assets: assets)
        for e in summary.errors { print("hostile RAW error row: \(e)") }
        #expect(Set(summary.errors.map { URL(fileURLWithPath: $0.path).lastPathComponent }) == ["short.raf", "cut.dng"])
        #expect(summary.errors.first { $0.path.hasSuffix("short.raf") }?.reason.contains("cut short") == true)
        #expect(summary.created.count == 1)
        #expect(ThumbnailTests.files(under: s.out).keys.allSatisfy { !$0.hasSuffix(".tmp") })
    }
}
