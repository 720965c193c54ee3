import Foundation
import GRDB
import GRDBSQLite
import PhotoModel

extension AssetRowWriter {
    /// Writes every asset of `result` in order, as `object(_:)` would, straight from the SQLite rows: no
    /// `StoredAsset`, no Swift string per column. Before the object at index `i` comes `before(i)`, after
    /// each `after`. Memory holds one batch of 1000 objects.
    public mutating func objects(of result: FetchResult, before: (Int) -> String = { _ in "" }, after: String = "") throws(CatalogError) {
        let ids = result.rowIDs
        var start = 0
        var scratch = OutBytes(capacity: 1 << 16)
        var res = OutBytes(capacity: 1 << 12)
        defer {
            scratch.deallocate()
            res.deallocate()
        }
        while start < ids.count {
            let batch = Array(ids[start..<min(ids.count, start + 1000)])
            var spans: [Int64: Range<Int>] = [:]
            scratch.removeAll()
            res.removeAll()
            try result.catalog.read { db in
                let marks = Array(repeating: "?", count: batch.count).joined(separator: ",")
                // An asset's resources are adjacent (ordered by asset): one range of `res` each.
                var resources: [Int64: Range<Int>] = [:]
                let rs = try db.makeStatement(sql: "SELECT asset_id, type, path, original_filename, uti, file_size FROM resource WHERE asset_id IN (\(marks)) ORDER BY asset_id, ord")
                try rs.setArguments(StatementArguments(batch))
                let r = RawColumns(rs.sqliteStatement)
                while try step(rs.sqliteStatement) {
                    let id = r.int(0)
                    let from = resources[id]?.lowerBound ?? res.count
                    if resources[id] != nil { res.append(UInt8(ascii: ",")) }
                    Self.resource(r, into: &res)
                    resources[id] = from..<res.count
                }
                let s = try db.makeStatement(
                    sql: """
                        SELECT id, local_identifier, cloud_identifier, primary_path, media_type, media_subtypes, traits, playback_style,
                            playback_variation, creation_date, creation_offset, creation_date_source, latitude, longitude, altitude,
                            location_source, pixel_width, pixel_height, duration, content_identifier, burst_identifier, has_adjustments,
                            is_favorite, is_hidden, metadata_sources, make, model, lens_model, \(Catalog.reasonsWithBurst(""))
                        FROM asset WHERE id IN (\(marks))
                        """)
                try s.setArguments(StatementArguments(batch))
                let c = RawColumns(s.sqliteStatement)
                while try step(s.sqliteStatement) {
                    let from = scratch.count
                    let own = resources[c.int(0)].map { UnsafeBufferPointer(rebasing: res.bytes[$0]) } ?? UnsafeBufferPointer(start: nil, count: 0)
                    Self.object(c, resources: own, into: &scratch)
                    spans[c.int(0)] = from..<scratch.count
                }
            }
            for (k, id) in batch.enumerated() {
                guard let span = spans[id] else { continue }
                raw(before(start + k))
                appendBytes(UnsafeBufferPointer(rebasing: scratch.bytes[span]))
                raw(after)
            }
            start += batch.count
        }
    }

