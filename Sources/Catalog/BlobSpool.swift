#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import Synchronization

/// Blobs set aside in a file without a name until the writer stores them: the encoded facts of a very large
/// folder's files, which its commit (one transaction) would otherwise hold in memory until the last file is
/// probed — ~2 KB a file, 60 MB of a 30,000-file folder's 170 MB peak heap (Benchmarks/README.md, session 31).
///
/// The file is unlinked from the start (`O_TMPFILE`, or a name removed at once where the file system has no
/// such files), so nothing is left behind by a crash; it is closed, and its space freed, when the last
/// `SpooledBlob` pointing into it is dropped. Appends come from several probe workers at once: each reserves
/// its range under a lock and writes outside it.
public final class BlobSpool: Sendable {
    private let fd: Int32
    private let end = Mutex<Int64>(0)

    /// A spool in the first of `directories` that takes one; nil when none does (the caller keeps its blobs).
    /// `name`: what a named fallback file is called while it exists (`.<name>.<UUID>.tmp`, the scheme of
    /// every Shoebox temporary file).
    public convenience init?(directories: [String], name: String = "spool") {
        self.init(directories: directories, name: name, tmpfile: true)
    }

    /// `tmpfile` false: the named fallback alone (tests: every file system here takes `O_TMPFILE`).
    init?(directories: [String], name: String, tmpfile: Bool) {
        var opened: Int32 = -1
        for dir in directories where !dir.isEmpty {
            opened = Self.openUnnamed(in: dir, name: name, tmpfile: tmpfile)
            if opened >= 0 { break }
        }
        guard opened >= 0 else { return nil }
        fd = opened
    }

    deinit { close(fd) }

    /// `O_TMPFILE` (Linux 3.11+: ext4, xfs, btrfs, tmpfs…), else a named file removed at once.
    private static func openUnnamed(in dir: String, name: String, tmpfile: Bool) -> Int32 {
        #if os(Linux)
            // glibc's O_TMPFILE is `__O_TMPFILE | O_DIRECTORY`; __O_TMPFILE is 0o20000000 on the architectures
            // Swift runs on here.
            if tmpfile {
                let fd = open(dir, 0o20000000 | O_DIRECTORY | O_RDWR | O_CLOEXEC, 0o600)
                if fd >= 0 { return fd }
            }
        #endif
        let path = (dir.hasSuffix("/") ? dir : dir + "/") + "." + name + "." + UUID().uuidString + ".tmp"
        let named = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o600)
        guard named >= 0 else { return -1 }
        // A file system that cannot remove an open file's name (an SMB share) would leave it behind: closed,
        // removed, and the next folder tried.
        guard unlink(path) == 0 else {
            close(named)
            unlink(path)
            return -1
        }
        return named
    }

    /// Writes `bytes` to the spool; nil when it cannot (a full disk): then the caller keeps them.
    public func append(_ bytes: [UInt8]) -> SpooledBlob? {
        let count = bytes.count
        let offset = end.withLock { e in
            defer { e += Int64(count) }
            return e
        }
        let ok = bytes.withUnsafeBytes { p -> Bool in
            var done = 0
            while done < count {
                let n = pwrite(fd, p.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                if n > 0 {
                    done += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
        return ok ? SpooledBlob(spool: self, offset: offset, count: count) : nil
    }

    /// The bytes of `blob`, read back.
    func read(_ blob: SpooledBlob) throws(CatalogError) -> [UInt8] {
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: blob.count) { buffer, initialized in
            var done = 0
            while done < blob.count {
                let n = pread(fd, buffer.baseAddress! + done, blob.count - done, off_t(blob.offset) + off_t(done))
                if n > 0 {
                    done += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    failure = n < 0 ? errno : EIO
                    break
                }
            }
            initialized = done
        }
        guard failure == 0 else {
            throw CatalogError(.sql, "cannot read back the facts set aside for a large folder (\(blob.count) bytes at \(blob.offset) of its spool file): \(String(cString: strerror(failure)))")
        }
        return bytes
    }
}

/// Where one blob sits in a `BlobSpool` (which it keeps open).
public struct SpooledBlob: Sendable, Equatable {
    let spool: BlobSpool
    let offset: Int64
    public let count: Int

    public func bytes() throws(CatalogError) -> [UInt8] { try spool.read(self) }

    public static func == (a: SpooledBlob, b: SpooledBlob) -> Bool { a.spool === b.spool && a.offset == b.offset && a.count == b.count }
}
