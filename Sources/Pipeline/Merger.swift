import Catalog
import Classify
import Foundation
import PhotoModel
import MediaProbe
import Organize

/// `shoebox merge`: folds shard catalogs (`shoebox ingest --shard I/N`) into one catalog, then runs what
/// needs the whole library (docs/scale.md).
///
/// Only the per-file work is taken from a shard — file rows, probe facts, error rows (`MergeTables`).
/// Everything else is derived in the merged catalog from those facts, as `shoebox rederive` would: each
/// changed folder is assembled again and committed like an ingest commits it (assets matched by primary path,
/// then by content among vanished ones), so an asset keeps its `localIdentifier` in the merged catalog
/// whichever shard delivered its files and however often the merge runs; then organize (bursts, moments,
/// albums, smart albums) runs once over the whole library. A folder whose file rows and error rows equal
/// the merged catalog's is not touched: a re-merge with one newer shard records only its changes, in the
/// merged catalog's own history (one token sequence).
///
/// A shard owns the folders its assignment (meta `shard`, `ShardAssignment`) gives it under the roots of its
/// latest run: a folder of the merged catalog it owns but no longer holds is gone (its files removed, its
/// assets trashed at the end). A catalog without an assignment (an ordinary ingest) owns everything under
/// its roots. Two shards holding the same folder are refused.
public struct Merger: Sendable {
    public struct Shard: Sendable {
        public var path: String
        public var catalog: Catalog
        public init(path: String, catalog: Catalog) {
            self.path = path
            self.catalog = catalog
        }
    }

    public struct ShardSummary: Sendable {
        public var path: String
        public var assignment: String
        public var folders = 0
        public var foldersChanged = 0
        public var filesWritten = 0
        public var filesRemoved = 0
    }

    public struct Summary: Sendable {
        public var runID: Int64 = 0
        public var shards: [ShardSummary] = []
        public var foldersChanged = 0
        public var inserted = 0
        public var updated = 0
        public var deleted = 0
        public var organized: Organizer.Summary?
        public var collectionRecords = 0
        public var elapsed: Double = 0
        public var counts: [(String, Int)] = []
        public var currentToken = ""
    }

    public struct MergeError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public let catalog: Catalog
    public let shards: [Shard]
    public var rules = DerivationRules.current
    /// A folder of at least this many files is large (see `IngestOptions.largeFolder`); tests set 1.
    var largeFolder = IngestOptions.defaultLargeFolder
    public var historyRetentionDays: Int? = 30
    public var userSmartAlbums: [SmartAlbumDefinition] = []
    public var organize = true

    public init(into catalog: Catalog, shards: [Shard]) {
        self.catalog = catalog
        self.shards = shards
    }

    /// A folder that differs between a shard and the merged catalog.
    struct Change {
        var shard: Int
        var dir: String
        /// Some of its files are gone: it is committed before the others (see `run`).
        var vanishing: Bool
    }

    /// One folder that differs, with its rows.
    struct Plan: Sendable {
        var shard: Int
        var dir: String
        var root: String
        var files: [MergeFile]
        var old: [MergeFile]
        var errors: [ErrorInput]
        var oldErrors: [ErrorInput]
        var vanished: [String] {
            let now = Set(files.map(\.row.path))
            return old.map(\.row.path).filter { !now.contains($0) }
        }
    }

