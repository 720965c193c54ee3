import Foundation

/// Reads stored facts back by hand: the JSON the catalog stores (`Pipeline.FactsJSON` writes the bytes
/// `JSONEncoder` writes), into the values `JSONDecoder` would make of it, without Codable's keyed containers (a decode was ~0.1 ms a file through `JSONDecoder`: a folder
/// re-derived because one file was added, or a whole library after a rules change, decodes every file's facts).
///
/// It reads only what it is sure of. Whatever it is not sure `JSONDecoder` reads the same way — a number
/// with a fraction or an exponent where `JSONDecoder` would try an integer first, an integer out of range,
/// a maker note in the legacy array form, a string that is not valid UTF-8, a missing member that is not
/// optional — throws, and `DerivationRules.decode` then asks `JSONDecoder`. The two sidecar records
/// (`AdjustmentSidecar`, `TakeoutMetadata`: no public initializer, one file in a sidecar's report) are
/// handed to `JSONDecoder` as their bytes. Unknown members are skipped, as `JSONDecoder` ignores them.
/// Tests decode every corpus, long-tail and fixture report both ways and compare (`FactsJSONReaderTests`);
/// the fuzz target `FuzzFacts` checks that whatever it reads of any bytes, `JSONDecoder` reads the same.
public enum FactsJSONReader {
    /// The report in `bytes`; nil when the reader is not sure of them (see above).
    public static func read(_ bytes: [UInt8]) -> ProbeReport? {
        bytes.withUnsafeBufferPointer { b in
            var r = Reader(b)
            guard let report = try? ProbeReport(facts: &r), (try? r.end()) != nil else { return nil }
            return report
        }
    }

