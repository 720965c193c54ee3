import Foundation
import PhotoModel

/// Compares assets with the corpus ground truth (`assets.json`), field by field, the same way for the
/// assembler and for assets read back from a catalog.
public enum GroundTruth {
    public struct Report {
        public var agree: [String: Int] = [:]
        public var total: [String: Int] = [:]
        public var failures: [String] = []
        public var excused: [String] = []
        public var missing: [String] = []
        public var extra: [String] = []

        public var summary: String {
            total.keys.sorted().map { "  \($0): \(agree[$0] ?? 0)/\(total[$0] ?? 0)" }.joined(separator: "\n")
        }
    }

    public static func load() throws -> (assets: [[String: Any]], orphans: [[String: Any]], fileCount: Int) {
        guard let root = Corpus.root else { throw CocoaError(.fileNoSuchFile) }
        let data = try Data(contentsOf: root.appendingPathComponent("assets.json"))
        let obj = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return (obj["assets"] as? [[String: Any]] ?? [], obj["orphans"] as? [[String: Any]] ?? [], obj["files"] as? Int ?? 0)
    }

    /// `assets` keyed by their id (primary resource path relative to the corpus root).
    public static func compare(_ ours: [String: Asset], with truth: [[String: Any]]) -> Report {
        var r = Report()
        let expectedIDs = Set(truth.compactMap { $0["id"] as? String })
        r.missing = expectedIDs.subtracting(ours.keys).sorted()
        r.extra = Set(ours.keys).subtracting(expectedIDs).sorted()
        for t in truth {
            guard let id = t["id"] as? String, let x = ours[id] else { continue }
            func check(_ field: String, _ ok: Bool, _ detail: @autoclosure () -> String) {
                r.total[field, default: 0] += 1
                if ok { r.agree[field, default: 0] += 1 } else { r.failures.append("\(id) \(field): \(detail())") }
            }
            check("mediaType", x.mediaType.name == t["mediaType"] as? String, "ours \(x.mediaType.name), truth \(t["mediaType"] ?? "nil")")
            let subs = Set(t["mediaSubtypes"] as? [String] ?? [])
            check("mediaSubtypes", Set(x.mediaSubtypes.names) == subs, "ours \(x.mediaSubtypes.names.sorted()), truth \(subs.sorted())")
            let traits = Set(t["traits"] as? [String] ?? [])
            check("traits", Set(x.traits.map(\.rawValue)) == traits, "ours \(x.traits.map(\.rawValue).sorted()), truth \(traits.sorted())")
            check("playbackStyle", x.playbackStyle.name == t["playbackStyle"] as? String, "ours \(x.playbackStyle.name), truth \(t["playbackStyle"] ?? "nil")")
            let res = Set((t["resources"] as? [[String: Any]] ?? []).map { "\($0["type"] ?? "")|\($0["path"] ?? "")" })
            let ourRes = Set(x.resources.map { "\($0.type.name)|\($0.path)" })
            check("resources", ourRes == res, "ours \(ourRes.sorted()), truth \(res.sorted())")
            check("contentIdentifier", x.contentIdentifier == t["contentIdentifier"] as? String, "ours \(x.contentIdentifier ?? "nil"), truth \(t["contentIdentifier"] ?? "nil")")
            check("burstIdentifier", x.burstIdentifier == t["burstIdentifier"] as? String, "ours \(x.burstIdentifier ?? "nil"), truth \(t["burstIdentifier"] ?? "nil")")
            check("hasAdjustments", x.hasAdjustments == (t["hasAdjustments"] as? Bool ?? false), "ours \(x.hasAdjustments)")

            // creationDate: the local wall-clock time always; the offset only when the file carries it.
            // A date only Apple's database knows (the file has none) is not expected from a file reader;
            // our last-resort date is marked as such.
            let fromDB = (t["creationDateSource"] as? String ?? "").hasPrefix("Photos DB")
            let ourFallback = (x.creationDateSource ?? "").contains("file modification time")
            if let want = (t["creationDate"] as? String).flatMap(AssetDate.init(iso:)), fromDB && ourFallback {
                r.excused.append("creationDate \(id): truth from \(t["creationDateSource"] ?? ""); the file carries no date")
            } else if let want = (t["creationDate"] as? String).flatMap(AssetDate.init(iso:)) {
                let ok = x.creationDate.map { sameLocal($0.local, want.local) } ?? false
                    && ((t["creationDateOffsetEvidence"] as? String) != "fileOffset" || x.creationDate?.offsetSeconds == want.offsetSeconds)
                check("creationDate", ok, "ours \(x.creationDate?.description ?? "nil") (\(x.creationDateSource ?? "")), truth \(want)")
            } else {
                check("creationDate", x.creationDate == nil || ourFallback, "ours \(x.creationDate?.description ?? "nil"), truth nil")
            }
            if let loc = t["location"] as? [String: Any], let lat = loc["latitude"] as? Double, let lon = loc["longitude"] as? Double {
                let ok = x.location.map { abs($0.latitude - lat) < 1e-5 && abs($0.longitude - lon) < 1e-5 } ?? false
                check("location", ok, "ours \(String(describing: x.location)), truth \(lat),\(lon)")
            } else {
                check("location", x.location == nil, "ours \(String(describing: x.location)), truth nil")
            }
            if let w = t["pixelWidth"] as? Int, let h = t["pixelHeight"] as? Int {
                check("pixelSize", x.pixelWidth == w && x.pixelHeight == h, "ours \(x.pixelWidth)x\(x.pixelHeight), truth \(w)x\(h)")
            }
            if let d = t["duration"] as? Double {
                check("duration", abs(x.duration - d) < 0.002, "ours \(x.duration), truth \(d)")
            }
            for s in subs.union(x.mediaSubtypes.names) {
                r.total["subtype \(s)", default: 0] += 1
                if subs.contains(s) == x.mediaSubtypes.names.contains(s) { r.agree["subtype \(s)", default: 0] += 1 }
            }
        }
        return r
    }

    static func sameLocal(_ a: String, _ b: String) -> Bool {
        guard a.prefix(19) == b.prefix(19) else { return false }
        let fa = Double("0" + a.dropFirst(19)) ?? 0, fb = Double("0" + b.dropFirst(19)) ?? 0
        return abs(fa - fb) < 0.0011
    }
}
