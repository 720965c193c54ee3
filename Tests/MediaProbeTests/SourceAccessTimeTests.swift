import Foundation
import Testing

@testable import MediaProbe

/// Sources are read-only, their metadata too: probing and hashing a file leaves its access time as it was
/// (`O_NOATIME`, for the file's owner and for root).
@Suite struct SourceAccessTimeTests {
    /// A file in a scratch directory whose access time is set to 2000-01-01, before its modification time.
    static func staleFile(_ bytes: Int = 300_000) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-atime-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("source.bin").path
        try Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: path))
        try setStaleAccessTime(path)
        return path
    }

    static func setStaleAccessTime(_ path: String) throws {
        var st = stat()
        guard stat(path, &st) == 0 else { throw CocoaError(.fileReadUnknown) }
        var times = [timespec(tv_sec: 946_684_800, tv_nsec: 0), st.st_mtim]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    static func accessTime(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_atim.tv_sec) : -1
    }

    /// Whether the file system under the temporary directory records reads at all (not a `noatime` mount):
    /// a plain read of a file with a stale access time must move it, or the test below could not fail.
    static let readsMoveAccessTimes: Bool = {
        guard let path = try? staleFile(4096) else { return false }
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        _ = FileManager.default.contents(atPath: path)
        return accessTime(path) != 946_684_800
    }()

    @Test(.enabled(if: readsMoveAccessTimes, "the temporary directory's file system does not record access times (noatime)"))
    func probingAndHashingLeaveTheAccessTime() throws {
        let path = try Self.staleFile()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let source = try FileSource(path: path)
        #expect(try source.read(at: 100_000, count: 150_000).count == 150_000)
        _ = try ContentHasher.hash(path: path, mode: .full)
        _ = Prober().probe(path: path, hash: .full)  // as the ingest reads a file: one pass, probe and hash
        #expect(Self.accessTime(path) == 946_684_800)
    }
}
