import Foundation
import Testing
import TestSupport

@testable import MediaProbe

/// Bad input is normal input: mutants of real corpus files, and hostile file-system objects. Each is
/// probed; nothing may crash or hang, and every broken file gets an issue naming its stage and reason.
@Suite(.serialized) struct HostileInputTests {
    static let seeds = [
        "lychee/train.jpg", "lychee/train.mov", "osxphotos/media_types/IMG_4394.HEIC", "osxphotos/media_types/IMG_4394.mov",
        "osxphotos/media_types/IMG_2908.PNG", "lychee/gif.gif", "metadata-extractor-images/webp/Animation Lossy.webp",
        "exiftool-t-images/DNG.dng", "exiftool-t-images/CanonRaw.cr3", "immich/formats/motionphoto/samsung-one-ui-6.heic",
        "ente-motion_photos/pixel_8.jpg", "metadata-extractor-images/avi/100_0306.AVI",
    ]

    /// A scratch directory, removed at the end.
    final class Scratch {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-hostile-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }

        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let p = url.appendingPathComponent(name)
            try Data(bytes).write(to: p)
            return p.path
        }
    }

    /// Deterministic pseudo-random numbers (SplitMix64) so failures reproduce.
    typealias SplitMix = TestSupport.SplitMix

    /// Probes with a watchdog: a probe that has not returned after `limit` seconds is a hang.
    static func probeBounded(_ path: String, limit: Double = 60) async throws -> ProbeReport {
        try await withThrowingTaskGroup(of: ProbeReport?.self) { group in
            group.addTask { Prober().probe(path: path) }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(limit * 1e9))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            guard let report = first else {
                Issue.record("probe of \(path) did not finish within \(limit) s")
                throw CancellationError()
            }
            return report
        }
    }

    static func expectIssue(_ r: ProbeReport, _ why: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!r.issues.isEmpty, "\(why): \(r.path) probed with no issue", sourceLocation: sourceLocation)
        for i in r.issues {
            #expect(!i.reason.isEmpty && !i.stage.rawValue.isEmpty, "issue without stage or reason", sourceLocation: sourceLocation)
        }
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"), arguments: seeds)
    func truncatedFilesReportAnIssue(_ rel: String) async throws {
        let root = try #require(Corpus.root)
        let bytes = [UInt8](try Data(contentsOf: root.appendingPathComponent(rel)))
        let scratch = try Scratch()
        let name = (rel as NSString).lastPathComponent
        for cut in [1, 7, 12, 64, 300, bytes.count / 3, bytes.count / 2, bytes.count - 17] where cut > 0 && cut < bytes.count {
            let path = try scratch.write("cut\(cut)-\(name)", Array(bytes[..<cut]))
            let r = try await Self.probeBounded(path)
            #expect(r.path == path)
            Self.expectIssue(r, "truncated at \(cut) of \(bytes.count)")
        }
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"), arguments: seeds)
    func bitFlipsNeverCrash(_ rel: String) async throws {
        let root = try #require(Corpus.root)
        let bytes = [UInt8](try Data(contentsOf: root.appendingPathComponent(rel)))
        let scratch = try Scratch()
        var rng = SplitMix(state: UInt64(truncatingIfNeeded: rel.hashValue & 0xFFFF) &+ 42)
        let name = (rel as NSString).lastPathComponent
        for round in 0..<12 {
            var m = bytes
            // Flip bits in the first 64 KiB, where the structure lives, and a few anywhere.
            for _ in 0..<8 {
                let i = Int.random(in: 0..<min(m.count, 65536), using: &rng)
                m[i] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
            }
            for _ in 0..<4 {
                let i = Int.random(in: 0..<m.count, using: &rng)
                m[i] ^= 0xFF
            }
            let path = try scratch.write("flip\(round)-\(name)", m)
            let r = try await Self.probeBounded(path)
            #expect(r.path == path)
        }
    }

    @Test func emptyFile() async throws {
        let scratch = try Scratch()
        let r = try await Self.probeBounded(try scratch.write("empty.jpg", []))
        #expect(r.kind == .empty)
        #expect(r.issues.contains { $0.severity == .error && $0.stage == .sniff && $0.reason.contains("empty") })
    }

    @Test func randomBytesBehindAnImageExtension() async throws {
        let scratch = try Scratch()
        var rng = SplitMix(state: 7)
        let bytes = (0..<10_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let r = try await Self.probeBounded(try scratch.write("noise.jpg", bytes))
        #expect(r.kind == .unknown)
        #expect(r.issues.contains { $0.severity == .error && $0.stage == .sniff })
    }

    @Test func mislabelledFileIsAWarningNotAFailure() async throws {
        // A PNG named .jpg: the content wins, the extension is a warning.
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [0, 0, 0, 13] + Array("IHDR".utf8)
            + [0, 0, 0, 4, 0, 0, 0, 3, 8, 2, 0, 0, 0] + [0, 0, 0, 0] + [0, 0, 0, 0] + Array("IEND".utf8) + [0, 0, 0, 0]
        let scratch = try Scratch()
        let r = try await Self.probeBounded(try scratch.write("picture.jpg", png))
        #expect(r.kind == .png)
        #expect(r.issues.contains { $0.severity == .warning && $0.stage == .sniff && $0.reason.contains(".jpg") })
    }

    /// The cheap loop check the prober runs on every Exif block finds what the full IFD walk finds: on the
    /// hostile fixture and on every corpus JPEG's Exif block.
    @Test func ifdLoopCheckAgreesWithTheFullWalk() throws {
        let fixture = Corpus.fixtures.appendingPathComponent("hostile/ifd-loop.jpg").path
        var blocks: [[UInt8]] = []
        var paths = [fixture]
        if let root = Corpus.root {
            paths += Corpus.mediaFiles().filter { $0.lowercased().hasSuffix(".jpg") || $0.lowercased().hasSuffix(".jpeg") }.map { root.path + "/" + $0 }
        }
        for p in paths {
            let source = try FileSource(path: p)
            guard let r = try? JPEGReader.read(source), let range = r.facts.exifRange else { continue }
            blocks.append(try source.read(range, limit: 1 << 20, what: "exif"))
        }
        #expect(blocks.count >= (Corpus.root == nil ? 1 : 2))
        #expect(!TIFFReader.loops(in: blocks[0]).isEmpty, "the hostile fixture has a loop")
        for b in blocks {
            #expect(TIFFReader.loops(in: b) == ((try? TIFFReader(b))?.loops ?? []))
        }
    }

    @Test func hugeDeclaredBoxSizes() async throws {
        let scratch = try Scratch()
        // ftyp, then a moov whose 64-bit largesize claims 2^63 bytes, then a meta claiming 4 GiB.
        var b: [UInt8] = [0, 0, 0, 20] + Array("ftypqt  ".utf8) + [0, 0, 0, 0] + Array("qt  ".utf8)
        b += [0, 0, 0, 1] + Array("moov".utf8) + [0x80, 0, 0, 0, 0, 0, 0, 0]
        b += [0xFF, 0xFF, 0xFF, 0xFF] + Array("meta".utf8) + [UInt8](repeating: 0, count: 64)
        let r = try await Self.probeBounded(try scratch.write("huge.mov", b))
        #expect(r.kind == .mov)
        Self.expectIssue(r, "a box claiming 2^63 bytes")
    }

    @Test func fifoNamedJPEGIsRefusedWithoutBlocking() async throws {
        let scratch = try Scratch()
        let path = scratch.url.appendingPathComponent("pipe.jpg").path
        #expect(mkfifo(path, 0o644) == 0)
        let r = try await Self.probeBounded(path, limit: 10)
        #expect(r.issues.contains { $0.severity == .error && $0.stage == .open && $0.reason.contains("FIFO") })
    }

    /// The walk's `stat` stands in for the open's own (`FileSource.Seen`): what it says is believed before
    /// anything is opened (a regular file said to be a FIFO is refused untouched), and the open file is
    /// checked again (a FIFO said to be a regular file is opened without blocking and then refused).
    @Test func aWalksStatIsBelievedAndCheckedOnTheOpenFile() throws {
        let scratch = try Scratch()
        let file = try scratch.write("plain.jpg", [0xFF, 0xD8, 0xFF, 0xD9])
        var st = stat()
        #expect(stat(file, &st) == 0)
        #expect(throws: Never.self) { _ = try FileSource(path: file, seen: FileSource.Seen(st)) }
        let fifoMode = UInt32(S_IFIFO) | 0o644
        do {
            _ = try FileSource(path: file, seen: FileSource.Seen(mode: fifoMode, owner: UInt32(st.st_uid)))
            Issue.record("a file said to be a FIFO was opened")
        } catch {
            #expect(error.code == .notRegularFile && error.description.contains("FIFO"), "\(error)")
        }
        let pipe = scratch.url.appendingPathComponent("pipe.jpg").path
        #expect(mkfifo(pipe, 0o644) == 0)
        do {
            _ = try FileSource(path: pipe, seen: FileSource.Seen(mode: UInt32(S_IFREG) | 0o644, owner: UInt32(st.st_uid)))
            Issue.record("a FIFO said to be a regular file was read")
        } catch {
            #expect(error.code == .notRegularFile && error.description.contains("while opening"), "\(error)")
        }
    }

    @Test func symlinkLoopIsAnError() async throws {
        let scratch = try Scratch()
        let a = scratch.url.appendingPathComponent("a.jpg").path
        let b = scratch.url.appendingPathComponent("b.jpg").path
        #expect(symlink(b, a) == 0)
        #expect(symlink(a, b) == 0)
        let r = try await Self.probeBounded(a, limit: 10)
        #expect(r.issues.contains { $0.severity == .error && $0.stage == .open })
    }

    @Test func unreadableFileIsAnError() async throws {
        let scratch = try Scratch()
        let path = try scratch.write("locked.jpg", [0xFF, 0xD8, 0xFF, 0xD9])
        chmod(path, 0)
        defer { chmod(path, 0o644) }
        let r = try await Self.probeBounded(path)
        if getuid() == 0 {
            // root reads files whatever their mode; the closest unreadable case is a vanished file.
            let gone = scratch.url.appendingPathComponent("vanished.jpg").path
            let r2 = try await Self.probeBounded(gone)
            #expect(r2.issues.contains { $0.severity == .error && $0.stage == .open && $0.reason.contains("No such file") })
        } else {
            #expect(r.issues.contains { $0.severity == .error && $0.stage == .open && $0.reason.contains("Permission denied") })
        }
    }

    @Test func directoryIsNotAFile() async throws {
        let scratch = try Scratch()
        let r = try await Self.probeBounded(scratch.url.path)
        #expect(r.issues.contains { $0.severity == .error && $0.stage == .open && $0.reason.contains("directory") })
    }
}
