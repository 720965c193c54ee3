import ArgumentParser
import Assemble
import Catalog
import Foundation
import PhotoModel

/// `shoebox query [PREDICATE]`: PhotoKit-style fetches from the terminal.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Fetch assets with an NSPredicate-style predicate and/or osxphotos-style filters.",
        discussion: """
            The predicate language is described in docs/predicates.md. A mistake is reported with a caret \
            under it. As PhotoKit's fetches, a query leaves out hidden assets and the frames of a burst \
            other than its representative unless asked (--include-hidden, --all-bursts); a table's last \
            line says how many it left out.

            Examples:
              shoebox query --live --year 2024
              shoebox query 'mediaType == image AND creationDate >= "2020-01-01"' \\
                  --sort -creationDate --limit 20
              shoebox query --live --no-favorite --format csv \\
                  --fields localIdentifier,filename,creationDate
              shoebox query '%K == %@' --arg isFavorite --arg YES --count
              shoebox query --video --json
              shoebox query 'place CONTAINS "Lisbon"' --count
              shoebox query --country PT --place lisbon --fields filename,creationDate
            """)

    @Argument(help: "A predicate (docs/predicates.md).") var predicate: String?
    @Option(name: .customLong("arg"), parsing: .unconditionalSingleValue, help: "A value for %@, %d or %K in the predicate (repeatable, in order).") var args: [String] = []
    @OptionGroup var catalogOption: CatalogOption
    @Option(parsing: .unconditionalSingleValue, help: "Sort key; '-key' sorts descending (repeatable).") var sort: [String] = []
    @Option(help: "At most this many assets.") var limit: Int?
    @Option(help: OutputFormat.help) var format: OutputFormat = .table
    @Option(help: "Fields for table/csv output, comma-separated (\(QueryOutput.fields.joined(separator: ", "))).") var fields: String?
    @Flag(help: "Print only the number of matching assets.") var count = false
    @Flag(help: "Include hidden assets.") var includeHidden = false
    @Flag(help: "Include every frame of a burst, not only its representative.") var allBursts = false
    @Flag(help: "Include assets in Recently Deleted.") var includeTrashed = false
    @Option(help: "Save the result's identifiers as a named transient collection (listed by 'collections --type saved').") var save: String?
    @Flag(help: "With --save: replace a saved fetch of that name.") var replace = false
    @Option(help: "Delete the saved fetch of this name.") var deleteSaved: String?
    @Option(help: "Fetch within a saved result.") var inSaved: String?
    @Option(help: "Print what changed in a saved fetch since it was saved (removed, inserted, changed, moved), PhotoKit-style.")
    var changes: String?
    @Flag(help: "With --changes: then replace the saved list (and its token) with the current result.") var update = false
    @Option(help: "Fetch within an album: its title (when no other album has it) or its identifier.") var inAlbum: String?
    @Option(help: "Captured on or after this date (YYYY-MM-DD or ISO-8601).") var fromDate: String?
    @Option(help: "Captured on or before this date.") var toDate: String?
    @Option(help: "Captured in this year.") var year: Int?
    @Option(help: "Taken at a place whose name, region or country contains this text (case-insensitive; docs/places.md).") var place: String?
    @Option(help: "Taken in this country: ISO code (PT) or name (Portugal), case-insensitive.") var country: String?

    // Convenience filters, each with a --not- form.
    @Flag(inversion: .prefixedNo, exclusivity: .exclusive, help: "Live Photos (photoLive).") var live: Bool?
    @Flag(inversion: .prefixedNo, exclusivity: .exclusive, help: "HDR photos.") var hdr: Bool?
    @Flag(inversion: .prefixedNo, exclusivity: .exclusive, help: "Panoramas.") var panorama: Bool?
    @Flag(inversion: .prefixedNo, exclusivity: .exclusive, help: "Screenshots.") var screenshot: Bool?
    @Flag(inversion: .prefixedNo, exclusivity: .exclusive, help: "Selfies (front camera).") var selfie: Bool?
    @Flag(inversion: .prefixedNo, exclusivity: .exclusive, help: "Portrait (depth effect).") var portrait: Bool?
    @Flag(inversion: .prefixedNo, exclusivity: .exclusive, help: "Burst frames.") var burst: Bool?
    @Flag(name: .customLong("slo-mo"), inversion: .prefixedNo, exclusivity: .exclusive, help: "Slo-mo videos.") var sloMo: Bool?
    @Flag(name: .customLong("time-lapse"), inversion: .prefixedNo, exclusivity: .exclusive, help: "Time-lapse videos.") var timeLapse: Bool?
    @Flag(inversion: .prefixedNo, exclusivity: .exclusive, help: "RAW photos.") var raw: Bool?
    @Flag(inversion: .prefixedNo, exclusivity: .exclusive, help: "Favorites.") var favorite: Bool?
    @Flag(inversion: .prefixedNo, exclusivity: .exclusive, help: "Hidden assets (implies --include-hidden).") var hidden: Bool?
    @Flag(inversion: .prefixedNo, exclusivity: .exclusive, help: "Videos.") var video: Bool?

    /// The convenience filters as predicate text (the same language a user writes).
    var filterPredicates: [String] {
        var out: [String] = []
        func add(_ flag: Bool?, _ text: String) {
            guard let flag else { return }
            out.append(flag ? "(\(text))" : "NOT (\(text))")
        }
        add(live, "mediaSubtypes CONTAINS photoLive")
        add(hdr, "mediaSubtypes CONTAINS photoHDR")
        add(panorama, "mediaSubtypes CONTAINS photoPanorama")
        add(screenshot, "mediaSubtypes CONTAINS photoScreenshot")
        add(selfie, "traits CONTAINS selfie")
        add(portrait, "mediaSubtypes CONTAINS photoDepthEffect")
        add(burst, "burstIdentifier != nil")
        add(sloMo, "mediaSubtypes CONTAINS videoHighFrameRate AND traits CONTAINS slomo")
        add(timeLapse, "mediaSubtypes CONTAINS videoTimelapse")
        add(raw, "traits CONTAINS raw")
        add(favorite, "isFavorite == YES")
        add(hidden, "isHidden == YES")
        add(video, "mediaType == video")
        if let fromDate { out.append("creationDate >= \(Self.quote(fromDate))") }
        if let toDate { out.append("creationDate <= \(Self.quote(toDate.count == 10 ? toDate + "T23:59:59.999" : toDate))") }
        if let year { out.append("creationDate BETWEEN {\(Self.quote("\(year)-01-01")), \(Self.quote("\(year)-12-31T23:59:59.999"))}") }
        if let place { out.append("place CONTAINS[c] \(Self.quote(place))") }
        if let country { out.append("(country ==[c] \(Self.quote(country)) OR countryName ==[c] \(Self.quote(country)))") }
        return out
    }

    static func quote(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    func validate() throws {
        if changes != nil {
            if predicate != nil || save != nil || inSaved != nil || inAlbum != nil || !filterPredicates.isEmpty || !sort.isEmpty || limit != nil || count {
                throw ValidationError("--changes NAME re-runs the saved query: it takes no predicate, filters, --sort, --limit, --count or --save.")
            }
        } else if update {
            throw ValidationError("--update goes with --changes NAME.")
        }
        if replace && save == nil { throw ValidationError("--replace goes with --save NAME.") }
        if deleteSaved != nil && (predicate != nil || save != nil || !filterPredicates.isEmpty || count) {
            throw ValidationError("--delete-saved NAME takes no predicate, filters, --count or --save.")
        }
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more.") }
        _ = try FieldList.parse(fields, known: QueryOutput.fields, default: QueryOutput.defaultFields)
        for s in sort where SortDescriptor.columns[SortDescriptor(parsing: s).key] == nil {
            let keys = SortDescriptor.columns.keys.sorted()
            let key = SortDescriptor(parsing: s).key
            throw ValidationError("Cannot sort by '\(s)'.\(Suggestion.phrase(for: key, in: keys)) Sortable keys: \(keys.joined(separator: ", ")).")
        }
    }

    func run() throws {
        if let changes { return try runChanges(changes) }
        if let deleteSaved {
            let catalog = try catalogOption.open(.readWrite(create: false))
            defer { catalog.checkpoint() }
            guard try catalog.deleteSavedFetch(named: deleteSaved) else {
                let names = try catalog.savedFetches().map(\.title)
                FileHandle.standardError.write(Data("error: no saved fetch named '\(deleteSaved)'.\(Suggestion.phrase(for: deleteSaved, in: names))\n".utf8))
                throw ExitCode(2)
            }
            FileHandle.standardError.write(Data("deleted the saved fetch '\(deleteSaved)'\n".utf8))
            return
        }
        let catalog = try catalogOption.open(save == nil ? .readOnly : .readWrite(create: false))
        defer { catalog.checkpoint() }  // a saved fetch written (read-only: nothing)
        IncompleteRunNote.print(catalog)
        var options = FetchOptions()
        // The user's predicate and the convenience filters are compiled separately (so an error's caret
        // points into what the user typed) and joined with AND.
        var compiledParts: [CompiledPredicate] = []
        do {
            if let predicate, !predicate.trimmingCharacters(in: .whitespaces).isEmpty {
                compiledParts.append(try PredicateCompiler.compile(predicate, arguments: args))
            } else if !args.isEmpty {
                throw ValidationError("--arg is given but there is no predicate to fill.")
            }
            let filters = filterPredicates
            if !filters.isEmpty { compiledParts.append(try PredicateCompiler.compile(filters.joined(separator: " AND "))) }
        } catch let e as ValidationError {
            throw e
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(2)
        }
        if !compiledParts.isEmpty {
            options.predicateSQL = compiledParts.map { "(\($0.sql))" }.joined(separator: " AND ")
            options.predicateArguments = compiledParts.flatMap(\.arguments)
        }
        options.sortDescriptors = sort.map(SortDescriptor.init(parsing:))
        options.fetchLimit = limit
        options.includeHiddenAssets = includeHidden || hidden == true
        options.includeAllBurstAssets = allBursts || burst == true
        options.includeTrashed = includeTrashed
        if count && inSaved == nil && inAlbum == nil && save == nil {
            print(try catalog.countAssets(options))
            return
        }
        if inSaved == nil && inAlbum == nil && save == nil && format != .table {
            // Enumeration: one statement over the filtered, ordered rows, written as it is stepped.
            return try QueryOutput.stream(catalog, options, format: format, fields: fields)
        }
        if let save, !replace, try catalog.savedFetch(named: save) != nil {
            FileHandle.standardError.write(Data("error: a saved fetch named '\(save)' exists: add --replace to overwrite it, or choose another name\n".utf8))
            throw ExitCode(2)
        }
        var result = try catalog.fetchAssets(options)
        if let inSaved {
            guard let ids = try catalog.savedFetch(named: inSaved) else { throw ValidationError("No saved fetch named '\(inSaved)'.") }
            let keep = Set(ids)
            result = try catalog.restrict(result, to: keep)
        }
        if let inAlbum {
            // An unknown or ambiguous album is a mistake (exit 2), not 0 results.
            let keep = Set(try usageOnNameError { () throws(CatalogError) in try catalog.albumMembers(of: inAlbum) })
            result = try catalog.restrict(result, to: keep)
        }
        if let save {
            // Only a plain fetch can be re-run for change details; one narrowed to a saved result or an
            // album is saved as a list.
            if inSaved == nil && inAlbum == nil {
                try catalog.saveFetch(named: save, rowIDs: result.rowIDs, options: options)
            } else {
                try catalog.saveFetch(named: save, rowIDs: result.rowIDs)
            }
        }
        if count {
            print(result.count)
            return
        }
        // A table is read by a person, who otherwise wonders where the rest went: what the defaults left out.
        let unseen = format == .table && inSaved == nil && inAlbum == nil && limit == nil ? try QueryOutput.notShown(catalog, options, shown: result.count) : nil
        try QueryOutput.write(result, format: format, fields: fields, note: unseen)
    }
}

