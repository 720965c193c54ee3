import ArgumentParser
import Assemble
import Foundation
import MediaProbe
import PhotoModel
import Pipeline

/// `shoebox inspect PATH…`: assemble the files under each path into assets (no catalog needed).
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Assemble files into PhotoKit-style assets: subtypes, traits, resources and the reasons for each.",
        discussion: """
            Resource paths are relative to each PATH (a file's folder when PATH is a file). Orphans (sidecars \
            with no media, unreadable files) are listed after the assets. Exit status 0, or 1 when some files \
            could not be read; 2 for usage errors.

            Examples:
              shoebox inspect Photos/iphone
              shoebox inspect --format table Photos
            """)

    @Argument(help: "Folders (or files) to assemble.")
    var paths: [String]

    @Option(help: "Output format: json, ndjson, table or csv (--json is --format json).")
    var format: OutputFormat = .json

    @Flag(help: "Include hidden files and directories.")
    var hidden = false

    @Option(help: "Files probed at once (default: the number of cores).")
    var jobs: Int?

    @Option(help: "Progress: auto (a live bar on a terminal, nothing otherwise), json (one event per second on stderr), none.")
    var progress: ProgressMode = .auto

    func validate() throws {
        if paths.isEmpty { throw ValidationError("Give at least one folder or file to inspect.") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1.") }
    }

    func run() async throws {
        let reporter = ProgressReporter(mode: progress)
        let start = Date()
        let results = try await Inspector.inspect(
            paths, width: jobs ?? ProcessInfo.processInfo.activeProcessorCount, crawler: Crawler(includeHidden: hidden)
        ) { done, total in reporter.update(filesDone: done, filesTotal: total, errors: 0, elapsed: Date().timeIntervalSince(start)) }
        reporter.finish()
        let out = FileHandle.standardOutput
        let enc = JSONOutput.encoder(pretty: format == .json)
        var unreadable = 0
        for r in results {
            unreadable += r.assembly.orphans.filter { $0.kind == "unknown" || $0.kind == "empty" }.count
            switch format {
            case .json:
                let doc = Document(root: r.root, assets: r.assembly.assets.map(AssetJSON.init), orphans: r.assembly.orphans, notes: r.assembly.notes)
                out.write(try enc.encode(doc))
                out.write(Data("\n".utf8))
            case .ndjson:
                for a in r.assembly.assets { out.write(try enc.encode(AssetJSON(a)) + Data("\n".utf8)) }
                for o in r.assembly.orphans { out.write(try enc.encode(OrphanLine(orphan: o)) + Data("\n".utf8)) }
            case .table:
                out.write(Data(AssetTable.render(r).utf8))
            case .csv:
                if r.root == results.first?.root { out.write(Data((Cell.csvLine(AssetTable.csvColumns) + "\n").utf8)) }
                for a in r.assembly.assets { out.write(Data((Cell.csvLine(AssetTable.cells(a.asset, root: r.root)) + "\n").utf8)) }
            }
        }
        if unreadable > 0 { throw ExitCode(1) }
    }

    struct Document: Encodable {
        let root: String
        let assets: [AssetJSON]
        let orphans: [Orphan]
        let notes: [String]
    }

    struct OrphanLine: Encodable {
        let orphan: Orphan
    }
}

/// `--format table` (and `csv`) for assembled assets.
enum AssetTable {
    static let csvColumns = ["root", "type", "subtypes", "traits", "date", "resources", "id"]

    static func cells(_ x: Asset, root: String) -> [String] {
        [
            root, x.mediaType.name, x.mediaSubtypes.names.joined(separator: ","), x.traits.map(\.rawValue).sorted().joined(separator: ","),
            x.creationDate?.description ?? "", String(x.resources.count), x.id,
        ]
    }

    static func render(_ r: Inspector.Result) -> String {
        var lines = ["# \(r.root): \(r.assembly.assets.count) assets from \(r.filesProbed) files, \(r.assembly.orphans.count) orphans"]
        var table = Table([
            .init("type"), .init("subtypes"), .init("traits"), .init("date"), .init("res", .number), .init("id", .whole),
        ])
        for a in r.assembly.assets {
            let x = a.asset
            var c = Array(cells(x, root: r.root).dropFirst())
            c[3] = x.creationDate.map { (x.isUndated ? "~" : "") + $0.description } ?? "-"
            table.append(c)
        }
        lines += table.lines()
        for o in r.assembly.orphans { lines.append("orphan " + o.path + ": " + o.reason) }
        return lines.joined(separator: "\n") + "\n"
    }
}
