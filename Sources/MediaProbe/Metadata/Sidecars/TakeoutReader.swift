/// What a Google Takeout JSON sidecar says, for one media file or (with `isAlbumMetadata`) one album folder.
public struct TakeoutMetadata: Sendable, Equatable, Codable {
    /// A position from `geoData` / `geoDataExif`.
    public struct GeoPoint: Sendable, Equatable, Codable {
        /// Degrees north.
        public var latitude: Double
        /// Degrees east.
        public var longitude: Double
        /// Metres, when given.
        public var altitude: Double?

        /// Creates a point.
        public init(latitude: Double, longitude: Double, altitude: Double?) {
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
        }
    }

    /// `title` (for media: the original file name; for albums: the album title).
    public var title: String?
    /// `description` (nil when empty).
    public var description: String?
    /// `photoTakenTime.timestamp`: Unix seconds, UTC.
    public var photoTakenTime: Int64?
    /// `creationTime.timestamp`: upload time, Unix seconds, UTC.
    public var creationTime: Int64?
    /// `photoLastModifiedTime.timestamp`, Unix seconds, UTC.
    public var modificationTime: Int64?
    /// `geoData` (Google's location, possibly user-edited); nil when absent or 0,0.
    public var geoData: GeoPoint?
    /// `geoDataExif` (the location from the file's EXIF at upload); nil when absent or 0,0.
    public var geoDataExif: GeoPoint?
    /// `favorited`.
    public var favorited: Bool?
    /// `archived`.
    public var archived: Bool?
    /// `trashed`.
    public var trashed: Bool?
    /// `people[].name`.
    public var people: [String]
    /// `url` (photos.google.com link).
    public var url: String?
    /// `imageViews`.
    public var imageViews: Int64?
    /// The first key of `googlePhotosOrigin` (e.g. `mobileUpload`, `webUpload`, `fromSharedAlbum`).
    public var origin: String?
    /// True for album-level files (`albumData`, or `metadata.json` and its translations).
    public var isAlbumMetadata: Bool
    /// Album `date.timestamp` (Unix seconds), for album files.
    public var albumDate: Int64?
    /// Album `location` text, for album files (nil when empty).
    public var albumLocation: String?
    /// Album `access` (e.g. `protected`, `public`), for album files.
    public var albumAccess: String?
}

/// Reads Google Takeout JSON sidecars and knows Takeout's file-naming quirks.
public enum TakeoutReader {
    /// Largest sidecar accepted.
    public static let maxFileSize = 16 << 20

    /// Parses one Takeout JSON file; `fileName` (optional) lets `metadata.json`-style names mark album files.
    public static func read(_ bytes: [UInt8], fileName: String? = nil) throws(ProbeError) -> TakeoutMetadata {
        guard bytes.count <= maxFileSize else { throw ProbeError(.tooLarge, "Takeout JSON: \(bytes.count) bytes exceeds the \(maxFileSize)-byte limit") }
        let root = try SidecarJSON.parse(bytes, what: "Takeout JSON")
        guard case .dict(let top) = root else { throw ProbeError(.notTakeout, "Takeout JSON: top-level value is not an object") }
        let known = ["title", "photoTakenTime", "creationTime", "albumData", "date", "geoData", "url", "description"]
        guard known.contains(where: { top[$0] != nil }) else {
            throw ProbeError(.notTakeout, "Takeout JSON: none of the Takeout keys (\(known.joined(separator: ", "))) present")
        }
        let albumData = top["albumData"]
        let d: SidecarValue = albumData ?? root
        let nameSaysAlbum = fileName.map(isAlbumMetadataName) ?? false
        let shapeSaysAlbum = top["photoTakenTime"] == nil && top["creationTime"] == nil && top["date"] != nil
        let isAlbum = albumData != nil || nameSaysAlbum || shapeSaysAlbum

        var people: [String] = []
        for p in top["people"]?.arrayValue ?? [] {
            if let n = p["name"]?.stringValue, !n.isEmpty { people.append(n) }
        }
        var origin: String?
        if case .dict(let o)? = top["googlePhotosOrigin"] { origin = o.keys.sorted().first }

        return TakeoutMetadata(
            title: d["title"]?.stringValue,
            description: nonEmpty(d["description"]?.stringValue),
            photoTakenTime: timestamp(top["photoTakenTime"]),
            creationTime: timestamp(top["creationTime"]),
            modificationTime: timestamp(top["photoLastModifiedTime"]),
            geoData: geo(d["geoData"]),
            geoDataExif: geo(top["geoDataExif"]),
            favorited: top["favorited"]?.boolValue,
            archived: top["archived"]?.boolValue,
            trashed: top["trashed"]?.boolValue,
            people: people,
            url: top["url"]?.stringValue,
            imageViews: top["imageViews"]?.intValue,
            origin: origin,
            isAlbumMetadata: isAlbum,
            albumDate: isAlbum ? timestamp(d["date"]) : nil,
            albumLocation: isAlbum ? nonEmpty(d["location"]?.stringValue) : nil,
            albumAccess: isAlbum ? nonEmpty(d["access"]?.stringValue) : nil)
    }

