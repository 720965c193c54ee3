import PhotoModel
import Testing
import TestSupport

@testable import Organize

@Suite struct BurstTests {
    @Test(.enabled(if: Corpus.isAvailable, "../shared/corpus is absent (set SHOEBOX_CORPUS)"))
    func corpusBurstMatchesApplesDatabase() throws {
        let corpus = try CorpusAssets.load()
        let truthBurst = corpus.filter { $0.raw["burstIdentifier"] is String }
        #expect(truthBurst.count == 4)
        // Input as the pipeline will have it: the BurstUUID from the file (Assemble puts it in
        // burstIdentifier), and the user pick as a sidecar would say it. Feed every corpus asset, so that
        // nothing else is grouped by mistake.
        let candidates = corpus.map { c in
            BurstCandidate(asset: Self.strip(c.asset),
                           userPicked: (c.raw["burstSelectionTypes"] as? [String] ?? []).contains("userPick"))
        }
        let sets = BurstGrouper.group(candidates.shuffled())
        for s in sets { print("burst \(s.identifier) [\(s.source)] members \(s.members) rep \(s.representative)"); s.reasons.forEach { print("  \($0)") } }
        #expect(sets.count == 1)
        let s = try #require(sets.first)
        #expect(s.identifier == "D4E4B3D1-0E45-4987-BE12-76D604E25D2C")
        #expect(s.source == .appleBurstUUID)
        #expect(Set(s.members) == Set(truthBurst.map(\.asset.id)))
        let truthRep = try #require(truthBurst.first { $0.raw["representsBurst"] as? Bool == true })
        #expect(s.representative == truthRep.asset.id)

        // Applied to the assets: every burst field equals Apple's.
        let applied = BurstGrouper.apply(sets, to: corpus.map { Self.strip($0.asset) })
        for (a, t) in zip(applied, corpus.map(\.asset)) {
            #expect(a.burstIdentifier == t.burstIdentifier, "\(a.id)")
            #expect(a.representsBurst == t.representsBurst, "\(a.id)")
            #expect(a.burstSelectionTypes == t.burstSelectionTypes, "\(a.id)")
        }
        // Default fetch: one frame per burst.
        #expect(BurstVisibility.filter(applied).count == corpus.count - 3)
        #expect(BurstVisibility.filter(applied, includeAllBurstAssets: true).count == corpus.count)
    }

    /// The asset as Assemble makes it: the BurstUUID, none of Photos' pick flags.
    static func strip(_ a: Asset) -> Asset {
        var a = a
        a.representsBurst = false
        a.burstSelectionTypes = []
        return a
    }

    static func date(_ s: String) -> AssetDate { AssetDate(iso: s)! }

    @Test func googleBurstIDWithPrimary() {
        let c = (0..<5).map { i in
            BurstCandidate(id: "pixel/PXL_\(i).jpg", creationDate: Self.date("2024-01-01T10:00:0\(i).000+01:00"),
                           make: "Google", model: "Pixel 8", googleBurstID: "B1", googleBurstPrimary: i == 2)
        }
        let sets = BurstGrouper.group(c)
        #expect(sets.count == 1)
        #expect(sets[0].identifier == "B1")
        #expect(sets[0].representative == "pixel/PXL_2.jpg")
        #expect(sets[0].selectionTypes == ["pixel/PXL_2.jpg": .autoPick])
    }