    /// Whether `a`'s UTF-8 bytes sort before `b`'s: the order `.sortedKeys` writes keys in (the facts' writer,
    /// `Pipeline.FactsJSON`, sorts dictionaries by it; this reader requires it of every object).
    public static func utf8Precedes(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let n = min(x.count, y.count)
                let c = n == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, n)
                return c != 0 ? c < 0 : x.count < y.count
            }
        }
    }

    /// A missing member that is not optional.
    static func required<T>(_ v: T?) throws -> T {
        guard let v else { throw Reader.Unsure() }
        return v
    }

    /// A cursor over JSON text. Objects are read with `beginObject` and `nextKey(&first)` until it returns
    /// nil; arrays with `beginArray` and `nextElement(&first)`.
    struct Reader {
        struct Unsure: Error {}

        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0
        /// Containers `skipValue` is inside: the typed values nest only as deep as the fact types do, but an
        /// unknown member could be any depth (and recursion is bounded by the stack).
        var skipDepth = 0
        static let maxSkipDepth = 256

        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        @inline(__always) mutating func skipSpace() {
            while at < bytes.count {
                switch bytes[at] {
                case 0x20, 0x09, 0x0A, 0x0D: at += 1
                default: return
                }
            }
        }

        mutating func peek() throws -> UInt8 {
            skipSpace()
            guard at < bytes.count else { throw Unsure() }
            return bytes[at]
        }

        mutating func expect(_ c: UInt8) throws {
            guard try peek() == c else { throw Unsure() }
            at += 1
        }

        /// Nothing but white space is left.
        mutating func end() throws {
            skipSpace()
            guard at == bytes.count else { throw Unsure() }
        }

        // MARK: Containers

        /// Where `nextKey` is in an object: the key before.
        struct Members {
            var first = true
            var previous = ""
        }

        /// `{`; the state for `nextKey`.
        mutating func beginObject() throws -> Members {
            try expect(UInt8(ascii: "{"))
            return Members()
        }

        /// The next member's key (its `:` read), or nil at the object's `}`. Keys must come in strictly
        /// increasing byte order, as the facts are written (`.sortedKeys`): a key twice, which `JSONDecoder`
        /// resolves its own way, or out of order, is left to it.
        mutating func nextKey(_ m: inout Members) throws -> String? {
            if try peek() == UInt8(ascii: "}") {
                at += 1
                return nil
            }
            if !m.first { try expect(UInt8(ascii: ",")) }
            let key = try string()
            guard m.first || FactsJSONReader.utf8Precedes(m.previous, key) else { throw Unsure() }
            m.first = false
            m.previous = key
            try expect(UInt8(ascii: ":"))
            return key
        }

        mutating func beginArray() throws -> Bool {
            try expect(UInt8(ascii: "["))
            return true
        }

        /// Whether an element follows (its `,` read), false at the array's `]`.
        mutating func nextElement(_ first: inout Bool) throws -> Bool {
            if try peek() == UInt8(ascii: "]") {
                at += 1
                return false
            }
            if !first { try expect(UInt8(ascii: ",")) }
            first = false
            return true
        }

        // MARK: Values

        mutating func value<T: FactsJSONReadable>() throws -> T { try T(facts: &self) }

        /// nil for `null`, as `decodeIfPresent` reads it.
        mutating func optional<T: FactsJSONReadable>() throws -> T? {
            if try peek() == UInt8(ascii: "n") {
                try literal("null")
                return nil
            }
            return try T(facts: &self)
        }

        /// A value handed to `JSONDecoder` as its bytes (a type without a public initializer); nil for `null`.
        mutating func optionalDecoded<T: Decodable>(_ type: T.Type) throws -> T? {
            if try peek() == UInt8(ascii: "n") {
                try literal("null")
                return nil
            }
            let start = at
            try skipValue()
            return try JSONDecoder().decode(T.self, from: Data(UnsafeBufferPointer(rebasing: bytes[start..<at])))
        }

        mutating func literal(_ s: StaticString) throws {
            skipSpace()
            let n = s.utf8CodeUnitCount
            guard at + n <= bytes.count, memcmp(bytes.baseAddress! + at, s.utf8Start, n) == 0 else { throw Unsure() }
            at += n
        }

        mutating func bool() throws -> Bool {
            switch try peek() {
            case UInt8(ascii: "t"):
                try literal("true")
                return true
            case UInt8(ascii: "f"):
                try literal("false")
                return false
            default: throw Unsure()
            }
        }

        /// A JSON string, unescaped; it must be valid UTF-8.
        mutating func string() throws -> String {
            try expect(UInt8(ascii: "\""))
            let start = at
            var plain = true
            while true {
                guard at < bytes.count else { throw Unsure() }
                let c = bytes[at]
                if c == UInt8(ascii: "\"") { break }
                if c < 0x20 { throw Unsure() }
                if c == UInt8(ascii: "\\") {
                    plain = false
                    at += 1  // the escaped character is skipped below
                }
                at += 1
            }
            let raw = UnsafeBufferPointer(rebasing: bytes[start..<at])
            at += 1
            if plain {
                guard let s = UTF8Text.validated(raw) else { throw Unsure() }
                return s
            }
            return try Self.unescaped(raw)
        }

        /// The text of a string with escapes.
        static func unescaped(_ raw: UnsafeBufferPointer<UInt8>) throws -> String {
            var out: [UInt8] = []
            out.reserveCapacity(raw.count)
            var i = 0
            func hex4() throws -> UInt32 {
                guard let v = JSONEscape.hex4(raw, at: i) else { throw Unsure() }
                i += 4
                return v
            }
            while i < raw.count {
                let c = raw[i]
                i += 1
                guard c == UInt8(ascii: "\\") else {
                    out.append(c)
                    continue
                }
                guard i < raw.count else { throw Unsure() }
                let e = raw[i]
                i += 1
                if let single = JSONEscape.single(e) {
                    out.append(single)
                    continue
                }
                switch e {
                case UInt8(ascii: "u"):
                    var v = try hex4()
                    if JSONEscape.isHighSurrogate(v) {
                        // A high surrogate: its low half must follow as `\uDC00`…`\uDFFF`.
                        guard i + 2 <= raw.count, raw[i] == UInt8(ascii: "\\"), raw[i + 1] == UInt8(ascii: "u") else { throw Unsure() }
                        i += 2
                        guard let pair = JSONEscape.pair(high: v, low: try hex4()) else { throw Unsure() }
                        v = pair
                    }
                    guard let scalar = Unicode.Scalar(v) else { throw Unsure() }
                    JSONEscape.append(scalar, to: &out)
                default: throw Unsure()
                }
            }
            guard let s = out.withUnsafeBufferPointer(UTF8Text.validated) else { throw Unsure() }
            return s
        }

        /// A JSON number's text, and whether it is a plain integer (no fraction, no exponent).
        mutating func number() throws -> (text: UnsafeBufferPointer<UInt8>, integral: Bool) {
            skipSpace()
            let start = at
            var integral = true
            func digits() -> Int {
                let from = at
                while at < bytes.count, bytes[at] >= UInt8(ascii: "0"), bytes[at] <= UInt8(ascii: "9") { at += 1 }
                return at - from
            }
            if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
            let whole = digits()
            guard whole > 0, whole == 1 || bytes[at - whole] != UInt8(ascii: "0") else { throw Unsure() }
            if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
                at += 1
                integral = false
                guard digits() > 0 else { throw Unsure() }
            }
            if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
                at += 1
                integral = false
                if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
                guard digits() > 0 else { throw Unsure() }
            }
            return (UnsafeBufferPointer(rebasing: bytes[start..<at]), integral)
        }

        /// A plain integer that fits `T`; anything else is left to `JSONDecoder`.
        mutating func integer<T: FixedWidthInteger>() throws -> T {
            let (text, integral) = try number()
            guard integral, let v = Self.integer(text, as: T.self) else { throw Unsure() }
            return v
        }

        static func integer<T: FixedWidthInteger>(_ text: UnsafeBufferPointer<UInt8>, as: T.Type) -> T? {
            var i = 0
            let negative = text.first == UInt8(ascii: "-")
            if negative {
                guard T.isSigned else { return nil }
                i = 1
            }
            var v: T = 0
            while i < text.count {
                let d = T(text[i] - UInt8(ascii: "0"))
                let (m, o1) = v.multipliedReportingOverflow(by: 10)
                let (s, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
                if o1 || o2 { return nil }
                v = s
                i += 1
            }
            return v
        }

        mutating func double() throws -> Double {
            let (text, _) = try number()
            guard let d = Self.double(text) else { throw Unsure() }
            return d
        }

        static func double(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
            guard let d = Double(String(decoding: text, as: UTF8.self)), d.isFinite else { return nil }
            return d
        }

        /// Skips one value of any kind.
        mutating func skipValue() throws {
            skipDepth += 1
            defer { skipDepth -= 1 }
            guard skipDepth <= Self.maxSkipDepth else { throw Unsure() }
            switch try peek() {
            case UInt8(ascii: "{"):
                var first = try beginObject()
                while try nextKey(&first) != nil { try skipValue() }
            case UInt8(ascii: "["):
                var first = try beginArray()
                while try nextElement(&first) { try skipValue() }
            case UInt8(ascii: "\""): _ = try string()
            case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
            case UInt8(ascii: "n"): try literal("null")
            default: _ = try number()
            }
        }
    }
}

