import Foundation
import Testing
import TestSupport

@testable import MediaProbe

/// Our MPEG-TS reader against libavformat 5.1 (`avformat_find_stream_info`, the reader it replaces) on the
/// corpus's Sony AVCHD file and the files `Fixtures/mpegts.py` makes: the stored facts must not depend on
/// which of the two read a file.
@Suite struct MPEGTSReaderTests {
    static let dir = Corpus.fixtures.appendingPathComponent("generated/mpegts")
    static let ours = ["i25-ac3.m2ts", "p2997-ac3-51.ts", "p50-lpcm.m2ts", "wrap-ac3.ts"]
    static let theirs = ["mpeg2-mp2.ts", "h264-aac.ts"]
    static let sony = "metadata-extractor-images/mts/Sony ILCE-7M3 (A7M3).mts"

    static func facts(_ path: String, headLimit: Int = MPEGTSReader.headLimit, tailLimit: Int = MPEGTSReader.tailLimit) throws
        -> (format: FormatFacts, streams: [StreamFacts])
    {
        let reading = MPEGTSReader.read(try FileSource(path: path), headLimit: headLimit, tailLimit: tailLimit)
        guard case .facts(let format, let streams) = reading else {
            Issue.record("\(path): our reader refused it: \(reading)")
            throw ProbeError(.unsupported, "refused")
        }
        return (format, streams)
    }

    /// Every fact equal, doubles included: both sides compute them the same way.
    static func expectSame(_ path: String, _ ours: (format: FormatFacts, streams: [StreamFacts]), _ theirs: AVProbe.Result) {
        #expect(ours.format == theirs.format, "\(path): format")
        #expect(ours.streams == theirs.streams, "\(path): streams")
        #expect(MPEGTSReader.differences(ours, theirs).isEmpty, "\(path): \(MPEGTSReader.differences(ours, theirs))")
    }

