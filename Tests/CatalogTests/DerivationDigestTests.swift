import Foundation
import GRDB
import Testing

@testable import Catalog

/// `derivationDigest` hashes the bytes of each column value's `DatabaseValue.description` without building
/// the string: the bytes must stay the same, or every folder digest stored by an earlier version would read
/// as changed and its folder be written again.
@Suite struct DerivationDigestTests {
    static func described(_ v: DatabaseValue) -> [UInt8] {
        var out: [UInt8] = []
        Catalog.describe(v) { out.append($0) }
        return out
    }

    @Test func valuesFeedTheBytesOfTheirDescription() {
        let strings = [
            "", "IMG_1234.HEIC", "2019-07-04T16:24:01", "it's", "say \"cheese\"", #"C:\photos"#, "tab\there", "line\nbreak",
            "cr\r", "nul\u{0}", "bell\u{7}", "del\u{7F}", "Århus", "東京", "👩‍👩‍👧", "e\u{301}", "~`!@#$%^&*()_+-={}[]|:;<>,.?/",
            "{\"a\":[1,2]}", "\u{FEFF}bom", "\u{2028}",
            // Shapes of the columns that take the escaping path: metadata_sources JSON, reasons one per line.
            #"[{"path":"/p/IMG_1.HEIC","type":"photo"}]"#, "subtype: HDR from 'EXIF 0x8827'\nlive: \"ContentIdentifier\" \\ x\r\n\t",
            "\t\n\r\"'\\", "\n", "a\u{1}b", "x\u{0}\n",
        ]
        var values: [DatabaseValue] = strings.map(\.databaseValue)
        values += [Int64.min, -1, 0, 42, Int64.max].map(\.databaseValue)
        values += [0.1, -2.5, 1e-300, 3.0, .infinity].map(\.databaseValue)
        values += [.null, Data([0, 1, 2, 255]).databaseValue, true.databaseValue]
        for v in values {
            #expect(Self.described(v) == Array(v.description.utf8), "\(v.description)")
        }
    }
}
