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
    /// Files probed at once (default: cores).
    public var concurrency: Int
    /// Delete vanished assets instead of moving them to Recently Deleted.
    public var prune = false
    public var historyRetentionDays: Int? = 30
    public var probeOptions = ProbeOptions()
    /// Count files first so progress can show a total and an ETA.
    public var countFirst = false
    /// Run the organize stage (bursts, moments, albums, smart albums) after the commit.
    public var organize = true
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
    /// Asked at every folder boundary: true stops the run there (SIGINT/SIGTERM); what was committed
    /// stays, the run is marked `interrupted` and the next ingest finishes the job.
    public var stopRequested: (@Sendable () -> Bool)?
    /// Shoebox's own files this run knows by path (the catalog, the thumbnail folder); others are
    /// recognised wherever they sit (see `OwnFiles`).
    public var ownPaths: Set<String> = []

    public init(roots: [String], concurrency: Int) {
        self.roots = roots
        self.concurrency = max(1, concurrency)
    }
}

/// Live progress of an ingest.
public struct IngestProgress: Sendable {
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
    public var foldersChanged = 0
    public var inserted = 0
    public var updated = 0
    public var deleted = 0
    public var errors = 0
    public var orphans = 0
    public var elapsed: Double = 0
    public var counts: [(String, Int)] = []
    public var errorRows: [ErrorInput] = []
    public var currentToken = ""
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

