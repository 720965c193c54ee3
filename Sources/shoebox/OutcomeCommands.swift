import ArgumentParser
import Catalog
import Dispatch
import Foundation
import Pipeline

/// `shoebox errors`: error rows (path, stage, reason, run, severity).
struct ErrorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "errors", abstract: "List files that were damaged or could not be catalogued, with stage and reason.",
        discussion: """
            Severity damaged: the file is catalogued, but its bytes are cut or inconsistent. Severity failed: the \\
            file could not be catalogued (no asset). Files skipped as not media are not errors: add \\
            --include-skipped, or see 'shoebox skipped'.

            Examples:
              shoebox errors --severity failed
              shoebox errors --run 3 --format ndjson
            """)

    enum Severity: String, ExpressibleByArgument, CaseIterable { case damaged, failed, all }

    @OptionGroup var catalogOption: CatalogOption
    @Option(help: OutputFormat.help) var format: OutputFormat = .table
    @Option(name: .customLong("run"), help: "Only this ingest run.") var runID: Int64?
    @Option(help: "Only damaged or failed files (default: all).") var severity: Severity = .all
    @Flag(help: "Also list the files skipped as not media.") var includeSkipped = false

    func run() throws {
        let catalog = try catalogOption.open()
        IncompleteRunNote.print(catalog)
        let severities: Set<ErrorSeverity> =
            severity == .all ? Set(ErrorSeverity.allCases) : [ErrorSeverity(rawValue: severity.rawValue)!]
        let rows = try catalog.errors(runID: runID, severities: severities)
        let skipped = includeSkipped ? try catalog.skippedFiles() : []
        struct Line: Encodable { var severity = "skipped"; var path: String; var category: String; var reason: String }
        switch format {
        case .json:
            if includeSkipped {
                struct Both: Encodable { var errors: [StoredError]; var skipped: [SkippedFile] }
                print(try JSONOutput.text(Both(errors: rows, skipped: skipped), pretty: true))
            } else {
                print(try JSONOutput.text(rows, pretty: true))
            }
        case .ndjson:
            try JSONOutput.printList(rows, format: .ndjson)
            try JSONOutput.printList(skipped.map { Line(path: $0.path, category: $0.category, reason: $0.reason) }, format: .ndjson)
        case .csv:
            print(Cell.csvLine(["runID", "severity", "stage", "path", "reason", "at"]))
            for r in rows { print(Cell.csvLine([String(r.runID), r.severity.rawValue, r.stage, r.path, r.reason, r.at])) }
            for s in skipped { print(Cell.csvLine(["", "skipped", s.category, s.path, s.reason, ""])) }
        case .table:
            var table = Table([.init("run", .number), .init("severity"), .init("stage"), .init("path", .whole), .init("reason")])
            for r in rows { table.append([String(r.runID), r.severity.rawValue, r.stage, r.path, r.reason]) }
            for s in skipped { table.append(["-", "skipped", s.category, s.path, s.reason]) }
            table.print()
        }
    }
}

/// `shoebox skipped`: files left out because they are not media, with their category.
struct SkippedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skipped", abstract: "List files skipped as not media (text, JSON that is not Takeout, Thumbs.db, …).",
        discussion: """
            Skipped files are never errors. Categories: text, json, document, system, archive, database, audio, \\
            empty, other.

            Examples:
              shoebox skipped
              shoebox skipped --category system --format ndjson
            """)

    @OptionGroup var catalogOption: CatalogOption
    @Option(help: OutputFormat.help) var format: OutputFormat = .table
    @Option(help: "Only this category.") var category: String?

    func run() throws {
        let rows = try catalogOption.open().skippedFiles().filter { category == nil || $0.category == category }
        switch format {
        case .json, .ndjson: try JSONOutput.printList(rows, format: format)
        case .csv:
            print(Cell.csvLine(["category", "path", "reason"]))
            for r in rows { print(Cell.csvLine([r.category, r.path, r.reason])) }
        case .table:
            var table = Table([.init("category"), .init("path", .whole), .init("reason")])
            for r in rows { table.append([r.category, r.path, r.reason]) }
            table.print()
        }
    }
}

