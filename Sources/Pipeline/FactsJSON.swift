#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Catalog
import MediaProbe

/// Writes a probe report as compact JSON by hand: byte for byte what `JSONEncoder` writes with
/// `[.sortedKeys, .withoutEscapingSlashes]` (so catalogs written before and after are identical and
/// `JSONDecoder` reads them back), without Codable's dispatch. A streaming `Encoder` (`CompactJSONEncoder`,
/// removed) wrote the same bytes through `Encodable`, and its keyed containers, boxed `encodeIfPresent`
/// calls, generic metadata lookups and per-object sorting were ~9.5 % of a 3,000-file ingest's CPU (issue 17).
///
/// Each fact type writes its members in `JSONEncoder`'s sorted-key order (the keys' UTF-8 bytes), the
/// order of its `factsJSONKeys`; nil optionals are left out, as synthesized `encodeIfPresent` does. Debug
/// builds check every object's members against its `factsJSONKeys` (a member a writer skips or misplaces
/// lands in `keyMismatches`), and a test checks `factsJSONKeys` against the type's stored properties, so a
/// field added later cannot be silently dropped from the stored facts.
enum FactsJSON {
    /// The report's facts; nil when a number cannot be written (NaN, ±infinity), where `JSONEncoder` throws.
    static func encode(_ report: ProbeReport) -> [UInt8]? {
        let w = write(report)
        return w.failed ? nil : w.out
    }

    /// A value written: its bytes, whether it `failed` (and, in debug builds, the writer's `keyMismatches`).
    struct Written {
        var out: [UInt8]
        var failed: Bool
        #if DEBUG
            var keyMismatches: [String]
        #endif
    }

    static func write(_ value: some FactsJSONValue) -> Written {
        var w = Writer()
        defer { w.buffer.deallocate() }
        value.writeFactsJSON(to: &w)
        #if DEBUG
            return Written(out: Array(w.buffer.bytes), failed: w.failed, keyMismatches: w.keyMismatches)
        #else
            return Written(out: Array(w.buffer.bytes), failed: w.failed)
        #endif
    }

    /// Appends JSON text to `buffer` (an `OutBytes`: an append is a bounds check and a copy, where a `[UInt8]`
    /// checked uniqueness and capacity through generic code at each of a report's ~300 appends, ~190
    /// instructions a key; the bytes are copied into an array once, by `write`). Containers track only
    /// whether a separator is due: the writers open and close them in order.
    struct Writer {
        /// Freed by `write`, the one place a writer is made.
        var buffer = OutBytes(capacity: 4096)
        /// A number that JSON cannot carry was met.
        var failed = false
        /// The container just opened: no comma before its first member or element.
        var atStart = true
        #if DEBUG
            /// The open objects' expected keys (nil for dictionaries, whose keys are data) and how many
            /// of them were passed.
            var expected: [(keys: [String]?, next: Int)] = []
            /// Members written out of `factsJSONKeys` order, or keys a writer did not pass.
            var keyMismatches: [String] = []
        #endif

        // MARK: Containers

        /// `{` of a fact type's object; its members follow in the order of `keys`.
        mutating func beginObject(_ keys: [String]) {
            #if DEBUG
                expected.append((keys, 0))
            #endif
            buffer.append(UInt8(ascii: "{"))
            atStart = true
        }

        /// `{` of a dictionary's object (keys are data, written by `dictionaryKey`).
        mutating func beginDictionary() {
            #if DEBUG
                expected.append((nil, 0))
            #endif
            buffer.append(UInt8(ascii: "{"))
            atStart = true
        }

        mutating func endObject() {
            #if DEBUG
                let (keys, next) = expected.removeLast()
                if let keys, next != keys.count {
                    keyMismatches.append("\(keys): stopped before \(keys[next])")
                }
            #endif
            buffer.append(UInt8(ascii: "}"))
            atStart = false
        }