    @Test(arguments: ours)
    func generatedFileMatchesLibavformat(_ name: String) throws {
        let path = Self.dir.appendingPathComponent(name).path
        Self.expectSame(path, try Self.facts(path), try AVProbe.probe(path: path, analyze: true))
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus (SHOEBOX_CORPUS)"))
    func sonyAVCHDMatchesLibavformat() throws {
        let path = try #require(Corpus.root).appendingPathComponent(Self.sony).path
        let ours = try Self.facts(path)
        Self.expectSame(path, ours, try AVProbe.probe(path: path, analyze: true))
        // The values themselves (as ffprobe prints them): 1080i, 25 frames and 50 fields a second; the
        // video starts at its first packet (1.12 s), the AC-3 earlier (1.04 s).
        let v = try #require(ours.streams.first)
        #expect(v.codec == "h264" && v.codecTag == "HDMV" && v.width == 1920 && v.height == 1080)
        #expect(v.averageFrameRate == 25 && v.claimedFrameRate == 50 && v.durationSeconds == 0.42)
        #expect(ours.streams.map(\.codec) == ["h264", "ac3", "hdmv_pgs_subtitle"])
        #expect(ours.format.durationSeconds == 0.544 && ours.format.bitRate == 12_920_470)
    }

    /// A clip cut short (a card pulled mid-write) and one with 50 KB of garbage spliced between its head and
    /// its tail (the subtitle stream's first packet is lost, so it takes the file's span, as libavformat's
    /// `fill_all_stream_timings` gives it) still read as libavformat reads them.
    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus (SHOEBOX_CORPUS)"))
    func damagedSonyClipsMatchLibavformat() throws {
        let bytes = try [UInt8](Data(contentsOf: try #require(Corpus.root).appendingPathComponent(Self.sony)))
        var rng = HostileInputTests.SplitMix(state: 5)
        let garbage = (0..<50_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-ts-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, b) in [("cut.mts", Array(bytes.prefix(300_000))), ("spliced.mts", Array(bytes.prefix(100_000)) + garbage + Array(bytes.suffix(100_000)))] {
            let path = dir.appendingPathComponent(name).path
            try Data(b).write(to: URL(fileURLWithPath: path))
            Self.expectSame(name, try Self.facts(path), try AVProbe.probe(path: path, analyze: true))
        }
    }

    /// The head is read until every stream is known, not to 2 MiB: on the Sony clip (its first AC-3 packet at
    /// 193 KB, its first subtitle at 250 KB) two 128 KiB chunks and the 250,000-byte tail, 512,144 of its
    /// 878,592 bytes.
    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus (SHOEBOX_CORPUS)"))
    func readsTheHeadUntilStreamsAreKnownAndTheTail() throws {
        final class Counting: ByteSource, @unchecked Sendable {
            let inner: FileSource
            var bytes = 0
            init(_ inner: FileSource) { self.inner = inner }
            var size: UInt64 { inner.size }
            func read(at offset: UInt64, count: Int) throws(ProbeError) -> [UInt8] {
                let b = try inner.read(at: offset, count: count)
                bytes += b.count
                return b
            }
        }
        let source = Counting(try FileSource(path: try #require(Corpus.root).appendingPathComponent(Self.sony).path))
        guard case .facts = MPEGTSReader.read(source) else {
            Issue.record("refused")
            return
        }
        #expect(source.bytes == 2 * MPEGTSReader.headChunk + MPEGTSReader.tailLimit, "\(source.bytes) bytes read")
    }

    /// With a head and a tail smaller than the file, the two are read apart (a long recording's case): the
    /// start comes from the head, the end from the tail, and nothing changes.
    @Test(arguments: ours)
    func headAndTailReadApartGiveTheSameFacts(_ name: String) throws {
        let path = Self.dir.appendingPathComponent(name).path
        let whole = try Self.facts(path)
        let size = try FileSource(path: path).size
        let apart = try Self.facts(path, headLimit: Int(size / 3), tailLimit: Int(size / 4))
        #expect(size > 3 * 188 * 40)
        #expect(apart.format == whole.format && apart.streams == whole.streams, "\(name)")
    }

    /// What the reader does not cover goes to libavformat, and the probe says which reader it was.
    @Test(arguments: theirs)
    func otherCodecsAreLeftToLibavformat(_ name: String) throws {
        let path = Self.dir.appendingPathComponent(name).path
        guard case .unsupported(let why) = MPEGTSReader.read(try FileSource(path: path)) else {
            Issue.record("\(name): our reader should hand it over")
            return
        }
        #expect(why.contains("stream type"), "\(why)")
        let r = Prober().probe(path: path)
        #expect(r.format?.reader == nil && r.streams.count == 2 && r.isClean, "\(r.issues)")
    }

    @Test(arguments: ours)
    func probeNamesOurReaderAndCrossChecksClean(_ name: String) {
        let r = Prober().probe(path: Self.dir.appendingPathComponent(name).path)
        #expect(r.format?.reader == MPEGTSReader.name)
        #expect(r.isClean, "\(name): \(r.issues)")
        #expect(r.pixelWidth?.source == MPEGTSReader.name)
    }

    /// Cut, damaged and foreign bytes: the reader answers (facts or a reason) and never traps.
    @Test func damagedStreamsNeverTrap() throws {
        let bytes = try [UInt8](Data(contentsOf: Self.dir.appendingPathComponent("i25-ac3.m2ts")))
        for cut in [0, 1, 191, 192, 385, 600, 1000, 4096, 20_000, bytes.count / 2, bytes.count - 1] {
            _ = MPEGTSReader.read(MemorySource(Array(bytes.prefix(cut))))
        }
        var rng = HostileInputTests.SplitMix(state: 17)
        for _ in 0..<300 {
            var b = Array(bytes.prefix(40_000))
            for _ in 0..<(1 + Int(rng.next() % 24)) { b[Int(rng.next() % UInt64(b.count))] = UInt8(truncatingIfNeeded: rng.next()) }
            if case .facts(let format, let streams) = MPEGTSReader.read(MemorySource(b)) {
                #expect(format.name == "mpegts" && streams.count <= 64)
            }
        }
        // Sync bytes every 188 and nothing else.
        var sync = [UInt8](repeating: 0, count: 188 * 40)
        for k in stride(from: 0, to: sync.count, by: 188) { sync[k] = 0x47 }
        guard case .unsupported = MPEGTSReader.read(MemorySource(sync)) else {
            Issue.record("a stream without a PMT has no facts")
            return
        }
    }

    /// `nalUnit` (start codes by `memchr`) finds what a byte-at-a-time search finds, on random streams dense
    /// with zeros, ones and start codes, cut anywhere, and on slices that do not start at index 0.
    @Test func nalUnitSearchIsTheBytewiseOne() {
        func bytewise(_ types: Set<UInt8>, _ b: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
            var k = b.startIndex
            while k + 3 < b.endIndex {
                if b[k] == 0, b[k + 1] == 0, b[k + 2] == 1 {
                    let start = k + 3
                    if types.contains(b[start] & 0x1F) {
                        var e = start + 1
                        while e + 2 < b.endIndex && !(b[e] == 0 && b[e + 1] == 0 && (b[e + 2] == 1 || b[e + 2] == 0)) { e += 1 }
                        return b[start..<(e + 2 < b.endIndex ? e : b.endIndex)]
                    }
                    k = start
                } else {
                    k += 1
                }
            }
            return nil
        }
        var g = SplitMix(state: 23)
        let alphabet: [UInt8] = [0, 0, 0, 1, 1, 5, 7, 0x65, 0x67, 0x41, 0x25, 0xFF]
        for _ in 0..<20_000 {
            let all = (0..<Int.random(in: 0...40, using: &g)).map { _ in alphabet.randomElement(using: &g)! }
            let from = Int.random(in: 0...min(3, all.count), using: &g)
            let slice = all[from...]
            for types: Set<UInt8> in [[7], [1, 5], [5]] {
                let ours = MPEGTSReader.Demux.nalUnit(types: types, in: slice)
                let theirs = bytewise(types, slice)
                #expect(ours?.startIndex == theirs?.startIndex && ours?.endIndex == theirs?.endIndex, "\(all) from \(from), \(types)")
            }
        }
    }

    @Test func sequenceParameterSetParses() throws {
        // Fixtures/mpegts.py's SPSs: x264 Baseline 320x180 (192 coded, 12 lines cropped), progressive 50 fps;
        // Main 320x240 interlaced (MBAFF), 25 fps.
        let p50: [UInt8] = [
            0x67, 0x42, 0xC0, 0x15, 0xDA, 0x05, 0x06, 0x7E, 0x7C, 0x04, 0x40, 0x00, 0x00, 0x03, 0x00, 0x40, 0x00, 0x00, 0x19, 0x03, 0xC5, 0x8B, 0xA8,
        ]
        let sps = try H264SequenceParameters.parse(nal: p50)
        #expect(sps.width == 320 && sps.height == 180 && !sps.interlaced && sps.profile == 66)
        #expect(sps.frameRate == 50)
        let i25: [UInt8] = [
            0x67, 0x4D, 0x40, 0x15, 0xF4, 0x0A, 0x08, 0x7E, 0x5C, 0x04, 0x40, 0x00, 0x00, 0x03, 0x00, 0x40, 0x00, 0x00, 0x0C, 0x87, 0xC5, 0x0A, 0xA8,
        ]
        let interlaced = try H264SequenceParameters.parse(nal: i25)
        #expect(interlaced.width == 320 && interlaced.height == 240 && interlaced.interlaced && interlaced.frameRate == 25)
        // Every prefix of a valid SPS either parses or throws; none traps.
        for n in 0..<p50.count { _ = try? H264SequenceParameters.parse(nal: p50.prefix(n)) }
        #expect(throws: ProbeError.self) { try H264SequenceParameters.parse(nal: [0x67, 0x64]) }
        #expect(throws: ProbeError.self) { try H264SequenceParameters.parse(nal: [0x68, 0x64, 0, 0x28]) }
    }
}
