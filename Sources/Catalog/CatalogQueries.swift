import Foundation
import GRDB
import PhotoModel

extension Catalog {
    // MARK: - Change tokens

    /// Tokens are opaque text: `sbx1.<catalog id>.<number>`, so a token from another catalog is recognised.
    public func catalogID() throws(CatalogError) -> String {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'catalog_id'") ?? "unknown" }
    }

    public func currentToken() throws(CatalogError) -> String {
        let id = try catalogID()
        return Self.token(catalogID: id, change: try currentChangeNumber())
    }

    /// The number of the newest change (the history floor when the history is empty): what `currentToken` wraps.
    public func currentChangeNumber() throws(CatalogError) -> Int64 {
        try read { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(token) FROM change")
                ?? Int64(try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'history_floor'") ?? "0") ?? 0
        }
    }

    /// The tokens `--since` accepts for these change numbers of this catalog (the catalog id read once).
    public func tokens(forChanges numbers: [Int64]) throws(CatalogError) -> [String] {
        let id = try catalogID()
        return numbers.map { Self.token(catalogID: id, change: $0) }
    }

    static func token(catalogID: String, change n: Int64) -> String { "sbx1.\(catalogID.prefix(8)).\(n)" }

    /// What people recognise an object by: an asset's file name (its primary resource), a collection's or
    /// list's title; objects since purged are left out.
    public func displayNames(of localIdentifiers: [String]) throws(CatalogError) -> [String: String] {
        let ids = Array(Set(localIdentifiers))
        guard !ids.isEmpty else { return [:] }
        return try read { db in
            var out: [String: String] = [:]
            for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let sql = """
                    SELECT local_identifier, filename AS name FROM asset WHERE local_identifier IN (\(marks))
                    UNION ALL SELECT local_identifier, title FROM collection WHERE local_identifier IN (\(marks))
                    UNION ALL SELECT local_identifier, title FROM collection_list WHERE local_identifier IN (\(marks))
                    """
                for r in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(chunk + chunk + chunk)) {
                    guard let id: String = r["local_identifier"], let name: String = r["name"] else { continue }
                    out[id] = name
                }
            }
            return out
        }
    }

    /// The records after `token`, optionally of one object type. A token older than the retained history
    /// is `tokenExpired` (refetch everything); a malformed or foreign token is `tokenUnavailable`.
    public func changes(since token: String, objectType: String? = nil) throws(CatalogError) -> [ChangeRecord] {
        let parts = token.split(separator: ".")
        let id = try catalogID()
        guard parts.count == 3, parts[0] == "sbx1", let n = Int64(parts[2]), n >= 0 else {
            throw CatalogError(.tokenUnavailable, "change details unavailable: '\(token)' is not a Shoebox change token")
        }
        guard parts[1] == id.prefix(8) else {
            throw CatalogError(.tokenUnavailable, "change details unavailable: token '\(token)' belongs to another catalog")
        }
        return try read { db in
            let current = try Int64.fetchOne(db, sql: "SELECT MAX(token) FROM change") ?? 0
            let floor = Int64(try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'history_floor'") ?? "0") ?? 0
            if n > max(current, floor) {
                throw CatalogError(.tokenUnavailable, "change details unavailable: token '\(token)' is newer than this catalog's history")
            }
            if n < floor {
                throw CatalogError(.tokenExpired, "token expired — refetch: history before token \(floor) was compacted (token '\(token)')")
            }
            var sql = "SELECT * FROM change WHERE token > ?"
            var args: [any DatabaseValueConvertible] = [n]
            if let objectType {
                sql += " AND object_type = ?"
                args.append(objectType)
            }
            return try Row.fetchAll(db, sql: sql + " ORDER BY token", arguments: StatementArguments(args)).map {
                let props: String = $0["properties"]
                return ChangeRecord(
                    token: $0["token"], objectType: $0["object_type"], localIdentifier: $0["local_identifier"],
                    changeType: $0["change_type"], properties: props.isEmpty ? [] : props.split(separator: ",").map(String.init))
            }
        }
    }

    // MARK: - Assets

    /// Every asset (trashed ones included when asked), with resources, in primary-path order.
    public func allAssets(includeTrashed: Bool = false) throws(CatalogError) -> [StoredAsset] {
        try read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM asset \(includeTrashed ? "" : "WHERE trashed_at IS NULL") ORDER BY root, primary_path")
            return try rows.map { try Self.storedAsset(db, $0) }
        }
    }

    /// Every asset's cloud identifier with the content hash of each of its resources (nil for an asset
    /// without resources or a resource without a hash), trashed assets included: the keys derivative files
    /// are named by, for pruning the files of assets that are gone.
    public func cloudIdentifiersWithResourceHashes() throws(CatalogError) -> [(cloudIdentifier: String, contentHash: String?)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT a.cloud_identifier, r.content_hash FROM asset a LEFT JOIN resource r ON r.asset_id = a.id")
                .map { ($0[0], $0[1]) }
        }
    }

    public func asset(localIdentifier: String) throws(CatalogError) -> StoredAsset? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM asset WHERE local_identifier = ?", arguments: [localIdentifier]).map {
                try Self.storedAsset(db, $0)
            }
        }
    }

    static func storedAsset(_ db: Database, _ r: Row) throws -> StoredAsset {
        let id: Int64 = r["id"]
        let res = try Row.fetchAll(db, sql: "SELECT * FROM resource WHERE asset_id = ? ORDER BY ord", arguments: [id])
        return storedAsset(r, resources: res)
    }

    /// Builds an asset from its row and its resource rows (already loaded, in `ord` order).
    /// `c` and `rc`, the column positions, are found once per statement by bulk readers.
    static func storedAsset(_ r: Row, resources: [Row], _ c: AssetColumns? = nil, _ rc: ResourceColumns? = nil) -> StoredAsset {
        let c = c ?? AssetColumns(ColumnIndex(r))
        let rc = rc ?? ResourceColumns(resources.first.map(ColumnIndex.init) ?? ColumnIndex(names: []))
        var a = Asset(id: r[c.primaryPath], mediaType: MediaType(rawValue: r[c.mediaType]) ?? .unknown)
        a.mediaSubtypes = MediaSubtypes(rawValue: UInt(r[c.mediaSubtypes] as Int64))
        let traits: String = r[c.traits]
        if !traits.isEmpty { a.traits = Set(traits.split(separator: ",").map { Trait(String($0)) }) }
        a.playbackStyle = PlaybackStyle(rawValue: r[c.playbackStyle]) ?? .unsupported
        a.playbackVariation = PlaybackVariation(rawValue: r[c.playbackVariation]) ?? .none
        if let local: String = r[c.creationDate] { a.creationDate = AssetDate(local: local, offsetSeconds: r[c.creationOffset]) }
        a.creationDateSource = r[c.creationDateSource]
        if let lat: Double = r[c.latitude], let lon: Double = r[c.longitude] {
            a.location = Location(latitude: lat, longitude: lon, altitude: r[c.altitude])
        }
        a.locationSource = r[c.locationSource]
        a.pixelWidth = r[c.pixelWidth]
        a.pixelHeight = r[c.pixelHeight]
        a.duration = r[c.duration]
        a.contentIdentifier = r[c.contentIdentifier]
        a.burstIdentifier = r[c.burstIdentifier]
        a.representsBurst = r[c.representsBurst]
        a.burstSelectionTypes = BurstSelectionTypes(rawValue: UInt(r[c.burstSelectionTypes] as Int64))
        a.hasAdjustments = r[c.hasAdjustments]
        a.isFavorite = r[c.isFavorite]
        a.isHidden = r[c.isHidden]
        a.make = r[c.make]
        a.model = r[c.model]
        a.lensModel = r[c.lensModel]
        var reasons: String = r[c.reasons]
        // Organize's reasons for the asset's burst set follow the derivation's (as `assetRowColumns` gives them).
        if let b = c.burstReason, let text = r[b] as String? { reasons = reasons.isEmpty ? text : reasons + "\n" + text }
        if !reasons.isEmpty {
            a.reasons = reasons.split(separator: "\n").map { line in
                guard let colon = Self.colonSpace(line) else { return Reason(String(line), "") }
                return Reason(String(line[..<colon]), String(line[line.utf8.index(colon, offsetBy: 2)...]))
            }
        }
        var hashes: [String?] = []
        for res in resources {
            let off: Int64? = res[rc.byteOffset], len: Int64? = res[rc.byteLength]
            a.resources.append(
                AssetResource(
                    type: AssetResourceType(rawValue: res[rc.type]) ?? .photo, path: res[rc.path], originalFilename: res[rc.originalFilename],
                    uniformTypeIdentifier: res[rc.uti], fileSize: (res[rc.fileSize] as Int64?).map { UInt64($0) },
                    byteRange: off.flatMap { o in len.map { ResourceRange(offset: UInt64(o), length: UInt64($0)) } }))
            hashes.append(res[rc.contentHash])
        }
        let sources: String = r[c.metadataSources]
        return StoredAsset(
            localIdentifier: r[c.localIdentifier], cloudIdentifier: r[c.cloudIdentifier], root: r[c.root], asset: a,
            isTrashed: (r[c.trashedAt] as String?) != nil,
            metadataSources: sources == "[]" ? [] : (try? JSONDecoder().decode([MetadataSourceRef].self, from: Data(sources.utf8))) ?? [],
            resourceHashes: hashes)
    }

    /// The positions of the asset columns `storedAsset` reads, looked up by name once.
    struct AssetColumns {
        let primaryPath: Int
        let mediaType: Int
        let mediaSubtypes: Int
        let traits: Int
        let playbackStyle: Int
        let playbackVariation: Int
        let creationDate: Int
        let creationOffset: Int
        let creationDateSource: Int
        let latitude: Int
        let longitude: Int
        let altitude: Int
        let locationSource: Int
        let pixelWidth: Int
        let pixelHeight: Int
        let duration: Int
        let contentIdentifier: Int
        let burstIdentifier: Int
        let representsBurst: Int
        let burstSelectionTypes: Int
        let hasAdjustments: Int
        let isFavorite: Int
        let isHidden: Int
        let make: Int
        let model: Int
        let lensModel: Int
        let reasons: Int
        /// nil in a row without the column (a statement that lists its columns).
        let burstReason: Int?
        let metadataSources: Int
        let localIdentifier: Int
        let cloudIdentifier: Int
        let root: Int
        let trashedAt: Int

        init(_ c: ColumnIndex) {
            primaryPath = c.i("primary_path")
            mediaType = c.i("media_type")
            mediaSubtypes = c.i("media_subtypes")
            traits = c.i("traits")
            playbackStyle = c.i("playback_style")
            playbackVariation = c.i("playback_variation")
            creationDate = c.i("creation_date")
            creationOffset = c.i("creation_offset")
            creationDateSource = c.i("creation_date_source")
            latitude = c.i("latitude")
            longitude = c.i("longitude")
            altitude = c.i("altitude")
            locationSource = c.i("location_source")
            pixelWidth = c.i("pixel_width")
            pixelHeight = c.i("pixel_height")
            duration = c.i("duration")
            contentIdentifier = c.i("content_identifier")
            burstIdentifier = c.i("burst_identifier")
            representsBurst = c.i("represents_burst")
            burstSelectionTypes = c.i("burst_selection_types")
            hasAdjustments = c.i("has_adjustments")
            isFavorite = c.i("is_favorite")
            isHidden = c.i("is_hidden")
            make = c.i("make")
            model = c.i("model")
            lensModel = c.i("lens_model")
            reasons = c.i("reasons")
            burstReason = c.map["burst_reason"]
            metadataSources = c.i("metadata_sources")
            localIdentifier = c.i("local_identifier")
            cloudIdentifier = c.i("cloud_identifier")
            root = c.i("root")
            trashedAt = c.i("trashed_at")
        }
    }

    /// The positions of the resource columns `storedAsset` reads.
    struct ResourceColumns {
        let byteOffset: Int
        let byteLength: Int
        let type: Int
        let path: Int
        let originalFilename: Int
        let uti: Int
        let fileSize: Int
        let contentHash: Int

        init(_ c: ColumnIndex) {
            byteOffset = c.i("byte_offset")
            byteLength = c.i("byte_length")
            type = c.i("type")
            path = c.i("path")
            originalFilename = c.i("original_filename")
            uti = c.i("uti")
            fileSize = c.i("file_size")
            contentHash = c.i("content_hash")
        }
    }

    /// The start of the first ": " in a reason line (a byte search; Foundation's is slow on Linux).
    static func colonSpace(_ line: Substring) -> Substring.Index? {
        var previousWasColon = false
        for i in line.utf8.indices {
            let b = line.utf8[i]
            if previousWasColon && b == UInt8(ascii: " ") { return line.utf8.index(before: i) }
            previousWasColon = b == UInt8(ascii: ":")
        }
        return nil
    }

    /// Column positions of a statement's rows: GRDB's lookup by name scans the columns each time, which
    /// dominated bulk reads.
    struct ColumnIndex {
        let map: [String: Int]
        init(_ row: Row) { self.init(names: Array(row.columnNames)) }
        init(names: [String]) {
            var m: [String: Int] = [:]
            for (k, n) in names.enumerated() where m[n] == nil { m[n] = k }
            map = m
        }
        func i(_ name: String) -> Int { map[name] ?? 0 }
    }

    /// Maps a local identifier to its cloud identifier, or a cloud identifier to its local identifiers.
    public func identifierMapping(_ id: String) throws(CatalogError) -> [(local: String, cloud: String)] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT local_identifier, cloud_identifier FROM asset WHERE local_identifier = ? OR cloud_identifier = ?",
                arguments: [id, id]
            ).map { ($0["local_identifier"], $0["cloud_identifier"]) }
        }
    }

    // MARK: - Errors and counts

    public func errors(runID: Int64? = nil, severities: Set<ErrorSeverity> = Set(ErrorSeverity.allCases)) throws(CatalogError) -> [StoredError] {
        try read { db in
            var sql = "SELECT * FROM error WHERE severity IN (\(severities.map { "'\($0.rawValue)'" }.sorted().joined(separator: ",")))"
            if runID != nil { sql += " AND run_id = ?" }
            return try Row.fetchAll(db, sql: sql + " ORDER BY id", arguments: runID.map { [$0] } ?? []).map {
                StoredError(
                    runID: $0["run_id"], path: $0["path"], stage: $0["stage"], reason: $0["reason"], at: $0["at"],
                    severity: ErrorSeverity(rawValue: $0["severity"]) ?? .failed)
            }
        }
    }

    /// The status of every run, oldest first (`running`, `finished`, `interrupted`).
    public func runStatuses() throws(CatalogError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT status FROM ingest_run ORDER BY id") }
    }

    /// How many file rows the catalog holds.
    public func fileCount() throws(CatalogError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM file") ?? 0 }
    }

    /// Files skipped as not media, as of their last ingest, with their category.
    public func skippedFiles() throws(CatalogError) -> [SkippedFile] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT path, skip_category, last_error FROM file WHERE status = 'skipped' ORDER BY path").map {
                SkippedFile(path: $0["path"], category: ($0["skip_category"] as String?) ?? "other", reason: ($0["last_error"] as String?) ?? "")
            }
        }
    }

    /// Counts for the run summary: per media type and subtype, Live Photo pairs.
    public func summaryCounts() throws(CatalogError) -> [(String, Int)] {
        try read { db in
            // From indexes, not the table (a pass over every asset row was ~0.1 s of an unchanged re-ingest of
            // 95k files, which ends here; Benchmarks/README.md, session 30): the types of every asset
            // (`asset_type`) less those of the trashed ones (few, through `asset_vanishing`), the subtypes of
            // the live ones (`asset_subtypes` holds `trashed_at`), the Live Photo pairs from the resources of
            // the paired-video type. Without the indexes (a first ingest stopped before it built them) the
            // same statements read the table.
            var live: [Int: Int] = [:], trashed = 0
            for r in try Row.fetchAll(db, sql: "SELECT media_type, COUNT(*) FROM asset GROUP BY media_type") { live[r[0], default: 0] += r[1] }
            for r in try Row.fetchAll(
                db,
                sql: """
                    SELECT media_type, COUNT(*) FROM asset
                    WHERE id IN (SELECT id FROM asset WHERE pending_vanish = 1 OR trashed_at IS NOT NULL) AND trashed_at IS NOT NULL
                    GROUP BY media_type
                    """)
            {
                live[r[0], default: 0] -= r[1]
                trashed += r[1] as Int
            }
            var subtypes = Array(repeating: 0, count: MediaSubtypes.named.count)
            for r in try Row.fetchAll(db, sql: "SELECT media_subtypes, COUNT(*) FROM asset WHERE trashed_at IS NULL GROUP BY media_subtypes") {
                let bits = MediaSubtypes(rawValue: UInt(bitPattern: Int(r[0] as Int64))), n: Int = r[1]
                for (k, (subtype, _)) in MediaSubtypes.named.enumerated() where !bits.intersection(subtype).isEmpty { subtypes[k] += n }
            }
            let pairs =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM asset WHERE trashed_at IS NULL AND id IN (SELECT asset_id FROM resource WHERE type = 9)"
                ) ?? 0
            var out: [(String, Int)] = [
                ("assets", live.values.reduce(0, +)), ("images", live[1] ?? 0), ("videos", live[2] ?? 0), ("audio", live[3] ?? 0),
                ("Live Photo pairs", pairs), ("in Recently Deleted", trashed),
            ]
            for (k, (_, name)) in MediaSubtypes.named.enumerated() where subtypes[k] > 0 { out.append((name, subtypes[k])) }
            return out
        }
    }

    /// `PRAGMA integrity_check` result ("ok" when sound).
    public func integrityCheck() throws(CatalogError) -> String {
        try read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ") }
    }
}
