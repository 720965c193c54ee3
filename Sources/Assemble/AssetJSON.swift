import PhotoModel

/// The stable JSON shape of an asset, field for field as `corpus/assets.json` (other tools read it):
/// `mediaType`, `mediaSubtypes`, `traits`, `playbackStyle`, `creationDate`, `location`, `pixelWidth`,
/// `pixelHeight`, `duration`, `contentIdentifier`, `burstIdentifier`, `hasAdjustments`, `resources` as
/// `{type, path}` relative to the root, `make`, `model`, `lensModel`, plus `reasons`. Absent values are
/// written as `null`, never left out.
public struct AssetJSON: Encodable, Sendable {
    public let a: AssembledAsset

    public init(_ a: AssembledAsset) { self.a = a }

    enum Key: String, CodingKey {
        case id, mediaType, mediaSubtypes, traits, playbackStyle, playbackVariation, creationDate, creationDateSource
        case location, locationSource, pixelWidth, pixelHeight, duration, pairedVideoDuration, contentIdentifier
        case burstIdentifier, hasAdjustments, isFavorite, isHidden, resources, metadataSources, embeddedVideo
        case motionPhoto, pairingConfidence, make, model, lensModel, reasons
    }

    struct Resource: Encodable {
        let type: String
        let path: String
        let originalFilename: String
        let uniformTypeIdentifier: String?
        let fileSize: UInt64?
    }

    struct Loc: Encodable {
        let latitude: Double
        let longitude: Double
        let altitude: Double?

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(latitude, forKey: .latitude)
            try c.encode(longitude, forKey: .longitude)
            try c.encode(altitude, forKey: .altitude)
        }

        enum CodingKeys: String, CodingKey { case latitude, longitude, altitude }
    }

    public func encode(to encoder: any Encoder) throws {
        let x = a.asset
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(x.id, forKey: .id)
        try c.encode(x.mediaType.name, forKey: .mediaType)
        try c.encode(x.mediaSubtypes.names, forKey: .mediaSubtypes)
        try c.encode(x.traits.map(\.rawValue).sorted(), forKey: .traits)
        try c.encode(x.playbackStyle.name, forKey: .playbackStyle)
        try c.encode(String(describing: x.playbackVariation), forKey: .playbackVariation)
        try c.encode(x.creationDate?.description, forKey: .creationDate)
        try c.encode(x.creationDateSource, forKey: .creationDateSource)
        try c.encode(x.location.map { Loc(latitude: $0.latitude, longitude: $0.longitude, altitude: $0.altitude) }, forKey: .location)
        try c.encode(x.locationSource, forKey: .locationSource)
        try c.encode(x.pixelWidth, forKey: .pixelWidth)
        try c.encode(x.pixelHeight, forKey: .pixelHeight)
        try c.encode(x.mediaType == .video || x.mediaType == .audio ? x.duration : nil, forKey: .duration)
        try c.encode(a.pairedVideoDuration, forKey: .pairedVideoDuration)
        try c.encode(x.contentIdentifier, forKey: .contentIdentifier)
        try c.encode(x.burstIdentifier, forKey: .burstIdentifier)
        try c.encode(x.hasAdjustments, forKey: .hasAdjustments)
        try c.encode(x.isFavorite, forKey: .isFavorite)
        try c.encode(x.isHidden, forKey: .isHidden)
        try c.encode(
            x.resources.map {
                Resource(type: $0.type.name, path: $0.path, originalFilename: $0.originalFilename, uniformTypeIdentifier: $0.uniformTypeIdentifier, fileSize: $0.fileSize)
            }, forKey: .resources)
        try c.encode(a.metadataSources, forKey: .metadataSources)
        try c.encode(a.embeddedVideo.map { ["offset": $0.offset, "length": $0.length] }, forKey: .embeddedVideo)
        try c.encode(x.traits.contains(.motionPhoto), forKey: .motionPhoto)
        try c.encode(a.pairingConfidence, forKey: .pairingConfidence)
        try c.encode(x.make, forKey: .make)
        try c.encode(x.model, forKey: .model)
        try c.encode(x.lensModel, forKey: .lensModel)
        try c.encode(x.reasons.map(\.description), forKey: .reasons)
    }
}
