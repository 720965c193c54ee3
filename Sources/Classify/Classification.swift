import MediaProbe
import PhotoModel

/// What one file is, judged from its probe report: media type, subtypes, traits and playback style,
/// each with the reason that names its evidence. Pure data; no I/O.
public struct FileClassification: Sendable, Equatable {
    public enum Role: String, Sendable, Codable {
        case image, video, audio, adjustmentSidecar, xmpSidecar, takeoutJSON, unsupported
        /// Not media and not a sidecar we read (a README, `Thumbs.db`): skipped, never an orphan or an error.
        case notMedia
    }

    public var path: String
    public var kind: ContainerKind
    public var role: Role
    public var fileSize: UInt64
    public var mediaType: MediaType
    public var subtypes: MediaSubtypes = []
    public var traits: Set<Trait> = []
    public var playbackStyle: PlaybackStyle
    public var reasons: [Reason] = []

    /// Live Photo pairing key: the still's Apple ContentIdentifier or the movie's content.identifier.
    public var contentIdentifier: String?
    public var contentIdentifierSource: String?
    public var burstIdentifier: String?
    public var creationDate: AssetDate?
    public var creationDateSource: String?
    public var location: Location?
    public var locationSource: String?
    /// Display size (orientation, `irot` or track rotation applied).
    public var pixelWidth: Int = 0
    public var pixelHeight: Int = 0
    public var duration: Double?
    public var nominalFrameRate: Double?
    public var make: String?
    public var model: String?
    public var lensModel: String?
    /// An Android motion photo's embedded MP4.
    public var embeddedVideo: ResourceRange?
    /// Problems the probe met (copied for the orphan/error report).
    public var errors: [String] = []
    /// Sidecar contents, for sidecar roles: held out of line, since most files are not sidecars and a folder
    /// holds every file's judgement at once (inline, the two sidecar records were over half this value).
    public var adjustments: AdjustmentSidecar? {
        get { sidecar?.adjustments }
        set { sidecar = Sidecar(adjustments: newValue, takeout: takeout, xmp: xmp) }
    }
    public var takeout: TakeoutMetadata? {
        get { sidecar?.takeout }
        set { sidecar = Sidecar(adjustments: adjustments, takeout: newValue, xmp: xmp) }
    }
    public var xmp: XMPFacts? {
        get { sidecar?.xmp }
        set { sidecar = Sidecar(adjustments: adjustments, takeout: takeout, xmp: newValue) }
    }
    private var sidecar: Sidecar?

    /// A sidecar's contents (immutable: a change makes a new one, so copies of a judgement never share a change).
    private final class Sidecar: Sendable, Equatable {
        let adjustments: AdjustmentSidecar?
        let takeout: TakeoutMetadata?
        let xmp: XMPFacts?

        /// nil when there is nothing to hold.
        convenience init?(adjustments: AdjustmentSidecar?, takeout: TakeoutMetadata?, xmp: XMPFacts?) {
            guard adjustments != nil || takeout != nil || xmp != nil else { return nil }
            self.init(adjustments, takeout, xmp)
        }

        private init(_ adjustments: AdjustmentSidecar?, _ takeout: TakeoutMetadata?, _ xmp: XMPFacts?) {
            self.adjustments = adjustments
            self.takeout = takeout
            self.xmp = xmp
        }

        static func == (a: Sidecar, b: Sidecar) -> Bool { a.adjustments == b.adjustments && a.takeout == b.takeout && a.xmp == b.xmp }
    }
    /// File modification time (UTC): the creation date of last resort.
    public var fileModified: AssetDate?

    public init(path: String, kind: ContainerKind, role: Role, fileSize: UInt64, mediaType: MediaType) {
        self.path = path
        self.kind = kind
        self.role = role
        self.fileSize = fileSize
        self.mediaType = mediaType
        // Audio has no PhotoKit playback style of its own: unsupported, as PhotoKit reports for what it cannot show.
        self.playbackStyle = mediaType == .video ? .video : (mediaType == .image ? .image : .unsupported)
    }

    mutating func add(_ subtype: MediaSubtypes, _ name: String, _ evidence: String) {
        subtypes.insert(subtype)
        reasons.append(Reason(name, evidence))
    }

    mutating func add(_ trait: Trait, _ evidence: String) {
        traits.insert(trait)
        reasons.append(Reason("trait:\(trait.rawValue)", evidence))
    }
}
