import Derivatives
import Foundation
import MediaProbe

/// Runs per-file work (probe, classify, hash) on a fixed set of worker threads, with a time budget per
/// file, so that one pathological file can neither stall a run nor multiply threads and open files.
///
/// - At most `width` jobs run at once, whatever the number of callers (folders prepared in parallel
///   share one pool): threads and open descriptors are bounded by the pool, not by the callers.
/// - Each file gets a `Deadline` (its budget from the moment a worker starts it). Our readers and
///   libavformat stop by themselves once it passes. If a file still has not returned a grace period
///   later (a read stuck in the kernel, libheif, which has no cancellation), the caller gets the
///   `abandoned` value, the worker is written off as stuck and a replacement thread takes its place.
///   A stuck worker that finally returns leaves (its result is dropped).
/// - `runBatch` hands a worker several files per job (each still with its own deadline): one thread
///   hand-off per chunk instead of per file, which is what a per-file job costs on small files. When a
///   file of a chunk is abandoned, the files before it keep their results and the rest are queued again.
/// - At most `maxStuck` workers are written off. Past that, and once no healthy worker is left, jobs
///   fail at once with `skipped`: a hung file system yields a run of clear errors, not a hang.
public final class FileWorkPool: @unchecked Sendable {
    public struct Limits: Sendable {
        /// Jobs run at once.
        public var width: Int
        /// Per-file budget in seconds (nil: none).
        public var timeBudget: Double?
        /// Extra time after the budget before a job is abandoned (readers stop by themselves first).
        public var grace: Double = 2
        /// Most workers written off as stuck.
        public var maxStuck: Int = 8

        public init(width: Int, timeBudget: Double?) {
            self.width = max(1, width)
            self.timeBudget = timeBudget.flatMap { $0 > 0 ? $0 : nil }
        }
    }

    /// Counters, for summaries and tests.
    public struct Stats: Sendable, Equatable {
        public var started = 0
        public var abandoned = 0
        public var stuckNow = 0
        public var skipped = 0
        public var peakRunning = 0
    }

    public let limits: Limits
    fileprivate let cond = NSCondition()
    /// Jobs in order; a slot is emptied when a worker takes its job, so that a finished job (its closures
    /// hold the chunk's results: every file's report) is freed when it ends, not when the consumed prefix
    /// is next compacted. Left in place, up to ~2,000 finished chunks' reports stayed alive: at 20k files,
    /// 7 MB of result arrays and the facts they held at the end of the walk, in the worker threads' heaps.
    private var queue: [Job?] = []
    private var head = 0
    private var healthy = 0  // workers not written off
    private var running = 0
    private var stats = Stats()
    private var shutDown = false
    /// Jobs running under a budget, watched by one watchdog thread (no timer per file).
    private var watched: [ObjectIdentifier: Watched] = [:]
    private var watchdogStarted = false

    /// A running job under the watchdog; `hardDeadline` (budget + grace from the start of the file it is
    /// on, CLOCK_MONOTONIC ns) moves on with each file of a batch. Guarded by `cond`.
    fileprivate final class Watched {
        var hardDeadline: UInt64 = .max
        let state: WatchState
        let job: Job
        init(state: WatchState, job: Job) {
            self.state = state
            self.job = job
        }
    }

    /// Handed to a job's work: `start()` begins the next file and returns its deadline (nil: no budget).
    public final class Clock: @unchecked Sendable {
        private weak var pool: FileWorkPool?
        fileprivate let entry: Watched?

        fileprivate init(pool: FileWorkPool?, entry: Watched?) {
            self.pool = pool
            self.entry = entry
        }

        public func start() -> Deadline? {
            guard let pool, let entry, let budget = pool.limits.timeBudget else { return nil }
            let hard = Deadline(seconds: budget + pool.limits.grace).nanoseconds
            pool.cond.lock()
            entry.hardDeadline = hard
            pool.cond.unlock()
            return Deadline(seconds: budget)
        }
    }

    /// One queued job: the work and how to deliver its result exactly once.
    fileprivate final class Job: @unchecked Sendable {
        let work: (Clock) -> Void
        let abandon: () -> Void
        let skip: () -> Void
        init(work: @escaping (Clock) -> Void, abandon: @escaping () -> Void, skip: @escaping () -> Void) {
            self.work = work
            self.abandon = abandon
            self.skip = skip
        }
    }

