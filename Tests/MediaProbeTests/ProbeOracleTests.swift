import Foundation
import Testing
import TestSupport

@testable import MediaProbe

/// Probes every file of the real corpus and compares the facts with exiftool 13.58 and ffprobe 5.1
/// (`corpus/facts/`). Nothing is skipped silently: a disagreement either fails the test or is listed in
/// `knownDisagreements` with the reason we believe the oracle (or the file) is wrong.
@Suite(.serialized) struct ProbeOracleTests {
    /// `file|field` → why we differ from the oracle on purpose.
    static let knownDisagreements: [String: String] = [
        "osxphotos/test-images/badimage.jpeg|dateTimeOriginal":
            "the file is deliberately damaged: DateTimeOriginal reads ':07:-4 -6:24:01' (year chopped); an implausible date is rejected, not reported",
        "metadata-extractor-images/jpg/Samsung GT-I9000 (Galaxy S).jpg|gpsLatitude":
            "GPS IFD holds 0/0/0 (no fix, 'null island'): no location is right (assets.json agrees)",
        "metadata-extractor-images/jpg/Samsung GT-I9000 (Galaxy S).jpg|gpsLongitude":
            "GPS IFD holds 0/0/0 (no fix, 'null island'): no location is right (assets.json agrees)",
        "metadata-extractor-images/jpg/Samsung GT-I9000 (Galaxy S).jpg|gpsAltitude":
            "GPS IFD holds 0/0/0 (no fix, 'null island'): no location is right (assets.json agrees)",
        "exiftool-t-images/DNG.dng|pixelSize":
            "exiftool's ImageSize is the raw SubIFD's full sensor area (3516x2328); the developed image is its DefaultCropSize 3456x2304, which Photos shows (assets.json agrees)",
        "exiftool-t-images/FujiFilm.raf|pixelSize":
            "exiftool's ImageSize is RAF RawImageCroppedSize (4256x1424, the S5 Pro's doubled sensor grid); the developed size in the embedded Exif is 1440x960 (assets.json agrees)",
        "exiftool-t-images/Panasonic.rw2|pixelSize":
            "exiftool's ImageSize is the sensor crop from RW2 IFD0 borders (3648x2736); the Exif of the embedded JPEG says 1920x1440, the size the camera rendered (assets.json agrees)",
        "lychee/google_motion_photo_broken.jpg|motionPhotoVideo":
            "XMP claims MicroVideoOffset=1024 but the last 1024 bytes hold no MP4: no video range is right",
    ]

    struct Tally {
        var agree: [String: Int] = [:]
        var disagree: [String: [String]] = [:]
        var excused: [String: [String]] = [:]
        var extra: [String: Int] = [:]

        mutating func check(_ file: String, _ field: String, ours: String?, theirs: String?, equal: (String, String) -> Bool = { $0 == $1 }) {
            guard let theirs else {
                if ours != nil { extra[field, default: 0] += 1 }
                return
            }
            let ok = ours.map { equal($0, theirs) } ?? false
            if ok {
                agree[field, default: 0] += 1
            } else if let why = ProbeOracleTests.knownDisagreements["\(file)|\(field)"] {
                excused[field, default: []].append("\(file): ours \(ours ?? "nil"), oracle \(theirs) — \(why)")
            } else {
                disagree[field, default: []].append("\(file): ours \(ours ?? "nil"), oracle \(theirs)")
            }
        }
    }

    static func exifDateISO(_ s: String) -> String {
        // "2023:03:08 12:31:05.059+05:30" → "2023-03-08T12:31:05.059+05:30"
        var c = Array(s)
        if c.count >= 10 { c[4] = "-"; c[7] = "-" }
        if c.count >= 11, c[10] == " " { c[10] = "T" }
        return String(c)
    }

    static func num(_ v: Any?) -> Double? {
        if let d = v as? Double { return d }
        if let i = v as? Int { return Double(i) }
        if let s = v as? String { return Double(s) }
        return nil
    }

    static func str(_ v: Any?) -> String? {
        switch v {
        case let s as String: return s
        case let i as Int: return String(i)
        case let d as Double: return d.rounded() == d && abs(d) < 1e15 ? String(Int(d)) : String(d)
        case let a as [Any]: return a.compactMap { str($0) }.joined(separator: ",")
        default: return nil
        }
    }

