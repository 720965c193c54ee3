import TestSupport
import Testing

@testable import MediaProbe

@Suite struct SniffTests {
    @Test func jpegMagic() {
        #expect(Sniffer.sniff([0xFF, 0xD8, 0xFF, 0xE1, 0, 0], fileSize: 6) == .jpeg)
    }

    @Test func emptyIsEmpty() {
        #expect(Sniffer.sniff([], fileSize: 0) == .empty)
    }

    /// The byte search of a text header answers as the standard library's `String.contains` on its decoded
    /// text: around marks that join the needle's first or last character to a neighbour (combining accents,
    /// a prepended mark, a joiner, CR LF), invalid bytes, needles with a canonical equivalent beyond ASCII
    /// (`K`, `;`).
    @Test func textSearchAnswersAsTheStringSearch() {
        let needles = ["<plist", "PropertyList", "x:xmpmeta", "<?xpacket", "adobe:ns:meta", "OK", "a;b", "\nx", "t\r"]
        let pieces: [[UInt8]] = [
            Array("<plist".utf8), Array("PropertyList".utf8), Array("x:xmpmeta".utf8), Array("<?xpacket".utf8),
            Array("adobe:ns:meta".utf8), Array("\u{301}".utf8), Array("\u{600}".utf8), Array("\u{200D}".utf8), Array("\u{212A}".utf8),
            Array("\u{37E}".utf8), [0xFF], [0xE2, 0x82], [0xC3], Array(" x ".utf8), Array("\r\n".utf8), Array("<".utf8), Array("OK".utf8),
            Array("é".utf8), Array("t".utf8), Array("a;b".utf8), Array("t\r".utf8), Array("\n".utf8),
        ]
        var rng = SplitMix(state: 17)
        for _ in 0..<20_000 {
            var h: [UInt8] = Array("<".utf8)
            for _ in 0..<Int.random(in: 0...6, using: &rng) { h += pieces.randomElement(using: &rng)! }
            for n in needles {
                // Computed in MediaProbe, without Foundation, as the sniffer searched before the byte search.
                let expected = Sniffer.decodedContains(h, from: 0, n)
                #expect(Sniffer.textContains(h, from: 0, n) == expected, "\(h) \(n)")
            }
        }
    }
}
