import Foundation
import TestSupport
import Testing

@testable import MediaProbe

/// The long tail (issue 15): real camera, scanner and phone files from `../shared/longtail` checked
/// against its README's rows, the generated long-tail fixtures (`Fixtures/longtail.py`) against
/// `longtail-expected.json`, and the new readers on hostile bytes.
@Suite struct LongTailTests {
    enum DateField: Sendable {
        case original, iptcCreation, xmpCreation, userDataCreation

        func value(_ d: DateFacts) -> Sourced<FileDate>? {
            switch self {
            case .original: return d.original
            case .iptcCreation: return d.iptcCreation
            case .xmpCreation: return d.xmpCreation
            case .userDataCreation: return d.userDataCreation
            }
        }
    }

    /// One README row: what a correct probe gives.
    struct Row: Sendable, CustomStringConvertible {
        var file: String
        var kind: ContainerKind
        var width: Int?
        var height: Int?
        /// The date the probe must carry somewhere (local time + offset text), and where.
        var date: String? = nil
        var dateField: DateField? = nil
        var latitude: Double? = nil
        var longitude: Double? = nil
        var make: String? = nil
        var model: String? = nil
        var duration: Double? = nil
        /// No error issue may be reported.
        var clean = true

        var description: String { file }
    }

    static let rows: [Row] = [
        Row(
            file: "tif/Issue 555 (1).tif", kind: .tiff, width: 1600, height: 1300, date: "2021-07-22T10:18:45",
            dateField: .original,
            latitude: -20.44058, longitude: 57.31885, make: "DJI", model: "FC6360"),
        Row(
            file: "tif/Issue 16.tif", kind: .tiff, width: 728, height: 825, date: "2010-09-30T16:06:06", dateField: .original,
            make: "Phase One", model: "P 45+"),
        Row(
            file: "tif/ImageTestSuite/f8179f8f5e566349cf3583a1ff3ea95c.tif", kind: .tiff, width: 1656, height: 2339, make: "RICOH"
        ),
        Row(file: "tif/ImageTestSuite/b52a2fceb34f9b31cb417379cf8c02ba.tif", kind: .tiff, width: 54, height: 50),
        Row(file: "tif/BigTIFF/BigTIFF.tif", kind: .tiff, width: 64, height: 64),
        Row(
            file: "jpg/Issue 600 (2).jpg", kind: .jpeg, width: 1280, height: 1024, date: "2009-09-09T17:00:00+00:00",
            dateField: .iptcCreation),
        Row(
            file: "jpg/issue 121.jpg", kind: .jpeg, width: 164, height: 144, date: "2011-06-14T15:47:00+02:00",
            dateField: .xmpCreation),
        Row(
            file: "jpg/Kodak ProBack.jpg", kind: .jpeg, width: 1228, height: 877, date: "2004-03-13T12:33:04",
            dateField: .original,
            make: "Kodak", model: "ProBack"),
        Row(file: "jpg/beach.jpg", kind: .jpeg, width: 200, height: 200),
        Row(
            file: "mp4/Issue 515 (java).mp4", kind: .mp4, width: 1280, height: 720, date: "2020-11-20T15:04:02+01:00",
            dateField: .userDataCreation, latitude: 52.36929, longitude: 6.67609, duration: 3.635),
        Row(file: "m4a/Issue 337 (dotnet).m4a", kind: .m4a, duration: 11.288),
        Row(file: "bmp/24bpp-10x10.bmp", kind: .bmp, width: 10, height: 10),
        Row(file: "psd/8x4x8bit-Grayscale.psd", kind: .psd, width: 8, height: 4),
        Row(file: "jpg2000/balloon.jp2", kind: .jp2, width: 2717, height: 3701),
    ]

