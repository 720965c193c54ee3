/// Parses the raw Apple MakerNote bytes ("Apple iOS\0", version, byte order, IFD; reference §1.1).
/// Offsets of values longer than 4 bytes are relative to the start of the MakerNote.
public enum AppleMakerNoteReader {
    /// Whether `bytes` start like an Apple maker note.
    public static func isAppleMakerNote(_ bytes: [UInt8]) -> Bool { bytes.matches("Apple iOS") }

    /// Most values kept per entry; longer arrays are cut (maker note arrays are a handful of numbers).
    static let maxValuesPerEntry = 256
    /// Longest string kept (Apple's strings are UUIDs and short codes).
    static let maxStringBytes = 1024

    /// Parses every IFD entry; entries whose data lies outside `bytes` are skipped, not fatal.
    public static func parse(_ bytes: [UInt8]) throws(ProbeError) -> AppleMakerNote {
        guard isAppleMakerNote(bytes) else {
            throw ProbeError(.malformed, "Apple maker note: missing \"Apple iOS\" signature")
        }
        guard bytes.count >= 16 else {
            throw ProbeError(.truncated, "Apple maker note: \(bytes.count) bytes, header needs 16")
        }
        let bigEndian: Bool
        if bytes.matches("MM", at: 12) {
            bigEndian = true
        } else if bytes.matches("II", at: 12) {
            bigEndian = false
        } else {
            throw ProbeError(.malformed, "Apple maker note: byte order at offset 12 is neither MM nor II")
        }
        let version = Int(BinaryReader.uint(bytes, at: 10, size: 2, bigEndian: true) ?? 0)
        var note = AppleMakerNote(version: version, bigEndian: bigEndian)
        let declared = Int(BinaryReader.uint(bytes, at: 14, size: 2, bigEndian: bigEndian) ?? 0)
        let count = min(declared, (bytes.count - 16) / 12)
        for i in 0..<count {
            let e = 16 + i * 12
            guard let tag = u(bytes, e, 2, bigEndian), let type = u(bytes, e + 2, 2, bigEndian),
                let n = u(bytes, e + 4, 4, bigEndian)
            else { continue }
            let unit = unitSize(Int(type))
            guard unit > 0, n > 0, n <= UInt64(bytes.count) else { continue }
            let total = Int(n) * unit
            let dataOffset: Int
            if total <= 4 {
                dataOffset = e + 8
            } else {
                guard let off = u(bytes, e + 8, 4, bigEndian), off <= UInt64(bytes.count) else { continue }
                dataOffset = Int(off)
            }
            guard dataOffset >= 0, total <= bytes.count - dataOffset else { continue }
            let data = bytes[dataOffset..<dataOffset + total]
            let key = UInt16(tag)
            guard let value = decode(data, type: Int(type), count: Int(n), bigEndian: bigEndian) else { continue }
            note.entries[key] = value
            if key == AppleMakerNote.tagRunTime, let rt = runTime(Array(data)) { note.runTime = rt }
        }
        return note
    }

    static func u<C: RandomAccessCollection>(_ b: C, _ at: Int, _ size: Int, _ be: Bool) -> UInt64? where C.Element == UInt8, C.Index == Int {
        BinaryReader.uint(b, at: at, size: size, bigEndian: be)
    }

    /// Bytes per value of a TIFF type, 0 for unknown types.
    static func unitSize(_ type: Int) -> Int {
        switch type {
        case 1, 2, 6, 7: return 1
        case 3, 8: return 2
        case 4, 9, 11, 13: return 4
        case 5, 10, 12, 16, 17, 18: return 8
        default: return 0
        }
    }

    static func decode(_ data: ArraySlice<UInt8>, type: Int, count: Int, bigEndian be: Bool) -> AppleMakerNote.Value? {
        if type == 7 { return .data(count) }
        let n = min(count, maxValuesPerEntry)
        // Read in place (a slice of the maker note): no copy of each entry's bytes, and no array for the
        // single value most entries hold (~45k allocations of a 3,000-file first ingest before).
        let d = type == 2 ? data.prefix(maxStringBytes) : data.prefix(n * unitSize(type))
        func ints(_ size: Int, signed: Bool) -> AppleMakerNote.Value {
            func value(_ i: Int) -> Int64 {
                let raw = u(d, i * size, size, be) ?? 0
                guard signed else { return Int64(bitPattern: raw) }
                let shift = UInt64(64 - size * 8)
                return Int64(bitPattern: raw << shift) >> Int64(shift)
            }
            if n == 1 { return .int(value(0)) }
            return .ints((0..<n).map(value))
        }
        func doubles(_ f: (Int) -> Double) -> AppleMakerNote.Value {
            if n == 1 { return .rational(f(0)) }
            return .rationals((0..<n).map(f))
        }
        switch type {
        case 1, 3, 4, 13, 16: return ints(unitSize(type), signed: false)
        case 6, 8, 9, 17: return ints(unitSize(type), signed: true)
        case 5, 10:
            let signed = type == 10
            return doubles { i in
                let a = u(d, i * 8, 4, be) ?? 0
                let b = u(d, i * 8 + 4, 4, be) ?? 0
                let num = signed ? Double(Int32(bitPattern: UInt32(a))) : Double(a)
                let den = signed ? Double(Int32(bitPattern: UInt32(b))) : Double(b)
                return den == 0 ? 0 : num / den
            }
        case 11: return doubles { i in Double(Float(bitPattern: UInt32(u(d, i * 4, 4, be) ?? 0))) }
        case 12: return doubles { i in Double(bitPattern: u(d, i * 8, 8, be) ?? 0) }
        case 2:
            var s = d[...]
            while let last = s.last, last == 0 { s.removeLast() }
            return .string(String(decoding: s, as: UTF8.self))
        default: return nil
        }
    }

    /// Decodes the RunTime CMTime dictionary (`flags`, `value`, `timescale`, `epoch`) from a binary plist.
    static func runTime(_ data: [UInt8]) -> AppleMakerNote.RunTime? {
        guard let plist = try? SidecarPlist.parse(data, what: "RunTime binary plist"), let value = plist["value"]?.intValue,
            let timescale = plist["timescale"]?.intValue
        else { return nil }
        return AppleMakerNote.RunTime(value: value, timescale: timescale, flags: plist["flags"]?.intValue ?? 0,
                                      epoch: plist["epoch"]?.intValue ?? 0)
    }
}
