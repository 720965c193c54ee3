import Foundation

/// Locates `../shared/corpus` (or `$SHOEBOX_CORPUS`) for tests that need the real device files.
public enum Corpus {
    /// The corpus directory, or nil when it is absent (tests then skip with a clear message).
    public static let root: URL? = {
        let env = ProcessInfo.processInfo.environment
        if let p = env["SHOEBOX_CORPUS"], FileManager.default.fileExists(atPath: p) {
            return URL(fileURLWithPath: p, isDirectory: true)
        }
        // Tests/TestSupport/Corpus.swift -> package root -> ../shared/corpus
        let pkg = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let c = pkg.deletingLastPathComponent().appendingPathComponent("shared/corpus", isDirectory: true)
        return FileManager.default.fileExists(atPath: c.appendingPathComponent("assets.json").path) ? c : nil
    }()

    public static var isAvailable: Bool { root != nil }

    /// Why corpus tests are skipped.
    public static let skipMessage = "../shared/corpus is absent (set SHOEBOX_CORPUS to run the corpus tests)"

    /// The package root (for Fixtures/).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    public static var fixtures: URL { packageRoot.appendingPathComponent("Fixtures", isDirectory: true) }

    /// A folder of `count` copies of the generated PNG (no camera, no date of its own), named 1000.png on,
    /// made at `dir`: their modification times an hour apart (so no burst joins them), and with
    /// `distinctContent` a byte past the PNG's end that differs between neighbours (the same picture, other
    /// contents: no two share a hash in a row).
    public static func pngFolder(at dir: String, count: Int, distinctContent: Bool = false) throws {
        let png = [UInt8](try Data(contentsOf: fixtures.appendingPathComponent("generated/animated.png")))
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for i in 0..<count {
            let path = "\(dir)/\(1000 + i).png"
            try Data(distinctContent ? png + [UInt8(i % 251)] : png).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1.6e9 + Double(i) * 3600)], ofItemAtPath: path)
        }
    }

    /// Every media file in the corpus (relative paths), excluding `facts/` and the docs.
    public static func mediaFiles() -> [String] {
        guard let root else { return [] }
        var out: [String] = []
        let en = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let u = en?.nextObject() as? URL {
            let rel = String(u.path.dropFirst(root.path.count + 1))
            if rel.hasPrefix("facts/") || ["README.md", "SOURCES.md", "assets.json"].contains(rel) { continue }
            if (try? u.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { out.append(rel) }
        }
        return out.sorted()
    }

    /// The oracle facts for a corpus file: `facts/a__b__c.jpg.json` parsed as JSON.
    public static func facts(for relativePath: String) -> [String: Any]? {
        guard let root else { return nil }
        let name = relativePath.replacingOccurrences(of: "/", with: "__") + ".json"
        let url = root.appendingPathComponent("facts").appendingPathComponent(name)
        guard let data = try? Data(contentsOf: url) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }
}

/// Locates `../shared/longtail` (or `$SHOEBOX_LONGTAIL`): fifteen real long-tail files and their expected
/// reading (its README). Tests skip with `skipMessage` when it is absent.
public enum LongTail {
    public static let root: URL? = {
        let env = ProcessInfo.processInfo.environment
        if let p = env["SHOEBOX_LONGTAIL"], FileManager.default.fileExists(atPath: p) {
            return URL(fileURLWithPath: p, isDirectory: true)
        }
        let c = Corpus.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/longtail", isDirectory: true)
        return FileManager.default.fileExists(atPath: c.appendingPathComponent("files.txt").path) ? c : nil
    }()

    public static var isAvailable: Bool { root != nil }

    public static let skipMessage = "../shared/longtail is absent (set SHOEBOX_LONGTAIL to run the long-tail tests)"

    /// A file of the set by its path relative to `media/`.
    public static func path(_ relative: String) -> String? {
        root?.appendingPathComponent("media").appendingPathComponent(relative).path
    }

    /// The generated long-tail fixtures' expectations (`Fixtures/generated/longtail-expected.json`).
    public static func generatedExpectations() -> [[String: Any]] {
        let url = Corpus.fixtures.appendingPathComponent("generated/longtail-expected.json")
        guard let data = try? Data(contentsOf: url), let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [] }
        return obj["files"] as? [[String: Any]] ?? []
    }
}