        mutating func beginArray() {
            buffer.append(UInt8(ascii: "["))
            atStart = true
        }

        mutating func endArray() {
            buffer.append(UInt8(ascii: "]"))
            atStart = false
        }

        /// Before an array element: a comma after the first.
        mutating func element() {
            if !atStart { buffer.append(UInt8(ascii: ",")) }
            atStart = false
        }

        // MARK: Members

        /// `"name":` of a fact type's member.
        mutating func key(_ name: StaticString) {
            pass(name)
            if !atStart { buffer.append(UInt8(ascii: ",")) }
            atStart = false
            buffer.append(UInt8(ascii: "\""))
            buffer.append(name)
            buffer.append(UInt8(ascii: "\""))
            buffer.append(UInt8(ascii: ":"))
        }

        /// A dictionary's key (escaped: it is data).
        mutating func dictionaryKey(_ name: String) {
            if !atStart { buffer.append(UInt8(ascii: ",")) }
            atStart = false
            string(name)
            buffer.append(UInt8(ascii: ":"))
        }

        /// A dictionary's key `"0xHHHH"` (four uppercase hex digits, as `AppleMakerNote.key` names a tag
        /// without a name).
        mutating func hexKey(_ v: UInt16) {
            if !atStart { buffer.append(UInt8(ascii: ",")) }
            atStart = false
            func hex(_ d: UInt16) -> UInt8 {
                let x = UInt8(truncatingIfNeeded: d & 0xF)
                return x < 10 ? UInt8(ascii: "0") + x : UInt8(ascii: "A") + x - 10
            }
            var t = (UInt8(ascii: "\""), UInt8(ascii: "0"), UInt8(ascii: "x"), hex(v >> 12), hex(v >> 8), hex(v >> 4), hex(v), UInt8(ascii: "\""), UInt8(ascii: ":"))
            withUnsafeBytes(of: &t) { buffer.append($0.bindMemory(to: UInt8.self)) }
        }

        mutating func member<V: FactsJSONValue>(_ name: StaticString, _ value: V) {
            key(name)
            value.writeFactsJSON(to: &self)
        }

        /// Nothing for nil, as synthesized `Encodable` leaves a nil optional out (`encodeIfPresent`).
        mutating func member<V: FactsJSONValue>(_ name: StaticString, _ value: V?) {
            if let value {
                member(name, value)
            } else {
                pass(name)
            }
        }

        /// In debug builds: `name` is the object's next key.
        @inline(__always) mutating func pass(_ name: StaticString) {
            #if DEBUG
                guard let keys = expected.last?.keys else { return }
                let next = expected[expected.count - 1].next
                let text = name.description
                if next < keys.count, keys[next] == text {
                    expected[expected.count - 1].next += 1
                } else {
                    keyMismatches.append("\(keys): \(text) where \(next < keys.count ? keys[next] : "the end") was due")
                }
            #endif
        }

        // MARK: Scalars

        mutating func literal(_ s: StaticString) {
            buffer.append(s)
        }

        mutating func string(_ s: String) {
            var s = s
            s.withUTF8 { buffer.jsonString($0) }
        }

        /// Decimal digits, without going through `String`.
        mutating func integer<I: FixedWidthInteger>(_ v: I) {
            if v < 0 { buffer.append(UInt8(ascii: "-")) }
            var m = UInt64(v.magnitude)
            if m < 10 {
                buffer.append(UInt8(ascii: "0") + UInt8(m))
                return
            }
            // The digits backwards into a stack buffer (20 hold any UInt64), then appended in order:
            // reversing `out[start...]` in place copied the slice (an allocation per number, ~80k in a
            // 3,000-file first ingest).
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
                var i = 20
                while m > 0 {
                    i -= 1
                    digits[i] = UInt8(ascii: "0") + UInt8(m % 10)
                    m /= 10
                }
                buffer.append(UnsafeBufferPointer(rebasing: digits[i...]))
            }
        }

