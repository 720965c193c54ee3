import Foundation
import Testing
import TestSupport

@testable import MediaProbe

/// Our AVI stream reader against libavformat 5.1 (`avformat_find_stream_info`, the reader it replaces) on the
/// corpus's camera AVI and the files `Fixtures/avi.py` makes: the stored facts must not depend on which of
/// the two read a file.
@Suite struct AVIStreamReaderTests {
    static let dir = Corpus.fixtures.appendingPathComponent("generated/avi")
    static let ours = ["mjpeg-u8.avi", "mjpeg-s16.avi", "xvid-mp3.avi", "h264.avi", "cut-mjpeg-s16.avi"]
    static let camera = "metadata-extractor-images/avi/100_0306.AVI"

    static func facts(_ path: String) throws -> (format: FormatFacts, streams: [StreamFacts]) {
        let reading = AVIStreamReader.read(try FileSource(path: path))
        guard case .facts(let format, let streams) = reading else {
            Issue.record("\(path): our reader refused it: \(reading)")
            throw ProbeError(.unsupported, "refused")
        }
        return (format, streams)
    }

    @Test(arguments: ours)
    func generatedFileMatchesLibavformat(_ name: String) throws {
        let path = Self.dir.appendingPathComponent(name).path
        MPEGTSReaderTests.expectSame(path, try Self.facts(path), try AVProbe.probe(path: path, analyze: true))
    }

    /// The Kodak clip: Motion JPEG + 16-bit PCM, its INFO list (ICRD) after the index.
    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus (SHOEBOX_CORPUS)"))
    func cameraClipMatchesLibavformatAndFfprobe() throws {
        let path = try #require(Corpus.root).appendingPathComponent(Self.camera).path
        let ours = try Self.facts(path)
        MPEGTSReaderTests.expectSame(path, ours, try AVProbe.probe(path: path, analyze: true))
        // What ffprobe recorded in the corpus's facts/.
        #expect(ours.format.durationSeconds == 2.733333 && ours.format.bitRate == 2_729_133 && ours.format.tags == ["date": "2020-08-28"])
        let v = try #require(ours.streams.first)
        #expect(v.codec == "mjpeg" && v.codecTag == "MJPG" && v.width == 320 && v.height == 240 && v.frameCount == 41)
        #expect(v.bitRate == 2_470_167 && v.averageFrameRate == 15)
        let a = try #require(ours.streams.last)
        #expect(a.codec == "pcm_s16le" && a.sampleRate == 22050 && a.channels == 1 && a.bitRate == 352_800 && a.durationSeconds == nil)
    }

    /// A file cut short of its RIFF size: durations scaled by the part present, no bit rate from an index
    /// that is gone, and the sniffer's truncation error stays.
    @Test func cutFileScalesItsDurations() throws {
        let path = Self.dir.appendingPathComponent("cut-mjpeg-s16.avi").path
        let whole = try Self.facts(Self.dir.appendingPathComponent("mjpeg-s16.avi").path)
        let cut = try Self.facts(path)
        let cutSeconds = try #require(cut.format.durationSeconds)
        let wholeSeconds = try #require(whole.format.durationSeconds)
        #expect(cutSeconds < wholeSeconds * 0.7)
        #expect(cut.streams.first?.bitRate == nil && whole.streams.first?.bitRate != nil)
        #expect(cut.streams.first?.frameCount == whole.streams.first?.frameCount)
    }

    /// What the reader does not cover goes to libavformat, and the probe says which reader it was.
    @Test func otherCodecsAreLeftToLibavformat() throws {
        let path = Self.dir.appendingPathComponent("mjpeg-mp2.avi").path
        guard case .unsupported(let why) = AVIStreamReader.read(try FileSource(path: path)) else {
            Issue.record("MP2 audio should be handed over")
            return
        }
        #expect(why.contains("audio format tag 0x50"), "\(why)")
        let r = Prober().probe(path: path)
        #expect(r.format?.reader == nil && r.streams.count == 2 && r.isClean, "\(r.issues)")
    }

    @Test(arguments: ours)
    func probeNamesOurReaderAndCrossChecksClean(_ name: String) {
        let r = Prober().probe(path: Self.dir.appendingPathComponent(name).path)
        #expect(r.format?.reader == AVIStreamReader.name)
        #expect(!r.issues.contains { $0.stage == .libavformat }, "\(name): \(r.issues)")
        let m = Prober(options: .metadataOnly).probe(path: Self.dir.appendingPathComponent(name).path)
        #expect(m.format == r.format && m.streams == r.streams)
    }

    /// Cut, damaged and foreign bytes: the reader answers (facts or a reason) and never traps.
    @Test func damagedFilesNeverTrap() throws {
        let bytes = try [UInt8](Data(contentsOf: Self.dir.appendingPathComponent("mjpeg-u8.avi")))
        for cut in [0, 4, 11, 12, 20, 100, 200, 1000, 4096, bytes.count / 2, bytes.count - 1] {
            _ = AVIStreamReader.read(MemorySource(Array(bytes.prefix(cut))))
        }
        var rng = HostileInputTests.SplitMix(state: 23)
        for _ in 0..<400 {
            var b = bytes
            for _ in 0..<(1 + Int(rng.next() % 24)) {
                let at = Int(rng.next() % UInt64(min(b.count, 12_000)))
                b[at] = UInt8(truncatingIfNeeded: rng.next())
            }
            if Bool.random(using: &rng), b.count > 20 { b.removeLast(Int(rng.next() % UInt64(b.count - 20))) }
            if case .facts(let format, let streams) = AVIStreamReader.read(MemorySource(b)) {
                #expect(format.name == "avi" && !streams.isEmpty && streams.count <= AVIStreamReader.maxStreams)
                #expect(format.durationSeconds.map { $0 > 0 && $0.isFinite } ?? false)
            }
        }
        guard case .unsupported = AVIStreamReader.read(MemorySource(Array("RIFF\u{0}\u{0}\u{0}\u{0}AVI ".utf8))) else {
            Issue.record("a header with no streams has no facts")
            return
        }
    }

    @Test func iditBecomesCreationTimeAsLibavformatWritesIt() {
        #expect(AVIStreamReader.creationTime(Array("THU OCT 26 16:46:04 2006\n\0".utf8)) == "2006-10-26 16:46:04")
        #expect(AVIStreamReader.creationTime(Array("Mon Mar 10 15:04:43 2003".utf8)) == "2003-03-10 15:04:43")
        #expect(AVIStreamReader.creationTime(Array("2005/08/17 11:42:43".utf8)) == "2005-08-17 11:42:43")
        #expect(AVIStreamReader.creationTime(Array("yesterday".utf8)) == nil)
    }
}
