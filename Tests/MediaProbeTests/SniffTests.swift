import Testing
@testable import MediaProbe

@Suite struct SniffTests {
    @Test func jpegMagic() {
        #expect(Sniffer.sniff([0xFF, 0xD8, 0xFF, 0xE1, 0, 0], fileSize: 6) == .jpeg)
    }

    @Test func emptyIsEmpty() {
        #expect(Sniffer.sniff([], fileSize: 0) == .empty)
    }
}
