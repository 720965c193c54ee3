import ArgumentParser
import Catalog
import Derivatives
import Foundation
import MediaProbe
import Pipeline

/// `--catalog PATH`, shared by every command that reads or writes a catalog.
struct CatalogOption: ParsableArguments {
    @Option(help: "The catalog (SQLite). Default: shoebox.sqlite in the working directory.")
    var catalog: String = "shoebox.sqlite"

    /// Opens the catalog: read-only unless the command writes (only `ingest`, `requests --replay` and
    /// `change --create` may create one). A refusal is printed and becomes its exit status.
    func open(_ mode: Catalog.OpenMode = .readOnly) throws -> Catalog { try Self.open(catalog, mode) }

    static func open(_ path: String, _ mode: Catalog.OpenMode) throws -> Catalog {
        do {
            return try Catalog(path: path, mode: mode)
        } catch {
            let missing = error.code == .notFound && mode != .readWrite(create: true)
            let message = missing ? "No catalog at \(path). Run 'shoebox ingest ROOT' first, or pass --catalog PATH." : error.message
            FileHandle.standardError.write(Data("error: \(message)\n".utf8))
            throw ExitCode(CommandOutput.status(for: error))
        }
    }
}

/// A command's PREDICATE argument compiled with its `--arg` values; nil when none (or only spaces) is
/// given. A bad predicate prints its positioned error on stderr and exits 2.
func compileCommandPredicate(_ predicate: String?, arguments: [String]) throws -> CompiledPredicate? {
    guard let predicate, !predicate.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
    do {
        return try PredicateCompiler.compile(predicate, arguments: arguments)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        throw ExitCode(2)
    }
}

extension IngestOptions.HashMode: ExpressibleByArgument {}

enum ProgressMode: String, ExpressibleByArgument {
    case auto, json, none
}

/// Exit statuses beyond 0/1/2.
enum ExitStatus {
    static let tokenExpired: Int32 = 3
    static let tokenUnavailable: Int32 = 4
}