        /// `JSONEncoder`'s numbers: the shortest description without a trailing `.0` (`1`, `0.1`, `1e-05`);
        /// a non-finite number fails the whole encoding, as `JSONEncoder` throws.
        mutating func float<F: BinaryFloatingPoint & LosslessStringConvertible>(_ v: F) {
            guard v.isFinite else {
                failed = true
                return
            }
            var text = v.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            text.withUTF8 { buffer.append($0) }
        }
    }
}

/// A value that writes itself as `JSONEncoder` encodes it.
protocol FactsJSONValue {
    func writeFactsJSON(to w: inout FactsJSON.Writer)
}

/// A fact type written as a JSON object: `factsJSONKeys` are the keys it can write, in the order it writes
/// them (the keys' UTF-8 bytes, as `.sortedKeys` sorts); debug builds check each object against them.
protocol FactsJSONObject: FactsJSONValue {
    static var factsJSONKeys: [String] { get }
}

// MARK: - Scalars and collections

extension String: FactsJSONValue {
    func writeFactsJSON(to w: inout FactsJSON.Writer) { w.string(self) }
}

extension Bool: FactsJSONValue {
    func writeFactsJSON(to w: inout FactsJSON.Writer) { self ? w.literal("true") : w.literal("false") }
}

extension Int: FactsJSONValue {
    func writeFactsJSON(to w: inout FactsJSON.Writer) { w.integer(self) }
}

extension Int64: FactsJSONValue {
    func writeFactsJSON(to w: inout FactsJSON.Writer) { w.integer(self) }
}

extension UInt64: FactsJSONValue {
    func writeFactsJSON(to w: inout FactsJSON.Writer) { w.integer(self) }
}

extension UInt32: FactsJSONValue {
    func writeFactsJSON(to w: inout FactsJSON.Writer) { w.integer(self) }
}

extension UInt16: FactsJSONValue {
    func writeFactsJSON(to w: inout FactsJSON.Writer) { w.integer(self) }
}

extension Double: FactsJSONValue {
    func writeFactsJSON(to w: inout FactsJSON.Writer) { w.float(self) }
}

extension Float: FactsJSONValue {
    func writeFactsJSON(to w: inout FactsJSON.Writer) { w.float(self) }
}

extension Array: FactsJSONValue where Element: FactsJSONValue {
    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginArray()
        for e in self {
            w.element()
            e.writeFactsJSON(to: &w)
        }
        w.endArray()
    }
}

/// `JSONEncoder` writes a `[String: V]` as an object; `.sortedKeys` orders its keys by their UTF-8 bytes.
extension Dictionary: FactsJSONValue where Key == String, Value: FactsJSONValue {
    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginDictionary()
        // In the byte order of the keys, as `.sortedKeys` sorts (compared with memcmp: the generic
        // `utf8.lexicographicallyPrecedes` was ~1,500 instructions a comparison).
        for (k, v) in sorted(by: { FactsJSONReader.utf8Precedes($0.key, $1.key) }) {
            w.dictionaryKey(k)
            v.writeFactsJSON(to: &w)
        }
        w.endObject()
    }
}

// MARK: - Values encoded as one JSON value (raw values, custom `encode(to:)`)

extension ContainerKind: FactsJSONValue {
    func writeFactsJSON(to w: inout FactsJSON.Writer) { w.string(rawValue) }
}

extension ProbeIssue.Severity: FactsJSONValue {
    func writeFactsJSON(to w: inout FactsJSON.Writer) { w.string(rawValue) }
}

/// `RawRepresentable`'s `Encodable`: the raw value alone.
extension ProbeStage: FactsJSONValue {
    func writeFactsJSON(to w: inout FactsJSON.Writer) { w.string(rawValue) }
}

extension AdjustmentSidecar.DataEncoding: FactsJSONValue {
    func writeFactsJSON(to w: inout FactsJSON.Writer) { w.string(rawValue) }
}

