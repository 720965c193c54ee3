import Foundation
import PhotoModel

/// Writes stored assets as JSON objects, by hand, into one reused byte buffer that goes to a file descriptor
/// in large writes: `query --format ndjson/json` at a million assets (Foundation's `JSONEncoder` costs tens
/// of microseconds per asset on Linux).
///
/// The object is the shape `shoebox query` has always printed (`AssetJSON` plus the two identifiers), with
/// its keys in one fixed order, `keyOrder` (docs/predicates.md, "Output"). Absent values are `null`, never left
/// out, except a resource's `uniformTypeIdentifier` and `fileSize`, which are left out as they always were; numbers are exact (integers as integers, doubles in Swift's shortest round-trip form); dates are the
/// catalog's text (local wall-clock time, then the UTC offset when known).
public struct AssetRowWriter {
    /// The keys of one asset object, in the order they are written.
    public static let keyOrder = [
        "localIdentifier", "cloudIdentifier", "id", "mediaType", "mediaSubtypes", "traits", "playbackStyle",
        "playbackVariation", "creationDate", "creationDateSource", "location", "locationSource", "pixelWidth",
        "pixelHeight", "duration", "pairedVideoDuration", "contentIdentifier", "burstIdentifier", "hasAdjustments",
        "isFavorite", "isHidden", "resources", "metadataSources", "embeddedVideo", "motionPhoto", "pairingConfidence",
        "make", "model", "lensModel", "reasons",
    ]

    /// `"key":` for each of `keyOrder`, opened with `{` (the first) or `,` (the others).
    /// Held in one allocation for the life of the process, so writing a key is a copy with no reference
    /// counting (an array of arrays retains and releases the inner array at each use).
    nonisolated(unsafe) static let keyBytes: [UnsafeBufferPointer<UInt8>] = keyOrder.enumerated().map { k in
        let bytes = Array(((k.offset == 0 ? "{" : ",") + "\"\(k.element)\":").utf8)
        let stored = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = stored.initialize(from: bytes)
        return UnsafeBufferPointer(stored)
    }

    /// Appends a literal: a copy of its bytes (appending a `String.UTF8View` goes byte by byte).
    @inline(__always) static func literal(_ s: StaticString, into out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }
    static let variationNames = Dictionary(uniqueKeysWithValues: PlaybackVariation.allCases.map { ($0, String(describing: $0)) })

    /// What is pending; the row stream (`AssetRowStream.swift`) writes objects into it directly.
    var buffer: [UInt8] = []
    private let fd: Int32
    let flushAt: Int

    /// A writer to `fd` (standard output by default) that writes whenever `flushAt` bytes are pending.
    public init(fd: Int32 = 1, flushAt: Int = 1 << 16) {
        self.fd = fd
        self.flushAt = flushAt
        buffer.reserveCapacity(min(flushAt, 1 << 20) + 4096)
    }

    /// The bytes not yet written (for tests and callers that collect rather than write).
    public var pending: [UInt8] { buffer }

    /// Appends text as is (separators, brackets, newlines).
    public mutating func raw(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= flushAt { flush() }
    }

    /// Appends one asset as a JSON object (no newline).
    public mutating func object(_ s: StoredAsset) {
        let a = s.asset
        var next = 0
        /// The next key of `keyOrder`; `k` names it for the reader (checked in debug builds).
        func key(_ k: StaticString) {
            assert(Self.keyOrder[next] == k.description)
            buffer.append(contentsOf: Self.keyBytes[next])
            next += 1
        }
        key("localIdentifier"); string(s.localIdentifier)
        key("cloudIdentifier"); string(s.cloudIdentifier)
        key("id"); string(a.id)
        key("mediaType"); string(a.mediaType.name)
        key("mediaSubtypes"); strings(a.mediaSubtypes.names)
        key("traits"); strings(a.traits.map(\.rawValue).sorted())
        key("playbackStyle"); string(a.playbackStyle.name)
        key("playbackVariation"); string(Self.variationNames[a.playbackVariation])
        key("creationDate"); string(a.creationDate?.description)
        key("creationDateSource"); string(a.creationDateSource)
        key("location")
        if let l = a.location {
            buffer.append(contentsOf: "{\"latitude\":".utf8); number(l.latitude)
            buffer.append(contentsOf: ",\"longitude\":".utf8); number(l.longitude)
            buffer.append(contentsOf: ",\"altitude\":".utf8); number(l.altitude)
            buffer.append(UInt8(ascii: "}"))
        } else {
            null()
        }
        key("locationSource"); string(a.locationSource)
        key("pixelWidth"); integer(Int64(a.pixelWidth))
        key("pixelHeight"); integer(Int64(a.pixelHeight))
        key("duration"); number(a.mediaType == .video || a.mediaType == .audio ? a.duration : nil)
        // Assembly-time facts the catalog does not keep: always null in a query, as before.
        key("pairedVideoDuration"); null()
        key("contentIdentifier"); string(a.contentIdentifier)
        key("burstIdentifier"); string(a.burstIdentifier)
        key("hasAdjustments"); bool(a.hasAdjustments)
        key("isFavorite"); bool(a.isFavorite)
        key("isHidden"); bool(a.isHidden)
        key("resources")
        buffer.append(UInt8(ascii: "["))
        for (i, r) in a.resources.enumerated() {
            buffer.append(contentsOf: (i == 0 ? "{\"type\":" : ",{\"type\":").utf8); string(r.type.name)
            buffer.append(contentsOf: ",\"path\":".utf8); string(r.path)
            buffer.append(contentsOf: ",\"originalFilename\":".utf8); string(r.originalFilename)
            // These two are left out when absent, as they always were (the one exception to "null").
            if let uti = r.uniformTypeIdentifier {
                buffer.append(contentsOf: ",\"uniformTypeIdentifier\":".utf8); string(uti)
            }
            if let size = r.fileSize {
                buffer.append(contentsOf: ",\"fileSize\":".utf8); buffer.append(contentsOf: String(size).utf8)
            }
            buffer.append(UInt8(ascii: "}"))
        }
        buffer.append(UInt8(ascii: "]"))
        key("metadataSources")
        buffer.append(UInt8(ascii: "["))
        for (i, m) in s.metadataSources.enumerated() {
            buffer.append(contentsOf: (i == 0 ? "{\"type\":" : ",{\"type\":").utf8); string(m.type)
            buffer.append(contentsOf: ",\"path\":".utf8); string(m.path)
            buffer.append(UInt8(ascii: "}"))
        }
        buffer.append(UInt8(ascii: "]"))
        key("embeddedVideo"); null()
        key("motionPhoto"); bool(a.traits.contains(.motionPhoto))
        key("pairingConfidence"); null()
        key("make"); string(a.make)
        key("model"); string(a.model)
        key("lensModel"); string(a.lensModel)
        key("reasons"); strings(a.reasons.map(\.description))
        buffer.append(UInt8(ascii: "}"))
        if buffer.count >= flushAt { flush() }
    }

