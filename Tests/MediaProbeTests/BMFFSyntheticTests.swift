import Foundation
import Testing
@testable import MediaProbe

/// Builders for synthetic ISO-BMFF files.
enum B {
    static func u16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func u32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (24 - 8 * UInt32($0))) & 0xFF) } }
    static func u64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8((v >> (56 - 8 * UInt64($0))) & 0xFF) } }
    static func s(_ t: String) -> [UInt8] { Array(t.utf8) }
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { u32(UInt32(8 + payload.count)) + s(type) + payload }
    static func box(_ code: UInt32, _ payload: [UInt8]) -> [UInt8] { u32(UInt32(8 + payload.count)) + u32(code) + payload }
    static func full(_ type: String, _ version: UInt8, _ flags: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version] + Array(u32(flags).dropFirst()) + payload)
    }
    static let ftypQT = box("ftyp", s("qt  ") + u32(0) + s("qt  "))
    static let ftypHEIC = box("ftyp", s("heic") + u32(0) + s("mif1") + s("heic"))

    static func keys(_ names: [String]) -> [UInt8] {
        full("keys", 0, 0, u32(UInt32(names.count)) + names.flatMap { u32(UInt32(8 + $0.utf8.count)) + s("mdta") + s($0) })
    }
    static func item(_ index: UInt32, type: UInt32, _ value: [UInt8]) -> [UInt8] {
        box(index, box("data", u32(type) + u32(0) + value))
    }
    static func meta(keys names: [String], items: [[UInt8]]) -> [UInt8] {
        box("meta", full("hdlr", 0, 0, u32(0) + s("mdta") + u32(0) + u32(0) + u32(0) + [0]) + keys(names) + box("ilst", items.flatMap { $0 }))
    }
    static func mvhd(version: UInt8, timescale: UInt32, duration: UInt64, created: UInt64) -> [UInt8] {
        let times = version == 1 ? u64(created) + u64(created) + u32(timescale) + u64(duration)
            : u32(UInt32(created)) + u32(UInt32(created)) + u32(timescale) + u32(UInt32(duration))
        return full("mvhd", version, 0, times + [UInt8](repeating: 0, count: 80))
    }
}

/// Synthetic and malformed inputs, part of `BMFFReaderTests`.
extension BMFFReaderTests {
    static func parse(_ bytes: [UInt8]) throws(ProbeError) -> BMFFReader.Result { try BMFFReader.read(MemorySource(bytes)) }

    // MARK: well-formed

