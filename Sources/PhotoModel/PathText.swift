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
}