    @Test(.enabled(if: LongTail.isAvailable, "\(LongTail.skipMessage)"), arguments: rows)
    func realFileMatchesReadme(_ row: Row) throws {
        let path = try #require(LongTail.path(row.file))
        let r = Prober().probe(path: path)
        #expect(r.kind == row.kind, "\(row.file): kind \(r.kind)")
        #expect(
            r.pixelWidth?.value == row.width && r.pixelHeight?.value == row.height,
            "\(row.file): \(String(describing: r.pixelWidth)) × \(String(describing: r.pixelHeight))")
        if let date = row.date, let field = row.dateField {
            #expect(field.value(r.dates)?.value.description == date, "\(row.file): \(r.dates)")
        }
        if let lat = row.latitude, let lon = row.longitude {
            let l = try #require(r.location, "\(row.file): no location")
            #expect(abs(l.value.latitude - lat) < 1e-4 && abs(l.value.longitude - lon) < 1e-4, "\(row.file): \(l)")
        }
        if let make = row.make { #expect(r.camera.make?.value == make) }
        if let model = row.model { #expect(r.camera.model?.value == model) }
        if let d = row.duration { #expect(abs((r.quickTime?.durationSeconds ?? -1) - d) < 0.01, "\(row.file): duration") }
        #expect(r.isClean == row.clean, "\(row.file): \(r.issues)")
    }

    /// Issue 600: the malformed XMP value is ignored with a note, never half-read into an offset of −09:09.
    @Test(.enabled(if: LongTail.isAvailable, "\(LongTail.skipMessage)"))
    func malformedXMPDateIsIgnoredWithANote() throws {
        let r = Prober().probe(path: try #require(LongTail.path("jpg/Issue 600 (2).jpg")))
        #expect(r.dates.xmpCreation == nil)
        #expect(r.issues.contains { $0.severity == .warning && $0.stage == .xmp && $0.reason.contains("photoshop:DateCreated") })
    }

    /// The Kodak maker IFD loop is a warning once the other facts are read.
    @Test(.enabled(if: LongTail.isAvailable, "\(LongTail.skipMessage)"))
    func interopLoopIsAWarning() throws {
        let r = Prober().probe(path: try #require(LongTail.path("jpg/Kodak ProBack.jpg")))
        #expect(r.issues.contains { $0.severity == .warning && $0.reason.contains("IFD offset loop") })
        #expect(r.isClean)
    }

    // MARK: - Generated fixtures

    nonisolated(unsafe) static let generated = LongTail.generatedExpectations()
    static var generatedNames: [String] { generated.compactMap { $0["file"] as? String } }

    @Test func generatedFixturesArePresent() {
        #expect(Self.generatedNames.count >= 20, "Fixtures/generated/longtail-expected.json lists the long-tail fixtures")
    }

    @Test(arguments: generatedNames)
    func generatedFixtureMatchesExpected(_ name: String) throws {
        let e = try #require(Self.generated.first { $0["file"] as? String == name })
        let r = Prober().probe(path: Corpus.fixtures.appendingPathComponent("generated").appendingPathComponent(name).path)
        #expect(r.isClean, "\(name): \(r.issues)")
        #expect(r.kind.rawValue == e["kind"] as? String, "\(name): kind \(r.kind)")
        if let w = e["width"] as? Int, let h = e["height"] as? Int {
            #expect(
                r.pixelWidth?.value == w && r.pixelHeight?.value == h,
                "\(name): \(String(describing: r.pixelWidth)) \(String(describing: r.pixelHeight))")
        }
        if let o = e["orientation"] as? Int { #expect(r.orientation?.value == o) }
        if let d = e["dateTimeOriginal"] as? String { #expect(r.dates.original?.value.description == d, "\(name): \(r.dates)") }
        if let lat = e["latitude"] as? Double, let lon = e["longitude"] as? Double {
            #expect(
                abs((r.location?.value.latitude ?? 0) - lat) < 1e-4 && abs((r.location?.value.longitude ?? 0) - lon) < 1e-4,
                "\(name)")
        } else if e.keys.contains("latitude") {
            #expect(r.location == nil, "\(name): 0,0 is no location")
        }
        if let make = e["make"] as? String { #expect(r.camera.make?.value == make) }
        if let model = e["model"] as? String { #expect(r.camera.model?.value == model) }
        #expect(!r.issues.contains { $0.reason.contains("does not match the content") }, "\(name): \(r.issues)")
    }

    /// Every long-tail fixture cut short and bit-flipped probes to a report (nothing crashes, sizes stay sane).
    @Test(arguments: generatedNames)
    func cutAndFlippedFixturesProbe(_ name: String) throws {
        let url = Corpus.fixtures.appendingPathComponent("generated").appendingPathComponent(name)
        let bytes = [UInt8](try Data(contentsOf: url))
        var rng = SystemRandomNumberGenerator()
        for cut in [7, 16, 40, 300, bytes.count / 2, bytes.count - 3] where cut > 0 && cut < bytes.count {
            var b = Array(bytes[..<cut])
            let r = Prober().probe(source: MemorySource(b), path: name)
            #expect((r.pixelWidth?.value ?? 1) > 0)
            for _ in 0..<8 { b[Int.random(in: 0..<b.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng) }
            _ = Prober().probe(source: MemorySource(b), path: name)
        }
    }

    // MARK: - XMP dates

    @Test(
        arguments: [
            ("2011-06-14T15:47+02:00", "2011-06-14T15:47:00+02:00", ""),
            ("2016-05-04T12:00:00.123+02:00", "2016-05-04T12:00:00.123+02:00", ""),
            ("2016-05-04T12:00:00Z", "2016-05-04T12:00:00+00:00", ""),
            ("2016-05-04T12:00:00", "2016-05-04T12:00:00", ""),
            ("2016-05-04", "2016-05-04T00:00:00", " (date only)"),
            ("2016-05", "2016-05-01T00:00:00", " (year and month only)"),
            ("2016", "2016-01-01T00:00:00", " (year only)"),
            ("2012:05:22 15:52:27+01:00", nil, ""),
        ] as [(String, String?, String)])
    func xmpDateGrammar(_ text: String, _ expected: String?, _ precision: String) {
        let d = XMPDate.parse(text)
        #expect(d?.date.description == expected, "\(text)")
        if expected != nil { #expect(d?.precision == precision) }
    }

    @Test(arguments: [
        "2009-09-09T17:00:00, 2009-09-09", "2009-13-01", "2009-09-09T25:00", "2009-09-09T17", "09-09-2009",
        "2009-09-09T17:00+0930x", "",
    ])
    func malformedXMPDatesAreRejectedWhole(_ text: String) {
        #expect(XMPDate.parse(text) == nil, "\(text)")
    }

    @Test func xmpCoordinates() {
        #expect(XMPCoordinate.parse("20,26.43507S").map { abs($0 + 20.4405845) < 1e-6 } == true)
        #expect(XMPCoordinate.parse("57,19,6.67E").map { abs($0 - 57.318519) < 1e-5 } == true)
        #expect(XMPCoordinate.parse("57,19,6.67") == nil)
        #expect(XMPCoordinate.parse("57,75E") == nil)
    }

    @Test func aviIDITDates() {
        #expect(AVIReader.iditDate("THU OCT 26 16:46:04 2006")?.description == "2006-10-26T16:46:04")
        #expect(AVIReader.iditDate("2005:08:17 11:42:43")?.description == "2005-08-17T11:42:43")
        #expect(AVIReader.iditDate("2005/08/17 11:42:43")?.description == "2005-08-17T11:42:43")
        #expect(AVIReader.iditDate("SOMETIME IN 2006") == nil)
    }

    @Test func iptcDateAndTime() {
        let b: [UInt8] = [0x1C, 2, 55, 0, 8] + Array("20090909".utf8) + [0x1C, 2, 60, 0, 11] + Array("170000-0500".utf8)
        let f = IPTCReader.read(b)
        #expect(IPTCFacts.date(f.dateCreated, f.timeCreated)?.description == "2009-09-09T17:00:00-05:00")
        #expect(IPTCFacts.date("20100000", nil) == nil, "month 00 is not a date")
        #expect(IPTCReader.read([0x1C, 2, 55, 0xFF, 0xFF, 1]) == IPTCFacts(), "a length past the end stops the walk")
    }

    // MARK: - TIFF directories on hostile bytes

    /// A little-endian TIFF with one IFD of `entries` at `ifdOffset` (padding before it).
    static func tiff(ifdOffset: Int = 8, entries: [(UInt16, UInt16, UInt32, UInt32)], next: UInt32 = 0, tail: [UInt8] = [])
        -> [UInt8]
    {
        func le(_ v: UInt64, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
        var b: [UInt8] = [0x49, 0x49, 42, 0] + le(UInt64(ifdOffset), 4)
        b += [UInt8](repeating: 0, count: ifdOffset - 8)
        b += le(UInt64(entries.count), 2)
        for (tag, type, count, value) in entries {
            b += le(UInt64(tag), 2) + le(UInt64(type), 2) + le(UInt64(count), 4) + le(UInt64(value), 4)
        }
        return b + le(UInt64(next), 4) + tail
    }

    @Test func directoriesFarIntoTheFileAreRead() throws {
        let b = Self.tiff(ifdOffset: 200_000, entries: [(0x0100, 3, 1, 640), (0x0101, 3, 1, 480), (0x00FE, 4, 1, 0)])
        let d = try TIFFDirectories(MemorySource(b))
        #expect(d.mainImage?.width == 640 && d.mainImage?.height == 480)
        #expect(d.refinedKind == .tiff)
    }

    @Test func loopsAndWildOffsetsAreBounded() throws {
        // IFD0's next IFD is itself; its Exif pointer lies past the end; a count of 4 billion.
        let b = Self.tiff(entries: [(0x8769, 4, 1, 0xFFFF_FF00), (0x0100, 4, 0xFFFF_FFFF, 8)], next: 8)
        let d = try TIFFDirectories(MemorySource(b))
        #expect(d.loops.count == 1 && d.directories.count == 1)
        #expect(d.warnings.contains { $0.contains("outside the file") })
        #expect(d.bytes(d.ifd0!.entries[1]) == nil, "a value larger than the cap is not read")
        let block = d.exifBlock().block
        #expect(block.count <= ExifReader.maxBlock - 6)
    }

    @Test func exifBlockStaysUnderLibexifsCap() throws {
        // 400 ASCII entries of 1 KiB each: the largest are left out until the block fits.
        let count = 400
        let dataStart = 8 + 2 + 12 * count + 4
        let entries = (0..<count).map { (UInt16(0x1000 + $0), UInt16(2), UInt32(1024), UInt32(dataStart)) }
        let b = Self.tiff(entries: entries, tail: [UInt8](repeating: 0x41, count: 1024))
        let d = try TIFFDirectories(MemorySource(b))
        let (block, dropped) = d.exifBlock()
        #expect(block.count <= ExifReader.maxBlock - 6 && !dropped.isEmpty)
        #expect(try TIFFDirectories(MemorySource(block)).ifd0 != nil, "the written block is a TIFF again")
    }

    @Test func thousandsOfInlineEntriesStillFitTheCap() throws {
        // IFD0 and the Exif IFD with 4000 inline SHORT entries each: 96 KB of entries alone.
        let n = 4000
        let exifAt = 8 + 2 + 12 * (n + 1) + 4
        func le(_ v: Int, _ k: Int) -> [UInt8] { (0..<k).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        var exif = le(n, 2)
        for t in 0..<n { exif += le(0x9000 + t, 2) + le(3, 2) + le(1, 4) + le(7, 4) }
        exif += le(0, 4)
        let entries = (0..<n).map { (UInt16(0x1000 + $0), UInt16(3), UInt32(1), UInt32(7)) } + [(0x8769, 4, 1, UInt32(exifAt))]
        let d = try TIFFDirectories(MemorySource(Self.tiff(entries: entries, tail: exif)))
        #expect(d.directory(.exif)?.entries.count == n)
        let (block, dropped) = d.exifBlock()
        #expect(block.count <= 0xFFFE && !dropped.isEmpty)
        let again = try TIFFDirectories(MemorySource(block))
        #expect(again.directory(.exif) != nil, "the Exif pointer survives the cut")
    }

    /// libexif allocates from a per-thread arena for each read: a directory of thousands of entries (an array
    /// libexif grows one entry at a time) reads the same every time, on the same thread, read after read.
    @Test func libexifReadsFromItsArenaAgainAndAgain() throws {
        let n = 4000
        let makeAt = 8 + 2 + 12 * (n + 1) + 4
        let entries = [(UInt16(0x010F), UInt16(2), UInt32(6), UInt32(makeAt))]
            + (0..<n).map { (UInt16(0x1000 + $0), UInt16(3), UInt32(1), UInt32($0)) }
        let block = Self.tiff(entries: entries, tail: Array("Maker\0".utf8))
        #expect(block.count < ExifReader.maxBlock)
        var first: ExifReading?
        for _ in 0..<200 {
            let r = try ExifReader.read(block, container: "test")
            #expect(r.camera.make?.value == "Maker")
            if let first { #expect(r.exif == first.exif) } else { first = r }
        }
    }

    @Test func rawByStructureNotByMaker() throws {
        let make = Array("NIKON\0".utf8)
        let plain = Self.tiff(entries: [(0x010F, 2, 6, 26)], tail: make)
        #expect(try TIFFDirectories(MemorySource(plain)).refinedKind == .tiff)
        let cfa = Self.tiff(entries: [(0x0106, 3, 1, 32803), (0x010F, 2, 6, 38)], tail: make)
        #expect(try TIFFDirectories(MemorySource(cfa)).refinedKind == .nef)
        let dng = Self.tiff(entries: [(0xC612, 1, 4, 0x0104)])
        #expect(try TIFFDirectories(MemorySource(dng)).refinedKind == .dng)
    }

    // MARK: - Still headers and sniffing

    @Test func jxlSizeHeader() {
        // small = 1, height (7+1)*8 = 64, ratio 5 (16:9) → 113×64.
        var bits = LSBBits([0b0100_1111, 0b0000_0001])
        let s = bits.jxlSize()
        #expect(s?.width == 113 && s?.height == 64)
    }

    @Test func sniffingNeedsTheWholeSignature() {
        #expect(Sniffer.sniff(Array("BM".utf8) + [UInt8](repeating: 0, count: 40), fileSize: 42) == .unknown)
        #expect(
            Sniffer.sniff([0, 0, 1, 0, 1, 0] + [UInt8](repeating: 0, count: 30), fileSize: 36) == .unknown,
            "an ICO entry must point at data")
        #expect(Sniffer.sniff(Array("P6\n4 4\n255\n".utf8), fileSize: 100) == .pnm)
        #expect(Sniffer.sniff(Array("P1 notes for the trip\n".utf8), fileSize: 100) == .unknown, "a text starting with P1 is not a PBM")
        #expect(Sniffer.sniff(Array("ID3\u{3}\0".utf8) + [UInt8](repeating: 0, count: 20), fileSize: 100) == .mp3)
        #expect(
            Sniffer.sniff([0xFF, 0xFB, 0x90, 0x00] + [UInt8](repeating: 0, count: 20), fileSize: 100) == .unknown,
            "one frame header is not enough")
    }

    @Test func truncatedStillHeadersAreErrorsNotCrashes() {
        let heads: [[UInt8]] = [
            Array("BM".utf8) + [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 40, 0, 0, 0],
            Array("8BPS".utf8) + [0, 1, 0, 0],
            [0, 0, 0, 0x0C] + Array("jP  \r\n".utf8) + [0x87, 0x0A, 0xFF, 0xFF, 0xFF, 0xFF] + Array("jp2h".utf8),
            [0xFF, 0x4F, 0xFF, 0x51, 0, 0x29],
            [0xFF, 0x0A, 0xFF],
        ]
        for h in heads {
            let r = Prober().probe(source: MemorySource(h), path: "x")
            #expect(r.kind.isImage || r.kind == .unknown)
            #expect(r.pixelWidth == nil || (r.pixelWidth?.value ?? 0) > 0)
        }
    }
}
