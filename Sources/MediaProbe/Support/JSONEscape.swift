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
