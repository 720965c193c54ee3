import MediaProbe

/// Probes crawl entries with bounded parallelism and delivers reports in input order, so output is
/// reproducible whatever the scheduling. At most `width` probes run at once.
public enum ProbeRunner {
    public static func run(
        _ entries: [CrawlEntry], prober: Prober, width: Int,
        deliver: (ProbeReport) throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: (Int, ProbeReport).self) { group in
            var next = 0
            var pending: [Int: ProbeReport] = [:]
            var emit = 0
            func submit() {
                guard next < entries.count else { return }
                let i = next, entry = entries[i]
                next += 1
                group.addTask { (i, report(for: entry, prober: prober)) }
            }
            for _ in 0..<max(1, width) { submit() }
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
    public static func report(for entry: CrawlEntry, prober: Prober) -> ProbeReport {
        if let error = entry.error {
            var r = ProbeReport(path: entry.path, fileSize: 0, kind: .unknown)
            r.issues.append(ProbeIssue(severity: .error, stage: .open, reason: error))
            return r
        }
        return prober.probe(path: entry.path)
    }
}
