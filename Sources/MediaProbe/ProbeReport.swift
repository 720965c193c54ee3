/// A value together with where in the file it was read.
///
/// `source` names the tag, box or segment (for example `EXIF 0xA401 CustomRendered (libexif)` or
/// `moov/trak[1]/meta/keys com.apple.photos.captureMode`), so that a later judgement can say why.
public struct Sourced<Value: Sendable & Equatable & Codable>: Sendable, Equatable, Codable {
    public var value: Value
    public var source: String

    public init(_ value: Value, _ source: String) {
        self.value = value
        self.source = source
    }
}

/// Everything one file says about itself: facts only, no judgement.
///
/// Every optional is `nil` when the file does not carry the fact. A file that cannot be read still
/// yields a report; its `issues` say what went wrong and at which stage.
public struct ProbeReport: Sendable, Equatable, Codable {
    /// The path as given to the prober.
    public var path: String
    public var fileSize: UInt64
    /// What the magic bytes say the file is.
    public var kind: ContainerKind
    /// The ISO-BMFF `ftyp` major brand (and compatible brands), when there is one.
    public var brands: [String] = []

    // Image geometry, as stored (no orientation applied).
    public var pixelWidth: Sourced<Int>?
    public var pixelHeight: Sourced<Int>?
    /// EXIF orientation 1…8.
    public var orientation: Sourced<Int>?

    public var dates = DateFacts()
    public var location: Sourced<GeoLocation>?
    public var camera = CameraFacts()
    public var exif: ExifFacts?
    public var apple: AppleMakerNote?
    public var quickTime: QuickTimeFacts?
    public var heif: HEIFFacts?
    public var jpeg: JPEGFacts?
    public var png: PNGFacts?
    public var gif: GIFFacts?
    public var webp: WebPFacts?
    /// Header facts of BMP, PSD, JPEG 2000, JPEG XL, ICO, TGA and Netpbm files.
    public var still: StillImageFacts?
    public var xmp: XMPFacts?
    /// Samsung SEFT trailer entries (JPEG).
    public var samsungTrailer: SamsungTrailer?
    /// An Android motion photo's embedded video, verified to start with an ISO-BMFF `ftyp`.
    public var embeddedVideo: EmbeddedVideo?
    /// Stream facts from libavformat.
    public var streams: [StreamFacts] = []
    /// Container-level facts from libavformat (duration, bit rate, format name).
    public var format: FormatFacts?
    /// Whether libheif could open and decode-check the primary image (HEIF only).
    public var heifDecodes: Sourced<Bool>?
    /// An AAE sidecar's contents.
    public var adjustments: AdjustmentSidecar?
    /// A Google Takeout JSON sidecar's contents.
    public var takeout: TakeoutMetadata?
    /// The file's modification time (UTC), the creation date of last resort.
    public var fileModified: FileDate?
    public var issues: [ProbeIssue] = []
    /// Set when the content is not a photo, video or sidecar we read (a README, `Thumbs.db`, an Office
    /// file, JSON that is not a Takeout sidecar): the file is skipped, which is not an error.
    public var notMedia: NotMedia?

    public init(path: String, fileSize: UInt64, kind: ContainerKind) {
        self.path = path
        self.fileSize = fileSize
        self.kind = kind
    }

    /// True when no issue is an error (a damaged file is still catalogued).
    public var isClean: Bool { !issues.contains { $0.severity == .error } }

    /// True when the primary image or track was found but its bytes are cut or inconsistent.
    public var isDamaged: Bool { issues.contains { $0.severity == .damaged } }

    mutating func warn(_ stage: ProbeStage, _ reason: String) {
        issues.append(ProbeIssue(severity: .warning, stage: stage, reason: reason))
    }

    mutating func fail(_ stage: ProbeStage, _ reason: String) {
        issues.append(ProbeIssue(severity: .error, stage: stage, reason: reason))
    }

    mutating func damage(_ stage: ProbeStage, _ reason: String) {
        issues.append(ProbeIssue(severity: .damaged, stage: stage, reason: reason))
    }
}

/// Why a file is not media: what it looks like (`category`) and the evidence.
public struct NotMedia: Sendable, Equatable, Codable {
    /// A short kind for counting: `text`, `json`, `document`, `system`, `archive`, `database`, `empty`, `other`.
    public var category: String
    public var reason: String

    /// The category of Shoebox's own output (a requests manifest): excluded, not counted as skipped.
    public static let shoebox = "shoebox"

