#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Process limits an ingest adapts to: open files and memory.
///
/// Open descriptors are bounded by construction — the file pool runs `width` jobs plus at most
/// `maxStuck` abandoned ones, each holding at most `descriptorsPerFile` (our reader, libavformat or
/// libheif, the hasher), and the catalog, the crawl and stdio hold a fixed `reserved` set — so the
/// width is chosen to fit the limit instead of failing files with "Too many open files".
public enum ResourceLimits {
    public static let descriptorsPerFile = 4
    public static let reserved = 48

    /// Raises the soft open-file limit to the hard one (as Go's runtime does at start-up) and returns the
    /// soft limit now in force.
    @discardableResult
    public static func raiseOpenFileLimit() -> Int {
        var rl = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &rl) == 0 else { return 1024 }
        if rl.rlim_cur < rl.rlim_max {
            var raised = rl
            raised.rlim_cur = rl.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { rl = raised }
        }
        return Int(clamping: rl.rlim_cur)  // RLIM_INFINITY clamps to Int.max
    }

    /// The number of files processed at once that fits `openFileLimit` (at least 1), given up to `maxStuck`
    /// abandoned files still holding theirs.
    public static func concurrency(requested: Int, maxStuck: Int, openFileLimit: Int) -> Int {
        let room = (openFileLimit - reserved) / descriptorsPerFile - maxStuck
        return max(1, min(requested, room))
    }

    /// Peak resident memory of this process so far, bytes.
    public static func peakMemoryBytes() -> Int {
        var u = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &u) == 0 else { return 0 }
        #if canImport(Darwin)
            return Int(u.ru_maxrss)
        #else
            return Int(u.ru_maxrss) * 1024
        #endif
    }
}
