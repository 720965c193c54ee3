/// Compiles the predicate language (a documented subset of NSPredicate's format syntax, see
/// docs/predicates.md) to a parameterised SQL expression over `asset a`.
public enum PredicateCompiler {
    /// Parses `format`, fills `%@ %d %f %K` from `arguments` in order, and compiles. Values are bound as
    /// parameters; key paths map to fixed column expressions; nothing from the input reaches the SQL text.
    public static func compile(_ format: String, arguments: [String] = []) throws(PredicateError) -> CompiledPredicate {
        let tokens = try Lexer(format).tokens()
        var parser = Parser(tokens: tokens, source: format, arguments: arguments)
        let tree = try parser.parse()
        var compiler = SQLCompiler(source: format)
        let f = try compiler.node(tree)
        return CompiledPredicate(sql: f.sql, arguments: f.args)
    }
}

/// SQL text with the values of its placeholders, concatenated together so they stay aligned.
struct Fragment {
    var sql: String
    var args: [PredicateValue]

    init(_ sql: String, _ args: [PredicateValue] = []) {
        self.sql = sql
        self.args = args
    }

    static func param(_ v: PredicateValue) -> Fragment { Fragment("?", [v]) }

    static func + (a: Fragment, b: Fragment) -> Fragment { Fragment(a.sql + b.sql, a.args + b.args) }
    static func + (a: Fragment, b: String) -> Fragment { Fragment(a.sql + b, a.args) }
    static func + (a: String, b: Fragment) -> Fragment { Fragment(a + b.sql, b.args) }
}

/// A key path side of a comparison: a column, or a masked column `(a.media_subtypes & ?)`.
struct Operand {
    var name: String
    var info: KeyPathInfo
    var sql: Fragment
    var masked = false
    /// For a masked operand: the column and the mask (`(column & mask)`).
    var maskOf: (column: Fragment, mask: PredicateValue)?
    var pos: Int

    var kindName: String {
        if masked { return "a masked number" }
        switch info.kind {
        case .integer: return "an integer"
        case .real: return "a number"
        case .boolean: return "a boolean"
        case .text: return "text"
        case .localDate, .utcDate: return "a date"
        case .enumeration: return "an enumeration"
        case .bitmask: return "a bitmask"
        case .traits: return "a list of traits"
        case .location: return "a location"
        }
    }

    var isNumeric: Bool { masked || info.kind == .integer || info.kind == .real }
}

struct SQLCompiler {
    let source: String

    func fail(_ pos: Int, _ message: String) -> PredicateError { PredicateError(position: pos, message: message, source: source) }

    mutating func node(_ n: PredicateNode) throws(PredicateError) -> Fragment {
        switch n {
        case .and(let l, let r): return "(" + (try node(l)) + " AND " + (try node(r)) + ")"
        case .or(let l, let r): return "(" + (try node(l)) + " OR " + (try node(r)) + ")"
        case .not(let x): return "(NOT " + (try node(x)) + ")"
        case .constant(let b): return Fragment(b ? "1" : "0")
        case .comparison(let c): return try comparison(c)
        }
    }

    // MARK: - Operands

    func operand(_ e: Expr) throws(PredicateError) -> Operand? {
        switch e.kind {
        case .identifier(let name), .keyPath(let name):
            guard let info = PredicateCompiler.keyPaths[name] else { return nil }
            return Operand(name: name, info: info, sql: Fragment(info.column), pos: e.pos)
        case .bitAnd(let l, let r, let amp):
            let lo = try operand(l)
            let ro = try operand(r)
            guard let key = lo ?? ro else {
                throw fail(amp, "'&' needs a bitmask key path (mediaSubtypes, burstSelectionTypes) on one side")
            }
            guard key.info.kind == .bitmask, !key.masked else {
                throw fail(amp, "'&' applies to bitmask key paths (mediaSubtypes, burstSelectionTypes); \(key.name) is \(key.kindName)")
            }
            if lo != nil && ro != nil { throw fail(amp, "'&' needs a mask value on one side") }
            let maskExpr = lo == nil ? l : r
            let mask = try value(maskExpr, for: key)
            guard case .int = mask else { throw fail(maskExpr.pos, "the mask of '&' must be a subtype name or an integer") }
            var o = key
            o.sql = "(" + key.sql + " & " + Fragment.param(mask) + ")"
            o.masked = true
            o.maskOf = (key.sql, mask)
            return o
        case .castDate(let inner):
            _ = inner
            return nil
        default:
            return nil
        }
    }