    /// One object from a row of the statement above, keys in `keyOrder`.
    private static func object(_ c: RawColumns, resources: UnsafeBufferPointer<UInt8>, into out: inout OutBytes) {
        var next = 0
        func key() {
            out.append(keyBytes[next])
            next += 1
        }
        let mediaType = MediaType(rawValue: Int(c.int(4))) ?? .unknown
        key(); c.string(1, into: &out)  // localIdentifier
        key(); c.string(2, into: &out)  // cloudIdentifier
        key(); c.string(3, into: &out)  // id
        key(); out.jsonString(mediaType.name)
        key()
        if c.int(5) == 0 { out.append("[]") } else { out.jsonStrings(MediaSubtypes(rawValue: UInt(c.int(5))).names) }
        key()  // traits, sorted
        let motionPhoto = traits(c.text(6), into: &out)
        key(); out.jsonString((PlaybackStyle(rawValue: Int(c.int(7))) ?? .unsupported).name)
        key(); out.jsonString(variationNames[PlaybackVariation(rawValue: Int(c.int(8))) ?? .none])
        key()  // creationDate
        if c.isNull(9) {
            out.append("null")
        } else {  // AssetDate.description: the local text, then the offset when known
            out.append(UInt8(ascii: "\""))
            out.escaped(c.text(9))
            if !c.isNull(10) { out.append(AssetDate.offsetSuffix(Int(c.int(10)))) }
            out.append(UInt8(ascii: "\""))
        }
        key(); c.string(11, into: &out)  // creationDateSource
        key()  // location
        if c.isNull(12) || c.isNull(13) {
            out.append("null")
        } else {
            out.append("{\"latitude\":"); out.number(c.double(12))
            out.append(",\"longitude\":"); out.number(c.double(13))
            out.append(",\"altitude\":"); out.number(c.isNull(14) ? nil : c.double(14))
            out.append(UInt8(ascii: "}"))
        }
        key(); c.string(15, into: &out)  // locationSource
        key(); out.integer(c.int(16))
        key(); out.integer(c.int(17))
        key(); out.number(mediaType == .video || mediaType == .audio ? c.double(18) : nil)
        key(); out.append("null")  // pairedVideoDuration
        key(); c.string(19, into: &out)
        key(); c.string(20, into: &out)
        key(); out.append(c.int(21) != 0 ? "true" : "false")
        key(); out.append(c.int(22) != 0 ? "true" : "false")
        key(); out.append(c.int(23) != 0 ? "true" : "false")
        key(); out.append(UInt8(ascii: "[")); out.append(resources); out.append(UInt8(ascii: "]"))
        key()  // metadataSources: stored as JSON [{type, path}]
        let sources = c.text(24)
        if sources.elementsEqual("[]".utf8) {
            out.append("[]")
        } else {
            let refs = (try? JSONDecoder().decode([MetadataSourceRef].self, from: Data(sources))) ?? []
            out.append(UInt8(ascii: "["))
            for (i, m) in refs.enumerated() {
                out.append(i == 0 ? "{\"type\":" as StaticString : ",{\"type\":"); out.jsonString(m.type)
                out.append(",\"path\":"); out.jsonString(m.path)
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "]"))
        }
        key(); out.append("null")  // embeddedVideo
        key(); out.append(motionPhoto ? "true" : "false")
        key(); out.append("null")  // pairingConfidence
        key(); c.string(25, into: &out)
        key(); c.string(26, into: &out)
        key(); c.string(27, into: &out)
        key()  // reasons: one "subject: evidence" per line; a line without ": " reads as "line: "
        out.append(UInt8(ascii: "["))
        for (i, line) in c.text(28).split(separator: UInt8(ascii: "\n")).enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            out.escaped(UnsafeBufferPointer(rebasing: line))
            if !zip(line, line.dropFirst()).contains(where: { $0 == UInt8(ascii: ":") && $1 == UInt8(ascii: " ") }) {
                out.append(": ")
            }
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "]"))
        out.append(UInt8(ascii: "}"))
    }
    /// The traits column (comma-separated) as a sorted JSON array of distinct names, copied straight from
    /// the column when it is already sorted and distinct (as the writer stores it). True when it holds
    /// `motionPhoto`.
    private static func traits(_ text: UnsafeBufferPointer<UInt8>, into out: inout OutBytes) -> Bool {
        if text.isEmpty {
            out.append("[]")
            return false
        }
        let names = text.split(separator: UInt8(ascii: ","))
        let motion = Array(Trait.motionPhoto.rawValue.utf8)
        if zip(names, names.dropFirst()).allSatisfy({ $0.lexicographicallyPrecedes($1) }) {
            out.append(UInt8(ascii: "["))
            for (i, n) in names.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.jsonString(UnsafeBufferPointer(rebasing: n))
            }
            out.append(UInt8(ascii: "]"))
            return names.contains { $0.elementsEqual(motion) }
        }
        let sorted = Set(names.map { String(decoding: $0, as: UTF8.self) }).sorted()
        out.jsonStrings(sorted)
        return sorted.contains(Trait.motionPhoto.rawValue)
    }
}

