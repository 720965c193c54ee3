import Foundation
import TestSupport
import Testing

@testable import MediaProbe
@testable import Pipeline

/// `FactsJSONReader` reads the stored facts by hand. Wherever it gives an answer it must be `JSONDecoder`'s
/// answer (the catalogs written so far were read by `JSONDecoder`); where it is unsure it gives none and
/// `DerivationRules.decode` asks `JSONDecoder`.
struct FactsJSONReaderTests {
    static func foundation(_ bytes: [UInt8]) -> ProbeReport? { try? JSONDecoder().decode(ProbeReport.self, from: Data(bytes)) }

    /// `UTF8Text.validated`: ASCII by the fast path, other valid UTF-8 as it is, anything else nil — as
    /// `String(validating:as:)` answers, on every kind of input.
    @Test func validatedTextIsStringValidatingsAnswer() {
        let cases: [[UInt8]] = [
            [], Array("IMG_0001.JPG".utf8), Array("Café 📷 Trip".utf8), Array(".\u{301}x".utf8), [0x63, 0x61, 0x66, 0xE9],  // Latin-1
            [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x7F, 0x00, 0x41], Array(repeating: 0x41, count: 300) + [0xFF],
        ]
        for bytes in cases {
            let ours = bytes.withUnsafeBufferPointer(UTF8Text.validated)
            let swift = bytes.withUnsafeBufferPointer { String(validating: $0, as: UTF8.self) }
            #expect(ours == swift, "\(bytes.prefix(12))")
        }
    }

    /// Every corpus, long-tail and fixture report, and the samples (every member of every fact type set, an
    /// empty report, every container kind, every AAE data encoding), read by hand as `JSONDecoder` reads them.
    @Test func readsWhatJSONDecoderReads() throws {
        let all = FactsJSONTests.reports.map { ($0.path, $0.report) } + FactsJSONTests.samples().map { ("sample \($0.path)", $0) }
        for (what, report) in all {
            let bytes = try #require(FactsJSON.encode(report), "\(what)")
            let ours = FactsJSONReader.read(bytes)
            #expect(ours != nil, "\(what): left to JSONDecoder")
            #expect(ours == Self.foundation(bytes), "\(what)")
        }
    }

    /// The full sample has every member of every fact type set: a member the reader skipped or misread
    /// would differ here.
    @Test func everyMemberIsRead() throws {
        let full = FactsJSONTests.fullReport()
        let bytes = try #require(FactsJSON.encode(full))
        let ours = try #require(FactsJSONReader.read(bytes))
        #expect(ours == FactsJSONTests.asDecoded(full))
        #expect(FactsJSON.encode(ours) == bytes)
    }

    /// A minimal report's JSON with `extra` members (raw JSON values) and without `dropping`, keys in
    /// byte order as the facts are written.
    static func text(_ extra: [String: String] = [:], dropping: String? = nil) -> [UInt8] {
        var members = [
            "brands": "[]", "camera": "{}", "dates": "{}", "fileSize": "1", "issues": "[]", "kind": #""jpeg""#, "path": #""p""#,
            "streams": "[]",
        ]
        for (k, v) in extra { members[k] = v }
        if let dropping { members[dropping] = nil }
        let keys = members.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        return Array(("{" + keys.map { "\"\($0)\":\(members[$0]!)" }.joined(separator: ",") + "}").utf8)
    }

