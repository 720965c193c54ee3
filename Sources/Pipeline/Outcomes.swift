import Catalog
import MediaProbe

/// What became of the files of a run, counted apart (see docs/architecture.md, "Outcomes").
///
/// - *catalogued*: media with an asset (or a sidecar attached to one);
/// - *damaged*: catalogued, but the primary image or track is cut or inconsistent (an error row of severity
///   `damaged`);
/// - *failed*: media that could not be catalogued at all (an error row of severity `failed`, no asset);
/// - *skipped*: not media and not a sidecar we read (never an error), counted per category;
/// - *own*: Shoebox's own files (catalogs, thumbnail folders, manifests, temporary files), never input.
public struct Outcomes: Sendable, Equatable {
    public var damaged = 0
    public var failed = 0
    /// Skipped files per category (`text`, `json`, `system`, …).
    public var skipped: [String: Int] = [:]
    /// Shoebox's own files left out, with a few examples for the note.
    public var own = 0
    public var ownExamples: [String] = []

    public init() {}

    public var skippedTotal: Int { skipped.values.reduce(0, +) }

    mutating func count(errors: Bool, damaged isDamaged: Bool, notMedia: NotMedia?, path: String) {
        if let notMedia {
            if notMedia.category == NotMedia.shoebox {
                addOwn(path)
            } else {
                skipped[notMedia.category, default: 0] += 1
            }
        } else if errors {
            failed += 1
        } else if isDamaged {
            damaged += 1
        }
    }

    /// A file that did not change since its last probe: counted when it was skipped (or is ours).
    mutating func countStored(_ row: FileRow) {
        guard row.status == "skipped" || row.status == "own" else { return }
        let c = row.skipCategory ?? "other"
        if c == NotMedia.shoebox { own += 1 } else { skipped[c, default: 0] += 1 }
    }

    mutating func addOwn(_ path: String) {
        own += 1
        if ownExamples.count < 3 { ownExamples.append(path) }
    }

    mutating func add(_ o: Outcomes) {
        damaged += o.damaged
        failed += o.failed
        skipped.merge(o.skipped, uniquingKeysWith: +)
        own += o.own
        ownExamples += o.ownExamples.prefix(max(0, 3 - ownExamples.count))
    }

    /// `json 30, text 5, system 3`: largest first.
    public var skippedText: String {
        skipped.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(
            separator: ", ")
    }
}
