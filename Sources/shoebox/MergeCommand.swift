import ArgumentParser
import Catalog
import Foundation
import Pipeline

/// `--shard I/N` and `--shards N` of `shoebox ingest`, with `$JOB_COMPLETION_INDEX` (a Kubernetes Indexed
/// Job) and `$SHOEBOX_SHARDS`.
enum ShardChoice {
    /// The assignment asked for, nil for a whole-library ingest; a usage mistake throws a `ValidationError`.
    static func resolve(shard: String?, shards: Int?, environment: [String: String]) throws -> ShardAssignment? {
        if let shard {
            guard let a = ShardAssignment(shard) else {
                throw ValidationError("--shard takes I/N with 0 ≤ I < N (e.g. 0/4); got '\(shard)'.")
            }
            if let shards, shards != a.count {
                throw ValidationError("--shard \(shard) and --shards \(shards) disagree on the number of shards.")
            }
            return a
        }
        let text = shards.map(String.init) ?? environment["SHOEBOX_SHARDS"]
        guard let text, !text.isEmpty else { return nil }
        guard let n = Int(text), n >= 1 else { throw ValidationError("the number of shards must be 1 or more; got '\(text)'.") }
        guard let indexText = environment["JOB_COMPLETION_INDEX"] else {
            throw ValidationError(
                "--shards \(n) (or SHOEBOX_SHARDS) takes this shard's index from $JOB_COMPLETION_INDEX, which is not set: give --shard I/\(n)."
            )
        }
        guard let i = Int(indexText), let a = ShardAssignment(index: i, count: n) else {
            throw ValidationError(
                "$JOB_COMPLETION_INDEX is '\(indexText)': it must be a number from 0 to \(n - 1) for \(n) shards.")
        }
        return a
    }
}

/// `shoebox merge SHARD… --catalog ALL`.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Fold shard catalogs ('ingest --shard I/N') into one catalog, then organize the whole library.",
        discussion: """
            Takes each shard's per-file work (file rows, probe facts, error rows), derives assets from those \
            facts in the merged catalog and runs organize (bursts, moments, albums, smart albums) once over \
            the whole library. Shards are only read. Idempotent: a folder that did not change in its shard is \
            not touched, so a merge with one newer shard records only that shard's changes in the merged \
            catalog's history, and every asset keeps its localIdentifier whichever shard held its files. A \
            folder a shard owns (by its assignment) but no longer holds is gone: its assets are trashed. See \
            docs/scale.md.

            Exit status: 0 merged; 1 a shard could not be merged (nothing of it is half-written: each folder \
            is one transaction); 2 usage errors.

            Examples:
              shoebox merge shard-0.sqlite shard-1.sqlite --catalog all.sqlite
              shoebox merge shard-*.sqlite --catalog all.sqlite --summary json
            """)

    @Argument(help: "Shard catalogs (made by 'shoebox ingest --shard I/N --catalog …').")
    var shards: [String]

    @Option(help: ArgumentHelp("The merged catalog (created when missing).", valueName: "path"))
    var catalog: String

    @Option(help: "A YAML file with your own smart albums ('userSmartAlbums:', as in Pipelines/smart-albums.yml).")
    var smartAlbums: String?

    @Option(help: "Days of change history to keep in the merged catalog.")
    var historyRetention: Int = PipelineDefinition.defaultHistoryRetentionDays

    @Option(help: "The closing summary: text (for people) or json (one object on standard output).")
    var summary: SummaryFormat = .text

    func validate() throws {
        if shards.isEmpty { throw ValidationError("give at least one shard catalog.") }
        if historyRetention < 0 { throw ValidationError("--history-retention must be 0 or more days.") }
        let target = Ingestor.absolutePath(catalog)
        for s in shards {
            if Ingestor.absolutePath(s) == target { throw ValidationError("\(s) is both a shard and the merged catalog.") }
        }
    }

    func run() throws {
        for path in shards where !FileManager.default.fileExists(atPath: path) {
            FileHandle.standardError.write(
                Data("error: no shard catalog at \(path) (each shard is written by 'shoebox ingest ROOT --shard I/N --catalog PATH')\n".utf8))
            throw ExitCode(2)
        }
        let opened = try shards.map { Merger.Shard(path: $0, catalog: try CatalogOption.open($0, .readOnly)) }
        let all = try CatalogOption.open(CatalogLocation.resolve(option: catalog, configCatalog: nil), .readWrite(create: true))
        var merger = Merger(into: all, shards: opened)
        merger.historyRetentionDays = historyRetention
        if let smartAlbums {
            do {
                merger.userSmartAlbums = try SmartAlbumFile.load(path: smartAlbums)
            } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                throw ExitCode(2)
            }
        }
        let s: Merger.Summary
        do {
            s = try merger.run()
            all.checkpoint()
        } catch let e as Merger.MergeError {
            FileHandle.standardError.write(Data("error: \(e.description)\n".utf8))
            throw ExitCode(1)
        }
        switch summary {
        case .json:
            let doc: [String: Any] = [
                "event": "merge", "catalog": all.path, "run": s.runID, "elapsedSeconds": s.elapsed,
                "foldersChanged": s.foldersChanged,
                "inserted": s.inserted, "updated": s.updated, "deleted": s.deleted, "collectionChanges": s.collectionRecords,
                "currentToken": s.currentToken, "counts": Dictionary(s.counts, uniquingKeysWith: { a, _ in a }),
                "shards": s.shards.map {
                    [
                        "path": $0.path, "assignment": $0.assignment, "folders": $0.folders, "foldersChanged": $0.foldersChanged,
                        "filesWritten": $0.filesWritten, "filesRemoved": $0.filesRemoved,
                    ] as [String: Any]
                },
            ]
            print(try JSONOutput.text(object: doc, pretty: false))
        case .text:
            print(
                "merge run \(s.runID) into \(all.path): \(s.shards.count) shards, \(s.foldersChanged) folders changed in \(String(format: "%.2f", s.elapsed)) s"
            )
            for sh in s.shards {
                print(
                    "  \(sh.path) (\(sh.assignment)): \(sh.folders) folders, \(sh.foldersChanged) changed, \(sh.filesWritten) files written, \(sh.filesRemoved) removed"
                )
            }
            print(
                "  assets inserted \(s.inserted), updated \(s.updated), deleted \(s.deleted); collection changes \(s.collectionRecords)"
            )
            print("  " + s.counts.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
            print("  change token: \(s.currentToken)")
        }
    }
}