/// A value read back from the facts' JSON as `JSONDecoder` reads it (see `FactsJSONReader`).
protocol FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws
}

// MARK: - Scalars and collections

extension String: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws { self = try r.string() }
}

extension Bool: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws { self = try r.bool() }
}

extension Int: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws { self = try r.integer() }
}

extension Int64: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws { self = try r.integer() }
}

extension UInt64: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws { self = try r.integer() }
}

extension UInt32: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws { self = try r.integer() }
}

extension UInt16: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws { self = try r.integer() }
}

extension Double: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws { self = try r.double() }
}

extension Array: FactsJSONReadable where Element: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        self.init()
        var first = try r.beginArray()
        while try r.nextElement(&first) { append(try Element(facts: &r)) }
    }
}

extension Dictionary: FactsJSONReadable where Key == String, Value: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        self.init()
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) { self[k] = try Value(facts: &r) }
    }
}

/// A `RawRepresentable` value's raw string; a raw value without a case throws, as `JSONDecoder` does.
extension ContainerKind: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws { self = try FactsJSONReader.required(Self(rawValue: try r.string())) }
}

extension ProbeIssue.Severity: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws { self = try FactsJSONReader.required(Self(rawValue: try r.string())) }
}

extension ProbeStage: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws { self.init(rawValue: try r.string()) }
}

/// As `MetadataValue.init(from:)`: an integer (signed, else unsigned), a number, a string, or binary data
/// as `{"count": N, "type": T}`.
extension MetadataValue: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        switch try r.peek() {
        case UInt8(ascii: "\""): self = .string(try r.string())
        case UInt8(ascii: "{"):
            let d: [String: Int] = try r.value()
            guard let type = UInt32(exactly: d["type"] ?? 0) else { throw FactsJSONReader.Reader.Unsure() }
            self = .data(type: type, count: d["count"] ?? 0)
        default:
            let (text, integral) = try r.number()
            if integral {
                if let v = FactsJSONReader.Reader.integer(text, as: Int64.self) {
                    self = .int(v)
                } else if let v = FactsJSONReader.Reader.integer(text, as: UInt64.self) {
                    self = .uint(v)
                } else {
                    throw FactsJSONReader.Reader.Unsure()
                }
            } else {
                // `JSONDecoder` may read a whole number written with an exponent as an integer: not ours to say.
                guard let d = FactsJSONReader.Reader.double(text), d.rounded() != d else { throw FactsJSONReader.Reader.Unsure() }
                self = .float(d)
            }
        }
    }
}

