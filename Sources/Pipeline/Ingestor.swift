import Assemble
import Catalog
import Classify
import Derivatives
import Foundation
import MediaProbe
import Organize
import PhotoModel

/// What an ingest does and how.
public struct IngestOptions: Sendable {
    public var roots: [String]
    public var crawler = Crawler()
    /// Files probed at once (default: `defaultConcurrency`). Thumbnails are rendered on at most as many
    /// threads as there are cores, whatever this says (`Thumbnailer`).
    public var concurrency: Int
    /// Twice the cores. A probe is a chain of small dependent reads (a header, then the box or segment it
    /// points to, then the tail) and the hash a stream of large ones: with as many files at once as cores,
    /// a first ingest from a disk whose files are not in the page cache kept the disk one or two requests
    /// deep. Measured on 2 cores (3,000 distinct files, 3.1 GB, caches dropped before each run, six
    /// interleaved runs each): 2 files at once 1.83–2.49 s, 4 at once 1.55–1.68 s (3: 1.67–1.82, 6:
    /// 1.60–1.68, 8: 1.92–1.98); with the files in the page cache 2 and 4 at once took the same time
    /// (Benchmarks/README.md, session 28).
    public static var defaultConcurrency: Int { 2 * ProcessInfo.processInfo.activeProcessorCount }
    /// Delete vanished assets instead of moving them to Recently Deleted.
    public var prune = false
    public var historyRetentionDays: Int? = 30
    public var probeOptions = ProbeOptions()
    /// Count files first so progress can show a total and an ETA.
    public var countFirst = false
    /// Run the organize stage (bursts, moments, albums, smart albums) after the commit.
    public var organize = true
    /// Recompute the whole organize stage even when only some assets changed (tests compare the two).
    public var fullOrganize = false
    /// The optional thumbnails stage (nil: off).
    public var thumbnails: ThumbnailRequest?
    /// After the thumbnails stage, delete stale thumbnails (see `ThumbnailPruner`).
    public var pruneThumbnails = false
    /// Users' own smart albums (see `SmartAlbumFile`).
    public var userSmartAlbums: [SmartAlbumDefinition] = []
    /// Seconds one file may take (probe + hash) before it is abandoned with an error row; nil: no limit.
    public var fileTimeBudget: Double? = 60
    /// Most files abandoned at once before the rest of the run fails fast (see `FileWorkPool`).
    public var maxStuckFiles = 8
    /// Called on the worker right before a file is probed (fault injection for tests: a stall, a file
    /// removed between crawl and probe). Never set in production.
    public var beforeProbe: (@Sendable (String) -> Void)?
    /// Files whose stored facts are read and decoded at once when a folder is derived again (a window, so a big
    /// folder's blobs are not all held at once). Only tests change it.
    public var factsWindow = 1024
    /// A folder of at least this many files is large: the encoded facts of the files probed in it are set
    /// aside in a spool file until its commit is written (~2 KB a file; see `BlobSpool`), and its assets'
    /// column values are made by the writer as it writes them rather than held (`FolderCommit.holdsValues`).
    /// Tests set 1 to treat every folder so.
    public var largeFolder = IngestOptions.defaultLargeFolder
    public static let defaultLargeFolder = 2048
    /// Whether a file met at a new path takes over the stored facts of one that vanished from its old path this
    /// run (same name and version; see `MovedFacts`). Only tests turn it off, to show it changes nothing but
    /// what is read.
    public var takeOverMovedFacts = true
    /// Asked at every folder boundary: true stops the run there (SIGINT/SIGTERM); what was committed
    /// stays, the run is marked `interrupted` and the next ingest finishes the job.
    public var stopRequested: (@Sendable () -> Bool)?
    /// Shoebox's own files this run knows by path (the catalog, the thumbnail folder); others are
    /// recognised wherever they sit (see `OwnFiles`).
    public var ownPaths: Set<String> = []
    /// The rules that derive judgements from facts (see `DerivationRules`).
    public var rules = DerivationRules.current
    /// Re-derive every folder from its stored facts even when the rules did not change.
    public var rederive = false
    public typealias HashMode = MediaProbe.HashMode
    /// How much of each file is hashed (`--hash`; see `HashMode` and docs/catalog.md).
    public var hashMode: HashMode = .full
    /// A batch of folder commits is handed to the writer when it holds this many rows (files, assets,
    /// errors, vanished files and one per folder) or its first folder has waited `Ingestor.commitBatchSeconds`.
    /// Tests set 1: every folder its own batch, so the writer is busy with one while the next is prepared.
    var commitBatchRows = Ingestor.commitBatchRows
    /// A sharded ingest (`--shard I/N`): only this shard's top-level folders are walked (`ShardAssignment`);
    /// the catalog records the assignment (meta `shard`) for `shoebox merge`.
    public var shard: ShardAssignment?

    public init(roots: [String], concurrency: Int) {
        self.roots = roots
        self.concurrency = max(1, concurrency)
    }
}

/// Live progress of an ingest.
public struct IngestProgress: Sendable {
    /// What the run is doing: walking and probing the folders, then the steps after the last folder, which
    /// take seconds to a minute on a large library and during which the file counts stand still.
    public enum Stage: String, Sendable {
        case walk
        /// Building the indexes a first ingest deferred (Catalog.deferIndexesIfEmpty).
        case indexes
        /// Moved files joined to their assets, vanished ones trashed, the run recorded.
        case finish
        /// Bursts, places, moments, albums and smart albums.
        case organize

        /// For a person watching the bar.
        public var text: String {
            switch self {
            case .walk: return "probing"
            case .indexes: return "building the catalog's indexes"
            case .finish: return "finishing the run"
            case .organize: return "organizing bursts, places, moments and albums"
            }
        }
    }

    public var stage = Stage.walk
    public var filesDone = 0
    public var filesTotal: Int?
    public var filesProbed = 0
    public var errors = 0
    public var elapsed: Double = 0
    public var folder = ""
}

/// The end-of-run summary.
public struct IngestSummary: Sendable {
    public var runID: Int64 = 0
    public var filesSeen = 0
    public var filesProbed = 0
    public var filesUnchanged = 0
    /// Files at new paths (a folder renamed or moved, a file renamed) that took over the stored facts of the file
    /// that vanished from the old one — same device, inode, size and modification time, and a name that makes
    /// the same facts (`MovedFacts`) — rather than being read.
    public var filesMoved = 0
    public var foldersChanged = 0
    public var inserted = 0
    public var updated = 0
    public var deleted = 0
    public var errors = 0
    public var orphans = 0
    public var elapsed: Double = 0
    public var counts: [(String, Int)] = []
    /// The run's first `errorRowsKept` errors, for the summary (every error is in the catalog: `shoebox
    /// errors`). Only these few are kept: a row's path and reason are strings the file workers allocated, and
    /// a thousand of them, made all through a 100k-file walk, kept pages of the workers' heaps resident
    /// through organize (Benchmarks/README.md, session 19).
    public var errorRows: [ErrorInput] = []
    public static let errorRowsKept = 10

    /// Keeps as many of `rows` as fit in `errorRows`.
    mutating func keepErrorRows(_ rows: some Collection<ErrorInput>) {
        errorRows += rows.prefix(max(0, Self.errorRowsKept - errorRows.count))
    }

    public var currentToken = ""
    /// The newest change number once the folders were committed and the run finished, before organize:
    /// the changes up to it are what `inserted`, `updated` and `deleted` count (`ingest --dry-run` lists them).
    public var committedChange: Int64 = 0
    public var organized: Organizer.Summary?
    public var thumbnails: Thumbnailer.Summary?
    /// Stale thumbnails removed by the stage's prune.
    public var thumbnailsPruned: ThumbnailPruner.Summary?
    /// Files abandoned after overrunning the time budget, and files skipped because too many were stuck.
    public var filesAbandoned = 0
    public var filesSkipped = 0
    /// Most files probed at once (bounded by the pool, whatever the number of folders in flight).
    public var peakConcurrentFiles = 0
    /// Damaged, failed, skipped and own files of this run.
    public var outcomes = Outcomes()
    /// Set when a signal stopped the run at a folder boundary.
    public var interrupted = false
    /// Earlier runs that did not finish (interrupted, or killed outright) and that this run completes.
    public var resumed: [RunInfo] = []
    /// Why every folder was re-derived from stored facts (a rules change, `--rederive`), nil when not.
    public var rederived: String?
    /// One-off notes for the summary (a catalog upgraded by this binary).
    public var notes: [String] = []

    public var filesPerSecond: Double { elapsed > 0 ? Double(filesSeen) / elapsed : 0 }