/// As `MetadataValue.encode(to:)`: a plain JSON value, a non-finite float as 0, binary data as
/// `{"count": N, "type": T}`.
extension MetadataValue: FactsJSONValue {
    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        switch self {
        case .string(let s): w.string(s)
        case .int(let v): w.integer(v)
        case .uint(let v): w.integer(v)
        case .float(let v): w.float(v.isFinite ? v : 0)
        case .data(let type, let count): ["type": Int(type), "count": count].writeFactsJSON(to: &w)
        }
    }
}

/// As `AppleMakerNote.Value.encode(to:)`: a number, an array of numbers, a string, or `{"dataLength": N}`.
extension AppleMakerNote.Value: FactsJSONValue {
    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        switch self {
        case .data(let n):
            w.beginDictionary()
            w.dictionaryKey("dataLength")
            w.integer(n)
            w.endObject()
        case .int(let v): w.integer(v)
        case .ints(let v): v.writeFactsJSON(to: &w)
        case .rational(let v): w.float(v)
        case .rationals(let v): v.writeFactsJSON(to: &w)
        case .string(let v): w.string(v)
        }
    }
}

// MARK: - Fact types, members in sorted-key order

extension Sourced: FactsJSONValue, FactsJSONObject where Value: FactsJSONValue {
    static var factsJSONKeys: [String] { ["source", "value"] }

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("source", source)
        w.member("value", value)
        w.endObject()
    }
}

extension ProbeReport: FactsJSONObject {
    static let factsJSONKeys = [
        "adjustments", "apple", "brands", "camera", "dates", "embeddedVideo", "exif", "fileModified", "fileSize", "format",
        "gif", "heif", "heifDecodes", "issues", "jpeg", "kind", "location", "notMedia", "orientation", "path",
        "pixelHeight", "pixelWidth", "png", "quickTime", "samsungTrailer", "still", "streams", "takeout", "webp", "xmp",
    ]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("adjustments", adjustments)
        w.member("apple", apple)
        w.member("brands", brands)
        w.member("camera", camera)
        w.member("dates", dates)
        w.member("embeddedVideo", embeddedVideo)
        w.member("exif", exif)
        w.member("fileModified", fileModified)
        w.member("fileSize", fileSize)
        w.member("format", format)
        w.member("gif", gif)
        w.member("heif", heif)
        w.member("heifDecodes", heifDecodes)
        w.member("issues", issues)
        w.member("jpeg", jpeg)
        w.member("kind", kind)
        w.member("location", location)
        w.member("notMedia", notMedia)
        w.member("orientation", orientation)
        w.member("path", path)
        w.member("pixelHeight", pixelHeight)
        w.member("pixelWidth", pixelWidth)
        w.member("png", png)
        w.member("quickTime", quickTime)
        w.member("samsungTrailer", samsungTrailer)
        w.member("still", still)
        w.member("streams", streams)
        w.member("takeout", takeout)
        w.member("webp", webp)
        w.member("xmp", xmp)
        w.endObject()
    }
}

extension NotMedia: FactsJSONObject {
    static let factsJSONKeys = ["category", "reason"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("category", category)
        w.member("reason", reason)
        w.endObject()
    }
}

extension ProbeIssue: FactsJSONObject {
    static let factsJSONKeys = ["reason", "severity", "stage"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("reason", reason)
        w.member("severity", severity)
        w.member("stage", stage)
        w.endObject()
    }
}

extension FileDate: FactsJSONObject {
    static let factsJSONKeys = ["local", "offsetSeconds"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("local", local)
        w.member("offsetSeconds", offsetSeconds)
        w.endObject()
    }
}

