import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Random access to the bytes of one file (or an in-memory buffer), never past its end.
///
/// Readers ask for ranges; a request that runs past the end comes back short, never as a crash.
/// Sources are opened read-only.
public protocol ByteSource: Sendable {
    var size: UInt64 { get }
    /// Up to `count` bytes from `offset`; fewer when the end is reached.
    func read(at offset: UInt64, count: Int) throws(ProbeError) -> [UInt8]
    /// Up to `buffer.count` bytes from `offset` into `buffer` (no allocation); the number read, 0 at the end.
    func read(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(ProbeError) -> Int
}

extension ByteSource {
    public func read(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(ProbeError) -> Int {
        let bytes = try read(at: offset, count: buffer.count)
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
        return bytes.count
    }

    /// Exactly `count` bytes from `offset`, or a truncation error naming `what`.
    public func readExactly(at offset: UInt64, count: Int, what: String) throws(ProbeError) -> [UInt8] {
        let bytes = try read(at: offset, count: count)
        guard bytes.count == count else {
            throw ProbeError(.truncated, "\(what): wanted \(count) bytes at offset \(offset), file has \(size)")
        }
        return bytes
    }

    /// A range, clamped to `limit` bytes so that no declared length can force a huge allocation.
    public func read(_ range: ByteRange, limit: Int, what: String) throws(ProbeError) -> [UInt8] {
        guard range.length <= UInt64(limit) else {
            throw ProbeError(.tooLarge, "\(what): \(range.length) bytes at offset \(range.offset) exceeds the \(limit)-byte limit")
        }
        return try readExactly(at: range.offset, count: Int(range.length), what: what)
    }
}

/// Bytes already in memory (tests, fuzzing, embedded blocks).
public struct MemorySource: ByteSource {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var size: UInt64 { UInt64(bytes.count) }

    public func read(at offset: UInt64, count: Int) throws(ProbeError) -> [UInt8] {
        guard offset < size, count > 0 else { return [] }
        let start = Int(offset)
        let end = start + min(count, bytes.count - start)
        return Array(bytes[start..<end])
    }
}

/// A regular file opened read-only; reads with `pread`, so it is safe to share across tasks.
public final class FileSource: ByteSource {
    public let path: String
    public let size: UInt64
    /// Modification time, seconds since 1970 (UTC).
    public let modificationTime: Int
    /// When set, a read after it throws `timed-out`.
    public let deadline: Deadline?
    private let fd: Int32
    /// How many bytes the head holds: the file's first `headSize` (fewer when it is shorter; none when reading
    /// them failed), read once at open. Readers parse headers in many small reads (a box or marker header,
    /// then its payload), and three in five of an ingest's reads fall in the first 16 KiB — each a system
    /// call before.
    private let headCount: Int
    /// Where the head (its first `headCount` bytes) and the read window's bytes live: a buffer of `buffers`,
    /// given back when the source goes.
    private let storage: BufferPool.Owned
    /// 64 KiB: every hash mode reads the first `ContentHasher.sampleWindow` (64 KiB) of a file anyway — the
    /// head hash of `none` and `sampled` reads nothing more, the full hash the rest — and most EXIF and XMP
    /// segments, ICC profiles and HEIF `meta` boxes end within it. With a 16 KiB head a 3,180-file first
    /// ingest (`--hash none`) made 28,890 reads of its sources and read 350 MB; see Benchmarks/README.md.
    static let headSize = 64 << 10
    /// The bytes around the last small read past the head (`windowSize` from where it started): a marker or
    /// box walk reads a header, then the next one a few bytes on — one system call for the lot.
    private let window = Mutex(ReadWindow())
    static let windowSize = 4 << 10

    /// The window's first `count` bytes (at `headSize` in `storage`) are the file's at `start`.
    struct ReadWindow {
        var start: UInt64 = 0
        var count = 0
    }

    /// Each source's head and window, kept between sources (as many as files are probed at once): no
    /// allocation per file, where a 64 KiB array per file fragmented the heap (+1.6 MiB peak at 3k files).
    static let buffers = BufferPool(size: headSize + windowSize)

    /// What a `stat` of the path just said — its type and owner — so that opening it needs no `stat` of its
    /// own: a folder walk has just made one (`FolderWalker`), and a second per file was a path lookup in
    /// the kernel for nothing.
    public struct Seen: Sendable, Equatable {
        public var mode: UInt32
        public var owner: UInt32
        public init(mode: UInt32, owner: UInt32) {
            self.mode = mode
            self.owner = owner
        }
        public init(_ st: stat) { self.init(mode: UInt32(st.st_mode), owner: UInt32(st.st_uid)) }
    }