    private static func nonEmpty(_ s: String?) -> String? { s.flatMap { $0.isEmpty ? nil : $0 } }

    /// `{"timestamp": "1497944880", "formatted": …}` (or a bare number) → Unix seconds.
    private static func timestamp(_ v: SidecarValue?) -> Int64? {
        guard let v else { return nil }
        if let t = v["timestamp"] { return t.intValue }
        return v.intValue
    }

    private static func geo(_ v: SidecarValue?) -> TakeoutMetadata.GeoPoint? {
        guard let v, let lat = v["latitude"]?.doubleValue, let lon = v["longitude"]?.doubleValue else { return nil }
        guard lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180, !(lat == 0 && lon == 0) else { return nil }
        return TakeoutMetadata.GeoPoint(latitude: lat, longitude: lon, altitude: v["altitude"]?.doubleValue)
    }

    // MARK: - Names

    /// Album-level metadata file names in the languages Takeout is known to use.
    public static let albumMetadataNames: Set<String> = [
        "metadata.json", "metadati.json", "métadonnées.json", "metadaten.json", "metadatos.json", "metadados.json",
        "metadane.json", "metagegevens.json", "metadata(1).json", "метаданные.json", "メタデータ.json",
    ]

    /// Suffixes Google Photos adds to an edited copy, which shares the original's JSON (en, de, fr, it, es, pt, nl, pl, ca, ja).
    public static let editedSuffixes: [String] = [
        "-edited", "-bearbeitet", "-modifié", "-modificato", "-ha editado", "-editado", "-bewerkt", "-edytowane",
        "-editat", "-編集済み", "-effects", "-smile", "-mix",
    ]

    /// Takeout's limit on the JSON name before `(n)` and `.json` (46 in most exports, 47 in some).
    static let clipLengths = [46, 47]
    static let supplemental = ".supplemental-metadata"

    /// Whether `name` is an album-level metadata file (`metadata.json`, `metadati.json`, `métadonnées.json`, …).
    public static func isAlbumMetadataName(_ name: String) -> Bool {
        // String hashing is canonical-equivalence aware, so a decomposed "é" matches too.
        albumMetadataNames.contains(name.lowercased())
    }