    /// Counts change records as inserted, updated or deleted assets.
    mutating func count(_ records: [ChangeRecord]) {
        for rec in records {
            switch rec.changeType {
            case "inserted": inserted += 1
            case "updated": updated += 1
            default: deleted += 1
            }
        }
    }

    /// Counts the records of the run's end: trashed or purged assets, and moved files joined to the assets
    /// they left (`Catalog.adoptMovedAssets`: an insert this run counted was a move, an update; one an
    /// interrupted run made was counted by that run).
    mutating func countFinished(_ records: [ChangeRecord], insertedThisRun: (String) -> Bool) {
        for rec in records {
            switch rec.changeType {
            case "deleted" where rec.isMerge:
                if insertedThisRun(rec.localIdentifier) { inserted -= 1 }
            case "deleted": deleted += 1
            case "updated": updated += 1
            default: break
            }
        }
    }
}

/// `shoebox ingest`: crawl → probe → classify → assemble → commit, folder by folder.
///
/// Folders stream through a bounded window: up to `concurrency` folders are prepared (probed, hashed,
/// classified, assembled) at once while a single writer commits them in crawl order, one transaction per
/// folder. An unchanged file (same size, mtime, inode, device) is not probed again: its stored
/// classification is reused, and a folder with no changed, new or vanished file costs one indexed query.
/// A killed run leaves every committed folder in place; the next run picks up the rest.
public final class Ingestor: Sendable {
    public let options: IngestOptions
    public let catalog: Catalog

    public init(options: IngestOptions, catalog: Catalog) {
        self.options = options
        self.catalog = catalog
    }

    struct Prepared: Sendable {
        var commit: FolderCommit?
        var seen: Int
        var probed: Int
        var unchanged: Int
        var errors: [ErrorInput]
        var orphans: Int
        var dir: String
        var outcomes = Outcomes()
        /// Unchanged files probed again because their stored facts came from an older probe.
        var staleFacts = 0
        /// Files at new paths that took over a vanished file's facts (`MovedFacts`) instead of a probe.
        var moved = 0
        /// Its files probed so far, as progress reported them before the folder was taken in.
        var tally: ProgressFeed.Tally?
    }

