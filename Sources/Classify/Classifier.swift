import MediaProbe
import PhotoModel

/// Turns one probe report into a judgement. The rules are the reference's §9 table as applied in the
/// corpus ground truth; each decision records the tag or box and the value that made it.
public enum Classifier {
    /// Measured frame rate at or above which a clip is high-frame-rate (Apple: 0.25× rate from 85 fps).
    public static let highFrameRateThreshold = 85.0

    public static func classify(_ r: ProbeReport) -> FileClassification {
        let name = PathText.fileName(r.path)
        let role = role(of: r, name: name)
        let mediaType: MediaType = role == .image ? .image : (role == .video ? .video : (role == .audio ? .audio : .unknown))
        var c = FileClassification(path: r.path, kind: r.kind, role: role, fileSize: r.fileSize, mediaType: mediaType)
        c.errors = r.issues.filter { $0.severity == .error }.map { "\($0.stage.rawValue): \($0.reason)" }
        c.reasons.append(Reason("mediaType", "\(mediaType.name): content is \(r.kind.rawValue) (magic bytes)\(role == .audio && !r.kind.isAudio ? " with an audio track and no video track" : "")"))
        c.adjustments = r.adjustments
        c.takeout = r.takeout
        // Only a sidecar's packet is carried on (the assembly applies it to its asset); a photo's own XMP was
        // read by the rules below and would only weigh on its folder's judgements.
        if role == .xmpSidecar { c.xmp = r.xmp }
        c.fileModified = r.fileModified.map { AssetDate(local: $0.local, offsetSeconds: $0.offsetSeconds) }
        guard role == .image || role == .video || role == .audio else { return c }

        camera(r, &c)
        dates(r, &c)
        if let l = r.location {
            c.location = Location(latitude: l.value.latitude, longitude: l.value.longitude, altitude: l.value.altitude)
            c.locationSource = l.source
        }
        size(r, &c)
        switch role {
        case .image: image(r, &c, name: name)
        case .audio:
            c.duration = r.quickTime?.durationSeconds ?? r.format?.durationSeconds ?? r.streams.first(where: { $0.type == "audio" })?.durationSeconds
        default: video(r, &c, name: name)
        }
        return c
    }

    static func role(of r: ProbeReport, name: String) -> FileClassification.Role {
        if r.notMedia != nil { return .notMedia }
        if r.kind.isImage { return .image }
        if r.kind.isAudio || isAudioOnly(r) { return .audio }
        if r.kind.isVideo { return .video }
        // A sidecar whose content cannot be read keeps its role by extension, so that assembly can say
        // which asset it belonged to and why it was ignored.
        let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        if r.kind == .unknown || r.kind == .empty {
            switch ext {
            case "aae": return .adjustmentSidecar
            case "xmp": return .xmpSidecar
            case "json": return .takeoutJSON
            default: return .unsupported
            }
        }
        switch r.kind {
        case .aae: return .adjustmentSidecar
        case .xmp: return .xmpSidecar
        case .json: return name.lowercased().hasSuffix(".json") ? .takeoutJSON : .unsupported
        default: return .unsupported
        }
    }

    /// A movie container with sound and no picture (an MPEG-4 with only an audio track, an audio-only
    /// Matroska): audio, never a 0×0 video.
    static func isAudioOnly(_ r: ProbeReport) -> Bool {
        guard r.kind.isVideo else { return false }
        if let qt = r.quickTime, !qt.tracks.isEmpty {
            return qt.videoTrack == nil && qt.tracks.contains { $0.handler == "soun" }
        }
        return !r.streams.isEmpty && !r.streams.contains { $0.type == "video" } && r.streams.contains { $0.type == "audio" }
    }

    // MARK: - Shared facts

    static func camera(_ r: ProbeReport, _ c: inout FileClassification) {
        c.make = r.camera.make?.value
        c.model = r.camera.model?.value
        c.lensModel = r.camera.lensModel?.value
        if let id = r.apple?.contentIdentifier, !id.isEmpty {
            c.contentIdentifier = id
            c.contentIdentifierSource = "Apple MakerNote 0x0011 ContentIdentifier"
        } else if let item = r.quickTime?.movieValue("com.apple.quicktime.content.identifier"), let id = item.value.stringValue, !id.isEmpty {
            c.contentIdentifier = id
            c.contentIdentifierSource = "\(item.source) com.apple.quicktime.content.identifier"
        }
        if let b = r.apple?.burstUUID, !b.isEmpty {
            c.burstIdentifier = b
        } else if let b = r.xmp?["GCamera:BurstID"], !b.isEmpty {
            c.burstIdentifier = b
        }
    }

