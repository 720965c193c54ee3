import Foundation
import Testing
import TestSupport
@testable import MediaProbe

/// Checks the ISO-BMFF reader against exiftool 13.58 / ffprobe 5.1 facts for the corpus, and against
/// malformed synthetic files.
@Suite struct BMFFReaderTests {
    // MARK: corpus

    static let bmffFiles: [String] = Corpus.mediaFiles().filter { rel in
        guard let root = Corpus.root, let src = try? FileSource(path: root.appendingPathComponent(rel).path),
            let head = try? src.read(at: 0, count: 64)
        else { return false }
        return Sniffer.sniff(head, fileSize: src.size).isBMFF
    }

    /// Where the oracle disagrees and we are right: "file|check" → reason.
    static let knownDisagreements: [String: String] = [
        "osxphotos/media_types/IMG_4076.HEIC|transfer":
            "exiftool reports the first nclx in ipco (the HDR gain map's, TC 2); the primary grid and its tiles carry only an ICC profile",
        "osxphotos/media_types/IMG_4394.HEIC|transfer": "exiftool's nclx belongs to the gain map item, not the primary",
        "osxphotos/media_types/IMG_4580.HEIC|transfer": "exiftool's nclx belongs to the gain map item, not the primary",
        "osxphotos/media_types/IMG_5747.HEIC|transfer": "exiftool's nclx belongs to the gain map item, not the primary",
        "osxphotos/original_aae/IMG_3582.HEIC|transfer": "exiftool's nclx belongs to the gain map item, not the primary",
        "osxphotos/original_aae/IMG_3582_edited.heic|transfer": "exiftool's nclx belongs to an auxiliary item, not the primary",
    ]

    struct Oracle {
        let exif: [String: Any]
        let streams: [[String: Any]]

        init?(_ rel: String) {
            guard let f = Corpus.facts(for: rel), let e = f["exiftool"] as? [String: Any] else { return nil }
            exif = e
            streams = ((f["ffprobe"] as? [String: Any])?["streams"] as? [[String: Any]]) ?? []
        }

        func double(_ k: String) -> Double? { Self.double(exif[k]) }

        static func double(_ v: Any?) -> Double? {
            if let n = v as? NSNumber { return n.doubleValue }
            if let s = v as? String { return Double(s) }
            return nil
        }

        /// Every value of a tag (`-a` may turn repeats into a list).
        func values(_ k: String) -> [Any] {
            guard let v = exif[k] else { return [] }
            return (v as? [Any]) ?? [v]
        }

        func stream(trackID: UInt32) -> [String: Any]? {
            streams.first { ($0["id"] as? String)?.lowercased() == "0x" + String(trackID, radix: 16) }
        }
    }

    static func read(_ rel: String) throws -> BMFFReader.Result {
        guard let root = Corpus.root else { throw ProbeError(.unreadable, "no corpus") }
        return try BMFFReader.read(try FileSource(path: root.appendingPathComponent(rel).path))
    }

    static func disagreement(_ rel: String, _ check: String) -> Bool { knownDisagreements["\(rel)|\(check)"] != nil }

    /// exiftool's tag name for a movie-level key (it drops `com.apple.quicktime.` and camel-cases).
    static func exiftoolName(movieKey key: String) -> String {
        let special = ["creationdate": "CreationDate", "displayname": "DisplayName", "location.ISO6709": "GPSCoordinates",
            "com.android.version": "AndroidVersion",
        ]
        var k = key
        for p in ["com.apple.quicktime.", "com.apple."] where k.hasPrefix(p) {
            k = String(k.dropFirst(p.count))
            break
        }
        if let s = special[k] { return s }
        return k.split(whereSeparator: { $0 == "." || $0 == "-" || $0 == "_" }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    static let videoKeyNames: [String: String] = [
        "LensModel": "com.apple.quicktime.camera.lens_model",
        "FocalLengthIn35mmFormat": "com.apple.quicktime.camera.focal_length.35mm_equivalent",
        "CaptureMode": "com.apple.photos.captureMode",
    ]

    /// Compares an oracle value with ours: numbers numerically, dates by their digits, ISO 6709 by its numbers.
    static func same(_ oracle: Any, _ ours: MetadataValue, key: String) -> Bool {
        if key.hasSuffix("location.ISO6709"), let s = ours.stringValue, let o = oracle as? String {
            let a = iso6709(s), b = o.split(separator: " ").compactMap { Double($0) }
            return a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) < 1e-6 }
        }
        if let n = oracle as? NSNumber, !(oracle is String) {
            guard let d = ours.doubleValue else { return false }
            return abs(d - n.doubleValue) <= max(1e-9, abs(n.doubleValue) * 1e-6)
        }
        guard let o = oracle as? String else { return false }
        if o.hasPrefix("(Binary data "), case .data(_, let count) = ours { return o.hasPrefix("(Binary data \(count) bytes") }
        let mine = ours.description
        if key.hasSuffix("creationdate") { return o.filter(\.isNumber) == mine.filter(\.isNumber) }
        return o == mine || o.trimmingCharacters(in: .whitespaces) == mine.trimmingCharacters(in: .whitespaces)
    }