    // MARK: - Values

    /// `e` as a value of `o`'s type (names resolved, dates normalised, `%@` arguments parsed).
    func value(_ e: Expr, for o: Operand) throws(PredicateError) -> PredicateValue {
        let info = o.info
        switch e.kind {
        case .null: return .null
        case .aggregate: throw fail(e.pos, "a list {…} is only allowed after IN or BETWEEN")
        case .bitAnd(_, _, let amp): throw fail(amp, "'&' is only allowed on a bitmask key path")
        case .keyPath(let n): throw fail(e.pos, "\(n) cannot be compared with \(o.name)")
        default: break
        }
        if o.masked {
            return try enumValue(e, o)
        }
        switch info.kind {
        case .integer, .real:
            switch e.kind {
            case .int(let v): return .int(v)
            case .double(let v): return .double(v)
            case .untyped(let s):
                if let v = Int64(s.trimmingSpaces) { return .int(v) }
                if let v = Double(s.trimmingSpaces), v.isFinite { return .double(v) }
                throw fail(e.pos, "\(o.name) is a number; the argument '\(s)' is not")
            case .identifier(let n): throw fail(e.pos, "unknown key path '\(n)'")
            case .string: throw fail(e.pos, "\(o.name) is a number; got a string (remove the quotes)")
            default: throw fail(e.pos, "\(o.name) is a number; expected a number")
            }
        case .boolean:
            switch e.kind {
            case .bool(let b): return .int(b ? 1 : 0)
            case .int(let v) where v == 0 || v == 1: return .int(v)
            case .untyped(let s):
                switch s.trimmingSpaces.uppercased() {
                case "YES", "TRUE", "1": return .int(1)
                case "NO", "FALSE", "0": return .int(0)
                default: throw fail(e.pos, "\(o.name) is a boolean; the argument '\(s)' is not YES or NO")
                }
            case .identifier(let n): throw fail(e.pos, "unknown key path '\(n)' (\(o.name) is a boolean: use YES or NO)")
            default: throw fail(e.pos, "\(o.name) is a boolean; expected YES or NO")
            }
        case .text:
            switch e.kind {
            case .string(let s), .untyped(let s): return .text(s)
            case .identifier(let n): throw fail(e.pos, "unknown key path '\(n)' (text values need quotes: \"\(n)\")")
            default: throw fail(e.pos, "\(o.name) is text; expected a quoted string")
            }
        case .localDate, .utcDate:
            let utc = info.kind == .utcDate
            switch e.kind {
            case .string(let s), .untyped(let s):
                guard let d = PredicateDate.normalise(s, utc: utc) else {
                    throw fail(e.pos, "'\(s)' is not a date (use ISO-8601: 2020-01-31, 2020-01-31T10:00:00, …)")
                }
                return .text(d)
            case .castDate(let inner):
                switch inner.kind {
                case .int(let v): return .text(PredicateDate.fromReference(Double(v)))
                case .double(let v): return .text(PredicateDate.fromReference(v))
                case .string(let s), .untyped(let s):
                    if let v = Double(s.trimmingSpaces), v.isFinite { return .text(PredicateDate.fromReference(v)) }
                    guard let d = PredicateDate.normalise(s, utc: utc) else {
                        throw fail(inner.pos, "'\(s)' is not a date (use ISO-8601 or seconds since 2001-01-01)")
                    }
                    return .text(d)
                default: throw fail(inner.pos, "CAST(…, \"NSDate\") needs a string or a number")
                }
            case .identifier(let n): throw fail(e.pos, "unknown key path '\(n)' (dates are quoted: \"2020-01-31\")")
            default: throw fail(e.pos, "\(o.name) is a date; expected an ISO-8601 string or CAST(…, \"NSDate\")")
            }
        case .enumeration, .bitmask:
            return try enumValue(e, o)
        case .traits:
            switch e.kind {
            case .identifier(let n):
                guard PredicateCompiler.knownTraits.contains(n) else {
                    throw fail(
                        e.pos,
                        "unknown trait '\(n)' (known: \(PredicateCompiler.knownTraits.joined(separator: ", ")); quote other names)")
                }
                return .text(n)
            case .string(let s), .untyped(let s):
                if s.contains(",") { throw fail(e.pos, "a trait name cannot contain ','") }
                return .text(s)
            default: throw fail(e.pos, "traits holds names; expected a trait name")
            }
        case .location:
            throw fail(e.pos, "location can only be compared with nil; use latitude, longitude or altitude")
        }
    }