    /// creationDate: EXIF DateTimeOriginal → QuickTime creationdate → AVCHD → `©day`/3GPP `date` → XMP → IPTC → EXIF CreateDate →
    /// `mvhd` (UTC). A missing offset is inferred from the GPS UTC stamp when that is plausible.
    static func dates(_ r: ProbeReport, _ c: inout FileClassification) {
        let d = r.dates
        var chosen: Sourced<FileDate>?
        if let o = d.original {
            chosen = o
        } else if let q = d.quickTimeCreation {
            chosen = q
        } else if let a = d.avchd {
            chosen = a
        } else if let day = d.userDataCreation {
            chosen = day
        } else if let x = d.xmpCreation {
            chosen = x
        } else if let i = d.iptcCreation {
            chosen = i
        } else if let dg = d.digitized {
            chosen = dg
        } else if let m = d.movieHeaderCreation, m.value.local >= "1971" {
            chosen = Sourced(m.value, m.source)
        }
        guard var pick = chosen else { return }
        if pick.value.offsetSeconds == nil, let gps = d.gps, let off = offsetFromGPS(local: pick.value.local, utc: gps.value.local) {
            pick.value.offsetSeconds = off
            pick.source += "; offset inferred from \(gps.source) (local − UTC, rounded to 15 min)"
        }
        c.creationDate = AssetDate(local: pick.value.local, offsetSeconds: pick.value.offsetSeconds)
        c.creationDateSource = pick.source
    }

    /// `local − utc` rounded to a quarter hour, when within ±14 h.
    static func offsetFromGPS(local: String, utc: String) -> Int? {
        guard let a = epochSeconds(local), let b = epochSeconds(utc) else { return nil }
        let diff = a - b
        let q = Int((Double(diff) / 900).rounded()) * 900
        guard abs(q) <= 14 * 3600, abs(diff - q) <= 120 else { return nil }
        return q
    }

    /// Seconds since 1970 for `YYYY-MM-DDTHH:MM:SS` read as UTC (days from civil, no Foundation).
    public static func epochSeconds(_ s: String) -> Int? {
        let c = Array(s.utf8)
        guard c.count >= 19 else { return nil }
        func n(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r {
                guard (48...57).contains(c[i]) else { return nil }
                v = v * 10 + Int(c[i] - 48)
            }
            return v
        }
        guard var y = n(0..<4), let m = n(5..<7), let d = n(8..<10), let hh = n(11..<13), let mm = n(14..<16), let ss = n(17..<19)
        else { return nil }
        y -= m <= 2 ? 1 : 0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return days * 86400 + hh * 3600 + mm * 60 + ss
    }

    /// Display size: HEIF `irot` (EXIF orientation is ignored for HEIF, as Apple does), EXIF orientation
    /// 5–8 for other stills, track rotation 90/270 for movies.
    static func size(_ r: ProbeReport, _ c: inout FileClassification) {
        guard let w = r.pixelWidth?.value, let h = r.pixelHeight?.value else { return }
        var swap = false
        var why = r.pixelWidth?.source ?? ""
        if r.kind == .heic || r.kind == .avif {
            if let rot = r.heif?.rotation, rot % 2 == 1 {
                swap = true
                why += "; HEIF irot=\(rot) applied"
            }
        } else if r.kind.isVideo {
            if let rot = r.quickTime?.videoTrack?.rotation, rot == 90 || rot == 270 {
                swap = true
                why += "; track rotation \(rot)° applied"
            }
        } else if let o = r.orientation?.value, (5...8).contains(o) {
            swap = true
            why += "; EXIF Orientation \(o) applied"
        }
        c.pixelWidth = swap ? h : w
        c.pixelHeight = swap ? w : h
        c.reasons.append(Reason("pixelSize", "\(c.pixelWidth)x\(c.pixelHeight) from \(why)"))
    }

    // MARK: - Stills

