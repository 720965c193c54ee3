import CXXHash
import Synchronization

/// How much of each file an ingest hashes (`shoebox ingest --hash`).
public enum HashMode: String, Sendable, CaseIterable {
    /// Every byte of files up to `ContentHasher.fullHashLimit` (`xxh128:`); larger files from their size and
    /// 16 windows (`xxh128s:`).
    case full
    /// The size and three windows (head, middle, tail; `xxh128w:`), the way fclones and czkawka find
    /// duplicate candidates; files that share a sampled hash are then hashed in full.
    case sampled
    /// No hashing pass: the size and the first window only (`xxh128h:`), bytes the probe has just read.
    /// Files that share it are hashed in full, as in `sampled`.
    case none
}

/// Content hashes for identity: XXH3-128 (libxxhash), hex, prefixed with how much was hashed.
///
/// - `xxh128:` every byte (full mode up to `fullHashLimit`; any mode for a file its windows cover whole).
/// - `xxh128s:` size + 16 evenly spaced 1 MiB windows (full mode, larger files: a re-ingest never reads
///   gigabytes to recognise a moved file).
/// - `xxh128w:` size + head, middle and tail `sampleWindow`s (sampled mode).
/// - `xxh128h:` size + the head `sampleWindow` (mode none).
///
/// Bytes are read straight into pooled buffers (no allocation per read), so one hash is one pass over what
/// it covers. See docs/catalog.md, "Content hashes".
public enum ContentHasher {
    public static let fullHashLimit: UInt64 = 64 << 20
    static let window = 1 << 20
    /// The window of the sampled (`xxh128w:`) and head (`xxh128h:`) hashes.
    public static let sampleWindow = 64 << 10

    public static func hash(path: String, mode: HashMode = .full, deadline: Deadline? = nil) throws(ProbeError) -> String {
        try hash(FileSource(path: path, deadline: deadline), mode: mode)
    }

    /// Whether a hash covers every byte of its file (`xxh128:`): equal full hashes mean equal files.
    public static func isComplete(_ hash: String) -> Bool { hash.hasPrefix("xxh128:") }

    /// Whether a hash is one of the partial identities of `sampled`/`none` (`xxh128w:`, `xxh128h:`): files
    /// that share one are hashed in full to tell duplicates from look-alikes.
    public static func isPartial(_ hash: String) -> Bool { hash.hasPrefix("xxh128w:") || hash.hasPrefix("xxh128h:") }

    /// The kind of hash `mode` makes of a file of `size` bytes (its prefix): every byte (`xxh128:`) up to the
    /// full-hash limit, or when the mode's windows would cover the file whole; else the mode's windows.
    public static func prefix(mode: HashMode, size: UInt64) -> String {
        switch mode {
        case .full: size <= fullHashLimit ? "xxh128:" : "xxh128s:"
        case .sampled: size <= 3 * UInt64(sampleWindow) ? "xxh128:" : "xxh128w:"
        case .none: size <= UInt64(sampleWindow) ? "xxh128:" : "xxh128h:"
        }
    }

    public static func hash(_ source: any ByteSource, mode: HashMode = .full) throws(ProbeError) -> String {
        let size = source.size
        let state = try State()
        defer { state.free() }
        let prefix = Self.prefix(mode: mode, size: size)
        switch prefix {
        case "xxh128:":
            try state.feed(source, from: 0, count: size)
        case "xxh128s:":
            try state.feedSize(size)
            let n: UInt64 = 16
            for k in 0..<n { try state.feed(source, from: (size - UInt64(window)) * k / (n - 1), count: UInt64(window)) }
        case "xxh128w:":
            let w = UInt64(sampleWindow)
            try state.feedSize(size)
            for offset in [0, (size - w) / 2, size - w] { try state.feed(source, from: offset, count: w) }
        default:  // xxh128h:
            try state.feedSize(size)
            try state.feed(source, from: 0, count: UInt64(sampleWindow))
        }
        return prefix + state.digest()
    }

    /// One XXH3-128 state fed from a source through a pooled buffer.
    struct State {
        let state: OpaquePointer

        init() throws(ProbeError) {
            guard let s = XXH3_createState() else { throw ProbeError(.library, "out of memory", function: "XXH3_createState") }
            guard XXH3_128bits_reset(s) == XXH_OK else {
                XXH3_freeState(s)
                throw ProbeError(.library, "reset failed", function: "XXH3_128bits_reset")
            }
            state = s
        }

        func free() { XXH3_freeState(state) }