    public func run(progress: (@Sendable (IngestProgress) -> Void)? = nil) async throws -> IngestSummary {
        let start = Date()
        let (roots, coveredRoots) = Self.distinctRoots(options.roots.map { Self.absolute($0) })
        var summary = IngestSummary()
        if let note = Self.coveredRootsNote(coveredRoots) { summary.notes.append(note) }
        // A run killed outright is still `running` with a dead pid: it was interrupted. Either way, this run
        // completes it (committed folders are unchanged and cost nothing).
        let reaped = try catalog.reapDeadRuns()
        if let last = try catalog.incompleteRun(), last.status == "interrupted" {
            summary.resumed = [last]
        } else if let r = reaped.last {
            summary.resumed = [r]
        }
        let assetsBefore = try catalog.largestAssetID()
        let historyEnd = try catalog.currentChangeNumber()  // this run's records come after it
        let runID = try catalog.beginRun(roots: roots)
        summary.runID = runID
        try catalog.setMetaValue(ShardAssignment.metaKey, options.shard?.description)
        if let note = try catalog.metaValue("upgrade_note") {
            summary.notes.append(note)
            try catalog.setMetaValue("upgrade_note", nil)
        }
        // Judgements are derived: when the rules changed since the catalog was last derived (or when asked),
        // every folder is derived again from its stored facts (files are probed only when they changed).
        let storedRules = try catalog.metaValue("rules_version").flatMap { Int($0) }
        let rederive = options.rederive || (storedRules != nil && storedRules != options.rules.version)
        if rederive {
            summary.rederived = options.rederive ? "asked (--rederive)" : "rules \(storedRules ?? 0) → \(options.rules.version)"
        }
        let knownRoots = try catalog.knownRoots()
        let own = OwnFiles(paths: options.ownPaths)
        let feed = ProgressFeed(start: start, sink: progress)
        var limits = FileWorkPool.Limits(width: options.concurrency, timeBudget: options.fileTimeBudget)
        limits.maxStuck = options.maxStuckFiles
        let pool = FileWorkPool(limits)
        defer { pool.shutdown() }
        if options.countFirst {
            let total = FolderWalker.countFiles(roots, crawler: options.crawler)
            feed.update(report: false) { $0.filesTotal = total }
        }

        // A first ingest into an empty catalog builds the indexes only queries and organize read after the
        // walk, in one sorted pass each (Catalog.deferIndexesIfEmpty); an error on the way leaves them noted
        // for the next writer, and the defer builds them at once when it can.
        let deferredIndexes = try catalog.deferIndexesIfEmpty()
        if deferredIndexes { catalog.setWriterCache(kib: Self.firstIngestWriterCacheKiB) }
        defer { if deferredIndexes { _ = try? catalog.buildDeferredIndexes() } }
        let writer = CommitWriter(catalog: catalog)
        var visitedAll = PathSet()
        var staleFacts = 0
        var revisited: [(path: String, sameAs: String)] = []
        // Facts of files vanishing from their paths, for files met at new paths (a folder renamed or moved).
        let moved = MovedFacts(catalog: catalog, looksUpVersions: !deferredIndexes)
        rootLoop: for root in roots {
            if summary.interrupted { break rootLoop }
            let walkedDir = Crawler.isDirectory(root) ? root : (root.lastIndex(of: "/").map { String(root[..<$0]) } ?? ".")
            // A folder inside a root the catalog knows keeps that root (its assets and ids); a known root
            // inside this one keeps its own.
            let rootDir = Self.enclosingRoot(of: walkedDir, known: knownRoots) ?? walkedDir
            var rootWalker = FolderWalker(roots: [root], crawler: options.crawler, own: own)
            rootWalker.shard = options.shard
            let walker = WalkAhead(rootWalker)
            defer { _ = walker.finish() }  // a failed run leaves no thread waiting
            var visited = PathSet()
            defer { visitedAll.formUnion(visited) }
            var unreadable: [String] = []  // folders that could not be listed: what is below them is kept
            var pendingDirs: [String] = []  // known folders that vanished whole
            var vanishedDone = false
            // Known folders missing on disk (renamed, moved, deleted) are committed before any walked folder:
            // their assets are then pending vanish when a folder they moved to is matched, whatever the
            // order of the names (a folder renamed to one that sorts first keeps its assets' identifiers).
            var goneFirst: [String]? = nil
            // Folders prepared at once: a few per worker, so the file pool always has queued work while
            // finished folders wait to be assembled and committed in order. Counted per core, not per
            // worker: a prepared folder holds its files' judgements and encoded facts until its commit, and
            // twice the workers (the default, for the disk's sake) doubled that (16 folders of 2,000 files:
            // peak 104 → 142 MB); a folder's files go to the pool in chunks, so fewer folders keep it fed.
            let width = min(options.concurrency, ProcessInfo.processInfo.activeProcessorCount) * 4
            try await withThrowingTaskGroup(of: (Int, Prepared).self) { group in
                var next = 0
                var ready: [Int: Prepared] = [:]
                var emit = 0
                // A window of folders is looked ahead: their fingerprints come in one query, and a folder in
                // which nothing changed is counted right here, without a task or another query.
                let partial = !Crawler.isDirectory(root)  // a file root covers only itself
                var lookahead: [(FolderBatch, [FileRow])] = []
                // The window starts at a folder per worker and doubles up to 64: the first files are probed
                // once a few folders are listed, not 64 (listing them was a few milliseconds of one core while
                // the other waited, at the start of every run).
                var window = max(1, options.concurrency)
                func nextBatch() throws -> (FolderBatch, [FileRow])? {
                    if lookahead.isEmpty {
                        let windowSize = window
                        window = min(64, window * 2)
                        var batches: [FolderBatch] = []
                        if goneFirst == nil {
                            let gone = partial ? [] : try catalog.directories(under: walkedDir, where: Crawler.isMissingDirectory)
                            visited.formUnion(gone)
                            goneFirst = gone.reversed()
                        }
                        while batches.count < windowSize, let d = goneFirst?.popLast() { batches.append(FolderBatch(dir: d, files: [])) }
                        while batches.count < windowSize, let b = walker.next() {
                            visited.insert(b.dir)
                            if b.error != nil { unreadable.append(b.dir + "/") }
                            batches.append(b)
                        }
                        if batches.isEmpty && !vanishedDone && !summary.interrupted {
                            vanishedDone = true
                            if !partial {
                                pendingDirs = try catalog.directories(under: walkedDir) { d in
                                    !visited.contains(d) && !unreadable.contains { d.utf8.starts(with: $0.utf8) }
                                }.reversed()
                            }
                        }
                        while batches.isEmpty || (batches.count < windowSize && !pendingDirs.isEmpty && walker.isDone) {
                            guard let d = pendingDirs.popLast() else { break }
                            batches.append(FolderBatch(dir: d, files: []))
                        }
                        if batches.isEmpty { return nil }
                        let rows = try catalog.fingerprints(inDirectories: batches.map(\.dir))
                        lookahead = batches.map { ($0, rows[$0.dir] ?? []) }.reversed()
                    }
                    return lookahead.popLast()
                }
                func submit() throws {
                    if !summary.interrupted, options.stopRequested?() == true { summary.interrupted = true }
                    if summary.interrupted { return }
                    while let (batch, rows) = try nextBatch() {
                        let folderRoot = Self.folderRoot(batch.dir, rows: rows, known: knownRoots, walkRoot: rootDir)
                        if !partial, !rederive, Self.isUnchanged(batch, rows, root: folderRoot) {
                            for r in rows { summary.outcomes.countStored(r) }
                            summary.filesSeen += batch.files.count
                            summary.filesUnchanged += batch.files.count
                            feed.update { $0.filesDone += batch.files.count }
                            continue
                        }
                        // Its files that vanish are set aside before any later folder is handed out (and before
                        // this one's commit deletes them): a renamed folder's, committed first, cover its new name.
                        // (A catalog that cannot be read here fails the folder's commit just after, with its error;
                        // setting facts aside only saves reading files, and never fails a run by itself.)
                        if options.takeOverMovedFacts, !partial, batch.error == nil {
                            _ = try? moved.register(MovedFacts.vanished(rows, present: batch.files))
                        }
                        let movedFacts = options.takeOverMovedFacts && !partial ? moved : nil
                        let i = next
                        next += 1
                        let tally = feed.tally()
                        let onProbed: (@Sendable () -> Void)? = tally == nil ? nil : { @Sendable in feed.probed(in: tally) }
                        let onJudged: (@Sendable () -> Void)? = tally == nil ? nil : { @Sendable in feed.judged(in: tally) }
                        group.addTask { [self] in
                            var r = try await self.prepare(
                                batch, rows: rows, root: folderRoot, runID: runID, partial: partial, rederive: rederive, pool: pool,
                                onProbed: onProbed, onJudged: onJudged, moved: movedFacts)
                            r.tally = tally
                            return (i, r)
                        }
                        return
                    }
                }
                // Finished folders are committed in order, several to a transaction (bounded by rows and by
                // time, so an interrupted or killed run loses at most a fraction of a second of work), by a
                // writer of their own while the next folders are probed.
                var pending: [FolderCommit] = []
                var pendingRows = 0
                var pendingSince = Date()
                var unwritten = UnwrittenPartials()
                func flush() async throws {
                    guard !pending.isEmpty else { return }
                    summary.count(try await writer.submit(pending))
                    unwritten.handedOver()
                    pending = []
                    pendingRows = 0
                }
                for _ in 0..<width { try submit() }
                while let (i, prepared) = try await group.next() {
                    ready[i] = prepared
                    while let r = ready.removeValue(forKey: emit) {
                        emit += 1
                        if var c = r.commit {
                            try completePartialHashes(&c, unwritten: &unwritten)
                            if pending.isEmpty { pendingSince = Date() }
                            unwritten.add(c)
                            pending.append(c)
                            pendingRows += c.files.count + (c.assets?.count ?? 0) + c.errors.count + c.vanished.count + 1
                            summary.foldersChanged += 1
                            if pendingRows >= options.commitBatchRows || Date().timeIntervalSince(pendingSince) >= Self.commitBatchSeconds {
                                try await flush()
                            }
                        }
                        summary.filesSeen += r.seen
                        summary.filesProbed += r.probed
                        summary.filesMoved += r.moved
                        summary.filesUnchanged += r.unchanged
                        staleFacts += r.staleFacts
                        summary.errors += r.errors.count
                        summary.outcomes.add(r.outcomes)
                        summary.orphans += r.orphans
                        summary.keepErrorRows(r.errors)
                        feed.update(settling: r.tally) { p in
                            p.filesDone += r.seen
                            p.filesProbed += r.probed
                            p.errors += r.errors.count
                            p.folder = r.dir
                        }
                    }
                    try submit()
                }
                try await flush()
                summary.count(try await writer.drain())
            }
            let walked = walker.finish()
            revisited += walked.revisited
            for (path, why) in walked.ownExcluded {
                summary.outcomes.addOwn(path + " (" + why + ")")
            }
        }
        func enter(_ stage: IngestProgress.Stage) {
            feed.update { $0.stage = stage }
        }
        if deferredIndexes {
            if !summary.interrupted { enter(.indexes) }
            try catalog.buildDeferredIndexes()
            catalog.setWriterCache(kib: nil)
        }
        let stats = pool.statistics
        summary.filesAbandoned = stats.abandoned
        summary.filesSkipped = stats.skipped
        summary.peakConcurrentFiles = stats.peakRunning
        summary.elapsed = Date().timeIntervalSince(start)
        if let note = Self.revisitedNote(revisited) { summary.notes.append(note) }
        if summary.filesMoved > 0 {
            summary.notes.append(
                "\(summary.filesMoved) \(summary.filesMoved == 1 ? "file" : "files") moved or renamed from paths gone this run (same inode, size and modification time) kept \(summary.filesMoved == 1 ? "its" : "their") stored facts and hashes: not read again"
            )
        }
        if staleFacts > 0 {
            summary.notes.append(
                "\(staleFacts) unchanged files were probed again: their stored facts came from an older version of the probe (this one writes version \(Prober.version))"
            )
        }
        if summary.interrupted {
            // Stopped at a folder boundary: what was committed stays; nothing is trashed (folders not reached
            // would look vanished) and nothing is organized. The next ingest finishes the job — and finds the
            // facts set aside for moved files no file took over yet (`moved_out`), so it need not read them.
            _ = try? moved.keepForNextRun()
            try catalog.interruptRun(runID, filesSeen: summary.filesSeen, filesProbed: summary.filesProbed, errors: summary.errors, elapsed: summary.elapsed)
            summary.committedChange = try catalog.currentChangeNumber()
            summary.counts = try catalog.summaryCounts()
            summary.currentToken = try catalog.currentToken()
            return summary
        }
        if rederive && !options.rederive {
            // The rules changed: the folders this run did not walk are derived again from their facts too.
            var r = RederiveSummary()
            try rederiveStored(runID: runID, except: visitedAll, into: &r)
            summary.foldersChanged += r.folders
            summary.count(r.records)
            if !r.keptFolders.isEmpty {
                summary.notes.append("\(r.keptFolders.count) folders outside the roots kept their judgements: some files there have no current facts (ingest them to probe again)")
            }
        }
        // Every walked folder (21.7k at 100k files, ~0.5 MB as digests) is not needed past this point: not held
        // through organize.
        visitedAll = PathSet()
        // Nor are the hash's read buffers: every file was probed.
        ContentHasher.releaseBuffers()
        if storedRules == nil || rederive { try catalog.setMetaValue("rules_version", String(options.rules.version)) }
        enter(.finish)
        try catalog.clearMovedOut()  // a completed run: the moves an interrupted one kept are settled
        let records0 = try catalog.finishRun(
            runID, filesSeen: summary.filesSeen, filesProbed: summary.filesProbed, errors: summary.errors,
            damaged: summary.outcomes.damaged, skipped: summary.outcomes.skippedTotal, elapsed: summary.elapsed,
            prune: options.prune, historyRetentionDays: options.historyRetentionDays)
        let insertedNow = records0.contains(where: \.isMerge) ? try catalog.identifiersInserted(byRun: runID, after: historyEnd) : []
        summary.countFinished(records0) { insertedNow.contains($0) }
        summary.committedChange = try catalog.currentChangeNumber()
        // Organize when something changed (or nothing was organized yet, or what changed since the last organize
        // is not organized: a `shoebox change`, an organize stopped half-way): bursts, moments, albums, smart albums.
        let neverOrganized = try catalog.collectionCount(type: .smartAlbum) == 0
        // A gazetteer added, removed or updated re-derives places (and the moment titles made from them).
        let placesStale = try PlaceStage.gazetteerChanged(catalog)
        let fullOrganizeEnv = ProcessInfo.processInfo.environment["SHOEBOX_FULL_ORGANIZE"] != nil
        let organizeBehind = try options.organize && catalog.organizeIsBehind()
        if options.organize && (summary.foldersChanged > 0 || !records0.isEmpty || neverOrganized || !options.userSmartAlbums.isEmpty || placesStale || organizeBehind) {
            // Incremental unless the rules or the gazetteer changed (organize is then recomputed whole).
            let organizeStart = Date()
            enter(.organize)
            // What the probe threads and the writer's page cache held goes back to the system before organize
            // builds its own.
            catalog.releaseMemory()
            catalog.setWriterCache(kib: Self.organizeWriterCacheKiB)
            defer { catalog.setWriterCache(kib: nil) }
            ResourceLimits.releaseFreeMemory()
            ResourceLimits.mapLargeAllocations(from: Self.organizeMappedAllocationBytes)
            let o = try Organizer.run(
                catalog, runID: runID, userSmartAlbums: options.userSmartAlbums, full: rederive || placesStale || neverOrganized || options.fullOrganize || fullOrganizeEnv,
                newAssetsAfter: assetsBefore)
            if options.thumbnails != nil { ResourceLimits.mapLargeAllocations(from: Self.thumbnailsMappedAllocationBytes) }
            // Benchmarks/README.md: the organize stage's time on its own.
            if ProcessInfo.processInfo.environment["SHOEBOX_ORGANIZE_TIMING"] != nil {
                let how =
                    o.incremental
                    ? "incremental, \(o.changedAssets) assets changed, albums of \(o.folderTops.map { "\($0) top-level folders" } ?? "the whole tree"), "
                        + "moments of \(o.momentStretches.map { "\($0) stretches" } ?? "the whole timeline")" : "full"
                let steps = o.steps.map { "\($0.name) \(String(format: "%.2f", $0.seconds))" }.joined(separator: ", ")
                FileHandle.standardError.write(
                    Data("organize: \(String(format: "%.2f", Date().timeIntervalSince(organizeStart))) s (\(how)): \(steps)\n".utf8))
            }
            summary.organized = o
            if let note = PlaceStage.missingNote { summary.notes.append(note) }
            // Organized though this run changed nothing: say why (the run's own lines say nothing changed).
            if organizeBehind && summary.foldersChanged == 0 && records0.isEmpty && !neverOrganized && !placesStale {
                summary.notes.append(
                    o.incremental
                        ? "organized \(o.changedAssets) asset\(o.changedAssets == 1 ? "" : "s") changed in the catalog since the last organize (shoebox change)"
                        : "organized the library whole: the last organize stopped half-way")
            }
        }
        // Thumbnails: every asset's files once (existing ones are skipped by name); failures are error rows.
        if let request = options.thumbnails {
            var o = FetchOptions()
            o.includeAllBurstAssets = true
            o.includeHiddenAssets = true
            var thumbnailer = Thumbnailer(request: request, concurrency: options.concurrency)
            thumbnailer.executor = pool.renderExecutor
            let t = await thumbnailer.run(assets: try catalog.fetchAssets(o))
            let thumbnailErrors = t.errors.map { ErrorInput(path: $0.path, stage: $0.stage, reason: $0.reason) }
            try catalog.recordErrors(thumbnailErrors, runID: runID)
            summary.errors += t.errors.count
            summary.keepErrorRows(thumbnailErrors)
            summary.thumbnails = t
            if options.pruneThumbnails {
                let pruned = ThumbnailPruner(outputDirectory: request.outputDirectory, assets: try catalog.cloudIdentifiersWithResourceHashes()).run()
                try catalog.recordErrors(pruned.errors.map { ErrorInput(path: $0.path, stage: $0.stage, reason: $0.reason) }, runID: runID)
                summary.errors += pruned.errors.count
                summary.thumbnailsPruned = pruned
            }
        }
        summary.elapsed = Date().timeIntervalSince(start)
        summary.counts = try catalog.summaryCounts()
        summary.currentToken = try catalog.currentToken()
        return summary
    }

