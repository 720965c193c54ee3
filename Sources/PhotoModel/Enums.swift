/// PhotoKit's vocabulary as plain values, with PhotoKit's names and raw values (reference §4).

/// `PHAssetMediaType`.
public enum MediaType: Int, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case unknown = 0, image = 1, video = 2, audio = 3

    public var description: String { name }

    public var name: String {
        switch self {
        case .unknown: return "unknown"
        case .image: return "image"
        case .video: return "video"
        case .audio: return "audio"
        }
    }

    public init?(name: String) {
        guard let v = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = v
    }
}

/// `PHAssetMediaSubtype`: an option set with PhotoKit's bit values.
public struct MediaSubtypes: OptionSet, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let photoPanorama = MediaSubtypes(rawValue: 1 << 0)
    public static let photoHDR = MediaSubtypes(rawValue: 1 << 1)
    public static let photoScreenshot = MediaSubtypes(rawValue: 1 << 2)
    public static let photoLive = MediaSubtypes(rawValue: 1 << 3)
    public static let photoDepthEffect = MediaSubtypes(rawValue: 1 << 4)
    public static let photoAnimation = MediaSubtypes(rawValue: 1 << 6)
    public static let spatialMedia = MediaSubtypes(rawValue: 1 << 10)
    public static let videoStreamed = MediaSubtypes(rawValue: 1 << 16)
    public static let videoHighFrameRate = MediaSubtypes(rawValue: 1 << 17)
    public static let videoTimelapse = MediaSubtypes(rawValue: 1 << 18)
    public static let videoScreenRecording = MediaSubtypes(rawValue: 1 << 19)
    public static let videoCinematic = MediaSubtypes(rawValue: 1 << 21)

    /// Every named subtype in bit order, with PhotoKit's Swift name.
    public static let named: [(MediaSubtypes, String)] = [
        (.photoPanorama, "photoPanorama"), (.photoHDR, "photoHDR"), (.photoScreenshot, "photoScreenshot"),
        (.photoLive, "photoLive"), (.photoDepthEffect, "photoDepthEffect"), (.photoAnimation, "photoAnimation"),
        (.spatialMedia, "spatialMedia"), (.videoStreamed, "videoStreamed"), (.videoHighFrameRate, "videoHighFrameRate"),
        (.videoTimelapse, "videoTimelapse"), (.videoScreenRecording, "videoScreenRecording"),
        (.videoCinematic, "videoCinematic"),
    ]

    public var names: [String] { Self.named.filter { contains($0.0) }.map(\.1) }

    public init(names: [String]) {
        self = []
        for n in names { if let s = Self.named.first(where: { $0.1 == n }) { insert(s.0) } }
    }

    public var description: String { names.joined(separator: ",") }
}

/// `PHAssetPlaybackStyle`.
public enum PlaybackStyle: Int, Sendable, Codable, CaseIterable {
    case unsupported = 0, image = 1, imageAnimated = 2, livePhoto = 3, video = 4, videoLooping = 5

    public var name: String {
        switch self {
        case .unsupported: return "unsupported"
        case .image: return "image"
        case .imageAnimated: return "imageAnimated"
        case .livePhoto: return "livePhoto"
        case .video: return "video"
        case .videoLooping: return "videoLooping"
        }
    }

    public init?(name: String) {
        guard let v = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = v
    }
}

/// `PHAssetPlaybackVariation`.
public enum PlaybackVariation: Int, Sendable, Codable, CaseIterable {
    case none = 0, autoloop = 1, mirror = 2, longExposure = 3
}

/// `PHAssetBurstSelectionType`.
public struct BurstSelectionTypes: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let autoPick = BurstSelectionTypes(rawValue: 1 << 0)
    public static let userPick = BurstSelectionTypes(rawValue: 1 << 1)
}

/// `PHAssetSourceType`.
public struct SourceType: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let userLibrary = SourceType(rawValue: 1 << 0)
    public static let cloudShared = SourceType(rawValue: 1 << 1)
    public static let iTunesSynced = SourceType(rawValue: 1 << 2)
}