    /// JSON sidecar names that may describe the media file `fileName`, most likely first.
    ///
    /// Covers `IMG_1.jpg.json`, `.supplemental-metadata.json` and its clipped forms, names clipped to
    /// 46/47 characters before `.json`, the `(n)` counter moved behind the extension
    /// (`IMG_1(1).jpg` ↔ `IMG_1.jpg(1).json`), edited copies (`IMG_1-edited.jpg` ↔ `IMG_1.jpg.json`),
    /// and the extension-less `IMG_1.json`.
    public static func sidecarCandidates(forMedia fileName: String) -> [String] {
        let (plain, counter) = splitCounter(fileName)
        var originals = [plain]
        if let unedited = removeEditedSuffix(plain) { originals.append(unedited) }
        var out: [String] = []
        func add(_ s: String) { if !out.contains(s) { out.append(s) } }
        for name in originals {
            for body in [name, name + supplemental] {
                let chars = Array(body)
                if chars.count <= clipLengths[0] {
                    add(body + counter + ".json")
                } else {
                    for n in clipLengths where n < chars.count { add(String(chars[0..<n]) + counter + ".json") }
                    add(body + counter + ".json")
                }
            }
        }
        for name in originals {
            let (stem, ext) = splitExtension(name)
            if !ext.isEmpty { add(stem + counter + ".json") }
        }
        // `metadata.json` and its translations describe the folder, never a file.
        return out.filter { !isAlbumMetadataName($0) }
    }

    /// Media names a JSON sidecar may describe, most likely first.
    ///
    /// Deterministic only in one direction: when the JSON name was clipped (46/47 characters) or dropped
    /// the extension, the names returned are prefixes of the real one, so match with `matches(sidecar:media:)`.
    /// Album metadata files and names not ending in `.json` give an empty list.
    public static func mediaNames(forSidecar jsonName: String) -> [String] {
        guard !isAlbumMetadataName(jsonName), jsonName.lowercased().hasSuffix(".json") else { return [] }
        var body = String(jsonName.dropLast(5))
        var counter = ""
        if let (b, c) = trailingCounter(body) {
            body = b
            counter = c
        }
        // Drop `.supplemental-metadata` or any clipped form of it (`.supplemental-metad`, `.suppl`, `.s`).
        if let dot = body.lastIndex(of: "."), dot != body.startIndex {
            let tail = body[body.index(after: dot)...].lowercased()
            if !tail.isEmpty, "supplemental-metadata".hasPrefix(tail), body[..<dot].contains(".") || tail.count >= 2 {
                body = String(body[..<dot])
            }
        }
        guard !body.isEmpty else { return [] }
        let (stem, ext) = splitExtension(body)
        let withCounter = ext.isEmpty ? body + counter : stem + counter + "." + ext
        var out = [withCounter]
        for suffix in editedSuffixes {
            out.append(ext.isEmpty ? stem + suffix + counter : stem + suffix + counter + "." + ext)
        }
        return out
    }

    /// Whether `jsonName` is a Takeout sidecar of `mediaName` under the naming rules above.
    public static func matches(sidecar jsonName: String, media mediaName: String) -> Bool {
        sidecarCandidates(forMedia: mediaName).contains(jsonName)
    }

    /// `IMG_1(2).jpg` → (`IMG_1.jpg`, `(2)`); names without a counter come back unchanged with "".
    static func splitCounter(_ name: String) -> (String, String) {
        let (stem, ext) = splitExtension(name)
        guard let (base, counter) = trailingCounter(stem) else { return (name, "") }
        return (ext.isEmpty ? base : base + "." + ext, counter)
    }

    /// `abc(12)` → (`abc`, `(12)`), for a counter of 1–3 digits at the end.
    static func trailingCounter(_ s: String) -> (String, String)? {
        guard s.hasSuffix(")"), let open = s.lastIndex(of: "(") else { return nil }
        let digits = s[s.index(after: open)..<s.index(before: s.endIndex)]
        guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }), open != s.startIndex else { return nil }
        return (String(s[..<open]), String(s[open...]))
    }

    /// `a.b.jpg` → (`a.b`, `jpg`); a leading dot or no dot gives an empty extension.
    static func splitExtension(_ name: String) -> (String, String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }

    /// `IMG_1-edited.jpg` → `IMG_1.jpg`; nil when the stem has no known edit suffix.
    static func removeEditedSuffix(_ name: String) -> String? {
        let (stem, ext) = splitExtension(name)
        for suffix in editedSuffixes where stem.count > suffix.count && stem.hasSuffix(suffix) {
            let base = String(stem.dropLast(suffix.count))
            return ext.isEmpty ? base : base + "." + ext
        }
        return nil
    }
}
