import Foundation
import PhotoModel
import TestSupport

/// `assets.json` entries as `Asset` values (only the fields organizing looks at), plus the raw dictionaries.
enum CorpusAssets {
    static func load() throws -> [(asset: Asset, raw: [String: Any])] {
        try GroundTruth.load().assets.map { t in (asset(t), t) }
    }

    static func asset(_ t: [String: Any]) -> Asset {
        var a = Asset(id: t["id"] as? String ?? "", mediaType: MediaType(name: t["mediaType"] as? String ?? "") ?? .unknown)
        a.mediaSubtypes = MediaSubtypes(names: t["mediaSubtypes"] as? [String] ?? [])
        a.traits = Set((t["traits"] as? [String] ?? []).map(Trait.init(rawValue:)))
        a.playbackStyle = PlaybackStyle(name: t["playbackStyle"] as? String ?? "") ?? .unsupported
        if let v = t["playbackVariation"] as? String {
            a.playbackVariation = ["none": .none, "autoloop": .autoloop, "mirror": .mirror, "longExposure": .longExposure][v] ?? .none
        }
        a.creationDate = (t["creationDate"] as? String).flatMap(AssetDate.init(iso:))
        if let l = t["location"] as? [String: Any], let lat = l["latitude"] as? Double, let lon = l["longitude"] as? Double {
            a.location = Location(latitude: lat, longitude: lon)
        }
        a.burstIdentifier = t["burstIdentifier"] as? String
        a.representsBurst = t["representsBurst"] as? Bool ?? false
        var sel: BurstSelectionTypes = []
        for s in t["burstSelectionTypes"] as? [String] ?? [] {
            if s == "autoPick" { sel.insert(.autoPick) }
            if s == "userPick" { sel.insert(.userPick) }
        }
        a.burstSelectionTypes = sel
        a.isFavorite = t["favorite"] as? Bool ?? false
        a.isHidden = t["hidden"] as? Bool ?? false
        a.make = t["make"] as? String
        a.model = t["model"] as? String
        a.resources = (t["resources"] as? [[String: Any]] ?? []).compactMap { r in
            guard let type = AssetResourceType(name: r["type"] as? String ?? ""), let path = r["path"] as? String else { return nil }
            return AssetResource(type: type, path: path, originalFilename: String(path.split(separator: "/").last ?? ""))
        }
        return a
    }
}
