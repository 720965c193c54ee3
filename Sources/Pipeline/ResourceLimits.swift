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

    /// Caps glibc's malloc arenas at `arenas` (its default is 8 per core: each thread that meets a locked
    /// arena gets one of its own, and memory freed in an arena stays with it). An ingest's probe threads,
    /// the writer and the organize step then share a few heaps instead of holding a dozen half-empty ones
    /// (Benchmarks/README.md). Call before the threads start; elsewhere it does nothing.
    public static func limitMallocArenas(_ arenas: Int) {
        mallopt(-8, max(1, arenas))  // M_ARENA_MAX
    }

    /// Serves allocations of `bytes` and more with their own mappings from now on, each returned to the
    /// system when freed (glibc's `M_MMAP_THRESHOLD`; fixing it also stops glibc raising the threshold
    /// after each large free, up to 32 MiB, which left organize's multi-megabyte arrays in the heaps once
    /// freed). Set for the organize stage, whose large arrays live one step each; the probe keeps glibc's
    /// default (mapping its larger reads per file cost system time). Elsewhere it does nothing.
    public static func mapLargeAllocations(from bytes: Int) {
        mallopt(-3, bytes)  // M_MMAP_THRESHOLD
    }

    /// glibc's `mallopt(parameter, value)` (parameters from `<malloc.h>`); nothing with another C library.
    private static func mallopt(_ parameter: Int32, _ value: Int) {
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        if let f = glibcFunction("mallopt", as: Mallopt.self) { _ = f(parameter, Int32(clamping: value)) }
    }

    /// Hands memory that malloc holds but nothing uses back to the system (glibc's `malloc_trim`), e.g.
    /// the probe's buffers once every file is probed, and what each organize step freed before the next
    /// builds its own: glibc gives back only the free space at the top of a heap, so the free chunks
    /// between live ones stayed resident (at 100k files, mid-moments, the heaps held 80 MB of which 13.5 MB
    /// were in use). Elsewhere it does nothing.
    public static func releaseFreeMemory() {
        typealias MallocTrim = @convention(c) (Int) -> Int32
        if let f = glibcFunction("malloc_trim", as: MallocTrim.self) { _ = f(0) }
    }

    /// A glibc function that Swift's Glibc module does not declare (`<malloc.h>`), looked up in the process
    /// (`RTLD_DEFAULT`, a null handle: no handle is opened); nil with another C library.
    static func glibcFunction<F>(_ name: String, as type: F.Type) -> F? {
        #if canImport(Glibc)
            guard let symbol = dlsym(nil, name) else { return nil }
            return unsafeBitCast(symbol, to: type)
        #else
            return nil
        #endif
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
