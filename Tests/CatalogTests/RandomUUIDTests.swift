import Foundation
import Testing

@testable import Catalog

/// Local identifiers take random UUIDs written as `UUID().uuidString` writes them.
@Suite struct RandomUUIDTests {
    @Test func randomUUIDsAreVersion4TextsThatDoNotRepeat() throws {
        var seen = Set<String>()
        for _ in 0..<10_000 {  // past the 256 UUIDs one fill of the pool holds
            let s = RandomUUID.string()
            let u = try #require(UUID(uuidString: s), "\(s)")
            #expect(u.uuidString == s)  // upper case, 8-4-4-4-12
            #expect(u.uuid.6 >> 4 == 4)  // version 4
            #expect(u.uuid.8 >> 6 == 0b10)  // RFC 4122 variant
            #expect(seen.insert(s).inserted)
        }
        // Every hex digit position varies (the bits not fixed by version and variant are random).
        let samples = (0..<64).map { _ in Array(RandomUUID.string().utf8) }
        for i in 0..<36 where ![8, 13, 18, 23, 14].contains(i) {
            #expect(Set(samples.map { $0[i] }).count > 1, "position \(i)")
        }
    }
}