    static func iso6709(_ s: String) -> [Double] {
        var out: [Double] = []
        var cur = ""
        for c in s {
            if (c == "+" || c == "-" || c == "/") && !cur.isEmpty {
                if let d = Double(cur) { out.append(d) }
                cur = ""
            }
            if c != "/" { cur.append(c) }
        }
        if let d = Double(cur) { out.append(d) }
        return out
    }

    @Test(.enabled(if: Corpus.isAvailable, "corpus absent"))
    func corpusHasBMFFFiles() {
        #expect(Self.bmffFiles.count >= 30)
    }

    @Test(.enabled(if: Corpus.isAvailable, "corpus absent"), arguments: bmffFiles)
    func brandsAndMovieFacts(_ rel: String) throws {
        let o = try #require(Oracle(rel))
        let r = try Self.read(rel)
        if let major = o.exif["QuickTime:MajorBrand"] as? String {
            #expect(r.brands.first == major, "\(rel)")
            let compat = o.values("QuickTime:CompatibleBrands").compactMap { $0 as? String }
            #expect(Array(r.brands.dropFirst()) == compat, "\(rel)")
        }
        guard let q = r.quickTime else {
            #expect(o.exif["QuickTime:MovieHeaderVersion"] == nil, "\(rel): mvhd not read")
            return
        }
        if let d = o.double("QuickTime:Duration") {
            #expect(abs((q.durationSeconds ?? -1) - d) < 0.001, "\(rel): duration")
        }
        // Movie-level keys: every exiftool Keys:* tag must be one of ours, with the same value.
        for (tag, value) in o.exif where tag.hasPrefix("Keys:") {
            let name = String(tag.dropFirst(5))
            let mine = q.movieKeys.first { Self.exiftoolName(movieKey: $0.key) == name }
            guard let mine else {
                Issue.record("\(rel): \(tag) not found among \(q.movieKeys.map(\.key))")
                continue
            }
            #expect(mine.source == "moov/meta")
            #expect(Self.same(value, mine.value, key: mine.key), "\(rel): \(tag) exiftool \(value) ours \(mine.value)")
        }
        // Track-level keys.
        for (tag, value) in o.exif where tag.hasPrefix("VideoKeys:") {
            var name = String(tag.dropFirst(10))
            if let dash = name.firstIndex(of: "-") { name = String(name[..<dash]) }
            guard let key = Self.videoKeyNames[name] else { continue }
            let mine = q.trackValue(key)
            #expect(mine.map { Self.same(value, $0.value, key: key) } == true, "\(rel): \(tag) exiftool \(value) ours \(String(describing: mine?.value))")
            #expect(mine?.source.hasPrefix("moov/trak[") == true && mine?.source.hasSuffix("]/meta") == true)
        }
        if let xyz = o.exif["UserData:GPSCoordinates"] as? String {
            let mine = try #require(q.userData.first { $0.key == "©xyz" }, "\(rel): ©xyz")
            #expect(Self.same(xyz, mine.value, key: "location.ISO6709"), "\(rel): ©xyz")
        }
        if let rot = o.exif["Composite:Rotation"] as? NSNumber, let v = q.videoTrack {
            #expect(v.rotation == rot.intValue, "\(rel): rotation")
        }
    }

