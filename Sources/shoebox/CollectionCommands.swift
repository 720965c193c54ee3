import ArgumentParser
import Catalog
import Foundation
import PhotoModel

/// `shoebox collections`: moments, albums and smart albums with titles, dates, counts and identifiers.
struct CollectionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collections", abstract: "List collections: moments, albums and smart albums (smart albums are counted now).",
        discussion: """
            Examples:
              shoebox collections
              shoebox collections --type smartAlbum --format csv
            """)

    enum Kind: String, ExpressibleByArgument { case moment, album, smartAlbum, saved }

    @OptionGroup var catalogOption: CatalogOption
    @Option(help: "Only one type: moment, album, smartAlbum, or saved (the fetches saved with query --save).") var type: Kind?
    @Option(help: OutputFormat.help) var format: OutputFormat = .table

    func run() throws {
        let catalog = try catalogOption.open()
        let t: AssetCollectionType?
        switch type {
        case .moment: t = .moment
        case .album: t = .album
        case .smartAlbum: t = .smartAlbum
        case .saved: return try CollectionOutput.write(catalog.savedFetches(), format: format)
        case nil: t = nil
        }
        try CollectionOutput.write(try catalog.collections(type: t), format: format)
    }
}

/// `shoebox moments`.
struct MomentsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "moments", abstract: "List moments (time and place) with dates and counts.",
        discussion: """
            Examples:
              shoebox moments
              shoebox moments --format ndjson
            """)
    @OptionGroup var catalogOption: CatalogOption
    @Option(help: OutputFormat.help) var format: OutputFormat = .table

    func run() throws { try CollectionOutput.write(try catalogOption.open().collections(type: .moment), format: format) }
}

/// `shoebox bursts`: burst sets with their representative and frame count.
struct BurstsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bursts", abstract: "List burst sets: identifier, frames, representative.",
        discussion: """
            Examples:
              shoebox bursts
              shoebox bursts --format ndjson
            """)
    @OptionGroup var catalogOption: CatalogOption
    @Option(help: OutputFormat.help) var format: OutputFormat = .table

    struct Frame: Encodable {
        let localIdentifier: String
        let path: String
        let creationDate: String?
        let representsBurst: Bool
        let autoPick: Bool
        let userPick: Bool
    }

    struct Burst: Encodable {
        let burstIdentifier: String
        let count: Int
        let representative: String?
        let frames: [Frame]
    }

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
        let bursts = groups.map { id, frames in
            Burst(
                burstIdentifier: id, count: frames.count, representative: frames.first { $0.asset.representsBurst }?.localIdentifier,
                frames: frames.map {
                    Frame(
                        localIdentifier: $0.localIdentifier, path: $0.asset.id, creationDate: $0.asset.creationDate?.description,
                        representsBurst: $0.asset.representsBurst, autoPick: $0.asset.burstSelectionTypes.contains(.autoPick),
                        userPick: $0.asset.burstSelectionTypes.contains(.userPick))
                })
        }
        switch format {
        case .json, .ndjson: try JSONOutput.printList(bursts, format: format)
        case .csv:
            print(Cell.csvLine(["burstIdentifier", "localIdentifier", "path", "creationDate", "representsBurst", "autoPick", "userPick"]))
            for b in bursts {
                for f in b.frames {
                    print(Cell.csvLine([
                        b.burstIdentifier, f.localIdentifier, f.path, f.creationDate ?? "", f.representsBurst ? "1" : "0", f.autoPick ? "1" : "0",
                        f.userPick ? "1" : "0",
                    ]))
                }
            }
        case .table:
            for b in bursts {
                let rep = b.frames.first { $0.representsBurst }
                print("\(b.burstIdentifier)  \(b.count) frames  representative: \(rep?.path ?? "-")")
                var table = Table([.init("date"), .init("path", .whole), .init("marks"), .init("localIdentifier", .whole)])
                for f in b.frames {
                    let marks = [f.representsBurst ? "representative" : nil, f.autoPick ? "autoPick" : nil, f.userPick ? "userPick" : nil]
                    table.append([f.creationDate ?? "-", f.path, marks.compactMap { $0 }.joined(separator: ","), f.localIdentifier])
                }
                for l in table.lines() { print("    " + l) }
            }
            if bursts.isEmpty { print("no bursts") }
        }
    }
}

enum CollectionOutput {
    static func typeName(_ c: StoredCollection) -> String { c.isSavedFetch ? "saved" : typeName(c.type) }

    /// The type as a table shows it: a user's album apart from a directory's.
    static func typeLabel(_ c: StoredCollection) -> String { c.byUser ? typeName(c) + " (user)" : typeName(c) }

    /// The PhotoKit type's case name (`album`, `smartAlbum`, `moment`), or the number when unknown.
    static func typeName(_ t: Int) -> String { AssetCollectionType(rawValue: t).map { "\($0)" } ?? String(t) }

    static func write(_ cs: [StoredCollection], format: OutputFormat) throws {
        func dates(_ c: StoredCollection) -> String { [c.startDate, c.endDate].compactMap { $0 }.joined(separator: " – ") }
        switch format {
        case .table:
            var table = Table([.init("type"), .init("count", .number), .init("dates"), .init("title"), .init("localIdentifier", .whole)])
            for c in cs { table.append([typeLabel(c), String(c.count), dates(c), c.title, c.localIdentifier]) }
            table.print()
        case .csv:
            print(Cell.csvLine(["type", "subtype", "count", "startDate", "endDate", "title", "localIdentifier", "byUser"]))
            for c in cs {
                print(
                    Cell.csvLine([
                        typeName(c), String(c.subtype), String(c.count), c.startDate ?? "", c.endDate ?? "", c.title, c.localIdentifier, c.byUser ? "1" : "0",
                    ]))
            }
        case .json, .ndjson:
            let objs: [[String: Any]] = cs.map {
                [
                    "localIdentifier": $0.localIdentifier, "type": typeName($0), "subtype": $0.subtype, "title": $0.title,
                    "startDate": $0.startDate ?? NSNull(), "endDate": $0.endDate ?? NSNull(), "count": $0.count,
                    "predicate": ($0.predicate?.components(separatedBy: "\u{1F}").first).map { $0 as Any } ?? NSNull(),
                    "byUser": $0.byUser,
                ]
            }
            if format == .json {
                print(try JSONOutput.text(object: objs, pretty: true))
            } else {
                for o in objs { print(try JSONOutput.text(object: o, pretty: false)) }
            }
        }
    }
}
