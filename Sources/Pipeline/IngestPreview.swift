import Catalog
import Foundation

/// What an ingest would do, found by running it on a copy of the catalog (`ingest --dry-run`).
///
/// The ingest runs whole — crawl, probe (reading sources only), classify, assemble, organize, commit — into a
/// `ScratchCatalog` (a temporary copy made with SQLite's backup API; an empty catalog when there is none),
/// so the counts are the real ones; the copy is deleted afterwards. The catalog itself is only opened
/// read-only by the caller, and not at all when it does not exist. Thumbnails are not written.
public struct IngestPreview: Sendable, Codable, Equatable {
    /// Absolute paths of the files that would be probed (new or changed), sorted.
    public var probe: [String] = []
    /// Assets (as `root/path` of their primary file) that would be inserted, updated, moved to Recently
    /// Deleted (`trash`) or removed (`delete`, with `prune`), sorted.
    public var insert: [String] = []
    public var update: [String] = []
    public var trash: [String] = []
    public var delete: [String] = []

    public init() {}

    /// Runs the ingest of `options` against a copy of `original` (nil: an empty catalog).
    public static func run(
        options: IngestOptions, catalog original: Catalog?, progress: (@Sendable (IngestProgress) -> Void)? = nil
    ) async throws -> (IngestSummary, IngestPreview) {
        let scratch = try ScratchCatalog(copying: original)
        let copy = scratch.catalog
        let before = try copy.currentToken()
        var options = options
        options.thumbnails = nil
        options.pruneThumbnails = false
        options.ownPaths.insert(scratch.directory)
        let probed = ProbedPaths()
        let hook = options.beforeProbe
        options.beforeProbe = { path in
            probed.append(path)
            hook?(path)
        }
        let summary = try await Ingestor(options: options, catalog: copy).run(progress: progress)
        var preview = IngestPreview()
        preview.probe = probed.paths.sorted()
        // The run's commits and end, as the summary counts them; organize's later updates (burst, place and
        // zone fields of assets it just inserted or already had) are judgements the summary reports apart.
        let changes = try copy.changes(since: before, objectType: "asset").filter { $0.token <= summary.committedChange }
        // An asset inserted and then merged into the one its file moved from (`Catalog.adoptMovedAssets`):
        // the move is the other asset's update.
        let merged = Set(changes.filter(\.isMerge).map(\.localIdentifier))
        for r in changes where !merged.contains(r.localIdentifier) {
            let asset = try copy.findAsset(r.localIdentifier) ?? original?.findAsset(r.localIdentifier)
            let path = asset.map { $0.root + "/" + $0.asset.id } ?? r.localIdentifier
            switch (r.changeType, r.properties.contains("purged"), r.properties.contains("trashed")) {
            case ("inserted", _, _): preview.insert.append(path)
            case ("deleted", true, _): preview.delete.append(path)
            case ("deleted", _, true): preview.trash.append(path)
            case ("deleted", _, _): preview.delete.append(path)
            default: preview.update.append(path)
            }
        }
        // One line per asset: an asset inserted this run is an insert, whatever else happened to it.
        let inserted = Set(preview.insert)
        preview.insert.sort()
        preview.update = Set(preview.update).subtracting(inserted).sorted()
        preview.trash.sort()
        preview.delete.sort()
        withExtendedLifetime(scratch) {}  // the copy is removed only now
        return (summary, preview)
    }

    final class ProbedPaths: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        func append(_ p: String) { lock.withLock { list.append(p) } }
        var paths: [String] { lock.withLock { list } }
    }
}
