import Classify
import Foundation
import MediaProbe

/// The judgement side of the catalog: Classify + Assemble + Organize, versioned together.
///
/// The catalog stores facts (each file's `ProbeReport`, versioned by `Prober.version`) and derives
/// everything else. `version` is one number for the three rule sets: bump it with any change to their
/// output (`RulesVersionTests` fails when the corpus's derived output changes and the number did not).
/// When an ingest meets a catalog derived with another version, every folder is re-derived from its
/// stored facts — no source file is opened.
public struct DerivationRules: Sendable, Equatable {
    /// Bump with every change to what Classify, Assemble or Organize produce.
    /// 2: bursts found by file name form in a catalog (organize keyed them by each asset's own identifier,
    /// so none did).
    public static let version = 2

    /// The rules in force: `version`, or a test-only variant (see `testVariantVariable`).
    public var version: Int
    /// Test-only: one rule changed (screenshots are not recognised), so a test can show a rules change
    /// being re-derived without building another binary.
    public var screenshotsIgnored: Bool

    /// The environment variable that switches the test-only variant on (`SHOEBOX_TEST_RULES_VARIANT=1`).
    public static let testVariantVariable = "SHOEBOX_TEST_RULES_VARIANT"

    public static var current: DerivationRules {
        let variant = ProcessInfo.processInfo.environment[testVariantVariable] == "1"
        return DerivationRules(version: variant ? version + 1_000_000 : version, screenshotsIgnored: variant)
    }

    /// A file's judgement from its facts.
    public func classify(_ report: ProbeReport) -> FileClassification {
        var c = Classifier.classify(report)
        if screenshotsIgnored, c.subtypes.contains(.photoScreenshot) {
            c.subtypes.remove(.photoScreenshot)
            c.reasons.removeAll { $0.subject == "photoScreenshot" }
        }
        return c
    }

    /// The facts as stored in the catalog: compact JSON with sorted keys (`FactsJSON`, written by hand: the
    /// bytes `JSONEncoder` would write, without Codable's dispatch on the ingest's hot path).
    public static func encode(_ report: ProbeReport) -> [UInt8]? {
        FactsJSON.encode(report)
    }

    /// Stored facts back; nil when they do not decode (a field renamed, a record cut): probe again. Read by
    /// hand (`FactsJSONReader`) where it is sure to read what `JSONDecoder` would, else by `JSONDecoder`.
    public static func decode(_ bytes: [UInt8]) -> ProbeReport? {
        FactsJSONReader.read(bytes) ?? (try? JSONDecoder().decode(ProbeReport.self, from: Data(bytes)))
    }
}