    func enumValue(_ e: Expr, _ o: Operand) throws(PredicateError) -> PredicateValue {
        let names = o.info.constants
        func listed() -> String { names.sorted { $0.value < $1.value }.map(\.key).joined(separator: ", ") }
        switch e.kind {
        case .int(let v): return .int(v)
        case .identifier(let n), .string(let n):
            if let v = names[n] { return .int(v) }
            throw fail(e.pos, "unknown \(o.name) '\(n)' (expected one of \(listed()), or a number)")
        case .untyped(let s):
            if let v = names[s.trimmingSpaces] { return .int(v) }
            if let v = Int64(s.trimmingSpaces) { return .int(v) }
            throw fail(e.pos, "unknown \(o.name) '\(s)' (expected one of \(listed()), or a number)")
        default:
            throw fail(e.pos, "\(o.name) is \(o.kindName); expected one of \(listed()), or a number")
        }
    }

    // MARK: - Comparisons

    mutating func comparison(_ c: Comparison) throws(PredicateError) -> Fragment {
        let lo = try operand(c.lhs)
        let ro = try operand(c.rhs)
        if let lo, let ro {
            return try columns(c, lo, ro)
        }
        if c.op == .in, lo == nil, let ro {
            // `selfie IN traits`, `"IMG" IN filename`.
            switch ro.info.kind {
            case .traits: return try traitContains(c, ro, c.lhs)
            case .text where !ro.masked:
                var flipped = c
                flipped.op = .contains
                return try text(flipped, ro, c.lhs)
            default:
                throw fail(c.opPos, "IN with a key path on its right needs traits or a text key path; \(ro.name) is \(ro.kindName)")
            }
        }
        guard let o = lo ?? ro else {
            if case .identifier(let n) = c.lhs.kind { throw fail(c.lhs.pos, "unknown key path '\(n)'") }
            if case .identifier(let n) = c.rhs.kind { throw fail(c.rhs.pos, "unknown key path '\(n)'") }
            throw fail(c.lhs.pos, "a comparison needs a key path on one side")
        }
        let valueExpr = lo != nil ? c.rhs : c.lhs
        var op = c.op
        if lo == nil {
            guard !op.isStringOperator && op != .between && op != .in else {
                throw fail(c.lhs.pos, "\(op.rawValue) needs a key path on its left")
            }
            op = op.flipped
        }
        if c.caseInsensitive || c.diacriticInsensitive, o.info.kind != .text || o.masked {
            throw fail(c.modifierPos ?? c.opPos, "[c] and [d] apply to text key paths; \(o.name) is \(o.kindName)")
        }

        if op.isStringOperator {
            if case .null = valueExpr.kind { throw fail(valueExpr.pos, "\(op.rawValue) needs a value, not nil") }
            if case .aggregate = valueExpr.kind { throw fail(valueExpr.pos, "\(op.rawValue) needs a single value, not a list") }
            switch o.info.kind {
            case .text where !o.masked: return try text(c, o, valueExpr)
            case .traits where op == .contains: return try traitContains(c, o, valueExpr)
            case .bitmask where op == .contains && !o.masked:
                let bit = try value(valueExpr, for: o)
                return Self.bitTest(o.sql, Fragment.param(bit))
            default:
                let applies =
                    op == .contains ? "text key paths, traits and bitmasks (mediaSubtypes)" : "text key paths"
                throw fail(c.opPos, "\(op.rawValue) applies to \(applies); \(o.name) is \(o.kindName)")
            }
        }

        let lower = c.caseInsensitive
        let col = lower ? "lower(" + o.sql + ")" : o.sql
        func val(_ e: Expr) throws(PredicateError) -> PredicateValue {
            let v = try value(e, for: o)
            if lower, case .text(let s) = v { return .text(PredicateText.asciiLowercased(s)) }
            return v
        }

        switch op {
        case .between:
            guard case .aggregate(let items) = valueExpr.kind, items.count == 2 else {
                throw fail(valueExpr.pos, "BETWEEN needs a list of two values: {lower, upper}")
            }
            try allow(o, op, c.opPos, kinds: [.integer, .real, .text, .localDate, .utcDate])
            let a = try val(items[0])
            let b = try val(items[1])
            if a == .null || b == .null { throw fail(valueExpr.pos, "BETWEEN bounds cannot be nil") }
            return guarded(o, col + " BETWEEN " + Fragment.param(a) + " AND " + Fragment.param(b))
        case .in:
            guard case .aggregate(let items) = valueExpr.kind else {
                throw fail(valueExpr.pos, "IN needs a list on its right: {a, b, …}")
            }
            try allow(o, op, c.opPos, kinds: [.integer, .real, .text, .localDate, .utcDate, .enumeration, .bitmask, .boolean])
            if items.isEmpty { return Fragment("0") }
            var list = Fragment("")
            for (k, item) in items.enumerated() {
                let v = try val(item)
                if v == .null { throw fail(item.pos, "IN lists cannot hold nil") }
                list = list + (k == 0 ? "" : ", ") + Fragment.param(v)
            }
            return guarded(o, col + " IN (" + list + ")")
        default:
            break
        }
        // == != < <= > >=
        if case .aggregate = valueExpr.kind { throw fail(valueExpr.pos, "a list {…} is only allowed after IN or BETWEEN") }
        if case .null = valueExpr.kind {
            guard op == .eq || op == .ne else { throw fail(c.opPos, "nil can only be compared with == or !=") }
            return o.sql + (op == .eq ? " IS NULL" : " IS NOT NULL")
        }
        if op.isOrdering {
            try allow(o, op, c.opPos, kinds: [.integer, .real, .text, .localDate, .utcDate])
        } else if o.info.kind == .location && !o.masked {
            throw fail(valueExpr.pos, "location can only be compared with nil; use latitude, longitude or altitude")
        }
        if o.info.kind == .traits && !o.masked {
            // The stored comma list as text: `traits == ""` finds assets without traits.
            guard case .string(let s) = valueExpr.kind else {
                throw fail(valueExpr.pos, "compare traits with a quoted list (\"selfie,raw\") or use traits CONTAINS name")
            }
            return o.sql + (op == .eq ? " = " : " != ") + Fragment.param(.text(s))
        }
        let v = try val(valueExpr)
        // `(mediaSubtypes & m) != 0` / `== 0`: the same index seek as CONTAINS (NOT NULL column, so the
        // meaning is the same under NOT too).
        if let (column, mask) = o.maskOf, v == .int(0), op == .eq || op == .ne, column.sql == "a.media_subtypes" {
            return Self.bitTest(column, Fragment.param(mask), set: op == .ne)
        }
        if op == .ne {
            return col + (o.info.nullable ? " IS NOT " : " != ") + Fragment.param(v)
        }
        return guarded(o, col + " " + op.rawValue.replacingOccurrences(of: "==", with: "=") + " " + Fragment.param(v))
    }