    /// What it is not sure of is left to `JSONDecoder`: a whole number with an exponent where an integer may be
    /// read, an integer out of range, the maker note's legacy array form, a member that is not optional
    /// missing, a key twice or out of order, text that is not valid UTF-8, text after the value. Each case
    /// beside its sure twin, which is read.
    @Test func unsureTextIsLeftToJSONDecoder() throws {
        let qt = { (v: String) in #"{"movieKeys":[{"key":"k","source":"s","value":"# + v + "}],\"tracks\":[],\"userData\":[]}" }
        let apple = { (e: String) in #"{"bigEndian":true,"entries":"# + e + #","version":1}"# }
        let make = #"{"source":"a","value":"x"}"#
        let cases: [(unsure: [UInt8], sure: [UInt8])] = [
            (Self.text(["apple": apple(#"{"0x0001":1e+16}"#)]), Self.text(["apple": apple(#"{"0x0001":1.5e-07}"#)])),
            (Self.text(["apple": apple(#"[1,{"int":{"_0":2}}]"#)]), Self.text(["apple": apple(#"{"0x0001":2}"#)])),
            (Self.text(["quickTime": qt("2.0")]), Self.text(["quickTime": qt("2.5")])),
            (Self.text(["quickTime": qt("123456789012345678901234")]), Self.text(["quickTime": qt("12345678901234567890")])),
            (Self.text(dropping: "path"), Self.text(dropping: "exif")),
            (Self.text(["camera": "{\"make\":\(make),\"make\":\(make)}"]), Self.text(["camera": "{\"make\":\(make),\"model\":\(make)}"])),
            (Self.text(["camera": "{\"model\":\(make),\"make\":\(make)}"]), Self.text(["camera": "{\"make\":\(make)}"])),
            (Self.text() + Array(" x".utf8), Self.text() + Array(" \n".utf8)),
        ]
        for (unsure, sure) in cases {
            #expect(FactsJSONReader.read(unsure) == nil, "\(String(decoding: unsure, as: UTF8.self))")
            #expect(FactsJSONReader.read(sure) != nil, "\(String(decoding: sure, as: UTF8.self))")
            #expect(FactsJSONReader.read(sure) == Self.foundation(sure))
            // And DerivationRules.decode still reads what JSONDecoder reads of the unsure ones.
            #expect(DerivationRules.decode(unsure) == Self.foundation(unsure))
        }
        var bad = Self.text(["path": #""pp""#])
        bad[bad.firstIndex(of: UInt8(ascii: "p"))! + 1] = 0xFF  // "p\xFF": not UTF-8
        #expect(FactsJSONReader.read(bad) == nil)
    }

    /// Damaged records — bytes changed, cut, inserted — never read as something `JSONDecoder` would not read
    /// the same way: where the reader answers, `JSONDecoder` gives that answer.
    @Test func damagedRecordsReadAsJSONDecoderReadsThem() throws {
        var rng = SplitMix(state: 0x5EED_FAC7)
        let blobs = FactsJSONTests.samples().compactMap(FactsJSON.encode)
            + FactsJSONTests.reports.prefix(60).compactMap { FactsJSON.encode($0.report) }
        let alphabet = Array(#"{}[],:"\0123456789-.eE+ntrufalsx"#.utf8) + [0x20, 0xC3, 0xFF]
        var answered = 0
        for n in 0..<3000 {
            var b = blobs[n % blobs.count]
            guard !b.isEmpty else { continue }
            let i = Int.random(in: 0..<b.count, using: &rng)
            switch n % 3 {
            case 0: b[i] = alphabet.randomElement(using: &rng)!
            case 1: b.removeSubrange(i..<min(b.count, i + Int.random(in: 1...8, using: &rng)))
            default: b.insert(alphabet.randomElement(using: &rng)!, at: i)
            }
            guard let ours = FactsJSONReader.read(b) else { continue }
            answered += 1
            #expect(ours == Self.foundation(b), "mutation \(n): \(String(decoding: b, as: UTF8.self).prefix(300))")
        }
        #expect(answered > 100, "some mutations still read (a changed digit, a space)")
    }
}

extension FactsJSONReaderTests {
    /// An unknown member nested deeper than the reader follows is left to `JSONDecoder` (which reads or
    /// refuses it as it always did), not a stack overflow.
    @Test func deepUnknownMembersAreLeftToJSONDecoder() throws {
        let shallow = Self.text(["x": String(repeating: "[", count: 100) + String(repeating: "]", count: 100)])
        #expect(FactsJSONReader.read(shallow) != nil)
        let deep = Self.text(["x": String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)])
        #expect(FactsJSONReader.read(deep) == nil)
    }
}
