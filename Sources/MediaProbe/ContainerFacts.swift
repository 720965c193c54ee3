/// Facts read by our own container readers. Each struct is filled by one reader under
/// `Containers/` or `Metadata/`; the prober only copies them into the report.

/// A typed metadata value from a QuickTime `ilst` (or an `mebx` sample).
public enum MetadataValue: Sendable, Equatable, Codable, CustomStringConvertible {
    case string(String)
    case int(Int64)
    case uint(UInt64)
    case float(Double)
    /// Binary data we do not decode; `type` is the well-known data type, `count` the byte count.
    case data(type: UInt32, count: Int)

    public var description: String {
        switch self {
        case .string(let s): return s
        case .int(let v): return String(v)
        case .uint(let v): return String(v)
        case .float(let v): return String(v)
        case .data(let type, let count): return "<\(count) bytes, type \(type)>"
        }
    }

    public var intValue: Int64? {
        switch self {
        case .int(let v): return v
        case .uint(let v): return v <= UInt64(Int64.max) ? Int64(v) : nil
        case .float(let v): return v.isFinite && v.rounded() == v ? Int64(v) : nil
        case .string(let s): return Int64(s.trimmingWhitespace())
        case .data: return nil
        }
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let v = try? c.decode(Int64.self) { self = .int(v); return }
        if let v = try? c.decode(UInt64.self) { self = .uint(v); return }
        if let v = try? c.decode(Double.self) { self = .float(v); return }
        if let v = try? c.decode(String.self) { self = .string(v); return }
        let d = try c.decode([String: Int].self)
        self = .data(type: UInt32(d["type"] ?? 0), count: d["count"] ?? 0)
    }

    /// Encodes as a plain JSON value (binary data as `{"type": T, "count": N}`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .int(let v): try c.encode(v)
        case .uint(let v): try c.encode(v)
        case .float(let v): try c.encode(v.isFinite ? v : 0)
        case .data(let type, let count): try c.encode(["type": Int(type), "count": count])
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .uint(let v): return Double(v)
        case .float(let v): return v
        case .string(let s): return Double(s.trimmingWhitespace())
        case .data: return nil
        }
    }
}

/// One key/value from a QuickTime `meta` box (`keys` + `ilst`).
public struct MetadataItem: Sendable, Equatable, Codable {
    /// The full key, for example `com.apple.quicktime.content.identifier`.
    public var key: String
    public var value: MetadataValue
    /// Box path the item came from, for example `moov/meta` or `moov/trak[1]/meta`.
    public var source: String

    public init(key: String, value: MetadataValue, source: String) {
        self.key = key
        self.value = value
        self.source = source
    }
}

/// One entry of a track's edit list (`elst`), in movie and media time units.
public struct EditListEntry: Sendable, Equatable, Codable {
    public var segmentDuration: UInt64
    /// -1 for an empty edit.
    public var mediaTime: Int64
    public var mediaRate: Double

    public init(segmentDuration: UInt64, mediaTime: Int64, mediaRate: Double) {
        self.segmentDuration = segmentDuration
        self.mediaTime = mediaTime
        self.mediaRate = mediaRate
    }
}

/// One `trak` of a QuickTime/MP4 movie.
public struct TrackFacts: Sendable, Equatable, Codable {
    public var trackID: UInt32
    /// `hdlr` handler type: `vide`, `soun`, `meta`, …
    public var handler: String?
    public var handlerName: String?
    /// First sample entry's four-character code (`hvc1`, `avc1`, `mebx`, `lpcm`, …).
    public var sampleEntry: String?
    /// `tkhd` width/height (16.16 fixed point, rounded).
    public var width: Int?
    public var height: Int?
    /// Sample-entry width/height for visual entries.
    public var codedWidth: Int?
    public var codedHeight: Int?
    /// Rotation in degrees clockwise from the `tkhd` matrix (0, 90, 180, 270).
    public var rotation: Int?
    public var mediaTimescale: UInt32?
    public var mediaDuration: UInt64?
    /// Total sample count from `stts`.
    public var sampleCount: UInt64?
    /// Total duration from `stts` in media units.
    public var sttsDuration: UInt64?
    /// `sampleCount / (duration / timescale)`: the measured average rate.
    public var nominalFrameRate: Double?
    public var editList: [EditListEntry] = []
    /// Track-level `meta` keys (lens model, capture mode, …).
    public var keys: [MetadataItem] = []
    /// Keys listed by an `mebx` sample description.
    public var timedMetadataKeys: [String] = []
    /// Track-level `udta` items (3GPP `loci`, …).
    public var userData: [MetadataItem] = []