    public func run() throws -> Summary {
        let start = Date()
        var summary = Summary()
        let ownColumns = try catalog.fileColumnNames()
        let mergedFolders = try catalog.folders()
        let mergedErrors = try catalog.currentErrors()
        var claimed: [String: Int] = [:]  // folder → the shard that holds it
        var changes: [Change] = []  // folders that differ: only their names are kept (10M files do not fit)
        var extras: [[String]] = []
        var shardErrors: [[String: [ErrorInput]]] = []
        var errorCount = 0
        var allRoots = Set<String>()
        for (k, shard) in shards.enumerated() {
            let s = shard.catalog
            let text = try s.metaValue(ShardAssignment.metaKey)
            guard let assignment = text.map({ ShardAssignment($0) }) ?? ShardAssignment(index: 0, count: 1) else {
                throw MergeError(description: "\(shard.path): unreadable shard assignment '\(text ?? "")' (meta shard)")
            }
            if let run = try s.incompleteRun() {
                // Folders it did not reach yet would look deleted.
                throw MergeError(
                    description:
                        "\(shard.path): its ingest (run \(run.id), started \(run.startedAt)) is \(run.status), not finished: run that shard again to the end before merging"
                )
            }
            let roots = try s.latestRunRoots()
            allRoots.formUnion(roots)
            var report = ShardSummary(path: shard.path, assignment: text ?? "whole library")
            let extra = Catalog.extraFileColumns(ownColumns, try s.fileColumnNames())
            let errors = try s.currentErrors()
            extras.append(extra)
            shardErrors.append(errors)
            // The folders this shard speaks for: those it holds, and those of the merged catalog its
            // assignment gives it (gone from the shard: gone from the library).
            var dirs = Set(try s.folders().map(\.dir)).union(errors.keys)
            for dir in dirs {
                if let other = claimed[dir] {
                    throw MergeError(
                        description:
                            "\(dir) is in both \(shards[other].path) and \(shard.path): shards must come from one 'ingest --shard I/N' with the same N"
                    )
                }
                claimed[dir] = k
            }
            report.folders = dirs.count
            func owned(_ dir: String) -> Bool {
                guard let root = roots.filter({ PathText.isInside(dir, $0) }).max(by: { $0.count < $1.count }) else {
                    return false
                }
                return assignment.ownsFiles(inFolder: dir, root: root)
            }
            for dir in mergedFolders.map(\.dir) + Array(mergedErrors.keys) where claimed[dir] == nil && owned(dir) {
                dirs.insert(dir)
            }
            let sorted = dirs.sorted()
            var i = 0
            while i < sorted.count {
                let batch = Array(sorted[i..<min(i + 256, sorted.count)])
                i += batch.count
                let new = try s.mergeFiles(inDirectories: batch, extraColumns: extra)
                let old = try catalog.mergeFiles(inDirectories: batch, extraColumns: extra)
                for dir in batch {
                    let p = Plan(
                        shard: k, dir: dir, root: new[dir]?.first?.row.root ?? old[dir]?.first?.row.root ?? dir,
                        files: new[dir] ?? [],
                        old: old[dir] ?? [], errors: errors[dir] ?? [], oldErrors: mergedErrors[dir] ?? [])
                    if p.files == p.old && p.errors == p.oldErrors { continue }
                    changes.append(Change(shard: k, dir: dir, vanishing: !p.vanished.isEmpty))
                    errorCount += p.errors.count
                    report.foldersChanged += 1
                    let before = Dictionary(p.old.map { ($0.row.path, $0) }, uniquingKeysWith: { a, _ in a })
                    report.filesWritten += p.files.filter { before[$0.row.path] != $0 }.count
                    report.filesRemoved += p.vanished.count
                }
            }
            summary.shards.append(report)
        }

        let assetsBefore = try catalog.largestAssetID()
        summary.runID = try catalog.beginRun(roots: allRoots.sorted())
        // Folders that lost files first: their assets wait as vanishing, so a file moved into a folder of
        // another shard is matched to its asset by content (it keeps its identifier) as in one ingest.
        // Then in the order one ingest walks (depth first, names in byte order), so that assets are numbered as
        // one ingest numbers them and ties (equal dates) fall the same way in moments and albums.
        let walkOrder = changes.sorted { Self.walkOrder($0.dir, $1.dir) }
        let ordered = walkOrder.filter(\.vanishing) + walkOrder.filter { !$0.vanishing }
        var records: [ChangeRecord] = []
        var i = 0
        while i < ordered.count {
            // A window of folders: rows read again, derived in parallel (decode facts, classify, assemble: pure),
            // committed in order, one transaction each.
            let window = Array(ordered[i..<min(i + 256, ordered.count)])
            i += window.count
            var new: [String: [MergeFile]] = [:]
            var old: [String: [MergeFile]] = [:]
            for (k, group) in Dictionary(grouping: window, by: \.shard) {
                let dirs = group.map(\.dir)
                new.merge(try shards[k].catalog.mergeFiles(inDirectories: dirs, extraColumns: extras[k])) { a, _ in a }
                old.merge(try catalog.mergeFiles(inDirectories: dirs, extraColumns: extras[k])) { a, _ in a }
            }
            let plans = window.map { c in
                Plan(
                    shard: c.shard, dir: c.dir, root: new[c.dir]?.first?.row.root ?? old[c.dir]?.first?.row.root ?? c.dir,
                    files: new[c.dir] ?? [], old: old[c.dir] ?? [], errors: shardErrors[c.shard][c.dir] ?? [],
                    oldErrors: mergedErrors[c.dir] ?? [])
            }
            let results = ResultBox<FolderCommit>(count: plans.count)
            let runID = summary.runID
            DispatchQueue.concurrentPerform(iterations: plans.count) { k in
                results[k] = Result { try derive(plans[k], runID: runID) }
            }
            for (p, result) in zip(plans, results.values) {
                records += try catalog.commitMergedFolder(
                    try result.get(), files: p.files, errors: p.errors, replacing: Set(p.oldErrors.map(\.path)))
                summary.foldersChanged += 1
            }
        }
        try catalog.setMetaValue("rules_version", String(rules.version))
        let files = summary.shards.reduce(0) { $0 + $1.filesWritten }
        records += try catalog.finishRun(
            summary.runID, filesSeen: files, filesProbed: 0, errors: errorCount, elapsed: Date().timeIntervalSince(start),
            prune: false,
            historyRetentionDays: historyRetentionDays)
        for r in records {
            switch r.changeType {
            case "inserted": summary.inserted += 1
            case "updated": summary.updated += 1
            case "deleted" where r.isMerge: summary.inserted -= 1  // a move, found late
            default: summary.deleted += 1
            }
        }
        let neverOrganized = try catalog.collectionCount(type: .smartAlbum) == 0
        if organize && (!records.isEmpty || neverOrganized || !userSmartAlbums.isEmpty) {
            let o = try Organizer.run(catalog, runID: summary.runID, userSmartAlbums: userSmartAlbums, newAssetsAfter: assetsBefore)
            summary.organized = o
            summary.collectionRecords = o.records
        }
        summary.elapsed = Date().timeIntervalSince(start)
        summary.counts = try catalog.summaryCounts()
        summary.currentToken = try catalog.currentToken()
        return summary
    }

