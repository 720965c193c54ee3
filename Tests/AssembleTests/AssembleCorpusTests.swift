import Assemble
import Classify
import Foundation
import MediaProbe
import PhotoModel
import Testing
import TestSupport

/// Assembles the whole corpus and compares every asset with `assets.json` (ground truth, much of it from
/// Apple Photos' own database). Where the database disagrees with a file rule (`dbConflicts`), the
/// ground truth already records which side won and why; the rules here follow the files on disk for
/// structural facts (a Live Photo needs its movie on disk; adjustments follow the resources present),
/// exactly as those resolutions say.
@Suite struct AssembleCorpusTests {
    struct Truth {
        let assets: [[String: Any]]
        let orphans: [[String: Any]]
        let files: [String]
    }

    static func truth() throws -> Truth {
        let root = try #require(Corpus.root)
        let data = try Data(contentsOf: root.appendingPathComponent("assets.json"))
        let obj = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        // `files` is the number of media files the truth covers: every file of the corpus but its docs.
        let files = Corpus.mediaFiles()
        #expect(files.count == obj["files"] as? Int, "the corpus on disk and assets.json disagree on the file count")
        return Truth(assets: obj["assets"] as? [[String: Any]] ?? [], orphans: obj["orphans"] as? [[String: Any]] ?? [], files: files)
    }

    static func assemble(_ files: [String]) throws -> Assembly {
        let root = try #require(Corpus.root).path
        let prober = Prober()
        let classified = files.map { Classifier.classify(prober.probe(path: root + "/" + $0)) }
        return Assembler.assemble(classified, root: root)
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func corpusMatchesGroundTruth() throws {
        let truth = try Self.truth()
        let result = try Self.assemble(truth.files)
        let ours = Dictionary(uniqueKeysWithValues: result.assets.map { ($0.asset.id, $0) })
        let expectedIDs = Set(truth.assets.compactMap { $0["id"] as? String })
        #expect(Set(ours.keys) == expectedIDs, "missing: \(expectedIDs.subtracting(ours.keys).sorted()); extra: \(Set(ours.keys).subtracting(expectedIDs).sorted())")

        var agree: [String: Int] = [:]
        var total: [String: Int] = [:]
        for t in truth.assets {
            guard let id = t["id"] as? String, let a = ours[id] else { continue }
            let x = a.asset
            func check(_ field: String, _ ok: Bool, _ detail: @autoclosure () -> String) {
                total[field, default: 0] += 1
                if ok { agree[field, default: 0] += 1 } else { Issue.record("\(id) \(field): \(detail())") }
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
            let fromDB = (t["creationDateSource"] as? String ?? "").hasPrefix("Photos DB")
            let ourFallback = (x.creationDateSource ?? "").contains("file modification time")
            if let want = (t["creationDate"] as? String).flatMap(AssetDate.init(iso:)), fromDB && ourFallback {
                // Only Apple's database knows this date (the file carries none): a reader of files is not
                // expected to invent it; our last-resort date is marked as such.
                print("  excused creationDate \(id): truth from \(t["creationDateSource"] ?? ""), the file has no date (ours: \(x.creationDateSource ?? ""))")
                _ = want
            } else if let want = (t["creationDate"] as? String).flatMap(AssetDate.init(iso:)) {
                let ok = x.creationDate.map { sameLocal($0.local, want.local) } ?? false
                    && ((t["creationDateOffsetEvidence"] as? String) != "fileOffset" || x.creationDate?.offsetSeconds == want.offsetSeconds)
                check("creationDate", ok, "ours \(x.creationDate?.description ?? "nil") (\(x.creationDateSource ?? "")), truth \(want)")
            } else {
                let ok = x.creationDate == nil || (x.creationDateSource ?? "").contains("file modification time")
                check("creationDate", ok, "ours \(x.creationDate?.description ?? "nil") (\(x.creationDateSource ?? "")), truth nil")
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
            // Agreement per subtype, printed below.
            for s in subs.union(x.mediaSubtypes.names) {
                total["subtype \(s)", default: 0] += 1
                if subs.contains(s) == x.mediaSubtypes.names.contains(s) { agree["subtype \(s)", default: 0] += 1 }
            }
        }
        let wantOrphans = Set(truth.orphans.compactMap { $0["path"] as? String })
        let ourOrphans = Set(result.orphans.map(\.path))
        #expect(ourOrphans == wantOrphans, "orphans: ours \(ourOrphans.sorted()), truth \(wantOrphans.sorted())")
        print("assembly vs assets.json (\(truth.assets.count) assets):")
        for k in total.keys.sorted() { print("  \(k): \(agree[k] ?? 0)/\(total[k] ?? 0)") }
    }

    func sameLocal(_ a: String, _ b: String) -> Bool {
        // Compare to the second; sub-seconds when both have them (digits may differ in length: .50 vs .5).
        guard a.prefix(19) == b.prefix(19) else { return false }
        let fa = Double("0" + a.dropFirst(19)) ?? 0, fb = Double("0" + b.dropFirst(19)) ?? 0
        return abs(fa - fb) < 0.0011
    }
}
