import Foundation
import PhotoModel

/// A field of `shoebox query --fields` (table and CSV columns), in the order `--help` lists them.
public enum AssetField: String, CaseIterable, Sendable {
    case filename, path, root, localIdentifier, cloudIdentifier, mediaType, mediaSubtypes, traits, playbackStyle
    case creationDate, creationDateSource, size, pixelWidth, pixelHeight, duration, fileSize, camera, make, model, lensModel
    case contentIdentifier, burstIdentifier, latitude, longitude, isFavorite, isHidden, hasAdjustments

    /// Whether the value needs the asset's resources (only the total size does).
    public var needsResources: Bool { self == .fileSize }

    /// The field's exact text, as CSV prints it (a table shows a few fields another way: sizes in bytes
    /// as `3.7 MB`, an undated asset's date with `~`). This is the one definition both the `StoredAsset`
    /// path and the row stream use.
    public func text<Source: AssetFieldSource>(of s: Source) -> String {
        switch self {
        case .filename:
            return PathText.fileName(s.path)
        case .path: return s.path
        case .root: return s.root
        case .localIdentifier: return s.localIdentifier
        case .cloudIdentifier: return s.cloudIdentifier
        case .mediaType: return s.mediaType.name
        case .mediaSubtypes: return s.mediaSubtypes.names.joined(separator: ",")
        case .traits: return s.sortedTraits.joined(separator: ",")
        case .playbackStyle: return s.playbackStyle.name
        case .creationDate: return s.creationDate?.description ?? ""
        // Where the date came from: tells a file's own date from the last resort of its modification time.
        case .creationDateSource: return s.creationDateSource ?? ""
        case .size: return "\(s.pixelWidth)x\(s.pixelHeight)"
        case .pixelWidth: return String(s.pixelWidth)
        case .pixelHeight: return String(s.pixelHeight)
        case .duration:
            let t = s.mediaType
            return t == .video || t == .audio ? String(format: "%.3f", s.duration) : ""
        case .fileSize: return s.totalFileSize.map { String($0) } ?? ""
        case .camera: return CameraName.display(make: s.make, model: s.model) ?? ""
        case .make: return s.make ?? ""
        case .model: return s.model ?? ""
        case .lensModel: return s.lensModel ?? ""
        case .contentIdentifier: return s.contentIdentifier ?? ""
        case .burstIdentifier: return s.burstIdentifier ?? ""
        case .latitude: return s.coordinates.map { String($0.latitude) } ?? ""
        case .longitude: return s.coordinates.map { String($0.longitude) } ?? ""
        case .isFavorite: return s.isFavorite ? "1" : "0"
        case .isHidden: return s.isHidden ? "1" : "0"
        case .hasAdjustments: return s.hasAdjustments ? "1" : "0"
        }
    }

    /// A CSV field: quoted when it holds a comma, quote or line break (compared as characters, so a
    /// `\r\n` pair is one character and does not count).
    public static func csv(_ s: String) -> String {
        // Most values hold none of the four bytes: those are as they are, without walking characters.
        guard s.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else { return s }
        return s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }

    /// Cells joined with commas, each quoted as `csv(_:)` does.
    public static func csvLine(_ cells: [String]) -> String { cells.map(csv).joined(separator: ",") }
}

/// What the fields of `AssetField` are computed from: a `StoredAsset`, or a row of the enumeration
/// statement (`AssetRowStream.swift`), read only for the fields asked for.
public protocol AssetFieldSource {
    /// The primary resource's path, relative to the root (`Asset.id`).
    var path: String { get }
    var root: String { get }
    var localIdentifier: String { get }
    var cloudIdentifier: String { get }
    var mediaType: MediaType { get }
    var mediaSubtypes: MediaSubtypes { get }
    /// Trait names, sorted.
    var sortedTraits: [String] { get }
    var playbackStyle: PlaybackStyle { get }
    var creationDate: AssetDate? { get }
    var creationDateSource: String? { get }
    var pixelWidth: Int { get }
    var pixelHeight: Int { get }
    var duration: Double { get }
    /// Bytes of every resource together; nil when no size is known.
    var totalFileSize: UInt64? { get }
    var make: String? { get }
    var model: String? { get }
    var lensModel: String? { get }
    var contentIdentifier: String? { get }
    var burstIdentifier: String? { get }
    var coordinates: (latitude: Double, longitude: Double)? { get }
    var isFavorite: Bool { get }
    var isHidden: Bool { get }
    var hasAdjustments: Bool { get }
}

extension StoredAsset: AssetFieldSource {
    public var path: String { asset.id }
    public var mediaType: MediaType { asset.mediaType }
    public var mediaSubtypes: MediaSubtypes { asset.mediaSubtypes }
    public var sortedTraits: [String] { asset.traits.map(\.rawValue).sorted() }
    public var playbackStyle: PlaybackStyle { asset.playbackStyle }
    public var creationDate: AssetDate? { asset.creationDate }
    public var creationDateSource: String? { asset.creationDateSource }
    public var pixelWidth: Int { asset.pixelWidth }
    public var pixelHeight: Int { asset.pixelHeight }
    public var duration: Double { asset.duration }
    public var totalFileSize: UInt64? { asset.totalFileSize }
    public var make: String? { asset.make }
    public var model: String? { asset.model }
    public var lensModel: String? { asset.lensModel }
    public var contentIdentifier: String? { asset.contentIdentifier }
    public var burstIdentifier: String? { asset.burstIdentifier }
    public var coordinates: (latitude: Double, longitude: Double)? { asset.location.map { ($0.latitude, $0.longitude) } }
    public var isFavorite: Bool { asset.isFavorite }
    public var isHidden: Bool { asset.isHidden }
    public var hasAdjustments: Bool { asset.hasAdjustments }
}
