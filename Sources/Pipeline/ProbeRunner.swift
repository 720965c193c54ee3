import MediaProbe

/// Probes crawl entries with bounded parallelism and delivers reports in input order, so output is
/// reproducible whatever the scheduling. At most `width` probes run at once, each under the per-file time
/// budget (see `FileWorkPool`).
public enum ProbeRunner {
    /// Stage of the error row for a file the watchdog gave up on.
    public static let timeBudgetStage = ProbeStage(rawValue: "time-budget")

    public static func run(
        _ entries: [CrawlEntry], prober: Prober, width: Int, timeBudget: Double? = 60,
        deliver: (ProbeReport) throws -> Void
    ) async throws {
        let pool = FileWorkPool(.init(width: width, timeBudget: timeBudget))
        defer { pool.shutdown() }
        try await withThrowingTaskGroup(of: (Int, ProbeReport).self) { group in
            var next = 0
            var pending: [Int: ProbeReport] = [:]
            var emit = 0
            func submit() {
                guard next < entries.count else { return }
                let i = next, entry = entries[i]
                next += 1
                group.addTask {
                    let r = await pool.run(
                        { deadline in report(for: entry, prober: prober, deadline: deadline) },
                        abandoned: { abandonedReport(entry.path, budget: $0) },
                        skipped: { skippedReport(entry.path, stuck: $0) })
                    return (i, r)
                }
            }
            for _ in 0..<max(1, width) * 2 { submit() }
            while let (i, report) = try await group.next() {
                pending[i] = report
                while let r = pending.removeValue(forKey: emit) {
                    try deliver(r)
                    emit += 1
                }
                submit()
            }
        }
    }

    /// A crawl entry's report: the probe, or an open error for a path the crawl could not read.
    public static func report(for entry: CrawlEntry, prober: Prober, deadline: Deadline? = nil) -> ProbeReport {
        if let error = entry.error {
            var r = ProbeReport(path: entry.path, fileSize: 0, kind: .unknown)
            r.issues.append(ProbeIssue(severity: .error, stage: .open, reason: error))
            return r
        }
        return prober.probe(path: entry.path, deadline: deadline)
    }

    /// The report of a file whose probe overran its budget and was left behind.
    public static func abandonedReport(_ path: String, budget: Double) -> ProbeReport {
        var r = ProbeReport(path: path, fileSize: 0, kind: .unknown)
        r.issues.append(ProbeIssue(severity: .error, stage: timeBudgetStage, reason: abandonedReason(budget)))
        return r
    }

    /// The report of a file not even started because too many earlier files are stuck.
    public static func skippedReport(_ path: String, stuck: Int) -> ProbeReport {
        var r = ProbeReport(path: path, fileSize: 0, kind: .unknown)
        r.issues.append(ProbeIssue(severity: .error, stage: timeBudgetStage, reason: skippedReason(stuck)))
        return r
    }

    public static func abandonedReason(_ budget: Double) -> String {
        "abandoned: still not done \(Deadline(seconds: budget)) after it started (per-file time budget); the run went on without it and the next run retries it"
    }

    public static func skippedReason(_ stuck: Int) -> String {
        "skipped: \(stuck) earlier files are stuck in reads (is the file system hung?); not processed this run"
    }

    /// Errors that say nothing about the file's content: it could not be read this time.
    public static func isTransient(_ issue: ProbeIssue) -> Bool {
        issue.severity == .error
            && (issue.stage == .open || issue.stage == timeBudgetStage || issue.reason.hasPrefix(ProbeError.Code.timedOut.rawValue)
                || issue.reason.hasPrefix(ProbeError.Code.ioError.rawValue))
    }
}

extension ProbeReport {
    /// Whether a read stopped at the probe's deadline.
    public var timedOut: Bool { issues.contains { $0.severity == .error && $0.reason.hasPrefix(ProbeError.Code.timedOut.rawValue) } }
}
