/// The pieces of JSON string escaping that every JSON reader here shares (`SidecarJSON` for Takeout sidecars,
/// `FactsJSONReader` for the stored facts); each decides for itself what a bad escape or a lone surrogate means.
enum JSONEscape {
    /// The byte a one-character escape stands for (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`); nil for
    /// `\u` and anything else.
    static func single(_ e: UInt8) -> UInt8? {
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): e
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }

    /// Whether a `\u` escape's value is the high half of a surrogate pair (a `\uDC00`…`\uDFFF` should follow).
    static func isHighSurrogate(_ v: UInt32) -> Bool { (0xD800..<0xDC00).contains(v) }

    /// The code point a surrogate pair stands for; nil when `low` is not a low half.
    static func pair(high: UInt32, low: UInt32) -> UInt32? {
        guard (0xDC00..<0xE000).contains(low) else { return nil }
        return 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
    }

    /// Appends a scalar's UTF-8 bytes.
    static func append(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
        UTF8.encode(scalar) { out.append($0) }
    }

    /// The four hex digits of a `\u` escape at `bytes[at...]`; nil when there are not four.
    static func hex4<C: RandomAccessCollection>(_ bytes: C, at: Int) -> UInt32? where C.Element == UInt8, C.Index == Int {
        guard at >= bytes.startIndex, at + 4 <= bytes.endIndex else { return nil }
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = bytes[at + k]
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }
}