    public init(trackID: UInt32) { self.trackID = trackID }

    public var durationSeconds: Double? {
        guard let ts = mediaTimescale, ts > 0, let d = mediaDuration else { return nil }
        return Double(d) / Double(ts)
    }
}

/// What the ISO-BMFF reader finds in a QuickTime or MP4 movie.
public struct QuickTimeFacts: Sendable, Equatable, Codable {
    public var movieTimescale: UInt32?
    public var movieDuration: UInt64?
    /// `mvhd` creation time (UTC).
    public var creationTime: FileDate?
    /// Movie-level `moov/meta` keys.
    public var movieKeys: [MetadataItem] = []
    /// `moov/udta` items such as `©xyz` (Android GPS) or `©mak`.
    public var userData: [MetadataItem] = []
    public var tracks: [TrackFacts] = []
    /// Live Photo still-image-time, seconds from the start of the movie.
    public var stillImageTime: Sourced<Double>?

    public init() {}

    public var durationSeconds: Double? {
        guard let ts = movieTimescale, ts > 0, let d = movieDuration else { return nil }
        return Double(d) / Double(ts)
    }

    /// The first movie-level value for a key.
    public func movieValue(_ key: String) -> MetadataItem? { movieKeys.first { $0.key == key } }

    /// The first track-level value for a key, searching every track.
    public func trackValue(_ key: String) -> MetadataItem? {
        for t in tracks { if let i = t.keys.first(where: { $0.key == key }) { return i } }
        return nil
    }

    public var videoTrack: TrackFacts? { tracks.first { $0.handler == "vide" } }
}

/// One HEIF item from `iinf`.
public struct HEIFItem: Sendable, Equatable, Codable {
    public var id: UInt32
    public var type: String
    public var name: String?
    public var contentType: String?
    public var hidden: Bool

    public init(id: UInt32, type: String, name: String? = nil, contentType: String? = nil, hidden: Bool = false) {
        self.id = id
        self.type = type
        self.name = name
        self.contentType = contentType
        self.hidden = hidden
    }
}

/// An auxiliary image and what it is (`auxC` URN).
public struct HEIFAuxiliary: Sendable, Equatable, Codable {
    public var itemID: UInt32
    public var type: String
    /// The item the `auxl` reference points to.
    public var forItem: UInt32?

    public init(itemID: UInt32, type: String, forItem: UInt32?) {
        self.itemID = itemID
        self.type = type
        self.forItem = forItem
    }
}

/// An entity group from `grpl` (for example `ster`, a stereo pair).
public struct HEIFEntityGroup: Sendable, Equatable, Codable {
    public var type: String
    public var groupID: UInt32
    public var entityIDs: [UInt32]

    public init(type: String, groupID: UInt32, entityIDs: [UInt32]) {
        self.type = type
        self.groupID = groupID
        self.entityIDs = entityIDs
    }
}

