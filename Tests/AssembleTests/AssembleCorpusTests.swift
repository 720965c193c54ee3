import Assemble
import Classify
import Foundation
import MediaProbe
import PhotoModel
import Testing
import TestSupport

/// Assembles the whole corpus and compares every asset with `assets.json` (ground truth, much of it from
/// Apple Photos' own database). Where the database disagrees with a file rule (`dbConflicts`), the
/// ground truth records which side won: structural facts follow the files on disk (a Live Photo needs its
/// movie on disk — IMG_4076 is a plain photo here although Photos lists it as live; adjustments follow the
/// resources present — IMG_1994's AAE sets hasAdjustments although the database says 0; the pixel size of
/// IMG_0021 is the original's, not the library's edited rendition), which is exactly what these rules do.
@Suite struct AssembleCorpusTests {
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func corpusMatchesGroundTruth() throws {
        let truth = try GroundTruth.load()
        let files = Corpus.mediaFiles()
        #expect(files.count == truth.fileCount, "the corpus on disk and assets.json disagree on the file count")
        let root = try #require(Corpus.root).path
        let prober = Prober()
        let result = Assembler.assemble(files.map { Classifier.classify(prober.probe(path: root + "/" + $0)) }, root: root)
        let report = GroundTruth.compare(Dictionary(uniqueKeysWithValues: result.assets.map { ($0.asset.id, $0.asset) }), with: truth.assets)
        #expect(report.missing.isEmpty, "missing assets: \(report.missing)")
        #expect(report.extra.isEmpty, "extra assets: \(report.extra)")
        for f in report.failures { Issue.record(Comment(rawValue: f)) }
        let wantOrphans = Set(truth.orphans.compactMap { $0["path"] as? String })
        #expect(Set(result.orphans.map(\.path)) == wantOrphans, "orphans: \(result.orphans.map(\.path))")
        print("assembly vs assets.json (\(truth.assets.count) assets):\n\(report.summary)")
        for e in report.excused { print("  excused \(e)") }
    }
}
