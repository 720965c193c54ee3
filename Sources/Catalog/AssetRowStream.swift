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
        var scratch: [UInt8] = []
        while start < ids.count {
            let batch = Array(ids[start..<min(ids.count, start + 1000)])
            var spans: [Int64: Range<Int>] = [:]
            scratch.removeAll(keepingCapacity: true)
            try result.catalog.read { db in
                let marks = Array(repeating: "?", count: batch.count).joined(separator: ",")
                var resources: [Int64: [UInt8]] = [:]
                let rs = try db.makeStatement(sql: "SELECT asset_id, type, path, original_filename, uti, file_size FROM resource WHERE asset_id IN (\(marks)) ORDER BY asset_id, ord")
                try rs.setArguments(StatementArguments(batch))
                let r = RawColumns(rs.sqliteStatement)
                while try step(rs.sqliteStatement) {
                    var out = resources[r.int(0)].map { $0 + [UInt8(ascii: ",")] } ?? []
                    Self.resource(r, into: &out)
                    resources[r.int(0)] = out
                }
                let s = try db.makeStatement(
                    sql: """
                        SELECT id, local_identifier, cloud_identifier, primary_path, media_type, media_subtypes, traits, playback_style,
                            playback_variation, creation_date, creation_offset, creation_date_source, latitude, longitude, altitude,
                            location_source, pixel_width, pixel_height, duration, content_identifier, burst_identifier, has_adjustments,
                            is_favorite, is_hidden, metadata_sources, make, model, lens_model, reasons
                        FROM asset WHERE id IN (\(marks))
                        """)
                try s.setArguments(StatementArguments(batch))
                let c = RawColumns(s.sqliteStatement)
                while try step(s.sqliteStatement) {
                    let from = scratch.count
                    Self.object(c, resources: resources[c.int(0)] ?? [], into: &scratch)
                    spans[c.int(0)] = from..<scratch.count
                }
            }
            for (k, id) in batch.enumerated() {
                guard let span = spans[id] else { continue }
                raw(before(start + k))
                appendBytes(scratch[span])
                raw(after)
            }
            start += batch.count
        }
    }

    /// One object from a row of the statement above, keys in `keyOrder`.
    private static func object(_ c: RawColumns, resources: [UInt8], into out: inout [UInt8]) {
        var next = 0
        func key() {
            out.append(contentsOf: keyBytes[next])
            next += 1
        }
        let mediaType = MediaType(rawValue: Int(c.int(4))) ?? .unknown
        key(); c.string(1, into: &out)  // localIdentifier
        key(); c.string(2, into: &out)  // cloudIdentifier
        key(); c.string(3, into: &out)  // id
        key(); string(mediaType.name, into: &out)
        key()
        if c.int(5) == 0 { Self.literal("[]", into: &out) } else { strings(MediaSubtypes(rawValue: UInt(c.int(5))).names, into: &out) }
        key()  // traits, sorted
        let motionPhoto = traits(c.text(6), into: &out)
        key(); string((PlaybackStyle(rawValue: Int(c.int(7))) ?? .unsupported).name, into: &out)
        key(); string(variationNames[PlaybackVariation(rawValue: Int(c.int(8))) ?? .none], into: &out)
        key()  // creationDate
        if c.isNull(9) {
            Self.literal("null", into: &out)
        } else {  // AssetDate.description: the local text, then the offset when known
            out.append(UInt8(ascii: "\""))
            escaped(bytes: c.text(9), into: &out)
            if !c.isNull(10) { out.append(contentsOf: AssetDate.offsetSuffix(Int(c.int(10))).utf8) }
            out.append(UInt8(ascii: "\""))
        }
        key(); c.string(11, into: &out)  // creationDateSource
        key()  // location
        if c.isNull(12) || c.isNull(13) {
            Self.literal("null", into: &out)
        } else {
            Self.literal("{\"latitude\":", into: &out); number(c.double(12), into: &out)
            Self.literal(",\"longitude\":", into: &out); number(c.double(13), into: &out)
            Self.literal(",\"altitude\":", into: &out); number(c.isNull(14) ? nil : c.double(14), into: &out)
            out.append(UInt8(ascii: "}"))
        }
        key(); c.string(15, into: &out)  // locationSource
        key(); integer(c.int(16), into: &out)
        key(); integer(c.int(17), into: &out)
        key(); number(mediaType == .video || mediaType == .audio ? c.double(18) : nil, into: &out)
        key(); Self.literal("null", into: &out)  // pairedVideoDuration
        key(); c.string(19, into: &out)
        key(); c.string(20, into: &out)
        key(); Self.literal(c.int(21) != 0 ? "true" : "false", into: &out)
        key(); Self.literal(c.int(22) != 0 ? "true" : "false", into: &out)
        key(); Self.literal(c.int(23) != 0 ? "true" : "false", into: &out)
        key(); out.append(UInt8(ascii: "[")); out.append(contentsOf: resources); out.append(UInt8(ascii: "]"))
        key()  // metadataSources: stored as JSON [{type, path}]
        let sources = c.text(24)
        if sources.elementsEqual("[]".utf8) {
            Self.literal("[]", into: &out)
        } else {
            let refs = (try? JSONDecoder().decode([MetadataSourceRef].self, from: Data(sources))) ?? []
            out.append(UInt8(ascii: "["))
            for (i, m) in refs.enumerated() {
                out.append(contentsOf: (i == 0 ? "{\"type\":" : ",{\"type\":").utf8); string(m.type, into: &out)
                Self.literal(",\"path\":", into: &out); string(m.path, into: &out)
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "]"))
        }
        key(); Self.literal("null", into: &out)  // embeddedVideo
        key(); Self.literal(motionPhoto ? "true" : "false", into: &out)
        key(); Self.literal("null", into: &out)  // pairingConfidence
        key(); c.string(25, into: &out)
        key(); c.string(26, into: &out)
        key(); c.string(27, into: &out)
        key()  // reasons: one "subject: evidence" per line; a line without ": " reads as "line: "
        out.append(UInt8(ascii: "["))
        for (i, line) in c.text(28).split(separator: UInt8(ascii: "\n")).enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            escaped(bytes: line, into: &out)
            if !zip(line, line.dropFirst()).contains(where: { $0 == UInt8(ascii: ":") && $1 == UInt8(ascii: " ") }) {
                Self.literal(": ", into: &out)
            }
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "]"))
        out.append(UInt8(ascii: "}"))
    }
    /// The traits column (comma-separated) as a sorted JSON array of distinct names, copied straight from
    /// the column when it is already sorted and distinct (as the writer stores it). True when it holds
    /// `motionPhoto`.
    private static func traits(_ text: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) -> Bool {
        if text.isEmpty {
            literal("[]", into: &out)
            return false
        }
        let names = text.split(separator: UInt8(ascii: ","))
        let motion = Array(Trait.motionPhoto.rawValue.utf8)
        if zip(names, names.dropFirst()).allSatisfy({ $0.lexicographicallyPrecedes($1) }) {
            out.append(UInt8(ascii: "["))
            for (i, n) in names.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                string(bytes: n, into: &out)
            }
            out.append(UInt8(ascii: "]"))
            return names.contains { $0.elementsEqual(motion) }
        }
        let sorted = Set(names.map { String(decoding: $0, as: UTF8.self) }).sorted()
        strings(sorted, into: &out)
        return sorted.contains(Trait.motionPhoto.rawValue)
    }

    /// A decimal integer, without a `String` in between.
    static func integer(_ v: Int64, into out: inout [UInt8]) {
        if v < 0 { out.append(UInt8(ascii: "-")) }
        var m = v.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[23 - n] = UInt8(ascii: "0") + UInt8(m % 10)
                m /= 10
                n += 1
            } while m > 0
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: d[(24 - n)...]))
        }
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
    func string(_ i: Int32, into out: inout [UInt8]) {
        if isNull(i) { return AssetRowWriter.literal("null", into: &out) }
        AssetRowWriter.string(bytes: text(i), into: &out)
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
        var res: [UInt8] = []
        var parts: [(ord: Int64, bytes: Range<Int>)] = []
        let afterBytes = Array(after.utf8)
        try catalog.forEachAssetRow(options, resources: true) { c, resources in
            res.removeAll(keepingCapacity: true)
            parts.removeAll(keepingCapacity: true)
            try resources { r in
                if !res.isEmpty { res.append(UInt8(ascii: ",")) }
                let from = res.count
                Self.resource(r, into: &res)
                parts.append((r.int(6), from..<res.count))
            }
            // Resources come in row order; they are written in `ord` order (ties in row order).
            if zip(parts, parts.dropFirst()).contains(where: { $0.ord > $1.ord }) {
                let sorted = parts.enumerated().sorted { ($0.element.ord, $0.offset) < ($1.element.ord, $1.offset) }
                var joined: [UInt8] = []
                for (i, p) in sorted.enumerated() {
                    if i > 0 { joined.append(UInt8(ascii: ",")) }
                    joined.append(contentsOf: res[p.element.bytes])
                }
                res = joined
            }
            buffer.append(contentsOf: before(n).utf8)
            Self.object(c, resources: res, into: &buffer)
            buffer.append(contentsOf: afterBytes)
            if buffer.count >= flushAt { flush() }
            n += 1
        }
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
    static func resource(_ r: RawColumns, into out: inout [UInt8]) {
        Self.literal("{\"type\":", into: &out)
        string(AssetResourceType(rawValue: Int(r.int(1)))?.name ?? AssetResourceType.photo.name, into: &out)
        Self.literal(",\"path\":", into: &out); r.string(2, into: &out)
        Self.literal(",\"originalFilename\":", into: &out); r.string(3, into: &out)
        if !r.isNull(4) { Self.literal(",\"uniformTypeIdentifier\":", into: &out); r.string(4, into: &out) }
        if !r.isNull(5) { Self.literal(",\"fileSize\":", into: &out); integer(r.int(5), into: &out) }
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
    var coordinates: (latitude: Double, longitude: Double)? { c.isNull(12) || c.isNull(13) ? nil : (c.double(12), c.double(13)) }
}

extension Catalog {
    /// The columns of the asset statement, in the positions `AssetRowWriter.object(_:resources:into:)` and
    /// `AssetRow` read.
    static let assetRowColumns = """
        a.id, a.local_identifier, a.cloud_identifier, a.primary_path, a.media_type, a.media_subtypes, a.traits, a.playback_style,
        a.playback_variation, a.creation_date, a.creation_offset, a.creation_date_source, a.latitude, a.longitude, a.altitude,
        a.location_source, a.pixel_width, a.pixel_height, a.duration, a.content_identifier, a.burst_identifier, a.has_adjustments,
        a.is_favorite, a.is_hidden, a.metadata_sources, a.make, a.model, a.lens_model, a.reasons, a.root
        """

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
