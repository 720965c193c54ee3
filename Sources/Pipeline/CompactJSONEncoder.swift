import Catalog
import Foundation

/// Encodes an `Encodable` value as compact JSON, byte for byte what Foundation's `JSONEncoder` writes with
/// `[.sortedKeys, .withoutEscapingSlashes]` and the default strategies — without building a tree of boxed
/// values first. It wrote the stored facts until `FactsJSON` (written by hand, without Codable's dispatch)
/// took its place on the ingest's hot path (issue 17); it remains for any `Encodable` value.
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
        try writer.encodeValue(value, depth: 0)
        writer.close(downTo: 0)
        return writer.out
    }

    final class Writer {
        var out: [UInt8] = []
        /// The open containers, outermost first: `frames[0..<open]`. Frames past `open` are kept for reuse
        /// (their member lists keep their capacity), as are the encoders, one per depth.
        var frames: [Frame] = []
        var open = 0
        var encoders: [ValueEncoder] = []
        /// Scratch for putting an object's members in order.
        var order: [Int] = []
        var sorted: [UInt8] = []

        init() { out.reserveCapacity(4096) }

        struct Frame {
            var isObject = false
            /// Where the container's text starts (`{` or `[`).
            var start = 0
            /// Objects: each member's key and where its `"key":value` text starts.
            var members: [(key: String, start: Int)] = []
            /// Arrays: elements so far.
            var count = 0
            /// The key of the member (or the index of the element) being written, for coding paths.
            var key: (any CodingKey)?
        }

        /// The coding path of a value inside the containers `0..<depth`.
        func codingPath(_ depth: Int) -> [any CodingKey] {
            frames[0..<min(depth, open)].compactMap(\.key)
        }

        /// The encoder for a value at `depth` (one per depth: values at one depth are encoded one after
        /// another, and a value's containers are complete before its next sibling starts).
        func encoder(_ depth: Int) -> ValueEncoder {
            while encoders.count <= depth { encoders.append(ValueEncoder(writer: self, depth: encoders.count)) }
            return encoders[depth]
        }

        /// Completes every container at `depth` and deeper: arrays get their `]`, objects their members
        /// sorted by key, separated by commas, in braces.
        func close(downTo depth: Int) {
            while open > depth {
                open -= 1
                if !frames[open].isObject {
                    out.append(UInt8(ascii: "]"))
                    continue
                }
                let start = frames[open].start
                let n = frames[open].members.count
                order.removeAll(keepingCapacity: true)
                order.append(contentsOf: 0..<n)
                frames[open].members.withUnsafeBufferPointer { m in
                    if !zip(m, m.dropFirst()).allSatisfy({ Self.precedes($0.key, $1.key) }) {
                        order.sort { Self.precedes(m[$0].key, m[$1].key) }
                    }
                    sorted.removeAll(keepingCapacity: true)
                    sorted.append(UInt8(ascii: "{"))
                    for (k, i) in order.enumerated() {
                        if k > 0 { sorted.append(UInt8(ascii: ",")) }
                        sorted.append(contentsOf: out[m[i].start..<(i + 1 < n ? m[i + 1].start : out.count)])
                    }
                    sorted.append(UInt8(ascii: "}"))
                }
                out.removeSubrange(start...)
                out.append(contentsOf: sorted)
            }
        }

        /// `JSONEncoder`'s `.sortedKeys` order: the keys' UTF-8 bytes.
        static func precedes(_ a: String, _ b: String) -> Bool {
            a.utf8.lexicographicallyPrecedes(b.utf8)
        }

        /// The container for the encoder at `depth`: the one it opened before when it asks again for the
        /// same kind (containers of earlier values at this depth are closed by then), or a new one.
        func open(object: Bool, depth: Int) {
            if open > depth, frames[depth].isObject == object {
                close(downTo: depth + 1)
                return
            }
            close(downTo: depth)
            if !object { out.append(UInt8(ascii: "[")) }
            if frames.count == open { frames.append(Frame()) }
            frames[open].isObject = object
            frames[open].start = out.count - (object ? 0 : 1)
            frames[open].members.removeAll(keepingCapacity: true)
            frames[open].count = 0
            frames[open].key = nil
            open += 1
        }

        /// Before a member of the object at `depth`: `"key":`.
        func beginMember(_ key: some CodingKey, depth: Int) {
            close(downTo: depth + 1)
            let name = key.stringValue
            frames[depth].members.append((name, out.count))
            frames[depth].key = key
            string(name)
            out.append(UInt8(ascii: ":"))
        }

        /// Before an element of the array at `depth`: a comma after the first.
        func beginElement(depth: Int) {
            close(downTo: depth + 1)
            if frames[depth].count > 0 { out.append(UInt8(ascii: ",")) }
            frames[depth].key = IndexKey(frames[depth].count)
            frames[depth].count += 1
        }

        func literal(_ s: StaticString) {
            out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        }

        func string(_ s: String) {
            var s = s
            s.withUTF8 { AssetRowWriter.string(bytes: $0, into: &out) }
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
        func encodeValue<T: Encodable>(_ value: T, depth: Int) throws {
            if T.self == String.self {
                string(value as! String)
            } else if T.self == Int.self {
                integer(value as! Int)
            } else if T.self == Double.self {
                try float(value as! Double, codingPath: codingPath(depth))
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
                try float((value as! Date).timeIntervalSinceReferenceDate, codingPath: codingPath(depth))
            } else if T.self == URL.self {
                string((value as! URL).absoluteString)
            } else if T.self == Decimal.self {
                throw EncodingError.invalidValue(
                    value, .init(codingPath: codingPath(depth), debugDescription: "Decimal is not supported"))
            } else {
                let encoder = encoder(depth)
                encoder.wrote = false
                try value.encode(to: encoder)
                if !encoder.wrote {
                    // Nothing encoded: JSONEncoder writes an empty object.
                    literal("{}")
                    encoder.wrote = true
                }
            }
        }
    }

    /// The encoder handed to a value's `encode(to:)` (one per depth, reused).
    final class ValueEncoder: Encoder, SingleValueEncodingContainer {
        unowned let writer: Writer
        let depth: Int
        var codingPath: [any CodingKey] { writer.codingPath(depth) }
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        var wrote = false

        init(writer: Writer, depth: Int) {
            self.writer = writer
            self.depth = depth
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            wrote = true
            writer.open(object: true, depth: depth)
            return KeyedEncodingContainer(Keyed<Key>(writer: writer, depth: depth))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            wrote = true
            writer.open(object: false, depth: depth)
            return Unkeyed(writer: writer, depth: depth)
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
            try writer.encodeValue(value, depth: depth)
        }

        private func begin() {
            wrote = true
            writer.close(downTo: depth)
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        unowned let writer: Writer
        /// The index of its frame.
        let depth: Int
        var codingPath: [any CodingKey] { writer.codingPath(depth) }

        private func member(_ key: Key) { writer.beginMember(key, depth: depth) }
        private var memberPath: [any CodingKey] { writer.codingPath(depth + 1) }

        mutating func encodeNil(forKey key: Key) throws { member(key); writer.literal("null") }
        mutating func encode(_ value: Bool, forKey key: Key) throws {
            member(key); value ? writer.literal("true") : writer.literal("false")
        }
        mutating func encode(_ value: String, forKey key: Key) throws { member(key); writer.string(value) }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            member(key); try writer.float(value, codingPath: memberPath)
        }
        mutating func encode(_ value: Float, forKey key: Key) throws {
            member(key); try writer.float(value, codingPath: memberPath)
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
            try writer.encodeValue(value, depth: depth + 1)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            member(key)
            return writer.encoder(depth + 1).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            member(key)
            return writer.encoder(depth + 1).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            writer.beginMember(IndexKey(stringValue: "super"), depth: depth)
            return writer.encoder(depth + 1)
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            member(key)
            return writer.encoder(depth + 1)
        }
    }

    struct IndexKey: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(_ i: Int) {
            intValue = i
            stringValue = "Index \(i)"
        }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { self.init(intValue) }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        unowned let writer: Writer
        /// The index of its frame.
        let depth: Int
        var codingPath: [any CodingKey] { writer.codingPath(depth) }
        var count: Int { writer.open > depth ? writer.frames[depth].count : 0 }

        private func element() { writer.beginElement(depth: depth) }
        private var elementPath: [any CodingKey] { writer.codingPath(depth + 1) }

        mutating func encodeNil() throws { element(); writer.literal("null") }
        mutating func encode(_ value: Bool) throws { element(); value ? writer.literal("true") : writer.literal("false") }
        mutating func encode(_ value: String) throws { element(); writer.string(value) }
        mutating func encode(_ value: Double) throws { element(); try writer.float(value, codingPath: elementPath) }
        mutating func encode(_ value: Float) throws { element(); try writer.float(value, codingPath: elementPath) }
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
            try writer.encodeValue(value, depth: depth + 1)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey>
        {
            element()
            return writer.encoder(depth + 1).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            element()
            return writer.encoder(depth + 1).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            element()
            return writer.encoder(depth + 1)
        }
    }
}