/// Column access on a stepped SQLite statement, without Swift values in between.
struct RawColumns {
    let statement: SQLiteStatement

    init(_ statement: SQLiteStatement) { self.statement = statement }

    func isNull(_ i: Int32) -> Bool { sqlite3_column_type(statement, i) == SQLITE_NULL }
    func int(_ i: Int32) -> Int64 { sqlite3_column_int64(statement, i) }
    func double(_ i: Int32) -> Double { sqlite3_column_double(statement, i) }

    /// The text of column `i` (empty when NULL), valid until the next step.
    func text(_ i: Int32) -> UnsafeBufferPointer<UInt8> {
        guard let p = sqlite3_column_text(statement, i) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(statement, i)))
    }

    /// Column `i` as a JSON string, or null.
    func string(_ i: Int32, into out: inout OutBytes) {
        if isNull(i) { return out.append("null") }
        out.jsonString(text(i))
    }
}

/// Steps a statement: true on a row, false when done.
private func step(_ statement: SQLiteStatement) throws -> Bool {
    switch sqlite3_step(statement) {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    case let code: throw DatabaseError(resultCode: ResultCode(rawValue: code))
    }
}

// MARK: - One statement over the result

extension AssetRowWriter {
    /// Writes every asset a fetch with `options` returns, in its order, as `objects(of:)` would — but from
    /// one statement over the filtered, ordered rows, with no list of row ids. Before the object at index
    /// `i` comes `before(i)`, after each `after`. Returns how many were written.
    public mutating func objects(
        matching options: FetchOptions, in catalog: Catalog, before: (Int) -> String = { _ in "" }, after: String = ""
    ) throws(CatalogError) -> Int {
        var n = 0
        // Objects go into `out`, written to the descriptor whenever `flushAt` bytes are pending; what is left
        // at the end goes back to `buffer` (after what was pending before).
        var out = OutBytes(capacity: min(flushAt, 1 << 20) + 4096)
        var res = OutBytes(capacity: 1 << 12)
        defer {
            out.deallocate()
            res.deallocate()
        }
        buffer.withUnsafeBufferPointer { out.append($0) }
        buffer.removeAll(keepingCapacity: true)
        var parts: [(ord: Int64, bytes: Range<Int>)] = []
        let afterBytes = Array(after.utf8)
        try catalog.forEachAssetRow(options, resources: true) { c, resources in
            res.removeAll()
            parts.removeAll(keepingCapacity: true)
            try resources { r in
                if res.count > 0 { res.append(UInt8(ascii: ",")) }
                let from = res.count
                Self.resource(r, into: &res)
                parts.append((r.int(6), from..<res.count))
            }
            // Resources come in row order; they are written in `ord` order (ties in row order).
            if zip(parts, parts.dropFirst()).contains(where: { $0.ord > $1.ord }) {
                let sorted = parts.enumerated().sorted { ($0.element.ord, $0.offset) < ($1.element.ord, $1.offset) }
                var joined = OutBytes(capacity: res.count + 16)
                for (i, p) in sorted.enumerated() {
                    if i > 0 { joined.append(UInt8(ascii: ",")) }
                    joined.append(UnsafeBufferPointer(rebasing: res.bytes[p.element.bytes]))
                }
                res.deallocate()
                res = joined
            }
            out.append(before(n))
            Self.object(c, resources: res.bytes, into: &out)
            afterBytes.withUnsafeBufferPointer { out.append($0) }
            if out.count >= flushAt {
                write(out.bytes)
                out.removeAll()
            }
            n += 1
        }
        buffer.append(contentsOf: out.bytes)
        return n
    }