/// As `AppleMakerNote.Value.init(from:)`: `{"dataLength": N}`, a string, an integer, a number, an array of
/// integers, or an array of numbers.
extension AppleMakerNote.Value: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        switch try r.peek() {
        case UInt8(ascii: "{"):
            var first = try r.beginObject()
            var length: Int?
            while let k = try r.nextKey(&first) {
                if k == "dataLength" { length = try r.value() } else { try r.skipValue() }
            }
            self = .data(try FactsJSONReader.required(length))
        case UInt8(ascii: "\""): self = .string(try r.string())
        case UInt8(ascii: "["):
            var first = try r.beginArray()
            var texts: [(UnsafeBufferPointer<UInt8>, Bool)] = []
            while try r.nextElement(&first) { texts.append(try r.number()) }
            if let ints = Self.integers(texts) {
                self = .ints(ints)
            } else {
                // Not all plain integers: all numbers, unless every one is whole (then `JSONDecoder` may still
                // read integers).
                let ds = try texts.map { try FactsJSONReader.required(FactsJSONReader.Reader.double($0.0)) }
                guard ds.contains(where: { $0.rounded() != $0 }) else { throw FactsJSONReader.Reader.Unsure() }
                self = .rationals(ds)
            }
        default:
            let n = try r.number()
            if let v = Self.integers([n])?.first {
                self = .int(v)
            } else {
                guard let d = FactsJSONReader.Reader.double(n.text), d.rounded() != d else { throw FactsJSONReader.Reader.Unsure() }
                self = .rational(d)
            }
        }
    }

    /// Every text a plain integer that fits `Int64`; nil when one is not (or, for an out-of-range integer,
    /// throws: left to `JSONDecoder`).
    static func integers(_ texts: [(text: UnsafeBufferPointer<UInt8>, integral: Bool)]) -> [Int64]? {
        var out: [Int64] = []
        out.reserveCapacity(texts.count)
        for (text, integral) in texts {
            guard integral, let v = FactsJSONReader.Reader.integer(text, as: Int64.self) else { return nil }
            out.append(v)
        }
        return out
    }
}

// MARK: - Fact types

extension Sourced: FactsJSONReadable where Value: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var source: String?
        var value: Value?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "source": source = try r.value()
            case "value": value = try r.value()
            default: try r.skipValue()
            }
        }
        self.init(try FactsJSONReader.required(value), try FactsJSONReader.required(source))
    }
}

extension ProbeReport: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var path: String?
        var fileSize: UInt64?
        var kind: ContainerKind?
        var brands: [String]?
        var camera: CameraFacts?
        var dates: DateFacts?
        var streams: [StreamFacts]?
        var issues: [ProbeIssue]?
        var o = ProbeReport(path: "", fileSize: 0, kind: .unknown)
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "adjustments": o.adjustments = try r.optionalDecoded(AdjustmentSidecar.self)
            case "apple": o.apple = try r.optional()
            case "brands": brands = try r.value()
            case "camera": camera = try r.value()
            case "dates": dates = try r.value()
            case "embeddedVideo": o.embeddedVideo = try r.optional()
            case "exif": o.exif = try r.optional()
            case "fileModified": o.fileModified = try r.optional()
            case "fileSize": fileSize = try r.value()
            case "format": o.format = try r.optional()
            case "gif": o.gif = try r.optional()
            case "heif": o.heif = try r.optional()
            case "heifDecodes": o.heifDecodes = try r.optional()
            case "issues": issues = try r.value()
            case "jpeg": o.jpeg = try r.optional()
            case "kind": kind = try r.value()
            case "location": o.location = try r.optional()
            case "notMedia": o.notMedia = try r.optional()
            case "orientation": o.orientation = try r.optional()
            case "path": path = try r.value()
            case "pixelHeight": o.pixelHeight = try r.optional()
            case "pixelWidth": o.pixelWidth = try r.optional()
            case "png": o.png = try r.optional()
            case "quickTime": o.quickTime = try r.optional()
            case "samsungTrailer": o.samsungTrailer = try r.optional()
            case "still": o.still = try r.optional()
            case "streams": streams = try r.value()
            case "takeout": o.takeout = try r.optionalDecoded(TakeoutMetadata.self)
            case "webp": o.webp = try r.optional()
            case "xmp": o.xmp = try r.optional()
            default: try r.skipValue()
            }
        }
        o.path = try FactsJSONReader.required(path)
        o.fileSize = try FactsJSONReader.required(fileSize)
        o.kind = try FactsJSONReader.required(kind)
        o.brands = try FactsJSONReader.required(brands)
        o.camera = try FactsJSONReader.required(camera)
        o.dates = try FactsJSONReader.required(dates)
        o.streams = try FactsJSONReader.required(streams)
        o.issues = try FactsJSONReader.required(issues)
        self = o
    }
}

extension NotMedia: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var category: String?
        var reason: String?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "category": category = try r.value()
            case "reason": reason = try r.value()
            default: try r.skipValue()
            }
        }
        self.init(category: try FactsJSONReader.required(category), reason: try FactsJSONReader.required(reason))
    }
}

