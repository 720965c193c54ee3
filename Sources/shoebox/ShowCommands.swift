import ArgumentParser
import Assemble
import Catalog
import Foundation
import PhotoModel
import Report

/// `shoebox show ID`: one asset whole — identifiers, resources, subtypes and traits with their reasons.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print one asset whole: identifiers, resources, subtypes and traits with the reason for each.",
        discussion: """
            Examples:
              shoebox show iphone/IMG_0001.JPG
              shoebox show iphone/IMG_0001.JPG --facts
              shoebox show iphone/IMG_0001.JPG --format json
            """)

    @OptionGroup var catalogOption: CatalogOption
    @Argument(help: "A localIdentifier, a cloudIdentifier, a file's absolute path or path relative to its root, or a file name that only one asset has.")
    var identifier: String
    @Option(help: "Output format: table, json or ndjson (--json is --format json).") var format: OutputFormat = .table
    @Flag(help: "Also print every stored fact of the asset's files with the tag or box it came from (no file is read).")
    var facts = false

    func validate() throws {
        if format == .csv { throw ValidationError("show prints one asset: --format table, json or ndjson.") }
    }

    func run() throws {
        let catalog = try catalogOption.open()
        var key = identifier
        if !key.hasPrefix("/"), key.contains("/"), FileManager.default.fileExists(atPath: key) {
            key = URL(fileURLWithPath: key).standardizedFileURL.path  // a path from here, as the shell completes it
        }
        let direct = try usageOnNameError { () throws(CatalogError) in try catalog.findAsset(identifier) }
        guard let s = try direct ?? (key == identifier ? nil : usageOnNameError { () throws(CatalogError) in try catalog.findAsset(key) }) else {
            FileHandle.standardError.write(Data("error: no asset matches '\(identifier)'\n".utf8))
            throw ExitCode(1)
        }
        if facts {
            try FactsText.print(catalog.facts(ofAsset: s.localIdentifier), format: format)
            return
        }
        if format != .table {
            var a = AssembledAsset(asset: s.asset)
            a.metadataSources = s.metadataSources.map { MetadataSource(type: $0.type, path: $0.path) }
            let place = try catalog.placeInfo(s.localIdentifier).flatMap { $0 == AssetPlaceInfo() ? nil : $0 }
            let doc = ShowDocument(
                localIdentifier: s.localIdentifier, cloudIdentifier: s.cloudIdentifier, root: s.root, isTrashed: s.isTrashed, asset: AssetJSON(a),
                place: place)
            print(try JSONOutput.text(doc, pretty: format == .json))
            return
        }
        print(ShowText.render(s, collections: try catalog.collections(containing: s.localIdentifier), place: try catalog.placeInfo(s.localIdentifier)))
    }

    struct ShowDocument: Encodable {
        let localIdentifier: String
        let cloudIdentifier: String
        let root: String
        let isTrashed: Bool
        let asset: AssetJSON
        /// The derived place and local time (docs/places.md); absent when there is none.
        let place: AssetPlaceInfo?
    }
}