    /// The summary's note on folders reached again under another path (`FolderWalker.revisited`), naming
    /// the first few: a link back to an ancestor, or two paths to one folder, is walked once, and its files
    /// are catalogued under the path walked first.
    static func revisitedNote(_ revisited: [(path: String, sameAs: String)]) -> String? {
        guard !revisited.isEmpty else { return nil }
        let folders = revisited.count == 1 ? "1 folder reached again under another path was" : "\(revisited.count) folders reached again under other paths were"
        return "\(folders) not walked twice: " + firstFew(revisited.map { "\($0.path) is \($0.sameAs)" })
    }

    /// A note's list: the first three, and how many more.
    static func firstFew(_ items: [String]) -> String {
        items.prefix(3).joined(separator: ", ") + (items.count > 3 ? ", and \(items.count - 3) more" : "")
    }

    /// The roots to walk, in the order given, without those another root covers — the same folder again
    /// (as written, or through a link: compared by real path) or a folder or file inside another root —
    /// which would be walked twice, every file counted twice in the summary ("6 files" for a tree of 3);
    /// and those left out, each with the root that covers it. Their folders keep their known roots all the
    /// same (`enclosingRoot`).
    static func distinctRoots(_ roots: [String]) -> (walk: [String], covered: [(root: String, by: String, same: Bool)]) {
        let reals = roots.map(Crawler.realPath)
        var walk: [String] = [], covered: [(root: String, by: String, same: Bool)] = []
        for (k, root) in roots.enumerated() {
            // Covered by an earlier root (the same or an enclosing one), or by a later one that encloses it.
            let by = roots.indices.first { j in
                j != k && PathText.isInside(reals[k], reals[j]) && (j < k || !reals[j].utf8.elementsEqual(reals[k].utf8))
            }
            if let by { covered.append((root, roots[by], reals[by].utf8.elementsEqual(reals[k].utf8))) } else { walk.append(root) }
        }
        return (walk, covered)
    }

    /// The summary's note on roots walked once though given more than once or inside another.
    static func coveredRootsNote(_ covered: [(root: String, by: String, same: Bool)]) -> String? {
        guard !covered.isEmpty else { return nil }
        let roots = covered.count == 1 ? "1 root was" : "\(covered.count) roots were"
        return "\(roots) not walked on its own, another root covers it: "
            + firstFew(covered.map { c in
                c.root.utf8.elementsEqual(c.by.utf8) ? "\(c.root) was given twice" : c.same ? "\(c.root) is \(c.by)" : "\(c.root) is inside \(c.by)"
            })
    }

    /// `absolute(_:)` for callers outside the pipeline (the catalog path given on the command line).
    public static func absolutePath(_ p: String) -> String { absolute(p) }

