import Foundation
import Testing
import TestSupport
@testable import MediaProbe

@Suite struct ImageReaderTests {
    // MARK: Corpus against the exiftool oracle

    /// Bytes after EOI that are expected (everything else must end at EOI or an MPF image).
    static let knownTrailers: [String: UInt64] = [
        // MicroVideoOffset = 1024 but the "video" is 1024 zero bytes: the file is a broken motion photo.
        "lychee/google_motion_photo_broken.jpg": 1024,
        // One stray byte after EOI (exiftool warns about the damaged APP1 instead).
        "osxphotos/test-images/badimage.jpeg": 1,
    ]

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus (SHOEBOX_CORPUS)"), arguments: CorpusImages.files(.jpeg))
    func jpegMatchesOracle(_ rel: String) throws {
        let tags = Oracle.tags(rel)
        let src = try CorpusImages.source(rel)
        let r = try JPEGReader.read(src)
        let f = r.facts
        #expect(f.width.map(Int64.init) == Oracle.int(tags["File:ImageWidth"]), "width")
        #expect(f.height.map(Int64.init) == Oracle.int(tags["File:ImageHeight"]), "height")
        let oracleExif = tags.keys.contains { $0.hasPrefix("IFD0:") || $0.hasPrefix("ExifIFD:") || $0 == "File:ExifByteOrder" }
        #expect((f.exifRange != nil) == oracleExif, "Exif presence")
        if let e = f.exifRange {
            let head = try src.read(at: e.offset, count: 8)
            #expect(head.matches("Exif\0\0"))
        }
        let oracleXMP = tags.keys.contains { $0.hasPrefix("XMP-") }
        #expect((r.xmpPacket != nil) == oracleXMP, "XMP presence")
        if let packet = r.xmpPacket {
            let xmp = XMPReader.parse(standard: packet, extended: r.extendedXMPPacket, source: "JPEG APP1")
            #expect(XMPOracle.mismatches(xmp, oracle: tags) == [])
            #expect(XMPOracle.directoryMismatches(xmp, oracle: tags) == [])
            #expect(f.hasExtendedXMP == (tags["XMP-xmpNote:HasExtendedXMP"] != nil))
        }
        // MPF: image count and each image's length; non-primary images must be JPEGs where they point.
        let mpfCount = Oracle.int(tags["MPF0:NumberOfImages"]) ?? 0
        #expect(Int64(f.mpfImages.count) == mpfCount, "MPF image count")
        for (i, img) in f.mpfImages.enumerated() {
            #expect(Int64(img.range.length) == Oracle.int(tags["MPImage\(i + 1):MPImageLength"]))
            #expect(Int64(img.typeCode) == Oracle.int(tags["MPImage\(i + 1):MPImageType"]))
            if i > 0 {
                #expect(try src.read(at: img.range.offset, count: 2) == [0xFF, 0xD8])
                // exiftool prints MPImageStart as an absolute file offset.
                #expect(Int64(img.range.offset) == Oracle.int(tags["MPImage\(i + 1):MPImageStart"]))
            }
        }
        #expect(f.endOfImage != nil, "EOI")
        #expect(f.trailer?.length == Self.knownTrailers[rel], "trailer")
        if Self.knownTrailers[rel] == nil { #expect(r.warnings == []) }
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus (SHOEBOX_CORPUS)"))
    func pixel8GainMapFollowsTheRealEOI() throws {
        // The MPF index says the primary is 257812 bytes, but its EOI ends at 257909, exactly where the
        // gain map (MPImage2) starts: Google's writer under-reports the primary's MPImageLength by 97
        // bytes. exiftool just repeats the declared value, so we check the bytes instead.
        let r = try JPEGReader.read(try CorpusImages.source("ente-motion_photos/pixel_8.jpg"))
        #expect(r.facts.endOfImage == 257909)
        #expect(r.facts.mpfImages.map(\.range.offset) == [0, 257909])
        #expect(r.facts.trailer == nil)
        let xmp = XMPReader.parse(standard: r.xmpPacket ?? [], extended: r.extendedXMPPacket, source: "test")
        #expect(xmp.directory.map(\.semantic) == ["Primary", "GainMap"])
        #expect(xmp.directory.last?.length == r.facts.mpfImages.last?.range.length)
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus (SHOEBOX_CORPUS)"))
    func microVideoOffsetMatchesTrailer() throws {
        let rel = "lychee/google_motion_photo_broken.jpg"
        let src = try CorpusImages.source(rel)
        let r = try JPEGReader.read(src)
        let xmp = XMPReader.parse(r.xmpPacket ?? [], source: "test")
        #expect(xmp["GCamera:MicroVideo"] == "1")
        let offset = UInt64(xmp["GCamera:MicroVideoOffset"] ?? "") ?? 0
        #expect(r.facts.trailer == ByteRange(offset: src.size - offset, length: offset))
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus (SHOEBOX_CORPUS)"))
    func extendedXMPIsJoined() throws {
        let r = try JPEGReader.read(try CorpusImages.source("metadata-extractor-images/jpg/Android Depth Map.jpg"))
        #expect(r.facts.hasExtendedXMP)
        #expect(r.warnings == [])
        let ext = XMPReader.parse(r.extendedXMPPacket ?? [], source: "ext")
        #expect(ext.oversizedFields.keys.sorted() == ["GDepth:Data", "GImage:Data"])
        #expect(ext.oversizedFields["GDepth:Data"] == 268_496)
        let merged = XMPReader.parse(standard: r.xmpPacket ?? [], extended: r.extendedXMPPacket, source: "jpeg")
        #expect(merged["GDepth:Mime"] == "image/png")
        #expect(merged.oversizedFields["GImage:Data"] == 252_160)
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus (SHOEBOX_CORPUS)"), arguments: CorpusImages.files(.png))
    func pngMatchesOracle(_ rel: String) throws {
        let tags = Oracle.tags(rel)
        let r = try PNGReader.read(try CorpusImages.source(rel))
        #expect(r.facts.width.map(Int64.init) == Oracle.int(tags["PNG:ImageWidth"]))
        #expect(r.facts.height.map(Int64.init) == Oracle.int(tags["PNG:ImageHeight"]))
        #expect((r.facts.exifRange != nil) == (tags["File:ExifByteOrder"] != nil), "eXIf presence")
        #expect(r.facts.hasXMP == tags.keys.contains { $0.hasPrefix("XMP-") }, "XMP presence")
        #expect(r.facts.animationFrames == nil)
        #expect(r.warnings == [])
        if let packet = r.xmpPacket {
            #expect(XMPOracle.mismatches(XMPReader.parse(packet, source: "PNG iTXt"), oracle: tags) == [])
        }
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus (SHOEBOX_CORPUS)"), arguments: CorpusImages.files(.gif))
    func gifMatchesOracle(_ rel: String) throws {
        let tags = Oracle.tags(rel)
        let g = try GIFReader.read(try CorpusImages.source(rel))
        #expect(Int64(g.width) == Oracle.int(tags["GIF:ImageWidth"]))
        #expect(Int64(g.height) == Oracle.int(tags["GIF:ImageHeight"]))
        // exiftool reports FrameCount only for animations.
        #expect(Int64(g.frameCount) == Oracle.int(tags["GIF:FrameCount"]) ?? 1)
        #expect(g.loopCount.map(Int64.init) == Oracle.int(tags["GIF:AnimationIterations"]))
        #expect(g.warnings == [])
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus (SHOEBOX_CORPUS)"), arguments: CorpusImages.files(.webp))
    func webpMatchesOracle(_ rel: String) throws {
        let tags = Oracle.tags(rel)
        let r = try WebPReader.read(try CorpusImages.source(rel))
        #expect(r.facts.width.map(Int64.init) == Oracle.int(tags["RIFF:ImageWidth"]))
        #expect(r.facts.height.map(Int64.init) == Oracle.int(tags["RIFF:ImageHeight"]))
        #expect(r.facts.loopCount.map(Int64.init) == Oracle.int(tags["RIFF:AnimationLoopCount"]))
        let duration = Oracle.double(tags["RIFF:Duration"])
        #expect(r.facts.animated == (duration != nil))
        #expect(r.facts.durationMilliseconds.map { Double($0) / 1000 } == duration)
        if r.facts.animated { #expect((r.facts.frameCount ?? 0) > 1) }
        #expect(r.facts.hasEXIF == tags.keys.contains { $0.hasPrefix("IFD0:") })
        #expect(r.warnings == [])
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus (SHOEBOX_CORPUS)"))
    func samsungTrailersMatchOracle() throws {
        var checked = 0
        for rel in Corpus.mediaFiles() {
            let tags = Oracle.tags(rel)
            let names = tags.filter { $0.key.hasPrefix("Samsung:SamsungTrailer_0x") && $0.key.hasSuffix("Name") }
            let src = try CorpusImages.source(rel)
            let trailer = try SamsungTrailerReader.read(src)
            guard !names.isEmpty else {
                // ExifTool 13.58 does not decode the SEFT trailer of this HEIC (see assets.json); its video
                // is checked in `samsungMotionPhotoVideo`.
                if rel != "ente-motion_photos/motionphoto.heic" { #expect(trailer == nil, "\(rel)") }
                continue
            }
            checked += 1
            let t = try #require(trailer, "\(rel)")
            #expect(t.warnings == [])
            for (key, value) in names {
                let type = UInt16(key.dropFirst("Samsung:SamsungTrailer_0x".count).prefix(4), radix: 16)
                #expect(t.entries.contains { $0.type == type && $0.name == Oracle.string(value) }, "\(rel) \(key)")
            }
            if let os = Oracle.list(tags["Samsung:EmbeddedVideoOffsetSize"]).first {
                let parts = os.split(separator: " ").compactMap { UInt64($0) }
                #expect(t.motionPhotoVideo == ByteRange(offset: parts[0], length: parts[1]), "\(rel)")
            }
            if let mcc = Oracle.string(tags["Samsung:MCCData"]), let e = t.entries.first(where: { $0.name == "MCC_Data" }) {
                #expect(String(decoding: try src.read(e.data, limit: 64, what: "MCC"), as: UTF8.self) == mcc)
            }
        }
        #expect(checked >= 3)
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus (SHOEBOX_CORPUS)"),
          arguments: ["ente-motion_photos/motionphoto.heic", "immich/formats/motionphoto/samsung-one-ui-6.heic"])
    func samsungMotionPhotoVideo(_ rel: String) throws {
        let src = try CorpusImages.source(rel)
        let t = try #require(try SamsungTrailerReader.read(src))
        let video = try #require(t.motionPhotoVideo)
        #expect(try src.read(at: video.offset + 4, count: 4) == Bytes.ascii("ftyp"))
        #expect(video.end <= src.size)
        if rel.hasPrefix("ente") { #expect(video.offset == 1455411) }  // from ente's manifest (assets.json)
    }

    // MARK: Synthetic files

    static let tinyTIFF: [UInt8] = Bytes.ascii("MM") + Bytes.u16be(42) + Bytes.u32be(8) + Bytes.u16be(0) + Bytes.u32be(0)

    /// A JPEG with Exif, XMP, an MPF index pointing at a second JPEG, a scan with stuffing and RST
    /// markers, and an MP4-like trailer.
    static func syntheticJPEG(extendedParts: [[UInt8]] = []) -> (bytes: [UInt8], mpfTIFFStart: Int, secondStart: Int) {
        let exif = Bytes.segment(0xE1, Bytes.ascii("Exif\0\0") + tinyTIFF)
        let xmpText = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" GCamera:MotionPhoto="1"/></rdf:RDF></x:xmpmeta>"#
        let xmp = Bytes.segment(0xE1, Bytes.ascii("http://ns.adobe.com/xap/1.0/\0") + Bytes.ascii(xmpText))
        let second: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD9]
        // MPF: "MPF\0", TIFF header, IFD with 0xB000, 0xB001, 0xB002 (2 entries of 16 bytes).
        func mpf(secondOffset: Int, primaryLength: Int) -> [UInt8] {
            var t = Bytes.ascii("MM") + Bytes.u16be(42) + Bytes.u32be(8)
            t += Bytes.u16be(3)
            t += Bytes.u16be(0xB000) + Bytes.u16be(7) + Bytes.u32be(4) + Bytes.ascii("0100")
            t += Bytes.u16be(0xB001) + Bytes.u16be(4) + Bytes.u32be(1) + Bytes.u32be(2)
            t += Bytes.u16be(0xB002) + Bytes.u16be(7) + Bytes.u32be(32) + Bytes.u32be(8 + 2 + 36 + 4)
            t += Bytes.u32be(0)
            t += Bytes.u32be(0x2003_0000) + Bytes.u32be(primaryLength) + Bytes.u32be(0) + [0, 0, 0, 0]
            t += Bytes.u32be(0x0000_0000) + Bytes.u32be(second.count) + Bytes.u32be(secondOffset) + [0, 0, 0, 0]
            return Bytes.segment(0xE2, Bytes.ascii("MPF\0") + t)
        }
        let sof = Bytes.segment(0xC0, [8] + Bytes.u16be(480) + Bytes.u16be(640) + [1, 1, 0x11, 0])
        let dht = Bytes.segment(0xC4, [0] + [UInt8](repeating: 0, count: 16))
        let sos = Bytes.segment(0xDA, [1, 1, 0, 0, 63, 0])
        let scan: [UInt8] = [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56, 0xFF, 0xFF, 0xD1, 0x78]
        let ext = extendedParts.flatMap { Bytes.segment(0xE1, $0) }
        // Two passes: the MPF offsets depend on the MPF segment's own position.
        var layout = [0xFF, 0xD8] + exif + xmp + ext + mpf(secondOffset: 0, primaryLength: 0) + sof + dht + sos + scan + [0xFF, 0xD9]
        let mpfStart = 2 + exif.count + xmp.count + ext.count
        let tiffStart = mpfStart + 4 + 4
        let primaryLength = layout.count
        layout = [0xFF, 0xD8] + exif + xmp + ext + mpf(secondOffset: primaryLength - tiffStart, primaryLength: primaryLength)
            + sof + dht + sos + scan + [0xFF, 0xD9]
        let bytes = layout + second + Bytes.u32be(24) + Bytes.ascii("ftypmp42") + [UInt8](repeating: 0, count: 12)
        return (bytes, tiffStart, primaryLength)
    }

    @Test func syntheticJPEGIsRead() throws {
        let (bytes, _, secondStart) = Self.syntheticJPEG()
        let r = try JPEGReader.read(MemorySource(bytes))
        #expect(r.warnings == [])
        #expect(r.facts.width == 640 && r.facts.height == 480)
        #expect(r.facts.exifRange == ByteRange(offset: 6, length: UInt64(6 + Self.tinyTIFF.count)))
        #expect(XMPReader.parse(r.xmpPacket ?? [], source: "t")["GCamera:MotionPhoto"] == "1")
        #expect(r.facts.endOfImage == UInt64(secondStart))
        #expect(r.facts.mpfImages.map(\.range) == [ByteRange(offset: 0, length: UInt64(secondStart)),
                                                   ByteRange(offset: UInt64(secondStart), length: 4)])
        #expect(r.facts.mpfImages.first?.typeCode == 0x03_0000)
        #expect(r.facts.trailer == ByteRange(offset: UInt64(secondStart + 4), length: 24))
    }

    @Test func extendedXMPPartsAreJoinedInOrder() throws {
        let guid = "0123456789ABCDEF0123456789ABCDEF"
        let full = Bytes.ascii(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:GDepth="http://ns.google.com/photos/1.0/depthmap/" GDepth:Mime="image/png"/></rdf:RDF></x:xmpmeta>"#)
        func part(_ offset: Int, _ data: ArraySlice<UInt8>) -> [UInt8] {
            Bytes.ascii("http://ns.adobe.com/xmp/extension/\0") + Bytes.ascii(guid) + Bytes.u32be(full.count)
                + Bytes.u32be(offset) + data
        }
        let half = full.count / 2
        // Parts out of order, plus a part with a bogus offset that must be ignored.
        let parts = [part(half, full[half...]), part(0, full[..<half]), part(1 << 30, [1, 2, 3])]
        let r = try JPEGReader.read(MemorySource(Self.syntheticJPEG(extendedParts: parts).bytes))
        #expect(r.facts.hasExtendedXMP)
        #expect(r.extendedXMPPacket == full)
        #expect(r.warnings.count == 1)
        #expect(XMPReader.parse(r.extendedXMPPacket ?? [], source: "t")["GDepth:Mime"] == "image/png")
    }

    @Test func truncatedJPEGsNeverCrash() {
        let bytes = Self.syntheticJPEG().bytes
        for cut in 0..<bytes.count {
            let src = MemorySource(Array(bytes[0..<cut]))
            do {
                let r = try JPEGReader.read(src)
                if cut < bytes.count - 40 { #expect(r.facts.endOfImage == nil || r.facts.endOfImage! <= UInt64(cut)) }
            } catch {
                #expect(cut < 2)
            }
        }
    }

    @Test(arguments: [0, 1, 0xFFFF])
    func badSegmentLengths(_ length: Int) throws {
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1] + Bytes.u16be(length) + Bytes.ascii("Exif\0\0MM") + [0xFF, 0xD9]
        let r = try JPEGReader.read(MemorySource(bytes))
        #expect(r.facts.exifRange == nil)
        #expect(r.facts.endOfImage == nil)
        #expect(r.warnings.count + r.damage.count == 1)
    }

    @Test func jpegWithoutEOIAndLongFillIsAWarning() throws {
        let bytes: [UInt8] = [0xFF, 0xD8] + [UInt8](repeating: 0xFF, count: 1000) + [0xDA] + Bytes.u16be(2)
            + [UInt8](repeating: 0x11, count: 300_000)
        let r = try JPEGReader.read(MemorySource(bytes))
        #expect(r.facts.endOfImage == nil)
        #expect(r.damage.count == 1)  // no EOI: the file was cut
        #expect(r.warnings.isEmpty)
        #expect(throws: ProbeError.self) { try JPEGReader.read(MemorySource([0xFF, 0xD9])) }
    }

    @Test func mpfWithHostileCountsAndOffsets() throws {
        // 65535 index entries declared, MP Entry offset far outside the segment.
        var t = Bytes.ascii("II") + Bytes.u16le(42) + Bytes.u32le(8) + Bytes.u16le(65535)
        t += Bytes.u16le(0xB002) + Bytes.u16le(7) + Bytes.u32le(16 * 65535) + Bytes.u32le(0x7FFF_FFF0)
        let bytes = [0xFF, 0xD8] + Bytes.segment(0xE2, Bytes.ascii("MPF\0") + t) + [0xFF, 0xD9]
        let r = try JPEGReader.read(MemorySource(bytes))
        #expect(r.facts.mpfImages == [])
        #expect(r.facts.endOfImage == UInt64(bytes.count))
    }

    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        Bytes.u32be(data.count) + Bytes.ascii(type) + data + [0, 0, 0, 0]
    }

    static let syntheticPNG: [UInt8] = {
        var b: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        b += pngChunk("IHDR", Bytes.u32be(1136) + Bytes.u32be(640) + [8, 2, 0, 0, 0])
        b += pngChunk("acTL", Bytes.u32be(12) + Bytes.u32be(3))
        b += pngChunk("tEXt", Bytes.ascii("Software\0Shoebox ") + [0xE9])
        b += pngChunk("zTXt", Bytes.ascii("Comment\0") + [0, 0x78, 0x9C])
        b += pngChunk("eXIf", tinyTIFF)
        let xmp = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/"><exif:UserComment><rdf:Alt><rdf:li xml:lang="x-default">Screenshot</rdf:li></rdf:Alt></exif:UserComment></rdf:Description></rdf:RDF></x:xmpmeta>"#
        b += pngChunk("iTXt", Bytes.ascii("XML:com.adobe.xmp\0") + [0, 0] + Bytes.ascii("\0\0") + Bytes.ascii(xmp))
        b += pngChunk("IDAT", [UInt8](repeating: 0, count: 100))
        b += pngChunk("IEND", [])
        return b
    }()

    @Test func syntheticPNGIsRead() throws {
        let r = try PNGReader.read(MemorySource(Self.syntheticPNG))
        #expect(r.warnings == [])
        #expect(r.facts.width == 1136 && r.facts.height == 640)
        #expect(r.facts.animationFrames == 12 && r.facts.animationPlays == 3)
        #expect(r.facts.textChunks == ["Software": "Shoebox é", "Comment": ""])
        #expect(r.facts.exifRange?.length == UInt64(Self.tinyTIFF.count))
        #expect(r.facts.hasXMP)
        #expect(XMPReader.parse(r.xmpPacket ?? [], source: "t")["exif:UserComment"] == "Screenshot")
    }

    @Test func hostilePNGs() throws {
        let png = Self.syntheticPNG
        for cut in 0..<png.count {
            _ = try? PNGReader.read(MemorySource(Array(png[0..<cut])))
        }
        let huge = Array(png[0..<8]) + Bytes.u32be(0xFFFF_FFF0) + Bytes.ascii("tEXt") + [1, 2, 3]
        let r = try PNGReader.read(MemorySource(huge))
        #expect(r.damage.count == 2)  // chunk past the end, no IEND: the file was cut
        #expect(throws: ProbeError.self) { try PNGReader.read(MemorySource(Bytes.ascii("\u{89}PNG"))) }
    }

    static func syntheticGIF(frames: Int) -> [UInt8] {
        var b = Bytes.ascii("GIF89a") + Bytes.u16le(400) + Bytes.u16le(300) + [0x80, 0, 0] + [UInt8](repeating: 0, count: 6)
        b += [0x21, 0xFF, 11] + Bytes.ascii("NETSCAPE2.0") + [3, 1] + Bytes.u16le(5) + [0]
        for _ in 0..<frames {
            b += [0x21, 0xF9, 4, 0, 10, 0, 0, 0]  // graphic control
            b += [0x2C] + Bytes.u16le(0) + Bytes.u16le(0) + Bytes.u16le(400) + Bytes.u16le(300) + [0]
            b += [2, 3, 1, 2, 3, 1, 9, 0]
        }
        b += [0x21, 0xFE, 2] + Bytes.ascii("hi") + [0]  // comment
        return b + [0x3B]
    }

    @Test func syntheticGIFIsRead() throws {
        let g = try GIFReader.read(MemorySource(Self.syntheticGIF(frames: 3)))
        #expect(g.width == 400 && g.height == 300)
        #expect(g.frameCount == 3)
        #expect(g.loopCount == 5)
        #expect(g.warnings == [])
        let gif = Self.syntheticGIF(frames: 3)
        for cut in 0..<gif.count {
            _ = try? GIFReader.read(MemorySource(Array(gif[0..<cut])))
        }
        let cutLast = try GIFReader.read(MemorySource(Array(gif.dropLast(8))))
        #expect(cutLast.frameCount == 2 || cutLast.frameCount == 3)
        #expect(!cutLast.damage.isEmpty)
    }

    static func riffChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        Bytes.ascii(type) + Bytes.u32le(data.count) + data + (data.count % 2 == 1 ? [0] : [])
    }

    @Test func syntheticWebPIsRead() throws {
        var body = Bytes.ascii("WEBP")
        body += Self.riffChunk("VP8X", [0x02 | 0x08 | 0x04, 0, 0, 0] + [0x3F, 0x01, 0] + [0xEF, 0, 0])
        body += Self.riffChunk("ANIM", [0, 0, 0, 0] + Bytes.u16le(7))
        for d in [100, 250] {
            body += Self.riffChunk("ANMF", [UInt8](repeating: 0, count: 12) + [UInt8(d & 0xFF), UInt8(d >> 8), 0, 0] + [1])
        }
        body += Self.riffChunk("EXIF", Bytes.ascii("Exif\0\0") + Self.tinyTIFF)
        body += Self.riffChunk("XMP ", Bytes.ascii("<x:xmpmeta/>"))
        let bytes = Bytes.ascii("RIFF") + Bytes.u32le(body.count) + body
        let r = try WebPReader.read(MemorySource(bytes))
        #expect(r.warnings == [])
        #expect(r.facts.width == 320 && r.facts.height == 240)
        #expect(r.facts.animated && r.facts.frameCount == 2 && r.facts.loopCount == 7)
        #expect(r.facts.durationMilliseconds == 350)
        #expect(r.facts.hasEXIF && r.facts.exifRange?.length == UInt64(6 + Self.tinyTIFF.count))
        #expect(r.xmpPacket == Bytes.ascii("<x:xmpmeta/>"))
        for cut in 0..<bytes.count { _ = try? WebPReader.read(MemorySource(Array(bytes[0..<cut]))) }
    }

    static func seft(entries: [(type: Int, name: String, payload: [UInt8])], count: Int? = nil, badOffset: Bool = false) -> [UInt8] {
        var data: [UInt8] = []
        var records: [(Int, Int, Int)] = []  // type, start, length
        for e in entries {
            let block = [0, 0] + Bytes.u16le(e.type) + Bytes.u32le(e.name.utf8.count) + Bytes.ascii(e.name) + e.payload
            records.append((e.type, data.count, block.count))
            data += block
        }
        var dir = Bytes.ascii("SEFH") + Bytes.u32le(107) + Bytes.u32le(count ?? entries.count)
        for (type, start, length) in records {
            dir += [0, 0] + Bytes.u16le(type) + Bytes.u32le(badOffset ? 0x7FFF_0000 : data.count - start) + Bytes.u32le(length)
        }
        return Bytes.ascii("JPEGDATA") + data + dir + Bytes.u32le(dir.count) + Bytes.ascii("SEFT")
    }

    @Test func syntheticSamsungTrailer() throws {
        let video = Bytes.u32be(16) + Bytes.ascii("ftypmp42") + [0, 0, 0, 0]
        let bytes = Self.seft(entries: [(0x0A01, "Image_UTC_Data", Bytes.ascii("1593487679058")),
                                        (0x0A30, "MotionPhoto_Data", video)])
        let t = try #require(try SamsungTrailerReader.read(MemorySource(bytes)))
        #expect(t.entries.map(\.name) == ["Image_UTC_Data", "MotionPhoto_Data"])
        #expect(t.entries.map(\.type) == [0x0A01, 0x0A30])
        let mv = try #require(t.motionPhotoVideo)
        #expect(Array(bytes[Int(mv.offset)..<Int(mv.end)]) == video)
        #expect(try SamsungTrailerReader.read(MemorySource(Bytes.ascii("no trailer here"))) == nil)

        let hostile = Self.seft(entries: [(0x0A30, "MotionPhoto_Data", video)], count: 65535, badOffset: true)
        let h = try #require(try SamsungTrailerReader.read(MemorySource(hostile)))
        #expect(h.entries.isEmpty && h.motionPhotoVideo == nil && h.warnings.count == 2)
        let lying = Bytes.u32le(0x7FFF_FFFF) + Bytes.ascii("SEFT")
        #expect(throws: ProbeError.self) { try SamsungTrailerReader.read(MemorySource(lying)) }
        for cut in 0..<bytes.count { _ = try? SamsungTrailerReader.read(MemorySource(Array(bytes[cut...]))) }
    }
}
