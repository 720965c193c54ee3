import Foundation

/// A JSON value as parsed (numbers keep whether they were integers), with a writer that keeps a chosen
/// key order so manifest lines read `kind` first.
public enum JSONValue: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .int(i)
        } else if let d = try? c.decode(Double.self) {
            self = .double(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    /// Parses one JSON document.
    public static func parse(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var intValue: Int64? { if case .int(let i) = self { return i }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    public var isNull: Bool { self == .null }
    public var numberValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// Compact JSON text; object keys in `keyOrder` first (in that order), the rest sorted.
    public func serialized(keyOrder: [String] = []) -> String {
        var out = ""
        write(&out, keyOrder)
        return out
    }

    private func write(_ out: inout String, _ order: [String]) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += d.isFinite ? "\(d)" : "null"
        case .string(let s): Self.quote(s, &out)
        case .array(let a):
            out += "["
            for (k, v) in a.enumerated() {
                if k > 0 { out += "," }
                v.write(&out, order)
            }
            out += "]"
        case .object(let o):
            let rank = Dictionary(order.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
            let keys = o.keys.sorted { a, b in
                switch (rank[a], rank[b]) {
                case let (x?, y?): return x < y
                case (_?, nil): return true
                case (nil, _?): return false
                default: return a < b
                }
            }
            out += "{"
            for (k, key) in keys.enumerated() {
                if k > 0 { out += "," }
                Self.quote(key, &out)
                out += ":"
                o[key]!.write(&out, order)
            }
            out += "}"
        }
    }

    private static func quote(_ s: String, _ out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let h = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            default: out.unicodeScalars.append(u)
            }
        }
        out += "\""
    }
}

/// A validator for the subset of JSON Schema (draft 2020-12) Shoebox's schemas use: `type` (a name or a
/// list), `enum`, `required`, `properties`, `additionalProperties: false`, `items`, `minItems`, `minimum`,
/// `maximum`, `pattern` (NSRegularExpression, unanchored as the spec says), `oneOf`, `anyOf`, and `$ref`
/// to `#/$defs/…`. Anything else in a schema is ignored, so use only these keywords.
public struct JSONSchema: Sendable {
    public let root: JSONValue

    public init(_ root: JSONValue) { self.root = root }

    public init(text: String) throws { root = try JSONValue.parse(text) }

    /// Problems with `value`, each naming the JSON path (`$.resources[0].path: …`); empty when valid.
    public func validate(_ value: JSONValue) -> [String] {
        var errors: [String] = []
        check(value, root, "$", &errors)
        return errors
    }

    private func resolve(_ schema: JSONValue) -> JSONValue {
        guard let ref = schema["$ref"]?.stringValue else { return schema }
        let prefix = "#/$defs/"
        guard ref.hasPrefix(prefix), let target = root["$defs"]?[String(ref.dropFirst(prefix.count))] else { return .object([:]) }
        return resolve(target)
    }

    private static func typeName(_ v: JSONValue) -> String {
        switch v {
        case .null: return "null"
        case .bool: return "boolean"
        case .int: return "integer"
        case .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    private static func matches(_ v: JSONValue, type: String) -> Bool {
        let t = typeName(v)
        return t == type || (type == "number" && t == "integer")
    }

    private func check(_ v: JSONValue, _ rawSchema: JSONValue, _ path: String, _ errors: inout [String]) {
        let s = resolve(rawSchema)
        if let t = s["type"] {
            let types = t.arrayValue?.compactMap(\.stringValue) ?? [t.stringValue].compactMap { $0 }
            if !types.contains(where: { Self.matches(v, type: $0) }) {
                errors.append("\(path): expected \(types.joined(separator: " or ")), found \(Self.typeName(v))")
                return
            }
        }
        if let e = s["enum"]?.arrayValue, !e.contains(v) {
            errors.append("\(path): \(v.serialized()) is not one of \(JSONValue.array(e).serialized())")
        }
        if let n = v.numberValue {
            if let m = s["minimum"]?.numberValue, n < m { errors.append("\(path): \(n) is less than \(m)") }
            if let m = s["maximum"]?.numberValue, n > m { errors.append("\(path): \(n) is more than \(m)") }
        }
        if case .string(let str) = v, let p = s["pattern"]?.stringValue {
            if let re = try? NSRegularExpression(pattern: p) {
                let r = NSRange(str.startIndex..., in: str)
                if re.firstMatch(in: str, range: r) == nil { errors.append("\(path): \(v.serialized()) does not match \(p)") }
            } else {
                errors.append("\(path): the schema's pattern \(p) does not compile")
            }
        }
        if case .array(let a) = v {
            if let m = s["minItems"]?.intValue, a.count < m { errors.append("\(path): fewer than \(m) items") }
            if let items = s["items"] {
                for (k, x) in a.enumerated() { check(x, items, "\(path)[\(k)]", &errors) }
            }
        }
        if case .object(let o) = v {
            for r in s["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where o[r] == nil {
                errors.append("\(path): missing required property '\(r)'")
            }
            let props: [String: JSONValue]
            if case .object(let p)? = s["properties"] { props = p } else { props = [:] }
            for key in o.keys.sorted() {
                if let ps = props[key] {
                    check(o[key]!, ps, "\(path).\(key)", &errors)
                } else if s["additionalProperties"] == .bool(false) {
                    errors.append("\(path): unexpected property '\(key)'")
                } else if case .object? = s["additionalProperties"], let extra = s["additionalProperties"] {
                    check(o[key]!, extra, "\(path).\(key)", &errors)
                }
            }
        }
        if let any = s["anyOf"]?.arrayValue {
            var branchErrors: [[String]] = []
            for b in any {
                var e: [String] = []
                check(v, b, path, &e)
                if e.isEmpty { branchErrors = []; break }
                branchErrors.append(e)
            }
            if !branchErrors.isEmpty { errors.append(contentsOf: best(branchErrors, v, any)) }
        }
        if let one = s["oneOf"]?.arrayValue {
            var branchErrors: [[String]] = []
            var passed = 0
            for b in one {
                var e: [String] = []
                check(v, b, path, &e)
                if e.isEmpty { passed += 1 }
                branchErrors.append(e)
            }
            if passed == 0 {
                errors.append(contentsOf: best(branchErrors, v, one))
            } else if passed > 1 {
                errors.append("\(path): matches \(passed) of the oneOf schemas, not exactly one")
            }
        }
    }

    /// The errors of the branch a reader most likely meant: the one whose `kind` enum names the value's
    /// `kind`; else the branch with the fewest errors.
    private func best(_ branchErrors: [[String]], _ v: JSONValue, _ branches: [JSONValue]) -> [String] {
        if let kind = v["kind"] {
            for (k, b) in branches.enumerated() where resolve(b)["properties"]?["kind"]?["enum"]?.arrayValue == [kind] {
                return branchErrors[k]
            }
        }
        return branchErrors.min { $0.count < $1.count } ?? []
    }
}