    /// Whether folder `a` comes before `b` in a depth-first walk that visits names in byte order.
    static func walkOrder(_ a: String, _ b: String) -> Bool {
        let x = a.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        let y = b.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for (p, q) in zip(x, y) where !p.elementsEqual(q) { return p.lexicographicallyPrecedes(q) }
        return x.count < y.count
    }

    /// A changed folder's commit: its files with the shard's facts, its assets assembled from them. A large
    /// folder's facts are read a window of files at a time and wait in a spool file for the commit, as an
    /// ingest's do (held at once, a 30,000-file folder's were 60 MB, and its column values 33 MB more).
    func derive(_ p: Plan, runID: Int64) throws -> FolderCommit {
        let shard = shards[p.shard]
        let large = p.files.count >= largeFolder
        let spool = large ? Ingestor.factsSpool(for: catalog) : nil
        // Each file's facts decoded and judged, a big folder's in slices on every core; the checks below in order.
        let rules = self.rules
        var classifications: [FileClassification] = []
        var hashes: [String: String] = [:]
        var rows: [FileRow] = []
        try Ingestor.withStoredFacts(of: p.files, path: \.row.path, inDirectory: p.dir, from: shard.catalog) { part, facts in
            let judged: [FileClassification?] = Ingestor.mapInSlices(part) { f in
                guard f.row.probeVersion == Prober.version, let blob = facts[f.row.path], let report = DerivationRules.decode(blob) else { return nil }
                return rules.classify(report)
            }
            for (f, judgement) in zip(part, judged) {
                var row = f.row
                if let version = row.probeVersion {
                    guard version == Prober.version else {
                        throw MergeError(
                            description:
                                "\(shard.path): \(row.path) was probed by probe version \(version), this Shoebox has \(Prober.version): run the shard's ingest again with this binary"
                        )
                    }
                    guard let blob = facts[row.path], let judgement else {
                        throw MergeError(description: "\(shard.path): the stored facts of \(row.path) cannot be read")
                    }
                    if let spooled = spool?.append(blob) { row.spooledFacts = spooled } else { row.facts = blob }
                    classifications.append(judgement)
                }
                if let h = row.contentHash { hashes[row.path] = h }
                rows.append(row)
            }
            return true
        }
        var (commit, _) = Ingestor.commit(
            classifications, hashes: hashes, files: rows, vanished: p.vanished, errors: [], root: p.root, dir: p.dir, runID: runID,
            large: large
        )
        if p.files.isEmpty && p.old.isEmpty { commit.assets = nil }  // error rows only: no assets here before or now
        return commit
    }
}