extension DateFacts: FactsJSONObject {
    static let factsJSONKeys = [
        "avchd", "digitized", "gps", "iptcCreation", "modified", "movieHeaderCreation", "original", "quickTimeCreation",
        "userDataCreation", "xmpCreation",
    ]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("avchd", avchd)
        w.member("digitized", digitized)
        w.member("gps", gps)
        w.member("iptcCreation", iptcCreation)
        w.member("modified", modified)
        w.member("movieHeaderCreation", movieHeaderCreation)
        w.member("original", original)
        w.member("quickTimeCreation", quickTimeCreation)
        w.member("userDataCreation", userDataCreation)
        w.member("xmpCreation", xmpCreation)
        w.endObject()
    }
}

extension GeoLocation: FactsJSONObject {
    static let factsJSONKeys = ["altitude", "latitude", "longitude"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("altitude", altitude)
        w.member("latitude", latitude)
        w.member("longitude", longitude)
        w.endObject()
    }
}

extension CameraFacts: FactsJSONObject {
    static let factsJSONKeys = ["lensMake", "lensModel", "make", "model", "software"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("lensMake", lensMake)
        w.member("lensModel", lensModel)
        w.member("make", make)
        w.member("model", model)
        w.member("software", software)
        w.endObject()
    }
}

extension ExifFacts: FactsJSONObject {
    static let factsJSONKeys = [
        "container", "customRendered", "exifPixelHeight", "exifPixelWidth", "focalLengthIn35mm", "imageDescription",
        "imageUniqueID", "makerNoteSize", "userComment",
    ]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("container", container)
        w.member("customRendered", customRendered)
        w.member("exifPixelHeight", exifPixelHeight)
        w.member("exifPixelWidth", exifPixelWidth)
        w.member("focalLengthIn35mm", focalLengthIn35mm)
        w.member("imageDescription", imageDescription)
        w.member("imageUniqueID", imageUniqueID)
        w.member("makerNoteSize", makerNoteSize)
        w.member("userComment", userComment)
        w.endObject()
    }
}

extension ByteRange: FactsJSONObject {
    static let factsJSONKeys = ["length", "offset"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("length", length)
        w.member("offset", offset)
        w.endObject()
    }
}

extension EmbeddedVideo: FactsJSONObject {
    static let factsJSONKeys = ["presentationTimestampUs", "range", "source"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("presentationTimestampUs", presentationTimestampUs)
        w.member("range", range)
        w.member("source", source)
        w.endObject()
    }
}

extension StreamFacts: FactsJSONObject {
    static let factsJSONKeys = [
        "averageFrameRate", "bitRate", "channels", "claimedFrameRate", "codec", "codecTag", "durationSeconds",
        "frameCount", "height", "index", "rotation", "sampleRate", "type", "width",
    ]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("averageFrameRate", averageFrameRate)
        w.member("bitRate", bitRate)
        w.member("channels", channels)
        w.member("claimedFrameRate", claimedFrameRate)
        w.member("codec", codec)
        w.member("codecTag", codecTag)
        w.member("durationSeconds", durationSeconds)
        w.member("frameCount", frameCount)
        w.member("height", height)
        w.member("index", index)
        w.member("rotation", rotation)
        w.member("sampleRate", sampleRate)
        w.member("type", type)
        w.member("width", width)
        w.endObject()
    }
}

extension FormatFacts: FactsJSONObject {
    static let factsJSONKeys = ["bitRate", "durationSeconds", "name", "reader", "tags"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("bitRate", bitRate)
        w.member("durationSeconds", durationSeconds)
        w.member("name", name)
        w.member("reader", reader)
        w.member("tags", tags)
        w.endObject()
    }
}

extension MetadataItem: FactsJSONObject {
    static let factsJSONKeys = ["key", "source", "value"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("key", key)
        w.member("source", source)
        w.member("value", value)
        w.endObject()
    }
}

extension EditListEntry: FactsJSONObject {
    static let factsJSONKeys = ["mediaRate", "mediaTime", "segmentDuration"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("mediaRate", mediaRate)
        w.member("mediaTime", mediaTime)
        w.member("segmentDuration", segmentDuration)
        w.endObject()
    }
}

