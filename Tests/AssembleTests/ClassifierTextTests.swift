import Testing

@testable import Classify

/// The byte-first text tests of the classifier give what the character tests they stand for give.
@Suite struct ClassifierTextTests {
    static let texts = [
        "", "front", "FRONT", "iPhone 12 Pro front camera 2.71mm f/2.2", "iPhone 12 Pro back camera", "Front", "fRoNt",
        "fron", "xfrontx", "front\u{301}", "fronte\u{301}", "fr\u{F6}nt", "\u{130}front", "\u{212A}front", "ＦＲＯＮＴ", "frontfront",
        "urn:com:apple:photo:2020:aux:hdrgainmap", "urn:com:apple:photo:2018:aux:depth", "urn:mpeg:hevc:2015:auxid:2",
        "urn:mpeg:hevc:2015:auxid:2\u{301}", "auxid:1", ":depth", ":DEPTH", "a:depth\u{308}",
    ]

    @Test func lowercasedContainsIsTheCharacterTest() {
        for t in Self.texts {
            for w in ["front", "depth", "t"] {
                #expect(t.lowercasedContains(w) == t.lowercased().contains(w), "\(t) / \(w)")
            }
        }
    }

    @Test func containsASCIIIsTheCharacterTest() {
        for t in Self.texts {
            for w in ["auxid:2", ":depth", "front", "FRONT"] {
                #expect(t.containsASCII(w) == t.contains(w), "\(t) / \(w)")
            }
        }
    }
}