/// What the HEIF `meta` reader finds.
public struct HEIFFacts: Sendable, Equatable, Codable {
    public var primaryItemID: UInt32?
    public var items: [HEIFItem] = []
    /// Primary item `ispe`.
    public var width: Int?
    public var height: Int?
    /// Primary item `irot`: anticlockwise quarter turns 0…3.
    public var rotation: Int?
    /// Primary item `imir` axis (0 vertical, 1 horizontal).
    public var mirror: Int?
    public var auxiliaries: [HEIFAuxiliary] = []
    public var entityGroups: [HEIFEntityGroup] = []
    /// The Exif item's TIFF data: starts at the TIFF header (`II*\0`/`MM\0*`), past the item's 4-byte
    /// header-offset field and the bytes it skips (usually `Exif\0\0`).
    public var exifRange: ByteRange?
    public var xmpRange: ByteRange?
    /// Top-level `mpvd` box payload (Samsung/Google HEIC motion photo).
    public var motionPhotoVideo: ByteRange?
    /// `colr` nclx transfer characteristics of the primary item (16 = PQ, 18 = HLG).
    public var transferCharacteristics: Int?

    public init() {}
}

/// JPEG segments we care about.
public struct JPEGFacts: Sendable, Equatable, Codable {
    /// SOF dimensions (a height of 0 in the frame header is replaced by the DNL marker's line count).
    public var width: Int?
    public var height: Int?
    /// The height came from a DNL marker (FFDC) after the first scan.
    public var heightFromDNL: Bool = false
    /// APP13 `Photoshop 3.0` image resource blocks (IPTC 0x0404), after the signature.
    public var photoshopRange: ByteRange?
    /// APP1 Exif payload range (starting at `Exif\0\0`).
    public var exifRange: ByteRange?
    /// APP1 XMP packet range, and whether Extended XMP parts were joined.
    public var xmpRange: ByteRange?
    public var hasExtendedXMP: Bool = false
    /// MPF (APP2) image count and extra images (gain maps, depth, …).
    public var mpfImages: [MPFImage] = []
    /// Offset just after the first EOI of the primary image.
    public var endOfImage: UInt64?
    /// Offset of the first SOS marker: entropy-coded image data follows.
    public var scanOffset: UInt64?

    /// Whether the file has a JPEG body: a scan, or an EOI after the segments (data we could not walk).
    public var hasImageBody: Bool { scanOffset != nil || endOfImage != nil }
    /// Bytes after EOI that are not an MPF image, when any.
    public var trailer: ByteRange?

    public init() {}
}

public struct MPFImage: Sendable, Equatable, Codable {
    public var range: ByteRange
    public var typeCode: UInt32

    public init(range: ByteRange, typeCode: UInt32) {
        self.range = range
        self.typeCode = typeCode
    }
}

public struct PNGFacts: Sendable, Equatable, Codable {
    public var width: Int?
    public var height: Int?
    /// `acTL` frame count and plays (APNG).
    public var animationFrames: Int?
    public var animationPlays: Int?
    /// `eXIf` chunk range (raw TIFF).
    public var exifRange: ByteRange?
    /// tEXt/zTXt/iTXt keywords and their text (XMP is parsed separately).
    public var textChunks: [String: String] = [:]
    public var hasXMP: Bool = false

    public init() {}
}

public struct GIFFacts: Sendable, Equatable, Codable {
    public var width: Int
    public var height: Int
    public var frameCount: Int
    /// NETSCAPE2.0 loop count (0 = forever); nil when absent.
    public var loopCount: Int?
    /// Problems met while walking the blocks.
    public var warnings: [String] = []
    /// Signs that the file was cut (a truncated last frame, a missing trailer).
    public var damage: [String] = []

    public init(width: Int, height: Int, frameCount: Int, loopCount: Int?) {
        self.width = width
        self.height = height
        self.frameCount = frameCount
        self.loopCount = loopCount
    }
}

public struct WebPFacts: Sendable, Equatable, Codable {
    public var width: Int?
    public var height: Int?
    public var animated: Bool = false
    public var frameCount: Int?
    public var loopCount: Int?
    public var hasEXIF: Bool = false
    public var hasXMP: Bool = false
    public var exifRange: ByteRange?
    /// Sum of the ANMF frame durations, for animations.
    public var durationMilliseconds: Int?

    public init() {}
}

