/// Assets, resources and the judgement behind them.

/// Shoebox's own traits, for what PhotoKit has no subtype for.
public struct Trait: RawRepresentable, Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ raw: String) { self.rawValue = raw }

    public static let selfie = Trait("selfie")
    public static let raw = Trait("raw")
    public static let proRAW = Trait("proRAW")
    public static let animated = Trait("animated")
    public static let slomo = Trait("slomo")
    public static let burst = Trait("burst")
    public static let motionPhoto = Trait("motionPhoto")
    public static let motionPhotoClaimBroken = Trait("motionPhotoClaimBroken")
    public static let hasDepthData = Trait("hasDepthData")
    public static let hasHDRGainMap = Trait("hasHDRGainMap")
    public static let panoramaLike = Trait("panoramaLike")
    public static let edited = Trait("edited")
    public static let possibleRenderedSlomo = Trait("possibleRenderedSlomo")
    public static let screenRecordingByName = Trait("screenRecordingByName")

    public static func < (a: Trait, b: Trait) -> Bool { a.rawValue < b.rawValue }
    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

/// Why a judgement was made: the subject (a media type, a subtype, a trait, a pairing) and the evidence.
public struct Reason: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    /// `mediaType`, `photoHDR`, `trait:selfie`, `playbackStyle`, `pairedVideo`, `creationDate`, …
    public var subject: String
    /// The tag or box and its value, e.g. `EXIF 0xA401 CustomRendered = 3`.
    public var evidence: String

    public init(_ subject: String, _ evidence: String) {
        self.subject = subject
        self.evidence = evidence
    }

    public var description: String { "\(subject): \(evidence)" }
}

/// A date as a wall-clock time with an optional offset (seconds east of UTC).
public struct AssetDate: Sendable, Equatable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// `YYYY-MM-DDTHH:MM:SS[.fff]`.
    public var local: String
    public var offsetSeconds: Int?

    public init(local: String, offsetSeconds: Int?) {
        self.local = local
        self.offsetSeconds = offsetSeconds
    }

    public var description: String {
        guard let off = offsetSeconds else { return local }
        return local + Self.offsetSuffix(off)
    }

    /// `+hh:mm` or `-hh:mm` for an offset in seconds, as `description` appends it.
    public static func offsetSuffix(_ off: Int) -> String {
        let sign = off < 0 ? "-" : "+"
        let m = abs(off) / 60
        let hh = m / 60, mm = m % 60
        return sign + (hh < 10 ? "0" : "") + String(hh) + ":" + (mm < 10 ? "0" : "") + String(mm)
    }

    public static func < (a: AssetDate, b: AssetDate) -> Bool { a.local < b.local }

    public init(from decoder: any Decoder) throws {
        let s = try decoder.singleValueContainer().decode(String.self)
        guard let d = AssetDate(iso: s) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO date: \(s)"))
        }
        self = d
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    /// Parses `2023-03-08T12:31:05.059+05:30` (offset optional, `Z` allowed).
    public init?(iso s: String) {
        guard s.count >= 19 else { return nil }
        var body = s
        var offset: Int?
        if body.hasSuffix("Z") {
            body.removeLast()
            offset = 0
        } else if body.count > 19 {
            let tail = body.dropFirst(19)
            if let i = tail.lastIndex(where: { $0 == "+" || $0 == "-" }) {
                let off = String(body[i...])
                body = String(body[..<i])
                let digits = off.dropFirst().filter(\.isNumber).compactMap { Int(String($0)) }
                guard digits.count == 4 else { return nil }
                let v = (digits[0] * 10 + digits[1]) * 3600 + (digits[2] * 10 + digits[3]) * 60
                offset = off.hasPrefix("-") ? -v : v
            }
        }
        self.init(local: body, offsetSeconds: offset)
    }
}

/// `CLLocation`'s essentials.
public struct Location: Sendable, Equatable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?

    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }
}

/// A byte range inside a resource's file (an embedded motion-photo video).
public struct ResourceRange: Sendable, Equatable, Hashable, Codable {
    public var offset: UInt64
    public var length: UInt64

    public init(offset: UInt64, length: UInt64) {
        self.offset = offset
        self.length = length
    }
}

/// `PHAssetResource`: one file (or part of one) that makes up an asset.
public struct AssetResource: Sendable, Equatable, Hashable, Codable {
    public var type: AssetResourceType
    /// Path relative to the ingested root.
    public var path: String
    public var originalFilename: String
    public var uniformTypeIdentifier: String?
    public var fileSize: UInt64?
    /// For an embedded video: where it sits inside `path`.
    public var byteRange: ResourceRange?

    public init(
        type: AssetResourceType, path: String, originalFilename: String, uniformTypeIdentifier: String? = nil,
        fileSize: UInt64? = nil, byteRange: ResourceRange? = nil
    ) {
        self.type = type
        self.path = path
        self.originalFilename = originalFilename
        self.uniformTypeIdentifier = uniformTypeIdentifier
        self.fileSize = fileSize
        self.byteRange = byteRange
    }
}

/// `PHAsset` as Shoebox sees it: the judgement plus the identity and the resources.
public struct Asset: Sendable, Equatable, Codable {
    /// Stable key within one assembly (the primary resource's path); the catalog adds local identifiers.
    public var id: String
    public var mediaType: MediaType
    public var mediaSubtypes: MediaSubtypes
    public var traits: Set<Trait>
    public var playbackStyle: PlaybackStyle
    public var playbackVariation: PlaybackVariation
    public var creationDate: AssetDate?
    public var creationDateSource: String?
    public var location: Location?
    public var locationSource: String?
    public var pixelWidth: Int
    public var pixelHeight: Int
    public var duration: Double
    public var contentIdentifier: String?
    public var burstIdentifier: String?
    public var representsBurst: Bool
    public var burstSelectionTypes: BurstSelectionTypes
    public var hasAdjustments: Bool
    public var isFavorite: Bool
    public var isHidden: Bool
    public var resources: [AssetResource]
    public var make: String?
    public var model: String?
    public var lensModel: String?
    public var reasons: [Reason]

    public init(id: String, mediaType: MediaType) {
        self.id = id
        self.mediaType = mediaType
        mediaSubtypes = []
        traits = []
        playbackStyle = mediaType == .video ? .video : .image
        playbackVariation = .none
        pixelWidth = 0
        pixelHeight = 0
        duration = 0
        representsBurst = false
        burstSelectionTypes = []
        hasAdjustments = false
        isFavorite = false
        isHidden = false
        resources = []
        reasons = []
    }
}
