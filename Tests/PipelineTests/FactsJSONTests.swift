import Foundation
import TestSupport
import Testing

@testable import MediaProbe
@testable import Pipeline

/// `FactsJSON` writes the stored facts by hand: the bytes `JSONEncoder` (sorted keys, slashes unescaped)
/// writes, every member of every fact type, and `DerivationRules.decode` reads them back.
struct FactsJSONTests {
    /// `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]`, what the stored facts were written with.
    /// What the facts used to be written with, and must stay byte-equal to.
    static func foundation<T: Encodable>(_ value: T) throws -> [UInt8] {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return [UInt8](try enc.encode(value))
    }

    /// The probe reports of every file of the corpus (its media: not `facts/`, the docs or `assets.json`),
    /// of `../shared/longtail` and of `Fixtures/generated`, probed once for all the tests here.
    static let reports: [(path: String, report: ProbeReport)] = {
        var paths: [String] = []
        if let root = Corpus.root?.path {
            paths += Corpus.mediaFiles().filter { !$0.hasSuffix(".md") }.map { root + "/" + $0 }
        }
        if let root = LongTail.root { paths += files(under: root) }
        paths += files(under: Corpus.fixtures.appendingPathComponent("generated"))
        let prober = Prober()
        return paths.map { ($0, prober.probe(path: $0)) }
    }()

    /// Every regular file under `root`, recursively (none when it is absent).
    static func files(under root: URL) -> [String] {
        var out: [String] = []
        let en = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let u = en?.nextObject() as? URL {
            if (try? u.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { out.append(u.path) }
        }
        return out.sorted()
    }

    static func expectSame(_ report: ProbeReport, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let theirs = try foundation(report)
        let w = FactsJSON.write(report)
        #expect(!w.failed, "\(what)", sourceLocation: sourceLocation)
        #expect(
            w.out == theirs,
            "\(what):\n ours   \(String(decoding: w.out, as: UTF8.self))\n theirs \(String(decoding: theirs, as: UTF8.self))",
            sourceLocation: sourceLocation)
        #if DEBUG
            #expect(w.keyMismatches.isEmpty, "\(what): \(w.keyMismatches)", sourceLocation: sourceLocation)
        #endif
    }

    // MARK: Sample values: every fact type, every member set, every enum case

    static let range = ByteRange(offset: 12, length: .max)

    static func items() -> [MetadataItem] {
        [
            MetadataItem(key: "com.apple.quicktime.make", value: .string("Apple/\"x\"\\\n"), source: "moov/meta"),
            MetadataItem(key: "i", value: .int(.min), source: "s"),
            MetadataItem(key: "u", value: .uint(.max), source: "s"),
            MetadataItem(key: "f", value: .float(0.1), source: "s"),
            MetadataItem(key: "nan", value: .float(.nan), source: "s"),
            MetadataItem(key: "inf", value: .float(-.infinity), source: "s"),
            MetadataItem(key: "d", value: .data(type: 23, count: 4), source: "s"),
        ]
    }

    static func track() -> TrackFacts {
        var t = TrackFacts(trackID: .max)
        t.handler = "vide"
        t.handlerName = "Core Media Video"
        t.sampleEntry = "hvc1"
        t.width = 1920
        t.height = 1080
        t.codedWidth = 1920
        t.codedHeight = 1088
        t.rotation = 270
        t.mediaTimescale = 600
        t.mediaDuration = 1234
        t.sampleCount = 59
        t.sttsDuration = 1230
        t.nominalFrameRate = 29.97002997002997
        t.editList = [
            EditListEntry(segmentDuration: 1, mediaTime: -1, mediaRate: 1),
            .init(segmentDuration: 2, mediaTime: 0, mediaRate: 0.5),
        ]
        t.keys = items()
        t.timedMetadataKeys = ["mdta/com.apple.quicktime.video-orientation"]
        t.userData = Array(items().prefix(2))
        return t
    }

