import ArgumentParser
import Catalog
import Derivatives
import Foundation
import MediaProbe
import Pipeline

/// `--catalog PATH`, shared by every command that reads or writes a catalog.
struct CatalogOption: ParsableArguments {
    @Option(help: ArgumentHelp("The catalog (SQLite). Default: $SHOEBOX_CATALOG, the config file's 'catalog:', ./shoebox.sqlite if present, else $XDG_DATA_HOME/shoebox/catalog.sqlite; now: \(CatalogOption.defaultDescription).", valueName: "path"))
    var catalog: String?

    /// The catalog this command uses, and which setting chose it (`CatalogLocation`).
    var location: CatalogLocation { Self.locate(catalog, configCatalog: nil) }

    /// `location`, with a `--pipeline` file's `catalog:` standing for the config file's.
    static func locate(_ option: String?, configCatalog: String?, pipeline: Bool = false) -> CatalogLocation {
        let fromConfig = pipeline ? configCatalog : (try? ShoeboxConfig.load())?.catalog
        return CatalogLocation.resolve(option: option, configCatalog: fromConfig)
    }

    /// What the default resolves to here and now (for `--help`).
    static var defaultDescription: String { locate(nil, configCatalog: nil).description }

    /// Opens the catalog: read-only unless the command writes (only `ingest`, `requests --replay` and
    /// `change --create` may create one). A refusal is printed and becomes its exit status.
    func open(_ mode: Catalog.OpenMode = .readOnly) throws -> Catalog { try Self.open(location, mode) }