enum ShowText {
    static func render(_ s: StoredAsset, collections: [String], place: AssetPlaceInfo? = nil) -> String {
        let a = s.asset
        var l: [String] = []
        l.append("\(a.id)\(s.isTrashed ? "   (in Recently Deleted)" : "")")
        l.append("  localIdentifier  \(s.localIdentifier)")
        l.append("  cloudIdentifier  \(s.cloudIdentifier)")
        l.append("  root             \(s.root)")
        l.append("  mediaType        \(a.mediaType.name)")
        l.append("  mediaSubtypes    \(a.mediaSubtypes.names.isEmpty ? "-" : a.mediaSubtypes.names.joined(separator: ", "))")
        l.append("  traits           \(a.traits.isEmpty ? "-" : a.traits.map(\.rawValue).sorted().joined(separator: ", "))")
        l.append("  playbackStyle    \(a.playbackStyle.name)\(a.playbackVariation != .none ? " (\(a.playbackVariation))" : "")")
        l.append("  creationDate     \(a.isUndated ? "~" : "")\(a.creationDate?.description ?? "-")\(a.creationDateSource.map { "   ← \($0)" } ?? "")")
        if let loc = a.location {
            l.append("  location         \(loc.latitude), \(loc.longitude)\(loc.altitude.map { ", \($0) m" } ?? "")\(a.locationSource.map { "   ← \($0)" } ?? "")")
        } else {
            l.append("  location         -")
        }
        if let text = place?.placeDescription { l.append("  place            \(text)") }
        if let text = place?.localDateDescription { l.append("  localDate        \(text)") }
        l.append("  size             \(a.pixelWidth)x\(a.pixelHeight)\(a.mediaType == .video || a.mediaType == .audio ? String(format: ", %.3f s", a.duration) : "")")
        l.append("  camera           \(a.cameraName ?? "-")\(a.lensModel.map { " — \($0)" } ?? "")")
        if let c = a.contentIdentifier { l.append("  contentIdentifier \(c)") }
        if let b = a.burstIdentifier { l.append("  burstIdentifier  \(b)\(a.representsBurst ? " (representative)" : "")") }
        l.append("  favorite/hidden  \(a.isFavorite ? "yes" : "no") / \(a.isHidden ? "yes" : "no"); hasAdjustments \(a.hasAdjustments ? "yes" : "no")")
        l.append("  resources:")
        for (r, h) in zip(a.resources, s.resourceHashes) {
            l.append("    \(TableRow.pad(r.type.name, 20)) \(r.path)\(r.fileSize.map { "  " + Cell.bytes(Int64($0)) } ?? "")\(h.map { "  \($0)" } ?? "")")
        }
        if !s.metadataSources.isEmpty {
            l.append("  metadata sources:")
            for m in s.metadataSources { l.append("    \(TableRow.pad(m.type, 20)) \(m.path)") }
        }
        if !collections.isEmpty { l.append("  collections:      \(collections.joined(separator: ", "))") }
        l.append("  reasons:")
        for r in a.reasons { l.append("    \(r.subject): \(r.evidence)") }
        return l.joined(separator: "\n")
    }
}

/// `shoebox stats`: counts by type, subtype, trait, year, camera.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Count assets by media type, subtype, trait, year and camera.",
        discussion: """
            Years run oldest first; undated assets (no date in the file or its sidecars: the file's \
            modification time stands in) are counted apart.

            Examples:
              shoebox stats
              shoebox stats --format csv
            """)

    @OptionGroup var catalogOption: CatalogOption
    @Option(help: OutputFormat.help) var format: OutputFormat = .table

    func run() throws {
        let catalog = try catalogOption.open()
        IncompleteRunNote.print(catalog)
        let stats = try catalog.statistics()
        switch format {
        case .json, .ndjson:
            // JSON: one object of sections (keys sorted); NDJSON: a line per counted value, in table order.
            if format == .json {
                var obj: [String: [String: Int]] = [:]
                for s in stats { obj[s.section] = Dictionary(uniqueKeysWithValues: s.rows.map { ($0.0, $0.1) }) }
                print(try JSONOutput.text(object: obj, pretty: true))
            } else {
                for s in stats {
                    for (k, n) in s.rows { print(try JSONOutput.text(object: ["section": s.section, "value": k, "count": n], pretty: false)) }
                }
            }
        case .csv:
            print("section,value,count")
            for s in stats { for (k, n) in s.rows { print(Cell.csvLine([s.section, k, String(n)])) } }
        case .table:
            for s in stats {
                print("\(s.section):")
                for (k, n) in s.rows { print("  \(DisplayWidth.pad(k, 32)) \(n)") }
            }
        }
    }
}

/// `show --facts`: the stored probe facts of an asset's files, from the catalog alone.
enum FactsText {
    static func print(_ files: [(path: String, facts: [UInt8], probeVersion: Int?)], format: OutputFormat) throws {
        if format != .table {
            // The stored facts as they are, one document per file (null where they do not parse).
            let docs = try files.map { f in
                let doc: [String: Any] = [
                    "path": f.path, "probeVersion": f.probeVersion ?? NSNull(),
                    "facts": (try? JSONSerialization.jsonObject(with: Data(f.facts))) ?? NSNull(),
                ]
                return try JSONOutput.text(object: doc, pretty: false)
            }
            Swift.print(format == .ndjson ? docs.joined(separator: "\n") : "[" + docs.joined(separator: ",\n") + "]")
            return
        }
        for f in files {
            Swift.print("\(f.path)   (facts of probe version \(f.probeVersion.map(String.init) ?? "?"))")
            guard let lines = FactLines.lines(f.facts) else {
                Swift.print("  (stored facts do not decode: the next ingest probes this file again)")
                continue
            }
            for l in lines { Swift.print("  " + l) }
        }
    }
}
