import CXXHash

/// Content hashes for identity: XXH3-128 (libxxhash), hex.
///
/// Files up to `fullHashLimit` are hashed whole. Larger files (videos) are hashed from their size and
/// 16 evenly spaced 1 MiB windows including the first and last, so an ingest never reads gigabytes to
/// recognise a moved file; the hash text says which (`xxh128:` or `xxh128s:`).
public enum ContentHasher {
    public static let fullHashLimit: UInt64 = 64 << 20
    static let window = 1 << 20

    public static func hash(path: String, deadline: Deadline? = nil) throws(ProbeError) -> String {
        try hash(FileSource(path: path, deadline: deadline))
    }

    public static func hash(_ source: any ByteSource) throws(ProbeError) -> String {
        guard let state = XXH3_createState() else { throw ProbeError(.library, "out of memory", function: "XXH3_createState") }
        defer { XXH3_freeState(state) }
        guard XXH3_128bits_reset(state) == XXH_OK else { throw ProbeError(.library, "reset failed", function: "XXH3_128bits_reset") }
        let size = source.size
        func feed(_ bytes: [UInt8]) throws(ProbeError) {
            let rc = bytes.withUnsafeBytes { XXH3_128bits_update(state, $0.baseAddress, $0.count) }
            guard rc == XXH_OK else { throw ProbeError(.library, "update failed", function: "XXH3_128bits_update") }
        }
        var sampled = false
        if size <= fullHashLimit {
            var offset: UInt64 = 0
            while offset < size {
                let chunk = try source.read(at: offset, count: 4 * window)
                if chunk.isEmpty { break }
                try feed(chunk)
                offset += UInt64(chunk.count)
            }
        } else {
            sampled = true
            var sizeBytes = [UInt8](repeating: 0, count: 8)
            for i in 0..<8 { sizeBytes[i] = UInt8((size >> (8 * UInt64(i))) & 0xFF) }
            try feed(sizeBytes)
            let n: UInt64 = 16
            for k in 0..<n {
                let offset = (size - UInt64(window)) * k / (n - 1)
                try feed(try source.read(at: offset, count: window))
            }
        }
        let h = XXH3_128bits_digest(state)
        return (sampled ? "xxh128s:" : "xxh128:") + hex64(h.high64) + hex64(h.low64)
    }

    static func hex64(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
