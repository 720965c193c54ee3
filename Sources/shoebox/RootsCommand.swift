import ArgumentParser
import Catalog
import Foundation
import Pipeline

/// `shoebox roots`: the roots (and crawl options) that `shoebox ingest` without roots scans again.
struct RootsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roots", abstract: "List the catalog's roots: what 'shoebox ingest' with no folders scans again.",
        discussion: "Table: one root per line. JSON: the roots with the include/exclude patterns and options of the last ingest.")

    @OptionGroup var catalogOption: CatalogOption
    @Option(help: "Output format: table or json.") var format: OutputFormat = .table

    func run() throws {
        let catalog = try catalogOption.open()
        guard let scope = try IngestScope.stored(in: catalog) else {
            FileHandle.standardError.write(
                Data("note: no roots stored in \(catalog.path) yet (run 'shoebox ingest ROOT')\n".utf8))
            if format != .table { print("{\"roots\":[]}") }
            return
        }
        if format == .table {
            for r in scope.roots { print(r) }
            return
        }
        let enc = JSONEncoder()
        enc.outputFormatting =
            format == .json ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try enc.encode(scope), as: UTF8.self))
    }
}