    @Test func vendorFileNames() {
        let pixel = ["00000IMG_00000_BURST20190512151327453_COVER.jpg", "00001IMG_00001_BURST20190512151327453.jpg",
                     "00002IMG_00002_BURST20190512151327453.jpg"]
        let huawei = ["IMG_20180101_120000_BURST001.jpg", "IMG_20180101_120000_BURST002_COVER.jpg", "IMG_20180101_120000_BURST003.jpg"]
        let samsung3 = ["20160512_123456_001.jpg", "20160512_123456_002.jpg", "20160512_123456_003.jpg"]
        let samsung2 = ["20160512_130000_001.jpg", "20160512_130000_002.jpg"]  // ambiguous: left alone
        var c: [BurstCandidate] = []
        for n in pixel { c.append(BurstCandidate(id: "dcim/" + n, make: "Google", model: "Pixel 3")) }
        for n in huawei { c.append(BurstCandidate(id: "hw/" + n, make: "HUAWEI", model: "P20")) }
        for n in samsung3 + samsung2 { c.append(BurstCandidate(id: "sm/" + n, make: "samsung", model: "SM-G930F")) }
        let sets = BurstGrouper.group(c)
        for s in sets { print(s.members, s.representative, s.reasons.map(\.description)) }
        #expect(sets.count == 3)
        let p = sets.first { $0.members.contains("dcim/" + pixel[0]) }
        #expect(p?.members.count == 3)
        #expect(p?.representative == "dcim/" + pixel[0])
        let h = sets.first { $0.members.contains("hw/" + huawei[0]) }
        #expect(h?.representative == "hw/" + huawei[1])
        #expect(h?.selectionTypes["hw/" + huawei[1]] == .autoPick)
        let s = sets.first { $0.members.contains("sm/" + samsung3[0]) }
        #expect(s?.members.count == 3)
        #expect(s?.representative == "sm/" + samsung3[0])
        #expect(!sets.contains { $0.members.contains("sm/" + samsung2[0]) })
        #expect(sets.allSatisfy { $0.source == .fileName && $0.identifier.count == 36 })
    }

    @Test func timeRule() {
        // 4 frames 0.3 s apart, then one 2 s later; another camera at the same time; a pair 0.2 s apart.
        let times = ["10:00:00.000", "10:00:00.300", "10:00:00.600", "10:00:00.900", "10:00:02.900"]
        var c = times.enumerated().map { i, t in
            BurstCandidate(id: "a/\(i).jpg", creationDate: Self.date("2020-05-05T\(t)+02:00"), make: "Canon", model: "EOS R5")
        }
        c.append(BurstCandidate(id: "b/x.jpg", creationDate: Self.date("2020-05-05T10:00:00.100+02:00"), make: "Nikon", model: "Z6"))
        c.append(BurstCandidate(id: "c/1.jpg", creationDate: Self.date("2020-05-05T11:00:00.000+02:00"), make: "Canon", model: "EOS R5"))
        c.append(BurstCandidate(id: "c/2.jpg", creationDate: Self.date("2020-05-05T11:00:00.200+02:00"), make: "Canon", model: "EOS R5"))
        c.append(BurstCandidate(id: "d/1.jpg", creationDate: Self.date("2020-05-05T12:00:00.000+02:00")))  // no camera
        c.append(BurstCandidate(id: "d/2.jpg", creationDate: Self.date("2020-05-05T12:00:00.000+02:00")))
        c.append(BurstCandidate(id: "d/3.jpg", creationDate: Self.date("2020-05-05T12:00:00.000+02:00")))
        let sets = BurstGrouper.group(c)
        #expect(sets.count == 1)
        #expect(sets.first?.members == ["a/0.jpg", "a/1.jpg", "a/2.jpg", "a/3.jpg"])
        #expect(sets.first?.source == .timeRule)
        #expect(sets.first?.reasons.first?.evidence.contains("≤ 0.5 s") == true)
        print(sets.first?.reasons ?? [])
        // Deterministic: same input in another order gives the same identifier.
        #expect(BurstGrouper.group(c.reversed()).first?.identifier == sets.first?.identifier)
    }

    @Test func userPickCanMoveRepresentativeWhenAsked() {
        let c = (0..<3).map { i in
            BurstCandidate(id: "x/\(i).jpg", creationDate: Self.date("2020-01-01T00:00:0\(i)"), appleBurstUUID: "U", userPicked: i == 1)
        }
        #expect(BurstGrouper.group(c)[0].representative == "x/0.jpg")
        var o = BurstGrouper.Options()
        o.userPickBecomesRepresentative = true
        let s = BurstGrouper.group(c, options: o)[0]
        #expect(s.representative == "x/1.jpg")
        #expect(s.selectionTypes == ["x/1.jpg": .userPick])
    }

