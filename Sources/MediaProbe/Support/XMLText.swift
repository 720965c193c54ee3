/// XML character data: the five predefined entities and numeric character references.
enum XMLText {
    /// Decodes `raw`. A malformed or unknown entity is kept as written, or — when `strict` — makes the
    /// result nil with `problem` saying which.
    static func decode<C: Collection>(_ raw: C, strict: Bool, problem: inout String) -> String?
    where C.Element == UInt8, C.Index == Int {
        guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = raw.startIndex
        while i < raw.endIndex {
            let c = raw[i]
            guard c == UInt8(ascii: "&") else {
                out.append(c)
                i += 1
                continue
            }
            var j = i + 1
            while j < raw.endIndex, j - i <= 12, raw[j] != UInt8(ascii: ";") { j += 1 }
            guard j < raw.endIndex, raw[j] == UInt8(ascii: ";") else {
                if strict {
                    problem = "bad entity"
                    return nil
                }
                out.append(c)
                i += 1
                continue
            }
            let name = String(decoding: raw[(i + 1)..<j], as: UTF8.self)
            if let replacement = replacement(for: name) {
                out.append(contentsOf: replacement)
                i = j + 1
            } else if strict {
                problem = "unknown entity &\(name);"
                return nil
            } else {
                out.append(c)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes an entity name (without `&` and `;`) stands for, or nil.
    static func replacement(for name: String) -> [UInt8]? {
        switch name {
        case "lt": return [UInt8(ascii: "<")]
        case "gt": return [UInt8(ascii: ">")]
        case "amp": return [UInt8(ascii: "&")]
        case "quot": return [UInt8(ascii: "\"")]
        case "apos": return [UInt8(ascii: "'")]
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let code = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            guard let code, let scalar = Unicode.Scalar(code) else { return nil }
            return Array(String(Character(scalar)).utf8)
        }
    }
}