/// XMP fields Shoebox uses, keyed by canonical `Prefix:Name` (prefixes normalised by namespace URI:
/// `GCamera`, `Container`, `Item`, `GPano`, `exif`, `xmp`, `photoshop`, `tiff`, `dc`, `MicroVideo` is
/// under `GCamera`).
public struct XMPFacts: Sendable, Equatable, Codable {
    public var fields: [String: String] = [:]
    /// `Container:Directory` items in order.
    public var directory: [XMPDirectoryItem] = []
    /// Where the packet came from (JPEG APP1, HEIF item, PNG iTXt, sidecar…).
    public var source: String
    /// Fields left out of `fields` because their value is longer than `XMPReader.maxValueLength`
    /// (embedded base64 images, maker notes), with their length in bytes.
    public var oversizedFields: [String: Int] = [:]
    /// `<!ENTITY` declarations in a DOCTYPE (never expanded). XMP has no use for them: a packet that
    /// declares entities is the billion-laughs pattern, and the prober refuses its fields.
    public var declaredEntities = 0

    public init(source: String) { self.source = source }

    public subscript(_ key: String) -> String? { fields[key] }
}

public struct XMPDirectoryItem: Sendable, Equatable, Codable {
    public var mime: String?
    public var semantic: String?
    public var length: UInt64?
    public var padding: UInt64?

    public init(mime: String?, semantic: String?, length: UInt64?, padding: UInt64?) {
        self.mime = mime
        self.semantic = semantic
        self.length = length
        self.padding = padding
    }
}

/// Samsung's SEFT trailer at the end of a JPEG.
public struct SamsungTrailer: Sendable, Equatable, Codable {
    public struct Entry: Sendable, Equatable, Codable {
        public var type: UInt16
        public var name: String
        /// Payload (after the name) inside the file.
        public var data: ByteRange

        public init(type: UInt16, name: String, data: ByteRange) {
            self.type = type
            self.name = name
            self.data = data
        }
    }

    public var entries: [Entry] = []
    /// The motion-photo MP4: the `MotionPhoto_Data` payload, or the range its `mpv2` form points to.
    public var motionPhotoVideo: ByteRange?
    /// Entries skipped because they point outside the file or have a bad header.
    public var warnings: [String] = []

    public init() {}
}

/// The Apple maker note ("Apple iOS"), parsed from raw bytes (reference §1.1).
///
/// In JSON (probe reports, stored facts) the tags are an object keyed by name — `"ContentIdentifier"`,
/// `"BurstUUID"`, `"HDRImageType"`… (exiftool's names, except 0x0011 which PhotoKit calls
/// ContentIdentifier and exiftool MediaGroupUUID); a tag without a name is `"0x002B"`. Values are plain
/// JSON: a number, an array of numbers, a string, or `{"dataLength": N}` for an undecoded blob.
public struct AppleMakerNote: Sendable, Equatable, Codable {
    public enum Value: Sendable, Equatable, CustomStringConvertible {
        case int(Int64)
        case ints([Int64])
        case rational(Double)
        case rationals([Double])
        case string(String)
        case data(Int)

        public var description: String {
            switch self {
            case .int(let v): return String(v)
            case .ints(let v): return v.map(String.init).joined(separator: " ")
            case .rational(let v): return String(v)
            case .rationals(let v): return v.map { String($0) }.joined(separator: " ")
            case .string(let s): return s
            case .data(let n): return "<\(n) bytes>"
            }
        }

        public var intValue: Int64? {
            switch self {
            case .int(let v): return v
            case .ints(let v): return v.first
            default: return nil
            }
        }
    }

    public var version: Int
    public var bigEndian: Bool
    /// Tag → value, every tag in the IFD.
    public var entries: [UInt16: Value] = [:]
    /// RunTime (0x0003) CMTime, when its binary plist decodes.
    public var runTime: RunTime?

    public struct RunTime: Sendable, Equatable, Codable {
        public var value: Int64
        public var timescale: Int64
        public var flags: Int64
        public var epoch: Int64

        public init(value: Int64, timescale: Int64, flags: Int64, epoch: Int64) {
            self.value = value
            self.timescale = timescale
            self.flags = flags
            self.epoch = epoch
        }
    }

