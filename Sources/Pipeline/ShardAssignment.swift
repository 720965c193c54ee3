import PhotoModel

/// Which part of a library one shard of a sharded ingest owns (`shoebox ingest --shard I/N`).
///
/// The unit of assignment is a top-level folder of a root: the first path component of a folder relative to
/// the root it was ingested under (files directly in the root form the unit ""). A Google Takeout export
/// extracted as one `Takeout` folder is split one level further: `Takeout/Google Photos/<album>` (and
/// `Takeout/<product>` for other products) are units of their own; Takeout archive parts extracted beside
/// each other (`takeout-…-001/`, `takeout-…-002/`) are top-level folders, so each part is a unit.
///
/// A unit goes to shard `FNV-1a 64(unit's UTF-8 bytes) mod N`. The hash is of the path relative to the root,
/// never of the absolute path, so pods that mount the sources elsewhere agree; a folder is never split, so
/// Live Photo halves, RAW+JPEG, edits and sidecars of one folder are assembled by one shard.
public struct ShardAssignment: Sendable, Equatable, CustomStringConvertible {
    /// 0-based index of this shard.
    public let index: Int
    /// Number of shards.
    public let count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, index >= 0, index < count else { return nil }
        self.index = index
        self.count = count
    }

    /// `I/N` (0 ≤ I < N).
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else { return nil }
        self.init(index: i, count: n)
    }

    public var description: String { "\(index)/\(count)" }

    /// The `meta` key a shard catalog records its assignment under (absent: a whole-library catalog).
    public static let metaKey = "shard"

    /// FNV-1a 64 of a string's UTF-8 bytes.
    public static func fnv1a64(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return h
    }

    /// The shard (of `count`) a unit goes to.
    public static func shard(ofUnit unit: String, count: Int) -> Int { Int(fnv1a64(unit) % UInt64(max(1, count))) }

    /// The unit a folder belongs to, from its path relative to the root ("" for the root itself); nil when
    /// the folder is above the units (the root, `Takeout`, `Takeout/Google Photos`): its own files then form
    /// the unit of its relative path, and its subfolders decide for themselves.
    public static func unit(ofRelativeFolder rel: String) -> String? {
        let c = rel.split(separator: "/", omittingEmptySubsequences: true)
        guard let first = c.first else { return nil }
        guard first == "Takeout" else { return String(first) }
        if c.count >= 2, c[1] != "Google Photos" { return c[0...1].joined(separator: "/") }
        return c.count >= 3 ? c[0...2].joined(separator: "/") : nil
    }

    /// The unit the files directly inside a folder belong to.
    public static func fileUnit(ofRelativeFolder rel: String) -> String { unit(ofRelativeFolder: rel) ?? rel }

    /// Whether this shard walks into a folder (relative to its root): true for folders above the units.
    public func enters(relativeFolder rel: String) -> Bool {
        guard let u = Self.unit(ofRelativeFolder: rel) else { return true }
        return Self.shard(ofUnit: u, count: count) == index
    }

    /// Whether this shard owns the files directly inside a folder (relative to its root).
    public func ownsFiles(inRelativeFolder rel: String) -> Bool {
        Self.shard(ofUnit: Self.fileUnit(ofRelativeFolder: rel), count: count) == index
    }

    /// Whether this shard owns the files of folder `dir` (absolute) ingested under `root` (absolute).
    public func ownsFiles(inFolder dir: String, root: String) -> Bool {
        ownsFiles(inRelativeFolder: Self.relative(dir, to: root))
    }

    /// `dir` relative to `root` ("" when equal; `dir` itself when outside).
    static func relative(_ dir: String, to root: String) -> String {
        if dir.utf8.elementsEqual(root.utf8) { return "" }
        return PathText.relative(dir, to: root) ?? dir
    }
}
