#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import PhotoModel

/// What identifies an unchanged file: size, modification time, inode and device.
public struct FileFingerprint: Sendable, Equatable, Hashable, Codable {
    public var size: Int64
    public var mtimeNanoseconds: Int64
    public var inode: Int64
    public var device: Int64

    public init(size: Int64, mtimeNanoseconds: Int64, inode: Int64, device: Int64) {
        self.size = size
        self.mtimeNanoseconds = mtimeNanoseconds
        self.inode = inode
        self.device = device
    }
}

/// A file's identity on its device: hard links share it.
public struct FileIdentity: Sendable, Hashable {
    public var device: Int64
    public var inode: Int64

    public init(device: Int64, inode: Int64) {
        self.device = device
        self.inode = inode
    }

    public init(_ f: FileFingerprint) { self.init(device: f.device, inode: f.inode) }
}

/// One row of the `file` table.
public struct FileRow: Sendable, Equatable {
    public var path: String
    public var root: String
    public var dir: String
    public var fingerprint: FileFingerprint
    public var contentHash: String?
    public var kind: String
    public var role: String
    public var status: String
    public var lastError: String?
    /// The file's probe facts (a `ProbeReport` as JSON) when they are being written; nil on rows read back
    /// (`probeVersion` says whether facts are stored) and on rows whose stored facts are kept.
    public var facts: [UInt8]?
    /// New facts set aside in a spool instead of `facts` (a very large folder's files; see `BlobSpool`).
    public var spooledFacts: SpooledBlob?
    /// The version of the probe that wrote the stored facts; nil when none are stored.
    public var probeVersion: Int?
    /// For a skipped file (`status` "skipped": not media): what it looks like (`text`, `json`, `system`…).
    public var skipCategory: String?
    /// The partial hash (`xxh128w:` sampled, `xxh128h:` head) of an ingest with `--hash sampled|none`; kept
    /// when `contentHash` is completed to a full hash: files that share it are duplicate candidates.
    public var sampleHash: String?

    public init(
        path: String, root: String, dir: String, fingerprint: FileFingerprint, contentHash: String?, kind: String, role: String,
        status: String, lastError: String?, facts: [UInt8]?, probeVersion: Int?, skipCategory: String? = nil,
        sampleHash: String? = nil, spooledFacts: SpooledBlob? = nil
    ) {
        self.path = path
        self.root = root
        self.dir = dir
        self.fingerprint = fingerprint
        self.contentHash = contentHash
        self.kind = kind
        self.role = role
        self.status = status
        self.lastError = lastError
        self.facts = facts
        self.probeVersion = probeVersion
        self.skipCategory = skipCategory
        self.sampleHash = sampleHash
        self.spooledFacts = spooledFacts
    }

    /// Whether the row carries facts to write (in memory or spooled).
    public var hasNewFacts: Bool { facts != nil || spooledFacts != nil }
}

/// An assembled asset to store, with what only the pipeline knows (hashes, root).
public struct AssetInput: Sendable, Equatable {
    public var asset: Asset
    public var root: String
    /// Absolute folder of the primary resource.
    public var dir: String
    /// Content hash per resource, aligned with `asset.resources`.
    public var resourceHashes: [String?]
    public var metadataSources: [MetadataSourceRef]
    public var pairingConfidence: String?
    public var embeddedVideo: ResourceRange?
    public var pairedVideoDuration: Double?

    public init(
        asset: Asset, root: String, dir: String, resourceHashes: [String?], metadataSources: [MetadataSourceRef] = [],
        pairingConfidence: String? = nil, embeddedVideo: ResourceRange? = nil, pairedVideoDuration: Double? = nil
    ) {
        self.asset = asset
        self.root = root
        self.dir = dir
        self.resourceHashes = resourceHashes
        self.metadataSources = metadataSources
        self.pairingConfidence = pairingConfidence
        self.embeddedVideo = embeddedVideo
        self.pairedVideoDuration = pairedVideoDuration
    }

    public var primaryHash: String? { resourceHashes.first ?? nil }

    /// The absolute paths of the asset's resources (the `file.path` of each), in order.
    var resourcePaths: [String] {
        let base = root.hasSuffix("/") ? root : root + "/"
        return asset.resources.map { base + $0.path }
    }
}

public struct MetadataSourceRef: Sendable, Equatable, Codable {
    public var type: String
    public var path: String

    public init(type: String, path: String) {
        self.type = type
        self.path = path
    }
}

/// How bad an error row is.
///
/// `damaged`: the primary image or track was found but the bytes are cut or inconsistent; the file is
/// catalogued. `failed`: the file could not be catalogued at all (unreadable, no primary image or track,
/// over the time budget), or a later stage (thumbnails) failed for it.
public enum ErrorSeverity: String, Sendable, Codable, CaseIterable {
    case damaged, failed
}

/// An error row: a file that could not be read, with the stage and the reason.
public struct ErrorInput: Sendable, Equatable, Codable {
    public var path: String
    public var stage: String
    public var reason: String
    public var severity: ErrorSeverity

