#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Catalog
import Foundation
import MediaProbe
import PhotoModel
import Synchronization

/// The stored facts and hashes of files that vanished from their paths during a run, so a file met at a new
/// path — a folder renamed or moved ("Camera" → "Camera 2023"), files moved to a folder walked after theirs —
/// takes them over instead of being read again.
///
/// A probe's report is a function of the file's name and its bytes: the name decides whether a file is held
/// to a media claim and what is not media (`NotMediaRule`), and nothing else of the path is read. The bytes
/// are the same when the version is (device, inode, size, modification time: what makes a file unchanged in
/// place). So a file at a new path with the **same name** and the same version as a vanished one gets the
/// vanished one's facts with the path replaced — the facts a probe would write, byte for byte — and its
/// hash when it is the kind this run's `--hash` mode makes. A file given another name with the same
/// extension gets them too when they are a media file's (`sameFacts`); another extension is probed.
///
/// The vanished rows' facts are read when their folder is taken in (before any folder after it is handed to
/// the workers, and before the folder's commit deletes them) and set aside in a `BlobSpool`; what is held is
/// ~200 bytes a file. Files moved into a folder walked before the one they left are found the other way: the
/// folder's files at unknown paths are looked up by version among the stored files (`registerMoved(into:)`),
/// and among the rows an interrupted run kept for the next (`keepForNextRun`, `moved_out`). Only files whose
/// stored status is `ok`, `damaged` or `skipped` are taken over: an error may be transient, and a file with
/// one is read again, as it would be in place.
final class MovedFacts: Sendable {
    struct Entry: Sendable {
        /// The path the file vanished from, and its last component.
        var path: String
        var name: Substring
        var contentHash: String?
        var sampleHash: String?
        /// The stored row's status (`ok`, `damaged`, `skipped`).
        var status: String
        var facts: SpooledBlob
        /// A file at a new path took it over: another link of the same file (hard links share the version and,
        /// in copies of a tree, the name) takes the next entry, so each keeps the path it left.
        var taken = false
    }

    /// The entries of one version, in the order they were set aside. Entries before `untaken` are all taken,
    /// so the links of a file copied many times (a tree of hard-linked replicas: hundreds of entries of one
    /// name) each find theirs without walking the ones taken before.
    struct Group: Sendable {
        var list: [Entry] = []
        var untaken = 0

        /// The first entry of `name` not taken yet (marked taken), else the first of the name, else the first
        /// of another name with the same extension (not marked: the facts may not do for the new name).
        mutating func take(_ name: Substring) -> (entry: Entry, sameName: Bool)? {
            while untaken < list.count && list[untaken].taken { untaken += 1 }
            if let i = list[untaken...].firstIndex(where: { !$0.taken && $0.name == name }) {
                list[i].taken = true
                return (list[i], true)
            }
            if let e = list.first(where: { $0.name == name }) { return (e, true) }
            let ext = NotMediaRule.fileExtension(String(name))
            return list.first { NotMediaRule.fileExtension(String($0.name)) == ext }.map { ($0, false) }
        }
    }

    /// A vanished file's facts for a file at a new path: its report (path replaced) and hashes.
    struct TakenOver {
        var report: ProbeReport
        var hash: String?
        var sampleHash: String?
        /// The path the file vanished from.
        var from: String
        /// The stored hashes are not of the kind this run makes (a catalog hashed with another `--hash` mode):
        /// the file is hashed, not probed.
        var needsHash = false
    }

    private let catalog: Catalog
    private let registering = NSLock()
    private let window: Int
    private let state = Mutex<
        (entries: [FileFingerprint: Group], spool: BlobSpool?, noSpool: Bool, registered: Set<String>, keptLookedUp: Set<FileFingerprint>)
    >(([:], nil, false, [], []))

    /// Whether a folder's new files are looked up in the catalog by version (`registerMoved(into:)`): not in a
    /// first ingest, whose catalog was empty (and whose inode index is built at its end).
    let looksUpVersions: Bool
    /// Whether an interrupted run kept set-aside rows (`moved_out`) when this run started.
    let keptByInterruptedRun: Bool

    init(catalog: Catalog, window: Int = 2048, looksUpVersions: Bool = true) {
        self.catalog = catalog
        self.window = max(1, window)
        self.looksUpVersions = looksUpVersions
        keptByInterruptedRun = looksUpVersions && ((try? catalog.holdsMovedOut()) ?? false)
    }

    /// Whether any vanished file is held (while none is, folders are prepared without it: no lookup per file).
    var isEmpty: Bool { state.withLock { $0.entries.isEmpty } }

    /// The rows of `stored` (one folder's stored files) whose paths are not among `present` (the files
    /// walked there): those that vanish with this folder's commit. Every row when the folder is gone.
    static func vanished(_ stored: [FileRow], present files: [FolderBatch.File]) -> [FileRow] {
        guard !stored.isEmpty else { return [] }
        if files.isEmpty { return stored }
        let present = Set(files.map(\.path))
        return stored.filter { !present.contains($0.path) }
    }