extension TrackFacts: FactsJSONObject {
    static let factsJSONKeys = [
        "codedHeight", "codedWidth", "editList", "handler", "handlerName", "height", "keys", "mediaDuration",
        "mediaTimescale", "nominalFrameRate", "rotation", "sampleCount", "sampleEntry", "sttsDuration",
        "timedMetadataKeys", "trackID", "userData", "width",
    ]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("codedHeight", codedHeight)
        w.member("codedWidth", codedWidth)
        w.member("editList", editList)
        w.member("handler", handler)
        w.member("handlerName", handlerName)
        w.member("height", height)
        w.member("keys", keys)
        w.member("mediaDuration", mediaDuration)
        w.member("mediaTimescale", mediaTimescale)
        w.member("nominalFrameRate", nominalFrameRate)
        w.member("rotation", rotation)
        w.member("sampleCount", sampleCount)
        w.member("sampleEntry", sampleEntry)
        w.member("sttsDuration", sttsDuration)
        w.member("timedMetadataKeys", timedMetadataKeys)
        w.member("trackID", trackID)
        w.member("userData", userData)
        w.member("width", width)
        w.endObject()
    }
}

extension QuickTimeFacts: FactsJSONObject {
    static let factsJSONKeys = [
        "creationTime", "movieDuration", "movieKeys", "movieTimescale", "stillImageTime", "tracks", "userData",
    ]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("creationTime", creationTime)
        w.member("movieDuration", movieDuration)
        w.member("movieKeys", movieKeys)
        w.member("movieTimescale", movieTimescale)
        w.member("stillImageTime", stillImageTime)
        w.member("tracks", tracks)
        w.member("userData", userData)
        w.endObject()
    }
}

extension HEIFItem: FactsJSONObject {
    static let factsJSONKeys = ["contentType", "hidden", "id", "name", "type"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("contentType", contentType)
        w.member("hidden", hidden)
        w.member("id", id)
        w.member("name", name)
        w.member("type", type)
        w.endObject()
    }
}

extension HEIFAuxiliary: FactsJSONObject {
    static let factsJSONKeys = ["forItem", "itemID", "type"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("forItem", forItem)
        w.member("itemID", itemID)
        w.member("type", type)
        w.endObject()
    }
}

extension HEIFEntityGroup: FactsJSONObject {
    static let factsJSONKeys = ["entityIDs", "groupID", "type"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("entityIDs", entityIDs)
        w.member("groupID", groupID)
        w.member("type", type)
        w.endObject()
    }
}

extension HEIFFacts: FactsJSONObject {
    static let factsJSONKeys = [
        "auxiliaries", "entityGroups", "exifRange", "height", "items", "mirror", "motionPhotoVideo", "primaryItemID",
        "rotation", "transferCharacteristics", "width", "xmpRange",
    ]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("auxiliaries", auxiliaries)
        w.member("entityGroups", entityGroups)
        w.member("exifRange", exifRange)
        w.member("height", height)
        w.member("items", items)
        w.member("mirror", mirror)
        w.member("motionPhotoVideo", motionPhotoVideo)
        w.member("primaryItemID", primaryItemID)
        w.member("rotation", rotation)
        w.member("transferCharacteristics", transferCharacteristics)
        w.member("width", width)
        w.member("xmpRange", xmpRange)
        w.endObject()
    }
}

extension JPEGFacts: FactsJSONObject {
    static let factsJSONKeys = [
        "endOfImage", "exifRange", "hasExtendedXMP", "height", "heightFromDNL", "mpfImages", "photoshopRange",
        "scanOffset", "trailer", "width", "xmpRange",
    ]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("endOfImage", endOfImage)
        w.member("exifRange", exifRange)
        w.member("hasExtendedXMP", hasExtendedXMP)
        w.member("height", height)
        w.member("heightFromDNL", heightFromDNL)
        w.member("mpfImages", mpfImages)
        w.member("photoshopRange", photoshopRange)
        w.member("scanOffset", scanOffset)
        w.member("trailer", trailer)
        w.member("width", width)
        w.member("xmpRange", xmpRange)
        w.endObject()
    }
}

