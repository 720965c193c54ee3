/// A tiny, bounded reader for binary property lists (`bplist00`): ints, reals, bools, strings, data,
/// arrays and dictionaries.
///
/// Nesting is capped at 32 levels and the object count by the data size; a reference cycle ends at the cap.
public enum BinaryPlist {
    public indirect enum Value: Sendable, Equatable {
        case int(Int64)
        case real(Double)
        case bool(Bool)
        case string(String)
        case data(Int)
        case array([Value])
        case dict([String: Value])
        case null
        /// An object kind this reader does not decode (dates, UIDs, sets), with its marker byte.
        case unsupported(UInt8)

        public var intValue: Int64? {
            switch self {
            case .int(let v): return v
            case .real(let v): return v.isFinite && v.rounded() == v && abs(v) < 9e18 ? Int64(v) : nil
            case .bool(let b): return b ? 1 : 0
            default: return nil
            }
        }

        public subscript(_ key: String) -> Value? {
            if case .dict(let d) = self { return d[key] }
            return nil
        }
    }

    static let maxDepth = 32
    static let maxContainerCount = 100_000

    /// Parses a whole binary plist and returns its top object.
    public static func parse(_ bytes: [UInt8]) throws(ProbeError) -> Value {
        guard bytes.count >= 40, bytes.matches("bplist0") else {
            throw ProbeError(.malformed, "binary plist: missing bplist00 header or trailer")
        }
        let t = bytes.count - 32
        let offsetSize = Int(bytes[t + 6])
        let refSize = Int(bytes[t + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(refSize),
            let numObjects = BinaryReader.uint(bytes, at: t + 8, size: 8, bigEndian: true),
            let top = BinaryReader.uint(bytes, at: t + 16, size: 8, bigEndian: true),
            let tableOffset = BinaryReader.uint(bytes, at: t + 24, size: 8, bigEndian: true)
        else { throw ProbeError(.malformed, "binary plist: bad trailer") }
        guard numObjects > 0, numObjects <= UInt64(bytes.count), top < numObjects,
            tableOffset >= 8, tableOffset <= UInt64(t),
            numObjects * UInt64(offsetSize) <= UInt64(t) - tableOffset
        else { throw ProbeError(.malformed, "binary plist: object table outside the data") }
        let p = Parser(bytes: bytes, offsetSize: offsetSize, refSize: refSize, numObjects: Int(numObjects),
                       tableOffset: Int(tableOffset), limit: t)
        return try p.object(Int(top), depth: 0)
    }

    final class Parser {
        let bytes: [UInt8]
        let offsetSize: Int
        let refSize: Int
        let numObjects: Int
        let tableOffset: Int
        let limit: Int
        /// Objects decoded so far; caps the work a shared or cyclic reference graph can cause.
        var visits = 0

        init(bytes: [UInt8], offsetSize: Int, refSize: Int, numObjects: Int, tableOffset: Int, limit: Int) {
            self.bytes = bytes
            self.offsetSize = offsetSize
            self.refSize = refSize
            self.numObjects = numObjects
            self.tableOffset = tableOffset
            self.limit = limit
        }

        func fail(_ m: String) -> ProbeError { ProbeError(.malformed, "binary plist: \(m)") }

        func object(_ index: Int, depth: Int) throws(ProbeError) -> Value {
            visits += 1
            guard visits <= BinaryPlist.maxContainerCount else { throw ProbeError(.tooLarge, "binary plist: more than \(BinaryPlist.maxContainerCount) objects decoded") }
            guard depth < BinaryPlist.maxDepth else { throw ProbeError(.tooDeep, "binary plist: nesting deeper than \(BinaryPlist.maxDepth)") }
            guard index >= 0, index < numObjects,
                let off64 = BinaryReader.uint(bytes, at: tableOffset + index * offsetSize, size: offsetSize, bigEndian: true),
                off64 >= 8, off64 < UInt64(limit)
            else { throw fail("object \(index) has no valid offset") }
            let off = Int(off64)
            let marker = bytes[off]
            let high = marker >> 4
            let low = Int(marker & 0x0F)
            switch high {
            case 0x0:
                switch marker {
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
                case 0x00: return .null
                default: return .unsupported(marker)
                }
            case 0x1:
                let n = 1 << low
                if n == 16, let v = BinaryReader.uint(bytes, at: off + 9, size: 8, bigEndian: true), off + 17 <= limit {
                    return .int(Int64(bitPattern: v))
                }
                guard n <= 8, off + 1 + n <= limit,
                    let v = BinaryReader.uint(bytes, at: off + 1, size: n, bigEndian: true)
                else { throw fail("bad integer at \(off)") }
                return .int(n == 8 ? Int64(bitPattern: v) : Int64(v))
            case 0x2:
                let n = 1 << low
                guard off + 1 + n <= limit, let v = BinaryReader.uint(bytes, at: off + 1, size: n, bigEndian: true)
                else { throw fail("bad real at \(off)") }
                if n == 4 { return .real(Double(Float(bitPattern: UInt32(truncatingIfNeeded: v)))) }
                if n == 8 { return .real(Double(bitPattern: v)) }
                return .unsupported(marker)
            case 0x4, 0x5, 0x6:
                let (count, start) = try length(low, at: off)
                let unit = high == 0x6 ? 2 : 1
                guard count <= (limit - start) / unit else { throw fail("object at \(off) runs past the end") }
                if high == 0x4 { return .data(count) }
                let slice = bytes[start..<start + count * unit]
                if high == 0x5 { return .string(String(decoding: slice, as: UTF8.self)) }
                var units: [UInt16] = []
                units.reserveCapacity(count)
                var i = slice.startIndex
                while i + 1 < slice.endIndex {
                    units.append(UInt16(slice[i]) << 8 | UInt16(slice[i + 1]))
                    i += 2
                }
                return .string(String(decoding: units, as: UTF16.self))
            case 0xA, 0xD:
                let (count, start) = try length(low, at: off)
                let refs = high == 0xD ? count * 2 : count
                guard count <= BinaryPlist.maxContainerCount, refs <= (limit - start) / refSize
                else { throw fail("container at \(off) runs past the end") }
                func ref(_ i: Int) -> Int {
                    Int(BinaryReader.uint(bytes, at: start + i * refSize, size: refSize, bigEndian: true) ?? UInt64(Int.max))
                }
                if high == 0xA {
                    var out: [Value] = []
                    for i in 0..<count { out.append(try object(ref(i), depth: depth + 1)) }
                    return .array(out)
                }
                var out: [String: Value] = [:]
                for i in 0..<count {
                    guard case .string(let key) = try object(ref(i), depth: depth + 1) else { continue }
                    out[key] = try object(ref(count + i), depth: depth + 1)
                }
                return .dict(out)
            default:
                return .unsupported(marker)
            }
        }

        /// The element count of a sized object and where its content starts.
        func length(_ low: Int, at off: Int) throws(ProbeError) -> (Int, Int) {
            if low != 0xF { return (low, off + 1) }
            guard off + 2 <= limit, bytes[off + 1] >> 4 == 0x1 else { throw fail("bad length at \(off)") }
            let n = 1 << Int(bytes[off + 1] & 0x0F)
            guard n <= 8, off + 2 + n <= limit, let v = BinaryReader.uint(bytes, at: off + 2, size: n, bigEndian: true),
                v <= UInt64(limit)
            else { throw fail("bad length at \(off)") }
            return (Int(v), off + 2 + n)
        }
    }
}
