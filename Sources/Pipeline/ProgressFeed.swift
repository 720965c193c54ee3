import Foundation
import Synchronization

/// What an ingest reports as it goes (`IngestProgress`): the counts of the folders the run loop has taken in,
/// plus the files probed so far in folders still being probed. A folder is taken in when its last file is
/// done, so one folder of 30,000 files held the bar (and `--progress json`) at zero until then — minutes on a
/// slow disk. Probe workers report each file (`probed(in:)`; a known file judged again from its stored facts:
/// `judged(in:)`), passed on at most ten times a second; the loop reports through `update(_:)` and settles a
/// folder's files in flight when it takes the folder in.
final class ProgressFeed: Sendable {
    private struct State {
        var counted = IngestProgress()
        /// Files done (probed, or judged from stored facts) and of them probed, in folders not taken in yet.
        var inFlight = (done: 0, probed: 0)
        var lastFromWorkers = Date.distantPast
    }

    private let state = Mutex(State())
    private let sink: (@Sendable (IngestProgress) -> Void)?
    private let start: Date
    static let workerInterval = 0.1

    init(start: Date, sink: (@Sendable (IngestProgress) -> Void)?) {
        self.start = start
        self.sink = sink
    }

    /// One folder's files probed so far; closed when the loop takes the folder in (a file abandoned over its
    /// time budget may still finish after that: it is counted once, by the folder).
    final class Tally: Sendable {
        fileprivate let count = Mutex<(done: Int, probed: Int, closed: Bool)>((0, 0, false))
        init() {}
    }

    /// A tally for a folder about to be probed (nil: nobody is listening).
    func tally() -> Tally? { sink == nil ? nil : Tally() }

    /// The counts the loop keeps, changed by `body`, reported with the files in flight (`report` false: kept
    /// for the next report — the total counted before the walk, which as a report of its own would take the
    /// JSON events' once-a-second turn from the first files done).
    func update(settling tally: Tally? = nil, report: Bool = true, _ body: (inout IngestProgress) -> Void) {
        guard let sink else { return }
        let settled = tally?.count.withLock { c -> (Int, Int) in
            c.closed = true
            return (c.done, c.probed)
        } ?? (0, 0)
        state.withLock { s in
            s.inFlight.done -= settled.0
            s.inFlight.probed -= settled.1
            body(&s.counted)
            s.counted.elapsed = Date().timeIntervalSince(start)
            if report { sink(Self.shown(s)) }
        }
    }

    /// A probe worker finished a file of the folder `tally` counts. Counted in the tally and in flight under
    /// the tally's lock, so a folder settled meanwhile takes away exactly what was added (the counts shown
    /// never go back).
    func probed(in tally: Tally?) { count(in: tally, probed: true) }

    /// A known file of the folder `tally` counts was judged from its stored facts (a large folder re-ingested
    /// reads them for seconds before its first new file is probed).
    func judged(in tally: Tally?) { count(in: tally, probed: false) }

    private func count(in tally: Tally?, probed: Bool) {
        guard let tally, let sink else { return }
        tally.count.withLock { c in
            guard !c.closed else { return }
            c.done += 1
            if probed { c.probed += 1 }
            state.withLock { s in
                s.inFlight.done += 1
                if probed { s.inFlight.probed += 1 }
                let now = Date()
                guard now.timeIntervalSince(s.lastFromWorkers) >= Self.workerInterval else { return }
                s.lastFromWorkers = now
                s.counted.elapsed = now.timeIntervalSince(start)
                sink(Self.shown(s))
            }
        }
    }

    private static func shown(_ s: State) -> IngestProgress {
        var p = s.counted
        p.filesDone += s.inFlight.done
        p.filesProbed += s.inFlight.probed
        return p
    }
}
