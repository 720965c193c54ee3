import Catalog
import Foundation

/// Removes thumbnail files whose asset is gone.
///
/// A file is pruned when its name follows `ThumbnailRequest.outputURL`'s scheme, it sits in the shard
/// directory that scheme gives it, and its key (cloud identifier + source hash) belongs to no asset in
/// the catalog. Sizes, modes, versions, crops and formats that are not requested today are kept while the
/// asset and its source are: another request may still want them. Anything else in the directory (other
/// files, temporary files of a running render, sub-directories) is never touched.
public struct ThumbnailPruner: Sendable {
    public struct Summary: Sendable {
        public var removed: [String] = []
        public var kept = 0
        public var errors: [Thumbnailer.Failure] = []
    }

    public var outputDirectory: URL
    /// The keys of every asset in the catalog.
    public var keys: Set<ThumbnailKey>

    public init(outputDirectory: URL, keys: Set<ThumbnailKey>) {
        self.outputDirectory = outputDirectory
        self.keys = keys
    }

    /// The keys of a catalog's assets, from `Catalog.cloudIdentifiersWithResourceHashes()` (each resource's
    /// hash; also under the motion-poster name, which a Live Photo's paired movie or embedded motion has).
    public init(outputDirectory: URL, assets: [(cloudIdentifier: String, contentHash: String?)]) {
        self.init(
            outputDirectory: outputDirectory,
            keys: Set(
                assets.flatMap {
                    [
                        ThumbnailKey(cloudIdentifier: $0.cloudIdentifier, sourceHash: $0.contentHash),
                        ThumbnailKey(cloudIdentifier: $0.cloudIdentifier + ThumbnailKey.motionSuffix, sourceHash: $0.contentHash),
                    ]
                }))
    }

    /// With `dryRun`, nothing is deleted: `removed` lists what would be.
    public func run(dryRun: Bool = false) -> Summary {
        var s = Summary()
        let fm = FileManager.default
        guard let shards = try? fm.contentsOfDirectory(atPath: outputDirectory.path) else { return s }
        for shard in shards.sorted() {
            let dir = outputDirectory.appendingPathComponent(shard, isDirectory: true)
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: dir.path, isDirectory: &isDir), isDir.boolValue,
                let names = try? fm.contentsOfDirectory(atPath: dir.path)
            else { continue }
            for name in names.sorted() {
                if let final = OutputFile.temporaryTarget(ofName: name), let key = ThumbnailKey(fileName: final), key.shard == shard {
                    // A render's temporary file (`.<name>.<UUID>.tmp`) left by a killed run; an hour old, so
                    // never one a running render is still writing.
                    let path = dir.appendingPathComponent(name).path
                    var st = stat()
                    guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, time(nil) - st.st_mtim.tv_sec > 3600 else { continue }
                    if dryRun || unlink(path) == 0 { s.removed.append(path) }
                    continue
                }
                guard let key = ThumbnailKey(fileName: name), key.shard == shard else { continue }
                let path = dir.appendingPathComponent(name).path
                var st = stat()
                guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
                if keys.contains(key) {
                    s.kept += 1
                } else if dryRun || unlink(path) == 0 {
                    s.removed.append(path)
                } else {
                    s.errors.append(.init(path: path, stage: "prune", reason: String(cString: strerror(errno))))
                }
            }
        }
        return s
    }
}