/// `PHAssetResourceType`.
public enum AssetResourceType: Int, Sendable, Codable, CaseIterable {
    case photo = 1, video = 2, audio = 3, alternatePhoto = 4, fullSizePhoto = 5, fullSizeVideo = 6
    case adjustmentData = 7, adjustmentBasePhoto = 8, pairedVideo = 9, fullSizePairedVideo = 10
    case adjustmentBasePairedVideo = 11, adjustmentBaseVideo = 12, photoProxy = 19

    public var name: String {
        switch self {
        case .photo: return "photo"
        case .video: return "video"
        case .audio: return "audio"
        case .alternatePhoto: return "alternatePhoto"
        case .fullSizePhoto: return "fullSizePhoto"
        case .fullSizeVideo: return "fullSizeVideo"
        case .adjustmentData: return "adjustmentData"
        case .adjustmentBasePhoto: return "adjustmentBasePhoto"
        case .pairedVideo: return "pairedVideo"
        case .fullSizePairedVideo: return "fullSizePairedVideo"
        case .adjustmentBasePairedVideo: return "adjustmentBasePairedVideo"
        case .adjustmentBaseVideo: return "adjustmentBaseVideo"
        case .photoProxy: return "photoProxy"
        }
    }

    public init?(name: String) {
        guard let v = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = v
    }
}

/// `PHAssetCollectionType`.
public enum AssetCollectionType: Int, Sendable, Codable, CaseIterable {
    case album = 1, smartAlbum = 2, moment = 3
}

/// `PHAssetCollectionSubtype`: a struct so that new values never break a `switch`.
public struct AssetCollectionSubtype: RawRepresentable, Sendable, Hashable, Codable {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let albumRegular = Self(rawValue: 2)
    public static let albumSyncedEvent = Self(rawValue: 3)
    public static let albumSyncedFaces = Self(rawValue: 4)
    public static let albumSyncedAlbum = Self(rawValue: 5)
    public static let albumImported = Self(rawValue: 6)
    public static let albumMyPhotoStream = Self(rawValue: 100)
    public static let albumCloudShared = Self(rawValue: 101)
    public static let smartAlbumGeneric = Self(rawValue: 200)
    public static let smartAlbumPanoramas = Self(rawValue: 201)
    public static let smartAlbumVideos = Self(rawValue: 202)
    public static let smartAlbumFavorites = Self(rawValue: 203)
    public static let smartAlbumTimelapses = Self(rawValue: 204)
    public static let smartAlbumAllHidden = Self(rawValue: 205)
    public static let smartAlbumRecentlyAdded = Self(rawValue: 206)
    public static let smartAlbumBursts = Self(rawValue: 207)
    public static let smartAlbumSlomoVideos = Self(rawValue: 208)
    public static let smartAlbumUserLibrary = Self(rawValue: 209)
    public static let smartAlbumSelfPortraits = Self(rawValue: 210)
    public static let smartAlbumScreenshots = Self(rawValue: 211)
    public static let smartAlbumDepthEffect = Self(rawValue: 212)
    public static let smartAlbumLivePhotos = Self(rawValue: 213)
    public static let smartAlbumAnimated = Self(rawValue: 214)
    public static let smartAlbumLongExposures = Self(rawValue: 215)
    public static let smartAlbumUnableToUpload = Self(rawValue: 216)
    public static let smartAlbumRAW = Self(rawValue: 217)
    public static let smartAlbumCinematic = Self(rawValue: 218)
    public static let smartAlbumSpatial = Self(rawValue: 219)
    public static let smartAlbumScreenRecordings = Self(rawValue: 220)
    /// Shoebox's own: PhotoKit has no public subtype for Recently Deleted.
    public static let smartAlbumRecentlyDeleted = Self(rawValue: 1_000_000_201)
    public static let any = Self(rawValue: Int.max)
}

/// `PHCollectionListType`.
public enum CollectionListType: Int, Sendable, Codable, CaseIterable {
    case momentList = 1, folder = 2, smartFolder = 3
}

/// `PHCollectionListSubtype`.
public struct CollectionListSubtype: RawRepresentable, Sendable, Hashable, Codable {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let momentListCluster = Self(rawValue: 1)
    public static let momentListYear = Self(rawValue: 2)
    public static let regularFolder = Self(rawValue: 100)
    public static let rootFolder = Self(rawValue: 101)
    public static let smartFolderEvents = Self(rawValue: 200)
    public static let smartFolderFaces = Self(rawValue: 201)
    public static let any = Self(rawValue: Int.max)
}