    public init(path: String, stage: String, reason: String, severity: ErrorSeverity = .failed) {
        self.path = path
        self.stage = stage
        self.reason = reason
        self.severity = severity
    }
}

/// Everything one folder contributes to a commit. Applied in one transaction.
public struct FolderCommit: Sendable {
    public var runID: Int64
    public var root: String
    public var dir: String
    /// Files seen in the folder this run whose rows need writing (new or changed; unchanged ones are left).
    public var files: [FileRow]
    /// Files of the folder that are gone.
    public var vanished: [String]
    /// The folder's assets, re-assembled (nil: the folder's assets are unchanged).
    public var assets: [AssetInput]? { didSet { derived = nil } }
    public var errors: [ErrorInput]
    /// The title of a Google Takeout album `metadata.json` in this folder (nil: none), when re-assembled.
    public var takeoutAlbumTitle: String? { didSet { derived = nil } }
    /// Each asset's column values and the folder's derivation digest, made by `deriveColumns()` before the
    /// commit reaches the writer (which otherwise makes them: they were a fifth of its work, and the last
    /// batch of a walk is written while every other thread waits). Changing `assets` or `takeoutAlbumTitle`
    /// forgets them. `values` is nil when `holdsValues` is false.
    public internal(set) var derived: (values: [Catalog.ColumnValues]?, digest: String)?
    /// False for a very large folder: its assets' column values (~1.1 KB an asset, 33 MB of a 30,000-file
    /// folder) are not held for the commit but made by the writer one asset at a time, and the digest from
    /// them as they are made.
    public var holdsValues = true
    /// Stored files (of other folders) whose partial hash was completed to a full one for this commit: their
    /// `file` and `resource` rows get the full hash in the same transaction.
    public var completedHashes: [CompletedHash] = []
    /// Files of this folder that took over the facts of a file gone from another path this run (`MovedFacts`):
    /// new path → the path it left. Their assets are matched first by that path.
    public var movedFrom: [String: String] = [:]

    /// Makes `derived` (on the caller's thread: a probe worker's, not the writer's).
    public mutating func deriveColumns() {
        guard let assets else { return }
        guard holdsValues else {
            derived = (nil, Catalog.derivationDigest(self))
            return
        }
        let values = assets.map(Catalog.values)
        derived = (values, Catalog.derivationDigest(self, columnValues: values))
    }

    public init(runID: Int64, root: String, dir: String, files: [FileRow], vanished: [String], assets: [AssetInput]?, errors: [ErrorInput]) {
        self.runID = runID
        self.root = root
        self.dir = dir
        self.files = files
        self.vanished = vanished
        self.assets = assets
        self.errors = errors
    }
}

/// A stored file's partial content hash completed to a full one (see `FileRow.sampleHash`).
public struct CompletedHash: Sendable, Equatable {
    public var path: String
    public var partial: String
    public var full: String

    public init(path: String, partial: String, full: String) {
        self.path = path
        self.partial = partial
        self.full = full
    }
}

/// One persistent-history record.
public struct ChangeRecord: Sendable, Equatable, Codable {
    public var token: Int64
    public var objectType: String
    public var localIdentifier: String
    public var changeType: String
    public var properties: [String]

    public init(token: Int64, objectType: String, localIdentifier: String, changeType: String, properties: [String]) {
        self.token = token
        self.objectType = objectType
        self.localIdentifier = localIdentifier
        self.changeType = changeType
        self.properties = properties
    }
}

/// An asset read back from the catalog.
public struct StoredAsset: Sendable, Equatable {
    public var localIdentifier: String
    public var cloudIdentifier: String
    public var root: String
    public var asset: Asset
    public var isTrashed: Bool
    public var metadataSources: [MetadataSourceRef]
    public var resourceHashes: [String?]
}

/// An error row read back.
public struct StoredError: Sendable, Equatable, Codable {
    public var runID: Int64
    public var path: String
    public var stage: String
    public var reason: String
    public var at: String
    public var severity: ErrorSeverity
}

/// A file the ingest skipped because it is not media (never an error).
public struct SkippedFile: Sendable, Equatable, Codable {
    public var path: String
    public var category: String
    public var reason: String
}

/// One ingest run, as the catalog records it.
public struct RunInfo: Sendable, Equatable, Codable {
    public var id: Int64
    /// `running`, `finished` or `interrupted`.
    public var status: String
    public var startedAt: String
    public var roots: [String]
    public var pid: Int32?
    public var host: String?

    public init(id: Int64, status: String, startedAt: String, roots: [String], pid: Int32?, host: String?) {
        self.id = id
        self.status = status
        self.startedAt = startedAt
        self.roots = roots
        self.pid = pid
        self.host = host
    }

    /// This machine's name (to tell whether a recorded pid can be checked here).
    public static func hostName() -> String {
        var buf = [CChar](repeating: 0, count: 256)
        guard gethostname(&buf, buf.count) == 0 else { return "" }
        return String(cString: buf)
    }

    /// Whether a process with this pid exists (signal 0 checks without sending anything).
    public static func isAlive(_ pid: Int32) -> Bool {
        pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
    }
}