    /// Ordering and ranges only for kinds that have an order (masked bitmasks are numbers).
    func allow(_ o: Operand, _ op: ComparisonOperator, _ pos: Int, kinds: Set<KeyPathInfo.Kind>) throws(PredicateError) {
        if o.masked || kinds.contains(o.info.kind) { return }
        switch o.info.kind {
        case .boolean: throw fail(pos, "\(o.name) is a boolean: only == and != apply")
        case .enumeration: throw fail(pos, "\(o.name) is an enumeration: only ==, != and IN apply")
        case .bitmask:
            throw fail(pos, "\(o.name) is a bitmask: use CONTAINS name, (\(o.name) & mask) != 0, == or !=")
        default: throw fail(pos, "\(op.rawValue) does not apply to \(o.name) (\(o.kindName))")
        }
    }

    /// A comparison on a nullable column never yields NULL, so NOT keeps NSPredicate's meaning
    /// (`NOT (make == "Apple")` includes assets without a make).
    func guarded(_ o: Operand, _ cmp: Fragment) -> Fragment {
        guard o.info.nullable else { return cmp }
        return "(" + o.sql + " IS NOT NULL AND " + cmp + ")"
    }

    mutating func text(_ c: Comparison, _ o: Operand, _ e: Expr) throws(PredicateError) -> Fragment {
        guard case .text(let s) = try value(e, for: o) else {
            throw fail(e.pos, "\(c.op.rawValue) needs a string")
        }
        if c.caseInsensitive {
            // SQLite's LIKE folds ASCII letters only, as lower() does.
            let body = PredicateText.asciiLowercased(s)
            let pattern: String
            switch c.op {
            case .contains: pattern = "%" + PredicateText.likeEscaped(body) + "%"
            case .beginsWith: pattern = PredicateText.likeEscaped(body) + "%"
            case .endsWith: pattern = "%" + PredicateText.likeEscaped(body)
            default: pattern = PredicateText.likePattern(body)
            }
            return guarded(o, "lower(" + o.sql + ") LIKE " + Fragment.param(.text(pattern)) + " ESCAPE '\\'")
        }
        // GLOB is case-sensitive, as NSPredicate's operators are without [c].
        let pattern: String
        switch c.op {
        case .contains: pattern = "*" + PredicateText.globEscaped(s) + "*"
        case .beginsWith: pattern = PredicateText.globEscaped(s) + "*"
        case .endsWith: pattern = "*" + PredicateText.globEscaped(s)
        default: pattern = PredicateText.globPattern(s)
        }
        return guarded(o, o.sql + " GLOB " + Fragment.param(.text(pattern)))
    }

