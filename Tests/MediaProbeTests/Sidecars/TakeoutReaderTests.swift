import Foundation
import Testing
import TestSupport

@testable import MediaProbe

@Suite("TakeoutReader")
struct TakeoutReaderTests {
    static let folder = "osxphotos/Takeout/Google Photos"

    static func takeoutJSONs() -> [String] {
        Corpus.mediaFiles().filter { $0.hasPrefix(folder) && $0.lowercased().hasSuffix(".json") }
    }

    static func load(_ rel: String) throws -> [UInt8] {
        let root = try #require(Corpus.root)
        return Array(try Data(contentsOf: root.appendingPathComponent(rel)))
    }

    /// swift-corelibs JSONSerialization (used to read the oracle files) can be one ulp off
    /// (it reads 138.59686109999998 as 138.59686109999996); our parser rounds correctly.
    func close(_ a: Double?, _ b: Double?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return abs(a - b) <= 1e-9 * max(1, abs(b))
    }

    static func code(_ bytes: [UInt8]) -> ProbeError.Code? {
        do {
            _ = try TakeoutReader.read(bytes)
            return nil
        } catch {
            return error.code
        }
    }

    @Test("every corpus Takeout JSON matches exiftool's JSON facts", .enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func corpusFacts() throws {
        let files = Self.takeoutJSONs()
        #expect(files.count == 7)
        for path in files {
            let name = String(path.split(separator: "/").last ?? "")
            let m = try TakeoutReader.read(try Self.load(path), fileName: name)
            let f = try #require(Corpus.facts(for: path)?["exiftool"] as? [String: Any], "\(path)")
            func num(_ k: String) -> NSNumber? { f[k] as? NSNumber }
            #expect(m.title == f["JSON:Title"] as? String, "\(path)")
            let desc = f["JSON:Description"] as? String
            #expect(m.description == (desc?.isEmpty == false ? desc : nil), "\(path)")
            #expect(m.url == f["JSON:Url"] as? String, "\(path)")
            let lat = num("JSON:GeoDataLatitude")?.doubleValue, lon = num("JSON:GeoDataLongitude")?.doubleValue
            if let lat, let lon, lat != 0 || lon != 0 {
                #expect(close(m.geoData?.latitude, lat) && close(m.geoData?.longitude, lon), "\(path)")
                #expect(m.geoData?.altitude == num("JSON:GeoDataAltitude")?.doubleValue, "\(path)")
            } else {
                #expect(m.geoData == nil, "\(path): 0,0 means no location")
            }
            let exLat = num("JSON:GeoDataExifLatitude")?.doubleValue, exLon = num("JSON:GeoDataExifLongitude")?.doubleValue
            if let exLat, let exLon, exLat != 0 || exLon != 0 {
                #expect(close(m.geoDataExif?.latitude, exLat) && close(m.geoDataExif?.longitude, exLon), "\(path)")
            } else {
                #expect(m.geoDataExif == nil, "\(path)")
            }
            if name == "metadata.json" {
                #expect(m.isAlbumMetadata)
                #expect(m.albumDate == num("JSON:DateTimestamp")?.int64Value)
                #expect(m.albumAccess == f["JSON:Access"] as? String)
                #expect(m.photoTakenTime == nil)
                #expect(TakeoutReader.mediaNames(forSidecar: name).isEmpty)
            } else {
                #expect(!m.isAlbumMetadata, "\(path)")
                #expect(m.photoTakenTime == num("JSON:PhotoTakenTimeTimestamp")?.int64Value, "\(path)")
                #expect(m.creationTime == num("JSON:CreationTimeTimestamp")?.int64Value, "\(path)")
                #expect(m.imageViews == num("JSON:ImageViews")?.int64Value, "\(path)")
                #expect(m.origin == "webUpload", "\(path)")
                // Without the file name the shape alone still says "media sidecar".
                #expect(try TakeoutReader.read(try Self.load(path)).isAlbumMetadata == false)
            }
        }
    }

    @Test("ground truth: metadata sources, edited copies and orphans", .enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func groundTruth() throws {
        let root = try #require(Corpus.root)
        let truth = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("assets.json"))) as? [String: Any])
        let assets = try #require(truth["assets"] as? [[String: Any]])
        var matched = 0
        for asset in assets {
            for source in asset["metadataSources"] as? [[String: Any]] ?? [] where source["kind"] as? String == "googleTakeoutJson" {
                let jsonPath = try #require(source["path"] as? String)
                let jsonName = String(jsonPath.split(separator: "/").last ?? "")
                let m = try TakeoutReader.read(try Self.load(jsonPath), fileName: jsonName)
                let values = try #require(source["values"] as? [String: Any])
                #expect(m.photoTakenTime.flatMap { SidecarDate.iso8601(unixSeconds: Double($0)) } == values["photoTakenTime"] as? String)
                if let geo = values["geoData"] as? [String: Any] {
                    #expect(close(m.geoData?.latitude, (geo["latitude"] as? NSNumber)?.doubleValue))
                    #expect(close(m.geoData?.longitude, (geo["longitude"] as? NSNumber)?.doubleValue))
                    #expect(m.geoData?.altitude == (geo["altitude"] as? NSNumber)?.doubleValue)
                } else {
                    #expect(m.geoData == nil, "\(jsonPath)")
                }
                // Every resource of the asset (original and '-edited' render) names this JSON as a candidate.
                for resource in asset["resources"] as? [[String: Any]] ?? [] {
                    let media = String((resource["path"] as? String ?? "").split(separator: "/").last ?? "")
                    #expect(TakeoutReader.matches(sidecar: jsonName, media: media), "\(media) ↔ \(jsonName)")
                    #expect(TakeoutReader.mediaNames(forSidecar: jsonName).contains(media), "\(jsonName) → \(media)")
                }
                matched += 1
            }
        }
        #expect(matched == 5)
        // Correctly rounded: the file's text, not JSONSerialization's neighbour.
        let adelaide = try TakeoutReader.read(try Self.load("\(Self.folder)/Adelaide/IMG_4547.jpg.json"))
        #expect(adelaide.geoData?.longitude == 138.59686109999998)
        // Orphans: the album file and the JSON whose media file is missing match nothing in their folders.
        for orphan in truth["orphans"] as? [[String: Any]] ?? [] where (orphan["kind"] as? String ?? "").hasPrefix("googleTakeout") {
            let path = try #require(orphan["path"] as? String)
            let name = String(path.split(separator: "/").last ?? "")
            let dir = root.appendingPathComponent(path).deletingLastPathComponent()
            let siblings = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { !$0.lowercased().hasSuffix(".json") }
            #expect(!siblings.contains { TakeoutReader.matches(sidecar: name, media: $0) }, "\(path)")
            let m = try TakeoutReader.read(try Self.load(path), fileName: name)
            #expect(m.isAlbumMetadata == (orphan["kind"] as? String == "googleTakeoutAlbumJson"))
        }
    }

    /// (media file, JSON Takeout wrote for it).
    static let namePairs: [(String, String)] = [
        ("IMG_1234.jpg", "IMG_1234.jpg.json"),
        ("IMG_1234.JPG", "IMG_1234.JPG.json"),
        ("IMG_1234(1).jpg", "IMG_1234.jpg(1).json"),
        ("IMG_1234(12).HEIC", "IMG_1234.HEIC(12).json"),
        ("IMG_1234-edited.jpg", "IMG_1234.jpg.json"),
        ("IMG_1234-edited(1).jpg", "IMG_1234.jpg(1).json"),
        ("IMG_1234-bearbeitet.jpg", "IMG_1234.jpg.json"),
        ("IMG_1234-modifié.jpg", "IMG_1234.jpg.json"),
        ("IMG_1234-modificato.jpg", "IMG_1234.jpg.json"),
        ("IMG_1234.jpg", "IMG_1234.jpg.supplemental-metadata.json"),
        ("IMG_1234(1).jpg", "IMG_1234.jpg.supplemental-metadata(1).json"),
        ("IMG_1234-edited.jpg", "IMG_1234.jpg.supplemental-metadata.json"),
        // 26 + 22 = 48 characters, clipped to 46.
        ("PXL_20230312_184505713.jpg", "PXL_20230312_184505713.jpg.supplemental-metada.json"),
        // The clipped ".supplemental-metadata" in all its lengths.
        ("PXL_20230312_184505713.MP.jpg123", "PXL_20230312_184505713.MP.jpg123.supplemental-.json"),
        ("Screenshot_20200101-120000_WhatsApp.jpg", "Screenshot_20200101-120000_WhatsApp.jpg.supple.json"),
        ("Screenshot_20200101-120000_WhatsAppX.jpg", "Screenshot_20200101-120000_WhatsAppX.jpg.suppl.json"),
        ("Screenshot_20200101-120000_WhatsAppXYZ.jpg", "Screenshot_20200101-120000_WhatsAppXYZ.jpg.sup.json"),
        ("Screenshot_20200101-120000_WhatsAppXYZWV.jpg", "Screenshot_20200101-120000_WhatsAppXYZWV.jpg.s.json"),
        ("Screenshot_20200101-120000_WhatsAppXYZWV(2).jpg", "Screenshot_20200101-120000_WhatsAppXYZWV.jpg.s(2).json"),
        ("Screenshot_20200101-120000_WhatsAppXYZ.jpg", "Screenshot_20200101-120000_WhatsAppXYZ.jpg.json"),
        // Newer exports sometimes leave the suffix unclipped.
        ("Screenshot_20200101-120000_WhatsAppXYZ.jpg", "Screenshot_20200101-120000_WhatsAppXYZ.jpg.supplemental-metadata.json"),
        // Old style, 48 characters: clipped to 46 inside the extension ("….j.json") …
        ("Screenshot_20200101-120000_Samsung_Internets.jpg", "Screenshot_20200101-120000_Samsung_Internets.j.json"),
        // … to 47 in some exports …
        ("Screenshot_20200101-120000_Samsung_Internets.jpg", "Screenshot_20200101-120000_Samsung_Internets.jp.json"),
        // … or inside the stem, extension gone ("…verylongnam.json").
        ("a_really_long_file_name_from_a_chat_app_verylongname.jpg", "a_really_long_file_name_from_a_chat_app_verylo.json"),
        ("a_really_long_file_name_from_a_chat_app_verylongname.jpg", "a_really_long_file_name_from_a_chat_app_verylon.json"),
        ("a_really_long_file_name_from_a_chat_app_verylongname(1).jpg", "a_really_long_file_name_from_a_chat_app_verylo(1).json"),
        // New style for a name already over 46: the suffix disappears entirely.
        ("a_really_long_file_name_from_a_chat_app_verylongname.mp4", "a_really_long_file_name_from_a_chat_app_verylo.json"),
        // Extension-less JSON name.
        ("IMG_1234.MP4", "IMG_1234.json"),
    ]

    @Test("synthetic name pairs: media → candidates contains the JSON")
    func candidates() {
        for (media, json) in Self.namePairs {
            #expect(TakeoutReader.sidecarCandidates(forMedia: media).contains(json), "\(media) → \(json): \(TakeoutReader.sidecarCandidates(forMedia: media))")
        }
        // The most likely candidate comes first.
        #expect(TakeoutReader.sidecarCandidates(forMedia: "IMG_1234(1).jpg").first == "IMG_1234.jpg(1).json")
        #expect(TakeoutReader.sidecarCandidates(forMedia: "IMG_1234-edited.jpg").contains("IMG_1234-edited.jpg.json"))
        // Non-matches.
        #expect(!TakeoutReader.matches(sidecar: "IMG_1235.jpg.json", media: "IMG_1234.jpg"))
        #expect(!TakeoutReader.matches(sidecar: "IMG_1234.jpg(1).json", media: "IMG_1234.jpg"))
        #expect(!TakeoutReader.matches(sidecar: "IMG_1234.jpg.json", media: "IMG_1234(1).jpg"))
        #expect(!TakeoutReader.matches(sidecar: "metadata.json", media: "metadata"))
    }

    @Test("synthetic name pairs: JSON → media names (exact or, when clipped, a prefix)")
    func reverse() {
        for (media, json) in Self.namePairs {
            let names = TakeoutReader.mediaNames(forSidecar: json)
            let (stem, _) = TakeoutReader.splitExtension(media)
            let hit = names.contains { n in
                n == media || media.hasPrefix(n) || stem.hasPrefix(TakeoutReader.splitExtension(n).0)
                    || TakeoutReader.splitCounter(media).0.hasPrefix(TakeoutReader.splitCounter(n).0)
            }
            #expect(hit, "\(json) → \(names) should cover \(media)")
        }
        #expect(TakeoutReader.mediaNames(forSidecar: "IMG_1234.jpg(1).json").first == "IMG_1234(1).jpg")
        #expect(TakeoutReader.mediaNames(forSidecar: "IMG_1234.jpg.supplemental-metadata(1).json").first == "IMG_1234(1).jpg")
        #expect(TakeoutReader.mediaNames(forSidecar: "IMG_1234.jpg.supp.json").first == "IMG_1234.jpg")
        #expect(TakeoutReader.mediaNames(forSidecar: "IMG_1234.jpg.json").contains("IMG_1234-edited.jpg"))
        #expect(TakeoutReader.mediaNames(forSidecar: "IMG_1234.jpg").isEmpty)
        for album in ["metadata.json", "metadati.json", "métadonnées.json", "Metadaten.json", "me\u{301}tadonne\u{301}es.json"] {
            #expect(TakeoutReader.isAlbumMetadataName(album), "\(album)")
            #expect(TakeoutReader.mediaNames(forSidecar: album).isEmpty, "\(album)")
        }
    }

    @Test("album files: albumData form and name-based detection")
    func albums() throws {
        let legacy = Array("""
            {"albumData":{"title":"Trip","description":"Summer","access":"protected","location":"Rome",
            "date":{"timestamp":"1500000000","formatted":"x"},"geoData":{"latitude":41.9,"longitude":12.5,"altitude":20.0}}}
            """.utf8)
        let a = try TakeoutReader.read(legacy)
        #expect(a.isAlbumMetadata)
        #expect(a.title == "Trip")
        #expect(a.description == "Summer")
        #expect(a.albumDate == 1_500_000_000)
        #expect(a.albumLocation == "Rome")
        #expect(a.geoData == TakeoutMetadata.GeoPoint(latitude: 41.9, longitude: 12.5, altitude: 20))
        // A media-shaped file is an album file only when its name says so.
        let media = Array(#"{"title":"x","photoTakenTime":{"timestamp":"1"}}"#.utf8)
        #expect(try TakeoutReader.read(media, fileName: "metadati.json").isAlbumMetadata)
        #expect(try !TakeoutReader.read(media, fileName: "x.json").isAlbumMetadata)
    }

    @Test("media fields: favorites, archive, trash, people, edited geo, numbers as numbers")
    func mediaFields() throws {
        let json = Array("""
            \u{FEFF}{"title":"IMG_1.HEIC","description":"","photoTakenTime":{"timestamp":1600000000},
            "creationTime":{"timestamp":"1600000100"},"photoLastModifiedTime":{"timestamp":"1600000200"},
            "geoData":{"latitude":48.85,"longitude":2.35,"altitude":35.5},"geoDataExif":{"latitude":0.0,"longitude":0.0},
            "favorited":true,"archived":false,"trashed":true,"people":[{"name":"Ann"},{"name":""},{"name":"Bo \\u00e9\\ud83d\\ude00"}],
            "googlePhotosOrigin":{"mobileUpload":{"deviceType":"IOS_PHONE"}},"imageViews":"12"}
            """.utf8)
        let m = try TakeoutReader.read(json)
        #expect(m.title == "IMG_1.HEIC")
        #expect(m.description == nil)
        #expect(m.photoTakenTime == 1_600_000_000)
        #expect(m.creationTime == 1_600_000_100)
        #expect(m.modificationTime == 1_600_000_200)
        #expect(m.geoData == TakeoutMetadata.GeoPoint(latitude: 48.85, longitude: 2.35, altitude: 35.5))
        #expect(m.geoDataExif == nil)
        #expect(m.favorited == true && m.archived == false && m.trashed == true)
        #expect(m.people == ["Ann", "Bo é😀"])
        #expect(m.origin == "mobileUpload")
        #expect(m.imageViews == 12)
        #expect(!m.isAlbumMetadata)
        let data = try JSONEncoder().encode(m)
        #expect(try JSONDecoder().decode(TakeoutMetadata.self, from: data) == m)
    }

    @Test("garbage JSON is a ProbeError")
    func garbage() {
        let cases: [(String, ProbeError.Code)] = [
            ("", .truncated),
            ("not json", .malformed),
            // Valid JSON that is not a Takeout sidecar: skipped by the ingest, not an error.
            ("[1,2,3]", .notTakeout),
            ("{}", .notTakeout),
            (#"{"foo":1}"#, .notTakeout),
            (#"{"title":"x""#, .truncated),
            (#"{"title":"x"} trailing"#, .malformed),
            (#"{"title":"\q"}"#, .malformed),
            (#"{"title":"a\u12"}"#, .malformed),
            ("{\"title\":\"a\u{01}\"}", .malformed),
            (#"{"title":01.}"#, .malformed),
            (#"{"title":tru}"#, .malformed),
            (String(repeating: "[", count: 100) + String(repeating: "]", count: 100), .tooDeep),
            (#"{"a":"# + String(repeating: #"{"a":"#, count: 70) + "1" + String(repeating: "}", count: 71), .tooDeep),
        ]
        for (text, expected) in cases {
            #expect(Self.code(Array(text.utf8)) == expected, "\(text.prefix(40))")
        }
        #expect(Self.code([0xFF, 0xFE, 0x00]) == .malformed)
    }

    @Test("truncating or flipping bytes of corpus Takeout JSON never crashes", .enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func mutations() throws {
        var x: UInt64 = 7
        for path in Self.takeoutJSONs() {
            let bytes = try Self.load(path)
            for cut in 0..<bytes.count { _ = Self.code(Array(bytes.prefix(cut))) }
            for _ in 0..<300 {
                x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                var m = bytes
                m[Int((x >> 33) % UInt64(m.count))] = UInt8(truncatingIfNeeded: x >> 11)
                _ = Self.code(m)
            }
        }
    }
}
