import ArgumentParser
import Catalog
import Derivatives
import Foundation
import Pipeline
import Report

/// `shoebox report [PREDICATE] --out DIR`: a static HTML site of the catalog.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a static HTML site of the catalog: timeline, moments, Live Photos, bursts, albums, asset pages, errors.",
        discussion: """
            Pages link relatively and fetch nothing from the network: open DIR/index.html from disk or serve DIR \
            as it is. Lists are paginated (\(ReportPages.perPage) per page); every asset has a page with every \
            fact and reason. Pictures come from the thumbnails stage, with its names and cache (the same as \
            'shoebox thumbnails --out DIR/thumbs --mode fit'): a re-run renders only what is missing. The \
            smallest of --sizes fills the contact sheets, the largest the asset pages; an asset without a \
            thumbnail shows a placeholder with the reason. --out and --thumbs must lie outside every ingested \
            root. Exit status 1 when any thumbnail failed.

            Examples:
              shoebox report --out site
              shoebox report 'mediaType == image' --out site --sizes 256,1024
              shoebox report --out site --thumbs thumbs --no-render --progress none
            """)

    @Argument(help: "A predicate (docs/predicates.md); all assets when absent.") var predicate: String?
    @Option(
        name: .customLong("arg"), parsing: .unconditionalSingleValue,
        help: "A value for %@, %d or %K in the predicate (repeatable, in order).") var args: [String] = []
    @OptionGroup var catalogOption: CatalogOption
    @Option(help: "Output directory of the site.") var out: String
    @Option(
        help: "The thumbnail folder (default: DIR/thumbs). Shared with 'shoebox thumbnails --out' when it is the same folder.")
    var thumbs: String?
    @Option(help: "Thumbnail sizes in pixels, comma-separated: the smallest for contact sheets, the largest for asset pages.")
    var sizes: String = "256"
    @Flag(help: "Render no thumbnails: use those already in the thumbnail folder (placeholders for the rest).") var noRender =
        false
    @Option(help: "Assets rendered at once (at most the number of cores).") var jobs: Int?
    @Option(help: "Progress: auto (a live bar on a terminal, nothing otherwise), json (one event per second on stderr), none.")
    var progress: ProgressMode = .auto
    @Option(help: "Seconds one asset's render may take before it is abandoned with an error; 0: no limit.")
    var fileTimeout: Double = 60
    @Flag(help: "Include hidden assets.") var includeHidden = false

    func parsedSizes() throws -> [Int] { try RenderLimits.sizes(sizes, in: 16...4096) }

    func validate() throws {
        _ = try parsedSizes()
        try RenderLimits.validate(jobs: jobs, fileTimeout: fileTimeout)
        if !OutputFile.isFolderOrNew(out) {
            throw ValidationError("--out \(out) is not a folder: the report is a folder of pages.")
        }
        if let thumbs, !OutputFile.isFolderOrNew(thumbs) { throw ValidationError("--thumbs \(thumbs) is not a folder.") }
    }

    func run() async throws {
        let catalog = try catalogOption.open()
        var fetch = try commandFetchOptions(predicate, arguments: args)
        fetch.includeHiddenAssets = includeHidden
        let outURL = URL(fileURLWithPath: out, isDirectory: true).standardizedFileURL
        let thumbsURL =
            thumbs.map { URL(fileURLWithPath: $0, isDirectory: true).standardizedFileURL }
            ?? outURL.appendingPathComponent("thumbs", isDirectory: true)
        let request = ThumbnailRequest(sizes: try parsedSizes(), mode: .fit, outputDirectory: thumbsURL)
        let site = ReportSite(
            catalog: catalog,
            options: ReportOptions(
                outputDirectory: outURL, thumbnailRequest: request, fetch: fetch, predicateText: predicate,
                renderThumbnails: !noRender))
        do { try site.checkOutputFolders() } catch let e as ReportError { throw ValidationError(e.message) }

        let reporter = ProgressReporter(mode: progress)
        var thumbnailer = Thumbnailer(request: request, concurrency: jobs)
        let pool = FileWorkPool(.init(width: thumbnailer.concurrency, timeBudget: fileTimeout > 0 ? fileTimeout : nil))
        defer { pool.shutdown() }
        thumbnailer.executor = pool.renderExecutor
        let summary: ReportSummary
        do {
            summary = try await site.build(
                thumbnailer: thumbnailer, progress: { reporter.update($0) },
                pages: { reporter.update(pagesDone: $0, pagesTotal: $1, elapsed: $2) })
        } catch let e as ReportError {
            reporter.finish()
            FileHandle.standardError.write(Data("error: \(e.message)\n".utf8))
            throw ExitCode(1)
        }
        reporter.finish()
        let t = summary.thumbnails
        for e in t.errors { FileHandle.standardError.write(Data("error: \(e)\n".utf8)) }
        func counted(_ n: Int, _ one: String) -> String { "\(n) \(one)\(n == 1 ? "" : "s")" }
        let thumbText =
            noRender
            ? "thumbnails not rendered"
            : "thumbnails: \(counted(t.created.count, "file")) written, \(t.existing) already present, \(counted(t.errors.count, "error")), \(String(format: "%.1f", summary.thumbnailSeconds)) s"
        print(
            "report: \(counted(summary.assets, "asset")), \(counted(summary.pages, "page")) in \(out) (\(String(format: "%.1f", summary.pageSeconds)) s); "
                + "\(thumbText); \(summary.missingPictures) shown without a thumbnail")
        if !t.errors.isEmpty { throw ExitCode(1) }
    }
}

/// What `thumbnails` and `report` check alike in their rendering options.
enum RenderLimits {
    /// `--sizes`: whole numbers in `range`, comma-separated; sorted, each once.
    static func sizes(_ text: String, in range: ClosedRange<Int>) throws -> [Int] {
        let parts = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !parts.isEmpty, parts.allSatisfy({ range.contains($0 ?? 0) }) else {
            throw ValidationError(
                "--sizes takes whole numbers \(range.lowerBound)…\(range.upperBound), comma-separated; got '\(text)'.")
        }
        return Array(Set(parts.map { $0! })).sorted()
    }

    static func validate(jobs: Int?, fileTimeout: Double) throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be 1 or more.") }
        if !(fileTimeout >= 0) { throw ValidationError("--file-timeout must be 0 (no limit) or more seconds.") }
    }
}
