import Foundation
import Testing
import TestSupport
@testable import MediaProbe

@Suite struct AppleMakerNoteTests {
    /// ExifTool 13.58 names (Apple.pm) → tag IDs; other tags appear as `Apple_0x00NN`.
    static let names: [String: UInt16] = [
        "MakerNoteVersion": 0x01, "AEMatrix": 0x02, "AEStable": 0x04, "AETarget": 0x05, "AEAverage": 0x06,
        "AFStable": 0x07, "AccelerationVector": 0x08, "HDRImageType": 0x0A, "BurstUUID": 0x0B,
        "FocusDistanceRange": 0x0C, "OISMode": 0x0F, "ContentIdentifier": 0x11, "ImageCaptureType": 0x14,
        "ImageUniqueID": 0x15, "LivePhotoVideoIndex": 0x17, "ImageProcessingFlags": 0x19, "QualityHint": 0x1A,
        "LuminanceNoiseAmplitude": 0x1D, "PhotosAppFeatureFlags": 0x1F, "ImageCaptureRequestID": 0x20,
        "HDRHeadroom": 0x21, "AFPerformance": 0x23, "SceneFlags": 0x25, "SignalToNoiseRatioType": 0x26,
        "SignalToNoiseRatio": 0x27, "PhotoIdentifier": 0x2B, "ColorTemperature": 0x2D, "CameraType": 0x2E,
        "FocusPosition": 0x2F, "HDRGain": 0x30, "AFMeasuredDepth": 0x38, "AFConfidence": 0x3D,
        "GreenGhostMitigationStatus": 0x3F, "SemanticStyle": 0x40,
    ]

    /// The raw Apple MakerNotes of a corpus file: from the JPEG's APP1 Exif, or (HEIC) from every TIFF
    /// header found in the file, since the Exif items are not located here. iPhone HEICs can hold several
    /// (IMG_4076.HEIC has three), and exiftool's JSON keeps one value per tag name across all of them.
    static func makerNotes(_ rel: String) throws -> [[UInt8]] {
        let src = try CorpusImages.source(rel)
        let head = try src.read(at: 0, count: Sniffer.headerSize)
        var tiffs: [[UInt8]] = []
        if Sniffer.sniff(head, fileSize: src.size) == .jpeg {
            if let e = try JPEGReader.read(src).facts.exifRange { tiffs.append(try src.read(e, limit: 1 << 20, what: "Exif")) }
        } else {
            let all = try CorpusImages.bytes(rel)
            for pattern in [Bytes.ascii("MM\0*\0\0\0\u{8}"), Bytes.ascii("II*\0\u{8}\0\0\0")] {
                var from = 0
                while let i = all.firstIndex(of: pattern, from: from) {
                    tiffs.append(Array(all[i..<min(all.count, i + (1 << 20))]))
                    from = i + 1
                }
            }
        }
        return tiffs.compactMap { try? TIFFReader($0).makerNote }.filter(AppleMakerNoteReader.isAppleMakerNote)
    }

    static func makerNote(_ rel: String) throws -> [UInt8]? { try makerNotes(rel).first }

    /// Tags whose UNDEFINED value is a binary plist that exiftool decodes to text; we keep `.data`.
    static func plistTags(_ raw: [UInt8]) -> Set<UInt16> {
        let be = raw.matches("MM", at: 12)
        let n = Int(BinaryReader.uint(raw, at: 14, size: 2, bigEndian: be) ?? 0)
        var out = Set<UInt16>()
        for i in 0..<min(n, (raw.count - 16) / 12) {
            let e = 16 + i * 12
            guard let tag = BinaryReader.uint(raw, at: e, size: 2, bigEndian: be),
                let off = BinaryReader.uint(raw, at: e + 8, size: 4, bigEndian: be)
            else { continue }
            if raw.matches("bplist", at: Int(off)) { out.insert(UInt16(tag)) }
        }
        return out
    }