/// `shoebox ingest ROOT…`: crawl, probe, classify, assemble and commit into the catalog.
struct IngestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Ingest folders into the catalog (incremental: unchanged files are not probed again).",
        discussion: """
            Sources are never written. A second run costs little when little changed. Ctrl-C (SIGINT) or \
            SIGTERM stops at the next folder boundary and marks the run interrupted (a second Ctrl-C quits at \
            once); a killed run leaves a consistent catalog and the next run finishes the job.

            Every file ends one of four ways, counted apart in the summary: catalogued; damaged (catalogued, \
            but cut or inconsistent: an error row of severity damaged); failed (media that could not be \
            catalogued: an error row, no asset); skipped (not media: README, JSON, Thumbs.db…; see 'shoebox \
            skipped'). Shoebox's own files (catalogs, thumbnail folders, manifests) are never input.

            Exit status: 0 every media file was catalogued (damaged ones included); 1 some media files failed \
            (with --strict, damaged ones too); 2 usage errors.
            """)

    @Argument(help: "Folders (or files) to ingest.")
    var roots: [String] = []

    @OptionGroup var catalogOption: CatalogOption

    @Option(help: "A pipeline definition (YAML: roots, include/exclude, concurrency, stages); see Pipelines/README.md.")
    var pipeline: String?

    @Option(help: "Only files matching this glob (repeatable; e.g. '*.heic', 'DCIM/**').")
    var include: [String] = []

    @Option(help: "Skip files and folders matching this glob (repeatable; e.g. '**/Trash/**').")
    var exclude: [String] = []

    @Option(help: "Files probed at once (default: the number of cores).")
    var jobs: Int?

    @Flag(help: "Include hidden files and directories.")
    var hidden = false

    @Flag(help: "Delete assets whose files vanished instead of moving them to Recently Deleted.")
    var prune = false

    @Option(help: "Also write thumbnails into this folder (the thumbnails stage).")
    var thumbnails: String?

    @Option(help: "Thumbnail sizes for --thumbnails, comma-separated.")
    var thumbnailSizes: String = "256,1024"

    @Option(help: "Thumbnail mode for --thumbnails: fit or fill.")
    var thumbnailMode: String = "fit"

    @Flag(help: "With --thumbnails: afterwards delete the thumbnails of assets that left the catalog or changed.")
    var thumbnailPrune = false

    @Option(help: "A YAML file with your own smart albums ('userSmartAlbums:', as in Pipelines/smart-albums.yml).")
    var smartAlbums: String?

    @Flag(help: "Also open each HEIF with libheif and each movie with libavformat to cross-check (slower; 'shoebox probe' always does).")
    var crossCheck = false

    @Option(help: "Days of change history to keep (older history is compacted).")
    var historyRetention: Int = 30

    @Option(help: "Progress: auto (a live bar on a terminal, nothing otherwise), json (one event per second on stderr), none.")
    var progress: ProgressMode = .auto

    @Option(help: "Seconds one file may take (probe + hash) before it is abandoned with an error row; 0: no limit (default 60).")
    var fileTimeout: Double?

    @Flag(help: "Exit 1 when any file is damaged, not only when one failed.")
    var strict = false

    @Option(help: "Content hashes: full (every byte), sampled (size + head/middle/tail windows; files that share one are hashed in full) or none (size + the head the probe read; likewise). See docs/catalog.md.")
    var hash: IngestOptions.HashMode = .full

    @Flag(help: "Derive every folder again from its stored facts (automatic when the rules changed since the last run).")
    var rederive = false

    func validate() throws {
        if roots.isEmpty && pipeline == nil { throw ValidationError("Give at least one folder to ingest, or --pipeline FILE.") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1.") }
        if let fileTimeout, !(fileTimeout >= 0) { throw ValidationError("--file-timeout must be 0 (no limit) or more seconds.") }
        if historyRetention < 0 { throw ValidationError("--history-retention must be 0 or more days.") }
        if let thumbnails, !OutputFile.isFolderOrNew(thumbnails) { throw ValidationError("--thumbnails \(thumbnails) is not a folder.") }
        for r in roots where !FileManager.default.fileExists(atPath: r) {
            throw ValidationError("No such file or folder: \(r)")
        }
    }

    func run() async throws {
        var def: PipelineDefinition?
        if let pipeline {
            do {
                def = try PipelineDefinition.load(path: pipeline)
            } catch {
                FileHandle.standardError.write(Data("\(error.description)\n".utf8))
                throw ExitCode(2)
            }
        }
        var catalogPath = catalogOption.catalog
        if let c = def?.catalog, catalogOption.catalog == CatalogOption().catalog { catalogPath = c }
        let catalog = try CatalogOption.open(catalogPath, .readWrite(create: true))
        var options = IngestOptions(
            roots: roots + (def?.roots ?? []), concurrency: jobs ?? def?.concurrency ?? ProcessInfo.processInfo.activeProcessorCount)
        var crawler = (try? def?.makeCrawler()) ?? Crawler()
        crawler.includeHidden = hidden || (def?.includeHidden ?? false)
        do {
            crawler.include += try include.map { try GlobPattern($0) }
            crawler.exclude += try exclude.map { try GlobPattern($0) }
        } catch {
            throw ValidationError("Bad glob: \(error)")
        }
        options.crawler = crawler
        options.probeOptions = crossCheck ? ProbeOptions() : .metadataOnly
        let timeout = fileTimeout ?? def?.fileTimeout.map(Double.init) ?? 60
        options.fileTimeBudget = timeout > 0 ? timeout : nil
        // Fit the number of files in flight to the open-file limit instead of failing with EMFILE.
        let fdLimit = ResourceLimits.raiseOpenFileLimit()
        let fitted = ResourceLimits.concurrency(requested: options.concurrency, maxStuck: options.maxStuckFiles, openFileLimit: fdLimit)
        if fitted < options.concurrency {
            FileHandle.standardError.write(Data("note: \(fitted) files at once instead of \(options.concurrency): the open-file limit is \(fdLimit)\n".utf8))
            options.concurrency = fitted
        }
        if let stages = def?.stages {
            // probe → classify → assemble → commit is the ingest itself; only later stages can be switched off.
            for (name, on) in [("probe", stages.probe), ("classify", stages.classify), ("assemble", stages.assemble), ("commit", stages.commit)] where !on {
                FileHandle.standardError.write(Data("error: \(pipeline ?? "pipeline"): stage '\(name)' cannot be turned off for an ingest\n".utf8))
                throw ExitCode(2)
            }
            options.organize = stages.organize
            let t = stages.thumbnails
            if t.enabled, thumbnails == nil {
                let out = t.out ?? "thumbnails"
                options.thumbnails = ThumbnailRequest(
                    sizes: t.sizes, mode: ThumbnailRequest.Mode(rawValue: t.mode.rawValue) ?? .fit,
                    format: ThumbnailRequest.Format(rawValue: t.format.rawValue) ?? .jpeg, outputDirectory: URL(fileURLWithPath: out))
                options.pruneThumbnails = t.prune
            }
        }
        if let thumbnails {
            let sizes = thumbnailSizes.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !sizes.isEmpty, sizes.allSatisfy({ (16...8192).contains($0) }), let mode = ThumbnailRequest.Mode(rawValue: thumbnailMode) else {
                throw ValidationError("--thumbnail-sizes takes sizes from 16 to 8192 (e.g. 256,1024); --thumbnail-mode is fit or fill.")
            }
            options.thumbnails = ThumbnailRequest(sizes: sizes, mode: mode, outputDirectory: URL(fileURLWithPath: thumbnails))
            options.pruneThumbnails = options.pruneThumbnails || thumbnailPrune
        }
        if let smartAlbums {
            do {
                options.userSmartAlbums = try SmartAlbumFile.load(path: smartAlbums)
            } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                throw ExitCode(2)
            }
        }
        options.prune = prune || (def?.prune ?? false)
        options.historyRetentionDays = def?.historyRetentionDays ?? historyRetention
        let reporter = ProgressReporter(mode: progress)
        options.countFirst = reporter.wantsTotal
        options.ownPaths = Set([catalogPath].map(Ingestor.absolutePath) + [options.thumbnails?.outputDirectory.path].compactMap { $0 })
        options.rederive = rederive
        options.hashMode = hash
        let stop = StopSignal.install()
        options.stopRequested = { stop.requested }
        let summary = try await Ingestor(options: options, catalog: catalog).run { reporter.update($0) }
        reporter.finish()
        for r in summary.resumed {
            FileHandle.standardError.write(Data("note: resuming run \(r.id) (started \(r.startedAt), \(r.status)): what it committed is kept, the rest is read now\n".utf8))
        }
        print(SummaryText.render(summary, catalog: catalogPath))
        if summary.interrupted { throw ExitCode(StopSignal.exitStatus) }
        if summary.outcomes.failed > 0 || (summary.thumbnails?.errors.isEmpty == false) || (strict && summary.outcomes.damaged > 0) {
            throw ExitCode(1)
        }
    }
}