    /// Opens `path` read-only. Refuses anything but a regular file (a FIFO would block, a device could
    /// be endless) before opening it, by a `stat` of the path or by `seen`, the caller's own; the type is
    /// checked again on the open file.
    public init(path: String, deadline: Deadline? = nil, seen: Seen? = nil) throws(ProbeError) {
        self.path = path
        self.deadline = deadline
        let known: Seen
        if let seen {
            known = seen
        } else {
            var st = stat()
            guard stat(path, &st) == 0 else {
                throw ProbeError(.unreadable, "stat failed: \(String(cString: strerror(errno)))", function: "stat")
            }
            known = Seen(st)
        }
        guard (mode_t(known.mode) & S_IFMT) == S_IFREG else {
            throw ProbeError(.notRegularFile, "not a regular file (\(FileSource.describeMode(mode_t(known.mode))))")
        }
        // Reading leaves the source's access time as it was (O_NOATIME), where the kernel allows it: to the
        // file's owner, and to root. Sources are read-only to Shoebox, their metadata too, and on a
        // `relatime` mount the first read of a file whose access time is older than its change or a day
        // would otherwise write its inode back: once for every file of a first ingest.
        let flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK
        let keepAccessTime = uid_t(known.owner) == Self.effectiveUser || Self.effectiveUser == 0
        var fd = open(path, flags | (keepAccessTime ? Self.noAccessTimeFlag : 0))
        if fd < 0 && errno == EPERM && keepAccessTime { fd = open(path, flags) }  // a file system that refuses it
        guard fd >= 0 else {
            throw ProbeError(.unreadable, "open failed: \(String(cString: strerror(errno)))", function: "open")
        }
        var st2 = stat()
        guard fstat(fd, &st2) == 0, (st2.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw ProbeError(.notRegularFile, "changed into something other than a regular file while opening")
        }
        self.fd = fd
        self.size = UInt64(st2.st_size)
        self.modificationTime = Int(st2.st_mtim.tv_sec)
        let want = Int(min(UInt64(Self.headSize), UInt64(st2.st_size)))
        storage = Self.buffers.take()
        let base = storage.buffer.baseAddress!
        var done = 0
        while done < want {
            let r = pread(fd, base + done, want - done, off_t(done))
            if r < 0 && errno == EINTR { continue }
            if r <= 0 { break }
            done += r
        }
        // A short or failed read: every read goes to the file.
        headCount = done == want ? want : 0
    }

    deinit {
        close(fd)
        Self.buffers.giveBack(storage)
    }

    /// The process's effective user, read once (not a system call per file opened).
    static let effectiveUser = geteuid()

    /// Linux's `O_NOATIME` (the generic value, that of every architecture Swift runs on; Glibc's module
    /// leaves it out, as it needs `_GNU_SOURCE`); 0 elsewhere.
    static var noAccessTimeFlag: Int32 {
        #if os(Linux)
            return 0o1000000
        #else
            return 0
        #endif
    }

    public func read(at offset: UInt64, count: Int) throws(ProbeError) -> [UInt8] {
        guard count > 0, offset < size else { return [] }
        let n = Int(min(UInt64(count), size - offset))
        var failure: ProbeError?
        // Filled in place by pread: no zero-fill before the read, no copy after it.
        let out = [UInt8](unsafeUninitializedCapacity: n) { buf, initialized in
            do throws(ProbeError) {
                initialized = try read(at: offset, into: UnsafeMutableRawBufferPointer(buf))
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return out
    }

    /// The corresponding C function is `pread` (retried on `EINTR`; short only at the end of the file). The
    /// part of the range inside the head is copied from it; a rest of up to `windowSize` bytes comes from
    /// the read window, read again from the rest's start when it does not hold the rest.
    public func read(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(ProbeError) -> Int {
        guard buffer.count > 0, offset < size, let base = buffer.baseAddress else { return 0 }
        try deadline?.check("reading at offset \(offset)")
        let n = Int(min(UInt64(buffer.count), size - offset))
        var done = 0
        if offset < UInt64(headCount) {
            done = min(n, headCount - Int(offset))
            base.copyMemory(from: storage.buffer.baseAddress! + Int(offset), byteCount: done)
            if done == n { return n }
        }
        let from = offset + UInt64(done), rest = n - done
        if rest <= Self.windowSize {
            return try done
                + window.withLock { (w: inout ReadWindow) throws(ProbeError) -> Int in
                    let bytes = storage.buffer.baseAddress! + Self.headSize
                    if from < w.start || from + UInt64(rest) > w.start + UInt64(w.count) {
                        w.count = 0  // nothing valid should the read fail
                        w.count = try fill(bytes, count: Int(min(UInt64(Self.windowSize), size - from)), at: from)
                        w.start = from
                    }
                    let k = min(rest, w.count - Int(from - w.start))
                    (base + done).copyMemory(from: bytes + Int(from - w.start), byteCount: k)
                    return k
                }
        }
        return try done + fill(base + done, count: rest, at: from)
    }

    /// The head's bytes from `offset` on (empty past it), for a reader that only looks: the hasher feeds a
    /// file's first 64 KiB from here, not through a copy into its buffer.
    func withHead<R>(from offset: UInt64, _ body: (UnsafeRawBufferPointer) throws(ProbeError) -> R) throws(ProbeError) -> R {
        let start = Int(min(offset, UInt64(headCount)))
        return try body(UnsafeRawBufferPointer(start: storage.buffer.baseAddress! + start, count: headCount - start))
    }

    /// `count` bytes from the file at `offset` into `base` by `pread` (fewer only when the file ends first).
    private func fill(_ base: UnsafeMutableRawPointer, count: Int, at offset: UInt64) throws(ProbeError) -> Int {
        var done = 0
        while done < count {
            let r = pread(fd, base + done, count - done, off_t(offset) + off_t(done))
            if r < 0 {
                if errno == EINTR { continue }
                throw ProbeError(.ioError, "read failed at offset \(offset + UInt64(done)): \(String(cString: strerror(errno)))", function: "pread")
            }
            if r == 0 { break }  // the file shrank under us
            done += r
        }
        return done
    }

    static func describeMode(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "directory"
        case S_IFIFO: return "FIFO"
        case S_IFCHR: return "character device"
        case S_IFBLK: return "block device"
        case S_IFSOCK: return "socket"
        case S_IFLNK: return "symbolic link"
        default: return "mode \(mode)"
        }
    }
}