    @Test func typedValuesAndPerMetaKeyTables() throws {
        // Track meta comes before the movie meta: each meta must use its own keys table.
        let trackMeta = B.meta(keys: ["com.apple.photos.captureMode"], items: [B.item(1, type: 1, B.s("Time-lapse"))])
        let tkhd = B.full("tkhd", 0, 0, B.u32(0) + B.u32(0) + B.u32(7) + B.u32(0) + B.u32(100) + [UInt8](repeating: 0, count: 16)
            + B.u32(0) + B.u32(0x10000) + B.u32(0) + B.u32(0xFFFF_0000) + B.u32(0) + B.u32(0) + B.u32(0) + B.u32(0) + B.u32(0x4000_0000)
            + B.u32(1920 << 16) + B.u32(1080 << 16))
        let mdhd = B.full("mdhd", 1, 0, B.u64(0) + B.u64(0) + B.u32(600) + B.u64(1200) + B.u32(0))
        let hdlr = B.full("hdlr", 0, 0, B.s("mhlr") + B.s("vide") + B.u32(0) + B.u32(0) + B.u32(0) + [16] + B.s("Core Media Video"))
        let visual = [UInt8](repeating: 0, count: 24) + B.u16(1440) + B.u16(1080) + [UInt8](repeating: 0, count: 50)
        let stsd = B.full("stsd", 0, 0, B.u32(1) + B.box("hvc1", visual))
        let stts = B.full("stts", 0, 0, B.u32(2) + B.u32(50) + B.u32(20) + B.u32(10) + B.u32(20))
        let elst = B.full("elst", 1, 0, B.u32(1) + B.u64(100) + B.u64(UInt64(bitPattern: -1)) + B.u16(1) + B.u16(0))
        let trak = B.box("trak", tkhd + B.box("edts", elst) + trackMeta + B.box("mdia", mdhd + hdlr + B.box("minf", B.box("stbl", stsd + stts))))
        let movieMeta = B.meta(
            keys: ["k.utf8", "k.utf16", "k.i8", "k.i64", "k.u16", "k.f32", "k.f64", "k.bin", "k.text0"],
            items: [
                B.item(1, type: 1, B.s("héllo")),
                B.item(2, type: 2, [0, 0x41, 0x00, 0xE9]),
                B.item(3, type: 21, [0xFF]),
                B.item(4, type: 21, B.u64(UInt64(bitPattern: -5_000_000_000))),
                B.item(5, type: 22, B.u16(65535)),
                B.item(6, type: 23, B.u32(Float(0.5).bitPattern)),
                B.item(7, type: 24, B.u64(Double(2.25).bitPattern)),
                B.item(8, type: 14, [1, 2, 3]),
                B.item(9, type: 0, B.s("plain")),
            ])
        let udta = B.box("udta", B.box(0xA978_797A, B.u16(18) + B.u16(0x15C7) + B.s("+51.4169-000.0806/")))
        let moov = B.box("moov", B.mvhd(version: 1, timescale: 600, duration: 1200, created: 3_837_456_000) + trak + movieMeta + udta)
        let r = try Self.parse(B.ftypQT + moov)
        let q = try #require(r.quickTime)
        #expect(r.brands == ["qt  ", "qt  "])
        #expect(q.movieTimescale == 600 && q.movieDuration == 1200)
        // 3_837_456_000 s after 1904-01-01 = 2025-08-08T00:00:00Z.
        #expect(q.creationTime == FileDate(local: "2025-08-08T00:00:00", offsetSeconds: 0))
        #expect(q.movieValue("k.utf8")?.value == .string("héllo"))
        #expect(q.movieValue("k.utf16")?.value == .string("Aé"))
        #expect(q.movieValue("k.i8")?.value == .int(-1))
        #expect(q.movieValue("k.i64")?.value == .int(-5_000_000_000))
        #expect(q.movieValue("k.u16")?.value == .uint(65535))
        #expect(q.movieValue("k.f32")?.value == .float(0.5))
        #expect(q.movieValue("k.f64")?.value == .float(2.25))
        #expect(q.movieValue("k.bin")?.value == .data(type: 14, count: 3))
        #expect(q.movieValue("k.text0")?.value == .string("plain"))
        #expect(q.movieValue("com.apple.photos.captureMode") == nil)
        #expect(q.userData == [MetadataItem(key: "©xyz", value: .string("+51.4169-000.0806/"), source: "moov/udta/©xyz")])
        let t = try #require(q.tracks.first)
        #expect(t.keys == [MetadataItem(key: "com.apple.photos.captureMode", value: .string("Time-lapse"), source: "moov/trak[1]/meta")])
        #expect(t.trackID == 7 && t.width == 1920 && t.height == 1080)
        #expect(t.rotation == 90)
        #expect(t.handler == "vide" && t.handlerName == "Core Media Video")
        #expect(t.sampleEntry == "hvc1" && t.codedWidth == 1440 && t.codedHeight == 1080)
        #expect(t.mediaTimescale == 600 && t.mediaDuration == 1200)
        #expect(t.sampleCount == 60 && t.sttsDuration == 1200)
        #expect(t.nominalFrameRate == 30)
        #expect(t.editList == [EditListEntry(segmentDuration: 100, mediaTime: -1, mediaRate: 1)])
    }

    @Test(arguments: [(0x10000, 0, 0), (0, 0x10000, 90), (-0x10000, 0, 180), (0, -0x10000, 270)] as [(Int32, Int32, Int)])
    func rotationFromMatrix(a: Int32, b: Int32, expected: Int) {
        #expect(QuickTimeMovieParser.rotation(a: Double(a), b: Double(b), c: Double(-b), d: Double(a)) == expected)
    }