    /// Writes the CSV lines (no header) of `fields` for every asset a fetch with `options` returns, in its
    /// order, each field's text as `AssetField.text(of:)` gives it. Returns how many lines were written.
    public mutating func csvLines(matching options: FetchOptions, in catalog: Catalog, fields: [AssetField]) throws(CatalogError) -> Int {
        var n = 0
        var line: [UInt8] = []
        try catalog.forEachAssetRow(options, resources: fields.contains(where: \.needsResources)) { c, resources in
            var size: UInt64?
            if fields.contains(where: \.needsResources) {
                try resources { r in
                    if !r.isNull(5) { size = (size ?? 0) + UInt64(bitPattern: r.int(5)) }
                }
            }
            let row = AssetRow(c: c, totalFileSize: size)
            line.removeAll(keepingCapacity: true)
            for (i, f) in fields.enumerated() {
                if i > 0 { line.append(UInt8(ascii: ",")) }
                line.append(contentsOf: AssetField.csv(f.text(of: row)).utf8)
            }
            line.append(UInt8(ascii: "\n"))
            appendBytes(line[...])
            n += 1
        }
        return n
    }

    /// A resource object from a row of the resource statement (`asset_id, type, path, original_filename,
    /// uti, file_size`).
    static func resource(_ r: RawColumns, into out: inout OutBytes) {
        out.append("{\"type\":")
        out.jsonString(AssetResourceType(rawValue: Int(r.int(1)))?.name ?? AssetResourceType.photo.name)
        out.append(",\"path\":"); r.string(2, into: &out)
        out.append(",\"originalFilename\":"); r.string(3, into: &out)
        if !r.isNull(4) { out.append(",\"uniformTypeIdentifier\":"); r.string(4, into: &out) }
        if !r.isNull(5) { out.append(",\"fileSize\":"); out.integer(r.int(5)) }
        out.append(UInt8(ascii: "}"))
    }
}

/// A row of the asset statement as an `AssetFieldSource`: each value read from its column when asked.
struct AssetRow: AssetFieldSource {
    let c: RawColumns
    let totalFileSize: UInt64?

    private func text(_ i: Int32) -> String? { c.isNull(i) ? nil : String(decoding: c.text(i), as: UTF8.self) }

    var path: String { text(3) ?? "" }
    var root: String { text(29) ?? "" }
    var localIdentifier: String { text(1) ?? "" }
    var cloudIdentifier: String { text(2) ?? "" }
    var mediaType: MediaType { MediaType(rawValue: Int(c.int(4))) ?? .unknown }
    var mediaSubtypes: MediaSubtypes { MediaSubtypes(rawValue: UInt(c.int(5))) }
    var sortedTraits: [String] { Set(c.text(6).split(separator: UInt8(ascii: ",")).map { String(decoding: $0, as: UTF8.self) }).sorted() }
    var playbackStyle: PlaybackStyle { PlaybackStyle(rawValue: Int(c.int(7))) ?? .unsupported }
    var creationDate: AssetDate? {
        guard let local = text(9) else { return nil }
        return AssetDate(local: local, offsetSeconds: c.isNull(10) ? nil : Int(c.int(10)))
    }
    var pixelWidth: Int { Int(c.int(16)) }
    var pixelHeight: Int { Int(c.int(17)) }
    var duration: Double { c.double(18) }
    var contentIdentifier: String? { text(19) }
    var burstIdentifier: String? { text(20) }
    var hasAdjustments: Bool { c.int(21) != 0 }
    var isFavorite: Bool { c.int(22) != 0 }
    var isHidden: Bool { c.int(23) != 0 }
    var make: String? { text(25) }
    var model: String? { text(26) }
    var lensModel: String? { text(27) }
    var creationDateSource: String? { text(11) }
    var coordinates: (latitude: Double, longitude: Double)? { c.isNull(12) || c.isNull(13) ? nil : (c.double(12), c.double(13)) }
}