    /// Copies of one burst in several folders (one Apple BurstUUID, the same names and times): the
    /// representative is the first frame of the first folder, whatever the (random) local identifiers.
    @Test func copiesOfABurstPickTheFirstFoldersFrame() {
        for ids in [["Z", "A"], ["A", "Z"]] {
            var c: [BurstCandidate] = []
            for (folder, id) in zip(["copy-1", "copy-2"], ids) {
                for i in 0..<2 {
                    var f = BurstCandidate(
                        id: "\(id)-\(i)", filename: "IMG_\(i).JPG", creationDate: Self.date("2020-01-01T00:00:0\(i)"), appleBurstUUID: "U")
                    f.folder = folder
                    c.append(f)
                }
            }
            let s = BurstGrouper.group(c.shuffled())
            #expect(s.count == 1)
            #expect(s.first?.representative == ids[0] + "-0", "\(ids)")
        }
    }

    @Test func identifiers() {
        // RFC 9562 / Python uuid.uuid5(uuid.NAMESPACE_DNS, "www.example.com").
        #expect(StableIdentifier.uuid("www.example.com") == "2ED6657D-E927-568B-95E1-2665A8AEA6A2")
        #expect(StableIdentifier.collection("x").hasSuffix("/L0/040"))
        #expect(StableIdentifier.collectionList("x").hasSuffix("/L0/010"))
    }
}

/// The byte check in front of the burst name patterns must not turn away a name the patterns match.
@Suite struct BurstNameGuardTests {
    @Test func theMarkerCheckIsTheUpperCasedContains() {
        let stems = [
            "00000IMG_00000_BURST20190704162401123", "IMG_0001_BURST001", "img_0001_burst001_cover", "x_BuRsT12", "_BURS", "__BURST1",
            "a_B_BURST7", "_B_BURST", "BURST", "IMG_1234", "", "_burst", "x__burst",
        ]
        for s in stems { #expect(NamePattern.hasBurstMarker(s) == s.uppercased().contains("_BURST"), "\(s)") }
    }

    @Test func namesStillMatch() {
        #expect(NamePattern.match("img_0001_burst001_cover.jpg")?.key == "IMG_0001")
        #expect(NamePattern.match("00000IMG_00000_BURST20190704162401123_COVER.jpg")?.pattern == .pixel)
        #expect(NamePattern.match("20190704_162401_001.jpg")?.key == "20190704_162401")
        // Not ASCII: the patterns decide, as before (upper-casing can change the length).
        #expect(NamePattern.match("straße_BURST2.jpg")?.key == "STRASSE")
        #expect(NamePattern.match("IMG_1234.JPG") == nil)
        #expect(NamePattern.match("20190704_162401_01.jpg") == nil)
    }

    /// `inShotOrder` (each frame's time read once, indices sorted) is the order the rule states, compared one
    /// pair at a time with the times read in the comparison: by time, frames without one last, then name,
    /// folder, id. Random frames with equal times, sub-second times, no times, shared names across folders.
    @Test func framesInShotOrderAreSortedByTheRule() {
        func reference(_ a: BurstCandidate, _ b: BurstCandidate) -> Bool {
            let ta = a.creationDate.flatMap(CivilDate.seconds), tb = b.creationDate.flatMap(CivilDate.seconds)
            if let ta, let tb, ta != tb { return ta < tb }
            if (ta == nil) != (tb == nil) { return ta != nil }
            if a.filename != b.filename { return a.filename < b.filename }
            return a.folder != b.folder ? a.folder < b.folder : a.id < b.id
        }
        var rng = SplitMix(state: 17)
        for round in 0..<20 {
            let frames = (0..<Int.random(in: 1...300, using: &rng)).map { i -> BurstCandidate in
                let folder = ["a", "b", "c"][Int.random(in: 0..<3, using: &rng)]
                let name = "IMG_\(Int.random(in: 0..<40, using: &rng)).JPG"
                let second = Int.random(in: 0..<6, using: &rng), frac = Int.random(in: 0..<3, using: &rng)
                var c = BurstCandidate(
                    id: "\(folder)/\(name)#\(i)", filename: name,
                    creationDate: Int.random(in: 0..<8, using: &rng) == 0 ? nil : BurstTests.date("2024-05-01T10:00:0\(second).\(frac)00"))
                c.folder = folder
                return c
            }
            #expect(BurstGrouper.inShotOrder(frames).map(\.id) == frames.sorted(by: reference).map(\.id), "round \(round)")
        }
    }
}
