#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import Synchronization

/// Random (version 4) UUID texts, as `UUID().uuidString` writes them (upper-case hex, 8-4-4-4-12), from the
/// operating system's random bytes read 4 KiB (256 identifiers) at a time.
///
/// Foundation's `UUID()` on Linux opens, reads and closes `/dev/urandom` for each identifier: three system
/// calls for every asset an ingest inserts (2,245 opens in a 3,000-file first ingest), on the writer's thread.
enum RandomUUID {
    private static let pool = Mutex(Pool())

    struct Pool {
        var bytes = [UInt8](repeating: 0, count: 4096)
        var next = 4096

        /// 16 random bytes, refilling the pool from the system when it is spent.
        mutating func take() -> (UInt64, UInt64) {
            if next + 16 > bytes.count {
                bytes.withUnsafeMutableBytes { Self.fill($0) }
                next = 0
            }
            defer { next += 16 }
            return bytes.withUnsafeBytes { b in
                (b.loadUnaligned(fromByteOffset: next, as: UInt64.self), b.loadUnaligned(fromByteOffset: next + 8, as: UInt64.self))
            }
        }

        static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
            #if canImport(Darwin)
                arc4random_buf(buffer.baseAddress!, buffer.count)
                return
            #else
                // The kernel's random bytes, a pool at a time (Glibc's module does not bring `getrandom`).
                let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
                if fd >= 0 {
                    defer { close(fd) }
                    var done = 0
                    while done < buffer.count {
                        let n = read(fd, buffer.baseAddress! + done, buffer.count - done)
                        if n > 0 {
                            done += n
                        } else if n == 0 || errno != EINTR {
                            break
                        }
                    }
                    if done == buffer.count { return }
                }
                // No /dev/urandom (a bare container): the standard library's generator, 8 bytes at a time.
                var g = SystemRandomNumberGenerator()
                for offset in stride(from: 0, to: buffer.count, by: 8) {
                    buffer.storeBytes(of: g.next(), toByteOffset: offset, as: UInt64.self)
                }
            #endif
        }
    }

    /// A new random UUID as text: `B93AE0F5-08ED-42F1-85CA-4942D847179A` (Foundation's own formatting).
    static func string() -> String {
        var bytes = pool.withLock { $0.take() }
        return withUnsafeMutableBytes(of: &bytes) { u in
            // Version 4 (byte 6's high nibble) and the RFC 4122 variant (byte 8's two high bits), as `UUID()`.
            u[6] = (u[6] & 0x0F) | 0x40
            u[8] = (u[8] & 0x3F) | 0x80
            return UUID(
                uuid: (u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15])
            ).uuidString
        }
    }
}