/// Renders progress on stderr: a live bar on a terminal, JSON events once a second, or nothing.
final class ProgressReporter: @unchecked Sendable {
    let mode: ProgressMode
    let tty: Bool
    private let lock = NSLock()
    private var last = Date.distantPast

    init(mode: ProgressMode) {
        self.mode = mode
        tty = isatty(2) == 1
    }

    var wantsTotal: Bool { mode == .json || (mode == .auto && tty) }

    func update(_ p: IngestProgress) {
        report(done: p.filesDone, total: p.filesTotal, errors: p.errors, elapsed: p.elapsed, unit: "files") {
            [
                "event": "progress", "filesDone": p.filesDone, "filesTotal": p.filesTotal ?? NSNull(), "filesProbed": p.filesProbed,
                "errors": p.errors, "elapsed": (p.elapsed * 10).rounded() / 10,
                "filesPerSecond": p.elapsed > 0 ? (Double(p.filesDone) / p.elapsed).rounded() : 0,
            ]
        }
    }

    func update(_ p: Thumbnailer.Progress) {
        report(done: p.assetsDone, total: p.assetsTotal, errors: p.errors, elapsed: p.elapsed, unit: "assets") {
            [
                "event": "progress", "assetsDone": p.assetsDone, "assetsTotal": p.assetsTotal, "written": p.written,
                "existing": p.existing, "errors": p.errors, "elapsed": (p.elapsed * 10).rounded() / 10,
                "assetsPerSecond": p.elapsed > 0 ? (Double(p.assetsDone) / p.elapsed).rounded() : 0,
            ]
        }
    }

