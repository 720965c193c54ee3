import MediaProbe

/// A set of paths held as their 128-bit digests (`NameDigest`): 16 bytes a path, where a `Set<String>`
/// holds each path's own storage too (~150 bytes for a folder path of ~100 characters, with its slot).
/// Paths are told apart by their UTF-8 bytes, as the file system names them (a `Set<String>` takes the
/// composed and decomposed spellings of "é" for one name, where a Linux folder can hold both).
///
/// The ingest keeps every folder it walked, to tell the catalog's folders it did not reach (vanished, or
/// now excluded) at the end: 21.7k folders at 100k files were ~3.7 MB of the walk's heap and would grow
/// with the tree (Benchmarks/README.md, session 16); as digests they are ~0.5 MB. Two different paths
/// share a digest with a probability of about n²/2¹²⁹ (n = 10⁶ folders: ~10⁻²⁷), so membership is
/// treated as exact.
public struct PathSet: Sendable {
    private var digests = Set<NameDigest>()

    public init() {}

    public var count: Int { digests.count }

    public func contains(_ path: String) -> Bool { digests.contains(NameDigest(path)) }

    public mutating func insert(_ path: String) { digests.insert(NameDigest(path)) }

    public mutating func formUnion(_ paths: some Sequence<String>) {
        for p in paths { insert(p) }
    }

    public mutating func formUnion(_ other: PathSet) { digests.formUnion(other.digests) }
}
