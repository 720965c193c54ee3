import Catalog
import Foundation
import Testing

/// Inputs that crashed FuzzPredicate (Fuzz/Sources/FuzzPredicate), replayed through the same call: the
/// format, then NUL-separated arguments. Passing means "compiled or threw a positioned error".
@Suite struct PredicateFuzzRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FuzzRegressions")
    static let files: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
        .filter { $0.hasPrefix("FuzzPredicate-") && $0.hasSuffix(".bin") }.sorted()

    @Test(arguments: files) func replay(_ name: String) throws {
        let bytes = try Data(contentsOf: Self.directory.appendingPathComponent(name))
        let parts = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        _ = try? PredicateCompiler.compile(parts.first ?? "", arguments: Array(parts.dropFirst()))
    }

    /// Nesting past the limit is a positioned error, however deep, for every nesting construct.
    @Test(arguments: [
        String(repeating: "(", count: 100_000) + "x == 1",
        String(repeating: "NOT ", count: 100_000) + "x == 1",
        String(repeating: "! ", count: 100_000) + "isFavorite == YES",
        "x IN " + String(repeating: "{", count: 100_000),
        "creationDate > " + String(repeating: "CAST(", count: 100_000),
        "mediaType == " + String(repeating: "(", count: 100_000) + "1",
    ])
    func deepNestingIsAnErrorNotACrash(_ format: String) {
        do {
            _ = try PredicateCompiler.compile(format, arguments: [])
            Issue.record("accepted \(format.prefix(20))…")
        } catch {
            #expect(error.message.contains("nesting deeper than 100 levels"), "\(error)")
        }
    }

    @Test func nestingWithinTheLimitStillCompiles() throws {
        let format = String(repeating: "(", count: 40) + "isFavorite == YES" + String(repeating: ")", count: 40)
        _ = try PredicateCompiler.compile(format, arguments: [])
        _ = try PredicateCompiler.compile(String(repeating: "NOT ", count: 50) + "isFavorite == YES", arguments: [])
    }
}