extension ProbeIssue: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var reason: String?
        var severity: Severity?
        var stage: ProbeStage?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "reason": reason = try r.value()
            case "severity": severity = try r.value()
            case "stage": stage = try r.value()
            default: try r.skipValue()
            }
        }
        self.init(severity: try FactsJSONReader.required(severity), stage: try FactsJSONReader.required(stage), reason: try FactsJSONReader.required(reason))
    }
}

extension FileDate: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var local: String?
        var offset: Int?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "local": local = try r.value()
            case "offsetSeconds": offset = try r.optional()
            default: try r.skipValue()
            }
        }
        self.init(local: try FactsJSONReader.required(local), offsetSeconds: offset)
    }
}

extension DateFacts: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        self.init()
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "avchd": avchd = try r.optional()
            case "digitized": digitized = try r.optional()
            case "gps": gps = try r.optional()
            case "iptcCreation": iptcCreation = try r.optional()
            case "modified": modified = try r.optional()
            case "movieHeaderCreation": movieHeaderCreation = try r.optional()
            case "original": original = try r.optional()
            case "quickTimeCreation": quickTimeCreation = try r.optional()
            case "userDataCreation": userDataCreation = try r.optional()
            case "xmpCreation": xmpCreation = try r.optional()
            default: try r.skipValue()
            }
        }
    }
}

extension GeoLocation: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var altitude: Double?
        var latitude: Double?
        var longitude: Double?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "altitude": altitude = try r.optional()
            case "latitude": latitude = try r.value()
            case "longitude": longitude = try r.value()
            default: try r.skipValue()
            }
        }
        self.init(latitude: try FactsJSONReader.required(latitude), longitude: try FactsJSONReader.required(longitude), altitude: altitude)
    }
}

extension CameraFacts: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        self.init()
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "lensMake": lensMake = try r.optional()
            case "lensModel": lensModel = try r.optional()
            case "make": make = try r.optional()
            case "model": model = try r.optional()
            case "software": software = try r.optional()
            default: try r.skipValue()
            }
        }
    }
}

extension ExifFacts: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var o = ExifFacts(container: "")
        var container: String?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "container": container = try r.value()
            case "customRendered": o.customRendered = try r.optional()
            case "exifPixelHeight": o.exifPixelHeight = try r.optional()
            case "exifPixelWidth": o.exifPixelWidth = try r.optional()
            case "focalLengthIn35mm": o.focalLengthIn35mm = try r.optional()
            case "imageDescription": o.imageDescription = try r.optional()
            case "imageUniqueID": o.imageUniqueID = try r.optional()
            case "makerNoteSize": o.makerNoteSize = try r.optional()
            case "userComment": o.userComment = try r.optional()
            default: try r.skipValue()
            }
        }
        o.container = try FactsJSONReader.required(container)
        self = o
    }
}

extension ByteRange: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var length: UInt64?
        var offset: UInt64?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "length": length = try r.value()
            case "offset": offset = try r.value()
            default: try r.skipValue()
            }
        }
        self.init(offset: try FactsJSONReader.required(offset), length: try FactsJSONReader.required(length))
    }
}

extension EmbeddedVideo: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var pts: Int64?
        var range: ByteRange?
        var source: String?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "presentationTimestampUs": pts = try r.optional()
            case "range": range = try r.value()
            case "source": source = try r.value()
            default: try r.skipValue()
            }
        }
        self.init(range: try FactsJSONReader.required(range), source: try FactsJSONReader.required(source), presentationTimestampUs: pts)
    }
}

extension StreamFacts: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var o = StreamFacts(index: 0, type: "")
        var index: Int?
        var type: String?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "averageFrameRate": o.averageFrameRate = try r.optional()
            case "bitRate": o.bitRate = try r.optional()
            case "channels": o.channels = try r.optional()
            case "claimedFrameRate": o.claimedFrameRate = try r.optional()
            case "codec": o.codec = try r.optional()
            case "codecTag": o.codecTag = try r.optional()
            case "durationSeconds": o.durationSeconds = try r.optional()
            case "frameCount": o.frameCount = try r.optional()
            case "height": o.height = try r.optional()
            case "index": index = try r.value()
            case "rotation": o.rotation = try r.optional()
            case "sampleRate": o.sampleRate = try r.optional()
            case "type": type = try r.value()
            case "width": o.width = try r.optional()
            default: try r.skipValue()
            }
        }
        o.index = try FactsJSONReader.required(index)
        o.type = try FactsJSONReader.required(type)
        self = o
    }
}