    public init(category: String, reason: String) {
        self.category = category
        self.reason = reason
    }
}

/// One problem met while probing a file.
///
/// Severities: a `warning` changes nothing; `damaged` means the primary image or track was found but the
/// bytes are cut or inconsistent (no EOI, an extent or chunk past the end, a box running past its parent):
/// the file is still catalogued; an `error` means the file could not be catalogued at all.
public struct ProbeIssue: Sendable, Equatable, Codable, CustomStringConvertible {
    public enum Severity: String, Sendable, Codable { case warning, damaged, error }
    public var severity: Severity
    public var stage: ProbeStage
    public var reason: String

    public init(severity: Severity, stage: ProbeStage, reason: String) {
        self.severity = severity
        self.stage = stage
        self.reason = reason
    }

    public var description: String { "\(severity.rawValue) [\(stage.rawValue)] \(reason)" }
}

/// Where in the probe a problem happened.
public struct ProbeStage: RawRepresentable, Sendable, Equatable, Hashable, Codable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let open = ProbeStage(rawValue: "open")
    public static let sniff = ProbeStage(rawValue: "sniff")
    public static let bmff = ProbeStage(rawValue: "bmff")
    public static let quickTime = ProbeStage(rawValue: "quicktime")
    public static let heif = ProbeStage(rawValue: "heif")
    public static let jpeg = ProbeStage(rawValue: "jpeg")
    public static let png = ProbeStage(rawValue: "png")
    public static let gif = ProbeStage(rawValue: "gif")
    public static let webp = ProbeStage(rawValue: "webp")
    /// Still formats read from their headers (BMP, PSD, JPEG 2000, JPEG XL, ICO, TGA, Netpbm).
    public static let image = ProbeStage(rawValue: "image")
    /// RIFF headers read by our own reader (AVI hdrl/INFO).
    public static let riff = ProbeStage(rawValue: "riff")
    public static let tiff = ProbeStage(rawValue: "tiff")
    public static let exif = ProbeStage(rawValue: "exif")
    public static let makerNote = ProbeStage(rawValue: "makernote")
    public static let xmp = ProbeStage(rawValue: "xmp")
    public static let motionPhoto = ProbeStage(rawValue: "motionphoto")
    public static let libavformat = ProbeStage(rawValue: "libavformat")
    public static let libheif = ProbeStage(rawValue: "libheif")
    public static let sidecar = ProbeStage(rawValue: "sidecar")
}

/// A date as the file states it: local wall-clock time, with the offset when the file gives one.
///
/// `local` is `YYYY-MM-DDTHH:MM:SS` with an optional `.fff…` fraction; `offsetSeconds` is east of UTC.
public struct FileDate: Sendable, Equatable, Codable, CustomStringConvertible {
    public var local: String
    public var offsetSeconds: Int?

    public init(local: String, offsetSeconds: Int? = nil) {
        self.local = local
        self.offsetSeconds = offsetSeconds
    }

    /// ISO-8601 text, with `+hh:mm` when the offset is known.
    public var description: String {
        guard let off = offsetSeconds else { return local }
        return local + FileDate.formatOffset(off)
    }

    public static func formatOffset(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let m = abs(seconds) / 60
        return sign + twoDigits(m / 60) + ":" + twoDigits(m % 60)
    }

    static func twoDigits(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
}

/// All dates a file carries, each with its source.
public struct DateFacts: Sendable, Equatable, Codable {
    /// EXIF DateTimeOriginal (+ SubSecTimeOriginal, OffsetTimeOriginal).
    public var original: Sourced<FileDate>?
    /// EXIF DateTimeDigitized / CreateDate (+ SubSecTimeDigitized, OffsetTimeDigitized).
    public var digitized: Sourced<FileDate>?
    /// EXIF DateTime / ModifyDate (+ SubSecTime, OffsetTime).
    public var modified: Sourced<FileDate>?
    /// GPS date and time stamp, always UTC.
    public var gps: Sourced<FileDate>?
    /// `com.apple.quicktime.creationdate`: local time with offset.
    public var quickTimeCreation: Sourced<FileDate>?
    /// `mvhd` creation time: UTC (often rewritten on export).
    public var movieHeaderCreation: Sourced<FileDate>?
    /// AVCHD `MDPM` recording time from the H.264 SEI (MPEG-TS camcorder files).
    public var avchd: Sourced<FileDate>?
    /// XMP `photoshop:DateCreated` / `xmp:CreateDate` / `exif:DateTimeOriginal`.
    public var xmpCreation: Sourced<FileDate>?
    /// MP4/3GP user data `©day` or 3GPP `date` with a time: local time, usually with an offset.
    public var userDataCreation: Sourced<FileDate>?
    /// IPTC-IIM 2:55 DateCreated + 2:60 TimeCreated (JPEG APP13, TIFF 33723, PSD resources).
    public var iptcCreation: Sourced<FileDate>?