    /// Sets aside the facts of `rows` (files vanishing from their paths) that could be taken over; returns how
    /// many were. A spool that cannot be opened (nowhere to write) holds nothing: those files are probed.
    /// `facts`: the rows' facts when the caller has them (rows an interrupted run kept, `moved_out`), else
    /// they are read from the catalog.
    @discardableResult
    func register(_ rows: [FileRow], facts given: [String: [UInt8]]? = nil) throws(CatalogError) -> Int {
        var usable = rows.filter { r in
            r.probeVersion == Prober.version && (r.status == "ok" || r.status == "damaged" || r.status == "skipped")
        }
        guard !usable.isEmpty else { return 0 }
        // A row is set aside once: found by version for a file moved into a folder walked first, it is met again
        // when its own folder is taken in.
        usable = state.withLock { s in usable.filter { s.registered.insert($0.path).inserted } }
        guard !usable.isEmpty else { return 0 }
        let spool: BlobSpool? = state.withLock { s in
            if s.spool == nil && !s.noSpool {
                s.spool = Ingestor.factsSpool(for: catalog)
                s.noSpool = s.spool == nil
            }
            return s.spool
        }
        guard let spool else { return 0 }
        var added = 0
        for start in stride(from: 0, to: usable.count, by: window) {
            let part = usable[start..<min(usable.count, start + window)]
            let blobs: [String: [UInt8]]
            if let given { blobs = given } else { blobs = try catalog.facts(paths: part.map(\.path)) }
            var entries: [(FileFingerprint, Entry)] = []
            entries.reserveCapacity(part.count)
            for r in part {
                guard let blob = blobs[r.path], let spooled = spool.append(blob) else { continue }
                entries.append(
                    (r.fingerprint, Entry(
                        path: r.path, name: PathText.parentAndName(r.path).name, contentHash: r.contentHash, sampleHash: r.sampleHash,
                        status: r.status, facts: spooled)))
            }
            added += entries.count
            state.withLock { s in
                for (fp, e) in entries { s.entries[fp, default: Group()].list.append(e) }
            }
        }
        return added
    }

    /// Sets aside the stored rows that `files` (a folder's files at paths the catalog does not know) were
    /// catalogued under before they moved: rows of the same version (device, inode, size, modification time)
    /// whose path no longer holds that file (gone, or another file there now). Those are the files moved into
    /// a folder walked before the one they left, whose rows are otherwise set aside only at that folder's
    /// turn — after the files were read again (`register` tells the rest). A row whose path still holds the
    /// file is another link of it, not a move: its link here is probed. Returns how many were set aside.
    @discardableResult
    func registerMoved(into files: [FolderBatch.File]) throws(CatalogError) -> Int {
        guard looksUpVersions else { return 0 }
        // One folder's lookup at a time: a folder prepared meanwhile with the same versions waits until what this
        // one sets aside is there to take, rather than finding the rows claimed and nothing set aside yet.
        registering.lock()
        defer { registering.unlock() }
        // Versions already set aside (a renamed folder's, taken in first) need no lookup among the stored files;
        // what an interrupted run kept is looked up once a version whatever is set aside (a version's links can
        // be split between the kept rows and a gone folder's rows, set aside again in this run).
        let (versions, keptVersions): ([FileFingerprint], [FileFingerprint]) = state.withLock { s in
            var stored: [FileFingerprint] = [], kept: [FileFingerprint] = []
            for f in files where f.error == nil {
                guard let fp = f.fingerprint else { continue }
                if s.entries[fp] == nil { stored.append(fp) }
                if keptByInterruptedRun && !s.keptLookedUp.contains(fp) { kept.append(fp) }
            }
            return (stored, kept)
        }
        guard !versions.isEmpty || !keptVersions.isEmpty else { return 0 }
        let here = Set(files.map(\.path))
        func moved(_ r: FileRow) -> Bool {
            guard !state.withLock({ $0.registered.contains(r.path) }) else { return false }
            var st = stat()
            guard lstat(r.path, &st) == 0 else { return errno == ENOENT || errno == ENOTDIR }
            return Int64(bitPattern: UInt64(st.st_ino)) != r.fingerprint.inode || Int64(bitPattern: UInt64(st.st_dev)) != r.fingerprint.device
        }
        var added = try register(try catalog.files(withVersions: versions).filter { !here.contains($0.path) && moved($0) })
        // What an interrupted run kept (its rows are no longer stored), every row of a version at once (not 8):
        // the links of a file copied into many folders each take one in turn, as when set aside in this run.
        // A file back at the path it left is itself, not another link.
        let kept = try catalog.movedOut(withVersions: keptVersions, perInode: Int.max).filter { here.contains($0.row.path) || moved($0.row) }
        if !kept.isEmpty {
            added += try register(kept.map(\.row), facts: Dictionary(kept.map { ($0.row.path, $0.facts) }, uniquingKeysWith: { a, _ in a }))
        }
        if !keptVersions.isEmpty { state.withLock { s in s.keptLookedUp.formUnion(keptVersions) } }
        return added
    }

