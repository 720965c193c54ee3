import Foundation
import PhotoModel
import Testing
import TestSupport

@testable import Organize

@Suite struct SmartAlbumTests {
    static let now = 1_800_000_000.0

    @Test(.enabled(if: Corpus.isAvailable, "../shared/corpus is absent (set SHOEBOX_CORPUS)"))
    func corpusCountsMatchHandCounts() throws {
        let corpus = try CorpusAssets.load()
        // Catalog state the corpus cannot say: the first five assets were added 10 days ago, the rest a
        // year ago, and the last one is in Recently Deleted.
        var states: [String: CatalogState] = [:]
        for (i, c) in corpus.enumerated() {
            states[c.asset.id] = CatalogState(addedDate: Self.now - (i < 5 ? 10 : 365) * 86400, isTrashed: i == corpus.count - 1)
        }
        let trashed = corpus.last!.asset.id
        func subs(_ r: [String: Any]) -> [String] { r["mediaSubtypes"] as? [String] ?? [] }
        func traits(_ r: [String: Any]) -> [String] { r["traits"] as? [String] ?? [] }
        func visible(_ r: [String: Any]) -> Bool {
            (r["hidden"] as? Bool ?? false) == false && r["id"] as? String != trashed
        }
        // Counts by hand from assets.json fields (default fetch: burst frames other than the key are left out).
        let raws = corpus.map(\.raw).filter { $0["burstIdentifier"] == nil || $0["representsBurst"] as? Bool == true }
        func count(_ f: ([String: Any]) -> Bool) -> Int { raws.filter { visible($0) && f($0) }.count }
        let recent = Set(corpus.prefix(5).map(\.asset.id))
        let expected: [Int: Int] = [
            201: count { subs($0).contains("photoPanorama") },
            202: count { $0["mediaType"] as? String == "video" },
            203: count { $0["favorite"] as? Bool == true },
            204: count { subs($0).contains("videoTimelapse") },
            205: raws.filter { $0["hidden"] as? Bool == true && $0["id"] as? String != trashed }.count,
            206: raws.filter { r in visible(r) && recent.contains(r["id"] as? String ?? "") }.count,
            207: count { $0["burstIdentifier"] != nil },
            208: count { subs($0).contains("videoHighFrameRate") && traits($0).contains("slomo") },
            209: count { _ in true },
            210: count { traits($0).contains("selfie") },
            211: count { subs($0).contains("photoScreenshot") },
            212: count { subs($0).contains("photoDepthEffect") },
            213: count { subs($0).contains("photoLive") },
            214: count { $0["playbackStyle"] as? String == "imageAnimated" || subs($0).contains("photoAnimation") },
            215: count { $0["playbackVariation"] as? String == "longExposure" },
            217: count { traits($0).contains("raw") },
            218: count { subs($0).contains("videoCinematic") },
            219: count { subs($0).contains("spatialMedia") },
            220: count { subs($0).contains("videoScreenRecording") },
            1_000_000_201: 1,
        ]
        let assets = corpus.map(\.asset)
        var lines: [String] = []
        for album in SmartAlbums.builtIn {
            let n = SmartAlbums.members(of: album, in: assets, now: Self.now, states: states).count
            lines.append("\(album.subtype.rawValue) \(album.title): \(n)")
            #expect(n == expected[album.subtype.rawValue], "\(album.title)")
        }
        print("smart albums on the corpus (\(assets.count) assets):\n  " + lines.joined(separator: "\n  "))
        #expect(expected[213]! > 0 && expected[212]! > 0 && expected[217]! > 0 && expected[210]! > 0)
        // All burst frames with includeAllBurstAssets.
        let bursts = SmartAlbums.definition(.smartAlbumBursts)!
        #expect(SmartAlbums.members(of: bursts, in: assets, now: Self.now, states: states, includeAllBurstAssets: true).count == 4)
        #expect(SmartAlbums.members(of: bursts, in: assets, now: Self.now, states: states).count == 1)
    }

    @Test func scopes() {
        var a = Asset(id: "a", mediaType: .image)
        a.isFavorite = true
        let fav = SmartAlbums.definition(.smartAlbumFavorites)!, hidden = SmartAlbums.definition(.smartAlbumAllHidden)!
        let deleted = SmartAlbums.definition(.smartAlbumRecentlyDeleted)!
        #expect(SmartAlbums.contains(fav, a, now: 0))
        #expect(!SmartAlbums.contains(fav, a, now: 0, state: CatalogState(isTrashed: true)))
        #expect(SmartAlbums.contains(deleted, a, now: 0, state: CatalogState(isTrashed: true)))
        a.isHidden = true
        #expect(!SmartAlbums.contains(fav, a, now: 0))
        #expect(SmartAlbums.contains(hidden, a, now: 0))
        var v = Asset(id: "v", mediaType: .video)
        v.mediaSubtypes = [.videoHighFrameRate]
        let slomo = SmartAlbums.definition(.smartAlbumSlomoVideos)!
        #expect(!SmartAlbums.contains(slomo, v, now: 0))
        v.traits = [.slomo]
        #expect(SmartAlbums.contains(slomo, v, now: 0))
        #expect(Set(SmartAlbums.builtIn.map(\.localIdentifier)).count == SmartAlbums.builtIn.count)
    }

    /// `Pipelines/smart-albums.yml` and the Swift table say the same, read with a line parser
    /// (`- subtype:` starts an album; `key: value` lines; `arguments: [..]` as a flow list).
    @Test func yamlAgreesWithTheSwiftTable() throws {
        let url = Corpus.packageRoot.appendingPathComponent("Pipelines/smart-albums.yml")
        let text = try String(contentsOf: url, encoding: .utf8)
        var albums: [[String: String]] = []
        var inBuiltIn = false
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            if line.hasPrefix("#") || line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            if !line.hasPrefix(" ") { inBuiltIn = line.hasPrefix("smartAlbums:"); continue }
            guard inBuiltIn else { continue }
            var body = line.trimmingCharacters(in: .whitespaces)
            if body.hasPrefix("- ") { albums.append([:]); body.removeFirst(2) }
            guard let colon = body.firstIndex(of: ":") else { continue }
            let key = String(body[..<colon])
            var value = body[body.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\"") && value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            albums[albums.count - 1][key] = value
        }
        #expect(albums.count == SmartAlbums.builtIn.count)
        for (y, s) in zip(albums, SmartAlbums.builtIn) {
            #expect(y["subtype"] == String(s.subtype.rawValue))
            #expect(y["name"] == s.name)
            #expect(y["title"] == s.title)
            #expect(y["scope"] == s.scope.rawValue)
            #expect(y["predicate"] == s.predicate)
            let args = s.arguments.isEmpty ? nil : "[" + s.arguments.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
            #expect(y["arguments"] == args, "\(s.title)")
        }
        #expect(text.contains("Favorites from 2014"))
    }
}