extension MPFImage: FactsJSONObject {
    static let factsJSONKeys = ["range", "typeCode"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("range", range)
        w.member("typeCode", typeCode)
        w.endObject()
    }
}

extension PNGFacts: FactsJSONObject {
    static let factsJSONKeys = [
        "animationFrames", "animationPlays", "exifRange", "hasXMP", "height", "textChunks", "width",
    ]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("animationFrames", animationFrames)
        w.member("animationPlays", animationPlays)
        w.member("exifRange", exifRange)
        w.member("hasXMP", hasXMP)
        w.member("height", height)
        w.member("textChunks", textChunks)
        w.member("width", width)
        w.endObject()
    }
}

extension GIFFacts: FactsJSONObject {
    static let factsJSONKeys = ["damage", "frameCount", "height", "loopCount", "warnings", "width"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("damage", damage)
        w.member("frameCount", frameCount)
        w.member("height", height)
        w.member("loopCount", loopCount)
        w.member("warnings", warnings)
        w.member("width", width)
        w.endObject()
    }
}

extension WebPFacts: FactsJSONObject {
    static let factsJSONKeys = [
        "animated", "durationMilliseconds", "exifRange", "frameCount", "hasEXIF", "hasXMP", "height", "loopCount",
        "width",
    ]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("animated", animated)
        w.member("durationMilliseconds", durationMilliseconds)
        w.member("exifRange", exifRange)
        w.member("frameCount", frameCount)
        w.member("hasEXIF", hasEXIF)
        w.member("hasXMP", hasXMP)
        w.member("height", height)
        w.member("loopCount", loopCount)
        w.member("width", width)
        w.endObject()
    }
}

extension XMPFacts: FactsJSONObject {
    static let factsJSONKeys = ["declaredEntities", "directory", "fields", "oversizedFields", "source"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("declaredEntities", declaredEntities)
        w.member("directory", directory)
        w.member("fields", fields)
        w.member("oversizedFields", oversizedFields)
        w.member("source", source)
        w.endObject()
    }
}

extension XMPDirectoryItem: FactsJSONObject {
    static let factsJSONKeys = ["length", "mime", "padding", "semantic"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("length", length)
        w.member("mime", mime)
        w.member("padding", padding)
        w.member("semantic", semantic)
        w.endObject()
    }
}

extension SamsungTrailer: FactsJSONObject {
    static let factsJSONKeys = ["entries", "motionPhotoVideo", "warnings"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("entries", entries)
        w.member("motionPhotoVideo", motionPhotoVideo)
        w.member("warnings", warnings)
        w.endObject()
    }
}

extension SamsungTrailer.Entry: FactsJSONObject {
    static let factsJSONKeys = ["data", "name", "type"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("data", data)
        w.member("name", name)
        w.member("type", type)
        w.endObject()
    }
}

/// As `AppleMakerNote.encode(to:)`: the tags as an object keyed by their names (`AppleMakerNote.key`).
extension AppleMakerNote: FactsJSONObject {
    static let factsJSONKeys = ["bigEndian", "entries", "runTime", "version"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("bigEndian", bigEndian)
        w.key("entries")
        // In the byte order of the keys (`keyOrder`), each key made as it is written. The tags are sorted as
        // plain numbers (order, then tag, in one Int; each order is one tag's), not as tuples holding their
        // values (retained and released at every move of the sort).
        var order = entries.keys.map { Self.keyOrder($0) << 16 | Int($0) }
        order.sort()
        w.beginDictionary()
        for k in order {
            let tag = UInt16(truncatingIfNeeded: k)
            // `key(tag)` without a string per tag: its name, else `"0x002B"` from the number.
            if let name = Self.tagNames[tag] { w.dictionaryKey(name) } else { w.hexKey(tag) }
            entries[tag]?.writeFactsJSON(to: &w)
        }
        w.endObject()
        w.member("runTime", runTime)
        w.member("version", version)
        w.endObject()
    }
}