    static func image(_ r: ProbeReport, _ c: inout FileClassification, name: String) {
        let cr = r.exif?.customRendered
        let flags = r.apple?.imageProcessingFlags
        let flagsText = flags.map { "Apple MakerNote 0x0019 ImageProcessingFlags = 0x" + String($0, radix: 16) }

        // photoHDR: CustomRendered 2/3, HDRImageType 3, or an HDR transfer (PQ/HLG). A gain map alone is not HDR.
        if let cr, cr.value == 2 || cr.value == 3 {
            c.add(.photoHDR, "photoHDR", "\(cr.source) = \(cr.value)")
        } else if r.apple?.hdrImageType == 3 {
            c.add(.photoHDR, "photoHDR", "Apple MakerNote 0x000A HDRImageType = 3")
        } else if let tc = r.heif?.transferCharacteristics, tc == 16 || tc == 18 {
            c.add(.photoHDR, "photoHDR", "HEIF colr nclx transfer characteristics = \(tc) (\(tc == 16 ? "PQ" : "HLG"))")
        }
        // photoPanorama: CustomRendered 6 or processing flag 0x100.
        if let cr, cr.value == 6 {
            c.add(.photoPanorama, "photoPanorama", "\(cr.source) = 6")
        } else if let f = flags, f & 0x100 != 0, let t = flagsText {
            c.add(.photoPanorama, "photoPanorama", "\(t) (bit 0x100)")
        }
        // photoDepthEffect: processing flags 0x60 or CustomRendered 7/8.
        if let f = flags, f & 0x60 != 0, let t = flagsText {
            c.add(.photoDepthEffect, "photoDepthEffect", "\(t) (bits 0x60)")
        } else if let cr, cr.value == 7 || cr.value == 8 {
            c.add(.photoDepthEffect, "photoDepthEffect", "\(cr.source) = \(cr.value)")
        }
        // photoScreenshot: UserComment "Screenshot" (EXIF or XMP).
        if let uc = r.exif?.userComment, uc.value == "Screenshot" {
            c.add(.photoScreenshot, "photoScreenshot", "\(uc.source) = \"Screenshot\"")
        } else if r.xmp?["exif:UserComment"] == "Screenshot" {
            c.add(.photoScreenshot, "photoScreenshot", "XMP exif:UserComment = \"Screenshot\" (\(r.xmp?.source ?? "XMP"))")
        }
        // spatialMedia: a HEIF stereo entity group.
        if let g = r.heif?.entityGroups.first(where: { $0.type == "ster" }) {
            c.add(.spatialMedia, "spatialMedia", "HEIF grpl 'ster' entity group \(g.groupID) of items \(g.entityIDs)")
        }

        // Motion photo: a verified embedded MP4 makes a Live Photo.
        if let ev = r.embeddedVideo {
            c.embeddedVideo = ResourceRange(offset: ev.range.offset, length: ev.range.length)
            c.add(.motionPhoto, "Android motion photo: \(motionPhotoClaim(r) ?? "no XMP claim"); embedded MP4 at \(ev.range.offset)+\(ev.range.length) from \(ev.source)")
            c.subtypes.insert(.photoLive)
            c.reasons.append(Reason("photoLive", "embedded motion-photo video (\(ev.source))"))
            c.playbackStyle = .livePhoto
        } else if let claim = motionPhotoClaim(r) {
            c.add(.motionPhotoClaimBroken, "\(claim) but no MP4 (ftyp) exists at the declared offset")
        }

        // Traits.
        if r.kind.isRAW { c.add(.raw, "file type \(r.kind.rawValue.uppercased())") }
        if r.kind == .dng, let f = flags, f & 0x10000 != 0, let t = flagsText {
            c.add(.proRAW, "DNG with \(t) (bit 0x10000)")
        } else if r.kind == .dng, r.apple?.imageCaptureType == 1 {
            c.add(.proRAW, "DNG with Apple MakerNote 0x0014 ImageCaptureType = 1")
        }
        if let lens = r.camera.lensModel, lens.value.lowercasedContains("front") {
            c.add(.selfie, "LensModel '\(lens.value)' contains 'front' (\(lens.source))")
        }
        if c.burstIdentifier != nil {
            let why = r.apple?.burstUUID != nil ? "Apple MakerNote 0x000B BurstUUID=\(c.burstIdentifier!)" : "XMP GCamera:BurstID=\(c.burstIdentifier!)"
            c.add(.burst, why)
        }
        depthAndGainMap(r, &c)
        animation(r, &c)
        if !c.subtypes.contains(.photoPanorama) {
            if r.xmp?["GPano:ProjectionType"] != nil || r.xmp?["GPano:UsePanoramaViewer"]?.lowercased() == "true" {
                c.add(.panoramaLike, "XMP GPano (ProjectionType \(r.xmp?["GPano:ProjectionType"] ?? "-"))")
            } else if c.pixelWidth > 1000, c.pixelHeight > 0, Double(c.pixelWidth) / Double(c.pixelHeight) >= 2.5 {
                c.add(.panoramaLike, "wide aspect ratio \(c.pixelWidth)x\(c.pixelHeight) ≥ 2.5 (and wider than 1000 px)")
            }
        }
    }

