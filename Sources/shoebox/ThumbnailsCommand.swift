import ArgumentParser
import Catalog
import Derivatives
import Foundation
import Pipeline

extension ThumbnailRequest.Mode: ExpressibleByArgument {}
extension ThumbnailRequest.Resize: ExpressibleByArgument {}
extension ThumbnailRequest.Version: ExpressibleByArgument {}
extension ThumbnailRequest.Format: ExpressibleByArgument {}

/// `shoebox thumbnails [PREDICATE] --out DIR`: thumbnails for the assets a predicate fetches.
struct ThumbnailsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnails",
        abstract: "Make thumbnails (libvips; video poster frames with libavcodec) for the assets a predicate fetches.",
        discussion: """
            Files are named out/ab/<cloudIdentifier>_<size>_<mode>_<version>_<source hash>.<ext>; a re-run \
            skips files that exist, and a changed asset gets new ones. --prune then removes the files of assets \
            that are gone or whose source changed (any size, mode or format); files not named this way are \
            never touched. RAW files use their largest embedded JPEG preview. Exit status 1 when any asset failed.

            Examples:
              shoebox thumbnails --sizes 256,1024 --mode fit --out thumbs
              shoebox thumbnails 'mediaType == video' --sizes 512 --mode fill \\
                  --format webp --out thumbs
              shoebox thumbnails --asset-version original --out thumbs --prune
            """)

    @Argument(help: "A predicate (docs/predicates.md); all assets when absent.") var predicate: String?
    @Option(name: .customLong("arg"), parsing: .unconditionalSingleValue, help: "A value for %@, %d or %K in the predicate (repeatable, in order).") var args: [String] = []
    @OptionGroup var catalogOption: CatalogOption
    @Option(help: "Sizes in pixels, comma-separated.") var sizes: String = "256"
    @Option(help: "fit (longest side = size) or fill (size x size, centre crop).") var mode: ThumbnailRequest.Mode = .fit
    @Option(help: "exact (upscale small sources) or fast (never upscale).") var resize: ThumbnailRequest.Resize = .exact
    @Option(help: "A normalized crop x,y,w,h in 0…1 (top-left origin, after orientation).") var crop: String?
    @Option(name: .customLong("asset-version"), help: "Which version of each asset: current (with edits), unadjusted or original.")
    var version: ThumbnailRequest.Version = .current
    @Option(help: "jpeg, webp or heic.") var format: ThumbnailRequest.Format = .jpeg
    @Option(help: "Output directory.") var out: String
    @Option(help: "Assets rendered at once (at most the number of cores).") var jobs: Int?
    @Flag(
        help: "After the run, delete files in --out named by this scheme whose asset (cloud identifier + source hash) is no longer in the catalog."
    )
    var prune = false
    @Flag(help: "With --prune: list the files that would be deleted, render and delete nothing.") var dryRun = false
    @Option(help: "Progress: auto (a live bar on a terminal, nothing otherwise), json (one event per second on stderr), none.")
    var progress: ProgressMode = .auto
    @Option(help: "Seconds one asset's render may take before it is abandoned with an error; 0: no limit.")
    var fileTimeout: Double = 60
    @Flag(help: "Include hidden assets.") var includeHidden = false
    @Flag(help: "Include every frame of a burst, not only its representative.") var allBursts = false

    func parsedSizes() throws -> [Int] { try RenderLimits.sizes(sizes, in: 1...16384) }

    func validate() throws {
        _ = try parsedSizes()
        if let crop { do { _ = try ThumbnailRequest.Crop(parsing: crop) } catch { throw ValidationError("--crop: \(error)") } }
        try RenderLimits.validate(jobs: jobs, fileTimeout: fileTimeout)
        if dryRun && !prune { throw ValidationError("--dry-run goes with --prune.") }
        if !OutputFile.isFolderOrNew(out) { throw ValidationError("--out \(out) is not a folder: thumbnails go in a folder.") }
    }

    func run() async throws {
        let catalog = try catalogOption.open()
        var options = try commandFetchOptions(predicate, arguments: args)
        options.includeHiddenAssets = includeHidden
        options.includeAllBurstAssets = allBursts
        let result = try catalog.fetchAssets(options)
        if dryRun {
            let keys = try catalog.cloudIdentifiersWithResourceHashes()
            let pruned = ThumbnailPruner(outputDirectory: URL(fileURLWithPath: out, isDirectory: true), assets: keys).run(dryRun: true)
            print("dry run: would prune \(pruned.removed.count) stale files, keep \(pruned.kept); nothing was rendered or deleted")
            for path in pruned.removed { print("  \(path)") }
            return
        }
        let request = ThumbnailRequest(
            sizes: try parsedSizes(), mode: mode, resize: resize, crop: try crop.map { try ThumbnailRequest.Crop(parsing: $0) },
            version: version, format: format, outputDirectory: URL(fileURLWithPath: out, isDirectory: true))
        let start = Date()
        let reporter = ProgressReporter(mode: progress)
        var thumbnailer = Thumbnailer(request: request, concurrency: jobs)
        // Renders run on a pool with a per-asset time budget (a hung source is abandoned, not waited for).
        let pool = FileWorkPool(.init(width: thumbnailer.concurrency, timeBudget: fileTimeout > 0 ? fileTimeout : nil))
        defer { pool.shutdown() }
        thumbnailer.executor = pool.renderExecutor
        let summary = await thumbnailer.run(assets: result) { reporter.update($0) }
        reporter.finish()
        let secs = Date().timeIntervalSince(start)
        for e in summary.errors { FileHandle.standardError.write(Data("error: \(e)\n".utf8)) }
        let rate = secs > 0 ? Double(summary.assets) / secs : 0
        let counts = "\(summary.created.count) files written, \(summary.existing) already present, "
            + "\(summary.unsupported) with nothing to render, \(summary.errors.count) errors"
        print("assets \(summary.assets): \(counts) (\(String(format: "%.1f", secs)) s, \(String(format: "%.1f", rate)) assets/s)")
        var failed = !summary.errors.isEmpty
        if prune {
            let keys = try catalog.cloudIdentifiersWithResourceHashes()
            let pruned = ThumbnailPruner(outputDirectory: request.outputDirectory, assets: keys).run()
            for e in pruned.errors { FileHandle.standardError.write(Data("error: \(e)\n".utf8)) }
            let unremoved = pruned.errors.isEmpty ? "" : ", \(pruned.errors.count) could not be removed"
            print("pruned \(pruned.removed.count) stale files, kept \(pruned.kept)\(unremoved)")
            failed = failed || !pruned.errors.isEmpty
        }
        if failed { throw ExitCode(1) }
    }
}
