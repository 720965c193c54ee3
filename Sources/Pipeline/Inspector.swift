import Assemble
import Classify
import MediaProbe

/// crawl → probe → classify → assemble for each root, without a catalog (`shoebox inspect`).
public enum Inspector {
    public struct Result: Sendable {
        public var root: String
        public var assembly: Assembly
        public var filesProbed: Int
    }

    /// Assembles the files under each path. A path that is a file is assembled with its folder as root
    /// (and only that file in view).
    /// `progress(done, total)` after each file probed.
    public static func inspect(
        _ paths: [String], prober: Prober = Prober(), width: Int, crawler: Crawler = Crawler(),
        progress: (Int, Int) -> Void = { _, _ in }
    ) async throws -> [Result] {
        var out: [Result] = []
        for path in paths {
            let root = Crawler.isDirectory(path) ? path : parentDirectory(path)
            var entries: [CrawlEntry] = []
            crawler.walk([path]) { entries.append($0) }
            var files: [FileClassification] = []
            try await ProbeRunner.run(entries, prober: prober, width: width) {
                files.append(Classifier.classify($0))
                progress(files.count, entries.count)
            }
            out.append(Result(root: root, assembly: Assembler.assemble(files, root: root), filesProbed: entries.count))
        }
        return out
    }

    static func parentDirectory(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