    /// An absolute path with `.` and `..` removed lexically. Symbolic links are kept as the user wrote them
    /// (Foundation's `standardizingPath` resolves some, which would change the roots the catalog records).
    static func absolute(_ p: String) -> String {
        let full = p.hasPrefix("/") ? p : FileManager.default.currentDirectoryPath + "/" + p
        var parts: [Substring] = []
        for c in PathText.components(full) {
            if c == "." { continue }
            if c == ".." {
                if !parts.isEmpty { parts.removeLast() }
                continue
            }
            parts.append(c)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The known root that contains `dir` (the outermost, so that ingesting `big/copy1` after `big` keeps
    /// `big`), or nil.
    static func enclosingRoot(of dir: String, known: [String]) -> String? {
        known.filter { PathText.isInside(dir, $0) }.min { $0.count < $1.count }
    }

    /// The root a folder's files and assets belong to: the one its rows already carry, else the innermost
    /// known root around it (a new folder beside catalogued ones), else the root being walked.
    static func folderRoot(_ dir: String, rows: [FileRow], known: [String], walkRoot: String) -> String {
        if let r = rows.first?.root, PathText.isInside(dir, r) { return r }
        let inner = known.filter { PathText.isInside(dir, $0) }.max { $0.count < $1.count }
        guard let inner, inner.count > walkRoot.count else { return walkRoot }
        return inner
    }

    /// A batch of folder commits is written when it holds this many rows (files, assets, errors, vanished
    /// files and one per folder) … The finished folders wait in memory until their batch is written (each
    /// file's facts, 2.6 KB on average, with its rows and classification), up to two batches: at 4,000 rows
    /// a 3,000-file first ingest peaked at 53–56 MiB (`--hash full`) and 61–62 (`sampled`, whose faster
    /// walk fills batches sooner), at 1,000 rows at 48–49 and 47–49, in the same time (six interleaved runs
    /// each; at 100k files 60–62 against 62–64 MiB; Benchmarks/README.md, session 17).
    static let commitBatchRows = 1000
    /// … or when its first folder has waited this long.
    static let commitBatchSeconds = 0.25

    /// The writer's page cache while organize runs (`writerCacheKiB` otherwise): organize holds its own
    /// data meanwhile, and its writes walk the asset table in an order the cache does little for. The places
    /// step fills it at 100k files: 2 MiB against 8 gave a peak 3–9 MiB lower in the same time (three
    /// interleaved pairs, session 14; session 13 saw no difference while larger allocations set the peak).
    static let organizeWriterCacheKiB = 2 * 1024
    /// Organize's allocations of this size and more get mappings of their own (ResourceLimits.mapLargeAllocations),
    /// returned whole when freed, until the run ends. At 1 MiB its peak RSS at 100k files fell by 15–19 MiB
    /// (Benchmarks/README.md, session 11); at 128 KiB by 5–7 MiB more, in the same time, because each range of
    /// days' rows, results and dictionaries no longer leave holes in the heaps that the next range cannot fill
    /// (session 13: peak 115–116 → 108–111 MiB, six runs; 64 KiB gave the same as 128).
    static let organizeMappedAllocationBytes = 128 << 10
    /// The threshold for the thumbnails stage after organize (`ingest --thumbnails`), whose decoded images it
    /// maps and unmaps one by one: on the corpus that stage's peak fell from 483–567 to 379–385 MiB for 2–4 %
    /// more wall time (glibc's own threshold, once raised, keeps every freed pixel buffer in the heaps;
    /// session 11). Measured at 1 MiB, so it stays there rather than at organize's 128 KiB.
    static let thumbnailsMappedAllocationBytes = 1 << 20
    /// The writer's page cache while a first ingest walks with its indexes deferred: the inserts then go
    /// to the ends of their tables and of the path indexes, and only the hash and identifier indexes take
    /// pages at random places. At 100k files this runs as fast as 32 MiB with every index, in 20–25 MiB less
    /// (Benchmarks/README.md, session 11).
    static let firstIngestWriterCacheKiB = 8 * 1024

    /// Whether nothing in the folder is new, changed or gone. Never for a folder that could not be read: it
    /// has no files, and when the catalog has none there either it looked unchanged, and its error was lost
    /// (an unreadable folder, or one past PATH_MAX, met for the first time: nothing said it was not walked).
    static func isUnchanged(_ batch: FolderBatch, _ rows: [FileRow], root: String) -> Bool {
        guard batch.error == nil, rows.count == batch.files.count else { return false }
        let byPath = RowIndex(rows)
        for f in batch.files {
            guard let fp = f.fingerprint, let k = byPath[f.path], rows[k].fingerprint == fp, rows[k].probeVersion == Prober.version,
                rows[k].root == root
            else { return false }
        }
        return true
    }

    /// A folder's stored rows by path: their positions (a dictionary of the rows themselves was a second copy of
    /// each, 17 MB of a 30,000-file folder).
    struct RowIndex {
        private var positions: [String: Int] = [:]
        init(_ rows: [FileRow]) {
            positions.reserveCapacity(rows.count)
            for (k, r) in rows.enumerated() { positions[r.path] = k }
        }
        subscript(_ path: String) -> Int? { positions[path] }
    }

    /// A spool for a very large folder's facts: beside the catalog (on the disk it is written to), else in the
    /// temporary folder; nil when neither takes one (the facts are then held).
    static func factsSpool(for catalog: Catalog) -> BlobSpool? {
        let (parent, name) = PathText.parentAndName(catalog.path)
        let dir = parent.map { $0.isEmpty ? "/" : String($0) } ?? "."
        return BlobSpool(directories: [dir, NSTemporaryDirectory()], name: name + "-facts")
    }

    /// Probes what changed in one folder (`rows`: its stored fingerprints) and assembles it.
    func prepare(
        _ batch: FolderBatch, rows: [FileRow], root: String, runID: Int64, partial: Bool = false, rederive: Bool = false, pool: FileWorkPool,
        onProbed: (@Sendable () -> Void)? = nil, onJudged: (@Sendable () -> Void)? = nil, moved: MovedFacts? = nil
    ) async throws -> Prepared
    {
        if let error = batch.error {
            // A folder that cannot be listed: one error row; what the catalog knows of it stays as it was.
            let e = ErrorInput(path: batch.dir, stage: ProbeStage.open.rawValue, reason: error, severity: .failed)
            var p = Prepared(
                commit: FolderCommit(runID: runID, root: root, dir: batch.dir, files: [], vanished: [], assets: nil, errors: [e]),
                seen: 0, probed: 0, unchanged: 0, errors: [e], orphans: 0, dir: batch.dir)
            p.outcomes.failed = 1  // what is inside could not be catalogued this run
            return p
        }
        let rowIndex = RowIndex(rows)
        func byPath(_ path: String) -> FileRow? { rowIndex[path].map { rows[$0] } }
        let rules = options.rules
        // Files whose stored facts are current need no probe: their judgement is derived from the facts (and
        // the row rewritten when a derived column changed with the rules). Judged as they are decoded, so the
        // folder holds no report.
        var known: [Known] = []
        func keep(_ row: FileRow, _ report: ProbeReport) { known.append(Known(row, report, rules)) }
        let candidates = batch.files.filter { f in
            guard let fp = f.fingerprint, let row = byPath(f.path) else { return false }
            return row.fingerprint == fp && row.probeVersion == Prober.version && row.root == root
        }
        let present = Set(batch.files.map(\.path))
        let kept = partial ? rows.filter { !present.contains($0.path) && $0.probeVersion == Prober.version && $0.root == root } : []
        func storedReport(_ path: String) throws -> ProbeReport? {
            try catalog.facts(paths: [path])[path].flatMap(DerivationRules.decode)
        }
        // The stored facts are read a window of files at a time, and decoded and judged on the shared pool: a
        // decode is ~0.1 ms (a folder of 20,000 files with one added spent 2 s on one thread here), and a big
        // folder's blobs are not all held at once (~50 MB at 20,000 files).
        let wanted = candidates.compactMap { byPath($0.path) } + kept
        known.reserveCapacity(wanted.count)  // no doubling copies of a large folder's judgements
        let size = max(1, options.factsWindow)
        for start in stride(from: 0, to: wanted.count, by: size) {
            let window = wanted[start..<min(wanted.count, start + size)]
            let blobs = try catalog.facts(paths: window.map(\.path))
            let items = window.compactMap { row in blobs[row.path].map { (row: row, blob: $0) } }
            let decoded: [Known?] = await pool.runBatch(
                items,
                { item, _ in
                    guard let report = DerivationRules.decode(item.blob) else { return nil }
                    defer { onJudged?() }
                    return Known(item.row, report, rules)
                },
                abandoned: { _, _ in nil }, skipped: { _, _ in nil })
            for k in decoded { if let k { known.append(k) } }
        }
        let knownPaths = Set(known.map(\.row.path))
        // New, changed, or facts stale or unreadable: probe again (never trash).
        let toProbe = batch.files.filter { !knownPaths.contains($0.path) }
        let vanished = partial ? [] : rows.filter { !present.contains($0.path) }.map(\.path)
        var prepared = Prepared(commit: nil, seen: batch.files.count, probed: 0, unchanged: known.count, errors: [], orphans: 0, dir: batch.dir)
        prepared.staleFacts = batch.files.count { f in
            guard let fp = f.fingerprint, let row = byPath(f.path), let version = row.probeVersion else { return false }
            return row.fingerprint == fp && row.root == root && version != Prober.version
        }
        for k in known { prepared.outcomes.countStored(k.row) }
        if toProbe.isEmpty && vanished.isEmpty && !rederive { return prepared }

        // Files at paths the catalog does not know (or whose row there is of another file) may have moved here
        // from a folder walked later: their rows are found by version and set aside before any is probed. Then
        // no lookup per file while nothing is set aside.
        if let moved, !rederive {
            let unknown = toProbe.filter { f in f.fingerprint != nil && byPath(f.path)?.fingerprint != f.fingerprint }
            if !unknown.isEmpty { _ = try? moved.registerMoved(into: unknown) }
        }
        let moved = moved?.isEmpty == false ? moved : nil
        // Probe and hash what is new or changed on the shared pool, under the per-file time budget, in file order.
        let prober = Prober(options: options.probeOptions)
        let hook = options.beforeProbe
        let mode = options.hashMode
        // Each file is judged and its facts encoded on the worker that probed it, so its report is dropped
        // there: a folder holds its files' judgements and encoded facts, not their reports. A very large
        // folder's facts are set aside in a spool file until its commit is written (`BlobSpool`).
        let spool = toProbe.count >= options.largeFolder ? Self.factsSpool(for: catalog) : nil
        let probed: [ProbedFile] = await pool.runBatch(
            toProbe,
            { f, deadline in
                defer { onProbed?() }
                // A file moved here from a path that vanished this run, same version: its facts (and hashed, when
                // the stored hash is of another mode's kind; a file that cannot be hashed now is probed).
                if let moved, var t = moved.takeOver(f, mode: mode) {
                    if t.needsHash, let h = try? ContentHasher.hash(path: f.path, mode: mode, deadline: deadline) {
                        (t.hash, t.sampleHash, t.needsHash) = (h, ContentHasher.isPartial(h) ? h : nil, false)
                    }
                    if !t.needsHash {
                        return ProbedFile(f, t.report, hash: t.hash, sampleHash: t.sampleHash, rules: rules, spool: spool, movedFrom: t.from)
                    }
                }
                hook?(f.path)
                guard f.error == nil else {
                    let report = ProbeRunner.report(for: CrawlEntry(path: f.path, error: f.error), prober: prober, deadline: deadline)
                    return ProbedFile(f, report, hash: nil, rules: rules, spool: spool)
                }
                // One open: the probe reads headers and tails, the hash (media only) streams the file once.
                let (report, hash) = prober.probe(path: f.path, deadline: deadline, hash: mode, seen: f.seen)
                return ProbedFile(f, report, hash: hash, rules: rules, spool: spool)
            },
            abandoned: { f, budget in
                onProbed?()
                return ProbedFile(f, ProbeRunner.abandonedReport(f.path, budget: budget), hash: nil, rules: rules)
            },
            skipped: { f, stuck in
                onProbed?()
                return ProbedFile(f, ProbeRunner.skippedReport(f.path, stuck: stuck), hash: nil, rules: rules)
            })
        prepared.moved = probed.count { $0.moved }
        prepared.probed = probed.count - prepared.moved

        var files: [FileRow] = []
        var classifications: [FileClassification] = []
        var hashes: [String: String] = [:]
        files.reserveCapacity(probed.count)
        classifications.reserveCapacity(probed.count + known.count)
        for p in probed {
            let f = p.file
            let notMedia = p.notMedia
            let errs = p.problems.filter { $0.severity == .error }
            let damage = errs.isEmpty ? p.problems.filter { $0.severity == .damaged } : []
            for e in errs { prepared.errors.append(ErrorInput(path: f.path, stage: e.stage.rawValue, reason: e.reason, severity: .failed)) }
            for d in damage { prepared.errors.append(ErrorInput(path: f.path, stage: d.stage.rawValue, reason: d.reason, severity: .damaged)) }
            prepared.outcomes.count(errors: !errs.isEmpty, damaged: !damage.isEmpty, notMedia: notMedia, path: f.path)
            // A known file that could not be read this time (gone between crawl and probe, a read error, over
            // its time budget): keep what the catalog knows, so its asset is not lost; the next run retries.
            if let row = byPath(f.path), row.probeVersion != nil, row.root == root, errs.contains(where: ProbeRunner.isTransient),
                let old = try storedReport(f.path)
            {
                keep(row, old)
                continue
            }
            if let hash = p.hash { hashes[f.path] = hash }
            let c = p.classification
            classifications.append(c)
            guard let fp = f.fingerprint else { continue }  // unreadable: an error row, no file row
            let status =
                notMedia.map { $0.category == NotMedia.shoebox ? "own" : "skipped" } ?? (!errs.isEmpty ? "error" : !damage.isEmpty ? "damaged" : "ok")
            let note = notMedia?.reason ?? (errs.first ?? damage.first).map { "\($0.stage.rawValue): \($0.reason)" }
            files.append(
                FileRow(
                    path: f.path, root: root, dir: batch.dir, fingerprint: fp, contentHash: p.hash, kind: c.kind.rawValue,
                    role: c.role.rawValue, status: status, lastError: note, facts: p.facts, probeVersion: p.hasFacts ? Prober.version : nil,
                    skipCategory: notMedia?.category, sampleHash: p.sampleHash, spooledFacts: p.spooled))
        }
        for k in known {
            let (row, c, rewritten) = (k.row, k.c, k.rewritten)
            if let h = row.contentHash { hashes[row.path] = h }
            classifications.append(c)
            if let rewritten { files.append(rewritten) }
        }

        var (commit, orphans) = Self.commit(
            consume classifications, hashes: hashes, files: files, vanished: vanished, errors: prepared.errors, root: root, dir: batch.dir,
            runID: runID, large: batch.files.count >= options.largeFolder)
        for p in probed { if let from = p.movedFrom { commit.movedFrom[p.file.path] = from } }
        prepared.commit = commit
        prepared.orphans = orphans
        return prepared
    }

    /// A file whose stored facts are current: its row, its judgement from them, and its row rewritten when a
    /// derived column (role, kind) changed with the rules.
    struct Known: Sendable {
        var row: FileRow
        var c: FileClassification
        var rewritten: FileRow?

        init(_ row: FileRow, _ report: ProbeReport, _ rules: DerivationRules) {
            self.row = row
            (c, rewritten) = Ingestor.classify(row, report, rules)
        }
    }

    /// One probed file as its folder's commit needs it — its judgement, its facts encoded for the catalog, the
    /// problems that set its status — made on the worker that probed it. A report is a ~2.7 KB value plus
    /// its tags; a folder of 20,000 files held them all until its commit (a peak of ~18 KB a file).
    struct ProbedFile: Sendable {
        var file: FolderBatch.File
        /// The report's errors and damage (its warnings change nothing in the commit).
        var problems: [ProbeIssue]
        var notMedia: NotMedia?
        var hash: String?
        /// The partial hash (`--hash sampled|none`): `hash`, or the one it completed (a moved file's).
        var sampleHash: String?
        /// Its facts were those of the file that vanished from this path (`MovedFacts`), not a probe's.
        var movedFrom: String?
        var moved: Bool { movedFrom != nil }
        var classification: FileClassification
        /// The facts as stored, held here or set aside in `spooled`; neither for a file that could not be
        /// stat'ed (no file row is written for it).
        var facts: [UInt8]?
        var spooled: SpooledBlob?
        var hasFacts: Bool { facts != nil || spooled != nil }

        init(
            _ file: FolderBatch.File, _ report: ProbeReport, hash: String?, sampleHash: String?? = nil, rules: DerivationRules, spool: BlobSpool? = nil,
            movedFrom: String? = nil
        ) {
            self.file = file
            problems = report.issues.filter { $0.severity != .warning }
            notMedia = report.notMedia
            self.hash = hash
            self.sampleHash = sampleHash ?? hash.flatMap { ContentHasher.isPartial($0) ? $0 : nil }
            self.movedFrom = movedFrom
            classification = rules.classify(report)
            guard file.fingerprint != nil, let encoded = DerivationRules.encode(report) else { return }
            // A spool that cannot take them (a full disk) leaves the facts here.
            if let spool, let s = spool.append(encoded) { spooled = s } else { facts = encoded }
        }
    }

    /// `--hash sampled|none`: a partial hash names duplicate candidates. The new files of a commit whose
    /// partial hash another file shares — a stored one, or another of the commit, of another inode (hard
    /// links are one file) — are hashed in full, and so are the stored ones not yet completed (in the
    /// commit's transaction: `completedHashes`). When fewer than two of them can be read (the other one
    /// moved away), nothing is completed, so the partial hash still matches the moved file's asset.
    /// `unwritten`: the files of folders committed before this one but not in the catalog yet (the batch the
    /// writer holds, the loop's own): they count as stored, and the newest row of a path wins. The versions
    /// read here are recorded in it until their commit is written: a stored row completed by a commit still
    /// in flight reads as not completed in the catalog, and every copy of its content after it read the
    /// file again: with 28 copies of each file a run in which the writer fell behind took 1.1 or 7.4 s
    /// instead of 0.6 s (Benchmarks/README.md, session 28).
    func completePartialHashes(_ c: inout FolderCommit, unwritten: inout UnwrittenPartials) throws {
        let fresh = c.files.indices.filter { c.files[$0].hasNewFacts && c.files[$0].sampleHash != nil }
        guard !fresh.isEmpty else { return }
        var identities: [String: Set<FileIdentity>] = [:]  // partial hash → the new files' identities
        for i in fresh { identities[c.files[i].sampleHash!, default: []].insert(FileIdentity(c.files[i].fingerprint)) }
        // The new files' paths, the unwritten rows sharing a partial hash (the newest of each path), and so the
        // paths whose stored rows are stale: made only when a check below needs them.
        lazy var freshPaths = Set(fresh.map { c.files[$0].path })
        lazy var waiting = unwritten.newestEntries(sharing: Set(identities.keys)).filter { !freshPaths.contains($0.row.path) }
        // Every unwritten row of each hash a link of the new files' one identity (hard links, the benchmark
        // tree's every file): then the newest rows need not be sorted out for the check below.
        let linksOnly = identities.allSatisfy { h, ids in ids.count <= 1 && unwritten.allEntries(sharing: h) { ids.contains($0.identity) } }
        let fromCatalog = try catalog.files(sharingPartialHashes: identities, excluding: freshPaths.union(waiting.map(\.row.path)))
        // Nothing can be completed when every partial hash belongs to one file (inode) only — here, among the
        // unwritten folders and in the catalog (which names only hashes another inode has): the usual case,
        // hard links or the first copy of a file. Then no row is copied out of `unwritten`.
        if fromCatalog.isEmpty
            && (linksOnly
                || identities.allSatisfy({ h, ids in
                    ids.count <= 1 && waiting.allSatisfy { $0.row.sampleHash != h || ids.contains($0.identity) }
                }))
        {
            return
        }
        let stored = fromCatalog + waiting.map(\.row)
        // Full hashes by file version (inode, size, modification time): a hard link of a file hashed in full
        // before, or earlier in this folder, is not read again. `readNow`: versions read by this call, the only
        // ones a stored row's path may borrow (that path may be gone; the version was just read elsewhere).
        var completedBefore: [FileFingerprint: String] = [:]
        for r in stored {
            if let ch = r.contentHash, ch != r.sampleHash { completedBefore[r.fingerprint] = ch }
        }
        var readNow: [FileFingerprint: String] = [:]
        defer { unwritten.read(readNow) }
        /// A version read by this call, or by an earlier one whose commit is not written yet.
        func readBefore(_ f: FileFingerprint) -> String? { readNow[f] ?? unwritten.completion(of: f) }
        /// Reads a version in full by one of its paths, and remembers it (nil: unreadable).
        func read(_ f: FileFingerprint, _ path: String) -> String? {
            guard let full = try? ContentHasher.hash(path: path, mode: .full) else { return nil }
            readNow[f] = full
            return full
        }
        var completed: [String: String] = [:]  // path of a new file → its full hash
        for h in identities.keys {
            let new = fresh.filter { c.files[$0].sampleHash == h }
            let old = stored.filter { $0.sampleHash == h }
            let inodes = Set(new.map { FileIdentity(c.files[$0].fingerprint) }).union(old.map { FileIdentity($0.fingerprint) })
            guard inodes.count > 1 else { continue }
            var fullNew: [(Int, String)] = []
            var fullOld: [CompletedHash] = []
            var readable = Set<FileIdentity>()
            for i in new {
                let f = c.files[i]
                // A moved file's row may hold the full hash its old path was completed to (`MovedFacts`).
                let held = f.contentHash.flatMap { $0 != h ? $0 : nil }
                guard let full = held ?? readBefore(f.fingerprint) ?? completedBefore[f.fingerprint] ?? read(f.fingerprint, f.path) else { continue }
                fullNew.append((i, full))
                readable.insert(FileIdentity(f.fingerprint))
            }
            for r in old {
                if let ch = r.contentHash, ch != h {  // completed earlier
                    readable.insert(FileIdentity(r.fingerprint))
                } else if let full = readBefore(r.fingerprint) ?? read(r.fingerprint, r.path) {
                    fullOld.append(CompletedHash(path: r.path, partial: h, full: full))
                    readable.insert(FileIdentity(r.fingerprint))
                }
            }
            guard readable.count > 1 else { continue }
            for (i, full) in fullNew {
                c.files[i].contentHash = full
                completed[c.files[i].path] = full
            }
            c.completedHashes += fullOld
        }
        guard !completed.isEmpty, var assets = c.assets else { return }
        for k in assets.indices {
            let base = assets[k].root.hasSuffix("/") ? assets[k].root : assets[k].root + "/"
            for (n, r) in assets[k].asset.resources.enumerated() where n < assets[k].resourceHashes.count {
                if let full = completed[base + r.path] { assets[k].resourceHashes[n] = full }
            }
        }
        c.assets = assets
    }

    /// A stored file's judgement from its facts, and its row rewritten when a derived column (role, kind)
    /// changed with the rules (its facts are kept).
    static func classify(_ row: FileRow, _ report: ProbeReport, _ rules: DerivationRules) -> (FileClassification, FileRow?) {
        let c = rules.classify(report)
        guard c.role.rawValue != row.role || c.kind.rawValue != row.kind else { return (c, nil) }
        var r = row
        r.role = c.role.rawValue
        r.kind = c.kind.rawValue
        return (c, r)
    }

    /// A folder's classified files → its commit: failed media left out, the rest assembled into assets.
    static func commit(
        _ classifications: consuming [FileClassification], hashes: [String: String], files: [FileRow], vanished: [String], errors: [ErrorInput],
        root: String, dir: String, runID: Int64, large: Bool = false
    ) -> (FolderCommit, orphans: Int) {
        // A photo or movie that could not be read (no primary image or track) is an error row, not an asset.
        // Filtered where it lies and handed on: a huge folder's judgements are not copied.
        var usable = consume classifications
        usable.removeAll { ($0.role == .image || $0.role == .video) && !$0.errors.isEmpty }
        let albumTitle = usable.first { $0.takeout?.isAlbumMetadata == true }?.takeout?.title
        // The assembly is dropped once its assets are inputs (a closure's scope: 11.5 MB of a 30,000-file folder
        // was held beside the inputs and their column values).
        let (inputs, orphans) = { (assembly: Assembly) in
            let base = root.hasSuffix("/") ? root : root + "/"
            let inputs = assembly.assets.map { a in
                AssetInput(
                    asset: a.asset, root: root, dir: dir, resourceHashes: a.asset.resources.map { hashes[base + $0.path] },
                    metadataSources: a.metadataSources.map { MetadataSourceRef(type: $0.type, path: $0.path) },
                    pairingConfidence: a.pairingConfidence, embeddedVideo: a.embeddedVideo, pairedVideoDuration: a.pairedVideoDuration)
            }
            return (inputs, assembly.orphans.count)
        }(Assembler.assemble(consume usable, root: root))
        var commit = FolderCommit(runID: runID, root: root, dir: dir, files: files, vanished: vanished, assets: inputs, errors: errors)
        commit.takeoutAlbumTitle = albumTitle
        commit.holdsValues = !large
        commit.deriveColumns()
        return (commit, orphans)
    }

    /// What a re-derivation from stored facts did: folders re-derived, folders kept because some file
    /// has no usable facts (probe it again with an ingest), and the change records.
    public struct RederiveSummary: Sendable {
        public var runID: Int64 = 0
        public var folders = 0
        public var files = 0
        public var keptFolders: [String] = []
        public var records: [ChangeRecord] = []
        public var organized: Organizer.Summary?
        public var elapsed: Double = 0
    }

    /// Re-derives stored folders from their facts alone — no source file is opened, so it works with the
    /// roots offline. Folders in `except` (already derived by the running ingest) are left out. Folders are
    /// derived in parallel (decode facts, classify, assemble: pure) and committed in order; a folder that
    /// derives to what it was (its digest in `folder_digest`) is not written.
    public func rederiveStored(runID: Int64, except: PathSet = PathSet(), into s: inout RederiveSummary) throws {
        let rules = options.rules
        let folders = try catalog.folders().filter { !except.contains($0.dir) }
        let digests = try catalog.folderDigests()
        let catalog = self.catalog
        let window = 256
        var start = 0
        while start < folders.count {
            let batch = Array(folders[start..<min(start + window, folders.count)])
            start += batch.count
            let results = ResultBox<FolderDerivation>(count: batch.count)
            DispatchQueue.concurrentPerform(iterations: batch.count) { k in
                let (dir, root) = batch[k]
                results[k] = Result { try Self.derive(dir: dir, root: root, runID: runID, rules: rules, catalog: catalog) }
            }
            for (k, result) in results.values.enumerated() {
                let d = try result.get()
                let dir = batch[k].dir
                guard let commit = d.commit else {
                    if d.files > 0 { s.keptFolders.append(dir) }
                    continue
                }
                s.folders += 1
                s.files += d.files
                if commit.files.isEmpty, digests[dir] == (commit.derived?.digest ?? Catalog.derivationDigest(commit)) { continue }  // nothing changed
                s.records += try catalog.commitFolder(commit)
            }
        }
    }

    /// Files whose stored facts a re-derivation reads at once (`derive`, `Merger.derive`: of a large folder).
    static let deriveFactsWindow = 2048

    /// A folder's `items` a window at a time, each with the stored facts of its files by path: the whole
    /// folder's in one query when it fits in one window, else each window's by path (a large folder's are
    /// not all held: 60 MB at 30,000 files). `body` returns false to stop.
    static func withStoredFacts<E>(
        of items: [E], path: (E) -> String, inDirectory dir: String, from catalog: Catalog, window: Int = deriveFactsWindow,
        _ body: ([E], [String: [UInt8]]) throws -> Bool
    ) throws {
        let window = max(1, window)
        for start in stride(from: 0, to: items.count, by: window) {
            let part = Array(items[start..<min(items.count, start + window)])
            let facts = items.count <= window ? try catalog.facts(inDirectory: dir) : try catalog.facts(paths: part.map(path))
            guard try body(part, facts) else { return }
        }
    }

    /// One folder derived from its stored facts: its commit, or nil when a file has no usable facts.
    struct FolderDerivation: Sendable {
        var commit: FolderCommit?
        var files: Int
    }

    /// `f` of every element, in order; more than 256 elements in slices of 256 on every core (for a folder's
    /// files, whose facts take ~0.1 ms each to decode and judge: folders are derived in parallel, but one big
    /// folder was one thread).
    static func mapInSlices<E: Sendable, T: Sendable>(_ items: [E], _ f: @escaping @Sendable (E) -> T) -> [T] {
        let slice = 256
        guard items.count > slice else { return items.map(f) }
        let slices = (items.count + slice - 1) / slice
        let parts = ResultBox<[T]>(count: slices)
        DispatchQueue.concurrentPerform(iterations: slices) { k in
            parts[k] = .success(items[k * slice..<min(items.count, (k + 1) * slice)].map(f))
        }
        var out: [T] = []
        out.reserveCapacity(items.count)
        for case .success(let part) in parts.values { out += part }  // f does not throw: every slice succeeded
        return out
    }

    static func derive(
        dir: String, root: String, runID: Int64, rules: DerivationRules, catalog: Catalog, window: Int = deriveFactsWindow
    ) throws -> FolderDerivation {
        let rows = try catalog.files(inDirectory: dir)
        // Each file's facts decoded and judged; a big folder's in slices on every core (a decode is ~0.1 ms:
        // a folder of 20,000 files took 2 s on one thread while the other folders were done). A large folder's
        // stored facts are read a window of files at a time (held at once, a 30,000-file folder's were 60 MB).
        var judged: [Known] = []  // stops at the first file without usable facts
        judged.reserveCapacity(rows.count)
        try withStoredFacts(of: rows, path: \.path, inDirectory: dir, from: catalog, window: window) { part, stored in
            let known = mapInSlices(part) { row -> Known? in
                guard row.probeVersion == Prober.version, let blob = stored[row.path], let report = DerivationRules.decode(blob) else { return nil }
                return Known(row, report, rules)
            }
            for k in known {
                guard let k else { return false }
                judged.append(k)
            }
            return true
        }
        guard judged.count == rows.count else { return FolderDerivation(commit: nil, files: rows.count) }
        var classifications: [FileClassification] = []
        var hashes: [String: String] = [:]
        var files: [FileRow] = []
        classifications.reserveCapacity(rows.count)
        for (row, known) in zip(rows, judged) {
            classifications.append(known.c)
            if let h = row.contentHash { hashes[row.path] = h }
            if let rewritten = known.rewritten { files.append(rewritten) }
        }
        guard !rows.isEmpty else { return FolderDerivation(commit: nil, files: 0) }
        let (commit, _) = Self.commit(
            consume classifications, hashes: hashes, files: files, vanished: [], errors: [], root: root, dir: dir, runID: runID,
            large: rows.count >= IngestOptions.defaultLargeFolder)
        return FolderDerivation(commit: commit, files: rows.count)
    }

    /// `shoebox rederive`: every folder derived again from its stored facts (the roots may be offline), the
    /// vanished trashed as an ingest would, organize run, the rules version recorded.
    public func rederiveAll() throws -> RederiveSummary {
        let start = Date()
        var s = RederiveSummary()
        let assetsBefore = try catalog.largestAssetID()
        s.runID = try catalog.beginRun(roots: try catalog.knownRoots())
        let rulesChanged = try catalog.metaValue("rules_version") != String(options.rules.version)
        try rederiveStored(runID: s.runID, into: &s)
        s.records += try catalog.finishRun(
            s.runID, filesSeen: s.files, filesProbed: 0, errors: 0, elapsed: Date().timeIntervalSince(start), prune: false,
            historyRetentionDays: options.historyRetentionDays)
        // Organize (its rules are versioned with the rest) when the rules changed or an asset did, or organize is
        // behind (`Catalog.organizeIsBehind`).
        if options.organize, try rulesChanged || !s.records.isEmpty || PlaceStage.gazetteerChanged(catalog) || catalog.organizeIsBehind() {
            s.organized = try Organizer.run(catalog, runID: s.runID, userSmartAlbums: options.userSmartAlbums, newAssetsAfter: assetsBefore)
        }
        if s.keptFolders.isEmpty { try catalog.setMetaValue("rules_version", String(options.rules.version)) }
        s.elapsed = Date().timeIntervalSince(start)
        return s
    }
}

/// Results written by index from `concurrentPerform` workers (each index by one worker only).
final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Result<T, any Error>?]
    init(count: Int) { items = Array(repeating: nil, count: count) }
    subscript(i: Int) -> Result<T, any Error>? {
        get { lock.withLock { items[i] } }
        set { lock.withLock { items[i] = newValue } }
    }
    var values: [Result<T, any Error>] { lock.withLock { items.map { $0! } } }
}

/// The files of folders committed during an ingest but not in the catalog yet — the batch the writer holds
/// and the loop's own — by partial hash, so `Ingestor.completePartialHashes` finds a new file's duplicate
/// candidates among them with one lookup per hash (it used to walk every pending folder's files, copying
/// each row, for every folder: a sixth of a `--hash none` ingest of many copies). Only files with a
/// partial hash (`--hash sampled|none`) are kept, without their facts.
struct UnwrittenPartials {
    /// A kept row (a reference: looking rows up and ordering them copies no row).
    final class Entry {
        let order: Int
        let row: FileRow
        var identity: FileIdentity { FileIdentity(row.fingerprint) }
        init(order: Int, row: FileRow) {
            self.order = order
            self.row = row
        }
    }
    private var writing: [String: [Entry]] = [:]
    private var pending: [String: [Entry]] = [:]
    private var order = 0
    /// Full hashes `completePartialHashes` read, by version, in the same two generations as the rows: a
    /// stored row completed by a commit not written yet still has its partial hash in the catalog.
    private var writingReads: [FileFingerprint: String] = [:]
    private var pendingReads: [FileFingerprint: String] = [:]

