import Catalog
import Foundation
import PhotoModel
import TestSupport
import Testing

@testable import Pipeline

/// Places and local time through ingest (docs/places.md): the generated fixtures (Fixtures/places.py)
/// and GPS-tagged corpus files, with expectations written by hand.
@Suite(.serialized, .enabled(if: GazetteerFile.isAvailable, "\(GazetteerFile.skipMessage)"))
struct PlacesIngestTests {
    static var fixtures: String { Corpus.fixtures.appendingPathComponent("generated/places").path }

    func ingested(_ root: String) async throws -> (IngestTests.Scratch, Catalog) {
        try #require(PlaceStage.missingNote == nil, "\(PlaceStage.missingNote ?? "")")
        let s = try IngestTests.Scratch()
        let catalog = try Catalog(path: s.catalogPath)
        _ = try await IngestTests.ingest([root], catalog)
        return (s, catalog)
    }

    func info(_ catalog: Catalog, _ path: String) throws -> AssetPlaceInfo {
        let a = try #require(try catalog.findAsset(path), "no asset \(path)")
        return try #require(try catalog.placeInfo(a.localIdentifier))
    }

    @Test func fixturesPlacesAndOffsets() async throws {
        let (scratch, catalog) = try await ingested(Self.fixtures)
        defer { withExtendedLifetime(scratch) {} }  // the scratch folder holds the catalog
        // Either side of the border, same wall-clock time, one hour apart in time.
        let elvas = try info(catalog, "border/elvas.jpg")
        #expect(elvas.placeText == "Elvas, Portalegre, Portugal")
        #expect(elvas.placeID == 2_268_615)
        #expect(elvas.localDate?.description == "2023-07-01T12:00:00+01:00")
        #expect(elvas.zoneReason == "inferred from GPS (Europe/Lisbon, Elvas)")
        #expect(elvas.zoneConfidence == "medium")
        let badajoz = try info(catalog, "border/badajoz.jpg")
        #expect(badajoz.placeText == "Badajoz, Extremadura, Spain")
        #expect(badajoz.localDate?.description == "2023-07-01T12:00:00+02:00")
        #expect(badajoz.timeZone == "Europe/Madrid")
        // Borrowed from the same camera 40 minutes before; nothing 5 hours after.
        let nogps = try info(catalog, "border/elvas-nogps.jpg")
        #expect(nogps.placeID == nil)
        #expect(nogps.localDate?.description == "2023-07-01T12:40:00+01:00")
        #expect(nogps.zoneReason == "borrowed from elvas.jpg, same camera, 40 min earlier (Europe/Lisbon, inferred from GPS)")
        #expect(nogps.zoneConfidence == "low")
        #expect(try info(catalog, "border/elvas-later.jpg") == AssetPlaceInfo())
        // Each side of Lisbon's spring-forward switch.
        #expect(try info(catalog, "dst/dst-before.jpg").localDate?.description == "2023-03-26T00:30:00+00:00")
        #expect(try info(catalog, "dst/dst-after.jpg").localDate?.description == "2023-03-26T03:30:00+01:00")
        // The stated +05:00 stays; the place is still Lisbon.
        let stated = try info(catalog, "dst/stated.jpg")
        #expect(stated.localDate == nil && stated.zoneReason == nil)
        #expect(stated.placeName == "Lisbon")
        #expect(try catalog.findAsset("dst/stated.jpg")?.asset.creationDate?.description == "2023-03-27T09:00:00+05:00")
        // The date line: the same morning on two wall clocks, 23 hours apart.
        #expect(try info(catalog, "dateline/apia.jpg").localDate?.description == "2023-06-10T10:00:00+13:00")
        #expect(try info(catalog, "dateline/pago-pago.jpg").localDate?.description == "2023-06-10T09:00:00-11:00")
        #expect(try info(catalog, "dateline/pago-pago.jpg").placeText == "Pago Pago, Eastern District, American Samoa")
        // Takeout: photoTakenTime (UTC) becomes Tokyo's local time; the stored fact stays UTC.
        let tokyo = try info(catalog, "takeout/tokyo.jpg")
        #expect(tokyo.localDate?.description == "2023-11-15T07:13:20+09:00")
        #expect(tokyo.placeText == "Tokyo, Tokyo, Japan")
        #expect(try catalog.findAsset("takeout/tokyo.jpg")?.asset.creationDate?.description == "2023-11-14T22:13:20+00:00")
    }