extension QueryCommand {
    /// `--changes NAME`: PHFetchResultChangeDetails of a saved fetch, in PhotoKit's order.
    func runChanges(_ name: String) throws {
        let catalog = try catalogOption.open(update ? .readWrite(create: false) : .readOnly)
        defer { catalog.checkpoint() }
        let result: SavedFetchChanges
        do {
            result = try catalog.changeDetails(forSavedFetch: name)
        } catch {
            FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
            throw ExitCode(error.code == .notFound ? 2 : 1)
        }
        switch result {
        case .notIncremental(let reason):
            print("no incremental change details: \(reason)")
        case .incremental(let d):
            let lids = try catalog.localIdentifiers(rowIDs: d.before + d.after)
            let names = try catalog.displayNames(of: Array(lids.values))
            struct Line: Encodable {
                let change: String
                let index: String
                let localIdentifier: String
                let filename: String?
            }
            func line(_ change: String, _ index: String, _ id: Int64) -> Line {
                let l = lids[id]
                return Line(change: change, index: index, localIdentifier: l ?? "(purged)", filename: l.flatMap { names[$0] })
            }
            let lines =
                d.removedIndexes.map { line("removed", String($0), d.before[$0]) } + d.insertedIndexes.map { line("inserted", String($0), d.after[$0]) }
                + d.changedIndexes.map { line("changed", String($0), d.after[$0]) } + d.moves.map { line("moved", "\($0.from)->\($0.to)", d.after[$0.to]) }
            switch format {
            case .json, .ndjson: try JSONOutput.printList(lines, format: format)
            case .csv:
                print(Cell.csvLine(["change", "index", "localIdentifier", "filename"]))
                for l in lines { print(Cell.csvLine([l.change, l.index, l.localIdentifier, l.filename ?? ""])) }
            case .table:
                var table = Table([.init("change"), .init("index", .number), .init("name", .whole), .init("localIdentifier", .whole)])
                for l in lines { table.append([l.change, l.index, l.filename ?? "-", l.localIdentifier]) }
                if !lines.isEmpty { table.print() }
            }
            FileHandle.standardError.write(Data(
                "\(name): \(d.before.count) → \(d.after.count) assets; \(d.removedIndexes.count) removed, \(d.insertedIndexes.count) inserted, \(d.changedIndexes.count) changed, \(d.moves.count) moved\n".utf8))
        }
        if update {
            let r = try catalog.updateSavedFetch(named: name)
            FileHandle.standardError.write(Data("\(name): saved again (\(r.count) assets)\n".utf8))
        }
    }
}

