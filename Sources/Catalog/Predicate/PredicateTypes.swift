import PhotoModel

/// A predicate that does not compile: where (a 0-based UTF-8 offset into `source`) and why.
public struct PredicateError: Error, Sendable, Equatable, CustomStringConvertible {
    public var position: Int
    public var message: String
    public var source: String

    public init(position: Int, message: String, source: String) {
        self.position = position
        self.message = message
        self.source = source
    }

    /// The line (1-based) and the column (1-based, in characters) of `position`.
    public var lineAndColumn: (line: Int, column: Int) {
        let (line, prefix, _) = locate()
        return (line, prefix.count + 1)
    }

    /// `error: at column N: message` (the prefix every error line has), the source line and a caret under
    /// the offending spot.
    public var description: String {
        let (line, prefix, text) = locate()
        let caret = String(prefix.map { $0 == "\t" ? "\t" : " " }) + "^"
        let multiLine = source.contains("\n")
        let at = multiLine ? "line \(line), column \(prefix.count + 1)" : "column \(prefix.count + 1)"
        return "error: at \(at): \(message)\n\(text)\n\(caret)"
    }

    /// The line number, the part of that line before `position`, and the whole line.
    private func locate() -> (Int, String, String) {
        let bytes = Array(source.utf8)
        let p = max(0, min(position, bytes.count))
        var start = p
        while start > 0 && bytes[start - 1] != UInt8(ascii: "\n") { start -= 1 }
        var end = p
        while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
        let line = 1 + bytes[..<start].filter { $0 == UInt8(ascii: "\n") }.count
        let prefix = String(decoding: bytes[start..<p], as: UTF8.self)
        let text = String(decoding: bytes[start..<end], as: UTF8.self)
        return (line, prefix, text)
    }
}

/// A value bound to one `?` of a compiled predicate.
public enum PredicateValue: Sendable, Equatable, Hashable, CustomStringConvertible {
    case null
    case int(Int64)
    case double(Double)
    case text(String)

    public var description: String {
        switch self {
        case .null: return "NULL"
        case .int(let v): return String(v)
        case .double(let v): return String(v)
        case .text(let s): return "'" + s + "'"
        }
    }
}

/// A compiled predicate: a boolean SQL expression over `asset a` and the values of its `?` placeholders,
/// in order. No value from the predicate or its arguments ever appears in `sql`.
public struct CompiledPredicate: Sendable, Equatable {
    public var sql: String
    public var arguments: [PredicateValue]

    public init(sql: String, arguments: [PredicateValue]) {
        self.sql = sql
        self.arguments = arguments
    }
}

/// A documented key path: the SQL it reads (over `asset a`) and how its values are typed.
public struct KeyPathInfo: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        /// Whole numbers and real numbers compare numerically.
        case integer, real
        /// `YES`/`NO`; only `==` and `!=`.
        case boolean
        /// Text: comparisons, `CONTAINS`, `BEGINSWITH`, `ENDSWITH`, `LIKE`, `[c]`, `[d]`.
        case text
        /// ISO-8601 text holding the local wall-clock capture time (`creationDate`).
        case localDate
        /// ISO-8601 text in UTC (`modificationDate`, `addedDate`).
        case utcDate
        /// A PhotoKit enumeration: names (`constants`) or raw numbers; `==`, `!=`, `IN`.
        case enumeration
        /// A PhotoKit option set: `CONTAINS name`, `(key & mask) != 0`, `==` on the whole mask.
        case bitmask
        /// Shoebox's traits (a sorted comma list): `CONTAINS name`, `name IN traits`.
        case traits
        /// `location`: only `== nil` and `!= nil`.
        case location
    }

    /// SQL over the alias `a`; fixed text, never built from the predicate.
    public var column: String
    public var kind: Kind
    /// Whether the column can be NULL (`== nil` is then meaningful).
    public var nullable: Bool
    /// Names usable as constants (enumerations and bitmasks), with their PhotoKit raw values.
    public var constants: [String: Int64]
    public var summary: String

    public init(column: String, kind: Kind, nullable: Bool = false, constants: [String: Int64] = [:], summary: String) {
        self.column = column
        self.kind = kind
        self.nullable = nullable
        self.constants = constants
        self.summary = summary
    }
}

extension PredicateCompiler {
    /// Shoebox's trait names (usable unquoted after `traits CONTAINS`); any quoted name is accepted too.
    public static let knownTraits: [String] = [
        Trait.selfie, .raw, .proRAW, .animated, .slomo, .burst, .motionPhoto, .motionPhotoClaimBroken, .hasDepthData,
        .hasHDRGainMap, .panoramaLike, .edited, .possibleRenderedSlomo, .screenRecordingByName,
    ].map(\.rawValue).sorted()