    public init(version: Int, bigEndian: Bool) {
        self.version = version
        self.bigEndian = bigEndian
    }

    public static let tagRunTime: UInt16 = 0x0003
    public static let tagAccelerationVector: UInt16 = 0x0008
    public static let tagHDRImageType: UInt16 = 0x000A
    public static let tagBurstUUID: UInt16 = 0x000B
    public static let tagContentIdentifier: UInt16 = 0x0011
    public static let tagImageCaptureType: UInt16 = 0x0014
    public static let tagImageUniqueID: UInt16 = 0x0015
    public static let tagLivePhotoVideoIndex: UInt16 = 0x0017
    public static let tagImageProcessingFlags: UInt16 = 0x0019
    public static let tagQualityHint: UInt16 = 0x001A
    public static let tagCameraType: UInt16 = 0x002E

    public func string(_ tag: UInt16) -> String? {
        if case .string(let s)? = entries[tag] { return s }
        return nil
    }

    public func int(_ tag: UInt16) -> Int64? { entries[tag]?.intValue }

    /// Tag names in JSON; the tags Shoebox reads have constants above.
    public static let tagNames: [UInt16: String] = [
        0x0001: "MakerNoteVersion", 0x0002: "AEMatrix", 0x0003: "RunTime", 0x0004: "AEStable", 0x0005: "AETarget",
        0x0006: "AEAverage", 0x0007: "AFStable", 0x0008: "AccelerationVector", 0x000A: "HDRImageType",
        0x000B: "BurstUUID", 0x000C: "FocusDistanceRange", 0x000F: "OISMode", 0x0011: "ContentIdentifier",
        0x0014: "ImageCaptureType", 0x0015: "ImageUniqueID", 0x0017: "LivePhotoVideoIndex",
        0x0019: "ImageProcessingFlags", 0x001A: "QualityHint", 0x001D: "LuminanceNoiseAmplitude",
        0x0020: "ImageCaptureRequestID", 0x0021: "HDRHeadroom", 0x0025: "SceneFlags", 0x0026: "SignalToNoiseRatioType",
        0x0027: "SignalToNoiseRatio", 0x002E: "CameraType", 0x0030: "HDRGain", 0x0038: "AFMeasuredDepth",
        0x0040: "SemanticStyle", 0x0041: "SemanticStyleRenderingVer", 0x0042: "SemanticStylePreset",
        0x0045: "FrontFacingCamera",
    ]
    static let tagsByName: [String: UInt16] = Dictionary(uniqueKeysWithValues: tagNames.map { ($1, $0) })

    /// Where a tag's key sorts among all keys in byte order: unnamed tags (`0x…`, digits before letters) by
    /// number first, then named ones by name. Sorting by this orders entries as sorting their keys would,
    /// without comparing strings.
    public static func keyOrder(_ tag: UInt16) -> Int {
        if let rank = nameRanks[tag] { return 0x1_0000 + rank }
        return Int(tag)
    }
    static let nameRanks: [UInt16: Int] = Dictionary(
        uniqueKeysWithValues: tagNames.sorted { $0.value.utf8.lexicographicallyPrecedes($1.value.utf8) }.enumerated().map { ($1.key, $0) })