    func traitContains(_ c: Comparison, _ o: Operand, _ e: Expr) throws(PredicateError) -> Fragment {
        if c.caseInsensitive || c.diacriticInsensitive {
            throw fail(c.modifierPos ?? c.opPos, "[c] and [d] apply to text key paths; traits holds names")
        }
        if case .null = e.kind { throw fail(e.pos, "\(c.op.rawValue) needs a trait name, not nil") }
        guard case .text(let name) = try value(e, for: o) else { throw fail(e.pos, "expected a trait name") }
        // Exact, case-sensitive membership in the comma list; no wildcard can leak in.
        return "instr(',' || " + o.sql + " || ',', " + Fragment.param(.text("," + name + ",")) + ") > 0"
    }

    /// `pixelWidth > pixelHeight`.
    func columns(_ c: Comparison, _ l: Operand, _ r: Operand) throws(PredicateError) -> Fragment {
        guard [.eq, .ne, .lt, .le, .gt, .ge].contains(c.op) else {
            throw fail(c.opPos, "\(c.op.rawValue) needs a value on its right, not the key path \(r.name)")
        }
        let compatible =
            (l.isNumeric && r.isNumeric) || (!l.masked && !r.masked && l.info.kind == r.info.kind && l.info.constants == r.info.constants)
        guard compatible else { throw fail(c.rhs.pos, "\(l.name) (\(l.kindName)) cannot be compared with \(r.name) (\(r.kindName))") }
        if c.op.isOrdering { try allow(l, c.op, c.opPos, kinds: [.integer, .real, .text, .localDate, .utcDate]) }
        if [.location, .traits].contains(l.info.kind) && !l.masked {
            throw fail(c.opPos, "\(l.name) cannot be compared with another key path")
        }
        if c.caseInsensitive || c.diacriticInsensitive, l.info.kind != .text || l.masked {
            throw fail(c.modifierPos ?? c.opPos, "[c] and [d] apply to text key paths; \(l.name) is \(l.kindName)")
        }
        let ls = c.caseInsensitive ? "lower(" + l.sql + ")" : l.sql
        let rs = c.caseInsensitive ? "lower(" + r.sql + ")" : r.sql
        if c.op == .ne { return "(" + ls + " IS NOT " + rs + ")" }
        var cmp = ls + " " + c.op.rawValue.replacingOccurrences(of: "==", with: "=") + " " + rs
        if r.info.nullable { cmp = "(" + r.sql + " IS NOT NULL AND " + cmp + ")" }
        return guarded(l, cmp)
    }
}