    static func open(_ location: CatalogLocation, _ mode: Catalog.OpenMode) throws -> Catalog {
        if mode == .readWrite(create: true) { try? location.prepareForCreating() }
        return try open(location.path, mode)
    }

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

/// Runs `body`; a name that is unknown or names several objects (`.notFound`, `.ambiguous`: an album
/// title, a file name) is printed and exits 2, a usage mistake.
func usageOnNameError<T>(_ body: () throws(CatalogError) -> T) throws -> T {
    switch Result(catching: body) {
    case .success(let value): return value
    case .failure(let e) where e.code == .ambiguous || e.code == .notFound:
        FileHandle.standardError.write(Data("error: \(e.message)\n".utf8))
        throw ExitCode(2)
    case .failure(let e): throw e
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

/// The fetch a command's PREDICATE and `--arg` values select (everything when no predicate is given);
/// `--arg` without a predicate is a usage error.
func commandFetchOptions(_ predicate: String?, arguments: [String]) throws -> FetchOptions {
    if let compiled = try compileCommandPredicate(predicate, arguments: arguments) { return FetchOptions(predicate: compiled) }
    if !arguments.isEmpty { throw ValidationError("--arg is given but there is no predicate to fill.") }
    return FetchOptions()
}

enum SummaryFormat: String, ExpressibleByArgument {
    case text, json
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

            Examples:
              shoebox ingest Photos
              shoebox ingest Photos --include '*.heic' --exclude '**/Trash/**'
              shoebox ingest Photos --thumbnails thumbs --progress json
              shoebox ingest Photos --summary json
              shoebox ingest Photos --shard 0/2 --catalog shard-0.sqlite
              shoebox ingest Photos --shard 1/2 --catalog shard-1.sqlite
            """)

    @Argument(help: "Folders (or files) to ingest. None: the roots (and include/exclude, --hidden) of this catalog's previous runs ('shoebox roots').")
    var roots: [String] = []

    @OptionGroup var catalogOption: CatalogOption

    @Option(help: "A pipeline definition (YAML: roots, include/exclude, concurrency, stages); see Pipelines/README.md.")
    var pipeline: String?

    @Option(help: "Only files matching this glob (repeatable; e.g. '*.heic', 'DCIM/**').")
    var include: [String] = []

    @Option(help: "Skip files and folders matching this glob (repeatable; e.g. '**/Trash/**').")
    var exclude: [String] = []

    @Option(help: "Files probed at once (default: twice the number of cores: a file not in the page cache waits on the disk).")
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

    @Option(help: "Days of change history to keep (older history is compacted; default 30, or the config file's 'historyRetentionDays').")
    var historyRetention: Int?

    @Option(help: "Progress: auto (a live bar on a terminal, nothing otherwise), json (one event per second on stderr), none.")
    var progress: ProgressMode = .auto

    @Option(help: "Seconds one file may take (probe + hash) before it is abandoned with an error row; 0: no limit (default 60).")
    var fileTimeout: Double?

    @Option(help: "The closing summary: text (for people) or json (every count, one object on standard output).")
    var summary: SummaryFormat = .text

    @Flag(help: "Exit 1 when any file is damaged, not only when one failed.")
    var strict = false

    @Option(help: "Content hashes: full (every byte), sampled (size + head/middle/tail windows; files that share one are hashed in full) or none (size + the head the probe read; likewise). See docs/catalog.md.")
    var hash: IngestOptions.HashMode?

    @Flag(help: "Derive every folder again from its stored facts (automatic when the rules changed since the last run).")
    var rederive = false

    @Flag(help: "Show what would be probed, inserted, updated and trashed, and write nothing (the ingest runs on a temporary copy of the catalog).")
    var dryRun = false

    @Option(help: "Ingest only shard I of N (0 ≤ I < N): the top-level folders whose path relative to the root hashes to I (FNV-1a 64; see docs/scale.md). Organize is left to 'shoebox merge'.")
    var shard: String?

    @Option(help: "With N shards, the index comes from $JOB_COMPLETION_INDEX (a Kubernetes Indexed Job); default: $SHOEBOX_SHARDS.")
    var shards: Int?

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1.") }
        if let fileTimeout, !(fileTimeout >= 0) { throw ValidationError("--file-timeout must be 0 (no limit) or more seconds.") }
        if let historyRetention, historyRetention < 0 { throw ValidationError("--history-retention must be 0 or more days.") }
        if let thumbnails, !OutputFile.isFolderOrNew(thumbnails) { throw ValidationError("--thumbnails \(thumbnails) is not a folder.") }
        _ = try ShardChoice.resolve(shard: shard, shards: shards, environment: ProcessInfo.processInfo.environment)
        for r in roots where !FileManager.default.fileExists(atPath: r) {
            throw ValidationError("No such file or folder: \(r)")
        }
    }

    func run() async throws {
        // The --pipeline file, else the config file: its values are this command's defaults.
        var def: PipelineDefinition?
        do throws(PipelineDefinitionError) {
            if let pipeline { def = try PipelineDefinition.load(path: pipeline) } else { def = try ShoeboxConfig.load() }
        } catch {
            FileHandle.standardError.write(Data("\(error.description)\n".utf8))
            throw ExitCode(2)
        }
        let location = CatalogOption.locate(catalogOption.catalog, configCatalog: def?.catalog, pipeline: true)
        let catalogPath = location.path
        let given = (roots + (pipeline != nil ? def?.roots ?? [] : [])).map(Ingestor.absolutePath)
        if given.isEmpty && (def?.roots ?? []).isEmpty && !FileManager.default.fileExists(atPath: catalogPath) {
            FileHandle.standardError.write(
                Data("error: give at least one folder to ingest, or --pipeline FILE (no catalog at \(catalogPath) with roots from a previous run)\n".utf8))
            throw ExitCode(2)
        }
        // A dry run only reads the catalog (and not at all when there is none).
        let exists = FileManager.default.fileExists(atPath: catalogPath)
        let catalog = dryRun ? exists ? try CatalogOption.open(location, .readOnly) : nil : try CatalogOption.open(location, .readWrite(create: true))
        let stored = try catalog.flatMap { (c) throws(CatalogError) in try IngestScope.stored(in: c) }
        var scope: IngestScope
        if !given.isEmpty || (stored == nil && !(def?.roots ?? []).isEmpty) {
            scope = IngestScope(
                roots: given.isEmpty ? def?.roots ?? [] : given, include: (def?.include ?? []) + include, exclude: (def?.exclude ?? []) + exclude,
                includeHidden: hidden || (def?.includeHidden ?? false), followSymlinks: def?.followSymlinks ?? true)
        } else if var again = stored {
            again.include += include
            again.exclude += exclude
            again.includeHidden = again.includeHidden || hidden
            scope = again
        } else {
            FileHandle.standardError.write(Data("error: Give at least one folder to ingest: the catalog \(catalogPath) has no roots from a previous run.\n".utf8))
            throw ExitCode(2)
        }
        var options = IngestOptions(roots: scope.roots, concurrency: jobs ?? def?.concurrency ?? IngestOptions.defaultConcurrency)
        do {
            options.crawler = try scope.makeCrawler()
        } catch {
            throw ValidationError("Bad glob: \(error)")
        }
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
        // A malloc heap for each file in flight, one for the writer, one for the rest (Benchmarks/README.md).
        ResourceLimits.limitMallocArenas(options.concurrency + 2)
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
        options.historyRetentionDays = historyRetention ?? (def.map(\.historyRetentionDays) ?? PipelineDefinition.defaultHistoryRetentionDays)
        let reporter = ProgressReporter(mode: progress)
        options.countFirst = reporter.wantsTotal
        options.ownPaths = Set([catalogPath].map(Ingestor.absolutePath) + [options.thumbnails?.outputDirectory.path].compactMap { $0 })
        options.rederive = rederive
        options.shard = try ShardChoice.resolve(shard: shard, shards: shards, environment: ProcessInfo.processInfo.environment)
        if options.shard != nil {
            options.organize = false  // bursts, moments and smart albums need the whole library: 'shoebox merge'
            options.countFirst = false  // the total would count other shards' files
        }
        // The hash mode of the stored scope when none is given: one catalog, one kind of identity.
        options.hashMode = hash ?? (scope.hash ?? stored?.hash).flatMap(IngestOptions.HashMode.init(rawValue:)) ?? .full
        scope.hash = options.hashMode.rawValue
        let stop = StopSignal.install()
        options.stopRequested = { stop.requested }
        guard let catalog, !dryRun else {
            let (summary, preview) = try await IngestPreview.run(options: options, catalog: catalog) { reporter.update($0) }
            reporter.finish()
            switch self.summary {
            case .text: print(DryRunText.render(summary, preview, catalog: location.description))
            case .json:
                // The summary event of what would happen, with the lists (`dryRun`).
                var doc = SummaryText.document(summary, catalog: location.path)
                doc["catalogSource"] = location.source.rawValue
                doc["dryRun"] = ["probe": preview.probe, "insert": preview.insert, "update": preview.update, "trash": preview.trash, "delete": preview.delete]
                print(try JSONOutput.text(object: doc, pretty: false))
            }
            if summary.outcomes.failed > 0 || (strict && summary.outcomes.damaged > 0) { throw ExitCode(1) }
            return
        }
        let summary = try await Ingestor(options: options, catalog: catalog).run { reporter.update($0) }
        try (stored?.merged(with: scope) ?? scope).store(in: catalog)
        catalog.checkpoint()
        reporter.finish()
        for r in summary.resumed {
            FileHandle.standardError.write(Data("note: resuming run \(r.id) (started \(r.startedAt), \(r.status)): what it committed is kept, the rest is read now\n".utf8))
        }
        let from = location.source == .option ? nil : location.source.rawValue
        switch self.summary {
        case .text: print(SummaryText.render(summary, catalog: catalogPath, from: from))
        case .json:
            var doc = SummaryText.document(summary, catalog: catalogPath)
            doc["catalogSource"] = location.source.rawValue
            print(try JSONOutput.text(object: doc, pretty: false))
        }
        // The files that failed or are damaged, on standard error like every other diagnostic.
        FileHandle.standardError.write(Data(SummaryText.errorLines(summary, catalog: catalogPath).map { $0 + "\n" }.joined().utf8))
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

    /// `streamsToStandardOutput`: the command prints results as it goes (probe), so a bar would tangle with
    /// them on a terminal; it is drawn only when standard output is redirected.
    init(mode: ProgressMode, streamsToStandardOutput: Bool = false) {
        self.mode = mode
        tty = isatty(2) == 1 && !(streamsToStandardOutput && isatty(1) == 1)
    }

    var wantsTotal: Bool { mode == .json || (mode == .auto && tty) }

    func update(_ p: IngestProgress) {
        // A new stage after the walk is shown at once (the counts stand still while it runs).
        let stage = p.stage == .walk ? nil : p.stage.text
        report(done: p.filesDone, total: p.filesTotal, errors: p.errors, elapsed: p.elapsed, unit: "files", stage: stage) {
            [
                "event": "progress", "stage": p.stage.rawValue, "filesDone": p.filesDone, "filesTotal": p.filesTotal ?? NSNull(),
                "filesProbed": p.filesProbed, "errors": p.errors, "elapsed": (p.elapsed * 10).rounded() / 10,
                "filesPerSecond": p.elapsed > 0 ? (Double(p.filesDone) / p.elapsed).rounded() : 0,
            ]
        }
    }

    /// Probe and inspect: files done of a known total.
    func update(filesDone: Int, filesTotal: Int, errors: Int, elapsed: Double) {
        report(done: filesDone, total: filesTotal, errors: errors, elapsed: elapsed, unit: "files") {
            [
                "event": "progress", "filesDone": filesDone, "filesTotal": filesTotal, "errors": errors,
                "elapsed": (elapsed * 10).rounded() / 10,
                "filesPerSecond": elapsed > 0 ? (Double(filesDone) / elapsed).rounded() : 0,
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
    /// `report`'s asset pages written of their total.
    func update(pagesDone: Int, pagesTotal: Int, elapsed: Double) {
        report(done: pagesDone, total: pagesTotal, errors: 0, elapsed: elapsed, unit: "pages") {
            ["event": "progress", "stage": "pages", "pagesDone": pagesDone, "pagesTotal": pagesTotal, "elapsed": (elapsed * 10).rounded() / 10]
        }
    }

    /// `stage`: a step after the main work, shown at once whatever the rate limit, after the counts.
    private func report(
        done: Int, total: Int?, errors: Int, elapsed: Double, unit: String, stage: String? = nil, event: () -> [String: Any]
    ) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        switch mode {
        case .none: return
        case .json:
            guard stage != nil || now.timeIntervalSince(last) >= 1 else { return }
            last = now
            if let line = try? JSONOutput.text(object: event(), pretty: false) {
                FileHandle.standardError.write(Data((line + "\n").utf8))
            }
        case .auto:
            guard tty, stage != nil || now.timeIntervalSince(last) >= 0.1 else { return }
            last = now
            if let stage {
                FileHandle.standardError.write(Data("\r\u{1B}[K\(done) \(unit), errors \(errors); \(stage)…".utf8))
                return
            }
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
    /// `from`: the setting that chose the catalog, when it was not `--catalog`.
    static func render(_ s: IngestSummary, catalog: String, from: String? = nil) -> String {
        var lines = [
            "ingest run \(s.runID) into \(catalog)\(from.map { " (from \($0))" } ?? ""): \(s.filesSeen) files in \(String(format: "%.2f", s.elapsed)) s (\(String(format: "%.0f", s.filesPerSecond)) files/s)",
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
        // "at most 0 files at once" read as a limit of nothing on a run that probed nothing.
        let probing =
            s.peakConcurrentFiles == 0
            ? "no file probed"
            : "at most \(s.peakConcurrentFiles) \(s.peakConcurrentFiles == 1 ? "file" : "files") probed at once; \(s.filesAbandoned) abandoned over the time budget, \(s.filesSkipped) skipped"
        lines.append("  limits: \(probing); peak memory \(ResourceLimits.peakMemoryBytes() >> 20) MiB")
        for (name, n) in s.counts { lines.append("  \(name): \(n)") }
        if s.errors > 0 { lines.append("  errors: \(s.errors) (shoebox errors --catalog \(catalog))") }
        if s.outcomes.skippedTotal > 0 { lines.append("  skipped files: shoebox skipped --catalog \(catalog)") }
        lines.append("  change token: \(s.currentToken)")
        return lines.joined(separator: "\n")
    }

    /// The first error rows for standard error (the rest: `shoebox errors`).
    static func errorLines(_ s: IngestSummary, catalog: String) -> [String] {
        var lines = s.errorRows.prefix(IngestSummary.errorRowsKept).map { "\($0.severity.rawValue): \($0.path) [\($0.stage)] \($0.reason)" }
        if s.errors > lines.count { lines.append("… \(s.errors - lines.count) more: shoebox errors --catalog \(catalog)") }
        return lines
    }

    /// `--summary json`: every count of the text summary, keys documented in docs/events.schema.json
    /// (the `summary` event).
    static func document(_ s: IngestSummary, catalog: String) -> [String: Any] {
        var doc: [String: Any] = [
            "event": "summary", "runID": s.runID, "catalog": catalog, "filesSeen": s.filesSeen, "filesProbed": s.filesProbed,
            "filesUnchanged": s.filesUnchanged, "filesMoved": s.filesMoved, "foldersChanged": s.foldersChanged, "elapsed": (s.elapsed * 1000).rounded() / 1000,
            "inserted": s.inserted, "updated": s.updated, "deleted": s.deleted, "orphans": s.orphans, "errors": s.errors,
            "damaged": s.outcomes.damaged, "failed": s.outcomes.failed, "skipped": s.outcomes.skipped, "own": s.outcomes.own,
            "interrupted": s.interrupted, "filesAbandoned": s.filesAbandoned, "filesSkipped": s.filesSkipped,
            "peakConcurrentFiles": s.peakConcurrentFiles, "peakMemoryBytes": ResourceLimits.peakMemoryBytes(),
            "counts": Dictionary(s.counts, uniquingKeysWith: { a, _ in a }), "currentToken": s.currentToken,
            "notes": s.notes, "rederived": s.rederived ?? NSNull(),
        ]
        if let t = s.thumbnails {
            doc["thumbnails"] = [
                "written": t.created.count, "existing": t.existing, "errors": t.errors.count,
                "pruned": s.thumbnailsPruned?.removed.count ?? 0,
            ]
        }
        return doc
    }
}

enum DryRunText {
    /// `ingest --dry-run`: the counts, then every file to probe and every asset to insert, update, trash or delete.
    static func render(_ s: IngestSummary, _ p: IngestPreview, catalog: String) -> String {
        var lines = [
            "dry run: nothing was written to \(catalog)",
            "  would probe \(s.filesProbed) of \(s.filesSeen) files, insert \(p.insert.count) assets, update \(p.update.count), "
                + "move \(p.trash.count) to Recently Deleted, delete \(p.delete.count)",
            "  outcomes: \(s.outcomes.damaged) damaged (catalogued), \(s.outcomes.failed) failed (not catalogued), \(s.outcomes.skippedTotal) skipped as not media",
        ]
        for (verb, list) in [("probe", p.probe), ("insert", p.insert), ("update", p.update), ("trash", p.trash), ("delete", p.delete)] {
            for path in list { lines.append("  \(verb) \(path)") }
        }
        return lines.joined(separator: "\n")
    }
}

/// `shoebox changes`: the persistent change history since a token.
struct ChangesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes", abstract: "Print what changed since a change token (inserted, updated, deleted per object type).",
        discussion: """
            Exit status 3: token expired (refetch everything). 4: change details unavailable (unknown or \
            malformed token). Each change carries its own token (the string --since takes) and the file name \
            or title of what changed.

            Examples:
              shoebox changes --current-token
              shoebox changes --since "$(shoebox changes --current-token)" \\
                  --format ndjson
            """)

    @OptionGroup var catalogOption: CatalogOption
    @Option(help: "A token printed by an earlier 'shoebox changes --current-token' or ingest.") var since: String?
    @Option(help: "Only one object type: asset, assetCollection or collectionList.") var type: String?
    @Flag(help: "Print the current token and exit.") var currentToken = false
    @Option(help: OutputFormat.help) var format: OutputFormat = .table

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
        let names = try catalog.displayNames(of: records.map(\.localIdentifier))
        let tokens = try catalog.tokens(forChanges: records.map(\.token))
        let lines = zip(records, tokens).map { r, t in
            ChangeLine(
                token: t, objectType: r.objectType, localIdentifier: r.localIdentifier, filename: names[r.localIdentifier],
                changeType: r.changeType, properties: r.properties)
        }
        switch format {
        case .ndjson:
            try JSONOutput.printList(lines, format: .ndjson)
        case .json:
            print(try JSONOutput.text(ChangesDocument(records: lines, currentToken: token), pretty: true))
        case .csv:
            print(Cell.csvLine(["token", "objectType", "changeType", "localIdentifier", "filename", "properties"]))
            for l in lines {
                print(Cell.csvLine([l.token, l.objectType, l.changeType, l.localIdentifier, l.filename ?? "", l.properties.joined(separator: " ")]))
            }
        case .table:
            for objectType in ["asset", "assetCollection", "collectionList"] {
                let mine = lines.filter { $0.objectType == objectType }
                guard !mine.isEmpty else { continue }
                print("\(objectType):")
                var table = Table([.init("change"), .init("name", .whole), .init("localIdentifier", .whole), .init("properties")])
                for kind in ["inserted", "updated", "deleted"] {
                    for l in mine where l.changeType == kind {
                        table.append([kind, l.filename ?? "-", l.localIdentifier, l.properties.joined(separator: ", ")])
                    }
                }
                for line in table.lines().dropFirst() { print("  " + line) }
            }
            print("current token: \(token)")
        }
    }

    /// One change as printed: its token (the string `--since` accepts) and the object's file name or title.
    struct ChangeLine: Encodable {
        let token: String
        let objectType: String
        let localIdentifier: String
        let filename: String?
        let changeType: String
        let properties: [String]
    }

    struct ChangesDocument: Encodable {
        let records: [ChangeLine]
        let currentToken: String
    }
}

/// `shoebox id ID`: local identifier ↔ cloud identifier.
struct IdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "id", abstract: "Map a local identifier to its cloud identifier and back.",
        discussion: """
            Examples:
              shoebox id "$(shoebox query --limit 1 --format csv \\
                  --fields localIdentifier | tail -n 1)"
            """)

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
