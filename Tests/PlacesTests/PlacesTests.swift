import Foundation
import Organize
import PhotoModel
@testable import Places
import TestSupport
import Testing

/// IANA zone rules from the system tzdata: offsets on each side of DST switches and across the date line.
@Suite struct ZoneRulesTests {
    @Test func lisbonSpringForward() {
        // 2023-03-26 01:00 UTC: Lisbon goes from WET (+00:00) to WEST (+01:00); 01:00–02:00 local never happens.
        #expect(ZoneRules.offset(zone: "Europe/Lisbon", local: WallClock.seconds("2023-03-26T00:30:00")!) == 0)
        #expect(ZoneRules.offset(zone: "Europe/Lisbon", local: WallClock.seconds("2023-03-26T03:30:00")!) == 3600)
        // A skipped wall time takes the offset in force before the switch.
        #expect(ZoneRules.offset(zone: "Europe/Lisbon", local: WallClock.seconds("2023-03-26T01:30:00")!) == 0)
        #expect(ZoneRules.offset(zone: "Europe/Madrid", local: WallClock.seconds("2023-03-26T00:30:00")!) == 3600)
        #expect(ZoneRules.offset(zone: "Europe/Madrid", local: WallClock.seconds("2023-03-26T03:30:00")!) == 7200)
    }

    @Test func lisbonFallBack() {
        // 2023-10-29 01:00 UTC: 02:00 WEST becomes 01:00 WET; 01:00–02:00 local happens twice.
        #expect(ZoneRules.offset(zone: "Europe/Lisbon", local: WallClock.seconds("2023-10-29T00:30:00")!) == 3600)
        #expect(ZoneRules.offset(zone: "Europe/Lisbon", local: WallClock.seconds("2023-10-29T02:30:00")!) == 0)
        // A repeated wall time takes the first (daylight) offset.
        #expect(ZoneRules.offset(zone: "Europe/Lisbon", local: WallClock.seconds("2023-10-29T01:30:00")!) == 3600)
    }

    @Test func historyAndDateLine() {
        // Samoa skipped 30 December 2011 and moved from UTC−10 (DST) to UTC+14 (DST).
        #expect(ZoneRules.offset(zone: "Pacific/Apia", local: WallClock.seconds("2011-12-29T12:00:00")!) == -10 * 3600)
        #expect(ZoneRules.offset(zone: "Pacific/Apia", local: WallClock.seconds("2011-12-31T12:00:00")!) == 14 * 3600)
        #expect(ZoneRules.offset(zone: "Pacific/Pago_Pago", local: WallClock.seconds("2023-06-10T09:00:00")!) == -11 * 3600)
        // Portugal used CET (+01:00) from 1992 to 1996.
        #expect(ZoneRules.offset(zone: "Europe/Lisbon", local: WallClock.seconds("1993-01-15T12:00:00")!) == 3600)
        #expect(ZoneRules.offset(zone: "Asia/Tokyo", utc: 1_700_000_000) == 9 * 3600)
        #expect(ZoneRules.offset(zone: "Not/AZone", utc: 0) == nil)
    }

    @Test func wallClockRoundTrip() {
        #expect(WallClock.seconds("1970-01-01T00:00:00") == 0)
        #expect(WallClock.text(1_700_000_000) == "2023-11-14T22:13:20")
        #expect(
            WallClock.text(
                WallClock.seconds("2024-02-29T23:59:59.5")! + 1, fraction: WallClock.fraction("x2024-02-29T23:59:59.5"))
                == "2024-03-01T00:00:00")
        #expect(WallClock.fraction("2024-02-29T23:59:59.250") == ".250")
        #expect(WallClock.seconds("2024-13-01T00:00:00") == nil)
    }
}