    @Test func fixturesMomentTitlesOnLocalDays() async throws {
        let (scratch, catalog) = try await ingested(Self.fixtures)
        defer { withExtendedLifetime(scratch) {} }  // the scratch folder holds the catalog
        let moments = try catalog.collections(type: .moment).map { "\($0.title) [\($0.count)]" }
        #expect(
            moments == [
                "Lisbon, 26 March 2023 [2]", "Lisbon, 27 March 2023 [1]", "Lisbon, 12 May 2023 [2]", "Sintra, 13 May 2023 [2]",
                "Lisbon, 14 May 2023 [1]", "Apia, 10 June 2023 [1]", "Pago Pago, 10 June 2023 [1]",
                "Badajoz & Elvas, 1 July 2023 [4]",
                "Tokyo, 15 November 2023 [1]",
            ])
        let lists = try catalog.collectionLists(subtype: .momentListCluster).map(\.title)
        #expect(lists.contains("Lisbon & Sintra, 12–14 May 2023"), "\(lists)")
    }

    @Test func queriesByPlaceAndCountry() async throws {
        let (scratch, catalog) = try await ingested(Self.fixtures)
        defer { withExtendedLifetime(scratch) {} }  // the scratch folder holds the catalog
        func count(_ p: String) throws -> Int {
            try catalog.fetchAssets(FetchOptions(predicate: PredicateCompiler.compile(p))).count
        }
        // Lisbon ×3 and Sintra ×2 (region: Lisbon) in trip/, Lisbon ×3 in dst/.
        #expect(try count("place CONTAINS \"Lisbon\"") == 8)
        #expect(try count("placeName == \"Lisbon\"") == 6)
        #expect(try count("country ==[c] \"es\"") == 1)
        #expect(try count("countryName == \"American Samoa\"") == 1)
        #expect(try count("placeIdentifier == 2268615") == 1)
        // Zones are recorded only where inferred: trip/ ×5, dst/ ×2 (stated.jpg states its offset), elvas and
        // elvas-nogps.
        #expect(try count("timeZone == \"Europe/Lisbon\"") == 9)
        #expect(try count("place == nil") == 2)
    }

    /// GPS-tagged iPhone, Android and camera files of the corpus.
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func corpusPlacesAndZones() async throws {
        let (scratch, catalog) = try await ingested(try #require(Corpus.root).path)
        defer { withExtendedLifetime(scratch) {} }  // the scratch folder holds the catalog
        // iPhone XR HEIC in Lisbon (Belém), no OffsetTimeOriginal: Lisbon summer time.
        let heic = try info(catalog, "metadata-extractor-images/heic/Issue 263 dotnet.heic")
        #expect(heic.placeText == "Lisbon, Lisbon, Portugal")
        #expect(heic.localDate?.description == "2019-08-21T11:21:36.245+01:00")
        #expect(heic.timeZone == "Europe/Lisbon")
        // Fujifilm S1 Pro (2002) near Prudhoe: British Summer Time from the Europe/London rules.
        let fuji = try info(catalog, "exiftool-t-images/GPS.jpg")
        #expect(fuji.placeName == "Prudhoe")
        #expect(fuji.placeCountry == "GB")
        #expect(fuji.localDate?.description == "2002-07-13T15:58:28+01:00")
        // Nikon D5000 in Mongolia: UTC+08:00.
        #expect(try info(catalog, "lychee/mongolia.jpeg").localDate?.description == "2011-08-17T16:39:37.50+08:00")
        // iPhone 6s in Adelaide in June (winter): +09:30, no DST.
        let adelaide = try info(catalog, "osxphotos/Takeout/Google Photos/Adelaide/IMG_4547.jpg")
        #expect(adelaide.placeText == "Adelaide, South Australia, Australia")
        #expect(adelaide.localDate?.description == "2017-06-20T17:18:56.518+09:30")
        // Pixel 8 Pro (Android) in Madrid states +02:00: named, never re-zoned.
        let pixel = try info(catalog, "exiftool-t-images/Google.jpg")
        #expect(pixel.placeText == "Madrid, Madrid, Spain")
        #expect(pixel.localDate == nil)
        // A video dated only by its mvhd (UTC) near London in February: GMT, the instant unchanged.
        let mp4 = try info(catalog, "metadata-extractor-images/mp4/with-gps.mp4")
        #expect(mp4.localDate?.description == "2017-02-22T08:20:28+00:00")
        #expect(mp4.timeZone == "Europe/London")
        #expect(!PlaceStage.isUTCInstant("EXIF DateTimeOriginal; offset inferred from EXIF GPSDateStamp + GPSTimeStamp (UTC) (libexif) (local − UTC, rounded to 15 min)"))
        #expect(PlaceStage.isUTCInstant("QuickTime mvhd creation time (UTC)"))
        // iPhone 5 without GPS: the offset its own camera stated on a movie 1 h 13 min later.
        let borrowed = try info(catalog, "osxphotos/photos_library_cloud/IMG_0003.JPG")
        #expect(borrowed.localDate?.description == "2020-01-05T12:41:41.273-08:00")
        #expect(borrowed.zoneConfidence == "low")
    }

    /// A gazetteer added later: the next ingest derives places and records them as changes.
    @Test func gazetteerChangeIsRecorded() async throws {
        let (scratch, catalog) = try await ingested(Self.fixtures)
        defer { withExtendedLifetime(scratch) {} }  // the scratch folder holds the catalog
        // As if the catalog had been derived without a gazetteer.
        try catalog.applyPlaces([:], runID: nil)
        try catalog.setMetaValue(Catalog.gazetteerMetaKey, "none")
        let token = try catalog.currentToken()
        #expect(try PlaceStage.gazetteerChanged(catalog))
        _ = try await IngestTests.ingest([Self.fixtures], catalog)
        let changes = try catalog.changes(since: token).filter { $0.objectType == "asset" }
        #expect(changes.count == 14, "\(changes.map(\.properties))")  // every asset but elvas-later.jpg
        #expect(changes.contains { $0.properties == ["place", "localDate"] })
        #expect(try info(catalog, "border/elvas.jpg").placeName == "Elvas")
        #expect(try !PlaceStage.gazetteerChanged(catalog))
    }
}