    /// The JSON key of a tag: its name, or `0x002B`.
    public static func key(_ tag: UInt16) -> String {
        if let name = tagNames[tag] { return name }
        let hex = String(tag, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    /// The tag of a JSON key (a name or `0x…`); nil for anything else.
    public static func tag(_ key: String) -> UInt16? {
        if let t = tagsByName[key] { return t }
        guard key.hasPrefix("0x") || key.hasPrefix("0X") else { return nil }
        return UInt16(key.dropFirst(2), radix: 16)
    }

    public var contentIdentifier: String? { string(Self.tagContentIdentifier) }
    public var burstUUID: String? { string(Self.tagBurstUUID) }
    public var imageUniqueID: String? { string(Self.tagImageUniqueID) }
    public var hdrImageType: Int64? { int(Self.tagHDRImageType) }
    public var imageCaptureType: Int64? { int(Self.tagImageCaptureType) }
    public var imageProcessingFlags: Int64? { int(Self.tagImageProcessingFlags) }
    public var cameraType: Int64? { int(Self.tagCameraType) }
    public var livePhotoVideoIndex: Int64? { int(Self.tagLivePhotoVideoIndex) }

    private enum CodingKeys: String, CodingKey { case version, bigEndian, entries, runTime }

    struct TagKey: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decode(Int.self, forKey: .version)
        bigEndian = try c.decode(Bool.self, forKey: .bigEndian)
        runTime = try c.decodeIfPresent(RunTime.self, forKey: .runTime)
        if let named = try? c.nestedContainer(keyedBy: TagKey.self, forKey: .entries) {
            for k in named.allKeys {
                guard let tag = Self.tag(k.stringValue) else { continue }
                entries[tag] = try named.decode(Value.self, forKey: k)
            }
        } else if var legacy = try? c.nestedUnkeyedContainer(forKey: .entries) {
            // Facts stored before the tags had names: [tag, value, tag, value…] with Swift's enum coding.
            while !legacy.isAtEnd {
                let tag = try legacy.decode(UInt16.self)
                entries[tag] = try legacy.decode(LegacyValue.self).value
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(version, forKey: .version)
        try c.encode(bigEndian, forKey: .bigEndian)
        try c.encodeIfPresent(runTime, forKey: .runTime)
        var named = c.nestedContainer(keyedBy: TagKey.self, forKey: .entries)
        for tag in entries.keys.sorted() { try named.encode(entries[tag], forKey: TagKey(stringValue: Self.key(tag))) }
    }

    /// Swift's synthesized enum coding, as facts of probe version 1 stored it.
    private enum LegacyValue: Decodable {
        case int(Int64), ints([Int64]), rational(Double), rationals([Double]), string(String), data(Int)
        var value: Value {
            switch self {
            case .int(let v): .int(v)
            case .ints(let v): .ints(v)
            case .rational(let v): .rational(v)
            case .rationals(let v): .rationals(v)
            case .string(let v): .string(v)
            case .data(let v): .data(v)
            }
        }
    }
}

/// A maker-note value as plain JSON: numbers, arrays of numbers, a string, `{"dataLength": N}`. A whole
/// number decodes as an integer (a rational tag whose value is whole reads back as `.int`).
extension AppleMakerNote.Value: Codable {
    private enum BlobKey: String, CodingKey { case dataLength }

    public init(from decoder: any Decoder) throws {
        if let blob = try? decoder.container(keyedBy: BlobKey.self), let n = try? blob.decode(Int.self, forKey: .dataLength) {
            self = .data(n)
            return
        }
        let c = try decoder.singleValueContainer()
        if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let i = try? c.decode(Int64.self) {
            self = .int(i)
        } else if let d = try? c.decode(Double.self) {
            self = .rational(d)
        } else if let a = try? c.decode([Int64].self) {
            self = .ints(a)
        } else {
            self = .rationals(try c.decode([Double].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .data(let n):
            var c = encoder.container(keyedBy: BlobKey.self)
            try c.encode(n, forKey: .dataLength)
        case .int(let v): var c = encoder.singleValueContainer(); try c.encode(v)
        case .ints(let v): var c = encoder.singleValueContainer(); try c.encode(v)
        case .rational(let v): var c = encoder.singleValueContainer(); try c.encode(v)
        case .rationals(let v): var c = encoder.singleValueContainer(); try c.encode(v)
        case .string(let v): var c = encoder.singleValueContainer(); try c.encode(v)
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        // Nothing to trim when both ends are printable ASCII (most values): no character walk.
        if let f = utf8.first, let l = utf8.last, f > 0x20, f < 0x7F, l > 0x20, l < 0x7F { return self }
        var s = Substring(self)
        while let f = s.first, f.isWhitespace || f == "\0" { s.removeFirst() }
        while let l = s.last, l.isWhitespace || l == "\0" { s.removeLast() }
        return String(s)
    }
}