/// Text helpers: pattern translation for GLOB (case-sensitive) and LIKE (with [c]).
enum PredicateText {
    static func asciiLowercased(_ s: String) -> String {
        String(decoding: s.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// Literal text inside a GLOB pattern: `*`, `?` and `[` become one-character sets.
    static func globEscaped(_ s: String) -> String {
        var out = ""
        for ch in s {
            switch ch {
            case "*": out += "[*]"
            case "?": out += "[?]"
            case "[": out += "[[]"
            default: out.append(ch)
            }
        }
        return out
    }

    /// NSPredicate LIKE (`*` any run, `?` one character, `\*` `\?` `\\` literal) as a GLOB pattern.
    static func globPattern(_ s: String) -> String {
        var out = ""
        var escaped = false
        for ch in s {
            if escaped {
                out += globEscaped(String(ch))
                escaped = false
            } else if ch == "\\" {
                escaped = true
            } else if ch == "*" || ch == "?" {
                out.append(ch)
            } else {
                out += globEscaped(String(ch))
            }
        }
        if escaped { out += "\\" }
        return out
    }

    /// Literal text inside a LIKE … ESCAPE '\' pattern.
    static func likeEscaped(_ s: String) -> String {
        var out = ""
        for ch in s {
            if ch == "%" || ch == "_" || ch == "\\" { out.append("\\") }
            out.append(ch)
        }
        return out
    }

    /// NSPredicate LIKE as a SQL LIKE pattern (ESCAPE '\').
    static func likePattern(_ s: String) -> String {
        var out = ""
        var escaped = false
        for ch in s {
            if escaped {
                out += likeEscaped(String(ch))
                escaped = false
            } else if ch == "\\" {
                escaped = true
            } else if ch == "*" {
                out += "%"
            } else if ch == "?" {
                out += "_"
            } else {
                out += likeEscaped(String(ch))
            }
        }
        if escaped { out += "\\\\" }
        return out
    }
}

/// Date constants, normalised to the text the catalog stores so that text comparison orders them.
enum PredicateDate {
    /// `2020-01-31`, `2020-01-31T10:00`, `2020-01-31 10:00:00.5`, each optionally with `Z` or `±HH:MM`.
    /// Local dates keep the wall clock (an offset is ignored); UTC dates are shifted to UTC (no offset: UTC).
    /// The result is `YYYY-MM-DDTHH:MM:SS[.fff…]`.
    static func normalise(_ raw: String, utc: Bool) -> String? {
        let b = Array(raw.trimmingSpaces.utf8)
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 0x30 && c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            i += n
            return v
        }
        func take(_ c: Character) -> Bool {
            if i < b.count && b[i] == c.asciiValue! {
                i += 1
                return true
            }
            return false
        }
        guard let y = digits(4), take("-"), let mo = digits(2), take("-"), let d = digits(2) else { return nil }
        var h = 0, mi = 0, s = 0
        var fraction = ""
        if take("T") || take("t") || take(" ") {
            guard let hh = digits(2), take(":"), let mm = digits(2) else { return nil }
            h = hh
            mi = mm
            if take(":") {
                guard let ss = digits(2) else { return nil }
                s = ss
                if take(".") || take(",") {
                    while i < b.count, b[i] >= 0x30 && b[i] <= 0x39 {
                        fraction.append(Character(UnicodeScalar(b[i])))
                        i += 1
                    }
                    if fraction.isEmpty { return nil }
                }
            }
        }
        var offset = 0
        if take("Z") || take("z") {
        } else if i < b.count && (b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-")) {
            let negative = b[i] == UInt8(ascii: "-")
            i += 1
            guard let oh = digits(2) else { return nil }
            _ = take(":")
            let om = digits(2) ?? 0
            guard oh <= 23, om <= 59 else { return nil }
            offset = (oh * 3600 + om * 60) * (negative ? -1 : 1)
        }
        guard i == b.count else { return nil }
        guard (1...12).contains(mo), d >= 1, d <= daysIn(y, mo), h <= 23, mi <= 59, s <= 60 else { return nil }
        var total = daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s
        if utc { total -= offset }
        return format(total) + (fraction.isEmpty ? "" : "." + fraction)
    }

    /// `CAST(seconds, "NSDate")`: seconds since 2001-01-01T00:00:00Z, as UTC wall clock.
    static func fromReference(_ seconds: Double) -> String {
        let whole = seconds.rounded(.down)
        let ms = Int(((seconds - whole) * 1000).rounded())
        let base = daysFromCivil(2001, 1, 1) * 86400 + Int(whole) + (ms == 1000 ? 1 : 0)
        let frac = ms % 1000
        let f = String(frac)
        return format(base) + (frac == 0 ? "" : "." + String(repeating: "0", count: 3 - f.count) + f)
    }

    static func format(_ total: Int) -> String {
        let days = Int((Double(total) / 86400).rounded(.down))
        let rest = total - days * 86400
        let (y, m, d) = civilFromDays(days)
        func two(_ v: Int) -> String { v < 10 ? "0" + String(v) : String(v) }
        var year = String(y)
        while year.count < 4 { year = "0" + year }
        return "\(year)-\(two(m))-\(two(d))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))"
    }

    static func daysIn(_ y: Int, _ m: Int) -> Int {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}

extension SQLCompiler {
    /// `(column & bit) != 0`. On `a.media_subtypes` it is written so that SQLite can seek the
    /// `asset_subtypes` index (schema v8) instead of testing every row: the distinct values present are
    /// walked with one index seek each (a recursive loose index scan), those with the bit set are kept, and
    /// the column is looked up `IN` them. At a million assets a subtype count goes from a table scan to a
    /// few hundred microseconds per distinct value.
    /// With `set: false`, `(column & bit) = 0`, written the same way.
    static func bitTest(_ column: Fragment, _ bit: Fragment, set: Bool = true) -> Fragment {
        let test = set ? ") != 0" : ") = 0"
        guard column.sql == "a.media_subtypes" else { return "(" + column + " & " + bit + test }
        let values: String =
            "WITH RECURSIVE v(x) AS (SELECT min(media_subtypes) FROM asset UNION ALL"
            + " SELECT (SELECT min(media_subtypes) FROM asset WHERE media_subtypes > v.x) FROM v WHERE v.x IS NOT NULL)"
        return "a.media_subtypes IN (" + values + " SELECT x FROM v WHERE (x & " + bit + test + ")"
    }
}