extension AppleMakerNote.RunTime: FactsJSONObject {
    static let factsJSONKeys = ["epoch", "flags", "timescale", "value"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("epoch", epoch)
        w.member("flags", flags)
        w.member("timescale", timescale)
        w.member("value", value)
        w.endObject()
    }
}

extension StillImageFacts: FactsJSONObject {
    static let factsJSONKeys = ["bitsPerPixel", "format", "height", "imageCount", "sizeSource", "width"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("bitsPerPixel", bitsPerPixel)
        w.member("format", format)
        w.member("height", height)
        w.member("imageCount", imageCount)
        w.member("sizeSource", sizeSource)
        w.member("width", width)
        w.endObject()
    }
}

extension AdjustmentSidecar: FactsJSONObject {
    static let factsJSONKeys = [
        "adjustments", "baseVersion", "dataEncoding", "disabledAdjustments", "editorBundleID", "formatIdentifier",
        "formatVersion", "masterHeight", "masterWidth", "orientation", "playbackVariation", "renderTypes",
        "slowMotion", "timestamp",
    ]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("adjustments", adjustments)
        w.member("baseVersion", baseVersion)
        w.member("dataEncoding", dataEncoding)
        w.member("disabledAdjustments", disabledAdjustments)
        w.member("editorBundleID", editorBundleID)
        w.member("formatIdentifier", formatIdentifier)
        w.member("formatVersion", formatVersion)
        w.member("masterHeight", masterHeight)
        w.member("masterWidth", masterWidth)
        w.member("orientation", orientation)
        w.member("playbackVariation", playbackVariation)
        w.member("renderTypes", renderTypes)
        w.member("slowMotion", slowMotion)
        w.member("timestamp", timestamp)
        w.endObject()
    }
}

extension AdjustmentSidecar.SlowMotion: FactsJSONObject {
    static let factsJSONKeys = ["duration", "rate", "regionCount", "start"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("duration", duration)
        w.member("rate", rate)
        w.member("regionCount", regionCount)
        w.member("start", start)
        w.endObject()
    }
}

extension TakeoutMetadata: FactsJSONObject {
    static let factsJSONKeys = [
        "albumAccess", "albumDate", "albumLocation", "archived", "creationTime", "description", "favorited", "geoData",
        "geoDataExif", "imageViews", "isAlbumMetadata", "modificationTime", "origin", "people", "photoTakenTime", "title",
        "trashed", "url",
    ]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("albumAccess", albumAccess)
        w.member("albumDate", albumDate)
        w.member("albumLocation", albumLocation)
        w.member("archived", archived)
        w.member("creationTime", creationTime)
        w.member("description", description)
        w.member("favorited", favorited)
        w.member("geoData", geoData)
        w.member("geoDataExif", geoDataExif)
        w.member("imageViews", imageViews)
        w.member("isAlbumMetadata", isAlbumMetadata)
        w.member("modificationTime", modificationTime)
        w.member("origin", origin)
        w.member("people", people)
        w.member("photoTakenTime", photoTakenTime)
        w.member("title", title)
        w.member("trashed", trashed)
        w.member("url", url)
        w.endObject()
    }
}

extension TakeoutMetadata.GeoPoint: FactsJSONObject {
    static let factsJSONKeys = ["altitude", "latitude", "longitude"]

    func writeFactsJSON(to w: inout FactsJSON.Writer) {
        w.beginObject(Self.factsJSONKeys)
        w.member("altitude", altitude)
        w.member("latitude", latitude)
        w.member("longitude", longitude)
        w.endObject()
    }
}
