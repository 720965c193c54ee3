/// Path text, a byte at a time: `split(separator: "/")` builds an array of every component of a long path
/// (tens of thousands of instructions a call, several calls a file in an ingest) to take one of them.
public enum PathText {
    /// The last component, as `path.split(separator: "/").last` gives it (trailing slashes ignored); nil when
    /// the path has none (empty, or only slashes).
    public static func lastComponent(_ path: String) -> Substring? {
        let bytes = path.utf8, slash = UInt8(ascii: "/")
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[bytes.index(before: end)] == slash { end = bytes.index(before: end) }
        guard end > bytes.startIndex else { return nil }
        let start = bytes[..<end].lastIndex(of: slash).map { bytes.index(after: $0) } ?? bytes.startIndex
        return path[start..<end]
    }

    /// The last component as a string, or the whole path when it has none.
    public static func fileName(_ path: String) -> String { lastComponent(path).map(String.init) ?? path }

    /// Whether the path is non-empty with no leading, trailing or doubled `/` (so splitting it would drop
    /// nothing).
    public static func hasNoEmptyComponent(_ path: String) -> Bool {
        var previous = UInt8(ascii: "/")  // a leading slash counts as doubled
        for b in path.utf8 {
            if b == UInt8(ascii: "/") && previous == b { return false }
            previous = b
        }
        return previous != UInt8(ascii: "/")
    }

    /// Everything before the last `/` (nil without one) and everything after it: a relative path's folder
    /// and file name, empty components kept (`split(separator: "/", omittingEmptySubsequences: false)`).
    public static func parentAndName(_ path: String) -> (parent: Substring?, name: Substring) {
        let bytes = path.utf8
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return (nil, path[...]) }
        return (path[..<slash], path[bytes.index(after: slash)...])
    }

    /// The non-empty components, split at every "/" byte (`split(separator: "/")` splits at "/" characters,
    /// and a name starting with a combining mark joins the "/" before it into another character).
    public static func components(_ path: String) -> [Substring] {
        path.utf8.split(separator: UInt8(ascii: "/")).map { Substring($0) }
    }

    /// `path` relative to `root` when it lies below it ("a/b.jpg" for "/r/a/b.jpg" under "/r"; nil for the root
    /// itself and for anything outside), compared by bytes, as the file system and SQLite tell paths apart:
    /// Swift's `hasPrefix` and `dropFirst` work on characters, where a name starting with a combining mark
    /// joins the "/" before it (the prefix "/r/" is then not found), and text canonically equal but spelled
    /// with other bytes (NFC and NFD) counts as equal.
    public static func relative(_ path: String, to root: String) -> String? {
        below(path, root).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether `path` is `root` or lies below it, by bytes (see `relative(_:to:)`).
    public static func isInside(_ path: String, _ root: String) -> Bool {
        path.utf8.elementsEqual(root.utf8) || below(path, root) != nil
    }

    /// The bytes of `path` after `root` and its "/", when there are any.
    static func below(_ path: String, _ root: String) -> Substring.UTF8View? {
        let p = path.utf8, r = root.utf8, slash = UInt8(ascii: "/")
        var rootEnd = r.endIndex  // without trailing slashes: "/" is the empty prefix of every absolute path
        while rootEnd > r.startIndex, r[r.index(before: rootEnd)] == slash { rootEnd = r.index(before: rootEnd) }
        guard p.starts(with: r[..<rootEnd]) else { return nil }
        let at = p.index(p.startIndex, offsetBy: r.distance(from: r.startIndex, to: rootEnd))
        guard at < p.endIndex, p[at] == slash else { return nil }
        let rest = p[p.index(after: at)...]
        return rest.isEmpty ? nil : rest
    }
}