    /// A report with every optional set and every array non-empty, so every fact type appears.
    static func fullReport() -> ProbeReport {
        var r = ProbeReport(path: "/a/b \"c\"\\é\u{2028}😀\n\t\u{01}\u{1F}\u{7F}", fileSize: .max, kind: .threeGP)
        r.brands = ["heic", "mif1", ""]
        r.pixelWidth = Sourced(4032, "EXIF 0xA002")
        r.pixelHeight = Sourced(-3024, "x")
        r.orientation = Sourced(0, "o")
        let date = Sourced(FileDate(local: "2024-01-02T03:04:05.678", offsetSeconds: -18000), "EXIF 0x9003")
        r.dates.original = date
        r.dates.digitized = date
        r.dates.modified = Sourced(FileDate(local: "2024-01-02T03:04:05"), "m")
        r.dates.gps = date
        r.dates.quickTimeCreation = date
        r.dates.movieHeaderCreation = date
        r.dates.avchd = date
        r.dates.xmpCreation = date
        r.dates.userDataCreation = date
        r.dates.iptcCreation = date
        r.location = Sourced(GeoLocation(latitude: 1e-5, longitude: -0.0, altitude: 1e21), "GPS")
        r.camera.make = Sourced("Apple", "EXIF 0x010F")
        r.camera.model = Sourced("iPhone 15 Pro", "m")
        r.camera.software = Sourced("17.1", "s")
        r.camera.lensMake = Sourced("Apple", "l")
        r.camera.lensModel = Sourced("iPhone 15 Pro back triple camera 6.86mm f/1.78", "l")
        var exif = ExifFacts(container: "APP1")
        exif.customRendered = Sourced(8, "c")
        exif.userComment = Sourced("screenshot", "u")
        exif.imageUniqueID = Sourced("ABC", "i")
        exif.exifPixelWidth = Sourced(1, "w")
        exif.exifPixelHeight = Sourced(2, "h")
        exif.imageDescription = Sourced("   ", "d")
        exif.focalLengthIn35mm = Sourced(24, "f")
        exif.makerNoteSize = 1024
        r.exif = exif
        var apple = AppleMakerNote(version: 14, bigEndian: true)
        apple.entries = [
            0x0001: .int(-5), 0x0002: .ints([1, -2]), 0x0021: .rational(0.5), 0x0008: .rationals([1, 0.25, -3]),
            0x0011: .string("UUID-1"), 0x002B: .data(12), 0xFFFF: .int(0), 0x0045: .rational(2), 0x000A: .ints([]),
        ]
        apple.runTime = .init(value: 1, timescale: 1_000_000_000, flags: 1, epoch: 0)
        r.apple = apple
        var qt = QuickTimeFacts()
        qt.movieTimescale = 600
        qt.movieDuration = 1800
        qt.creationTime = FileDate(local: "2024-05-06T07:08:09")
        qt.movieKeys = items()
        qt.userData = [MetadataItem(key: "©xyz", value: .string("+48.8577+002.2950/"), source: "moov/udta")]
        qt.tracks = [track(), TrackFacts(trackID: 2)]
        qt.stillImageTime = Sourced(1.5, "mebx")
        r.quickTime = qt
        var heif = HEIFFacts()
        heif.primaryItemID = 1
        heif.items = [
            HEIFItem(id: 1, type: "hvc1", name: "n", contentType: "application/rdf+xml", hidden: true),
            HEIFItem(id: 2, type: "grid"),
        ]
        heif.width = 4032
        heif.height = 3024
        heif.rotation = 3
        heif.mirror = 1
        heif.auxiliaries = [
            HEIFAuxiliary(itemID: 5, type: "urn:com:apple:photo:2020:aux:hdrgainmap", forItem: 1),
            .init(itemID: 6, type: "t", forItem: nil),
        ]
        heif.entityGroups = [
            HEIFEntityGroup(type: "ster", groupID: 9, entityIDs: [1, 2]), .init(type: "altr", groupID: 10, entityIDs: []),
        ]
        heif.exifRange = range
        heif.xmpRange = range
        heif.motionPhotoVideo = range
        heif.transferCharacteristics = 16
        r.heif = heif
        var jpeg = JPEGFacts()
        jpeg.width = 1
        jpeg.height = 2
        jpeg.heightFromDNL = true
        jpeg.photoshopRange = range
        jpeg.exifRange = range
        jpeg.xmpRange = range
        jpeg.hasExtendedXMP = true
        jpeg.mpfImages = [MPFImage(range: range, typeCode: 0x0003_0000)]
        jpeg.endOfImage = 100
        jpeg.scanOffset = 50
        jpeg.trailer = range
        r.jpeg = jpeg
        var png = PNGFacts()
        png.width = 3
        png.height = 4
        png.animationFrames = 10
        png.animationPlays = 0
        png.exifRange = range
        png.textChunks = [
            "Comment": "x", "Author": "é", "a": "", "Ä": "1", "é": "2", "z": "3", "_": "4", "\u{FFFD}": "5", "😀": "6",
        ]
        png.hasXMP = true
        r.png = png
        var gif = GIFFacts(width: 5, height: 6, frameCount: 7, loopCount: 0)
        gif.warnings = ["w"]
        gif.damage = ["d", "e"]
        r.gif = gif
        var webp = WebPFacts()
        webp.width = 1
        webp.height = 2
        webp.animated = true
        webp.frameCount = 3
        webp.loopCount = 4
        webp.hasEXIF = true
        webp.hasXMP = true
        webp.exifRange = range
        webp.durationMilliseconds = 500
        r.webp = webp
        var still = StillImageFacts(format: "BMP", width: 1, height: -2, sizeSource: "BITMAPINFOHEADER")
        still.imageCount = 3
        still.bitsPerPixel = 24
        r.still = still
        var xmp = XMPFacts(source: "JPEG APP1")
        xmp.fields = ["GCamera:MotionPhoto": "1", "exif:DateTimeOriginal": "2024", "Container:x": "y"]
        xmp.directory = [
            XMPDirectoryItem(mime: "image/jpeg", semantic: "Primary", length: 0, padding: 0),
            .init(mime: nil, semantic: nil, length: nil, padding: nil),
        ]
        xmp.oversizedFields = ["xmpGImg:image": 100_000]
        xmp.declaredEntities = 2
        r.xmp = xmp
        var trailer = SamsungTrailer()
        trailer.entries = [SamsungTrailer.Entry(type: 0x0A30, name: "MotionPhoto_Data", data: range)]
        trailer.motionPhotoVideo = range
        trailer.warnings = ["entry 2 outside the file"]
        r.samsungTrailer = trailer
        r.embeddedVideo = EmbeddedVideo(range: range, source: "XMP Container:Directory", presentationTimestampUs: -1)
        var stream = StreamFacts(index: 0, type: "video")
        stream.codec = "hevc"
        stream.codecTag = "hvc1"
        stream.width = 1920
        stream.height = 1080
        stream.bitRate = 10_000_000
        stream.frameCount = 300
        stream.averageFrameRate = 30000.0 / 1001
        stream.claimedFrameRate = 240
        stream.durationSeconds = 10.01
        stream.rotation = -90
        stream.sampleRate = 44100
        stream.channels = 2
        r.streams = [stream, StreamFacts(index: 1, type: "audio")]
        r.format = FormatFacts(
            name: "mov,mp4,m4a,3gp,3g2,mj2", durationSeconds: 10.01, bitRate: 1,
            tags: ["major_brand": "qt  ", "com.apple.quicktime.location.ISO6709": "+48.8577+002.2950/", "B": "b"])
        r.format?.reader = "MPEG-TS reader"
        r.heifDecodes = Sourced(false, "libheif")
        r.adjustments = AdjustmentSidecar(
            formatIdentifier: "com.apple.video.slomo", formatVersion: "1.1", editorBundleID: "", baseVersion: 0,
            renderTypes: 2, timestamp: "2024-01-01T00:00:00Z", dataEncoding: .binaryPlist, adjustments: ["a", "b"],
            disabledAdjustments: ["b"], orientation: 6, masterWidth: 1, masterHeight: 2, playbackVariation: 3,
            slowMotion: .init(rate: 0.125, start: 1.5, duration: 2, regionCount: 1))
        r.takeout = TakeoutMetadata(
            title: "IMG_1.HEIC", description: "d", photoTakenTime: 1_700_000_000, creationTime: 1, modificationTime: 2,
            geoData: .init(latitude: 48.8577, longitude: 2.295, altitude: 35.5),
            geoDataExif: .init(latitude: -1, longitude: 0, altitude: nil),
            favorited: true, archived: false, trashed: false, people: ["A", "B"], url: "https://photos.google.com/photo/x",
            imageViews: 7, origin: "mobileUpload", isAlbumMetadata: false, albumDate: 3, albumLocation: "Paris",
            albumAccess: "protected")
        r.fileModified = FileDate(local: "2024-01-02T03:04:05", offsetSeconds: 0)
        r.issues = [
            ProbeIssue(severity: .warning, stage: .xmp, reason: "w"),
            ProbeIssue(severity: .damaged, stage: .jpeg, reason: "no EOI"),
            ProbeIssue(severity: .error, stage: ProbeStage(rawValue: "new/stage"), reason: "e"),
        ]
        r.notMedia = NotMedia(category: "text", reason: "a README")
        return r
    }

