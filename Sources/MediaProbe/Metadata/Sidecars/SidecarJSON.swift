/// A small, bounded JSON reader (RFC 8259) producing `SidecarValue`s.
///
/// Nesting is limited to `maxDepth` and the input to `maxInput` bytes; a UTF-8 byte-order mark is
/// skipped; numbers without a fraction or exponent that fit in 64 bits become `.integer`.
public enum SidecarJSON {
    /// Deepest nesting of arrays and objects accepted.
    public static let maxDepth = 64
    /// Largest input accepted.
    public static let maxInput = 64 << 20

    /// Parses one JSON document (trailing whitespace only).
    public static func parse(_ bytes: [UInt8], what: String = "JSON") throws(ProbeError) -> SidecarValue {
        guard bytes.count <= maxInput else { throw ProbeError(.tooLarge, "\(what): \(bytes.count) bytes exceeds the \(maxInput)-byte limit") }
        var p = JSONParser(b: bytes, what: what)
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { p.i = 3 }
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.i == bytes.count else { throw p.fail("trailing characters after the JSON value") }
        return v
    }
}

private struct JSONParser {
    let b: [UInt8]
    let what: String
    var i = 0

    func fail(_ msg: String) -> ProbeError {
        i >= b.count ? ProbeError(.truncated, "\(what): ends early (\(msg))") : ProbeError(.malformed, "\(what): \(msg) at byte \(i)")
    }

    mutating func skipSpace() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
    }

    mutating func literal(_ word: String, _ v: SidecarValue) throws(ProbeError) -> SidecarValue {
        guard b.matches(word, at: i) else { throw fail("invalid literal") }
        i += word.utf8.count
        return v
    }

    mutating func value(depth: Int) throws(ProbeError) -> SidecarValue {
        guard depth < SidecarJSON.maxDepth else { throw ProbeError(.tooDeep, "\(what): nesting deeper than \(SidecarJSON.maxDepth)") }
        skipSpace()
        guard i < b.count else { throw fail("expected a value") }
        switch b[i] {
        case UInt8(ascii: "{"):
            i += 1
            var d: [String: SidecarValue] = [:]
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "}") {
                i += 1
                return .dict(d)
            }
            while true {
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
                let key = try string()
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                i += 1
                d[key] = try value(depth: depth + 1)
                skipSpace()
                guard i < b.count else { throw fail("unterminated object") }
                if b[i] == UInt8(ascii: ",") {
                    i += 1
                } else if b[i] == UInt8(ascii: "}") {
                    i += 1
                    return .dict(d)
                } else {
                    throw fail("expected ',' or '}'")
                }
            }
        case UInt8(ascii: "["):
            i += 1
            var a: [SidecarValue] = []
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "]") {
                i += 1
                return .array(a)
            }
            while true {
                a.append(try value(depth: depth + 1))
                skipSpace()
                guard i < b.count else { throw fail("unterminated array") }
                if b[i] == UInt8(ascii: ",") {
                    i += 1
                } else if b[i] == UInt8(ascii: "]") {
                    i += 1
                    return .array(a)
                } else {
                    throw fail("expected ',' or ']'")
                }
            }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw fail("unexpected character")
        }
    }

    mutating func number() throws(ProbeError) -> SidecarValue {
        let start = i
        var integral = true
        if b[i] == UInt8(ascii: "-") { i += 1 }
        let digitsStart = i
        while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") { i += 1 }
        guard i > digitsStart else { throw fail("expected digits") }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            integral = false
            i += 1
            let f = i
            while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") { i += 1 }
            guard i > f else { throw fail("expected fraction digits") }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            integral = false
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            let e = i
            while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") { i += 1 }
            guard i > e else { throw fail("expected exponent digits") }
        }
        let text = String(decoding: b[start..<i], as: UTF8.self)
        if integral, let v = Int64(text) { return .integer(v) }
        guard let d = Double(text) else { throw fail("bad number") }
        return .real(d)
    }

    mutating func hex4() throws(ProbeError) -> UInt32 {
        guard i + 4 <= b.count else { throw fail("short \\u escape") }
        guard let v = JSONEscape.hex4(b, at: i) else { throw fail("bad \\u escape") }
        i += 4
        return v
    }

    mutating func string() throws(ProbeError) -> String {
        i += 1  // opening quote
        var out: [UInt8] = []
        while true {
            guard i < b.count else { throw fail("unterminated string") }
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                return String(decoding: out, as: UTF8.self)
            }
            guard c >= 0x20 else { throw fail("control character in string") }
            if c != UInt8(ascii: "\\") {
                out.append(c)
                i += 1
                continue
            }
            i += 1
            guard i < b.count else { throw fail("unterminated escape") }
            let e = b[i]
            i += 1
            if let single = JSONEscape.single(e) {
                out.append(single)
                continue
            }
            switch e {
            case UInt8(ascii: "u"):
                var cp = try hex4()
                if JSONEscape.isHighSurrogate(cp), b.matches("\\u", at: i) {
                    let save = i
                    i += 2
                    if let pair = JSONEscape.pair(high: cp, low: try hex4()) { cp = pair } else { i = save }
                }
                JSONEscape.append(Unicode.Scalar(cp) ?? "\u{FFFD}", to: &out)
            default: throw fail("bad escape")
            }
        }
    }
}