    static func motionPhotoClaim(_ r: ProbeReport) -> String? {
        if r.xmp?["GCamera:MotionPhoto"] == "1" { return "XMP GCamera:MotionPhoto=1" }
        if r.xmp?["GCamera:MicroVideo"] == "1" { return "XMP GCamera:MicroVideo=1" }
        return nil
    }

    static func depthAndGainMap(_ r: ProbeReport, _ c: inout FileClassification) {
        let aux = r.heif?.auxiliaries ?? []
        if let a = aux.first(where: { $0.type.containsASCII("auxid:2") || $0.type.containsASCII(":depth") }) {
            c.add(.hasDepthData, "depth/disparity auxiliary image (HEIF auxC \(a.type))")
        } else if let t = r.xmp?["apdi:AuxiliaryImageType"], t == "disparity" || t == "depth" {
            c.add(.hasDepthData, "depth/disparity auxiliary image (XMP apdi:AuxiliaryImageType=\(t))")
        } else if r.xmp?["GDepth:Format"] != nil || r.xmp?["GDepth:Data"] != nil || r.xmp?["GDepth:Mime"] != nil {
            c.add(.hasDepthData, "depth/disparity auxiliary image (Google GDepth XMP)")
        }
        if let a = aux.first(where: { $0.type.hasSuffix("hdrgainmap") }) {
            c.add(.hasHDRGainMap, "HEIF aux \(a.type)")
        } else if let k = r.xmp?.fields.keys.filter({ $0.hasPrefix("HDRGainMap:") }).min() {  // the first in name order
            c.add(.hasHDRGainMap, "Apple XMP \(k)")
        } else if let k = r.xmp?.fields.keys.filter({ $0.hasPrefix("hdrgm:") }).min() {
            c.add(.hasHDRGainMap, "Google/ISO Ultra HDR XMP \(k)")
        } else if r.xmp?.directory.contains(where: { $0.semantic == "GainMap" }) == true {
            c.add(.hasHDRGainMap, "XMP Container:Directory item Semantic=GainMap")
        }
    }

    static func animation(_ r: ProbeReport, _ c: inout FileClassification) {
        var why: String?
        if let g = r.gif, g.frameCount > 1 { why = "GIF with \(g.frameCount) frames" }
        if let p = r.png, let n = p.animationFrames, n > 1 { why = "APNG acTL with \(n) frames" }
        if let w = r.webp, w.animated { why = "WebP ANIM chunk\(w.frameCount.map { " with \($0) frames" } ?? "")" }
        if let why {
            c.add(.animated, why)
            c.playbackStyle = .imageAnimated
            c.reasons.append(Reason("playbackStyle", "imageAnimated: \(why)"))
        }
    }

    // MARK: - Movies