extension Catalog {
    /// The columns of the asset statement, in the positions `AssetRowWriter.object(_:resources:into:)` and
    /// `AssetRow` read.
    static let assetRowColumns = """
        a.id, a.local_identifier, a.cloud_identifier, a.primary_path, a.media_type, a.media_subtypes, a.traits, a.playback_style,
        a.playback_variation, a.creation_date, a.creation_offset, a.creation_date_source, a.latitude, a.longitude, a.altitude,
        a.location_source, a.pixel_width, a.pixel_height, a.duration, a.content_identifier, a.burst_identifier, a.has_adjustments,
        a.is_favorite, a.is_hidden, a.metadata_sources, a.make, a.model, a.lens_model, \(reasonsWithBurst("a.")), a.root
        """

    /// An asset's reasons as its outputs give them: the derivation's (`reasons`), then organize's for its
    /// burst set (`burst_reason`), one "subject: evidence" per line. `table`: "" or "a.".
    static func reasonsWithBurst(_ table: String) -> String {
        let r = table + "reasons", b = table + "burst_reason"
        return "CASE WHEN \(b) IS NULL THEN \(r) WHEN \(r) = '' THEN \(b) ELSE \(r) || char(10) || \(b) END AS reasons"
    }

    /// Steps one statement over the assets a fetch with `options` returns (its WHERE, ORDER BY and LIMIT), in
    /// order, calling `body` with the row and, when `resources` is true, a function that calls its argument
    /// with each of the asset's resource rows (`asset_id, type, path, original_filename, uti, file_size, ord`).
    /// Resources come from a second statement: in asset id order (merged as the assets go; an asset's rows in
    /// row order, which a caller that needs them in `ord` order sorts) when the result is in id order, else
    /// looked up per asset, in `ord` order.
    func forEachAssetRow(
        _ options: FetchOptions, resources: Bool,
        _ body: (RawColumns, (_ each: (RawColumns) throws -> Void) throws -> Void) throws -> Void
    ) throws(CatalogError) {
        let (sql, args) = try Self.fetchSQL(Self.assetRowColumns, options)
        try read { db in
            let s = try db.makeStatement(sql: sql)
            try s.setArguments(StatementArguments(args))
            let c = RawColumns(s.sqliteStatement)
            let resourceColumns = "SELECT asset_id, type, path, original_filename, uti, file_size, ord FROM resource"
            let merged = options.sortDescriptors.isEmpty
            // `ORDER BY asset_id` walks `resource_asset` (rows of one asset in row id order) with no sorter;
            // adding `ord` would sort every group in a temporary B-tree (0.6 s at a million).
            let rs = resources
                ? try db.makeStatement(sql: resourceColumns + (merged ? " ORDER BY asset_id" : " WHERE asset_id = ? ORDER BY ord")) : nil
            let r = rs.map { RawColumns($0.sqliteStatement) }
            var pending = false  // merged: the resource statement holds a row not yet used
            var started = false
            while try step(s.sqliteStatement) {
                let id = c.int(0)
                try body(c) { each in
                    guard let rs, let r else { return }
                    if merged {
                        if !started {
                            pending = try step(rs.sqliteStatement)
                            started = true
                        }
                        while pending && r.int(0) < id { pending = try step(rs.sqliteStatement) }
                        while pending && r.int(0) == id {
                            try each(r)
                            pending = try step(rs.sqliteStatement)
                        }
                    } else {
                        sqlite3_reset(rs.sqliteStatement)
                        sqlite3_bind_int64(rs.sqliteStatement, 1, id)
                        while try step(rs.sqliteStatement) { try each(r) }
                    }
                }
            }
        }
    }
}