extension FormatFacts: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var bitRate: Int64?
        var duration: Double?
        var name: String?
        var reader: String?
        var tags: [String: String]?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "bitRate": bitRate = try r.optional()
            case "durationSeconds": duration = try r.optional()
            case "name": name = try r.value()
            case "reader": reader = try r.optional()
            case "tags": tags = try r.value()
            default: try r.skipValue()
            }
        }
        self.init(name: try FactsJSONReader.required(name), durationSeconds: duration, bitRate: bitRate, tags: try FactsJSONReader.required(tags))
        self.reader = reader
    }
}

extension MetadataItem: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var key: String?
        var source: String?
        var value: MetadataValue?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "key": key = try r.value()
            case "source": source = try r.value()
            case "value": value = try r.value()
            default: try r.skipValue()
            }
        }
        self.init(key: try FactsJSONReader.required(key), value: try FactsJSONReader.required(value), source: try FactsJSONReader.required(source))
    }
}

extension EditListEntry: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var rate: Double?
        var time: Int64?
        var duration: UInt64?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "mediaRate": rate = try r.value()
            case "mediaTime": time = try r.value()
            case "segmentDuration": duration = try r.value()
            default: try r.skipValue()
            }
        }
        self.init(segmentDuration: try FactsJSONReader.required(duration), mediaTime: try FactsJSONReader.required(time), mediaRate: try FactsJSONReader.required(rate))
    }
}

extension TrackFacts: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var o = TrackFacts(trackID: 0)
        var trackID: UInt32?
        var editList: [EditListEntry]?
        var keys: [MetadataItem]?
        var timed: [String]?
        var userData: [MetadataItem]?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "codedHeight": o.codedHeight = try r.optional()
            case "codedWidth": o.codedWidth = try r.optional()
            case "editList": editList = try r.value()
            case "handler": o.handler = try r.optional()
            case "handlerName": o.handlerName = try r.optional()
            case "height": o.height = try r.optional()
            case "keys": keys = try r.value()
            case "mediaDuration": o.mediaDuration = try r.optional()
            case "mediaTimescale": o.mediaTimescale = try r.optional()
            case "nominalFrameRate": o.nominalFrameRate = try r.optional()
            case "rotation": o.rotation = try r.optional()
            case "sampleCount": o.sampleCount = try r.optional()
            case "sampleEntry": o.sampleEntry = try r.optional()
            case "sttsDuration": o.sttsDuration = try r.optional()
            case "timedMetadataKeys": timed = try r.value()
            case "trackID": trackID = try r.value()
            case "userData": userData = try r.value()
            case "width": o.width = try r.optional()
            default: try r.skipValue()
            }
        }
        o.trackID = try FactsJSONReader.required(trackID)
        o.editList = try FactsJSONReader.required(editList)
        o.keys = try FactsJSONReader.required(keys)
        o.timedMetadataKeys = try FactsJSONReader.required(timed)
        o.userData = try FactsJSONReader.required(userData)
        self = o
    }
}

extension QuickTimeFacts: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        self.init()
        var movieKeys: [MetadataItem]?
        var tracks: [TrackFacts]?
        var userData: [MetadataItem]?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "creationTime": creationTime = try r.optional()
            case "movieDuration": movieDuration = try r.optional()
            case "movieKeys": movieKeys = try r.value()
            case "movieTimescale": movieTimescale = try r.optional()
            case "stillImageTime": stillImageTime = try r.optional()
            case "tracks": tracks = try r.value()
            case "userData": userData = try r.value()
            default: try r.skipValue()
            }
        }
        self.movieKeys = try FactsJSONReader.required(movieKeys)
        self.tracks = try FactsJSONReader.required(tracks)
        self.userData = try FactsJSONReader.required(userData)
    }
}

extension HEIFItem: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var contentType: String?
        var hidden: Bool?
        var id: UInt32?
        var name: String?
        var type: String?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "contentType": contentType = try r.optional()
            case "hidden": hidden = try r.value()
            case "id": id = try r.value()
            case "name": name = try r.optional()
            case "type": type = try r.value()
            default: try r.skipValue()
            }
        }
        self.init(
            id: try FactsJSONReader.required(id), type: try FactsJSONReader.required(type), name: name, contentType: contentType,
            hidden: try FactsJSONReader.required(hidden))
    }
}

extension HEIFAuxiliary: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var forItem: UInt32?
        var itemID: UInt32?
        var type: String?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "forItem": forItem = try r.optional()
            case "itemID": itemID = try r.value()
            case "type": type = try r.value()
            default: try r.skipValue()
            }
        }
        self.init(itemID: try FactsJSONReader.required(itemID), type: try FactsJSONReader.required(type), forItem: forItem)
    }
}

