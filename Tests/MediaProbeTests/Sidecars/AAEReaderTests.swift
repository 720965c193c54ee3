import Foundation
import Testing
import TestSupport

@testable import MediaProbe

/// Builds small binary plists by hand (objects are pre-encoded; refs are 1 byte).
struct BPlistBuilder {
    var objects: [[UInt8]] = []

    mutating func add(_ o: [UInt8]) -> Int {
        objects.append(o)
        return objects.count - 1
    }

    static func ascii(_ s: String) -> [UInt8] {
        let u = Array(s.utf8)
        precondition(u.count < 15)
        return [0x50 | UInt8(u.count)] + u
    }
    static func int(_ v: UInt8) -> [UInt8] { [0x10, v] }
    static func real(_ d: Double) -> [UInt8] {
        let b = d.bitPattern
        return [0x23] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: b >> (8 * UInt64($0))) }
    }
    static func array(_ refs: [Int]) -> [UInt8] { [0xA0 | UInt8(refs.count)] + refs.map { UInt8($0) } }
    static func dict(_ keys: [Int], _ values: [Int]) -> [UInt8] {
        [0xD0 | UInt8(keys.count)] + keys.map { UInt8($0) } + values.map { UInt8($0) }
    }

    func build(top: Int) -> [UInt8] {
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for o in objects {
            offsets.append(out.count)
            out += o
        }
        let table = out.count
        for o in offsets { out += [UInt8(o >> 8), UInt8(o & 0xFF)] }
        out += [0, 0, 0, 0, 0, 0, 2, 1]
        func be64(_ v: Int) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        out += be64(objects.count) + be64(top) + be64(table)
        return out
    }
}

