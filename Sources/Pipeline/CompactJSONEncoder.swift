import Foundation

/// Encodes an `Encodable` value as compact JSON, byte for byte what Foundation's `JSONEncoder` writes with
/// `[.sortedKeys, .withoutEscapingSlashes]` and the default strategies — without building a tree of boxed
/// values first. The probe's facts are encoded once per file on the ingest's hot path, where
/// `JSONEncoder` took about a sixth of the CPU (issue 17); the output is decoded by `JSONDecoder` as before.
///
/// Values are written as they are encoded. An object's members are written one after another and put in
/// key order (bytewise, as `JSONEncoder` sorts) when the object is complete: a container is complete when
/// its parent writes its next member, or at the end. Requesting the same kind of container twice from one
/// encoder continues the first one, as `JSONEncoder` merges them.
///
/// Same as `JSONEncoder`: doubles and floats by their shortest description without a trailing `.0`
/// (`1`, `0.1`, `1e-05`), non-finite numbers an error; `Data` as Base64, `Date` as seconds since 2001,
/// `URL` as its absolute string; strings with `"`, `\` and control characters escaped (`\n`, `\u001f`),
/// everything else as UTF-8.
public enum CompactJSONEncoder {
    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let writer = Writer()
        try writer.encodeValue(value, depth: 0, path: nil)
        writer.close(downTo: 0)
        return writer.out
    }

    final class Writer {
        var out: [UInt8] = []
        var frames: [Frame] = []

        init() { out.reserveCapacity(4096) }

        struct Frame {
            var isObject: Bool
            /// Where the container's text starts (`{` or `[`).
            var start: Int
            /// Objects: each member's key and where its `"key":value` text starts.
            var members: [(key: String, start: Int)] = []
            var count = 0
            /// The encoder that asked for it (a second request for the same kind continues it).
            var owner: ObjectIdentifier
        }

        /// Completes every container at `depth` and deeper: arrays get their `]`, objects their members
        /// sorted by key, separated by commas, in braces.
        func close(downTo depth: Int) {
            while frames.count > depth {
                let f = frames.removeLast()
                if !f.isObject {
                    out.append(UInt8(ascii: "]"))
                    continue
                }
                let ends = f.members.indices.map { $0 + 1 < f.members.count ? f.members[$0 + 1].start : out.count }
                let order = f.members.indices.sorted { Self.precedes(f.members[$0].key, f.members[$1].key) }
                var text: [UInt8] = [UInt8(ascii: "{")]
                text.reserveCapacity(out.count - f.start + f.members.count + 1)
                for (n, i) in order.enumerated() {
                    if n > 0 { text.append(UInt8(ascii: ",")) }
                    text.append(contentsOf: out[f.members[i].start..<ends[i]])
                }
                text.append(UInt8(ascii: "}"))
                out.replaceSubrange(f.start..<out.count, with: text)
            }
        }

        /// `JSONEncoder`'s `.sortedKeys` order: the keys' UTF-8 bytes.
        static func precedes(_ a: String, _ b: String) -> Bool {
            a.utf8.lexicographicallyPrecedes(b.utf8)
        }

        /// The container for an encoder at `depth`: the open one it asked for before, or a new one.
        func open(object: Bool, depth: Int, owner: ObjectIdentifier) {
            if frames.count > depth, frames[depth].owner == owner, frames[depth].isObject == object {
                close(downTo: depth + 1)
                return
            }
            close(downTo: depth)
            if !object { out.append(UInt8(ascii: "[")) }
            frames.append(Frame(isObject: object, start: out.count - (object ? 0 : 1), owner: owner))
        }

        /// Before a member of the object at `depth`: `"key":`.
        func beginMember(_ key: String, depth: Int) {
            close(downTo: depth + 1)
            frames[depth].members.append((key, out.count))
            string(key)
            out.append(UInt8(ascii: ":"))
        }

        /// Before an element of the array at `depth`: a comma after the first.
        func beginElement(depth: Int) {
            close(downTo: depth + 1)
            if frames[depth].count > 0 { out.append(UInt8(ascii: ",")) }
            frames[depth].count += 1
        }

        func literal(_ s: StaticString) {
            out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        }

        func string(_ s: String) {
            out.append(UInt8(ascii: "\""))
            var s = s
            s.withUTF8 { bytes in
                var from = 0
                for (i, c) in bytes.enumerated() where c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from..<i]))
                    from = i + 1
                    switch c {
                    case UInt8(ascii: "\""): literal("\\\"")
                    case UInt8(ascii: "\\"): literal("\\\\")
                    case 0x0A: literal("\\n")
                    case 0x0D: literal("\\r")
                    case 0x09: literal("\\t")
                    case 0x08: literal("\\b")
                    case 0x0C: literal("\\f")
                    default:
                        let hex = Array("0123456789abcdef".utf8)
                        literal("\\u00")
                        out.append(hex[Int(c >> 4)])
                        out.append(hex[Int(c & 15)])
                    }
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from...]))
            }
            out.append(UInt8(ascii: "\""))
        }

        func integer<I: BinaryInteger>(_ v: I) { out.append(contentsOf: String(v).utf8) }

        func float<F: BinaryFloatingPoint & LosslessStringConvertible>(_ v: F, codingPath: @autoclosure () -> [any CodingKey])
            throws
        {
            guard v.isFinite else {
                throw EncodingError.invalidValue(
                    v, .init(codingPath: codingPath(), debugDescription: "Unable to encode \(v) directly in JSON."))
            }
            var text = v.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            out.append(contentsOf: text.utf8)
        }

        /// A value as `JSONEncoder` writes it (its special cases first), its containers at `depth`.
        func encodeValue<T: Encodable>(_ value: T, depth: Int, path: @autoclosure () -> Path?) throws {
            if T.self == String.self {
                string(value as! String)
            } else if T.self == Int.self {
                integer(value as! Int)
            } else if T.self == Double.self {
                try float(value as! Double, codingPath: path()?.keys ?? [])
            } else if T.self == Bool.self {
                (value as! Bool) ? literal("true") : literal("false")
            } else if T.self == UInt8.self {
                integer(value as! UInt8)
            } else if T.self == Int64.self {
                integer(value as! Int64)
            } else if T.self == UInt64.self {
                integer(value as! UInt64)
            } else if T.self == UInt32.self {
                integer(value as! UInt32)
            } else if T.self == UInt16.self {
                integer(value as! UInt16)
            } else if T.self == Int32.self {
                integer(value as! Int32)
            } else if T.self == Data.self {
                string((value as! Data).base64EncodedString())
            } else if T.self == Date.self {
                try float((value as! Date).timeIntervalSinceReferenceDate, codingPath: path()?.keys ?? [])
            } else if T.self == URL.self {
                string((value as! URL).absoluteString)
            } else if T.self == Decimal.self {
                throw EncodingError.invalidValue(
                    value, .init(codingPath: path()?.keys ?? [], debugDescription: "Decimal is not supported"))
            } else {
                let encoder = ValueEncoder(writer: self, depth: depth, path: path())
                try value.encode(to: encoder)
                if !encoder.wrote {
                    // Nothing encoded: JSONEncoder writes an empty object.
                    literal("{}")
                }
            }
        }
    }

    /// A coding path, built only as far as values nest (not per member), read only for error messages.
    final class Path {
        let parent: Path?
        let key: any CodingKey
        init(_ parent: Path?, _ key: any CodingKey) {
            self.parent = parent
            self.key = key
        }
        var keys: [any CodingKey] { (parent?.keys ?? []) + [key] }
    }

    /// The encoder handed to a value's `encode(to:)`.
    final class ValueEncoder: Encoder, SingleValueEncodingContainer {
        let writer: Writer
        let depth: Int
        let path: Path?
        var codingPath: [any CodingKey] { path?.keys ?? [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        var wrote = false

        init(writer: Writer, depth: Int, path: Path?) {
            self.writer = writer
            self.depth = depth
            self.path = path
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            wrote = true
            writer.open(object: true, depth: depth, owner: ObjectIdentifier(self))
            return KeyedEncodingContainer(Keyed<Key>(writer: writer, depth: depth, path: path))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            wrote = true
            writer.open(object: false, depth: depth, owner: ObjectIdentifier(self))
            return Unkeyed(writer: writer, depth: depth, path: path)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer { self }

        // SingleValueEncodingContainer
        func encodeNil() throws { begin(); writer.literal("null") }
        func encode(_ value: Bool) throws { begin(); value ? writer.literal("true") : writer.literal("false") }
        func encode(_ value: String) throws { begin(); writer.string(value) }
        func encode(_ value: Double) throws { begin(); try writer.float(value, codingPath: codingPath) }
        func encode(_ value: Float) throws { begin(); try writer.float(value, codingPath: codingPath) }
        func encode(_ value: Int) throws { begin(); writer.integer(value) }
        func encode(_ value: Int8) throws { begin(); writer.integer(value) }
        func encode(_ value: Int16) throws { begin(); writer.integer(value) }
        func encode(_ value: Int32) throws { begin(); writer.integer(value) }
        func encode(_ value: Int64) throws { begin(); writer.integer(value) }
        func encode(_ value: UInt) throws { begin(); writer.integer(value) }
        func encode(_ value: UInt8) throws { begin(); writer.integer(value) }
        func encode(_ value: UInt16) throws { begin(); writer.integer(value) }
        func encode(_ value: UInt32) throws { begin(); writer.integer(value) }
        func encode(_ value: UInt64) throws { begin(); writer.integer(value) }
        func encode<T: Encodable>(_ value: T) throws {
            wrote = true
            try writer.encodeValue(value, depth: depth, path: path)
        }

        private func begin() {
            wrote = true
            writer.close(downTo: depth)
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let writer: Writer
        let depth: Int
        let path: Path?
        var codingPath: [any CodingKey] { path?.keys ?? [] }

        private func member(_ key: Key) { writer.beginMember(key.stringValue, depth: depth) }

        mutating func encodeNil(forKey key: Key) throws { member(key); writer.literal("null") }
        mutating func encode(_ value: Bool, forKey key: Key) throws {
            member(key); value ? writer.literal("true") : writer.literal("false")
        }
        mutating func encode(_ value: String, forKey key: Key) throws { member(key); writer.string(value) }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            member(key); try writer.float(value, codingPath: codingPath + [key])
        }
        mutating func encode(_ value: Float, forKey key: Key) throws {
            member(key); try writer.float(value, codingPath: codingPath + [key])
        }
        mutating func encode(_ value: Int, forKey key: Key) throws { member(key); writer.integer(value) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { member(key); writer.integer(value) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { member(key); writer.integer(value) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { member(key); writer.integer(value) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { member(key); writer.integer(value) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { member(key); writer.integer(value) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { member(key); writer.integer(value) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { member(key); writer.integer(value) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { member(key); writer.integer(value) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { member(key); writer.integer(value) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            member(key)
            try writer.encodeValue(value, depth: depth + 1, path: Path(path, key))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            member(key)
            return ValueEncoder(writer: writer, depth: depth + 1, path: Path(path, key)).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            member(key)
            return ValueEncoder(writer: writer, depth: depth + 1, path: Path(path, key)).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            writer.beginMember("super", depth: depth)
            return ValueEncoder(writer: writer, depth: depth + 1, path: path)
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            member(key)
            return ValueEncoder(writer: writer, depth: depth + 1, path: Path(path, key))
        }
    }

    struct IndexKey: CodingKey {
        var stringValue: String { "Index \(intValue ?? 0)" }
        var intValue: Int?
        init(_ i: Int) { intValue = i }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let writer: Writer
        let depth: Int
        let path: Path?
        var codingPath: [any CodingKey] { path?.keys ?? [] }
        var count: Int { writer.frames.count > depth ? writer.frames[depth].count : 0 }

        private func element() { writer.beginElement(depth: depth) }
        private var elementPath: Path { Path(path, IndexKey(count)) }

        mutating func encodeNil() throws { element(); writer.literal("null") }
        mutating func encode(_ value: Bool) throws { element(); value ? writer.literal("true") : writer.literal("false") }
        mutating func encode(_ value: String) throws { element(); writer.string(value) }
        mutating func encode(_ value: Double) throws {
            element(); try writer.float(value, codingPath: codingPath + [IndexKey(count - 1)])
        }
        mutating func encode(_ value: Float) throws {
            element(); try writer.float(value, codingPath: codingPath + [IndexKey(count - 1)])
        }
        mutating func encode(_ value: Int) throws { element(); writer.integer(value) }
        mutating func encode(_ value: Int8) throws { element(); writer.integer(value) }
        mutating func encode(_ value: Int16) throws { element(); writer.integer(value) }
        mutating func encode(_ value: Int32) throws { element(); writer.integer(value) }
        mutating func encode(_ value: Int64) throws { element(); writer.integer(value) }
        mutating func encode(_ value: UInt) throws { element(); writer.integer(value) }
        mutating func encode(_ value: UInt8) throws { element(); writer.integer(value) }
        mutating func encode(_ value: UInt16) throws { element(); writer.integer(value) }
        mutating func encode(_ value: UInt32) throws { element(); writer.integer(value) }
        mutating func encode(_ value: UInt64) throws { element(); writer.integer(value) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            element()
            try writer.encodeValue(value, depth: depth + 1, path: Path(path, IndexKey(count - 1)))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey>
        {
            let p = elementPath
            element()
            return ValueEncoder(writer: writer, depth: depth + 1, path: p).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let p = elementPath
            element()
            return ValueEncoder(writer: writer, depth: depth + 1, path: p).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            let p = elementPath
            element()
            return ValueEncoder(writer: writer, depth: depth + 1, path: p)
        }
    }
}
