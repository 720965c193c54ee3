import ArgumentParser
import Foundation
import MediaProbe
import PhotoModel
import Pipeline

/// `shoebox probe PATH…`: one report of facts per file.
struct ProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Read the facts of each file (no judgement): dimensions, dates, GPS, Apple keys, streams.",
        discussion: """
            Exit status: 0 when every file probed cleanly, 1 when some had errors (their reports are still \
            printed), 2 for usage errors.

            Examples:
              shoebox probe Photos/iphone/IMG_0001.JPG
              shoebox probe --format table Photos
              shoebox probe --format ndjson Photos | jq -r .path
            """)

    @Argument(help: "Files or directories (directories are walked; symbolic links are followed without loops).")
    var paths: [String]

    @Option(help: "Output format: json, ndjson, table or csv (--json is --format json).")
    var format: OutputFormat = .json

    @Flag(help: "Ask libheif to decode each HEIF's primary image (slower; by default it is only opened).")
    var verifyDecode = false

    @Flag(help: "Include hidden files and directories.")
    var hidden = false

    @Option(help: "Files probed at once (default: the number of cores).")
    var jobs: Int?

    @Option(help: "Seconds one file may take before it is abandoned with an error; 0: no limit.")
    var fileTimeout: Double = 60

    @Option(help: "Progress: auto (a live bar on a terminal, nothing otherwise), json (one event per second on stderr), none.")
    var progress: ProgressMode = .auto

    func validate() throws {
        if paths.isEmpty { throw ValidationError("Give at least one file or directory to probe.") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1.") }
        if !(fileTimeout >= 0) { throw ValidationError("--file-timeout must be 0 (no limit) or more seconds.") }
    }

    func run() async throws {
        let prober = Prober(options: ProbeOptions(verifyHEIFDecode: verifyDecode))
        let out = ReportWriter(format: format)
        var entries: [CrawlEntry] = []
        Crawler(includeHidden: hidden).walk(paths) { entries.append($0) }
        let width = jobs ?? ProcessInfo.processInfo.activeProcessorCount
        var failed = 0
        var done = 0
        let reporter = ProgressReporter(mode: progress, streamsToStandardOutput: true)
        let start = Date()
        try await ProbeRunner.run(entries, prober: prober, width: width, timeBudget: fileTimeout > 0 ? fileTimeout : nil) { report in
            if !report.isClean { failed += 1 }
            done += 1
            reporter.update(filesDone: done, filesTotal: entries.count, errors: failed, elapsed: Date().timeIntervalSince(start))
            try out.write(report)
        }
        reporter.finish()
        try out.finish()
        if failed > 0 {
            FileHandle.standardError.write(Data("\(failed) of \(entries.count) files had errors\n".utf8))
            throw ExitCode(1)
        }
    }
}

/// Writes reports as JSON (one array), NDJSON (a line each) or a table.
final class ReportWriter {
    let format: OutputFormat
    private var count = 0
    private let encoder: JSONEncoder
    private let stdout = FileHandle.standardOutput

    init(format: OutputFormat) {
        self.format = format
        encoder = JSONOutput.encoder(pretty: format == .json)
    }

    func write(_ r: ProbeReport) throws {
        switch format {
        case .json:
            var text = String(decoding: try encoder.encode(r), as: UTF8.self)
            text = text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
            emit((count == 0 ? "[\n" : ",\n") + text)
        case .ndjson:
            emit(String(decoding: try encoder.encode(r), as: UTF8.self) + "\n")
        case .table:
            if count == 0 { emit(TableRow.header + "\n") }
            emit(TableRow(r).line + "\n")
        case .csv:
            if count == 0 { emit(Cell.csvLine(TableRow.columns) + "\n") }
            emit(Cell.csvLine(TableRow(r).cells) + "\n")
        }
        count += 1
    }

    func finish() throws {
        if format == .json { emit(count == 0 ? "[]\n" : "\n]\n") }
    }

    private func emit(_ s: String) { stdout.write(Data(s.utf8)) }
}

/// One line of `--format table` (and of `csv`): fixed widths, so lines stream as reports arrive; the
/// path is last and never cut.
struct TableRow {
    static let columns = ["kind", "size", "date", "camera", "notes", "path"]
    static let widths = [6, 11, 25, 24, 30]
    static let header = zip(columns.map { $0.uppercased() }, widths).map { pad($0, $1) }.joined(separator: " ") + " PATH"
    let cells: [String]

    var line: String { zip(cells, Self.widths).map { Self.pad($0, $1) }.joined(separator: " ") + " " + cells[5] }

    init(_ r: ProbeReport) {
        let size = r.pixelWidth.map { "\($0.value)x\(r.pixelHeight?.value ?? 0)" } ?? "-"
        let date = (r.dates.original ?? r.dates.quickTimeCreation ?? r.dates.digitized ?? r.dates.movieHeaderCreation)?.value.description ?? "-"
        let camera = CameraName.display(make: r.camera.make?.value, model: r.camera.model?.value) ?? "-"
        var notes: [String] = []
        if let id = r.apple?.contentIdentifier ?? r.quickTime?.movieValue("com.apple.quicktime.content.identifier")?.value.stringValue {
            notes.append("cid:" + id.prefix(8))
        }
        if r.apple?.burstUUID != nil { notes.append("burst") }
        if r.embeddedVideo != nil { notes.append("motion") }
        if let fps = r.quickTime?.videoTrack?.nominalFrameRate { notes.append(String(format: "%.1ffps", fps)) }
        let errors = r.issues.filter { $0.severity == .error }
        if !errors.isEmpty { notes.append("ERR:" + errors[0].stage.rawValue) }
        cells = [r.kind.rawValue, size, date, camera, notes.joined(separator: ","), r.path]
    }

    /// `s` in exactly `n` columns: cut with `…` or padded (display width, not characters).
    static func pad(_ s: String, _ n: Int) -> String { DisplayWidth.pad(DisplayWidth.truncate(s, n), n) }
}