    /// Keeps the set-aside rows no file took over, with their facts, for the next run (`Catalog.saveMovedOut`):
    /// what an interrupted run does. A taken one needs no keeping: every folder handed out is committed before
    /// an interrupted run ends, so the file that took it is catalogued at its new path. Facts are read back
    /// from the spool a window at a time (all at once, a renamed folder of 80,000 files held ~120 MB).
    /// Returns how many were kept.
    @discardableResult
    func keepForNextRun() throws(CatalogError) -> Int {
        let entries: [(FileFingerprint, Entry)] = state.withLock { s in
            s.entries.flatMap { fp, g in g.list.filter { !$0.taken }.map { (fp, $0) } }
        }
        var kept = 0
        for start in stride(from: 0, to: entries.count, by: window) {
            let rows: [Catalog.MovedOutRow] = entries[start..<min(entries.count, start + window)].compactMap { fp, e in
                guard let facts = try? e.facts.bytes() else { return nil }
                let row = FileRow(
                    path: e.path, root: "", dir: "", fingerprint: fp, contentHash: e.contentHash, kind: "", role: "", status: e.status,
                    lastError: nil, facts: nil, probeVersion: Prober.version, sampleHash: e.sampleHash)
                return Catalog.MovedOutRow(row: row, facts: facts)
            }
            try catalog.saveMovedOut(rows)
            kept += rows.count
        }
        return kept
    }

    /// The facts of a vanished file for `file`: same version, a name whose facts are the same (`sameFacts`),
    /// facts of this probe that decode, and a hash this run would make. Nil: probe it.
    func takeOver(_ file: FolderBatch.File, mode: HashMode) -> TakenOver? {
        guard let fp = file.fingerprint, file.error == nil else { return nil }
        let name = PathText.parentAndName(file.path).name
        // Taken in place: a copy of the group per file made renaming a tree of many hard-linked replicas quadratic.
        let found = state.withLock { s in s.entries[fp]?.take(name) }
        guard let (e, sameName) = found, let blob = try? e.facts.bytes(), var report = DerivationRules.decode(blob) else { return nil }
        if !sameName && !Self.sameFacts(report, renamedTo: name) { return nil }
        report.path = file.path
        // What a probe does not hash (not media) needs no hash.
        guard Prober.isHashed(report) else { return TakenOver(report: report, hash: nil, sampleHash: nil, from: e.path) }
        guard let hashes = Self.hashes(contentHash: e.contentHash, sampleHash: e.sampleHash, mode: mode, size: fp.size) else {
            return TakenOver(report: report, hash: nil, sampleHash: nil, from: e.path, needsHash: true)
        }
        return TakenOver(report: report, hash: hashes.hash, sampleHash: hashes.sampleHash, from: e.path)
    }

    /// Whether a probe of the file under `name` (another name, the same extension) would write `report` again.
    /// The probe reads a name in three places: a system file's name (`Thumbs.db`, `._x.jpg`) is not media
    /// whatever it holds; an empty or unrecognised file, or JSON, is judged by its name (not media, a Takeout
    /// sidecar); and a media file's extension is checked against its content (a warning, the same for the
    /// same extension). Media content under a name that is not a system file's is therefore the same facts —
    /// a library renamed by date (`IMG_1234.JPG` → `2023-05-01 12.34.56.jpg`) is not read again.
    static func sameFacts(_ report: ProbeReport, renamedTo name: Substring) -> Bool {
        guard report.notMedia == nil, !NotMediaRule.isSystemFile(String(name)) else { return false }
        switch report.kind {
        case .empty, .unknown, .json: return false
        default: return true
        }
    }

    /// The content hash (and partial hash) a file's row gets in `mode` from a stored row's: the hash that
    /// mode makes of a file of this size (`ContentHasher.hash`) must be among them, else nil (it is read).
    /// A partial hash completed before keeps its full hash, as the stored row did: the file it was compared
    /// with may be the one that shares it still.
    static func hashes(contentHash: String?, sampleHash: String?, mode: HashMode, size: Int64) -> (hash: String, sampleHash: String?)? {
        let prefix = ContentHasher.prefix(mode: mode, size: UInt64(max(0, size)))
        guard ContentHasher.isPartial(prefix + "x") else {
            // A whole (or, past the full-hash limit, 16-window) hash: the stored content hash if it is one.
            guard let h = contentHash, h.hasPrefix(prefix) else { return nil }
            return (h, nil)
        }
        let partial = [sampleHash, contentHash].lazy.compactMap { $0 }.first { $0.hasPrefix(prefix) }
        guard let partial else { return nil }
        if let h = contentHash, h != partial, !ContentHasher.isPartial(h) { return (h, partial) }
        return (partial, partial)
    }
}