/// Table, JSON, NDJSON and CSV output of a fetch result.
enum QueryOutput {
    static let defaultFields = ["filename", "mediaType", "mediaSubtypes", "creationDate", "size", "localIdentifier"]

    /// Every field `--fields` takes (`AssetField`, in its order).
    static let fields = AssetField.allCases.map(\.rawValue)

    /// How a table treats a field: identifiers and paths are never cut, numbers are right-aligned.
    static func kind(_ f: AssetField) -> Table.Kind {
        switch f {
        case .filename, .path, .root, .localIdentifier, .cloudIdentifier, .contentIdentifier, .burstIdentifier: .whole
        case .pixelWidth, .pixelHeight, .duration, .fileSize, .latitude, .longitude, .isFavorite, .isHidden, .hasAdjustments: .number
        default: .text
        }
    }

    /// A field's text: exact in CSV; in a table, sizes in bytes read as `3.7 MB` and an undated asset's
    /// date (the file's modification time) starts with `~`.
    static func value(_ s: StoredAsset, _ field: String, table: Bool = false) -> String {
        guard let f = AssetField(rawValue: field) else { return "" }
        if table {
            switch f {
            case .creationDate:
                let d = s.asset.creationDate?.description ?? ""
                return s.asset.isUndated && !d.isEmpty ? "~" + d : d
            case .fileSize:
                return s.asset.totalFileSize.map { Cell.bytes(Int64($0)) } ?? ""
            default: break
            }
        }
        return f.text(of: s)
    }

