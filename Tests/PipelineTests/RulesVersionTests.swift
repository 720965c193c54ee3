import Assemble
import Classify
import Foundation
import MediaProbe
import TestSupport
import Testing

@testable import Pipeline

/// `DerivationRules.version` must change whenever what Classify and Assemble derive from the corpus
/// changes: a catalog derived with other rules is then re-derived by the next ingest. The digest below is
/// of the corpus's derived assets (probe → classify → assemble, folder by folder, as JSON); it is keyed by
/// both versions because a probe change (`Prober.version`) changes the facts the rules see.
@Suite struct RulesVersionTests {
    /// (Prober.version, DerivationRules.version) → digest of the derived corpus.
    static let recorded: [String: String] = [
        "probe 1, rules 1": "7f11272d4607d727",
        // The MPEG-TS reader: the Sony AVCHD clip's pixel size now names it as its source.
        "probe 2, rules 1": "6a63cce1e0ea69f",
        // The AVI reader: the Kodak clip's pixel size and duration now name it as their source.
        "probe 3, rules 1": "6e05c06e77d2b4e9",
        // Organize: bursts by file name in a catalog (the corpus has none; classify and assemble as before).
        "probe 3, rules 2": "6e05c06e77d2b4e9",
        // An EXIF date's source names only the tags it was made of.
        "probe 4, rules 2": "8ce76d60e85ae73f",
    ]

    /// FNV-1a 64: stable across runs and platforms (Swift's Hasher is seeded per process).
    static func fnv1a(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return String(h, radix: 16)
    }

    static func derivedCorpus() throws -> [UInt8] {
        let root = try #require(Corpus.root).path
        let files = Corpus.mediaFiles()
        var byFolder: [String: [FileClassification]] = [:]
        let rules = DerivationRules(version: DerivationRules.version, screenshotsIgnored: false)
        for rel in files {
            let r = Prober(options: .metadataOnly).probe(path: root + "/" + rel)
            var report = r
            report.fileModified = nil  // the checkout's mtimes are not facts of the corpus
            let dir = (rel as NSString).deletingLastPathComponent
            byFolder[dir, default: []].append(rules.classify(report))
        }
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var out: [UInt8] = []
        for dir in byFolder.keys.sorted() {
            let usable = byFolder[dir]!.filter { !(($0.role == .image || $0.role == .video) && !$0.errors.isEmpty) }
            let assembly = Assembler.assemble(usable, root: root)
            out += Array(try enc.encode(assembly.assets.map { AssetJSON($0) }))
            out += Array(try enc.encode(assembly.orphans))
        }
        return out
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func derivedOutputChangesOnlyWithTheVersion() throws {
        let key = "probe \(Prober.version), rules \(DerivationRules.version)"
        let digest = Self.fnv1a(try Self.derivedCorpus())
        #expect(
            Self.recorded[key] == digest,
            """
            The corpus derives to \(digest) with \(key). If Classify or Assemble changed what they produce, bump \
            DerivationRules.version (Prober.version when the probe changed) and record "\(key)": "\(digest)" here.
            """)
    }
}