    @Test func heifItemsPropertiesAndIdat() throws {
        // Exif stored in idat (construction method 1), iref v1 with 32-bit ids, ipma with 15-bit indices.
        let tiff: [UInt8] = B.s("MM") + [0, 0x2A] + B.u32(8) + [0, 0]
        let exifItem = B.u32(6) + B.s("Exif") + [0, 0] + tiff
        let idat = B.box("idat", exifItem)
        let iinf = B.full("iinf", 0, 0, B.u16(3)
            + B.full("infe", 2, 0, B.u16(1) + B.u16(0) + B.s("hvc1") + [0])
            + B.full("infe", 2, 1, B.u16(2) + B.u16(0) + B.s("hvc1") + B.s("Aux") + [0])
            + B.full("infe", 2, 1, B.u16(3) + B.u16(0) + B.s("Exif") + [0]))
        let iloc = B.full("iloc", 1, 0, [0x44, 0x00] + B.u16(1) + B.u16(3) + B.u16(1) + B.u16(0) + B.u16(1) + B.u32(0) + B.u32(UInt32(exifItem.count)))
        let iref = B.full("iref", 1, 0, B.box("auxl", B.u32(2) + B.u16(1) + B.u32(1)) + B.box("cdsc", B.u32(3) + B.u16(1) + B.u32(1)))
        let ipco = B.box("ipco", B.full("ispe", 0, 0, B.u32(4032) + B.u32(3024)) + B.box("irot", [3]) + B.box("imir", [1])
            + B.box("colr", B.s("nclx") + B.u16(9) + B.u16(16) + B.u16(9) + [0x80])
            + B.full("auxC", 0, 0, B.s("urn:mpeg:hevc:2015:auxid:2") + [0]))
        let ipma = B.full("ipma", 0, 1, B.u32(2) + B.u16(1) + [4] + B.u16(0x8001) + B.u16(2) + B.u16(3) + B.u16(4)
            + B.u16(2) + [1] + B.u16(5))
        let grpl = B.box("grpl", B.full("ster", 0, 0, B.u32(9) + B.u32(2) + B.u32(1) + B.u32(2)))
        let meta = B.full("meta", 0, 0, B.full("hdlr", 0, 0, B.u32(0) + B.s("pict") + [UInt8](repeating: 0, count: 13))
            + B.full("pitm", 0, 0, B.u16(1)) + iinf + iloc + iref + B.box("iprp", ipco + ipma) + idat + grpl)
        let head = B.ftypHEIC + meta
        let mpvd = B.box("mpvd", B.s("video-bytes"))
        let file = head + B.box("mdat", [1, 2, 3]) + mpvd
        let r = try Self.parse(file)
        let h = try #require(r.heif)
        #expect(h.primaryItemID == 1)
        #expect(h.items.map(\.id) == [1, 2, 3] && h.items[1].hidden && h.items[1].name == "Aux")
        #expect(h.width == 4032 && h.height == 3024 && h.rotation == 3 && h.mirror == 1)
        #expect(h.transferCharacteristics == 16)
        #expect(h.auxiliaries == [HEIFAuxiliary(itemID: 2, type: "urn:mpeg:hevc:2015:auxid:2", forItem: 1)])
        #expect(h.entityGroups == [HEIFEntityGroup(type: "ster", groupID: 9, entityIDs: [1, 2])])
        let e = try #require(h.exifRange)
        #expect(Array(file[Int(e.offset)..<Int(e.end)]) == tiff)
        #expect(h.motionPhotoVideo == ByteRange(offset: UInt64(file.count - 11), length: 11))
        #expect(r.warnings.isEmpty, "\(r.warnings)")
    }