    /// Reports built here: the full one, an empty one (empty objects and arrays), every container kind,
    /// every AAE data encoding.
    static func samples() -> [ProbeReport] {
        var out = [fullReport(), ProbeReport(path: "", fileSize: 0, kind: .unknown)]
        for kind in ContainerKind.allCases { out.append(ProbeReport(path: kind.rawValue, fileSize: 1, kind: kind)) }
        for e in [AdjustmentSidecar.DataEncoding.none, .deflateJSON, .binaryPlist, .keyedArchive, .opaque] {
            var r = ProbeReport(path: "x.aae", fileSize: 1, kind: .aae)
            r.adjustments = AdjustmentSidecar(
                formatIdentifier: "", formatVersion: nil, editorBundleID: nil, baseVersion: nil, renderTypes: nil,
                timestamp: nil, dataEncoding: e, adjustments: [], disabledAdjustments: [], orientation: nil,
                masterWidth: nil, masterHeight: nil, playbackVariation: nil,
                slowMotion: .init(rate: nil, start: nil, duration: nil, regionCount: 0))
            r.takeout = TakeoutMetadata(
                title: nil, description: nil, photoTakenTime: nil, creationTime: nil, modificationTime: nil, geoData: nil,
                geoDataExif: nil, favorited: nil, archived: nil, trashed: nil, people: [], url: nil, imageViews: nil,
                origin: nil, isAlbumMetadata: true, albumDate: nil, albumLocation: nil, albumAccess: nil)
            out.append(r)
        }
        return out
    }