    static func video(_ r: ProbeReport, _ c: inout FileClassification, name: String) {
        let qt = r.quickTime
        c.duration = qt?.durationSeconds ?? r.format?.durationSeconds ?? r.streams.first(where: { $0.type == "video" })?.durationSeconds
        let v = qt?.videoTrack
        let fps = v?.nominalFrameRate ?? r.streams.first(where: { $0.type == "video" })?.averageFrameRate
        c.nominalFrameRate = fps
        if c.lensModel == nil, let lens = qt?.trackValue("com.apple.quicktime.camera.lens_model")?.value.stringValue {
            c.lensModel = lens
        }

        if let fps, fps >= highFrameRateThreshold {
            let how = v?.nominalFrameRate != nil ? "stts \(v?.sampleCount ?? 0) samples / track duration" : "\(r.format?.reader ?? "libavformat") avg_frame_rate"
            c.add(.videoHighFrameRate, "videoHighFrameRate", "measured \(format(fps)) fps ≥ 85 (\(how))")
            let intent = qt?.movieValue("com.apple.quicktime.full-frame-rate-playback-intent")
            if let intent, intent.value.intValue == 1 {
                c.reasons.append(Reason("trait:slomo", "not slo-mo: \(intent.source) full-frame-rate-playback-intent = 1"))
            } else {
                let why = intent.map { "\($0.source) full-frame-rate-playback-intent = \($0.value)" } ?? "no full-frame-rate-playback-intent key"
                c.add(.slomo, "high frame rate and \(why)")
            }
        }
        if let mode = qt?.trackValue("com.apple.photos.captureMode"), mode.value.stringValue == "Time-lapse" {
            c.add(.videoTimelapse, "videoTimelapse", "\(mode.source) com.apple.photos.captureMode = \"Time-lapse\"")
        }
        let mebx = Set(qt?.tracks.flatMap(\.timedMetadataKeys) ?? [])
        if mebx.contains(where: { $0.hasSuffix("cinematic-video.rendering") }),
            mebx.contains(where: { $0.hasSuffix("cinematic-video.cinematography") })
        {
            c.add(.videoCinematic, "videoCinematic", "timed metadata lists cinematic-video.rendering and cinematic-video.cinematography")
        }
        if let sp = qt?.movieKeys.first(where: { $0.key.hasPrefix("com.apple.quicktime.spatial.") }) {
            c.add(.spatialMedia, "spatialMedia", "\(sp.source) \(sp.key) = \(sp.value)")
        }
        if isScreenRecordingName(name) {
            c.add(.videoScreenRecording, "videoScreenRecording", "file name '\(name)' matches an iOS screen-recording name (low confidence: no metadata marks it)")
            c.traits.insert(.screenRecordingByName)
        }
        if let lens = c.lensModel, lens.lowercasedContains("front") {
            c.add(.selfie, "lens '\(lens)' contains 'front'")
        }
    }

    /// `RPReplay_Final1589052817.MP4`, `ScreenRecording_05-10-2024 14-03-12_1.MP4`, `Screen Recording 2024-…`.
    public static func isScreenRecordingName(_ name: String) -> Bool {
        let n = name.lowercased()
        return n.hasPrefix("rpreplay_final") || n.hasPrefix("screenrecording_") || n.hasPrefix("screen recording ")
    }

    static func format(_ v: Double) -> String { String((v * 100).rounded() / 100) }
}

extension String {
    /// `contains(word)` for an ASCII `word`, by bytes first: text that holds the word as characters holds its
    /// bytes (a character equal to an ASCII one is that byte), so only a byte match is confirmed character by
    /// character (the word's last letter could carry a combining mark). The character search alone cost
    /// ~27k instructions a call, on every photo.
    func containsASCII(_ word: String) -> Bool {
        guard Self.bytes(of: self, contain: word, ignoringCase: false) else { return false }
        return contains(word)
    }

    /// `lowercased().contains(word)` for a lowercase ASCII `word` without `i` or `k`, by bytes first: no
    /// scalar beyond ASCII lowercases to another ASCII letter (only İ and the Kelvin sign lowercase to ASCII
    /// at all, to `i` and `k`), so text whose lowercase holds the word holds it in its bytes in some case.
    func lowercasedContains(_ word: String) -> Bool {
        if word.utf8.contains(UInt8(ascii: "i")) || word.utf8.contains(UInt8(ascii: "k")) { return lowercased().contains(word) }
        guard Self.bytes(of: self, contain: word, ignoringCase: true) else { return false }
        return lowercased().contains(word)
    }

    /// Whether `word`'s bytes occur in `text`'s, ASCII letters of `text` folded to lowercase when `ignoringCase`.
    static func bytes(of text: String, contain word: String, ignoringCase: Bool) -> Bool {
        var (text, word) = (text, word)
        return text.withUTF8 { t in
            word.withUTF8 { w in
                guard let first = w.first else { return true }
                guard t.count >= w.count else { return false }
                func fold(_ b: UInt8) -> UInt8 { ignoringCase && b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
                for start in 0...(t.count - w.count) where fold(t[start]) == first {
                    var k = 1
                    while k < w.count, fold(t[start + k]) == w[k] { k += 1 }
                    if k == w.count { return true }
                }
                return false
            }
        }
    }
}