    static var appleFiles: [String] {
        Corpus.mediaFiles().filter { Oracle.tags($0)["Apple:MakerNoteVersion"] != nil }
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus (SHOEBOX_CORPUS)"), arguments: appleFiles)
    func matchesExiftool(_ rel: String) throws {
        let tags = Oracle.tags(rel)
        let raws = try Self.makerNotes(rel)
        #expect(!raws.isEmpty, "no MakerNote found in \(rel)")
        let notes = try raws.map { raw throws(ProbeError) in try AppleMakerNoteReader.parse(raw) }
        let plistTags = raws.map(Self.plistTags)
        #expect(notes.allSatisfy { $0.version == 1 })
        var compared = 0
        for (key, value) in tags where key.hasPrefix("Apple:") {
            let name = String(key.dropFirst(6))
            if name.hasPrefix("RunTime") {
                let expected = Oracle.int(value)
                let ok = notes.contains { n in
                    guard let rt = n.runTime else { return false }
                    switch name {
                    case "RunTimeValue": return rt.value == expected
                    case "RunTimeScale": return rt.timescale == expected
                    case "RunTimeFlags": return rt.flags == expected
                    case "RunTimeEpoch": return rt.epoch == expected
                    default: return false
                    }
                }
                #expect(ok, "\(key) = \(String(describing: expected))")
                compared += 1
                continue
            }
            let tag = Self.names[name] ?? (name.hasPrefix("Apple_0x") ? UInt16(name.dropFirst(8), radix: 16) : nil)
            guard let tag else {
                Issue.record("no tag ID for \(key)")
                continue
            }
            let expected = Oracle.list(value).joined(separator: " ")
            let matches = zip(notes, plistTags).contains { note, plists in
                guard let got = note.entries[tag] else { return false }
                // exiftool prints short unknown UNDEFINED values (0x0031: 44 bytes starting 01 00 00 00 08)
                // as raw text with control characters; we keep them as `.data`.
                let rawText = expected.unicodeScalars.contains { $0.value < 0x20 }
                if expected.hasPrefix("(Binary data") || plists.contains(tag) || rawText {
                    if case .data = got { return true }
                    return false
                }
                let words = got.description.split(separator: " ")
                let a = words.compactMap { Double($0) }
                let b = expected.split(separator: " ").compactMap { Double($0) }
                if !a.isEmpty, a.count == b.count, a.count == words.count {
                    return zip(a, b).allSatisfy { abs($0 - $1) <= 1e-8 * max(1, abs($1)) }
                }
                return got.description == expected
            }
            #expect(matches, "\(key): oracle \(expected), parsed \(notes.map { $0.entries[tag]?.description ?? "-" })")
            compared += 1
        }
        #expect(compared == tags.keys.filter { $0.hasPrefix("Apple:") }.count)
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus (SHOEBOX_CORPUS)"))
    func accessorsOnKnownFiles() throws {
        let burst = try AppleMakerNoteReader.parse(try #require(try Self.makerNote("osxphotos/media_types/IMG_0658.JPG")))
        #expect(burst.burstUUID == "D4E4B3D1-0E45-4987-BE12-76D604E25D2C")
        #expect(burst.contentIdentifier == nil)
        let live = try AppleMakerNoteReader.parse(try #require(try Self.makerNote("lychee/train.jpg")))
        #expect(live.contentIdentifier == "E905E6C6-C747-4805-942F-9904A0281F02")
        #expect(live.livePhotoVideoIndex == 0)
        #expect(live.imageProcessingFlags == 0)
        #expect(live.runTime == AppleMakerNote.RunTime(value: 173_210_620_147_833, timescale: 1_000_000_000, flags: 1, epoch: 0))
    }

    // MARK: Synthetic maker notes

    /// A binary plist `{flags, value, timescale, epoch}` like Apple's RunTime.
    static func runTimePlist(value: Int64, timescale: Int64, flags: Int64 = 1, epoch: Int64 = 0, selfReference: Bool = false) -> [UInt8] {
        var objects: [[UInt8]] = []
        // 0: dict with 4 keys (refs 1-4) and 4 values (refs 5-8); a cyclic variant points a value at itself.
        objects.append([0xD4, 1, 2, 3, 4, 5, selfReference ? 0 : 6, 7, 8])
        for k in ["flags", "value", "timescale", "epoch"] { objects.append([0x50 | UInt8(k.count)] + Bytes.ascii(k)) }
        func int(_ v: Int64) -> [UInt8] { [0x13] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }
        for v in [flags, value, timescale, epoch] { objects.append(int(v)) }
        var out = Bytes.ascii("bplist00")
        var offsets: [UInt8] = []
        for o in objects {
            offsets.append(UInt8(out.count))
            out += o
        }
        let table = out.count
        out += offsets
        out += [0, 0, 0, 0, 0, 0, 1, 1]
        out += [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)] + [UInt8](repeating: 0, count: 8)
        out += [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        return out
    }

    struct Entry {
        var tag: Int
        var type: Int
        var count: Int
        var data: [UInt8]
    }

    /// Builds "Apple iOS\0", version 1, byte order, IFD, then out-of-line data (offsets from the note start).
    static func build(_ entries: [Entry], bigEndian: Bool, declaredCount: Int? = nil) -> [UInt8] {
        let u16 = bigEndian ? Bytes.u16be : Bytes.u16le
        let u32 = bigEndian ? Bytes.u32be : Bytes.u32le
        var head = Bytes.ascii("Apple iOS\0") + [0, 1] + Bytes.ascii(bigEndian ? "MM" : "II") + u16(declaredCount ?? entries.count)
        var data: [UInt8] = []
        let dataStart = 16 + entries.count * 12 + 4
        for e in entries {
            head += u16(e.tag) + u16(e.type) + u32(e.count)
            if e.data.count <= 4 {
                head += e.data + [UInt8](repeating: 0, count: 4 - e.data.count)
            } else {
                head += u32(e.tag == 0x7777 ? 0x00FF_FFFF : dataStart + data.count)
                data += e.data
            }
        }
        return head + [0, 0, 0, 0] + data
    }

    @Test(arguments: [true, false])
    func syntheticNote(bigEndian: Bool) throws {
        let u16 = bigEndian ? Bytes.u16be : Bytes.u16le
        let u32 = bigEndian ? Bytes.u32be : Bytes.u32le
        let uuid = "D4E4B3D1-0E45-4987-BE12-76D604E25D2C"
        let plist = Self.runTimePlist(value: 95_831_016_477_916, timescale: 1_000_000_000)
        let note = Self.build([
            Entry(tag: 0x01, type: 9, count: 1, data: u32(14)),
            Entry(tag: 0x03, type: 7, count: plist.count, data: plist),
            Entry(tag: 0x08, type: 10, count: 3, data: u32(-1 & 0xFFFF_FFFF) + u32(2) + u32(3) + u32(4) + u32(0) + u32(0)),
            Entry(tag: 0x0A, type: 9, count: 1, data: u32(-3 & 0xFFFF_FFFF)),
            Entry(tag: 0x0B, type: 2, count: uuid.utf8.count + 1, data: Bytes.ascii(uuid) + [0]),
            Entry(tag: 0x0C, type: 5, count: 2, data: u32(1) + u32(2) + u32(5) + u32(4)),
            Entry(tag: 0x0F, type: 3, count: 2, data: u16(2) + u16(65535)),
            Entry(tag: 0x10, type: 8, count: 1, data: u16(65535)),
            Entry(tag: 0x1A, type: 2, count: 4, data: Bytes.ascii("q82\0")),
            Entry(tag: 0x23, type: 9, count: 2, data: u32(79) + u32(268_435_505)),
            Entry(tag: 0x7777, type: 2, count: 40, data: [UInt8](repeating: 0x41, count: 40)),  // offset outside
            Entry(tag: 0x7778, type: 99, count: 1, data: [1]),  // unknown type
        ], bigEndian: bigEndian)
        let n = try AppleMakerNoteReader.parse(note)
        #expect(n.bigEndian == bigEndian)
        #expect(n.version == 1)
        #expect(n.entries[0x01] == .int(14))
        #expect(n.entries[0x03] == .data(plist.count))
        #expect(n.runTime == AppleMakerNote.RunTime(value: 95_831_016_477_916, timescale: 1_000_000_000, flags: 1, epoch: 0))
        #expect(n.entries[0x08] == .rationals([-0.5, 0.75, 0]))
        #expect(n.hdrImageType == -3)
        #expect(n.burstUUID == uuid)
        #expect(n.entries[0x0C] == .rationals([0.5, 1.25]))
        #expect(n.entries[0x0F] == .ints([2, 65535]))
        #expect(n.entries[0x10] == .int(-1))
        #expect(n.string(AppleMakerNote.tagQualityHint) == "q82")
        #expect(n.entries[0x23] == .ints([79, 268_435_505]))
        #expect(n.entries[0x7777] == nil)
        #expect(n.entries[0x7778] == nil)
        #expect(n.entries.count == 10)
    }

    @Test func hostileNotes() throws {
        // 65535 entries declared in a 40-byte note: capped by the data, no crash.
        let many = Self.build([Entry(tag: 1, type: 9, count: 1, data: [0, 0, 0, 1])], bigEndian: true, declaredCount: 65535)
        #expect(try AppleMakerNoteReader.parse(many).entries == [1: .int(1)])
        // Huge counts and offsets past the end are skipped.
        let huge = Self.build([Entry(tag: 2, type: 4, count: 0x3FFF_FFFF, data: [0, 0, 0, 16]),
                               Entry(tag: 3, type: 7, count: 0x7FFF_FFFF, data: [0xFF, 0xFF, 0xFF, 0xF0])], bigEndian: false)
        #expect(try AppleMakerNoteReader.parse(huge).entries.isEmpty)
        #expect(throws: ProbeError.self) { try AppleMakerNoteReader.parse(Bytes.ascii("Apple iOS\0\0\u{1}XX\0\u{1}")) }
        #expect(throws: ProbeError.self) { try AppleMakerNoteReader.parse(Bytes.ascii("Nikon\0")) }
        #expect(throws: ProbeError.self) { try AppleMakerNoteReader.parse(Bytes.ascii("Apple iOS")) }
        // Every truncation of a real-looking note parses or throws, never crashes.
        let plist = Self.runTimePlist(value: 1, timescale: 1)
        let note = Self.build([Entry(tag: 3, type: 7, count: plist.count, data: plist),
                               Entry(tag: 0x0B, type: 2, count: 8, data: Bytes.ascii("ABCDEFG\0"))], bigEndian: true)
        for cut in 0..<note.count { _ = try? AppleMakerNoteReader.parse(Array(note[0..<cut])) }
    }

    @Test func binaryPlistCyclesAndGarbage() throws {
        let cyclic = Self.runTimePlist(value: 1, timescale: 1, selfReference: true)
        #expect(throws: ProbeError.self) { try SidecarPlist.parse(cyclic) }
        let ok = try SidecarPlist.parse(Self.runTimePlist(value: -5, timescale: 600))
        #expect(ok["value"] == .integer(-5))
        #expect(ok["timescale"]?.intValue == 600)
        var bad = Self.runTimePlist(value: 1, timescale: 1)
        bad[bad.count - 9] = 0xFF  // table offset outside
        #expect(throws: ProbeError.self) { try SidecarPlist.parse(bad) }
        let plist = Self.runTimePlist(value: 7, timescale: 9)
        for i in 8..<plist.count {
            var p = plist
            p[i] ^= 0xFF
            _ = try? SidecarPlist.parse(p)
        }
    }

    @Test func tiffWalkerBounds() throws {
        // IFD0 declares 65535 entries, points its Exif IFD at itself and its next IFD outside.
        var t = Bytes.ascii("MM") + Bytes.u16be(42) + Bytes.u32be(8) + Bytes.u16be(65535)
        t += Bytes.u16be(0x8769) + Bytes.u16be(4) + Bytes.u32be(1) + Bytes.u32be(8)
        t += Bytes.u16be(0x010F) + Bytes.u16be(2) + Bytes.u32be(0x7FFF_FFFF) + Bytes.u32be(0x7FFF_FFFF)
        t += Bytes.u32be(0xFFFF_FFF0)
        let r = try TIFFReader(t)
        #expect(r.entries.count == 2)
        #expect(r.entry(0x010F, in: .ifd0)?.valueRange == nil)
        #expect(r.makerNote == nil)
        #expect(r.warnings.count >= 2)
        #expect(throws: ProbeError.self) { try TIFFReader(Bytes.ascii("XX")) }
        for cut in 0..<t.count { _ = try? TIFFReader(Array(t[0..<cut])) }
    }
}
