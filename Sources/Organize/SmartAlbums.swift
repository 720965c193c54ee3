import PhotoModel

/// A smart album as a saved predicate (`Pipelines/smart-albums.yml`).
public struct SmartAlbumDefinition: Sendable, Equatable {
    /// Which assets a smart album looks at before its predicate.
    public enum Scope: String, Sendable, Equatable, CaseIterable {
        /// Not hidden, not in Recently Deleted (every album except the two below, as in Photos).
        case library
        /// Hidden and not deleted (All Hidden).
        case hidden
        /// In Recently Deleted.
        case deleted
    }

    public var subtype: AssetCollectionSubtype
    /// PhotoKit's Swift name of the subtype (`smartAlbumPanoramas`).
    public var name: String
    public var title: String
    public var scope: Scope
    /// NSPredicate-subset text; `%@` stands for the next of `arguments`.
    public var predicate: String
    /// `now - 30 days` for Recently Added; dates as `YYYY-MM-DD` for user albums.
    public var arguments: [String]

    public init(subtype: AssetCollectionSubtype, name: String, title: String, scope: Scope = .library, predicate: String, arguments: [String] = []) {
        self.subtype = subtype
        self.name = name
        self.title = title
        self.scope = scope
        self.predicate = predicate
        self.arguments = arguments
    }

    /// `UUID/L0/040`, stable per subtype (user albums: per title).
    public var localIdentifier: String {
        StableIdentifier.collection(subtype == .smartAlbumGeneric ? "smartAlbum:user:" + title : "smartAlbum:\(subtype.rawValue)")
    }
}

/// Facts about an asset that live in the catalog rather than in `Asset`.
public struct CatalogState: Sendable, Equatable {
    /// When the asset entered the catalog, UTC seconds since 1970.
    public var addedDate: Double?
    public var isTrashed: Bool
    public init(addedDate: Double? = nil, isTrashed: Bool = false) {
        self.addedDate = addedDate
        self.isTrashed = isTrashed
    }
}

/// PhotoKit's built-in smart albums (subtypes 201–220 without 216 Unable to Upload, which needs iCloud,
/// plus Shoebox's Recently Deleted) and a Swift evaluator for them. The predicate texts are what the
/// query language will evaluate once it exists; until then `contains` is the reference and the tests
/// check that it and `Pipelines/smart-albums.yml` agree with this table.
public enum SmartAlbums {
    public static let recentlyAddedWindow = 30 * 86400.0

    public static let builtIn: [SmartAlbumDefinition] = [
        .init(subtype: .smartAlbumPanoramas, name: "smartAlbumPanoramas", title: "Panoramas", predicate: "mediaSubtypes CONTAINS photoPanorama"),
        .init(subtype: .smartAlbumVideos, name: "smartAlbumVideos", title: "Videos", predicate: "mediaType == video"),
        .init(subtype: .smartAlbumFavorites, name: "smartAlbumFavorites", title: "Favorites", predicate: "isFavorite == YES"),
        .init(subtype: .smartAlbumTimelapses, name: "smartAlbumTimelapses", title: "Time-lapse", predicate: "mediaSubtypes CONTAINS videoTimelapse"),
        .init(subtype: .smartAlbumAllHidden, name: "smartAlbumAllHidden", title: "Hidden", scope: .hidden, predicate: "isHidden == YES"),
        .init(subtype: .smartAlbumRecentlyAdded, name: "smartAlbumRecentlyAdded", title: "Recently Added", predicate: "addedDate >= %@", arguments: ["now - 30 days"]),
        .init(subtype: .smartAlbumBursts, name: "smartAlbumBursts", title: "Bursts", predicate: "burstIdentifier != nil"),
        .init(subtype: .smartAlbumSlomoVideos, name: "smartAlbumSlomoVideos", title: "Slo-mo", predicate: "mediaSubtypes CONTAINS videoHighFrameRate AND traits CONTAINS slomo"),
        .init(subtype: .smartAlbumUserLibrary, name: "smartAlbumUserLibrary", title: "Recents", predicate: "TRUEPREDICATE"),
        .init(subtype: .smartAlbumSelfPortraits, name: "smartAlbumSelfPortraits", title: "Selfies", predicate: "traits CONTAINS selfie"),
        .init(subtype: .smartAlbumScreenshots, name: "smartAlbumScreenshots", title: "Screenshots", predicate: "mediaSubtypes CONTAINS photoScreenshot"),
        .init(subtype: .smartAlbumDepthEffect, name: "smartAlbumDepthEffect", title: "Portrait", predicate: "mediaSubtypes CONTAINS photoDepthEffect"),
        .init(subtype: .smartAlbumLivePhotos, name: "smartAlbumLivePhotos", title: "Live Photos", predicate: "mediaSubtypes CONTAINS photoLive"),
        .init(subtype: .smartAlbumAnimated, name: "smartAlbumAnimated", title: "Animated", predicate: "playbackStyle == imageAnimated OR mediaSubtypes CONTAINS photoAnimation"),
        .init(subtype: .smartAlbumLongExposures, name: "smartAlbumLongExposures", title: "Long Exposure", predicate: "playbackVariation == longExposure"),
        .init(subtype: .smartAlbumRAW, name: "smartAlbumRAW", title: "RAW", predicate: "traits CONTAINS raw"),
        .init(subtype: .smartAlbumCinematic, name: "smartAlbumCinematic", title: "Cinematic", predicate: "mediaSubtypes CONTAINS videoCinematic"),
        .init(subtype: .smartAlbumSpatial, name: "smartAlbumSpatial", title: "Spatial", predicate: "mediaSubtypes CONTAINS spatialMedia"),
        .init(subtype: .smartAlbumScreenRecordings, name: "smartAlbumScreenRecordings", title: "Screen Recordings", predicate: "mediaSubtypes CONTAINS videoScreenRecording"),
        .init(subtype: .smartAlbumRecentlyDeleted, name: "smartAlbumRecentlyDeleted", title: "Recently Deleted", scope: .deleted, predicate: "isTrashed == YES"),
    ]