enum AAEFixture {
    /// A raw-DEFLATE stream made of one stored block (valid DEFLATE, no compressor needed).
    static func storedDeflate(_ bytes: [UInt8]) -> [UInt8] {
        precondition(bytes.count <= 65_535)
        let n = bytes.count
        return [0x01, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)] + bytes
    }

    static func xml(identifier: String, version: String = "1.5", data: [UInt8]?, extra: String = "") -> [UInt8] {
        var s = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>adjustmentBaseVersion</key>
            \t<integer>0</integer>

            """
        if let data { s += "\t<key>adjustmentData</key>\n\t<data>\n\t\(Data(data).base64EncodedString(options: .lineLength64Characters))\n\t</data>\n" }
        s += """
            \t<key>adjustmentEditorBundleID</key>
            \t<string>com.apple.mobileslideshow</string>
            \t<key>adjustmentFormatIdentifier</key>
            \t<string>\(identifier)</string>
            \t<key>adjustmentFormatVersion</key>
            \t<string>\(version)</string>
            \t<key>adjustmentTimestamp</key>
            \t<date>2023-04-01T10:20:30Z</date>
            \(extra)</dict>
            </plist>

            """
        return Array(s.utf8)
    }

    static func photoJSON(_ adjustments: String, orientation: Int = 6) -> [UInt8] {
        Array("""
            {"metadata":{"masterHeight":3024,"masterWidth":4032,"orientation":\(orientation)},"formatVersion":1,\
            "versionInfo":{"platform":"iOS"},"adjustments":[\(adjustments)]}
            """.utf8)
    }
}

@Suite("AAEReader")
struct AAEReaderTests {
    static let corpusAAEs = [
        "exiftool-t-images/PLIST.aae",
        "osxphotos/test-images/IMG_1853.AAE",
        "osxphotos/test-images/IMG_1994.AAE",
        "osxphotos/test-images/St James Park.AAE",
        "osxphotos/test-images/wedding.AAE",
        "osxphotos/media_types/IMG_O3932.aae",
        "osxphotos/media_types/IMG_O5747.aae",
        "osxphotos/original_aae/IMG_3582.AAE",
        "osxphotos/original_aae/IMG_O3582.AAE",
    ]

    static func load(_ rel: String) throws -> [UInt8] {
        let root = try #require(Corpus.root)
        return Array(try Data(contentsOf: root.appendingPathComponent(rel)))
    }

    static func code(_ bytes: [UInt8]) -> ProbeError.Code? {
        do {
            _ = try AAEReader.read(bytes)
            return nil
        } catch {
            return error.code
        }
    }

    /// exiftool's value for an AAE tag, under either family-1 group it uses.
    static func fact(_ f: [String: Any], _ tag: String) -> Any? { f["XML:\(tag)"] ?? f["PLIST:\(tag)"] }

    @Test("every corpus AAE matches exiftool's facts", .enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"), arguments: corpusAAEs)
    func corpus(path: String) throws {
        let sidecar = try AAEReader.read(try Self.load(path))
        let facts = try #require(Corpus.facts(for: path)?["exiftool"] as? [String: Any])
        #expect(sidecar.formatIdentifier == Self.fact(facts, "AdjustmentFormatIdentifier") as? String)
        #expect(sidecar.editorBundleID == Self.fact(facts, "AdjustmentEditorBundleID") as? String)
        // exiftool prints the version as a number ("1.10" → 1.1).
        let version = try #require(sidecar.formatVersion)
        #expect(Double(version) == (Self.fact(facts, "AdjustmentFormatVersion") as? NSNumber)?.doubleValue)
        #expect(sidecar.baseVersion == (Self.fact(facts, "AdjustmentBaseVersion") as? NSNumber)?.int64Value)
        #expect(sidecar.renderTypes == (Self.fact(facts, "AdjustmentRenderTypes") as? NSNumber)?.int64Value)
        // exiftool: "2025:07:05 01:25:08Z"; ours: "2025-07-05T01:25:08Z".
        let ts = (Self.fact(facts, "AdjustmentTimestamp") as? String).map { s -> String in
            var c = Array(s)
            if c.count > 10 { c[4] = "-"; c[7] = "-"; c[10] = "T" }
            return String(c)
        }
        #expect(sidecar.timestamp == ts)

        switch sidecar.formatIdentifier {
        case "com.apple.photo":
            #expect(sidecar.dataEncoding == .deflateJSON)
            #expect(!sidecar.adjustments.isEmpty)
            let ids: [String]
            switch facts["JSON:AdjustmentsIdentifier"] {
            case let s as String: ids = [s]
            case let a as [String]: ids = a
            default: ids = []
            }
            #expect(sidecar.adjustments == ids)
            #expect(sidecar.orientation == (facts["JSON:MetadataOrientation"] as? NSNumber)?.intValue)
            #expect(sidecar.masterWidth == (facts["JSON:MetadataMasterWidth"] as? NSNumber)?.intValue)
            #expect(sidecar.playbackVariation == nil)
            #expect(sidecar.slowMotion == nil)
        case "com.apple.video.slomo":
            #expect(sidecar.dataEncoding == .binaryPlist)
            let sm = try #require(sidecar.slowMotion)
            #expect(sm.rate == (facts["PLIST:SlowMotionRate"] as? NSNumber)?.floatValue)
            let start = try #require(facts["PLIST:SlowMotionRegionsStartTimeValue"] as? NSNumber).doubleValue
                / (try #require(facts["PLIST:SlowMotionRegionsStartTimeScale"] as? NSNumber)).doubleValue
            let duration = try #require(facts["PLIST:SlowMotionRegionsDurationValue"] as? NSNumber).doubleValue
                / (try #require(facts["PLIST:SlowMotionRegionsDurationTimeScale"] as? NSNumber)).doubleValue
            #expect(sm.start == start)
            #expect(sm.duration == duration)
            #expect(sm.regionCount == 1)
            #expect(sidecar.adjustments.isEmpty)
        default:
            // com.apple.Photos.externalEdit: 12 opaque bytes.
            #expect(sidecar.dataEncoding == .opaque)
            #expect(sidecar.adjustments.isEmpty)
        }
    }

    @Test("corpus AAE values the ground truth names", .enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func groundTruth() throws {
        // The list above is every AAE in the corpus.
        #expect(Set(Corpus.mediaFiles().filter { $0.lowercased().hasSuffix(".aae") }) == Set(Self.corpusAAEs))
        let slomo = try AAEReader.read(try Self.load("exiftool-t-images/PLIST.aae"))
        #expect(slomo.formatIdentifier == "com.apple.video.slomo")
        #expect(slomo.formatVersion == "1.1")
        #expect(slomo.slowMotion == AdjustmentSidecar.SlowMotion(rate: 0.125, start: 6.29625, duration: 29.3825, regionCount: 1))
        let keyFrame = try AAEReader.read(try Self.load("osxphotos/test-images/IMG_1853.AAE"))
        #expect(keyFrame.adjustments == ["LivePhotoKeyFrame"])
        #expect(keyFrame.orientation == 6)
        #expect(keyFrame.timestamp == "2024-06-01T22:19:30Z")
        let o = try AAEReader.read(try Self.load("osxphotos/media_types/IMG_O3932.aae"))
        #expect(o.formatVersion == "1.10")
        #expect(o.adjustments == ["PortraitVideo"])
        let edit = try AAEReader.read(try Self.load("osxphotos/original_aae/IMG_3582.AAE"))
        #expect(edit.adjustments == ["SmartBlackAndWhite", "DepthEffect"])
        #expect(edit.disabledAdjustments.isEmpty)
        let external = try AAEReader.read(try Self.load("osxphotos/test-images/St James Park.AAE"))
        #expect(external.formatIdentifier == "com.apple.Photos.externalEdit")
        #expect(external.editorBundleID == "com.apple.Photos")
        // The sidecar round-trips through Codable (the catalog stores it as JSON).
        let data = try JSONEncoder().encode(edit)
        #expect(try JSONDecoder().decode(AdjustmentSidecar.self, from: data) == edit)
    }

    @Test("playback variations from the AutoLoop adjustment's flavor")
    func playbackVariation() throws {
        let cases: [(String, Int?)] = [
            (#"{"identifier":"AutoLoop","enabled":true,"settings":{"flavor":"AutoLoop"}}"#, 1),
            (#"{"identifier":"AutoLoop","enabled":true,"settings":{"flavor":"Mirror"}}"#, 2),
            (#"{"identifier":"AutoLoop","enabled":true,"settings":{"flavor":"Bounce"}}"#, 2),
            (#"{"identifier":"AutoLoop","enabled":true,"settings":{"flavor":"LongExposure"}}"#, 3),
            (#"{"identifier":"AutoLoop","settings":{"flavor":"None"}}"#, 0),
            (#"{"identifier":"AutoLoop","enabled":false,"settings":{"flavor":"LongExposure"}}"#, nil),
            (#"{"identifier":"LongExposure","enabled":true}"#, 3),
            (#"{"identifier":"Crop","enabled":true,"settings":{}},{"identifier":"AutoLoop","settings":{}}"#, 1),
            (#"{"identifier":"SmartTone","enabled":true}"#, nil),
        ]
        for (adjustments, expected) in cases {
            let aae = AAEFixture.xml(identifier: "com.apple.photo", data: AAEFixture.storedDeflate(AAEFixture.photoJSON(adjustments)))
            let s = try AAEReader.read(aae)
            #expect(s.playbackVariation == expected, "\(adjustments)")
            #expect(s.orientation == 6)
            #expect(s.editorBundleID == "com.apple.mobileslideshow")
            #expect(s.timestamp == "2023-04-01T10:20:30Z")
        }
        let disabled = try AAEReader.read(AAEFixture.xml(
            identifier: "com.apple.photo",
            data: AAEFixture.storedDeflate(AAEFixture.photoJSON(#"{"identifier":"AutoLoop","enabled":false}"#))))
        #expect(disabled.adjustments == ["AutoLoop"])
        #expect(disabled.disabledAdjustments == ["AutoLoop"])
    }

    @Test("a binary-plist AAE and a keyed-archive slo-mo payload")
    func binaryForms() throws {
        // Slo-mo 1.0 payload: an NSKeyedArchiver archive whose root dictionary has rate and regions.
        var ka = BPlistBuilder()
        let kArchiver = ka.add(BPlistBuilder.ascii("$archiver"))
        let vArchiver = ka.add(BPlistBuilder.ascii("NSKeyedArch"))
        let kTop = ka.add(BPlistBuilder.ascii("$top"))
        let kRoot = ka.add(BPlistBuilder.ascii("root"))
        let uidRoot = ka.add([0x80, 1])  // UID 1 → $objects[1]
        let top = ka.add(BPlistBuilder.dict([kRoot], [uidRoot]))
        let kObjects = ka.add(BPlistBuilder.ascii("$objects"))
        let null = ka.add(BPlistBuilder.ascii("$null"))
        let kRate = ka.add(BPlistBuilder.ascii("rate"))
        let rate = ka.add(BPlistBuilder.real(0.25))
        let rootObj = ka.add(BPlistBuilder.dict([kRate], [rate]))
        let objects = ka.add(BPlistBuilder.array([null, rootObj]))
        let archive = ka.add(BPlistBuilder.dict([kArchiver, kTop, kObjects], [vArchiver, top, objects]))
        let payload = ka.build(top: archive)
        let s = try AAEReader.read(AAEFixture.xml(identifier: "com.apple.video.slomo", version: "1.0", data: payload))
        #expect(s.dataEncoding == .keyedArchive)
        #expect(s.slowMotion?.rate == 0.25)
        #expect(s.slowMotion?.start == nil)

        // The AAE itself as a binary plist.
        var b = BPlistBuilder()
        let k1 = b.add(BPlistBuilder.ascii("adjustmentFo"))  // not the right key
        let v1 = b.add(BPlistBuilder.ascii("x"))
        let d = b.add(BPlistBuilder.dict([k1], [v1]))
        #expect(Self.code(b.build(top: d)) == .malformed)
    }

    @Test("garbage, truncation and hostile plists are ProbeErrors")
    func garbage() throws {
        #expect(Self.code([]) != nil)
        #expect(Self.code(Array("hello, world".utf8)) == .malformed)
        #expect(Self.code(Array("<plist><array><string>x</string></array></plist>".utf8)) == .malformed)  // not a dict
        #expect(Self.code(Array("<plist><dict><key>a</key><integer>zz</integer></dict></plist>".utf8)) == .malformed)
        #expect(Self.code(Array("<plist><dict><key>a</key><data>!!!</data></dict></plist>".utf8)) == .malformed)
        #expect(Self.code(Array(("<plist>" + String(repeating: "<array>", count: 100)).utf8)) == .tooDeep)
        // com.apple.photo whose data is not DEFLATE / inflates to something that is not JSON.
        #expect(Self.code(AAEFixture.xml(identifier: "com.apple.photo", data: [0xFF, 0xFF, 0xFF, 0xFF])) != nil)
        #expect(Self.code(AAEFixture.xml(identifier: "com.apple.photo", data: AAEFixture.storedDeflate(Array("not json".utf8)))) == .malformed)
        #expect(Self.code(AAEFixture.xml(identifier: "com.apple.photo", data: AAEFixture.storedDeflate(Array("[1,2]".utf8)))) == .malformed)
        #expect(Self.code(AAEFixture.xml(identifier: "com.apple.photo", data: AAEFixture.storedDeflate(Array(#"{"adjustments":3}"#.utf8)))) == .malformed)
        // Slo-mo data that is not a binary plist.
        #expect(Self.code(AAEFixture.xml(identifier: "com.apple.video.slomo", data: [1, 2, 3])) == .malformed)
        // A deflate bomb beyond 1000x: python zlib level 9, wbits -15, of 1,000,000 zero bytes (985 bytes).
        let bomb = Array(Data(base64Encoded: "7cEBAQAAAIIg/69uSEABAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACvBg==") ?? Data())
        #expect(bomb.count == 985)
        #expect(try Inflate.raw(bomb, limit: 1_000_000).count == 1_000_000)
        #expect(Self.code(AAEFixture.xml(identifier: "com.apple.photo", data: bomb)) == .tooLarge)
    }

    @Test("binary plists with cycles, huge counts, deep nesting and shared-reference bombs")
    func hostileBinaryPlists() {
        func slomo(_ payload: [UInt8]) -> ProbeError.Code? {
            Self.code(AAEFixture.xml(identifier: "com.apple.video.slomo", version: "1.1", data: payload))
        }
        // Cycle: an array that contains itself.
        var c = BPlistBuilder()
        let a = c.add(BPlistBuilder.array([0]))
        #expect(slomo(c.build(top: a)) == .malformed)
        // Huge count: an array claiming 2^32-1 elements.
        var h = BPlistBuilder()
        let big = h.add([0xAF, 0x12, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(slomo(h.build(top: big)) == .malformed)
        // Deep nesting: 100 arrays each holding the next.
        var d = BPlistBuilder()
        for i in 0..<100 { _ = d.add(i == 99 ? BPlistBuilder.int(1) : BPlistBuilder.array([i + 1])) }
        #expect(slomo(d.build(top: 0)) == .tooDeep)
        // Shared references: object i = [i+1, i+1] for 40 levels, 2^40 leaves if expanded.
        var s = BPlistBuilder()
        for i in 0..<40 { _ = s.add(BPlistBuilder.array([i + 1, i + 1])) }
        _ = s.add(BPlistBuilder.int(7))
        #expect(slomo(s.build(top: 0)) == .tooLarge)
        // Trailer pointing outside the file, offsets past the object area.
        var t = BPlistBuilder()
        let one = t.add(BPlistBuilder.int(1))
        var bad = t.build(top: one)
        bad[bad.count - 1] = 0xFF
        #expect(slomo(bad) == .malformed)
        var bad2 = t.build(top: one)
        bad2[bad2.count - 32 - 1] = 0xF0  // the only offset → past the table
        #expect(slomo(bad2) == .malformed)
        // Valid plist, but no slowMotion dictionary.
        #expect(slomo(t.build(top: one)) == .malformed)
    }

    @Test("truncating or flipping bytes of corpus AAEs never crashes", .enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func mutations() throws {
        var x: UInt64 = 42
        for path in Self.corpusAAEs {
            let bytes = try Self.load(path)
            for cut in stride(from: 0, to: bytes.count, by: 13) { _ = Self.code(Array(bytes.prefix(cut))) }
            for _ in 0..<200 {
                x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                var m = bytes
                let i = Int((x >> 33) % UInt64(m.count))
                m[i] = UInt8(truncatingIfNeeded: x >> 13)
                _ = Self.code(m)
            }
        }
    }
}