    /// JSON, NDJSON or CSV of every asset a fetch with `options` returns, from one statement over the rows
    /// (`AssetRowWriter.objects(matching:in:)`, `csvLines(matching:in:fields:)`); the same bytes `write`
    /// prints for the fetch result.
    static func stream(_ catalog: Catalog, _ options: FetchOptions, format: OutputFormat, fields: String?) throws {
        let cols = try FieldList.parse(fields, known: Self.fields, default: defaultFields)
        var w = AssetRowWriter()
        switch format {
        case .json:
            w.raw("[")
            let n = try w.objects(matching: options, in: catalog, before: { $0 == 0 ? "\n" : ",\n" })
            w.raw(n == 0 ? "]\n" : "\n]\n")
        case .ndjson:
            _ = try w.objects(matching: options, in: catalog, after: "\n")
        case .csv:
            w.raw(Cell.csvLine(cols) + "\n")
            _ = try w.csvLines(matching: options, in: catalog, fields: cols.compactMap(AssetField.init(rawValue:)))
        case .table:
            return try write(catalog.fetchAssets(options), format: format, fields: fields)
        }
        w.flush()
    }

    /// What PhotoKit's defaults left out of a fetch that shows `shown` assets — burst frames other than the
    /// representative, hidden assets — and the flag that shows them ("2 more burst frames: --all-bursts");
    /// nil when nothing was. Counted with the same predicate (two counts).
    static func notShown(_ catalog: Catalog, _ options: FetchOptions, shown: Int) throws -> String? {
        guard !options.includeAllBurstAssets || !options.includeHiddenAssets else { return nil }
        var o = options
        o.sortDescriptors = []
        o.includeAllBurstAssets = true
        let withBursts = options.includeAllBurstAssets ? shown : try catalog.countAssets(o)
        o.includeHiddenAssets = true
        let withHidden = options.includeHiddenAssets ? withBursts : try catalog.countAssets(o)
        var parts: [String] = []
        if withBursts > shown {
            parts.append("\(withBursts - shown) more burst frame\(withBursts - shown == 1 ? "" : "s"): --all-bursts")
        }
        if withHidden > withBursts { parts.append("\(withHidden - withBursts) hidden: --include-hidden") }
        return parts.isEmpty ? nil : "not shown: " + parts.joined(separator: "; ")
    }