    /// One JSON event a second, or the bar ten times a second; `event` is built only when written.
    private func report(done: Int, total: Int?, errors: Int, elapsed: Double, unit: String, event: () -> [String: Any]) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        switch mode {
        case .none: return
        case .json:
            guard now.timeIntervalSince(last) >= 1 else { return }
            last = now
            if let d = try? JSONSerialization.data(withJSONObject: event(), options: [.sortedKeys]) {
                FileHandle.standardError.write(d + Data("\n".utf8))
            }
        case .auto:
            guard tty, now.timeIntervalSince(last) >= 0.1 else { return }
            last = now
            let rate = elapsed > 0 ? Double(done) / elapsed : 0
            var line = "\(done)"
            if let total, total > 0 {
                let frac = min(1, Double(done) / Double(total))
                let width = 30
                let filled = Int(frac * Double(width))
                let eta = rate > 0 ? Double(total - done) / rate : 0
                line = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] \(done)/\(total)"
                    + String(format: " %.0f \(unit)/s  ETA %.0fs", rate, eta)
            } else {
                line += String(format: " \(unit)  %.0f \(unit)/s", rate)
            }
            line += "  errors \(errors)"
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
        }
    }

    func finish() {
        if mode == .auto && tty { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        if mode == .json { FileHandle.standardError.write(Data("{\"event\":\"finished\"}\n".utf8)) }
    }
}

enum SummaryText {
    static func render(_ s: IngestSummary, catalog: String) -> String {
        var lines = [
            "ingest run \(s.runID) into \(catalog): \(s.filesSeen) files in \(String(format: "%.2f", s.elapsed)) s (\(String(format: "%.0f", s.filesPerSecond)) files/s)",
            "  probed \(s.filesProbed), unchanged \(s.filesUnchanged), folders changed \(s.foldersChanged)",
            "  assets inserted \(s.inserted), updated \(s.updated), deleted \(s.deleted); orphans \(s.orphans)",
            "  outcomes: \(s.outcomes.damaged) damaged (catalogued), \(s.outcomes.failed) failed (not catalogued), \(s.outcomes.skippedTotal) skipped as not media"
                + (s.outcomes.skipped.isEmpty ? "" : " (\(s.outcomes.skippedText))"),
        ]
        if let why = s.rederived {
            lines.append("  re-derived every folder from stored facts (\(why)): no unchanged file was read")
        }
        for n in s.notes { lines.append("  note: \(n)") }
        if s.interrupted {
            lines.insert("  INTERRUPTED at a folder boundary: what was read is committed; run 'shoebox ingest' again to finish", at: 1)
        }
        if s.outcomes.own > 0 {
            let examples = s.outcomes.ownExamples.joined(separator: "; ")
            lines.append("  note: \(s.outcomes.own) of Shoebox's own files left out (catalogs, thumbnail folders, manifests): \(examples)\(s.outcomes.own > s.outcomes.ownExamples.count ? "; …" : "")")
        }
        if let t = s.thumbnails {
            let pruned = s.thumbnailsPruned.map { ", \($0.removed.count) stale removed" } ?? ""
            lines.append("  thumbnails: \(t.created.count) written, \(t.existing) already present, \(t.errors.count) errors\(pruned)")
        }
        lines.append(
            "  limits: at most \(s.peakConcurrentFiles) files at once; \(s.filesAbandoned) abandoned over the time budget, \(s.filesSkipped) skipped; peak memory \(ResourceLimits.peakMemoryBytes() >> 20) MiB")
        for (name, n) in s.counts { lines.append("  \(name): \(n)") }
        for e in s.errorRows.prefix(10) { lines.append("  \(e.severity.rawValue) \(e.path) [\(e.stage)] \(e.reason)") }
        if s.errors > 10 { lines.append("  … \(s.errors - 10) more: shoebox errors --catalog \(catalog)") }
        if s.outcomes.skippedTotal > 0 { lines.append("  skipped files: shoebox skipped --catalog \(catalog)") }
        lines.append("  change token: \(s.currentToken)")
        return lines.joined(separator: "\n")
    }
}