    public init() {}
}

public struct GeoLocation: Sendable, Equatable, Codable {
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?

    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }
}

public struct CameraFacts: Sendable, Equatable, Codable {
    public var make: Sourced<String>?
    public var model: Sourced<String>?
    public var software: Sourced<String>?
    public var lensMake: Sourced<String>?
    public var lensModel: Sourced<String>?

    public init() {}
}

/// Standard EXIF fields beyond dates, camera and GPS.
public struct ExifFacts: Sendable, Equatable, Codable {
    /// Where the EXIF block was found (APP1, HEIF item, PNG eXIf, TIFF header…).
    public var container: String
    public var customRendered: Sourced<Int>?
    public var userComment: Sourced<String>?
    public var imageUniqueID: Sourced<String>?
    public var exifPixelWidth: Sourced<Int>?
    public var exifPixelHeight: Sourced<Int>?
    public var imageDescription: Sourced<String>?
    public var focalLengthIn35mm: Sourced<Int>?
    /// Raw MakerNote bytes are parsed by our own reader; this records their size only.
    public var makerNoteSize: Int?

    public init(container: String) { self.container = container }
}

/// A byte range inside the probed file.
public struct ByteRange: Sendable, Equatable, Codable {
    public var offset: UInt64
    public var length: UInt64

    public init(offset: UInt64, length: UInt64) {
        self.offset = offset
        self.length = length
    }

    public var end: UInt64 { offset + length }
}

/// An embedded motion-photo video.
public struct EmbeddedVideo: Sendable, Equatable, Codable {
    public var range: ByteRange
    /// How the range was found (XMP Container directory, MicroVideoOffset, SEFT, `mpvd` box, scan).
    public var source: String
    /// Presentation timestamp of the still in the video, microseconds, when the file says.
    public var presentationTimestampUs: Int64?

    public init(range: ByteRange, source: String, presentationTimestampUs: Int64? = nil) {
        self.range = range
        self.source = source
        self.presentationTimestampUs = presentationTimestampUs
    }
}

/// One stream as libavformat sees it.
public struct StreamFacts: Sendable, Equatable, Codable {
    public var index: Int
    public var type: String
    public var codec: String?
    public var codecTag: String?
    public var width: Int?
    public var height: Int?
    public var bitRate: Int64?
    public var frameCount: Int64?
    /// `avg_frame_rate` as ffmpeg reports it.
    public var averageFrameRate: Double?
    /// `r_frame_rate`: a claim, not a measurement (see reference C7).
    public var claimedFrameRate: Double?
    public var durationSeconds: Double?
    public var rotation: Double?
    public var sampleRate: Int?
    public var channels: Int?

    public init(index: Int, type: String) {
        self.index = index
        self.type = type
    }
}

public struct FormatFacts: Sendable, Equatable, Codable {
    public var name: String
    public var durationSeconds: Double?
    public var bitRate: Int64?
    /// Container-level tags as ffmpeg exposes them (for cross-checking, not as truth).
    public var tags: [String: String]
    /// Which reader found these stream facts, when it was not libavformat (absent: libavformat).
    public var reader: String?

    public init(name: String, durationSeconds: Double?, bitRate: Int64?, tags: [String: String]) {
        self.name = name
        self.durationSeconds = durationSeconds
        self.bitRate = bitRate
        self.tags = tags
    }
}

extension FileDate {
    /// `YYYY-MM-DDTHH:MM:SS` for seconds since 1970, UTC (civil-from-days, no Foundation).
    public static func utcText(_ t: Int) -> String {
        let days = t >= 0 ? t / 86400 : (t - 86399) / 86400
        let secs = t - days * 86400
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        let two = FileDate.twoDigits
        var year = String(y)
        while year.count < 4 { year = "0" + year }
        return year + "-" + two(m) + "-" + two(d) + "T" + two(secs / 3600) + ":" + two(secs % 3600 / 60) + ":" + two(secs % 60)
    }
}