    // MARK: Tests

    @Test func samplesMatchJSONEncoder() throws {
        for (i, r) in Self.samples().enumerated() { try Self.expectSame(r, "sample \(i) \(r.kind)") }
    }

    /// A number JSON cannot carry fails the whole report, where `JSONEncoder` throws (a metadata float is
    /// written as 0 by its own `encode(to:)`, and is no failure).
    @Test func nonFiniteNumbersFail() throws {
        for bad in [Double.nan, .infinity, -.infinity] {
            var r = ProbeReport(path: "p", fileSize: 1, kind: .jpeg)
            r.location = Sourced(GeoLocation(latitude: bad, longitude: 0), "gps")
            #expect(FactsJSON.encode(r) == nil)
            #expect(DerivationRules.encode(r) == nil)
            #expect(throws: EncodingError.self) { try Self.foundation(r) }
        }
        var slow = Self.fullReport()
        slow.adjustments?.slowMotion?.rate = .nan
        #expect(FactsJSON.encode(slow) == nil)
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func probeReportsMatchJSONEncoder() throws {
        for (path, report) in Self.reports { try Self.expectSame(report, path) }
        #expect(Self.reports.count > 200)
    }

    /// What is stored reads back as the same report (up to the numbers whose JSON does not say their case,
    /// `asDecoded`), and writes the same bytes again.
    @Test func roundTrip() throws {
        for (what, report) in Self.reports.map({ ($0.path, $0.report) }) + Self.samples().map({ ("sample \($0.path)", $0) }) {
            let bytes = try #require(DerivationRules.encode(report), "\(what)")
            let decoded = try #require(DerivationRules.decode(bytes), "\(what)")
            #expect(decoded == Self.asDecoded(report), "\(what)")
            #expect(DerivationRules.encode(decoded) == bytes, "\(what)")
        }
    }

    /// The report as `JSONDecoder` reads it back: a metadata value or maker-note number that is whole
    /// (or a non-finite float, written as 0) reads back as an integer, as their `init(from:)` say.
    static func asDecoded(_ report: ProbeReport) -> ProbeReport {
        func fix(_ items: [MetadataItem]) -> [MetadataItem] {
            items.map { i in
                var i = i
                switch i.value {
                case .float(let v) where !v.isFinite: i.value = .int(0)
                case .float(let v): if let n = Int64(exactly: v) { i.value = .int(n) }
                case .uint(let v): if let n = Int64(exactly: v) { i.value = .int(n) }
                default: break
                }
                return i
            }
        }
        var r = report
        if var qt = r.quickTime {
            qt.movieKeys = fix(qt.movieKeys)
            qt.userData = fix(qt.userData)
            for t in qt.tracks.indices {
                qt.tracks[t].keys = fix(qt.tracks[t].keys)
                qt.tracks[t].userData = fix(qt.tracks[t].userData)
            }
            r.quickTime = qt
        }
        if var apple = r.apple {
            apple.entries = apple.entries.mapValues { v in
                if case .rational(let d) = v, let n = Int64(exactly: d) { return .int(n) }
                if case .rationals(let a) = v, a.allSatisfy({ Int64(exactly: $0) != nil }) { return .ints(a.map { Int64($0) }) }
                return v
            }
            r.apple = apple
        }
        return r
    }

    /// Types written as one JSON value (raw values, custom single-value coding), not as an object of keys.
    static let singleValueTypes: Set<String> = [
        "ContainerKind", "Severity", "ProbeStage", "DataEncoding", "MetadataValue", "Value",
    ]

    /// Every fact type written as an object (what `samples` must reach).
    static let objectTypes: Set<String> = [
        "ProbeReport", "NotMedia", "ProbeIssue", "FileDate", "DateFacts", "GeoLocation", "CameraFacts", "ExifFacts",
        "ByteRange", "EmbeddedVideo", "StreamFacts", "FormatFacts", "MetadataItem", "EditListEntry", "TrackFacts",
        "QuickTimeFacts", "HEIFItem", "HEIFAuxiliary", "HEIFEntityGroup", "HEIFFacts", "JPEGFacts", "MPFImage",
        "PNGFacts", "GIFFacts", "WebPFacts", "XMPFacts", "XMPDirectoryItem", "SamsungTrailer", "Entry",
        "AppleMakerNote", "RunTime", "StillImageFacts", "AdjustmentSidecar", "SlowMotion", "TakeoutMetadata",
        "GeoPoint", "Sourced",
    ]

    /// A field added to a fact type cannot be dropped silently: for every fact type met in the corpus
    /// reports and the samples, its stored properties (Mirror lists nil optionals too) are its
    /// `factsJSONKeys`, which are sorted as `.sortedKeys` sorts, and the writer passed each of them in order
    /// (`keyMismatches`, checked with every report above). None of the fact types renames a property in its
    /// CodingKeys (`AppleMakerNote`'s are its property names), so the labels are the keys.
    @Test func everyStoredPropertyIsWritten() throws {
        var met: Set<String> = []
        func visit(_ value: Any, _ path: String) {
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                // `as?` below would look through the optional: its wrapped value is visited on its own.
                for child in mirror.children { visit(child.value, path) }
                return
            }
            let name = String(describing: type(of: value)).split(separator: "<").first.map(String.init) ?? ""
            if let object = value as? any FactsJSONObject {
                met.insert(name)
                let keys = type(of: object).factsJSONKeys
                let labels = mirror.children.compactMap(\.label)
                #expect(Set(labels) == Set(keys), "\(path) \(type(of: value)): properties \(labels.sorted()), keys \(keys)")
                #expect(keys == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, "\(type(of: value)): \(keys)")
                #expect(Set(keys).count == keys.count, "\(type(of: value)): \(keys)")
            } else if mirror.displayStyle == .struct || mirror.displayStyle == .enum {
                #expect(value is any FactsJSONValue, "\(path): \(type(of: value)) is not written")
                if !(value is String) {
                    #expect(Self.singleValueTypes.contains(name), "\(path): \(type(of: value)) is not an object")
                }
                if Self.singleValueTypes.contains(name) { return }
            }
            for (i, child) in mirror.children.enumerated() { visit(child.value, path + "." + (child.label ?? "\(i)")) }
        }
        for (path, report) in Self.reports { visit(report, path) }
        for (i, sample) in Self.samples().enumerated() { visit(sample, "sample \(i)") }
        #expect(met == Self.objectTypes)
    }
}