/// `shoebox changes`: the persistent change history since a token.
struct ChangesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes", abstract: "Print what changed since a change token (inserted, updated, deleted per object type).",
        discussion: "Exit status 3: token expired (refetch everything). 4: change details unavailable (unknown or malformed token).")

    @OptionGroup var catalogOption: CatalogOption
    @Option(help: "A token printed by an earlier 'shoebox changes --current-token' or ingest.") var since: String?
    @Option(help: "Only one object type: asset, assetCollection or collectionList.") var type: String?
    @Flag(help: "Print the current token and exit.") var currentToken = false
    @Option(help: "Output format: table, json or ndjson.") var format: OutputFormat = .table

    func validate() throws {
        if !currentToken && since == nil { throw ValidationError("Give --since TOKEN or --current-token.") }
        if let type, !["asset", "assetCollection", "collectionList"].contains(type) {
            throw ValidationError("--type must be asset, assetCollection or collectionList.")
        }
    }

    func run() throws {
        let catalog = try catalogOption.open()
        if currentToken {
            print(try catalog.currentToken())
            return
        }
        let result = Result { () throws(CatalogError) -> [ChangeRecord] in try catalog.changes(since: since ?? "", objectType: type) }
        guard case .success(let records) = result else {
            if case .failure(let e) = result {
                FileHandle.standardError.write(Data("error: \(e.message)\n".utf8))
                switch e.code {
                case .tokenExpired: throw ExitCode(ExitStatus.tokenExpired)
                case .tokenUnavailable: throw ExitCode(ExitStatus.tokenUnavailable)
                default: throw ExitCode(1)
                }
            }
            return
        }
        let token = try catalog.currentToken()
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        switch format {
        case .ndjson:
            for r in records { print(String(decoding: try enc.encode(r), as: UTF8.self)) }
        case .json:
            enc.outputFormatting.insert(.prettyPrinted)
            print(String(decoding: try enc.encode(ChangesDocument(records: records, currentToken: token)), as: UTF8.self))
        case .table:
            for objectType in ["asset", "assetCollection", "collectionList"] {
                let mine = records.filter { $0.objectType == objectType }
                guard !mine.isEmpty else { continue }
                print("\(objectType):")
                for kind in ["inserted", "updated", "deleted"] {
                    for r in mine where r.changeType == kind {
                        print("  \(kind) \(r.localIdentifier)\(r.properties.isEmpty ? "" : " (" + r.properties.joined(separator: ", ") + ")")")
                    }
                }
            }
            print("current token: \(token)")
        }
    }

    struct ChangesDocument: Encodable {
        let records: [ChangeRecord]
        let currentToken: String
    }
}

/// `shoebox id ID`: local identifier ↔ cloud identifier.
struct IdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "id", abstract: "Map a local identifier to its cloud identifier and back.")

    @OptionGroup var catalogOption: CatalogOption
    @Argument(help: "A localIdentifier (UUID/L0/001) or a cloudIdentifier.") var identifier: String

    func run() throws {
        let pairs = try catalogOption.open().identifierMapping(identifier)
        if pairs.isEmpty {
            FileHandle.standardError.write(Data("error: no asset with identifier \(identifier)\n".utf8))
            throw ExitCode(1)
        }
        for p in pairs { print("\(p.local)\t\(p.cloud)") }
    }
}