/// The gazetteer file and what inference makes of it (skipped without `make gazetteer`).
@Suite(.enabled(if: GazetteerFile.isAvailable, "\(GazetteerFile.skipMessage)")) struct GazetteerTests {
    static let g: Gazetteer? = try? Gazetteer(contentsOf: GazetteerFile.path)

    @Test func readsTheFile() throws {
        let g = try #require(Self.g)
        #expect(g.placeCount > 150_000)
        #expect(g.identity.hasPrefix("GeoNames cities1000"))
        #expect(g.attribution.contains("CC BY 4.0"))
    }

    @Test func refusesOtherFiles() throws {
        let s = try TestScratch("gazetteer")
        let p = s.url.appendingPathComponent("not.bin").path
        FileManager.default.createFile(atPath: p, contents: Data("SBGAZ but not really".utf8))
        #expect(throws: GazetteerError.self) { try Gazetteer(contentsOf: p) }
        #expect(throws: GazetteerError.self) { try Gazetteer(contentsOf: s.url.appendingPathComponent("missing.bin").path) }
        // A file cut short is refused with the reason.
        let whole = try Data(contentsOf: URL(fileURLWithPath: GazetteerFile.path))
        FileManager.default.createFile(atPath: p, contents: whole.prefix(whole.count - 10))
        do {
            _ = try Gazetteer(contentsOf: p)
            Issue.record("a truncated gazetteer was accepted")
        } catch {
            #expect(error.description.contains("truncated"))
        }
    }

    /// A file of the right shape whose offsets point past its end (damaged, or crafted: `SHOEBOX_GAZETTEER`
    /// names any file): a string offset reads as no text and a cell offset is refused, instead of reading
    /// out of bounds; an empty file is refused.
    @Test func damagedOffsetsAreNotFollowed() throws {
        let s = try TestScratch("gazetteer-offsets")
        let p = s.url.appendingPathComponent("odd.bin").path
        func le(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
        let strings = Array("identity\u{0}".utf8)
        var b: [UInt8] = Array("SBGAZ".utf8) + [0, 0, 1]
        b += le(0) + le(UInt32(strings.count)) + le(0) + le(1_000_000)  // no places; attribution far past the end
        b += [UInt8](repeating: 0, count: (180 * 360 + 1) * 4) + strings
        FileManager.default.createFile(atPath: p, contents: Data(b))
        let g = try Gazetteer(contentsOf: p)
        #expect(g.identity == "identity")
        #expect(g.attribution == "")
        #expect(g.placeCount == 0)
        #expect(g.place(at: 38.7, -9.1) == nil)
        FileManager.default.createFile(atPath: p, contents: Data())
        #expect(throws: GazetteerError.self) { try Gazetteer(contentsOf: p) }
        // A cell whose records would start past the last record is refused, not followed.
        var bad = b
        bad.replaceSubrange((24 + 100 * 4)..<(24 + 101 * 4), with: le(7))
        FileManager.default.createFile(atPath: p, contents: Data(bad))
        do {
            _ = try Gazetteer(contentsOf: p)
            Issue.record("a gazetteer with a cell past its records was accepted")
        } catch {
            #expect(error.description.contains("cell 100"))
        }
    }

    /// A derivation's pages are given back after it (`releaseResidentPages`): none of the mapping stays
    /// resident, and the next lookups map again what they read, with the same answers.
    @Test func residentPagesAreGivenBack() throws {
        let g = try Gazetteer(contentsOf: GazetteerFile.path)  // a mapping of its own: no other test's lookups in it
        let points = [(38.8808, -7.1628), (48.8566, 2.3522), (35.6762, 139.6503), (-33.8688, 151.2093), (40.7128, -74.0060)]
        let first = points.map { g.place(at: $0.0, $0.1)?.place.geonameID }
        #expect(first.allSatisfy { $0 != nil })
        #expect(try #require(try Self.residentKiB(g.bytes)) > 0)
        g.releaseResidentPages()
        #expect(try #require(try Self.residentKiB(g.bytes)) == 0)
        #expect(points.map { g.place(at: $0.0, $0.1)?.place.geonameID } == first)
        #expect(try #require(try Self.residentKiB(g.bytes)) > 0)
    }

    /// The resident KiB of the mapping that starts at `b`'s first byte, from `/proc/self/smaps`.
    static func residentKiB(_ b: UnsafeRawBufferPointer) throws -> Int? {
        let data = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/smaps")).readToEnd() ?? Data()
        let start = String(UInt(bitPattern: b.baseAddress), radix: 16)
        var inside = false
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            if let dash = line.firstIndex(of: "-"), line[..<dash].allSatisfy(\.isHexDigit) {
                inside = line[..<dash] == start
            } else if inside, line.hasPrefix("Rss:") {
                return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            }
        }
        return nil
    }

    @Test func placesOnEachSideOfTheBorder() throws {
        let g = try #require(Self.g)
        let elvas = try #require(g.place(at: 38.8808, -7.1628))
        #expect(elvas.place.name == "Elvas")
        #expect(elvas.place.geonameID == 2_268_615)
        #expect(elvas.place.countryCode == "PT")
        #expect(elvas.place.admin1 == "Portalegre")
        #expect(elvas.place.timeZone == "Europe/Lisbon")
        let badajoz = try #require(g.place(at: 38.8786, -6.9703))
        #expect(badajoz.place.fullName == "Badajoz, Extremadura, Spain")
        #expect(badajoz.place.timeZone == "Europe/Madrid")
        // A neighbourhood in GeoNames gives way to its city (Lisbon's urban radius is 7 km).
        let belem = try #require(g.place(at: 38.6916, -9.2160))
        #expect(belem.place.name == "Lisbon")
        #expect(belem.place.geonameID == 2_267_057)
        // Sintra (26,000 people) is named, not the bigger Algueirão 4 km away.
        #expect(g.place(at: 38.7987, -9.3883)?.place.name == "Sintra")
        // Open sea: no place within 25 km; no place within 500 km for the zone either.
        #expect(g.place(at: 38.0, -30.0) == nil)
        #expect(g.nearest(at: 0.0, -140.0) == nil)
        // Across the antimeridian: Taveuni (Fiji) straddles 180°.
        #expect(g.nearest(at: -16.85, 179.99)?.place.countryCode == "FJ")
    }

    func subject(_ id: String, _ date: String, _ gps: (Double, Double)?, camera: String = "cam", utc: Bool = false)
        -> PlaceSubject
    {
        PlaceSubject(
            id: id, name: id, date: AssetDate(iso: date), dateIsUTC: utc, latitude: gps?.0, longitude: gps?.1, camera: camera)
    }

    @Test func zonesForNaiveDates() throws {
        let g = try #require(Self.g)
        let r = PlaceInference.run(
            [
                subject("elvas", "2023-07-01T12:00:00", (38.8808, -7.1628)),
                subject("badajoz", "2023-07-01T12:00:00", (38.8786, -6.9703), camera: "other"),
                subject("nogps", "2023-07-01T12:40:00", nil),
                subject("later", "2023-07-01T16:00:01", nil),
                subject("elsewhere", "2023-07-01T12:10:00", nil, camera: "third"),
                subject("stated", "2023-07-01T12:00:00+05:00", (38.7223, -9.1393)),
                subject("tokyo", "2023-11-14T22:13:20Z", (35.6895, 139.6917), utc: true),
            ], gazetteer: g)
        #expect(
            r.zones["elvas"]
                == ZoneJudgement(
                    zone: "Europe/Lisbon", localDate: AssetDate(local: "2023-07-01T12:00:00", offsetSeconds: 3600),
                    reason: "inferred from GPS (Europe/Lisbon, Elvas)", confidence: .medium))
        #expect(r.zones["badajoz"]?.localDate == AssetDate(local: "2023-07-01T12:00:00", offsetSeconds: 7200))
        #expect(
            r.zones["nogps"]
                == ZoneJudgement(
                    zone: "Europe/Lisbon", localDate: AssetDate(local: "2023-07-01T12:40:00", offsetSeconds: 3600),
                    reason: "borrowed from elvas, same camera, 40 min earlier (Europe/Lisbon, inferred from GPS)",
                    confidence: .low))
        // 4 h 0 min 1 s from the nearest same-camera photo: beyond the 3-hour window; another camera lends nothing.
        #expect(r.zones["later"] == nil)
        #expect(r.zones["elsewhere"] == nil)
        // A stated offset is never replaced (the place is still named).
        #expect(r.zones["stated"] == nil)
        #expect(r.places["stated"]?.place.name == "Lisbon")
        // Takeout's UTC instant becomes Tokyo's wall clock, the next morning.
        #expect(r.zones["tokyo"]?.localDate == AssetDate(local: "2023-11-15T07:13:20", offsetSeconds: 9 * 3600))
    }

    @Test func borrowsAStatedOffsetAndCrossesTheDateLine() throws {
        let g = try #require(Self.g)
        let r = PlaceInference.run(
            [
                subject("phone", "2023-06-10T10:00:00+13:00", nil),
                subject("camera-no-gps", "2023-06-10T10:05:00", nil),
                subject("apia", "2023-06-10T10:00:00", (-13.8333, -171.7667), camera: "b"),
                subject("pago", "2023-06-10T09:00:00", (-14.2781, -170.7025), camera: "b"),
            ], gazetteer: g)
        #expect(r.zones["camera-no-gps"]?.localDate.offsetSeconds == 13 * 3600)
        #expect(r.zones["camera-no-gps"]?.reason == "borrowed from phone, same camera, 5 min earlier (offset +13:00 stated)")
        #expect(r.zones["apia"]?.localDate.offsetSeconds == 13 * 3600)
        #expect(r.zones["pago"]?.localDate.offsetSeconds == -11 * 3600)
        // An hour earlier on the wall clock in Pago Pago is 23 hours later in time.
        let apia = try #require(r.zones["apia"]).localDate, pago = try #require(r.zones["pago"]).localDate
        let instant = { (d: AssetDate) in WallClock.seconds(d.local)! - d.offsetSeconds! }
        #expect(instant(pago) - instant(apia) == 23 * 3600)
    }

    @Test func atSeaTheNauticalZone() throws {
        let g = try #require(Self.g)
        let r = PlaceInference.run([subject("ship", "2023-06-10T10:00:00", (0.0, -140.0))], gazetteer: g)
        #expect(r.places["ship"] == nil)
        #expect(r.zones["ship"]?.localDate.offsetSeconds == -9 * 3600)
        #expect(r.zones["ship"]?.confidence == .low)
        #expect(r.zones["ship"]?.zone == nil)
    }

    /// Lookup speed: place and zone for one asset, averaged over 20,000 points near places.
    @Test func lookupSpeed() throws {
        let g = try #require(Self.g)
        var points: [(Double, Double)] = []
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let p = g.place(Int.random(in: 0..<g.placeCount, using: &rng))
            points.append(
                (
                    p.latitude + Double.random(in: -0.1...0.1, using: &rng),
                    p.longitude + Double.random(in: -0.1...0.1, using: &rng)
                ))
        }
        let start = Date()
        var found = 0
        for (la, lo) in points {
            if g.place(at: la, lo) != nil { found += 1 }
            if g.nearest(at: la, lo) != nil { found += 1 }
        }
        let perAsset = Date().timeIntervalSince(start) / Double(points.count)
        print("places lookup: \(String(format: "%.1f", perAsset * 1e6)) µs per asset (place + zone), \(found) found")
        #expect(found >= points.count)
        #expect(perAsset < 0.01)
    }
}
