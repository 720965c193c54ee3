import Foundation
import MediaProbe
import TestSupport
import Testing

@testable import Pipeline

/// `CompactJSONEncoder` writes what `JSONEncoder` (sorted keys, slashes unescaped) writes, byte for byte.
struct CompactJSONEncoderTests {
    static func foundation<T: Encodable>(_ value: T) throws -> [UInt8] {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return [UInt8](try enc.encode(value))
    }

    static func expectSame<T: Encodable>(_ value: T, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let theirs = try foundation(value)
        let ours = try CompactJSONEncoder.encode(value)
        #expect(
            ours == theirs,
            "\(what):\n ours   \(String(decoding: ours, as: UTF8.self))\n theirs \(String(decoding: theirs, as: UTF8.self))",
            sourceLocation: sourceLocation)
    }

    struct Inner: Codable { var b: Int?; var a: [Double?]; var z: String }
    enum Kind: String, Codable { case one, two }
    struct Outer: Codable {
        var zeta = "z/y\"\\\n\t\u{01}\u{1F}\u{7F}é\u{2028}😀"
        var alpha: [Inner] = [Inner(b: nil, a: [1, nil, 0.1, -0.0, 1e-5, 1e21, 123456789012345678], z: "")]
        var kinds: [Kind: Int] = [.two: 2, .one: 1]
        var byName: [String: [UInt8]] = ["b": [1], "B": [2], "a10": [], "a9": [255], "é": [0], "_": [3]]
        var byNumber: [Int: String] = [10: "ten", 2: "two", 1: "one"]
        var nested: [[Inner?]] = [[nil], [], [Inner(b: 1, a: [], z: "x")]]
        var date = Date(timeIntervalSinceReferenceDate: 12.5)
        var data = Data([0, 1, 2, 250])
        var url = URL(string: "http://example.com/a/b?c=d")!
        var float: Float = 3.3
        var ints: (Int8, Int16, Int32, Int64, UInt, UInt16, UInt32, UInt64) = (-8, -16, -32, .min, 7, 16, 32, .max)
        var flag = false
        var empty: [String: Int] = [:]
        var none: Int? = nil

        enum CodingKeys: String, CodingKey {
            case zeta, alpha, kinds, byName, byNumber, nested, date, data, url, float, ints, flag, empty, none
        }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(zeta, forKey: .zeta)
            try c.encode(alpha, forKey: .alpha)
            try c.encode(kinds, forKey: .kinds)
            try c.encode(byName, forKey: .byName)
            try c.encode(byNumber, forKey: .byNumber)
            try c.encode(nested, forKey: .nested)
            try c.encode(date, forKey: .date)
            try c.encode(data, forKey: .data)
            try c.encode(url, forKey: .url)
            try c.encode(float, forKey: .float)
            var u = c.nestedUnkeyedContainer(forKey: .ints)
            try u.encode(ints.0); try u.encode(ints.1); try u.encode(ints.2); try u.encode(ints.3)
            try u.encode(ints.4); try u.encode(ints.5); try u.encode(ints.6); try u.encode(ints.7)
            try c.encode(flag, forKey: .flag)
            try c.encode(empty, forKey: .empty)
            try c.encodeIfPresent(none, forKey: .none)
            // A second request for the container continues the same object (JSONEncoder merges them).
            var again = encoder.container(keyedBy: CodingKeys.self)
            try again.encodeNil(forKey: .none)
        }
        init() {}
        init(from decoder: any Decoder) throws { self.init() }
    }

    @Test func edgeCasesMatchJSONEncoder() throws {
        try Self.expectSame(Outer(), "an object with every kind of value")
        try Self.expectSame([Outer(), Outer()], "an array of them")
        try Self.expectSame("top-level string", "a string")
        try Self.expectSame(42, "an integer")
        try Self.expectSame([String: Inner](), "an empty dictionary")
        try Self.expectSame([Kind.one, .two], "enums")
        try Self.expectSame(Optional<Int>.none, "a top-level nil")
    }

    @Test func nonFiniteNumbersAreErrorsWithTheirPath() throws {
        let inner = Inner(b: 1, a: [1, .nan], z: "")
        #expect(throws: EncodingError.self) { try CompactJSONEncoder.encode(inner) }
        do {
            _ = try CompactJSONEncoder.encode(["k": inner])
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.codingPath.map(\.stringValue) == ["k", "a", "Index 1"])
        }
    }

    /// Every corpus file's probe report, and the generated fixtures': the stored facts are the same bytes
    /// whichever encoder wrote them.
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func probeReportsOfTheCorpusMatchJSONEncoder() throws {
        let root = try #require(Corpus.root).path
        var compared = 0
        for rel in Corpus.mediaFiles() {
            let report = Prober().probe(path: root + "/" + rel)
            try Self.expectSame(report, rel)
            #expect(DerivationRules.decode(try CompactJSONEncoder.encode(report)) != nil, "\(rel)")
            compared += 1
        }
        #expect(compared > 100)
    }
}
