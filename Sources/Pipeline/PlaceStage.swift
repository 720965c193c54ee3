import Catalog
import Foundation
import Organize
import PhotoModel
import Places

/// The places step of the organize stage: each asset's place from its GPS position, the local time of
/// dates that state no offset, stored with reasons (docs/places.md). Derived from catalog values and the
/// gazetteer only, so `shoebox rederive` recomputes it and a gazetteer update shows up as changes.
public enum PlaceStage {
    /// The gazetteer this process uses, looked up once (`Gazetteer.candidatePaths`).
    public static let gazetteer: Result<Gazetteer, GazetteerError> = Gazetteer.locate()

    /// The one-line note printed when there is no gazetteer.
    public static var missingNote: String? {
        if case .failure(let e) = gazetteer { return e.description }
        return nil
    }

    /// The identity recorded for the places in the catalog (`none` without a gazetteer).
    static var identity: String {
        switch gazetteer {
        case .success(let g): return g.identity
        case .failure: return "none"
        }
    }

    /// Whether the catalog's places were derived with another gazetteer (or none), so organize must run.
    public static func gazetteerChanged(_ catalog: Catalog) throws -> Bool {
        try catalog.metaValue(Catalog.gazetteerMetaKey) != identity
    }

    /// Records which gazetteer (or none) the stored places were derived with.
    static func recordIdentity(_ catalog: Catalog) throws { try catalog.setMetaValue(Catalog.gazetteerMetaKey, identity) }

    /// Whether a creation date is a UTC instant rather than a wall clock: Takeout's `photoTakenTime (UTC)`
    /// and the QuickTime `mvhd creation time (UTC)` (both end so; a local date whose offset was inferred from
    /// the GPS UTC stamp does not).
    static func isUTCInstant(_ source: String?) -> Bool { source?.hasSuffix(" (UTC)") == true }

    /// The camera a date without an offset borrows one within: the camera's name, else the folder.
    static func camera(_ r: OrganizeRow, _ names: inout StringInterner) -> String { names.intern(cameraKey(r)) }

    /// The same, not interned.
    static func cameraKey(_ r: OrganizeRow) -> String {
        CameraName.display(make: r.make, model: r.model).map { "camera:" + $0 } ?? "folder:" + r.folder
    }

    /// Whether two rows of an asset are the same to this step: every field `derive` reads (the name breaks ties
    /// and is quoted in reasons; the folder stands for the camera only without one). An asset whose row changed
    /// in nothing else — its folder renamed, its burst set — neither gets nor lends other places or zones.
    static func sameInputs(_ a: OrganizeRow, _ b: OrganizeRow) -> Bool {
        a.filename == b.filename && a.creationDate == b.creationDate && a.creationDateSource == b.creationDateSource
            && a.latitude == b.latitude && a.longitude == b.longitude && cameraKey(a) == cameraKey(b)
    }

    /// The place information of each row that has some, with this process's gazetteer (none without one).
    /// The gazetteer's pages this derivation touched are given back after it (`releaseResidentPages`).
    static func derive(_ rows: [OrganizeRow], keeping keep: (String) -> Bool = { _ in true }) -> [String: AssetPlaceInfo] {
        guard case .success(let g) = gazetteer else { return [:] }
        defer { g.releaseResidentPages() }
        return derive(rows, gazetteer: g, keeping: keep)
    }

    /// The place information of each row that has some (pure apart from the gazetteer and tzdata). All rows
    /// are inputs (a date without an offset borrows one from its neighbours); only those `keep` accepts are
    /// in the result.
    public static func derive(
        _ rows: [OrganizeRow], gazetteer: Gazetteer, keeping keep: (String) -> Bool = { _ in true }
    ) -> [String: AssetPlaceInfo] {
        var cameras = StringInterner()  // one string per camera or folder, not per asset
        let subjects = rows.map { r in
            let camera = camera(r, &cameras)
            return PlaceSubject(
                id: r.localIdentifier, name: r.filename, date: r.creationDate,
                dateIsUTC: isUTCInstant(r.creationDateSource), latitude: r.latitude,
                longitude: r.longitude,
                camera: camera)
        }
        let result = PlaceInference.run(subjects, gazetteer: gazetteer)
        var infos: [String: AssetPlaceInfo] = [:]
        for (id, p) in result.places where keep(id) {
            var info = infos[id] ?? AssetPlaceInfo()
            info.placeID = p.place.geonameID
            info.placeName = p.place.name
            info.placeAdmin1 = p.place.admin1.isEmpty ? nil : p.place.admin1
            info.placeCountry = p.place.countryCode
            info.placeCountryName = p.place.countryName
            info.placeReason = p.reason
            infos[id] = info
        }
        for (id, z) in result.zones where keep(id) {
            var info = infos[id] ?? AssetPlaceInfo()
            info.localDate = z.localDate
            info.timeZone = z.zone
            info.zoneReason = z.reason
            info.zoneConfidence = z.confidence.rawValue
            infos[id] = info
        }
        return infos
    }
}