    /// Every documented key path, with its aliases (`location.latitude` …).
    public static let keyPaths: [String: KeyPathInfo] = {
        let mediaTypes = Dictionary(uniqueKeysWithValues: MediaType.allCases.map { ($0.name, Int64($0.rawValue)) })
        let subtypes = Dictionary(uniqueKeysWithValues: MediaSubtypes.named.map { ($0.1, Int64($0.0.rawValue)) })
        let styles = Dictionary(uniqueKeysWithValues: PlaybackStyle.allCases.map { ($0.name, Int64($0.rawValue)) })
        let variations: [String: Int64] = [
            "none": Int64(PlaybackVariation.none.rawValue), "autoloop": Int64(PlaybackVariation.autoloop.rawValue),
            "mirror": Int64(PlaybackVariation.mirror.rawValue), "longExposure": Int64(PlaybackVariation.longExposure.rawValue),
        ]
        let burstTypes: [String: Int64] = [
            "autoPick": Int64(BurstSelectionTypes.autoPick.rawValue), "userPick": Int64(BurstSelectionTypes.userPick.rawValue),
        ]
        var k: [String: KeyPathInfo] = [
            "mediaType": .init(column: "a.media_type", kind: .enumeration, constants: mediaTypes, summary: "PHAssetMediaType"),
            "mediaSubtypes": .init(column: "a.media_subtypes", kind: .bitmask, constants: subtypes, summary: "PHAssetMediaSubtype bits"),
            "playbackStyle": .init(column: "a.playback_style", kind: .enumeration, constants: styles, summary: "PHAssetPlaybackStyle"),
            "playbackVariation": .init(
                column: "a.playback_variation", kind: .enumeration, constants: variations, summary: "PHAssetPlaybackVariation"),
            "burstSelectionTypes": .init(
                column: "a.burst_selection_types", kind: .bitmask, constants: burstTypes, summary: "PHAssetBurstSelectionType bits"),
            "creationDate": .init(
                column: "a.creation_date", kind: .localDate, nullable: true, summary: "capture time, local wall clock"),
            "modificationDate": .init(
                column: "rtrim(a.modification_date, 'Z')", kind: .utcDate, summary: "last change in the catalog, UTC"),
            "addedDate": .init(column: "rtrim(a.added_date, 'Z')", kind: .utcDate, summary: "first ingest, UTC"),
            "isFavorite": .init(column: "a.is_favorite", kind: .boolean, summary: "favorite"),
            "isHidden": .init(column: "a.is_hidden", kind: .boolean, summary: "hidden"),
            "hasAdjustments": .init(column: "a.has_adjustments", kind: .boolean, summary: "edited (has adjustment data)"),
            "representsBurst": .init(column: "a.represents_burst", kind: .boolean, summary: "stands for a burst"),
            "isTrashed": .init(column: "(a.trashed_at IS NOT NULL)", kind: .boolean, summary: "in Recently Deleted"),
            "pixelWidth": .init(column: "a.pixel_width", kind: .integer, summary: "width in display orientation"),
            "pixelHeight": .init(column: "a.pixel_height", kind: .integer, summary: "height in display orientation"),
            "duration": .init(column: "a.duration", kind: .real, summary: "seconds (0 for photos)"),
            "burstIdentifier": .init(column: "a.burst_identifier", kind: .text, nullable: true, summary: "burst identifier"),
            "contentIdentifier": .init(
                column: "a.content_identifier", kind: .text, nullable: true, summary: "Live Photo pairing identifier"),
            "localIdentifier": .init(column: "a.local_identifier", kind: .text, summary: "catalog identifier"),
            "cloudIdentifier": .init(column: "a.cloud_identifier", kind: .text, summary: "content-derived identifier"),
            "filename": .init(column: "a.filename", kind: .text, summary: "primary resource's file name"),
            "make": .init(column: "a.make", kind: .text, nullable: true, summary: "camera make"),
            "model": .init(column: "a.model", kind: .text, nullable: true, summary: "camera model"),
            "lensModel": .init(column: "a.lens_model", kind: .text, nullable: true, summary: "lens model"),
            "traits": .init(column: "a.traits", kind: .traits, summary: "Shoebox traits"),
            "location": .init(column: "a.latitude", kind: .location, nullable: true, summary: "nil when there is no location"),
            // Places (docs/places.md): derived from GPS by the offline gazetteer.
            "place": .init(
                column: "(a.place_name || coalesce(', ' || a.place_admin1, '') || coalesce(', ' || a.place_country_name, ''))", kind: .text,
                nullable: true, summary: "place, region and country (`Lisbon, Lisbon, Portugal`)"),
            "placeName": .init(column: "a.place_name", kind: .text, nullable: true, summary: "place name (GeoNames)"),
            "placeIdentifier": .init(column: "a.place_id", kind: .integer, nullable: true, summary: "the place's GeoNames id"),
            "country": .init(column: "a.place_country", kind: .text, nullable: true, summary: "ISO 3166 country code of the place"),
            "countryName": .init(column: "a.place_country_name", kind: .text, nullable: true, summary: "country name of the place"),
            "timeZone": .init(column: "a.time_zone", kind: .text, nullable: true, summary: "IANA zone inferred for a date without offset"),
        ]
        for (name, col, summary) in [
            ("latitude", "a.latitude", "degrees"), ("longitude", "a.longitude", "degrees"), ("altitude", "a.altitude", "metres"),
        ] {
            let info = KeyPathInfo(column: col, kind: .real, nullable: true, summary: summary)
            k[name] = info
            k["location." + name] = info
            if name != "altitude" { k["location.coordinate." + name] = info }
        }
        return k
    }()
}

extension PredicateCompiler {
    /// `PredicateError` under a name that Foundation's own `PredicateError` (Swift 6's `#Predicate`) cannot
    /// shadow: a file that imports both Foundation and Catalog can write `PredicateCompiler.CompileError`.
    public typealias CompileError = PredicateError
}