    static func write(_ result: FetchResult, format: OutputFormat, fields: String?, note: String? = nil) throws {
        let out = BufferedOutput()
        defer { out.flush() }
        let cols = try FieldList.parse(fields, known: Self.fields, default: defaultFields)
        switch format {
        case .json:
            var w = AssetRowWriter()
            w.raw("[")
            try w.objects(of: result, before: { $0 == 0 ? "\n" : ",\n" })
            w.raw(result.count == 0 ? "]\n" : "\n]\n")
            w.flush()
        case .ndjson:
            var w = AssetRowWriter()
            try w.objects(of: result, after: "\n")
            w.flush()
        case .csv:
            out.write(Data((Cell.csvLine(cols) + "\n").utf8))
            try result.enumerate { _, s in out.write(Data((Cell.csvLine(cols.map { value(s, $0) }) + "\n").utf8)) }
        case .table:
            out.flush()
            var table = Table(cols.map { Table.Column($0, AssetField(rawValue: $0).map(kind) ?? .text) })
            try result.enumerate { _, s in table.append(cols.map { value(s, $0, table: true) }) }
            table.print()
            print("\(result.count) asset\(result.count == 1 ? "" : "s")" + (note.map { " (\($0))" } ?? ""))
        }
    }

    /// Standard output in 64 KiB writes (a write per line costs a system call per asset).
    final class BufferedOutput {
        private var buffer = Data()
        func write(_ d: Data) {
            buffer.append(d)
            if buffer.count >= 1 << 16 { flush() }
        }
        func flush() {
            if !buffer.isEmpty { FileHandle.standardOutput.write(buffer) }
            buffer.removeAll(keepingCapacity: true)
        }
    }
}
