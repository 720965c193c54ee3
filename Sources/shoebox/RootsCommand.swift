import ArgumentParser
import Catalog
import Foundation
import Pipeline

/// `shoebox roots`: the roots (and crawl options) that `shoebox ingest` without roots scans again.
struct RootsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roots", abstract: "List the catalog's roots: what 'shoebox ingest' with no folders scans again.",
        discussion: """
            Table and CSV: one root per line. JSON: the roots with the include/exclude patterns and options of \
            the last ingest (NDJSON: the same on one line).

            Examples:
              shoebox roots
              shoebox roots --json
            """)

    @OptionGroup var catalogOption: CatalogOption
    @Option(help: OutputFormat.help) var format: OutputFormat = .table

    func run() throws {
        let catalog = try catalogOption.open()
        guard let scope = try IngestScope.stored(in: catalog) else {
            FileHandle.standardError.write(
                Data("note: no roots stored in \(catalog.path) yet (run 'shoebox ingest ROOT')\n".utf8))
            switch format {
            case .json, .ndjson: print("{\"roots\":[]}")
            case .csv: print("root")
            case .table: break
            }
            return
        }
        switch format {
        case .table: for r in scope.roots { print(r) }
        case .csv:
            print("root")
            for r in scope.roots { print(Cell.csv(r)) }
        case .json, .ndjson: print(try JSONOutput.text(scope, pretty: format == .json))
        }
    }
}
