import Derivatives
import Foundation
import MediaProbe

/// Runs per-file work (probe, classify, hash) on a fixed set of worker threads, with a time budget per
/// file, so that one pathological file can neither stall a run nor multiply threads and open files.
///
/// - At most `width` jobs run at once, whatever the number of callers (folders prepared in parallel
///   share one pool): threads and open descriptors are bounded by the pool, not by the callers.
/// - Each job gets a `Deadline` (its budget from the moment a worker starts it). Our readers and
///   libavformat stop by themselves once it passes. If a job still has not returned a grace period
///   later (a read stuck in the kernel, libheif, which has no cancellation), the caller gets the
///   `abandoned` value, the worker is written off as stuck and a replacement thread takes its place.
///   A stuck worker that finally returns leaves (its result is dropped).
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
    private let cond = NSCondition()
    private var queue: [Job] = []
    private var head = 0
    private var healthy = 0  // workers not written off
    private var running = 0
    private var stats = Stats()
    private var shutDown = false
    /// Jobs running under a budget, watched by one watchdog thread (no timer per file).
    private var watched: [ObjectIdentifier: Watched] = [:]
    private var watchdogStarted = false

    private struct Watched {
        let hardDeadline: UInt64  // CLOCK_MONOTONIC ns: budget + grace from the start
        let state: WatchState
        let job: Job
    }

    /// One queued job: the work and how to deliver its result exactly once.
    private final class Job: @unchecked Sendable {
        let work: (Deadline?) -> Void
        let abandon: () -> Void
        let skip: () -> Void
        init(work: @escaping (Deadline?) -> Void, abandon: @escaping () -> Void, skip: @escaping () -> Void) {
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
        await withCheckedContinuation { (c: CheckedContinuation<T, Never>) in
            let once = Once(c)
            let budget = limits.timeBudget
            let job = Job(
                work: { deadline in _ = once.deliver(work(deadline)) },
                abandon: { _ = once.deliver(abandoned(budget ?? 0)) },
                skip: { [self] in _ = once.deliver(skipped(self.statistics.stuckNow)) })
            cond.lock()
            if healthy == 0 {
                stats.skipped += 1
                cond.unlock()
                job.skip()
                return
            }
            queue.append(job)
            cond.signal()
            cond.unlock()
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
            let job = queue[head]
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
        guard let budget = limits.timeBudget else {
            job.work(nil)
            return nil
        }
        let deadline = Deadline(seconds: budget)
        let state = WatchState()
        let key = ObjectIdentifier(state)
        cond.lock()
        watched[key] = Watched(hardDeadline: Deadline(seconds: budget + limits.grace).nanoseconds, state: state, job: job)
        if !watchdogStarted {
            watchdogStarted = true
            let t = Thread { [self] in self.watch() }
            t.name = "shoebox-file-watchdog"
            t.stackSize = 256 << 10
            t.start()
        }
        cond.unlock()
        job.work(deadline)
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
            drained = Array(queue[head...])
            queue.removeAll()
            head = 0
            stats.skipped += drained.count
        }
        cond.unlock()
        for j in drained { j.skip() }
        return false
    }

    /// Finished-or-abandoned, decided once.
    private final class WatchState: @unchecked Sendable {
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
