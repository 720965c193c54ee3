import CXXHash
import Foundation
import Testing

@testable import MediaProbe

/// The content hash reads a file's ranges into pooled buffers: it must give the bytes' hash in every mode
/// and at any offset, and a file that shrinks while it is hashed must be an error, not a hash of what is left.
@Suite struct ContentHasherTests {
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var rng = HostileInputTests.SplitMix(state: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    static func scratchFile(_ name: String, _ bytes: [UInt8]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-hash-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Sizes around the thresholds: inside the head read at open, one buffer, sampled windows at offsets
    /// that are not page-aligned, many buffers, and a file past the full-hash limit (16 windows).
    @Test(arguments: [1, 4095, 70_000, 400_001, 2_000_003, 20_000_007, Int(ContentHasher.fullHashLimit) + 12_345])
    func fileHashEqualsTheBytesHash(_ size: Int) throws {
        let b = Self.bytes(size, seed: UInt64(size))
        let path = try Self.scratchFile("f.bin", b)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        for mode in HashMode.allCases {
            let fromFile = try ContentHasher.hash(FileSource(path: path), mode: mode)
            #expect(fromFile == (try ContentHasher.hash(MemorySource(b), mode: mode)), "\(size) bytes, \(mode)")
        }
    }

    /// Reads are served from the head read at open (`FileSource.headSize`) when they fall inside it, from
    /// the read window (`FileSource.windowSize` from the last small read's start) or the file otherwise: the
    /// same bytes either way, for reads inside, across and past the head's end, inside, across and before
    /// the window, at the end of the file, and for files shorter than the head.
    @Test(arguments: [0, 1, 100, FileSource.headSize - 1, FileSource.headSize, FileSource.headSize + 1, 3 * FileSource.headSize + 7])
    func readsAreTheFilesBytesInsideAndPastTheHead(_ size: Int) throws {
        let b = Self.bytes(size, seed: UInt64(size) &+ 99)
        let path = try Self.scratchFile("h.bin", b)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let f = try FileSource(path: path)
        let h = FileSource.headSize, w = FileSource.windowSize
        let reads = [
            (0, 1), (0, 16), (7, 300), (h - 10, 10), (h - 10, 20), (h, 5), (h + 3, 100), (h + 50, 10), (h + 3 + w - 5, 10), (h + 1, 2),
            (h - 5, w + 5), (h - 5, w + 6), (h + 2 * w, w), (h + 2 * w + 1, w), (h + 7, 3 * w), (h + 8, 16), (size - 3, 10), (size - 20, 8),
            (0, size + 5), (size, 4), (size + 8, 4),
        ]
        for (offset, count) in reads where offset >= 0 {
            let want = offset < size ? Array(b[offset..<min(size, offset + count)]) : []
            #expect(try f.read(at: UInt64(offset), count: count) == want, "\(size) bytes: \(count) at \(offset)")
        }
    }

    /// The streaming update runs through the CPU-dispatched entry point (AVX2/AVX-512 on x86): its digest
    /// must be the portable one-shot XXH3-128's, or every stored content hash would change.
    @Test func dispatchedUpdateGivesThePortableDigest() throws {
        for size in [0, 1, 16, 17, 128, 129, 240, 241, 1024, 100_003, (1 << 20) + 7] {
            let b = Self.bytes(size, seed: UInt64(size) &+ 99)
            let state = try ContentHasher.State()
            defer { state.free() }
            // In uneven pieces, as reads arrive.
            var offset = 0
            var piece = 1
            while offset < size {
                let n = min(piece, size - offset)
                let chunk = Array(b[offset..<(offset + n)])
                try state.update(chunk, n)
                offset += n
                piece = piece * 3 + 1
            }
            let portable = b.withUnsafeBytes { XXH3_128bits($0.baseAddress, size) }
            #expect(state.digest() == ContentHasher.hex64(portable.high64) + ContentHasher.hex64(portable.low64), "\(size) bytes")
        }
    }

    /// A file cut short after it was opened: the hash ends in a transient `io-error` (the next ingest probes
    /// it again), not in the hash of what is left.
    @Test func fileThatShrinksWhileHashedIsAnError() throws {
        let path = try Self.scratchFile("shrinks.bin", Self.bytes(1 << 20, seed: 3))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let source = try FileSource(path: path)
        #expect(truncate(path, 10_000) == 0)
        do {
            let h = try ContentHasher.hash(source, mode: .full)
            Issue.record("hashed \(h) though the file shrank")
        } catch {
            #expect(error.code == .ioError, "\(error)")
            #expect(error.message.contains("shrank"))
        }
        // An intact file still hashes; a range asked for past its end covers the bytes that are there.
        let bytes = Self.bytes(300_000, seed: 4)
        let intact = try Self.scratchFile("intact.bin", bytes)
        defer { try? FileManager.default.removeItem(atPath: (intact as NSString).deletingLastPathComponent) }
        #expect(try ContentHasher.hash(FileSource(path: intact)).hasPrefix("xxh128:"))
        let state = try ContentHasher.State()
        defer { state.free() }
        try state.feed(FileSource(path: intact), from: 4096, count: 1 << 20)
        let tail = Array(bytes[4096...])
        let expected = tail.withUnsafeBytes { XXH3_128bits($0.baseAddress, tail.count) }
        #expect(state.digest() == ContentHasher.hex64(expected.high64) + ContentHasher.hex64(expected.low64))
    }

    /// The pool keeps a returned buffer for the next borrower, gives back what it keeps when asked (an
    /// ingest asks once every file is probed), and lends again after that; a buffer lent out while the pool
    /// is emptied comes back to it.
    @Test func bufferPoolKeepsLendsAndGivesBack() throws {
        let pool = BufferPool(size: 4096)
        pool.withBuffer { $0.storeBytes(of: 7, as: UInt8.self) }
        #expect(pool.kept == 1)
        pool.withBuffer { outer in
            pool.withBuffer { inner in #expect(inner.baseAddress != outer.baseAddress) }
            #expect(pool.kept == 1)
            pool.releaseAll()
            #expect(pool.kept == 0)
            outer.storeBytes(of: 9, as: UInt8.self)  // still the borrower's
        }
        #expect(pool.kept == 1)
        pool.releaseAll()
        #expect(pool.kept == 0)
        let bytes = Self.bytes(400_001, seed: 5)
        let path = try Self.scratchFile("after-release.bin", bytes)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let before = try ContentHasher.hash(FileSource(path: path), mode: .full)
        ContentHasher.releaseBuffers()
        #expect(try ContentHasher.hash(FileSource(path: path), mode: .full) == before)
    }
}
