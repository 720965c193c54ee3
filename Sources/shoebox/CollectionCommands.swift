import ArgumentParser
import Catalog
import Foundation
import PhotoModel

/// `shoebox collections`: moments, albums and smart albums with titles, dates, counts and identifiers.
struct CollectionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collections", abstract: "List collections: moments, albums and smart albums (smart albums are counted now).")

    enum Kind: String, ExpressibleByArgument { case moment, album, smartAlbum }

    @OptionGroup var catalogOption: CatalogOption
    @Option(help: "Only one type: moment, album or smartAlbum.") var type: Kind?
    @Option(help: "Output format: table, json or ndjson.") var format: OutputFormat = .table

    func run() throws {
        let t: AssetCollectionType? = type.map { k in
            switch k {
            case .moment: return .moment
            case .album: return .album
            case .smartAlbum: return .smartAlbum
            }
        }
        try CollectionOutput.write(try catalogOption.open().collections(type: t), format: format)
    }
}

/// `shoebox moments`.
struct MomentsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "moments", abstract: "List moments (time and place) with dates and counts.")
    @OptionGroup var catalogOption: CatalogOption
    @Option(help: "Output format: table, json or ndjson.") var format: OutputFormat = .table

    func run() throws { try CollectionOutput.write(try catalogOption.open().collections(type: .moment), format: format) }
}

/// `shoebox bursts`: burst sets with their representative and frame count.
struct BurstsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bursts", abstract: "List burst sets: identifier, frames, representative.")
    @OptionGroup var catalogOption: CatalogOption

    func run() throws {
        var o = FetchOptions()
        o.includeAllBurstAssets = true
        o.predicateSQL = "a.burst_identifier IS NOT NULL"
        o.sortDescriptors = [SortDescriptor(key: "burstIdentifier"), SortDescriptor(key: "creationDate")]
        var groups: [(String, [StoredAsset])] = []
        try catalogOption.open().fetchAssets(o).enumerate { _, s in
            let id = s.asset.burstIdentifier ?? ""
            if groups.last?.0 == id { groups[groups.count - 1].1.append(s) } else { groups.append((id, [s])) }
        }
        for (id, frames) in groups {
            let rep = frames.first { $0.asset.representsBurst }
            print("\(id)  \(frames.count) frames  representative: \(rep?.asset.id ?? "-")")
            for f in frames {
                let sel = f.asset.burstSelectionTypes
                let marks = [f.asset.representsBurst ? "representative" : nil, sel.contains(.autoPick) ? "autoPick" : nil, sel.contains(.userPick) ? "userPick" : nil]
                    .compactMap { $0 }.joined(separator: ",")
                print("    \(f.asset.creationDate?.description ?? "-")  \(f.asset.id)\(marks.isEmpty ? "" : "  [\(marks)]")")
            }
        }
        if groups.isEmpty { print("no bursts") }
    }
}

enum CollectionOutput {
    static func typeName(_ t: Int) -> String {
        switch t {
        case 1: return "album"
        case 2: return "smartAlbum"
        case 3: return "moment"
        default: return String(t)
        }
    }

    static func write(_ cs: [StoredCollection], format: OutputFormat) throws {
        switch format {
        case .table:
            print(TableRow.pad("TYPE", 10) + " " + TableRow.pad("COUNT", 6) + " " + TableRow.pad("DATES", 45) + " " + TableRow.pad("TITLE", 28) + " IDENTIFIER")
            for c in cs {
                let dates = [c.startDate, c.endDate].compactMap { $0 }.map { String($0.prefix(19)) }.joined(separator: " – ")
                print(TableRow.pad(typeName(c.type), 10) + " " + TableRow.pad(String(c.count), 6) + " " + TableRow.pad(dates, 45) + " "
                    + TableRow.pad(c.title, 28) + " " + c.localIdentifier)
            }
        case .json, .ndjson:
            let objs: [[String: Any]] = cs.map {
                [
                    "localIdentifier": $0.localIdentifier, "type": typeName($0.type), "subtype": $0.subtype, "title": $0.title,
                    "startDate": $0.startDate ?? NSNull(), "endDate": $0.endDate ?? NSNull(), "count": $0.count,
                    "predicate": ($0.predicate?.components(separatedBy: "\u{1F}").first).map { $0 as Any } ?? NSNull(),
                ]
            }
            if format == .json {
                print(String(decoding: try JSONSerialization.data(withJSONObject: objs, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self))
            } else {
                for o in objs { print(String(decoding: try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys]), as: UTF8.self)) }
            }
        }
    }
}