    public static func definition(_ subtype: AssetCollectionSubtype) -> SmartAlbumDefinition? {
        builtIn.first { $0.subtype == subtype }
    }

    /// Whether a built-in smart album holds `asset` (`now` in UTC seconds since 1970). A user-defined album
    /// (subtype `smartAlbumGeneric`) returns false until the query language can evaluate its predicate.
    /// Burst frames other than the representative are in the album; hiding them is the fetch's job
    /// (`BurstVisibility`), as in PhotoKit.
    public static func contains(_ album: SmartAlbumDefinition, _ asset: Asset, now: Double, state: CatalogState = CatalogState()) -> Bool {
        switch album.scope {
        case .library: if asset.isHidden || state.isTrashed { return false }
        case .hidden: if !asset.isHidden || state.isTrashed { return false }
        case .deleted: if !state.isTrashed { return false }
        }
        let s = asset.mediaSubtypes, t = asset.traits
        switch album.subtype {
        case .smartAlbumPanoramas: return s.contains(.photoPanorama)
        case .smartAlbumVideos: return asset.mediaType == .video
        case .smartAlbumFavorites: return asset.isFavorite
        case .smartAlbumTimelapses: return s.contains(.videoTimelapse)
        case .smartAlbumAllHidden: return asset.isHidden
        case .smartAlbumRecentlyAdded: return state.addedDate.map { $0 >= now - recentlyAddedWindow } ?? false
        case .smartAlbumBursts: return asset.burstIdentifier != nil
        case .smartAlbumSlomoVideos: return s.contains(.videoHighFrameRate) && t.contains(.slomo)
        case .smartAlbumUserLibrary: return true
        case .smartAlbumSelfPortraits: return t.contains(.selfie)
        case .smartAlbumScreenshots: return s.contains(.photoScreenshot)
        case .smartAlbumDepthEffect: return s.contains(.photoDepthEffect)
        case .smartAlbumLivePhotos: return s.contains(.photoLive)
        case .smartAlbumAnimated: return asset.playbackStyle == .imageAnimated || s.contains(.photoAnimation)
        case .smartAlbumLongExposures: return asset.playbackVariation == .longExposure
        case .smartAlbumRAW: return t.contains(.raw)
        case .smartAlbumCinematic: return s.contains(.videoCinematic)
        case .smartAlbumSpatial: return s.contains(.spatialMedia)
        case .smartAlbumScreenRecordings: return s.contains(.videoScreenRecording)
        case .smartAlbumRecentlyDeleted: return state.isTrashed
        default: return false
        }
    }

    /// Member ids of a built-in album, in input order; `includeAllBurstAssets` as in `PHFetchOptions`.
    public static func members(
        of album: SmartAlbumDefinition, in assets: [Asset], now: Double, states: [String: CatalogState] = [:],
        includeAllBurstAssets: Bool = false
    ) -> [String] {
        assets.filter {
            BurstVisibility.isVisible($0, includeAllBurstAssets: includeAllBurstAssets)
                && contains(album, $0, now: now, state: states[$0.id] ?? CatalogState())
        }.map(\.id)
    }
}