extension HEIFEntityGroup: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var entityIDs: [UInt32]?
        var groupID: UInt32?
        var type: String?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "entityIDs": entityIDs = try r.value()
            case "groupID": groupID = try r.value()
            case "type": type = try r.value()
            default: try r.skipValue()
            }
        }
        self.init(type: try FactsJSONReader.required(type), groupID: try FactsJSONReader.required(groupID), entityIDs: try FactsJSONReader.required(entityIDs))
    }
}

extension HEIFFacts: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        self.init()
        var auxiliaries: [HEIFAuxiliary]?
        var entityGroups: [HEIFEntityGroup]?
        var items: [HEIFItem]?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "auxiliaries": auxiliaries = try r.value()
            case "entityGroups": entityGroups = try r.value()
            case "exifRange": exifRange = try r.optional()
            case "height": height = try r.optional()
            case "items": items = try r.value()
            case "mirror": mirror = try r.optional()
            case "motionPhotoVideo": motionPhotoVideo = try r.optional()
            case "primaryItemID": primaryItemID = try r.optional()
            case "rotation": rotation = try r.optional()
            case "transferCharacteristics": transferCharacteristics = try r.optional()
            case "width": width = try r.optional()
            case "xmpRange": xmpRange = try r.optional()
            default: try r.skipValue()
            }
        }
        self.auxiliaries = try FactsJSONReader.required(auxiliaries)
        self.entityGroups = try FactsJSONReader.required(entityGroups)
        self.items = try FactsJSONReader.required(items)
    }
}

extension JPEGFacts: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        self.init()
        var hasExtendedXMP: Bool?
        var heightFromDNL: Bool?
        var mpfImages: [MPFImage]?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "endOfImage": endOfImage = try r.optional()
            case "exifRange": exifRange = try r.optional()
            case "hasExtendedXMP": hasExtendedXMP = try r.value()
            case "height": height = try r.optional()
            case "heightFromDNL": heightFromDNL = try r.value()
            case "mpfImages": mpfImages = try r.value()
            case "photoshopRange": photoshopRange = try r.optional()
            case "scanOffset": scanOffset = try r.optional()
            case "trailer": trailer = try r.optional()
            case "width": width = try r.optional()
            case "xmpRange": xmpRange = try r.optional()
            default: try r.skipValue()
            }
        }
        self.hasExtendedXMP = try FactsJSONReader.required(hasExtendedXMP)
        self.heightFromDNL = try FactsJSONReader.required(heightFromDNL)
        self.mpfImages = try FactsJSONReader.required(mpfImages)
    }
}

extension MPFImage: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var range: ByteRange?
        var typeCode: UInt32?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "range": range = try r.value()
            case "typeCode": typeCode = try r.value()
            default: try r.skipValue()
            }
        }
        self.init(range: try FactsJSONReader.required(range), typeCode: try FactsJSONReader.required(typeCode))
    }
}

extension PNGFacts: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        self.init()
        var hasXMP: Bool?
        var textChunks: [String: String]?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "animationFrames": animationFrames = try r.optional()
            case "animationPlays": animationPlays = try r.optional()
            case "exifRange": exifRange = try r.optional()
            case "hasXMP": hasXMP = try r.value()
            case "height": height = try r.optional()
            case "textChunks": textChunks = try r.value()
            case "width": width = try r.optional()
            default: try r.skipValue()
            }
        }
        self.hasXMP = try FactsJSONReader.required(hasXMP)
        self.textChunks = try FactsJSONReader.required(textChunks)
    }
}

extension GIFFacts: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var damage: [String]?
        var frameCount: Int?
        var height: Int?
        var loopCount: Int?
        var warnings: [String]?
        var width: Int?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "damage": damage = try r.value()
            case "frameCount": frameCount = try r.value()
            case "height": height = try r.value()
            case "loopCount": loopCount = try r.optional()
            case "warnings": warnings = try r.value()
            case "width": width = try r.value()
            default: try r.skipValue()
            }
        }
        self.init(
            width: try FactsJSONReader.required(width), height: try FactsJSONReader.required(height), frameCount: try FactsJSONReader.required(frameCount),
            loopCount: loopCount)
        self.damage = try FactsJSONReader.required(damage)
        self.warnings = try FactsJSONReader.required(warnings)
    }
}

extension WebPFacts: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        self.init()
        var animated: Bool?
        var hasEXIF: Bool?
        var hasXMP: Bool?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "animated": animated = try r.value()
            case "durationMilliseconds": durationMilliseconds = try r.optional()
            case "exifRange": exifRange = try r.optional()
            case "frameCount": frameCount = try r.optional()
            case "hasEXIF": hasEXIF = try r.value()
            case "hasXMP": hasXMP = try r.value()
            case "height": height = try r.optional()
            case "loopCount": loopCount = try r.optional()
            case "width": width = try r.optional()
            default: try r.skipValue()
            }
        }
        self.animated = try FactsJSONReader.required(animated)
        self.hasEXIF = try FactsJSONReader.required(hasEXIF)
        self.hasXMP = try FactsJSONReader.required(hasXMP)
    }
}

