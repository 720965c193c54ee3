import Foundation
import Testing

@testable import Organize
@testable import Places
import PhotoModel

/// The GPS position in a place's reason is printed without Foundation's formatter: the same text as
/// `String(format: "%.4f")` of the rounded position, for every 10⁻⁴° cell tried (poles, the date line,
/// either side of zero, leading zeros of the fraction).
@Suite struct CellTextTests {
    @Test func cellTextEqualsPrintf() {
        var units: [Int] = [0, 1, -1, 9, -9, 10, 99, 999, 1000, 9999, 10_000, -10_000, 10_001, -10_001, 900_000, -900_000, 1_800_000, -1_800_000]
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<20_000 {
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            units.append(Int(x >> 33) % 3_600_001 - 1_800_000)
        }
        for u in units {
            let cell = PlaceInference.Cell(Double(u) / 10_000, 0)
            #expect(cell.lat == u)
            #expect(PlaceInference.Cell.text(u) == String(format: "%.4f", cell.latitude), "\(u)")
        }
    }
}

/// A place's distance is printed without Foundation's formatter too: `PlaceInference.fmt` gives the text of
/// `String(format: "%.Nf")` for exact ties (0.25, 2.5: to even), near-ties on either side (0.35 and 0.45 are
/// not what they look like as doubles), negative values and zeros, large values, and random distances.
@Suite struct FixedDecimalsTests {
    @Test func fixedDecimalsEqualPrintf() {
        var values: [Double] = [
            0, -0.0, 0.05, 0.15, 0.25, 0.35, 0.45, 0.5, 0.75, 1.05, 2.5, 3.5, 9.95, 9.96, 99.95, 0.049999999999999996,
            -0.04, -0.05, -0.25, -2.5, 1e-300, 123_456_789.25, 4_503_599_627_370_495.5, 1e17, .infinity, -.infinity, .nan,
            Double.ulpOfOne, 0.1 + 0.2, 1 / 3, 2 / 3, 19_999.95, 0.000_5, 0.000_05,
        ]
        var x: UInt64 = 0x2545_F491_4F6C_DD1D
        for _ in 0..<20_000 {
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // Distances up to a few thousand km, with many on a tenth and a half-tenth.
            let d = Double(x >> 11) / Double(1 << 53) * 5000
            values += [d, (d * 10).rounded() / 10, ((d * 10).rounded() + 0.5) / 10, ((d * 100).rounded() + 0.5) / 100]
        }
        for v in values {
            for digits in [0, 1, 2, 4] {
                #expect(PlaceInference.fmt(v, digits) == String(format: "%.\(digits)f", v), "\(v) with \(digits) digits")
            }
        }
    }
}

/// `WallClock.seconds` decides ASCII texts on their bytes: the same answers as the Character-wise
/// definition (`CivilDate.parse` + `CivilDate.seconds` of the first 19 characters) for dates, near-dates
/// and texts with non-ASCII bytes.
@Suite struct WallClockBytesTests {
    static func reference(_ s: String) -> Int? {
        guard let (_, m, d) = CivilDate.parse(s), (1...12).contains(m), (1...31).contains(d) else { return nil }
        return CivilDate.seconds(AssetDate(local: String(s.prefix(19)), offsetSeconds: nil)).map { Int($0) }
    }

    @Test func bytesMatchTheCharacterDefinition() {
        let texts = [
            "2023-03-26T00:30:00", "2023-03-26T00:30:00.123", "1969-12-31T23:59:59", "0001-01-01T00:00:00", "9999-12-31 23:59:59",
            "2023-13-01T00:00:00", "2023-00-10T00:00:00", "2023-02-32T00:00:00", "2023-02-31T00:00:00", "2023-1-01T00:00:00",
            "2023/01/01T00:00:00", "2023-01-01", "2023-01-01T00:00", "2023-01-01T0a:00:00", "+023-01-01T00:00:00", "2023-01-01\r\n0:00:00",
            "2023-01-01T00:00:0\r\n", "2023-01-01T00:00:00é", "2023-01-01é00:00:00", "2023-01-01\u{301}T00:00:00", "",
            "２０２３-01-01T00:00:00", "2023-01-01T24:61:61",
        ]
        for t in texts { #expect(WallClock.seconds(t) == Self.reference(t), "\(t.debugDescription)") }
    }
}
