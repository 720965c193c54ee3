// Probe throughput over the shared real-device corpus.
//
// Corpus location: $SHOEBOX_CORPUS, else `shared/corpus` next to the repository (../shared/corpus
// from the repository root, i.e. /work/shared/corpus for /work/main). If no corpus is found, no
// benchmark is registered. facts/, *.json and *.md are not media and are skipped.

import Benchmark
import Foundation
import MediaProbe

private func corpusRoot() -> URL? {
    let fm = FileManager.default
    var candidates: [URL] = []
    if let env = ProcessInfo.processInfo.environment["SHOEBOX_CORPUS"], !env.isEmpty {
        candidates.append(URL(fileURLWithPath: env))
    }
    // <repo>/Benchmarks/Benchmarks/ProbeBenchmarks/ProbeBenchmarks.swift -> <repo>/../shared/corpus
    let repo = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    candidates.append(repo.appendingPathComponent("../shared/corpus"))
    let cwd = URL(fileURLWithPath: fm.currentDirectoryPath)
    candidates.append(cwd.appendingPathComponent("../shared/corpus"))      // run from the repo root
    candidates.append(cwd.appendingPathComponent("../../shared/corpus"))   // run from Benchmarks/
    var isDir: ObjCBool = false
    return candidates.first { fm.fileExists(atPath: $0.path, isDirectory: &isDir) && isDir.boolValue }
        .map { $0.standardizedFileURL }
}

/// Every media file under the corpus, sorted, without facts/, *.json and *.md.
private func corpusFiles() -> [String] {
    guard let root = corpusRoot(),
          let walker = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isRegularFileKey, .isDirectoryKey],
            options: [.skipsHiddenFiles])
    else { return [] }
    var files: [String] = []
    for case let url as URL in walker {
        let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .isDirectoryKey])
        if values?.isDirectory == true {
            if url.lastPathComponent == "facts" { walker.skipDescendants() }
            continue
        }
        guard values?.isRegularFile == true else { continue }
        let ext = url.pathExtension.lowercased()
        if ext == "json" || ext == "md" { continue }
        files.append(url.path)
    }
    return files.sorted()
}

let benchmarks: @Sendable () -> Void = {
    let files = corpusFiles()
    guard !files.isEmpty else {
        print("ProbeBenchmarks: no corpus found (set SHOEBOX_CORPUS); nothing to measure")
        return
    }
    let metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident]

    // One iteration = one pass over the whole corpus. files/s = throughput × files.count.
    Benchmark(
        "Probe corpus pass (\(files.count) files per iteration)",
        configuration: .init(metrics: metrics, warmupIterations: 1, scalingFactor: .one,
                             maxDuration: .seconds(20), maxIterations: 50)
    ) { benchmark in
        for path in files {
            blackHole(Prober().probe(path: path))
        }
    }

    // One iteration = one file, round robin over the corpus: throughput is files/s directly.
    Benchmark(
        "Probe one file per iteration (round robin over \(files.count) files)",
        configuration: .init(metrics: metrics, warmupIterations: files.count, scalingFactor: .one,
                             maxDuration: .seconds(20), maxIterations: files.count * 20)
    ) { benchmark in
        let path = files[benchmark.currentIteration % files.count]
        blackHole(Prober().probe(path: path))
    }
}