    /// Versions read in full for the loop's batch.
    mutating func read(_ hashes: [FileFingerprint: String]) { pendingReads.merge(hashes) { a, _ in a } }

    /// The full hash of a version read for a batch not written yet.
    func completion(of f: FileFingerprint) -> String? { pendingReads[f] ?? writingReads[f] }

    /// A folder commit joined the loop's batch.
    mutating func add(_ c: FolderCommit) {
        for var f in c.files {
            guard let h = f.sampleHash else { continue }
            f.facts = nil
            f.spooledFacts = nil
            order += 1
            pending[h, default: []].append(Entry(order: order, row: f))
        }
    }

    /// The loop's batch was handed to the writer, whose previous batch is in the catalog now.
    mutating func handedOver() {
        writing = pending
        pending = [:]
        writingReads = pendingReads
        pendingReads = [:]
    }

    /// Whether every entry with the partial hash `hash` satisfies `test`.
    func allEntries(sharing hash: String, _ test: (Entry) -> Bool) -> Bool {
        (writing[hash] ?? []).allSatisfy(test) && (pending[hash] ?? []).allSatisfy(test)
    }

    /// The newest entry of each path that has one of the partial hashes `hashes`, newest first.
    func newestEntries(sharing hashes: Set<String>) -> [Entry] {
        var best: [String: Entry] = [:]
        func consider(_ list: [Entry]?) {
            for e in list ?? [] where (best[e.row.path]?.order ?? 0) < e.order { best[e.row.path] = e }
        }
        for h in hashes {
            consider(writing[h])
            consider(pending[h])
        }
        return best.values.sorted { $0.order > $1.order }
    }
}
