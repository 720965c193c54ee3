import Foundation

/// Locates the development gazetteer (`make gazetteer` builds `.build/gazetteer/gazetteer.bin`) for tests
/// that need place names; they skip with `skipMessage` when it is absent.
public enum GazetteerFile {
    public static let path: String = {
        if let p = ProcessInfo.processInfo.environment["SHOEBOX_GAZETTEER"], !p.isEmpty { return p }
        return Corpus.packageRoot.appendingPathComponent(".build/gazetteer/gazetteer.bin").path
    }()

    public static var isAvailable: Bool { FileManager.default.fileExists(atPath: path) }

    public static let skipMessage =
        "no gazetteer at .build/gazetteer/gazetteer.bin (run `make gazetteer`; CI builds it in `make deps`)"
}