    public var filesPerSecond: Double { elapsed > 0 ? Double(filesSeen) / elapsed : 0 }
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
    }

    public func run(progress: (@Sendable (IngestProgress) -> Void)? = nil) async throws -> IngestSummary {
        let start = Date()
        let roots = options.roots.map { Self.absolute($0) }
        var summary = IngestSummary()
        // A run killed outright is still `running` with a dead pid: it was interrupted. Either way, this run
        // completes it (committed folders are unchanged and cost nothing).
        let reaped = try catalog.reapDeadRuns()
        if let last = try catalog.incompleteRun(), last.status == "interrupted" {
            summary.resumed = [last]
        } else if let r = reaped.last {
            summary.resumed = [r]
        }
        let runID = try catalog.beginRun(roots: roots)
        summary.runID = runID
        let knownRoots = try catalog.knownRoots()
        let own = OwnFiles(paths: options.ownPaths)
        var p = IngestProgress()
        var limits = FileWorkPool.Limits(width: options.concurrency, timeBudget: options.fileTimeBudget)
        limits.maxStuck = options.maxStuckFiles
        let pool = FileWorkPool(limits)
        defer { pool.shutdown() }
        if options.countFirst { p.filesTotal = FolderWalker.countFiles(roots, crawler: options.crawler) }

        rootLoop: for root in roots {
            if summary.interrupted { break rootLoop }
            let walkedDir = Crawler.isDirectory(root) ? root : (root.lastIndex(of: "/").map { String(root[..<$0]) } ?? ".")
            // A folder inside a root the catalog knows keeps that root (its assets and ids); a known root
            // inside this one keeps its own.
            let rootDir = Self.enclosingRoot(of: walkedDir, known: knownRoots) ?? walkedDir
            var walker = FolderWalker(roots: [root], crawler: options.crawler, own: own)
            var visited = Set<String>()
            var unreadable: [String] = []  // folders that could not be listed: what is below them is kept
            var pendingDirs: [String] = []  // known folders that vanished whole
            var vanishedDone = false
            // Folders prepared at once: a few per worker, so the file pool always has queued work while
            // finished folders wait to be assembled and committed in order.
            let width = options.concurrency * 4
            try await withThrowingTaskGroup(of: (Int, Prepared).self) { group in
                var next = 0
                var ready: [Int: Prepared] = [:]
                var emit = 0
                // A window of folders is looked ahead: their fingerprints come in one query, and a folder in
                // which nothing changed is counted right here, without a task or another query.
                let partial = !Crawler.isDirectory(root)  // a file root covers only itself
                var lookahead: [(FolderBatch, [FileRow])] = []
                func nextBatch() throws -> (FolderBatch, [FileRow])? {
                    if lookahead.isEmpty {
                        var batches: [FolderBatch] = []
                        while batches.count < 64, let b = walker.next() {
                            visited.insert(b.dir)
                            if b.error != nil { unreadable.append(b.dir + "/") }
                            batches.append(b)
                        }
                        if batches.isEmpty && !vanishedDone && !summary.interrupted {
                            vanishedDone = true
                            if !partial {
                                pendingDirs = try catalog.directories(under: walkedDir).filter { d in
                                    !visited.contains(d) && !unreadable.contains { d.hasPrefix($0) }
                                }.reversed()
                            }
                        }
                        while batches.isEmpty || (batches.count < 64 && !pendingDirs.isEmpty && walker.isDone) {
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
                        if !partial, Self.isUnchanged(batch, rows, root: folderRoot) {
                            for r in rows where r.status == "skipped" { summary.outcomes.countStoredSkip(r.skipCategory) }
                            summary.filesSeen += batch.files.count
                            summary.filesUnchanged += batch.files.count
                            p.filesDone += batch.files.count
                            p.elapsed = Date().timeIntervalSince(start)
                            progress?(p)
                            continue
                        }
                        let i = next
                        next += 1
                        group.addTask { [self] in
                            (i, try await self.prepare(batch, rows: rows, root: folderRoot, runID: runID, partial: partial, pool: pool))
                        }
                        return
                    }
                }
                for _ in 0..<width { try submit() }
                while let (i, prepared) = try await group.next() {
                    ready[i] = prepared
                    while let r = ready.removeValue(forKey: emit) {
                        emit += 1
                        if let c = r.commit {
                            let records = try catalog.commitFolder(c)
                            summary.foldersChanged += 1
                            for rec in records {
                                switch rec.changeType {
                                case "inserted": summary.inserted += 1
                                case "updated": summary.updated += 1
                                default: summary.deleted += 1
                                }
                            }
                        }
                        summary.filesSeen += r.seen
                        summary.filesProbed += r.probed
                        summary.filesUnchanged += r.unchanged
                        summary.errors += r.errors.count
                        summary.outcomes.add(r.outcomes)
                        summary.orphans += r.orphans
                        summary.errorRows += r.errors.prefix(1000 - min(1000, summary.errorRows.count))
                        p.filesDone += r.seen
                        p.filesProbed += r.probed
                        p.errors += r.errors.count
                        p.folder = r.dir
                        p.elapsed = Date().timeIntervalSince(start)
                        progress?(p)
                    }
                    try submit()
                }
            }
            for (path, why) in walker.ownExcluded {
                summary.outcomes.addOwn(path + " (" + why + ")")
            }
        }
        let stats = pool.statistics
        summary.filesAbandoned = stats.abandoned
        summary.filesSkipped = stats.skipped
        summary.peakConcurrentFiles = stats.peakRunning
        summary.elapsed = Date().timeIntervalSince(start)
        if summary.interrupted {
            // Stopped at a folder boundary: what was committed stays; nothing is trashed (folders not reached
            // would look vanished) and nothing is organized. The next ingest finishes the job.
            try catalog.interruptRun(runID, filesSeen: summary.filesSeen, filesProbed: summary.filesProbed, errors: summary.errors, elapsed: summary.elapsed)
            summary.counts = try catalog.summaryCounts()
            summary.currentToken = try catalog.currentToken()
            return summary
        }
        let records0 = try catalog.finishRun(
            runID, filesSeen: summary.filesSeen, filesProbed: summary.filesProbed, errors: summary.errors,
            damaged: summary.outcomes.damaged, skipped: summary.outcomes.skippedTotal, elapsed: summary.elapsed,
            prune: options.prune, historyRetentionDays: options.historyRetentionDays)
        summary.deleted += records0.count
        // Organize when something changed (or nothing was organized yet): bursts, moments, albums, smart albums.
        let neverOrganized = try catalog.collectionCount(type: .smartAlbum) == 0
        if options.organize && (summary.foldersChanged > 0 || !records0.isEmpty || neverOrganized || !options.userSmartAlbums.isEmpty) {
            let o = try Organizer.run(catalog, runID: runID, userSmartAlbums: options.userSmartAlbums)
            summary.organized = o
        }
        // Thumbnails: every asset's files once (existing ones are skipped by name); failures are error rows.
        if let request = options.thumbnails {
            var o = FetchOptions()
            o.includeAllBurstAssets = true
            o.includeHiddenAssets = true
            var thumbnailer = Thumbnailer(request: request, concurrency: options.concurrency)
            thumbnailer.executor = pool.renderExecutor
            let t = await thumbnailer.run(assets: try catalog.fetchAssets(o))
            try catalog.recordErrors(t.errors.map { ErrorInput(path: $0.path, stage: $0.stage, reason: $0.reason) }, runID: runID)
            summary.errors += t.errors.count
            summary.errorRows += t.errors.prefix(100).map { ErrorInput(path: $0.path, stage: $0.stage, reason: $0.reason) }
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

    /// `absolute(_:)` for callers outside the pipeline (the catalog path given on the command line).
    public static func absolutePath(_ p: String) -> String { absolute(p) }

    /// An absolute path with `.` and `..` removed lexically. Symbolic links are kept as the user wrote them
    /// (Foundation's `standardizingPath` resolves some, which would change the roots the catalog records).
    static func absolute(_ p: String) -> String {
        let full = p.hasPrefix("/") ? p : FileManager.default.currentDirectoryPath + "/" + p
        var parts: [Substring] = []
        for c in full.split(separator: "/", omittingEmptySubsequences: true) {
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
        known.filter { dir == $0 || dir.hasPrefix($0 == "/" ? "/" : $0 + "/") }.min { $0.count < $1.count }
    }

    /// The root a folder's files and assets belong to: the one its rows already carry, else the innermost
    /// known root around it (a new folder beside catalogued ones), else the root being walked.
    static func folderRoot(_ dir: String, rows: [FileRow], known: [String], walkRoot: String) -> String {
        if let r = rows.first?.root, dir == r || dir.hasPrefix(r == "/" ? "/" : r + "/") { return r }
        let inner = known.filter { dir == $0 || dir.hasPrefix($0 == "/" ? "/" : $0 + "/") }.max { $0.count < $1.count }
        guard let inner, inner.count > walkRoot.count else { return walkRoot }
        return inner
    }

    /// Whether nothing in the folder is new, changed or gone.
    static func isUnchanged(_ batch: FolderBatch, _ rows: [FileRow], root: String) -> Bool {
        guard rows.count == batch.files.count else { return false }
        var byPath: [String: FileRow] = [:]
        for r in rows { byPath[r.path] = r }
        for f in batch.files {
            guard let fp = f.fingerprint, let row = byPath[f.path], row.fingerprint == fp, row.classification != nil, row.root == root
            else { return false }
        }
        return true
    }

    /// Probes what changed in one folder (`rows`: its stored fingerprints) and assembles it.
    func prepare(_ batch: FolderBatch, rows: [FileRow], root: String, runID: Int64, partial: Bool = false, pool: FileWorkPool) async throws
        -> Prepared
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
        var byPath: [String: FileRow] = [:]
        for r in rows { byPath[r.path] = r }
        var unchanged: [FileRow] = []
        var toProbe: [FolderBatch.File] = []
        for f in batch.files {
            if let fp = f.fingerprint, let row = byPath[f.path], row.fingerprint == fp, row.classification != nil, row.root == root {
                unchanged.append(row)
            } else {
                toProbe.append(f)
            }
        }
        let present = Set(batch.files.map(\.path))
        var vanished = rows.filter { !present.contains($0.path) }.map(\.path)
        if partial {
            unchanged += rows.filter { !present.contains($0.path) && $0.classification != nil && $0.root == root }
            vanished = []
        }
        var prepared = Prepared(commit: nil, seen: batch.files.count, probed: 0, unchanged: unchanged.count, errors: [], orphans: 0, dir: batch.dir)
        for row in unchanged where row.status == "skipped" { prepared.outcomes.countStoredSkip(row.skipCategory) }
        if toProbe.isEmpty && vanished.isEmpty { return prepared }

        // Probe, classify and hash what is new or changed, in parallel.
        let prober = Prober(options: options.probeOptions)
        let hook = options.beforeProbe
        // Probe, classify and hash on the shared pool, under the per-file time budget, in file order.
        let probed: [(FolderBatch.File, FileClassification, String?, [ProbeIssue], NotMedia?)] = await pool.runBatch(
            toProbe,
            { f, deadline in
                hook?(f.path)
                let report = ProbeRunner.report(for: CrawlEntry(path: f.path, error: f.error), prober: prober, deadline: deadline)
                let c = Classifier.classify(report)
                var hash: String?
                if f.error == nil, c.role != .unsupported, c.role != .notMedia, !report.timedOut {
                    hash = try? ContentHasher.hash(path: f.path, deadline: deadline)
                }
                return (f, c, hash, report.issues, report.notMedia)
            },
            abandoned: { f, budget in
                let r = ProbeRunner.abandonedReport(f.path, budget: budget)
                return (f, Classifier.classify(r), nil, r.issues, nil)
            },
            skipped: { f, stuck in
                let r = ProbeRunner.skippedReport(f.path, stuck: stuck)
                return (f, Classifier.classify(r), nil, r.issues, nil)
            })
        prepared.probed = probed.count

        var files: [FileRow] = []
        var classifications: [FileClassification] = []
        var hashes: [String: String] = [:]
        let enc = JSONEncoder()
        for (f, c, hash, issues, notMedia) in probed {
            let errs = issues.filter { $0.severity == .error }
            let damage = errs.isEmpty ? issues.filter { $0.severity == .damaged } : []
            for e in errs { prepared.errors.append(ErrorInput(path: f.path, stage: e.stage.rawValue, reason: e.reason, severity: .failed)) }
            for d in damage { prepared.errors.append(ErrorInput(path: f.path, stage: d.stage.rawValue, reason: d.reason, severity: .damaged)) }
            prepared.outcomes.count(errors: !errs.isEmpty, damaged: !damage.isEmpty, notMedia: notMedia, path: f.path)
            // A known file that could not be read this time (gone between crawl and probe, a read error, over
            // its time budget): keep what the catalog knows, so its asset is not lost; the next run retries.
            if let row = byPath[f.path], row.classification != nil, row.root == root, errs.contains(where: ProbeRunner.isTransient) {
                unchanged.append(row)
                continue
            }
            if let hash { hashes[f.path] = hash }
            classifications.append(c)
            guard let fp = f.fingerprint else { continue }  // unreadable: an error row, no file row
            let blob = (try? enc.encode(c)).map { [UInt8]($0) }
            let status = notMedia != nil ? "skipped" : !errs.isEmpty ? "error" : !damage.isEmpty ? "damaged" : "ok"
            let note = notMedia?.reason ?? (errs.first ?? damage.first).map { "\($0.stage.rawValue): \($0.reason)" }
            files.append(
                FileRow(
                    path: f.path, root: root, dir: batch.dir, fingerprint: fp, contentHash: hash, kind: c.kind.rawValue,
                    role: c.role.rawValue, status: status, lastError: note, classification: blob, skipCategory: notMedia?.category))
        }

        let dec = JSONDecoder()
        let stored = unchanged.isEmpty ? [:] : try catalog.classifications(inDirectory: batch.dir)
        for row in unchanged {
            if let h = row.contentHash { hashes[row.path] = h }
            if let blob = stored[row.path], let c = try? dec.decode(FileClassification.self, from: Data(blob)) {
                classifications.append(c)
            }
        }

        // A photo or movie that could not be read (no primary image or track) is an error row, not an asset.
        classifications.removeAll { ($0.role == .image || $0.role == .video) && !$0.errors.isEmpty }
        let assembly = Assembler.assemble(classifications, root: root)
        prepared.orphans = assembly.orphans.count
        let base = root.hasSuffix("/") ? root : root + "/"
        let inputs = assembly.assets.map { a in
            AssetInput(
                asset: a.asset, root: root, dir: batch.dir, resourceHashes: a.asset.resources.map { hashes[base + $0.path] },
                metadataSources: a.metadataSources.map { MetadataSourceRef(type: $0.type, path: $0.path) },
                pairingConfidence: a.pairingConfidence, embeddedVideo: a.embeddedVideo, pairedVideoDuration: a.pairedVideoDuration)
        }
        prepared.commit = FolderCommit(
            runID: runID, root: root, dir: batch.dir, files: files, vanished: vanished, assets: inputs, errors: prepared.errors)
        prepared.commit?.takeoutAlbumTitle = classifications.first { $0.takeout?.isAlbumMetadata == true }?.takeout?.title
        return prepared
    }
}
