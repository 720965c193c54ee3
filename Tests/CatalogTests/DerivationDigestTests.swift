import Foundation
import GRDB
import PhotoModel
import TestSupport
import Testing

@testable import Catalog

/// `derivationDigest` hashes the bytes of each column value's `DatabaseValue.description`, mostly without
/// building the string: the bytes must stay the same, or every folder digest stored by an earlier version would read
/// as changed and its folder be written again.
@Suite struct DerivationDigestTests {
    static func described(_ v: DatabaseValue) -> [UInt8] {
        var out = OutBytes(capacity: 64)
        defer { out.deallocate() }
        Catalog.describe(v, into: &out)
        return Array(out.bytes)
    }

    @Test func valuesFeedTheBytesOfTheirDescription() {
        let strings = [
            "", "IMG_1234.HEIC", "2019-07-04T16:24:01", "it's", "say \"cheese\"", #"C:\photos"#, "tab\there", "line\nbreak",
            "cr\r", "nul\u{0}", "bell\u{7}", "del\u{7F}", "Århus", "東京", "👩‍👩‍👧", "e\u{301}", "~`!@#$%^&*()_+-={}[]|:;<>,.?/",
            "{\"a\":[1,2]}", "\u{FEFF}bom", "\u{2028}",
            // Shapes of the columns that take the escaping path: metadata_sources JSON, reasons one per line.
            #"[{"path":"/p/IMG_1.HEIC","type":"photo"}]"#, "subtype: HDR from 'EXIF 0x8827'\nlive: \"ContentIdentifier\" \\ x\r\n\t",
            "\t\n\r\"'\\", "\n", "a\u{1}b", "x\u{0}\n",
            // Beyond ASCII after a printable character (written from the bytes) or first, after an escape, last.
            "pixelSize: 320x568; track rotation 90° applied\nsubtype: x", "a°b", "…x", "x…", "a\n°b", "a\"é!", "ab\u{301}c",
            "a\u{301}", "a👩‍👩‍👧b", "a\u{200D}b", "a\u{2028}b", "a\u{FEFF}b", "\u{E9}", "a\u{E9}\u{301}z", "x🇵🇹y", "x🇵🇹",
            "\t\u{301}x", "a\u{85}b", "a\u{7F}b", "Århus, Lisboa — São Paulo.", "a\u{E000}b", "a\u{10FFFF}b",
        ]
        var values: [DatabaseValue] = strings.map(\.databaseValue)
        values += [Int64.min, -1, 0, 42, Int64.max].map(\.databaseValue)
        values += [0.1, -2.5, 1e-300, 3.0, .infinity].map(\.databaseValue)
        values += [.null, Data([0, 1, 2, 255]).databaseValue, true.databaseValue]
        for v in values {
            #expect(Self.described(v) == Array(v.description.utf8), "\(v.description)")
        }
    }

    /// Random texts over printable ASCII, the escaped characters, controls and scalars that combine or do not
    /// (marks, joiners, flags, format characters): the bytes are always those of `description`.
    @Test func randomTextsFeedTheBytesOfTheirDescription() {
        let alphabet: [Unicode.Scalar] = [
            "a", "Z", "0", " ", "~", "\"", "'", "\\", "\t", "\n", "\r", "\u{0}", "\u{1F}", "\u{7F}", "\u{85}", "\u{A0}", "\u{B0}",
            "\u{E9}", "\u{301}", "\u{308}", "\u{200D}", "\u{200C}", "\u{2028}", "\u{FEFF}", "\u{2026}", "\u{1F469}", "\u{1F3FB}",
            "\u{1F1F5}", "\u{1F1F9}", "\u{0600}", "\u{0D4E}", "\u{0E33}", "\u{1100}", "\u{1161}", "\u{11A8}", "\u{FF9E}", "\u{E000}",
            "\u{10FFFF}", "\u{6771}",
        ]
        var g = SplitMix(state: 17)
        for _ in 0..<20_000 {
            var s = ""
            for _ in 0..<Int(g.next() % 7) { s.unicodeScalars.append(alphabet[Int(g.next() % UInt64(alphabet.count))]) }
            let v = s.databaseValue
            #expect(Self.described(v) == Array(v.description.utf8), "\(v.description)")
        }
    }

    /// The digest of a fixed folder, pinned: the stored digests of every catalog depend on the bytes fed
    /// (column names in name order, their values, the resources), so a change of the column code that
    /// changes them fails here instead of making every folder of every catalog look re-derived.
    @Test func aFoldersDigestStaysTheSame() {
        var live = Asset(id: "photos/IMG_0001.HEIC", mediaType: .image)
        live.mediaSubtypes = [.photoLive, .photoHDR]
        live.traits = [.selfie, .hasDepthData]
        live.playbackStyle = .livePhoto
        live.creationDate = AssetDate(local: "2019-07-04T16:24:01.250", offsetSeconds: -25200)
        live.creationDateSource = "EXIF DateTimeOriginal"
        live.location = Location(latitude: 37.3349, longitude: -122.009, altitude: 12.5)
        live.locationSource = "EXIF GPS"
        live.pixelWidth = 4032
        live.pixelHeight = 3024
        live.contentIdentifier = "A1B2-C3"
        live.hasAdjustments = true
        live.make = "Apple"
        live.model = "iPhone 11 Pro"
        live.lensModel = "iPhone 11 Pro back triple camera 4.25mm f/1.8"
        live.reasons = [Reason("photoHDR", "EXIF 0x8827 = 'it\'s'"), Reason("pairedVideo", "multi\nline")]
        live.resources = [
            AssetResource(type: .photo, path: "IMG_0001.HEIC", originalFilename: "IMG_0001.HEIC", uniformTypeIdentifier: "public.heic", fileSize: 1234),
            AssetResource(type: .pairedVideo, path: "IMG_0001.MOV", originalFilename: "IMG_0001.MOV", uniformTypeIdentifier: nil, fileSize: nil),
        ]
        var clip = Asset(id: "photos/clip.mov", mediaType: .video)
        clip.duration = 12.5
        clip.isFavorite = true
        let c = FolderCommit(
            runID: 1, root: "/r", dir: "/r/photos", files: [], vanished: [],
            assets: [
                AssetInput(
                    asset: clip, root: "/r", dir: "/r/photos", resourceHashes: [],
                    embeddedVideo: ResourceRange(offset: 100, length: 2000), pairedVideoDuration: 2.5),
                AssetInput(
                    asset: live, root: "/r", dir: "/r/photos", resourceHashes: ["xxh128:00ff", nil],
                    metadataSources: [MetadataSourceRef(type: "aae", path: "/r/photos/IMG_0001.AAE")], pairingConfidence: "high"),
            ],
            errors: [])
        // What the code of schema 12 writes ("3aeceee32cff3ec3" in schema 11, whose burst column was named
        // burst_identifier: a catalog from before re-derives every folder for the rules change that came with it).
        #expect(Catalog.derivationDigest(c) == "4854c9fdad64732f")
        #expect(Catalog.derivationDigest(c, columnValues: c.assets!.map(Catalog.values)) == Catalog.derivationDigest(c))
    }
}