    @Test func heifPropertiesFromTwoIpmaBoxesAndMultiExtentItems() throws {
        // Item 1's properties are split over two ipma boxes (its indices from both count, in order); the Exif
        // item has two extents (the first is read, with a warning that names the count).
        let tiff: [UInt8] = B.s("II") + [0x2A, 0] + [8, 0, 0, 0] + [0, 0]
        let exifItem = B.u32(0) + tiff
        let iinf = B.full("iinf", 0, 0, B.u16(3)
            + B.full("infe", 2, 0, B.u16(1) + B.u16(0) + B.s("hvc1") + [0])
            + B.full("infe", 2, 1, B.u16(2) + B.u16(0) + B.s("hvc1") + [0])
            + B.full("infe", 2, 1, B.u16(3) + B.u16(0) + B.s("Exif") + [0]))
        let ipco = B.box("ipco", B.full("ispe", 0, 0, B.u32(640) + B.u32(480)) + B.box("irot", [1])
            + B.full("auxC", 0, 0, B.s("urn:mpeg:hevc:2015:auxid:1") + [0]))
        let ipma1 = B.full("ipma", 0, 0, B.u32(1) + B.u16(1) + [1] + [1])
        let ipma2 = B.full("ipma", 0, 0, B.u32(2) + B.u16(1) + [1] + [2] + B.u16(2) + [1] + [3])
        let meta0 = { (exifAt: UInt32) in
            B.full("meta", 0, 0, B.full("hdlr", 0, 0, B.u32(0) + B.s("pict") + [UInt8](repeating: 0, count: 13))
                + B.full("pitm", 0, 0, B.u16(1)) + iinf
                + B.full("iloc", 0, 0, [0x44, 0x00] + B.u16(1) + B.u16(3) + B.u16(0) + B.u16(2) + B.u32(exifAt)
                    + B.u32(UInt32(exifItem.count)) + B.u32(exifAt) + B.u32(4))
                + B.full("iref", 0, 0, B.box("auxl", B.u16(2) + B.u16(1) + B.u16(1)))
                + B.box("iprp", ipco + ipma1 + ipma2))
        }
        // The Exif item sits in mdat, after the meta box (whose size does not depend on the offset).
        let head = B.ftypHEIC + meta0(0)
        let exifAt = UInt32(head.count + 8)
        let file = B.ftypHEIC + meta0(exifAt) + B.box("mdat", exifItem)
        let r = try Self.parse(file)
        let h = try #require(r.heif)
        #expect(h.width == 640 && h.height == 480 && h.rotation == 1)
        #expect(h.auxiliaries == [HEIFAuxiliary(itemID: 2, type: "urn:mpeg:hevc:2015:auxid:1", forItem: 1)])
        let e = try #require(h.exifRange)
        #expect(Array(file[Int(e.offset)..<Int(e.end)]) == tiff)
        #expect(r.warnings.contains { $0.contains("2 extents, only the first is used") }, "\(r.warnings)")
    }

    // MARK: malformed

    @Test func sizeZeroRunsToTheEnd() throws {
        let r = try Self.parse(B.ftypQT + B.u32(0) + B.s("mdat") + [1, 2, 3, 4])
        #expect(r.brands.first == "qt  ")
        #expect(r.warnings.isEmpty)
    }

    @Test func hugeLargeSizeIsNotFollowed() throws {
        let r = try Self.parse(B.ftypQT + B.u32(1) + B.s("moov") + B.u64(1 << 63) + [0, 0, 0, 0])
        #expect(r.quickTime == nil)
        #expect(r.damage.contains { $0.contains("runs past") })  // a box past the end: the file was cut
    }

    @Test func boxLargerThanFile() throws {
        let r = try Self.parse(B.ftypQT + B.u32(1000) + B.s("moov") + [0, 0])
        #expect(r.quickTime == nil)
        #expect(!r.damage.isEmpty)
    }

    @Test func boxSmallerThanHeader() throws {
        #expect(throws: ProbeError.self) { try Self.parse(B.u32(4) + B.s("ftyp") + [0, 0, 0, 0]) }
        let r = try Self.parse(B.ftypQT + B.u32(4) + B.s("free") + [0, 0, 0, 0])
        #expect(r.damage.contains { $0.contains("smaller than its header") })
        // Inside a parent, too.
        let r2 = try Self.parse(B.ftypQT + B.box("moov", B.u32(3) + B.s("trak")))
        #expect(r2.quickTime?.tracks.isEmpty == true)
        #expect(!r2.warnings.isEmpty)
    }

    @Test func notBMFFThrows() {
        #expect(throws: ProbeError.self) { try Self.parse([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 0, 0, 0, 0]) }
        #expect(throws: ProbeError.self) { try Self.parse([0, 0, 0]) }
    }

    @Test func deeplyNestedMeta() throws {
        var inner: [UInt8] = []
        for _ in 0..<1000 { inner = B.box("meta", inner) }
        let started = Date()
        let r = try Self.parse(B.ftypHEIC + inner)
        let r2 = try Self.parse(B.ftypQT + B.box("moov", inner + B.box("trak", inner)))
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(r.heif?.items.isEmpty == true)
        #expect(r2.quickTime?.movieKeys.isEmpty == true)
    }

