import TestSupport
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

/// An EXIF date's source names the tags its value was made of: a date without sub-seconds or offset said
/// "+ SubSecTimeOriginal + OffsetTimeOriginal" all the same, which read as a known zone where there is none.
@Suite struct ExifDateSourceTests {
    @Test func thePartsUsedAreTold() throws {
        let plain = try #require(ExifDate.parseNamingParts("2024:05:02 15:00:00", subSeconds: nil, offset: nil))
        #expect(plain.date.local == "2024-05-02T15:00:00" && !plain.subSeconds && !plain.offset)
        let both = try #require(ExifDate.parseNamingParts("2024:05:02 15:00:00", subSeconds: "123", offset: "+02:00"))
        #expect(both.date.local == "2024-05-02T15:00:00.123" && both.date.offsetSeconds == 7200 && both.subSeconds && both.offset)
        // Unusable tags are not named; a fraction and an offset in the date's own text are the date tag's.
        let bad = try #require(ExifDate.parseNamingParts("2024:05:02 15:00:00", subSeconds: "  ", offset: "+99:00"))
        #expect(!bad.subSeconds && !bad.offset && bad.date.offsetSeconds == nil)
        let inline = try #require(ExifDate.parseNamingParts("2024:05:02 15:00:00.5+01:00", subSeconds: nil, offset: nil))
        #expect(inline.date.local == "2024-05-02T15:00:00.5" && inline.date.offsetSeconds == 3600 && !inline.subSeconds && !inline.offset)
        #expect(ExifDate.parse("2024:05:02 15:00:00", subSeconds: "7", offset: "-05:00") == FileDate(local: "2024-05-02T15:00:00.7", offsetSeconds: -18000))
    }

    @Test func aProbedDateNamesOnlyItsTags() throws {
        let lib = Corpus.fixtures.appendingPathComponent("generated/library").path
        let plain = Prober().probe(path: lib + "/camera/DSC_0010.JPG").dates.original
        #expect(plain?.source == "EXIF DateTimeOriginal (libexif)")
        let full = Prober().probe(path: lib + "/iphone/IMG_0001.JPG").dates.original
        #expect(full?.source == "EXIF DateTimeOriginal + SubSecTimeOriginal + OffsetTimeOriginal (libexif)")
        #expect(full?.value.offsetSeconds == 7200)
    }
}
