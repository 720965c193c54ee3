import Testing

@testable import MediaProbe

/// `ExifReader.source(tag:_:)` writes a tag's source text by hand; the stored facts carry it, so its bytes
/// must stay those of the interpolation it replaced.
@Suite struct ExifSourceTests {
    @Test func sourceTextIsTheInterpolationsBytes() {
        let tags: [UInt32] = [0, 0x1, 0xF, 0x10, 0x10F, 0x110, 0x8769, 0x8827, 0x9003, 0xA434, 0xFFFF, 0x1_0000, 0xDEAD_BEEF, UInt32.max]
        let names = ["Make", "", "LensModel", "ISOSpeedRatings", "Ünïcödé 東京", "a\u{301}"]
        for t in tags {
            for n in names {
                let expected = "EXIF 0x\(String(t, radix: 16, uppercase: true)) \(n) (libexif)"
                #expect(Array(ExifReader.source(tag: t, n).utf8) == Array(expected.utf8), "\(t) \(n)")
            }
        }
    }
}