    @Test func truncatedIlst() throws {
        // Item 2's data box claims 100 bytes but its item ends after 12; item 3's data box lacks its locale.
        let bad = B.box(UInt32(2), B.u32(100) + B.s("data") + B.u32(1))
        let short = B.box(UInt32(3), B.box("data", B.u32(1)))
        let meta = B.meta(keys: ["a", "b", "c"], items: [B.item(1, type: 1, B.s("first")), bad, short])
        let r = try Self.parse(B.ftypQT + B.box("moov", meta))
        let q = try #require(r.quickTime)
        #expect(q.movieKeys.map(\.key) == ["a"])
        #expect(r.warnings.count >= 2, "\(r.warnings)")
        // The whole ilst cut short at the end of the file.
        let whole = B.ftypQT + B.box("moov", meta)
        let r2 = try Self.parse(Array(whole.dropLast(7)))
        #expect(r2.quickTime == nil)
        #expect(!r2.damage.isEmpty)
    }

    @Test func keysCountLargerThanTheBox() throws {
        let keys = B.full("keys", 0, 0, B.u32(0xFFFF_FFFF) + B.u32(9) + B.s("mdta") + B.s("a"))
        let meta = B.box("meta", keys + B.box("ilst", B.item(1, type: 1, B.s("x")) + B.item(7, type: 1, B.s("y"))))
        let r = try Self.parse(B.ftypQT + B.box("moov", meta))
        let q = try #require(r.quickTime)
        #expect(q.movieValue("a")?.value == .string("x"))
        #expect(q.movieValue("#7")?.value == .string("y"))
        #expect(r.warnings.contains { $0.contains("entry count 4294967295") })
    }

    @Test func ilocOutsideTheFile() throws {
        let iinf = B.full("iinf", 0, 0, B.u16(1) + B.full("infe", 2, 0, B.u16(1) + B.u16(0) + B.s("Exif") + [0]))
        let iloc = B.full("iloc", 0, 0, [0x44, 0x40] + B.u16(1) + B.u16(1) + B.u16(0) + B.u32(0xFFFF_FF00) + B.u16(1) + B.u32(0x1000) + B.u32(0xFFFF_FFFF))
        let hugeExtents = B.full("iloc", 2, 0, [0x88, 0x00] + B.u32(1) + B.u32(1) + B.u16(0) + B.u16(0) + B.u16(0xFFFF))
        for l in [iloc, hugeExtents] {
            let r = try Self.parse(B.ftypHEIC + B.full("meta", 0, 0, iinf + l))
            #expect(r.heif?.exifRange == nil)
            #expect(!(r.warnings + r.damage).isEmpty)
        }
    }

    @Test func sttsEntryCountHuge() throws {
        let stts = B.full("stts", 0, 0, B.u32(0xFFFF_FFFF) + B.u32(5) + B.u32(2))
        let trak = B.box("trak", B.box("mdia", B.box("minf", B.box("stbl", stts))))
        let started = Date()
        let r = try Self.parse(B.ftypQT + B.box("moov", trak))
        #expect(Date().timeIntervalSince(started) < 1)
        #expect(r.quickTime?.tracks.first?.sampleCount == 5)
        #expect(r.quickTime?.tracks.first?.sttsDuration == 10)
        #expect(r.warnings.contains { $0.contains("stts") })
    }

    @Test func sttsOverflowIsCaught() throws {
        let stts = B.full("stts", 0, 0, B.u32(3) + (0..<3).flatMap { _ in B.u32(0xFFFF_FFFF) + B.u32(0xFFFF_FFFF) })
        let r = try Self.parse(B.ftypQT + B.box("moov", B.box("trak", B.box("mdia", B.box("minf", B.box("stbl", stts))))))
        #expect(r.quickTime?.tracks.first?.sampleCount != nil)
    }

    @Test func randomGarbageNeverCrashes() {
        var rng = SystemRandomNumberGenerator()
        let seed = B.ftypHEIC + B.full("meta", 0, 0, B.full("pitm", 0, 0, B.u16(1)) + B.full("iloc", 1, 0, [0x44, 0x44] + B.u16(1)))
            + B.box("moov", B.mvhd(version: 0, timescale: 600, duration: 1, created: 1) + B.box("trak", B.full("tkhd", 0, 0, [])))
        for _ in 0..<2000 {
            var b = seed
            for _ in 0..<4 { b[Int.random(in: 0..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            _ = try? Self.parse(b)
        }
    }
}