        func update(_ p: UnsafeRawPointer?, _ n: Int) throws(ProbeError) {
            guard shoebox_xxh3_128_update(state, p, n) == XXH_OK else {
                throw ProbeError(.library, "update failed", function: "XXH3_128bits_update")
            }
        }

        func feedSize(_ size: UInt64) throws(ProbeError) {
            var le = size.littleEndian
            try withUnsafeBytes(of: &le) { (b: UnsafeRawBufferPointer) throws(ProbeError) in try update(b.baseAddress, 8) }
        }

        /// Feeds `count` bytes from `offset` (fewer when the file ends first), read into a pooled buffer.
        /// Reads, not a mapping: measured on this project's 2-core machines (Benchmarks/README.md, session
        /// 10), the copy into a buffer that stays in cache cost less than faulting mapped pages in and
        /// unmapping them (which interrupts the other core to flush its TLB). A file that ends before the size
        /// it had when opened shrank while it was hashed: a transient `io-error`, not a hash of what is left.
        func feed(_ source: any ByteSource, from offset: UInt64, count: UInt64) throws(ProbeError) {
            let end = min(offset + count, max(offset, source.size))
            var start = offset
            if let file = source as? FileSource {
                // What the source read at open is hashed where it lies.
                start += try file.withHead(from: offset) { (head: UnsafeRawBufferPointer) throws(ProbeError) -> UInt64 in
                    let n = Int(min(UInt64(head.count), end - offset))
                    if n > 0 { try update(head.baseAddress, n) }
                    return UInt64(n)
                }
                if start >= end { return }
            }
            try ContentHasher.buffers.withBuffer { (buf: UnsafeMutableRawBufferPointer) throws(ProbeError) in
                var pos = start
                while pos < end {
                    let want = Int(min(UInt64(buf.count), end - pos))
                    let n = try source.read(at: pos, into: UnsafeMutableRawBufferPointer(rebasing: buf[0..<want]))
                    if n == 0 {
                        throw ProbeError(.ioError, "the file shrank while it was hashed (it ends before byte \(pos) of the \(source.size) it had when opened)")
                    }
                    try update(buf.baseAddress, n)
                    pos += UInt64(n)
                }
            }
        }

        func digest() -> String {
            let h = XXH3_128bits_digest(state)
            return ContentHasher.hex64(h.high64) + ContentHasher.hex64(h.low64)
        }
    }

    /// Read buffers kept between hashes (one per worker at a time): no allocation or page fault per file.
    static let buffers = BufferPool(size: 1 << 20)

    /// Gives back the read buffers kept between hashes and `FileSource`s (a later one allocates one again).
    /// An ingest calls it once no file is left to hash: kept, the two buffers of a 2-core machine were 2 MiB
    /// of organize's peak.
    public static func releaseBuffers() {
        buffers.releaseAll()
        FileSource.buffers.releaseAll()
    }
    static func hex64(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}

/// Fixed-size raw buffers lent out one at a time and kept for the next borrower.
final class BufferPool: Sendable {
    /// A buffer owned by the pool while it is in the free list (lent to one borrower at a time).
    struct Owned: @unchecked Sendable { let buffer: UnsafeMutableRawBufferPointer }

    let size: Int
    private let free = Mutex<[Owned]>([])

    init(size: Int) { self.size = size }

    func withBuffer<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let owned = take()
        defer { giveBack(owned) }
        return try body(owned.buffer)
    }

    /// A buffer lent until `giveBack` (kept in the free list then, up to 16).
    func take() -> Owned { free.withLock { $0.popLast() } ?? Owned(buffer: .allocate(byteCount: size, alignment: 64)) }

    func giveBack(_ owned: Owned) {
        let kept = free.withLock { list -> Bool in
            guard list.count < 16 else { return false }
            list.append(owned)
            return true
        }
        if !kept { owned.buffer.deallocate() }
    }

    /// How many buffers the free list holds.
    var kept: Int { free.withLock { $0.count } }

    /// Deallocates the buffers in the free list (those lent out stay with their borrowers).
    func releaseAll() {
        for owned in free.withLock({ list in defer { list = [] }; return list }) { owned.buffer.deallocate() }
    }
}

/// The XXH3-128 digest of a name, for sets of many names held in 16 bytes each (`PathSet`).
public struct NameDigest: Hashable, Sendable {
    public let high: UInt64
    public let low: UInt64

    public init(_ name: String) {
        var name = name
        let h = name.withUTF8 { b in XXH3_128bits(b.baseAddress, b.count) }
        (high, low) = (h.high64, h.low64)
    }
}