    /// Delivers one value to a continuation, whichever of work, abandonment or skip comes first.
    private final class Once<T: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<T, Never>?
        init(_ c: CheckedContinuation<T, Never>) { continuation = c }
        @discardableResult func deliver(_ value: T) -> Bool {
            lock.lock()
            let c = continuation
            continuation = nil
            lock.unlock()
            c?.resume(returning: value)
            return c != nil
        }
    }

    public init(_ limits: Limits) {
        self.limits = limits
        cond.lock()
        for _ in 0..<limits.width { spawnLocked() }
        cond.unlock()
    }

    /// Lets the workers finish what is queued and exit. Call once the pool is no longer needed (workers
    /// hold the pool until then).
    public func shutdown() {
        cond.lock()
        shutDown = true
        cond.broadcast()
        cond.unlock()
    }

    public var statistics: Stats {
        cond.lock()
        defer { cond.unlock() }
        return stats
    }

    /// Runs `work` on a worker with the pool's budget. `abandoned` is returned when the job overran its
    /// budget and grace; `skipped(n)` when `n` workers are stuck and none is left to run it.
    public func run<T: Sendable>(
        _ work: @escaping @Sendable (Deadline?) -> T,
        abandoned: @escaping @Sendable (Double) -> T,
        skipped: @escaping @Sendable (Int) -> T
    ) async -> T {
        // A chunk of one item: the same job, watchdog and skip paths as a batch.
        await runChunk([()], { _, deadline in work(deadline) }, abandoned: { abandoned($1) }, skipped: { skipped($1) })[0]
    }

    /// Skipped files are counted per file (a skipped job may be a chunk of several).
    private func countSkipped(_ n: Int) {
        cond.lock()
        stats.skipped += n
        cond.unlock()
    }

    private func submit(_ job: Job) {
        cond.lock()
        if healthy == 0 {
            cond.unlock()
            job.skip()
            return
        }
        queue.append(job)
        cond.signal()
        cond.unlock()
    }

    /// Runs `work` for every item, in chunks of several items per job, each item under its own budget;
    /// results in item order. `abandoned`/`skipped` as for `run`, per item.
    public func runBatch<I: Sendable, T: Sendable>(
        _ items: [I], _ work: @escaping @Sendable (I, Deadline?) -> T,
        abandoned: @escaping @Sendable (I, Double) -> T,
        skipped: @escaping @Sendable (I, Int) -> T
    ) async -> [T] {
        guard !items.isEmpty else { return [] }
        // Enough chunks to keep every worker busy, at most 16 items each.
        let size = max(1, min(16, (items.count + limits.width - 1) / limits.width))
        return await withTaskGroup(of: (Int, [T]).self) { group in
            for (k, start) in stride(from: 0, to: items.count, by: size).enumerated() {
                let chunk = Array(items[start..<min(items.count, start + size)])
                group.addTask { (k, await self.runChunk(chunk, work, abandoned: abandoned, skipped: skipped)) }
            }
            var parts: [[T]] = Array(repeating: [], count: (items.count + size - 1) / size)
            for await (k, r) in group { parts[k] = r }
            // One array of the final size: a growing one copies its elements (reports of a big folder) each time.
            var all: [T] = []
            all.reserveCapacity(items.count)
            for k in parts.indices {
                all += parts[k]
                parts[k] = []
            }
            return all
        }
    }

    private enum ChunkOutcome<T: Sendable>: Sendable {
        case done([T])
        /// Abandoned at the first nil: the results before it stand.
        case abandoned([T?])
        case skipped(Int)
    }

    /// Results of a chunk, shared by the worker (which fills them) and the watchdog (which may cut them).
    private final class ChunkResults<T: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [T?]
        private var cut = false
        init(count: Int) { results = Array(repeating: nil, count: count) }
        /// Stores a result; false once the chunk was cut (the worker must stop).
        func store(_ k: Int, _ r: T) -> Bool {
            lock.withLock {
                if cut { return false }
                results[k] = r
                return true
            }
        }
        var isCut: Bool { lock.withLock { cut } }
        func cutNow() -> [T?] {
            lock.withLock {
                cut = true
                return results
            }
        }
        var all: [T] { lock.withLock { results.map { $0! } } }
    }

    private func runChunk<I: Sendable, T: Sendable>(
        _ items: [I], _ work: @escaping @Sendable (I, Deadline?) -> T,
        abandoned: @escaping @Sendable (I, Double) -> T,
        skipped: @escaping @Sendable (I, Int) -> T
    ) async -> [T] {
        let outcome: ChunkOutcome<T> = await withCheckedContinuation { c in
            let once = Once(c)
            let results = ChunkResults<T>(count: items.count)
            let job = Job(
                work: { clock in
                    for (k, item) in items.enumerated() {
                        if results.isCut { return }
                        let r = work(item, clock.start())
                        if !results.store(k, r) { return }
                    }
                    _ = once.deliver(.done(results.all))
                },
                abandon: { _ = once.deliver(.abandoned(results.cutNow())) },
                skip: { [self] in _ = once.deliver(.skipped(self.statistics.stuckNow)) })
            submit(job)
        }
        switch outcome {
        case .done(let r):
            return r
        case .skipped(let stuck):
            countSkipped(items.count)
            return items.map { skipped($0, stuck) }
        case .abandoned(let partial):
            let k = partial.firstIndex { $0 == nil } ?? partial.count
            var out = partial[..<k].map { $0! }
            guard k < items.count else { return out }
            out.append(abandoned(items[k], limits.timeBudget ?? 0))
            if k + 1 < items.count {
                out += await runChunk(Array(items[(k + 1)...]), work, abandoned: abandoned, skipped: skipped)
            }
            return out
        }
    }

    private func spawnLocked() {
        healthy += 1
        let t = Thread { [self] in self.loop() }
        t.name = "shoebox-file-worker"
        t.stackSize = 1 << 20
        t.start()
    }

    private func loop() {
        while true {
            cond.lock()
            while head >= queue.count && !shutDown { cond.wait() }
            if shutDown && head >= queue.count {
                cond.unlock()
                return
            }
            guard let job = queue[head] else { preconditionFailure("a queued job was taken twice") }
            queue[head] = nil
            head += 1
            if head > 1024 && head * 2 > queue.count {  // compact the consumed prefix
                queue.removeFirst(head)
                head = 0
            }
            running += 1
            stats.started += 1
            stats.peakRunning = max(stats.peakRunning, running)
            cond.unlock()

            let outcome = run(job)

            cond.lock()
            running -= 1
            if let replaced = outcome {
                // Written off while it ran. Leave if a replacement took this thread's place, else serve again.
                stats.stuckNow -= 1
                if replaced {
                    cond.unlock()
                    return
                }
                healthy += 1
            }
            cond.unlock()
        }
    }

    /// Runs one job under the watchdog: nil when it finished in time, else whether a replacement worker
    /// was started when it was written off.
    private func run(_ job: Job) -> Bool? {
        guard limits.timeBudget != nil else {
            job.work(Clock(pool: nil, entry: nil))
            return nil
        }
        let state = WatchState()
        let entry = Watched(state: state, job: job)
        let key = ObjectIdentifier(entry)
        cond.lock()
        watched[key] = entry
        if !watchdogStarted {
            watchdogStarted = true
            let t = Thread { [self] in self.watch() }
            t.name = "shoebox-file-watchdog"
            t.stackSize = 256 << 10
            t.start()
        }
        cond.unlock()
        job.work(Clock(pool: self, entry: entry))
        cond.lock()
        watched[key] = nil
        cond.unlock()
        return state.markFinished() ? nil : state.waitReplaced()
    }

    /// The watchdog: ten times a second, abandons the jobs past budget + grace. Ends with the pool.
    private func watch() {
        let tick = NSCondition()
        while true {
            cond.lock()
            let done = shutDown
            let now = Deadline.now()
            let overdue = watched.filter { $0.value.hardDeadline <= now }
            for k in overdue.keys { watched[k] = nil }
            cond.unlock()
            for (_, w) in overdue where w.state.markAbandoned() {
                // Book-keeping first, so a caller that reads the statistics after its result sees this.
                w.state.setReplaced(writeOff())
                w.job.abandon()
            }
            if done { return }
            tick.lock()
            _ = tick.wait(until: Date(timeIntervalSinceNow: 0.1))
            tick.unlock()
        }
    }

    /// A worker overran: count it stuck and replace it while under the cap; when no healthy worker is
    /// left, fail what is queued.
    private func writeOff() -> Bool {
        cond.lock()
        stats.abandoned += 1
        stats.stuckNow += 1
        healthy -= 1
        if stats.stuckNow <= limits.maxStuck {
            spawnLocked()
            cond.unlock()
            return true
        }
        var drained: [Job] = []
        if healthy == 0 {
            drained = queue[head...].compactMap { $0 }
            queue.removeAll()
            head = 0
        }
        cond.unlock()
        for j in drained { j.skip() }
        return false
    }

    /// Finished-or-abandoned, decided once.
    fileprivate final class WatchState: @unchecked Sendable {
        private let lock = NSCondition()
        private var decided = false
        private var abandoned = false
        private var replaced: Bool?

        func setReplaced(_ r: Bool) {
            lock.lock()
            replaced = r
            lock.broadcast()
            lock.unlock()
        }

        /// Waits for the watchdog to finish writing the worker off (it is already under way).
        func waitReplaced() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            while replaced == nil { lock.wait() }
            return replaced!
        }
        /// True if the job finished first.
        func markFinished() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            if decided { return !abandoned }
            decided = true
            return true
        }
        /// True if the watchdog fired first.
        func markAbandoned() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            if decided { return false }
            decided = true
            abandoned = true
            return true
        }
    }
}

extension FileWorkPool {
    /// Thumbnail renders on this pool, under its time budget: an abandoned or skipped render is one error
    /// entry (stage `time-budget`) for the asset's source file.
    public var renderExecutor: Thumbnailer.RenderExecutor {
        { path, render in
            await self.run(
                { _ in render() },
                abandoned: { .failed(path: path, stage: ProbeRunner.timeBudgetStage.rawValue, reason: ProbeRunner.abandonedReason($0)) },
                skipped: { .failed(path: path, stage: ProbeRunner.timeBudgetStage.rawValue, reason: ProbeRunner.skippedReason($0)) })
        }
    }
}