extension XMPFacts: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var declared: Int?
        var directory: [XMPDirectoryItem]?
        var fields: [String: String]?
        var oversized: [String: Int]?
        var source: String?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "declaredEntities": declared = try r.value()
            case "directory": directory = try r.value()
            case "fields": fields = try r.value()
            case "oversizedFields": oversized = try r.value()
            case "source": source = try r.value()
            default: try r.skipValue()
            }
        }
        self.init(source: try FactsJSONReader.required(source))
        self.declaredEntities = try FactsJSONReader.required(declared)
        self.directory = try FactsJSONReader.required(directory)
        self.fields = try FactsJSONReader.required(fields)
        self.oversizedFields = try FactsJSONReader.required(oversized)
    }
}

extension XMPDirectoryItem: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var length: UInt64?
        var mime: String?
        var padding: UInt64?
        var semantic: String?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "length": length = try r.optional()
            case "mime": mime = try r.optional()
            case "padding": padding = try r.optional()
            case "semantic": semantic = try r.optional()
            default: try r.skipValue()
            }
        }
        self.init(mime: mime, semantic: semantic, length: length, padding: padding)
    }
}

extension SamsungTrailer: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        self.init()
        var entries: [Entry]?
        var warnings: [String]?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "entries": entries = try r.value()
            case "motionPhotoVideo": motionPhotoVideo = try r.optional()
            case "warnings": warnings = try r.value()
            default: try r.skipValue()
            }
        }
        self.entries = try FactsJSONReader.required(entries)
        self.warnings = try FactsJSONReader.required(warnings)
    }
}

extension SamsungTrailer.Entry: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var data: ByteRange?
        var name: String?
        var type: UInt16?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "data": data = try r.value()
            case "name": name = try r.value()
            case "type": type = try r.value()
            default: try r.skipValue()
            }
        }
        self.init(type: try FactsJSONReader.required(type), name: try FactsJSONReader.required(name), data: try FactsJSONReader.required(data))
    }
}

/// As `AppleMakerNote.init(from:)`: entries by tag name or `0x…`, keys that are neither skipped; the
/// legacy array form is left to `JSONDecoder`.
extension AppleMakerNote: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var bigEndian: Bool?
        var entries: [UInt16: Value] = [:]
        var runTime: RunTime?
        var version: Int?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "bigEndian": bigEndian = try r.value()
            case "entries":
                guard try r.peek() == UInt8(ascii: "{") else { throw FactsJSONReader.Reader.Unsure() }
                var firstEntry = try r.beginObject()
                while let key = try r.nextKey(&firstEntry) {
                    guard let tag = Self.tag(key) else {
                        try r.skipValue()
                        continue
                    }
                    entries[tag] = try r.value()
                }
            case "runTime": runTime = try r.optional()
            case "version": version = try r.value()
            default: try r.skipValue()
            }
        }
        self.init(version: try FactsJSONReader.required(version), bigEndian: try FactsJSONReader.required(bigEndian))
        self.entries = entries
        self.runTime = runTime
    }
}

extension AppleMakerNote.RunTime: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var epoch: Int64?
        var flags: Int64?
        var timescale: Int64?
        var value: Int64?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "epoch": epoch = try r.value()
            case "flags": flags = try r.value()
            case "timescale": timescale = try r.value()
            case "value": value = try r.value()
            default: try r.skipValue()
            }
        }
        self.init(
            value: try FactsJSONReader.required(value), timescale: try FactsJSONReader.required(timescale), flags: try FactsJSONReader.required(flags),
            epoch: try FactsJSONReader.required(epoch))
    }
}

extension StillImageFacts: FactsJSONReadable {
    init(facts r: inout FactsJSONReader.Reader) throws {
        var bitsPerPixel: Int?
        var format: String?
        var height: Int?
        var imageCount: Int?
        var sizeSource: String?
        var width: Int?
        var first = try r.beginObject()
        while let k = try r.nextKey(&first) {
            switch k {
            case "bitsPerPixel": bitsPerPixel = try r.optional()
            case "format": format = try r.value()
            case "height": height = try r.optional()
            case "imageCount": imageCount = try r.optional()
            case "sizeSource": sizeSource = try r.value()
            case "width": width = try r.optional()
            default: try r.skipValue()
            }
        }
        self.init(format: try FactsJSONReader.required(format), width: width, height: height, sizeSource: try FactsJSONReader.required(sizeSource))
        self.imageCount = imageCount
        self.bitsPerPixel = bitsPerPixel
    }
}