    static func close(_ tol: Double) -> (String, String) -> Bool {
        { a, b in
            guard let x = Double(a), let y = Double(b) else { return false }
            return abs(x - y) <= tol
        }
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func corpusAgreesWithOracle() throws {
        let root = try #require(Corpus.root)
        let prober = Prober()
        var t = Tally()
        var probed = 0
        for rel in Corpus.mediaFiles() {
            guard let facts = Corpus.facts(for: rel), let et = facts["exiftool"] as? [String: Any] else { continue }
            let report = prober.probe(path: root.appendingPathComponent(rel).path)
            probed += 1
            let ff = facts["ffprobe"] as? [String: Any]
            compare(rel, report, et, ff, &t)
        }

        var lines = ["probe vs exiftool/ffprobe on \(probed) corpus files:"]
        for field in Set(t.agree.keys).union(t.disagree.keys).union(t.excused.keys).sorted() {
            lines.append(
                "  \(field): \(t.agree[field] ?? 0) agree, \(t.disagree[field]?.count ?? 0) disagree, \(t.excused[field]?.count ?? 0) excused")
        }
        for (field, list) in t.excused.sorted(by: { $0.key < $1.key }) {
            for l in list { lines.append("  excused \(field): \(l)") }
        }
        print(lines.joined(separator: "\n"))
        #expect(probed >= 90, "expected the whole corpus to be probed")
        for (field, list) in t.disagree.sorted(by: { $0.key < $1.key }) {
            for l in list { Issue.record("\(field): \(l)") }
        }
    }

    func compare(_ rel: String, _ r: ProbeReport, _ et: [String: Any], _ ff: [String: Any]?, _ t: inout Tally) {
        let kind = r.kind
        // Pixel size as stored.
        let size = r.pixelWidth.map { "\($0.value) \(r.pixelHeight?.value ?? 0)" }
        if kind.isImage || kind.isVideo {
            t.check(rel, "pixelSize", ours: size, theirs: Self.str(et["Composite:ImageSize"])?.replacingOccurrences(of: "x", with: " "))
        }
        t.check(rel, "orientation", ours: r.orientation.map { String($0.value) }, theirs: Self.str(et["IFD0:Orientation"]))

        // DateTimeOriginal with sub-seconds and offset.
        let oracleDTO = (et["Composite:SubSecDateTimeOriginal"] ?? et["ExifIFD:DateTimeOriginal"]) as? String
        t.check(rel, "dateTimeOriginal", ours: r.dates.original?.value.description, theirs: oracleDTO.map(Self.exifDateISO))

        // GPS.
        if let lat = Self.num(et["Composite:GPSLatitude"]), let lon = Self.num(et["Composite:GPSLongitude"]) {
            t.check(rel, "gpsLatitude", ours: r.location.map { String($0.value.latitude) }, theirs: String(lat), equal: Self.close(1e-5))
            t.check(rel, "gpsLongitude", ours: r.location.map { String($0.value.longitude) }, theirs: String(lon), equal: Self.close(1e-5))
        }
        if let alt = Self.num(et["Composite:GPSAltitude"]) {
            t.check(rel, "gpsAltitude", ours: r.location?.value.altitude.map { String($0) }, theirs: String(alt), equal: Self.close(0.01))
        }

        // Camera.
        t.check(rel, "make", ours: r.camera.make?.value, theirs: Self.str(et["IFD0:Make"] ?? et["Keys:Make"]))
        t.check(rel, "model", ours: r.camera.model?.value, theirs: Self.str(et["IFD0:Model"] ?? et["Keys:Model"]))
        t.check(rel, "lensModel", ours: r.camera.lensModel?.value, theirs: Self.str(et["ExifIFD:LensModel"] ?? et["VideoKeys:LensModel"]))
        t.check(rel, "customRendered", ours: r.exif?.customRendered.map { String($0.value) }, theirs: Self.str(et["ExifIFD:CustomRendered"]))
        // exiftool prints an all-blank UserComment as ""; we record no comment.
        t.check(rel, "userComment", ours: r.exif?.userComment?.value, theirs: Self.str(et["ExifIFD:UserComment"]).flatMap { $0.isEmpty ? nil : $0 })

        // Apple maker note.
        let a = r.apple
        t.check(rel, "apple.contentIdentifier", ours: a?.contentIdentifier, theirs: Self.str(et["Apple:ContentIdentifier"]))
        t.check(rel, "apple.burstUUID", ours: a?.burstUUID, theirs: Self.str(et["Apple:BurstUUID"]))
        t.check(rel, "apple.hdrImageType", ours: a?.hdrImageType.map { String($0) }, theirs: Self.str(et["Apple:HDRImageType"]))
        t.check(rel, "apple.imageCaptureType", ours: a?.imageCaptureType.map { String($0) }, theirs: Self.str(et["Apple:ImageCaptureType"]))
        t.check(
            rel, "apple.imageProcessingFlags", ours: a?.imageProcessingFlags.map { String($0) },
            theirs: Self.str(et["Apple:ImageProcessingFlags"]))

        // QuickTime keys.
        let qt = r.quickTime
        t.check(
            rel, "qt.contentIdentifier", ours: qt?.movieValue("com.apple.quicktime.content.identifier")?.value.stringValue,
            theirs: Self.str(et["Keys:ContentIdentifier"]))
        t.check(
            rel, "qt.creationDate", ours: r.dates.quickTimeCreation?.value.description,
            theirs: (et["Keys:CreationDate"] as? String).map(Self.exifDateISO))
        if let coords = et["Keys:GPSCoordinates"] as? String {
            let parts = coords.split(separator: " ").compactMap { Double($0) }
            let iso = qt?.movieValue("com.apple.quicktime.location.ISO6709")?.value.stringValue.flatMap(ISO6709.parse)
            t.check(rel, "qt.iso6709.latitude", ours: iso.map { String($0.latitude) }, theirs: parts.first.map { String($0) }, equal: Self.close(1e-5))
            t.check(rel, "qt.iso6709.longitude", ours: iso.map { String($0.longitude) }, theirs: parts.count > 1 ? String(parts[1]) : nil, equal: Self.close(1e-5))
        }
        t.check(
            rel, "qt.fullFrameRatePlaybackIntent",
            ours: qt?.movieValue("com.apple.quicktime.full-frame-rate-playback-intent")?.value.description,
            theirs: Self.str(et["Keys:FullFrameRatePlaybackIntent"]))
        t.check(
            rel, "qt.vitalityScoringVersion",
            ours: qt?.movieValue("com.apple.quicktime.live-photo.vitality-scoring-version")?.value.description,
            theirs: Self.str(et["Keys:LivePhotoVitalityScoringVersion"]))
        t.check(
            rel, "qt.captureMode", ours: qt?.trackValue("com.apple.photos.captureMode")?.value.stringValue,
            theirs: Self.str(et["VideoKeys:CaptureMode"]))
        t.check(
            rel, "qt.trackLensModel", ours: qt?.trackValue("com.apple.quicktime.camera.lens_model")?.value.stringValue,
            theirs: Self.str(et["VideoKeys:LensModel"]))
        if kind.isVideo, let d = Self.num(et["QuickTime:Duration"]) {
            t.check(rel, "qt.duration", ours: qt?.durationSeconds.map { String($0) }, theirs: String(d), equal: Self.close(0.001))
        }

        // Per-stream facts from ffprobe.
        if let streams = ff?["streams"] as? [[String: Any]], let qt, kind.isVideo {
            // Sample counts: ffprobe's streams are the tracks in order.
            for (i, s) in streams.enumerated() where i < qt.tracks.count {
                if let n = Self.str(s["nb_frames"]) {
                    t.check(rel, "qt.sampleCount", ours: qt.tracks[i].sampleCount.map { String($0) }, theirs: n)
                }
            }
            // Still-image-time: ffprobe's start_time of the mebx stream that carries it (edit list applied).
            let stillStreams = streams.enumerated().filter { i, s in
                i < qt.tracks.count && qt.tracks[i].timedMetadataKeys.contains("com.apple.quicktime.still-image-time")
            }
            let exifStill = et.keys.contains { $0.hasSuffix(":StillImageTime") }
            if exifStill {
                t.check(
                    rel, "qt.stillImageTime", ours: qt.stillImageTime.map { String($0.value) },
                    theirs: stillStreams.first.flatMap { Self.str($0.element["start_time"]) }, equal: Self.close(0.001))
            }
        }

        // HEIF auxiliary image types.
        // exiftool's JSON keeps one value of a repeated tag, so the oracle's set may be smaller than the file's:
        // every type it names must be ours, and a type it does not name must be confirmed elsewhere
        // (the Apple HDR gain map also shows as XMP-HDRGainMap tags).
        if let aux = et["QuickTime:AuxiliaryImageType"] {
            let theirs = Set((aux as? [Any] ?? [aux]).compactMap { Self.str($0) })
            let ours = Set(r.heif?.auxiliaries.map(\.type) ?? [])
            let unconfirmed = ours.subtracting(theirs).filter {
                !($0.hasSuffix("hdrgainmap") && et.keys.contains { $0.hasPrefix("XMP-HDRGainMap:") })
            }
            let agree = theirs.isSubset(of: ours) && unconfirmed.isEmpty
            t.check(rel, "heif.auxiliaryTypes", ours: agree ? "ok" : ours.sorted().joined(separator: ","), theirs: agree ? "ok" : theirs.sorted().joined(separator: ","))
        }

        // Motion-photo video byte ranges: exiftool gives the length of the embedded video
        // (QuickTime:MotionPhotoVideo "Binary data N bytes") or Samsung's offset and size.
        if let so = et["Samsung:EmbeddedVideoOffsetSize"] as? String {
            let ours = r.embeddedVideo.map { "\($0.range.offset) \($0.range.length)" }
            t.check(rel, "motionPhotoVideo", ours: ours, theirs: so)
        } else if let mpv = et["QuickTime:MotionPhotoVideo"] as? String, let n = mpv.split(separator: " ").dropFirst(2).first {
            t.check(rel, "motionPhotoVideo", ours: r.embeddedVideo.map { String($0.range.length) }, theirs: String(n))
        } else if et["XMP-GCamera:MicroVideo"] != nil || et["XMP-GCamera:MotionPhoto"] != nil {
            let claimed = Self.str(et["XMP-GCamera:MicroVideo"] ?? et["XMP-GCamera:MotionPhoto"])
            t.check(rel, "motionPhotoVideo", ours: r.embeddedVideo == nil ? nil : "found", theirs: claimed == "1" ? "found" : nil)
        }
    }
}