    /// Writes what is pending (a short write is continued; a failed one, such as a closed pipe, drops the rest).
    public mutating func flush() {
        buffer.withUnsafeBufferPointer { write($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes `bytes` to the descriptor, past what is pending (the caller flushed it or holds nothing).
    func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let p = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let n = Foundation.write(fd, p + done, bytes.count - done)
            if n > 0 {
                done += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }

    // MARK: - Values

    /// Appends bytes already encoded.
    mutating func appendBytes(_ bytes: ArraySlice<UInt8>) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= flushAt { flush() }
    }

    mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= flushAt { flush() }
    }

    private mutating func null() { buffer.append(contentsOf: "null".utf8) }

    private mutating func bool(_ b: Bool) { buffer.append(contentsOf: (b ? "true" : "false").utf8) }

    private mutating func integer(_ v: Int64) { buffer.append(contentsOf: String(v).utf8) }

    private mutating func number(_ v: Double?) { Self.number(v, into: &buffer) }

    private mutating func strings(_ values: [String]) { Self.strings(values, into: &buffer) }

    private mutating func string(_ s: String?) {
        guard let s else { return null() }
        Self.string(s, into: &buffer)
    }

    /// Shortest round-trip digits; a value JSON cannot carry (NaN, ±infinity) is null.
    static func number(_ v: Double?, into out: inout [UInt8]) {
        guard let v, v.isFinite else { return out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: v.description.utf8)
    }

    static func strings(_ values: [String], into out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (i, v) in values.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            string(v, into: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    static func string(_ s: String?, into out: inout [UInt8]) {
        guard var s else { return out.append(contentsOf: "null".utf8) }
        s.withUTF8 { string(bytes: $0, into: &out) }
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\n`-style or `\u00XX` escapes, everything
    /// else (slashes and non-ASCII included) as its UTF-8 bytes — what `JSONEncoder` writes with
    /// `.withoutEscapingSlashes` (the stored facts, `Pipeline/FactsJSON`, are written through it too).
    @inlinable public static func string<Bytes: Collection>(bytes: Bytes, into out: inout [UInt8]) where Bytes.Element == UInt8 {
        out.append(UInt8(ascii: "\""))
        escaped(bytes: bytes, into: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// The inside of a JSON string (`string(bytes:into:)` without the quotes).
    @inlinable public static func escaped<Bytes: Collection>(bytes: Bytes, into out: inout [UInt8]) where Bytes.Element == UInt8 {
        // Contiguous bytes (a string's UTF-8, a buffer): eight at a time, runs copied whole (OutBytes).
        if bytes.withContiguousStorageIfAvailable({ b in OutBytes.escapedRuns(b) { out.append(contentsOf: $0) } }) != nil { return }
        var start = bytes.startIndex
        var i = bytes.startIndex
        while i != bytes.endIndex {
            let c = bytes[i]
            if c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") {
                out.append(contentsOf: bytes[start..<i])
                escapeSequence(c) { out.append(contentsOf: $0) }
                start = bytes.index(after: i)
            }
            i = bytes.index(after: i)
        }
        out.append(contentsOf: bytes[start..<bytes.endIndex])
    }

    /// The escape of a byte a JSON string cannot hold as is (`"`, `\`, a control byte): `\n`-style where JSON
    /// has one, else `\u00XX`. The one table of `escaped(bytes:into:)` and `OutBytes.escaped`.
    @inlinable static func escapeSequence(_ c: UInt8, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        func hex(_ v: UInt8) -> UInt8 { v < 10 ? UInt8(ascii: "0") + v : UInt8(ascii: "a") + v - 10 }
        var seq: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (UInt8(ascii: "\\"), 0, UInt8(ascii: "0"), UInt8(ascii: "0"), hex(c >> 4), hex(c & 0xF))
        var n = 2
        switch c {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): seq.1 = c
        case 0x0A: seq.1 = UInt8(ascii: "n")
        case 0x0D: seq.1 = UInt8(ascii: "r")
        case 0x09: seq.1 = UInt8(ascii: "t")
        case 0x08: seq.1 = UInt8(ascii: "b")
        case 0x0C: seq.1 = UInt8(ascii: "f")
        default:
            seq.1 = UInt8(ascii: "u")
            n = 6
        }
        withUnsafeBytes(of: &seq) { body(UnsafeBufferPointer(rebasing: $0.bindMemory(to: UInt8.self)[..<n])) }
    }
}