    @Test(.enabled(if: Corpus.isAvailable, "corpus absent"), arguments: bmffFiles)
    func tracks(_ rel: String) throws {
        let o = try #require(Oracle(rel))
        guard let q = try Self.read(rel).quickTime else { return }
        for (i, t) in q.tracks.enumerated() {
            let g = "Track\(i + 1):"
            if let id = o.exif[g + "TrackID"] as? NSNumber { #expect(t.trackID == id.uint32Value, "\(rel) \(g)") }
            if let d = o.double(g + "MediaDuration") {
                #expect(abs((t.durationSeconds ?? -1) - d) < 0.001, "\(rel) \(g) media duration")
            }
            if let fps = o.double(g + "VideoFrameRate") {
                #expect(abs((t.nominalFrameRate ?? -1) - fps) < 0.001, "\(rel) \(g) frame rate \(t.nominalFrameRate ?? -1) vs \(fps)")
            }
            if let mf = o.exif[g + "MetaFormat"] as? String { #expect(t.sampleEntry == mf, "\(rel) \(g)") }
            if let c = o.exif[g + "CompressorID"] as? String { #expect(t.sampleEntry == c, "\(rel) \(g)") }
            if let ht = o.exif[g + "HandlerType"] as? String { #expect(t.handler == ht, "\(rel) \(g)") }
            // With two hdlr boxes (media + data handler) exiftool keeps the data handler's name.
            if let hd = o.exif[g + "HandlerDescription"] as? String, o.exif[g + "HandlerClass"] as? String != "dhlr" { #expect(t.handlerName == hd, "\(rel) \(g)") }
            if o.exif[g + "StillImageTime"] != nil {
                #expect(t.timedMetadataKeys.contains(QuickTimeMovieParser.stillImageTimeKey), "\(rel) \(g)")
            }
            if let s = o.stream(trackID: t.trackID), let n = (s["nb_frames"] as? String).flatMap({ UInt64($0) }) {
                #expect(t.sampleCount == n, "\(rel) \(g) sample count vs ffprobe nb_frames")
            }
        }
    }

    @Test(.enabled(if: Corpus.isAvailable, "corpus absent"), arguments: bmffFiles)
    func stillImageTime(_ rel: String) throws {
        let o = try #require(Oracle(rel))
        guard let q = try Self.read(rel).quickTime else { return }
        let still = q.tracks.first { $0.timedMetadataKeys.contains(QuickTimeMovieParser.stillImageTimeKey) }
        let exiftoolHasStill = o.exif.keys.contains { $0.hasSuffix(":StillImageTime") }
        #expect((still != nil) == exiftoolHasStill, "\(rel)")
        guard let still else {
            #expect(q.stillImageTime == nil)
            return
        }
        // ffprobe's start_time of the mebx stream is the presentation time of its first sample.
        let s = try #require(o.stream(trackID: still.trackID))
        let start = try #require((s["start_time"] as? String).flatMap(Double.init))
        let mine = try #require(q.stillImageTime)
        #expect(abs(mine.value - start) < 0.001, "\(rel): still-image-time \(mine.value) vs ffprobe \(start)")
        #expect(mine.source.contains("mebx still-image-time"))
    }

    @Test(.enabled(if: Corpus.isAvailable, "corpus absent"), arguments: bmffFiles)
    func heif(_ rel: String) throws {
        let o = try #require(Oracle(rel))
        let r = try Self.read(rel)
        guard o.exif["Meta:PrimaryItemReference"] != nil else { return }
        let h = try #require(r.heif, "\(rel): no HEIF facts")
        #expect(h.primaryItemID == (o.exif["Meta:PrimaryItemReference"] as? NSNumber)?.uint32Value, "\(rel)")
        if let ext = o.exif["QuickTime:ImageSpatialExtent"] as? String {
            #expect("\(h.width ?? -1) \(h.height ?? -1)" == ext, "\(rel): ispe")
        }
        let rot = (o.exif["QuickTime:Rotation"] as? NSNumber)?.intValue
        #expect((h.rotation ?? 0) == (rot ?? 0), "\(rel): irot")
        for t in o.values("QuickTime:AuxiliaryImageType").compactMap({ $0 as? String }) {
            #expect(h.auxiliaries.contains { $0.type == t }, "\(rel): aux \(t) missing from \(h.auxiliaries)")
        }
        for a in h.auxiliaries { #expect(a.forItem != nil, "\(rel): aux item \(a.itemID) has no auxl target") }
        if let tc = (o.exif["QuickTime:TransferCharacteristics"] as? NSNumber)?.intValue, !Self.disagreement(rel, "transfer") {
            #expect(h.transferCharacteristics == tc, "\(rel): transfer characteristics")
        }
        #expect(h.entityGroups.contains { $0.type == "ster" } == (o.exif["QuickTime:Unknown_ster"] != nil), "\(rel): ster")
        let size = (o.exif["System:FileSize"] as? NSNumber)?.uint64Value ?? 0
        if let mp = o.exif["QuickTime:MotionPhotoVideo"] as? String {
            let n = UInt64(mp.split(separator: " ").dropFirst(2).first ?? "") ?? 0
            #expect(h.motionPhotoVideo?.length == n, "\(rel): mpvd length")
            #expect(h.motionPhotoVideo.map { $0.end <= size } == true)
        } else {
            #expect(h.motionPhotoVideo == nil)
        }
        let root = try #require(Corpus.root)
        let src = try FileSource(path: root.appendingPathComponent(rel).path)
        if o.exif.keys.contains(where: { $0.hasPrefix("IFD0:") || $0.hasPrefix("ExifIFD:") }) {
            let e = try #require(h.exifRange, "\(rel): no Exif range")
            let head = try src.read(at: e.offset, count: 4)
            #expect(head == [0x4D, 0x4D, 0, 0x2A] || head == [0x49, 0x49, 0x2A, 0], "\(rel): Exif range must start at a TIFF header")
            #expect(e.end <= size)
        }
        if let x = h.xmpRange {
            let text = String(decoding: try src.read(at: x.offset, count: 200), as: UTF8.self)
            #expect(text.contains("xpacket") || text.contains("x:xmpmeta"), "\(rel): XMP range")
        }
    }

    @Test(.enabled(if: Corpus.isAvailable, "corpus absent"))
    func knownValues() throws {
        let live = try #require(try Self.read("osxphotos/media_types/IMG_4394.mov").quickTime)
        #expect(live.stillImageTime?.value == 740.0 / 600.0)
        #expect(live.stillImageTime?.source == "moov/trak[5] mebx still-image-time (elst + stts)")
        #expect(live.videoTrack?.rotation == 90)
        #expect(live.movieValue("com.apple.quicktime.live-photo.vitality-scoring-version")?.value == .int(4))
        #expect(live.movieValue("com.apple.quicktime.content.identifier")?.value == .string("ED2A2552-C906-486E-9DA5-17DABDF672A7"))
        #expect(live.creationTime == FileDate(local: "2025-08-06T22:14:22", offsetSeconds: 0))
        #expect(live.videoTrack?.sampleCount == 53)

        for rel in ["osxphotos/media_types/IMG_3539.MOV", "osxphotos/photos_library_cloud/IMG_0016.MOV",
                    "osxphotos/photos_library_cloud/4614086E-C797-4876-B3B9-3057E8D757C9.mov"] {
            let q = try #require(try Self.read(rel).quickTime)
            let mode = q.trackValue("com.apple.photos.captureMode")
            #expect(mode?.value == .string("Time-lapse"), "\(rel)")
            #expect(mode?.source == "moov/trak[1]/meta")
            #expect(q.movieValue("com.apple.photos.captureMode") == nil)
        }

        let mp = try #require(try Self.read("ente-motion_photos/motionphoto.heic").heif)
        #expect(mp.motionPhotoVideo == ByteRange(offset: 1_455_411, length: 2_193_658))

        let spatial = try #require(try Self.read("osxphotos/media_types/IMG_4076.HEIC").heif)
        let ster = try #require(spatial.entityGroups.first { $0.type == "ster" })
        #expect(ster.entityIDs.count == 2)

        let gps = try #require(try Self.read("metadata-extractor-images/mp4/with-gps.mp4").quickTime)
        #expect(gps.userData.first { $0.key == "©xyz" }?.value == .string("+51.4169-000.0806/"))

        let cr3 = try Self.read("exiftool-t-images/CanonRaw.cr3")
        #expect(cr3.tiffBlocks.count == 3)
        let root = try #require(Corpus.root)
        let src = try FileSource(path: root.appendingPathComponent("exiftool-t-images/CanonRaw.cr3").path)
        for b in cr3.tiffBlocks {
            let head = try src.read(at: b.offset, count: 4)
            #expect(head == [0x49, 0x49, 0x2A, 0] || head == [0x4D, 0x4D, 0, 0x2A])
        }
    }
}