/// One line on standard error when the newest ingest did not finish, so that a reader knows the catalog
/// is partial.
enum IncompleteRunNote {
    static func print(_ catalog: Catalog) {
        guard let run = try? catalog.incompleteRun() else { return }
        let what =
            run.status == "running" && (run.host != RunInfo.hostName() || run.pid.map(RunInfo.isAlive) == true)
            ? "is still running" : "did not finish (\(run.status))"
        let text =
            "note: the newest ingest (run \(run.id), started \(run.startedAt)) \(what); the catalog holds what it committed so far\n"
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// SIGINT/SIGTERM during an ingest: the first asks the run to stop at the next folder boundary, a second
/// quits at once (the catalog stays consistent: every folder is its own transaction).
final class StopSignal: @unchecked Sendable {
    /// Exit status of an interrupted run (128 + SIGINT, as shells report it).
    static let exitStatus: Int32 = 130

    private let lock = NSLock()
    private var flag = false
    private var sources: [DispatchSourceSignal] = []

    var requested: Bool { lock.withLock { flag } }

    static func install() -> StopSignal {
        let s = StopSignal()
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let src = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            src.setEventHandler { [s] in s.received(sig) }
            src.resume()
            s.sources.append(src)
        }
        return s
    }

    private func received(_ sig: Int32) {
        let again = lock.withLock { () -> Bool in
            defer { flag = true }
            return flag
        }
        if again {
            FileHandle.standardError.write(Data("\nstopped at once; the next ingest finishes the job\n".utf8))
            _exit(Self.exitStatus)
        }
        let name = sig == SIGINT ? "interrupt" : "SIGTERM"
        FileHandle.standardError.write(Data("\n\(name): stopping at the next folder boundary (again to quit at once)\n".utf8))
    }
}

/// `shoebox rederive`: judgements derived again from the stored facts, without reading a source file.
struct RederiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rederive",
        abstract: "Derive classifications, assets and collections again from the catalog's stored facts (no file is read).",
        discussion: """
            Works with the roots offline (an unmounted NAS): it reads only the catalog. Asset and cloud \\
            identifiers, favorites, hidden flags, albums and your own changes are kept; the change history \\
            records only real differences. An ingest does the same by itself when the rules changed. A folder \\
            with a file whose facts are missing or from an older probe is kept as it is (ingest it to probe \\
            again).

            Examples:
              shoebox rederive
              shoebox rederive --examples 10
            """)

    @OptionGroup var catalogOption: CatalogOption
    @Option(help: "How many example changes to print per property.") var examples = 3

    func run() throws {
        let catalog = try catalogOption.open(.readWrite(create: false))
        let ingestor = Ingestor(options: IngestOptions(roots: [], concurrency: 1), catalog: catalog)
        let s = try ingestor.rederiveAll()
        catalog.checkpoint()
        var byProperty: [String: [String]] = [:]
        var inserted = 0, updated = 0, deleted = 0
        for r in s.records where r.objectType == "asset" {
            switch r.changeType {
            case "updated":
                updated += 1
                for p in r.properties { byProperty[p, default: []].append(r.localIdentifier) }
            case "inserted": inserted += 1
            default: deleted += 1
            }
        }
        print(
            "rederive run \(s.runID): \(s.folders) folders, \(s.files) files from stored facts in \(String(format: "%.2f", s.elapsed)) s (rules \(DerivationRules.current.version))"
        )
        print(
            "  assets inserted \(inserted), updated \(updated), deleted \(deleted)"
        )
        for (p, ids) in byProperty.sorted(by: {
            $0.value.count != $1.value.count ? $0.value.count > $1.value.count : $0.key < $1.key
        }) {
            let names = try ids.prefix(examples).map { id in try catalog.findAsset(id)?.asset.id ?? id }
            print("  \(p): \(ids.count)   e.g. \(names.joined(separator: ", "))")
        }
        if !s.keptFolders.isEmpty {
            print(
                "  kept as they were: \(s.keptFolders.count) folders with files whose facts are missing or from an older probe (ingest them), e.g. \(s.keptFolders.prefix(3).joined(separator: ", "))"
            )
        }
        // As ingest says it: places were derived again without a gazetteer.
        if s.organized != nil, let note = PlaceStage.missingNote { print("  note: \(note)") }
        print("  change token: \(try catalog.currentToken())")
    }
}
