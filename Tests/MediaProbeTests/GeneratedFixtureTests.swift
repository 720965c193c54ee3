import Foundation
import Testing
import TestSupport

@testable import MediaProbe

/// The generated fixtures (`Fixtures/generate.py`) cover what the real corpus lacks or hides: track keys
/// before the movie keys (ffmpeg 5.1 drops them), 8-byte integers (ffmpeg reads 0), 240 fps with and
/// without slo-mo intent, a real-30-fps clip whose stream claims 240, time-lapse, a Live Photo movie with
/// still-image-time, Apple maker notes in both byte orders, a panorama, an APNG, a PNG screenshot and a
/// Google motion photo. `expected.json` says what a correct reader must find in each.
@Suite struct GeneratedFixtureTests {
    static let dir = Corpus.fixtures.appendingPathComponent("generated")

    nonisolated(unsafe) static let expected: [[String: Any]] = {
        guard let data = try? Data(contentsOf: dir.appendingPathComponent("expected.json")),
            let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [] }
        return obj["files"] as? [[String: Any]] ?? []
    }()

    static var names: [String] { expected.compactMap { $0["file"] as? String } }

    static func entry(_ name: String) -> [String: Any] { expected.first { $0["file"] as? String == name } ?? [:] }

    @Test func fixturesArePresent() {
        #expect(Self.names.count >= 13, "Fixtures/generated/expected.json lists the generated files")
    }

    @Test(arguments: names)
    func probeMatchesExpected(_ name: String) throws {
        let e = Self.entry(name)
        let r = Prober().probe(path: Self.dir.appendingPathComponent(name).path)
        #expect(r.isClean, "\(name): \(r.issues)")
        #expect(r.kind.rawValue == e["kind"] as? String)

        if let keys = e["movieKeys"] as? [String: Any] {
            let qt = try #require(r.quickTime, "\(name): no QuickTime facts")
            for (k, v) in keys {
                let ours = qt.movieValue(k)?.value
                if let want = v as? Double, want.rounded() != want {
                    // float32 values: compare as numbers (0.93 is stored as 0.9300000071525574).
                    #expect(abs((ours?.doubleValue ?? .nan) - want) < 1e-6, "\(name) movie key \(k)")
                } else {
                    #expect(ours?.description == "\(v)", "\(name) movie key \(k)")
                }
            }
        }
        if let track = e["trackKeys"] as? [String: Any], let keys = track["keys"] as? [String: Any] {
            let qt = try #require(r.quickTime)
            for (k, v) in keys {
                let item = qt.trackValue(k)
                #expect(item?.value.description == "\(v)", "\(name) track key \(k)")
                #expect(item?.source.contains("trak") == true, "\(name): \(k) must be read from the track's meta")
            }
        }
        if let n = e["sampleCount"] as? Int {
            #expect(r.quickTime?.videoTrack?.sampleCount == UInt64(n), "\(name) sample count")
        }
        if let fps = e["nominalFrameRate"] as? Double {
            let ours = try #require(r.quickTime?.videoTrack?.nominalFrameRate)
            #expect(abs(ours - fps) < 0.01, "\(name) measured frame rate \(ours), expected \(fps)")
        }
        if let d = e["durationSeconds"] as? Double {
            let ours = try #require(r.quickTime?.durationSeconds)
            #expect(abs(ours - d) < 0.001, "\(name) duration")
        }
        if let still = e["stillImageTime"] as? Double {
            let ours = try #require(r.quickTime?.stillImageTime?.value)
            #expect(abs(ours - still) < 0.001, "\(name) still-image-time")
        }
        if let w = e["width"] as? Int, let h = e["height"] as? Int {
            #expect(r.pixelWidth?.value == w && r.pixelHeight?.value == h, "\(name) pixel size")
        }
        if let exif = e["exif"] as? [String: Any] {
            if let cr = exif["CustomRendered"] as? Int { #expect(r.exif?.customRendered?.value == cr) }
            if let uc = exif["UserComment"] as? String { #expect(r.exif?.userComment?.value == uc) }
            if let make = exif["Make"] as? String { #expect(r.camera.make?.value == make) }
            if let dto = exif["DateTimeOriginal"] as? String {
                var want = dto.replacingOccurrences(of: " ", with: "T")
                want = String(want.prefix(4)) + "-" + want.dropFirst(5).prefix(2) + "-" + want.dropFirst(8)
                if let sub = exif["SubSecTimeOriginal"] as? String { want += "." + sub }
                if let off = exif["OffsetTimeOriginal"] as? String { want += off }
                #expect(r.dates.original?.value.description == want, "\(name) DateTimeOriginal")
            }
        }
        if let mn = e["makerNote"] as? [String: Any] {
            let a = try #require(r.apple, "\(name): Apple maker note not parsed")
            #expect(a.bigEndian == ((mn["byteOrder"] as? String) == "MM"))
            #expect(a.contentIdentifier == mn["ContentIdentifier"] as? String)
            #expect(a.burstUUID == mn["BurstUUID"] as? String)
            #expect(a.hdrImageType == (mn["HDRImageType"] as? Int).map(Int64.init))
            #expect(a.imageCaptureType == (mn["ImageCaptureType"] as? Int).map(Int64.init))
            if let v = mn["AccelerationVector"] as? [Double], case .rationals(let ours)? = a.entries[AppleMakerNote.tagAccelerationVector] {
                #expect(ours.count == v.count)
                for (x, y) in zip(ours, v) { #expect(abs(x - y) < 1e-6) }
            } else if mn["AccelerationVector"] != nil {
                Issue.record("\(name): AccelerationVector (out-of-line SRATIONAL[3]) not read")
            }
        }
        if let apng = e["apng"] as? [String: Any] {
            #expect(r.png?.animationFrames == apng["numFrames"] as? Int)
            #expect(r.png?.animationPlays == apng["numPlays"] as? Int)
        }
        if let xmp = e["xmp"] as? [String: Any] {
            for (k, v) in xmp where !(v is [Any]) {
                #expect(r.xmp?[k] == "\(v)", "\(name) XMP \(k)")
            }
        }
        if let ev = e["embeddedVideo"] as? [String: Any] {
            let ours = try #require(r.embeddedVideo, "\(name): embedded video not found")
            #expect(ours.range.offset == UInt64(ev["offset"] as? Int ?? -1))
            #expect(ours.range.length == UInt64(ev["length"] as? Int ?? -1))
        }
    }

    /// The point of the fixtures: where ffmpeg 5.1 is wrong, the prober says so and keeps the real value.
    @Test func ffmpegQuirksAreCorrected() throws {
        let hfr = Prober().probe(path: Self.dir.appendingPathComponent("hfr-240-intent1.mov").path)
        #expect(hfr.quickTime?.movieValue("com.apple.quicktime.full-frame-rate-playback-intent")?.value.intValue == 1)
        let claimed = Prober().probe(path: Self.dir.appendingPathComponent("claimed-240-real-30.mov").path)
        #expect(claimed.issues.contains { $0.stage == .libavformat && $0.reason.contains("r_frame_rate") })
        let meta = Prober().probe(path: Self.dir.appendingPathComponent("meta-first.mov").path)
        #expect(meta.quickTime?.movieValue("com.apple.quicktime.live-photo.vitality-scoring-version")?.value.intValue == 4)
        #expect(
            meta.quickTime?.movieValue("com.apple.quicktime.content.identifier")?.value.stringValue
                == "0F1E2D3C-4B5A-4968-8776-A5B4C3D2E1F0")
    }
}
