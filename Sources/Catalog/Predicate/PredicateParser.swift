/// Tokens and the recursive-descent parser of the predicate language (see docs/predicates.md).

enum Keyword: String, CaseIterable {
    case and = "AND", or = "OR", not = "NOT", between = "BETWEEN", `in` = "IN"
    case contains = "CONTAINS", beginsWith = "BEGINSWITH", endsWith = "ENDSWITH", like = "LIKE", matches = "MATCHES"
    case any = "ANY", all = "ALL", none = "NONE", some = "SOME"
    case truePredicate = "TRUEPREDICATE", falsePredicate = "FALSEPREDICATE"
    case yes = "YES", no = "NO", `true` = "TRUE", `false` = "FALSE", `nil` = "NIL", null = "NULL", cast = "CAST"

    static let byName: [String: Keyword] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
}

struct Token {
    enum Kind: Equatable {
        case identifier(String)
        case keyword(Keyword)
        case string(String)
        case int(Int64)
        case double(Double)
        /// Normalised: `=` is `==`, `<>` is `!=`, `=<` is `<=`, `=>` is `>=`.
        case punct(String)
        /// `@`, `K`, `d` (integers) or `f` (reals).
        case substitution(Character)
        case end
    }
    var kind: Kind
    var pos: Int
    var end: Int
}

struct Lexer {
    let bytes: [UInt8]
    let source: String

    init(_ source: String) {
        self.source = source
        bytes = Array(source.utf8)
    }

    func fail(_ pos: Int, _ message: String) -> PredicateError { PredicateError(position: pos, message: message, source: source) }

    func text(_ a: Int, _ b: Int) -> String { String(decoding: bytes[a..<b], as: UTF8.self) }

    static func isIdentStart(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "_")
    }
    static func isIdentPart(_ c: UInt8) -> Bool { isIdentStart(c) || isDigit(c) }
    static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    func tokens() throws(PredicateError) -> [Token] {
        var out: [Token] = []
        var i = 0
        let n = bytes.count
        func at(_ k: Int) -> UInt8 { k < n ? bytes[k] : 0 }
        while i < n {
            let c = bytes[i]
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D {
                i += 1
                continue
            }
            let start = i
            if Self.isIdentStart(c) {
                // A key path: identifiers joined by dots.
                while i < n && (Self.isIdentPart(bytes[i]) || (bytes[i] == UInt8(ascii: ".") && Self.isIdentStart(at(i + 1)))) { i += 1 }
                let word = text(start, i)
                if !word.contains("."), let k = Keyword.byName[word.uppercased()] {
                    out.append(Token(kind: .keyword(k), pos: start, end: i))
                } else {
                    if at(i) == UInt8(ascii: ".") && at(i + 1) == UInt8(ascii: "@") {
                        throw fail(i + 1, "collection operators (@count, @sum, …) are not supported")
                    }
                    out.append(Token(kind: .identifier(word), pos: start, end: i))
                }
                continue
            }
            if Self.isDigit(c) {
                out.append(try number(&i))
                continue
            }
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                out.append(try string(&i))
                continue
            case UInt8(ascii: "%"):
                i += 1
                var spec = ""
                while i < n && (bytes[i] == UInt8(ascii: "l") || bytes[i] == UInt8(ascii: "h") || bytes[i] == UInt8(ascii: "q")) {
                    spec.append(Character(UnicodeScalar(bytes[i])))
                    i += 1
                }
                let conv = at(i)
                i += 1
                let kind: Character
                switch conv {
                case UInt8(ascii: "@") where spec.isEmpty: kind = "@"
                case UInt8(ascii: "K") where spec.isEmpty: kind = "K"
                case UInt8(ascii: "d"), UInt8(ascii: "i"), UInt8(ascii: "u"): kind = "d"
                case UInt8(ascii: "f"), UInt8(ascii: "g"), UInt8(ascii: "e"): kind = "f"
                default:
                    throw fail(start, "unsupported format specifier '\(text(start, min(i, n)))' (use %@, %d, %f or %K)")
                }
                out.append(Token(kind: .substitution(kind), pos: start, end: i))
                continue
            case UInt8(ascii: "$"):
                i += 1
                while i < n && Self.isIdentPart(bytes[i]) { i += 1 }
                throw fail(start, "variables such as '\(text(start, i))' are not supported; use %@ and --arg")
            default:
                break
            }
            let two = text(start, min(start + 2, n))
            let twoMap: [String: String] = [
                "==": "==", "!=": "!=", "<>": "!=", "<=": "<=", "=<": "<=", ">=": ">=", "=>": ">=", "&&": "&&", "||": "||",
            ]
            if let p = twoMap[two] {
                i += 2
                out.append(Token(kind: .punct(p), pos: start, end: i))
                continue
            }
            let oneMap: [UInt8: String] = [
                UInt8(ascii: "="): "==", UInt8(ascii: "<"): "<", UInt8(ascii: ">"): ">", UInt8(ascii: "!"): "!",
                UInt8(ascii: "&"): "&", UInt8(ascii: "("): "(", UInt8(ascii: ")"): ")", UInt8(ascii: "{"): "{",
                UInt8(ascii: "}"): "}", UInt8(ascii: ","): ",", UInt8(ascii: "["): "[", UInt8(ascii: "]"): "]",
                UInt8(ascii: "-"): "-",
            ]
            if let p = oneMap[c] {
                i += 1
                out.append(Token(kind: .punct(p), pos: start, end: i))
                continue
            }
            if c == UInt8(ascii: "|") { throw fail(start, "unexpected '|' (OR is written || or OR)") }
            // One whole character, even a multi-byte one.
            var e = i + 1
            while e < n && bytes[e] & 0xC0 == 0x80 { e += 1 }
            throw fail(start, "unexpected character '\(text(start, e))'")
        }
        out.append(Token(kind: .end, pos: n, end: n))
        return out
    }

    func number(_ i: inout Int) throws(PredicateError) -> Token {
        let start = i
        let n = bytes.count
        if bytes[i] == UInt8(ascii: "0"), i + 1 < n, bytes[i + 1] == UInt8(ascii: "x") || bytes[i + 1] == UInt8(ascii: "X") {
            i += 2
            while i < n && (Self.isIdentPart(bytes[i])) { i += 1 }
            guard let v = Int64(text(start + 2, i), radix: 16) else { throw fail(start, "bad hexadecimal number '\(text(start, i))'") }
            return Token(kind: .int(v), pos: start, end: i)
        }
        var isReal = false
        while i < n && Self.isDigit(bytes[i]) { i += 1 }
        if i + 1 < n && bytes[i] == UInt8(ascii: ".") && Self.isDigit(bytes[i + 1]) {
            isReal = true
            i += 1
            while i < n && Self.isDigit(bytes[i]) { i += 1 }
        }
        if i < n && (bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")) {
            var j = i + 1
            if j < n && (bytes[j] == UInt8(ascii: "+") || bytes[j] == UInt8(ascii: "-")) { j += 1 }
            if j < n && Self.isDigit(bytes[j]) {
                isReal = true
                i = j
                while i < n && Self.isDigit(bytes[i]) { i += 1 }
            }
        }
        if i < n && Self.isIdentPart(bytes[i]) {
            while i < n && Self.isIdentPart(bytes[i]) { i += 1 }
            throw fail(start, "bad number '\(text(start, i))'")
        }
        let t = text(start, i)
        if isReal {
            guard let v = Double(t), v.isFinite else { throw fail(start, "bad number '\(t)'") }
            return Token(kind: .double(v), pos: start, end: i)
        }
        guard let v = Int64(t) else { throw fail(start, "number '\(t)' is out of range") }
        return Token(kind: .int(v), pos: start, end: i)
    }

    func string(_ i: inout Int) throws(PredicateError) -> Token {
        let start = i
        let quote = bytes[i]
        let n = bytes.count
        var out: [UInt8] = []
        i += 1
        while true {
            guard i < n else { throw fail(start, "unterminated string") }
            let c = bytes[i]
            if c == quote {
                i += 1
                break
            }
            if c == UInt8(ascii: "\\") {
                guard i + 1 < n else { throw fail(start, "unterminated string") }
                let e = bytes[i + 1]
                switch e {
                case UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "'"): out.append(e)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "0"): out.append(0x00)
                // Kept as written: LIKE patterns use \* and \? for literal wildcards.
                case UInt8(ascii: "*"), UInt8(ascii: "?"): out.append(contentsOf: [c, e])
                case UInt8(ascii: "u"):
                    let hex = i + 6 <= n ? text(i + 2, i + 6) : ""
                    guard hex.count == 4, let v = UInt32(hex, radix: 16), let scalar = UnicodeScalar(v) else {
                        throw fail(i, "bad \\u escape: expected four hexadecimal digits")
                    }
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                    i += 6
                    continue
                default:
                    var e2 = i + 2
                    while e2 < n && bytes[e2] & 0xC0 == 0x80 { e2 += 1 }
                    throw fail(i, "unknown escape '\(text(i, e2))' in string")
                }
                i += 2
                continue
            }
            out.append(c)
            i += 1
        }
        return Token(kind: .string(String(decoding: out, as: UTF8.self)), pos: start, end: i)
    }
}

// MARK: - Syntax tree

indirect enum PredicateNode {
    case and(PredicateNode, PredicateNode)
    case or(PredicateNode, PredicateNode)
    case not(PredicateNode)
    case constant(Bool)
    case comparison(Comparison)
}

enum ComparisonOperator: String {
    case eq = "==", ne = "!=", lt = "<", le = "<=", gt = ">", ge = ">="
    case between = "BETWEEN", `in` = "IN", contains = "CONTAINS", beginsWith = "BEGINSWITH", endsWith = "ENDSWITH", like = "LIKE"

    var isStringOperator: Bool { self == .contains || self == .beginsWith || self == .endsWith || self == .like }
    var isOrdering: Bool { self == .lt || self == .le || self == .gt || self == .ge }

    var flipped: ComparisonOperator {
        switch self {
        case .lt: return .gt
        case .le: return .ge
        case .gt: return .lt
        case .ge: return .le
        default: return self
        }
    }
}

struct Comparison {
    var lhs: Expr
    var op: ComparisonOperator
    var opPos: Int
    var caseInsensitive = false
    var diacriticInsensitive = false
    var modifierPos: Int?
    var rhs: Expr
}

struct Expr {
    indirect enum Kind {
        /// A bare name: a key path, or a constant (`image`, `photoLive`, `selfie`) when it is not one.
        case identifier(String)
        /// A key path from `%K` (already checked).
        case keyPath(String)
        case string(String)
        case int(Int64)
        case double(Double)
        case bool(Bool)
        case null
        /// A `%@` argument: typed by the key path it is compared with.
        case untyped(String)
        case aggregate([Expr])
        case bitAnd(Expr, Expr, ampPos: Int)
        /// `CAST(value, "NSDate")`.
        case castDate(Expr)
    }
    var kind: Kind
    var pos: Int
}

struct Parser {
    let tokens: [Token]
    let source: String
    let arguments: [String]
    var i = 0
    var argIndex = 0
    /// Open parentheses, braces and NOTs around the current token.
    var depth = 0
    /// Deepest nesting accepted: recursion is bounded whatever the input (FuzzPredicate found 700 '('
    /// overflowing the stack).
    static let maxDepth = 100

    init(tokens: [Token], source: String, arguments: [String]) {
        self.tokens = tokens
        self.source = source
        self.arguments = arguments
    }

    var tok: Token { tokens[i] }
    var next: Token { tokens[min(i + 1, tokens.count - 1)] }

    func fail(_ pos: Int, _ message: String) -> PredicateError { PredicateError(position: pos, message: message, source: source) }

    func describe(_ t: Token) -> String {
        if case .end = t.kind { return "the end of the predicate" }
        let b = Array(source.utf8)
        return "'" + String(decoding: b[t.pos..<t.end], as: UTF8.self) + "'"
    }

    func isPunct(_ p: String) -> Bool { tok.kind == .punct(p) }
    func isKeyword(_ k: Keyword) -> Bool { tok.kind == .keyword(k) }

    /// Enters one level of nesting at the current token, or fails past `maxDepth`.
    mutating func enter() throws(PredicateError) {
        guard depth < Self.maxDepth else { throw fail(tok.pos, "nesting deeper than \(Self.maxDepth) levels") }
        depth += 1
    }

    mutating func expect(_ p: String) throws(PredicateError) {
        guard isPunct(p) else { throw fail(tok.pos, "expected '\(p)', found \(describe(tok))") }
        i += 1
    }

    mutating func parse() throws(PredicateError) -> PredicateNode {
        let node = try parseOr()
        guard case .end = tok.kind else { throw fail(tok.pos, "unexpected \(describe(tok)) after a complete predicate") }
        if argIndex < arguments.count {
            throw fail(
                tok.pos,
                "\(arguments.count) argument\(arguments.count == 1 ? "" : "s") given but the predicate uses \(argIndex)")
        }
        return node
    }

    mutating func parseOr() throws(PredicateError) -> PredicateNode {
        var node = try parseAnd()
        while isKeyword(.or) || isPunct("||") {
            i += 1
            node = .or(node, try parseAnd())
        }
        return node
    }

    mutating func parseAnd() throws(PredicateError) -> PredicateNode {
        var node = try parseNot()
        while isKeyword(.and) || isPunct("&&") {
            i += 1
            node = .and(node, try parseNot())
        }
        return node
    }

    mutating func parseNot() throws(PredicateError) -> PredicateNode {
        if isKeyword(.not) || isPunct("!") {
            try enter()
            defer { depth -= 1 }
            i += 1
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    mutating func parsePrimary() throws(PredicateError) -> PredicateNode {
        switch tok.kind {
        case .keyword(.truePredicate):
            i += 1
            return .constant(true)
        case .keyword(.falsePredicate):
            i += 1
            return .constant(false)
        case .keyword(let k) where [.any, .all, .none, .some].contains(k):
            if case .identifier = next.kind { throw aggregateFail(k) }
            if case .substitution("K") = next.kind { throw aggregateFail(k) }
            return try parseComparison()
        case .punct("("):
            // A parenthesised predicate, or an expression such as `(mediaSubtypes & 8) != 0`: try the
            // first, fall back to the second, and report the error that got further.
            try enter()
            defer { depth -= 1 }
            let (si, sa) = (i, argIndex)
            var first: PredicateError
            do {
                i += 1
                let node = try parseOr()
                try expect(")")
                if !startsOperator() { return node }
                first = fail(tok.pos, "expected AND, OR or ')' after a parenthesised predicate")
            } catch { first = error }
            (i, argIndex) = (si, sa)
            do { return try parseComparison() } catch {
                if first.position > error.position { throw first }
                throw error
            }
        default:
            return try parseComparison()
        }
    }

    func aggregateFail(_ k: Keyword) -> PredicateError {
        fail(tok.pos, "\(k.rawValue) is not supported: key paths are single values (for traits use 'traits CONTAINS name')")
    }

    func startsOperator() -> Bool {
        switch tok.kind {
        case .punct(let p): return ["==", "!=", "<", "<=", ">", ">=", "&"].contains(p)
        case .keyword(let k): return [.between, .in, .contains, .beginsWith, .endsWith, .like, .matches].contains(k)
        default: return false
        }
    }

    mutating func parseComparison() throws(PredicateError) -> PredicateNode {
        let lhs = try parseExpr()
        let opTok = tok
        let op: ComparisonOperator
        switch opTok.kind {
        case .punct(let p) where ComparisonOperator(rawValue: p) != nil: op = ComparisonOperator(rawValue: p)!
        case .keyword(.between): op = .between
        case .keyword(.in): op = .in
        case .keyword(.contains): op = .contains
        case .keyword(.beginsWith): op = .beginsWith
        case .keyword(.endsWith): op = .endsWith
        case .keyword(.like): op = .like
        case .keyword(.matches): throw fail(opTok.pos, "MATCHES (regular expressions) is not supported; use LIKE with * and ?")
        default:
            throw fail(
                opTok.pos,
                "expected an operator (==, !=, <, <=, >, >=, BETWEEN, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE), found \(describe(opTok))")
        }
        i += 1
        var c = Comparison(lhs: lhs, op: op, opPos: opTok.pos, rhs: lhs)
        if isPunct("[") {
            c.modifierPos = tok.pos
            i += 1
            guard case .identifier(let flags) = tok.kind else {
                throw fail(tok.pos, "expected modifier letters c and/or d inside [ ]")
            }
            for (k, ch) in flags.lowercased().enumerated() {
                switch ch {
                case "c": c.caseInsensitive = true
                case "d": c.diacriticInsensitive = true
                default: throw fail(tok.pos + k, "unknown modifier '\(ch)' (use [c], [d] or [cd])")
                }
            }
            i += 1
            try expect("]")
        }
        c.rhs = try parseExpr()
        return .comparison(c)
    }

    mutating func parseExpr() throws(PredicateError) -> Expr {
        var e = try parseUnary()
        while isPunct("&") {
            let amp = tok.pos
            i += 1
            let r = try parseUnary()
            e = Expr(kind: .bitAnd(e, r, ampPos: amp), pos: e.pos)
        }
        return e
    }

    mutating func parseUnary() throws(PredicateError) -> Expr {
        guard isPunct("-") else { return try parseAtom() }
        let pos = tok.pos
        i += 1
        switch tok.kind {
        case .int(let v):
            i += 1
            return Expr(kind: .int(-v), pos: pos)
        case .double(let v):
            i += 1
            return Expr(kind: .double(-v), pos: pos)
        default:
            throw fail(tok.pos, "expected a number after '-', found \(describe(tok))")
        }
    }

    mutating func nextArgument(_ t: Token) throws(PredicateError) -> String {
        guard argIndex < arguments.count else {
            throw fail(
                t.pos,
                "missing argument \(argIndex + 1) for \(describe(t)): \(arguments.count) argument\(arguments.count == 1 ? "" : "s") given")
        }
        argIndex += 1
        return arguments[argIndex - 1]
    }

    mutating func parseAtom() throws(PredicateError) -> Expr {
        let t = tok
        let pos = t.pos
        switch t.kind {
        case .identifier(let name):
            i += 1
            return Expr(kind: .identifier(name), pos: pos)
        case .string(let s):
            i += 1
            return Expr(kind: .string(s), pos: pos)
        case .int(let v):
            i += 1
            return Expr(kind: .int(v), pos: pos)
        case .double(let v):
            i += 1
            return Expr(kind: .double(v), pos: pos)
        case .keyword(.yes), .keyword(.true):
            i += 1
            return Expr(kind: .bool(true), pos: pos)
        case .keyword(.no), .keyword(.false):
            i += 1
            return Expr(kind: .bool(false), pos: pos)
        case .keyword(.nil), .keyword(.null):
            i += 1
            return Expr(kind: .null, pos: pos)
        case .keyword(let k) where [.any, .all, .none, .some].contains(k):
            // `playbackVariation == none`: the keyword as a name.
            if case .identifier = next.kind { throw aggregateFail(k) }
            i += 1
            let b = Array(source.utf8)
            return Expr(kind: .identifier(String(decoding: b[t.pos..<t.end], as: UTF8.self)), pos: pos)
        case .substitution(let s):
            let arg = try nextArgument(t)
            i += 1
            switch s {
            case "K":
                guard PredicateCompiler.keyPaths[arg] != nil else {
                    throw fail(pos, "unknown key path '\(arg)' for %K (argument \(argIndex))")
                }
                return Expr(kind: .keyPath(arg), pos: pos)
            case "d":
                guard let v = Int64(arg.trimmingSpaces) else {
                    throw fail(pos, "argument \(argIndex) for %d is not an integer: '\(arg)'")
                }
                return Expr(kind: .int(v), pos: pos)
            case "f":
                guard let v = Double(arg.trimmingSpaces), v.isFinite else {
                    throw fail(pos, "argument \(argIndex) for %f is not a number: '\(arg)'")
                }
                return Expr(kind: .double(v), pos: pos)
            default:
                return Expr(kind: .untyped(arg), pos: pos)
            }
        case .punct("{"):
            try enter()
            defer { depth -= 1 }
            i += 1
            var items: [Expr] = []
            if !isPunct("}") {
                items.append(try parseExpr())
                while isPunct(",") {
                    i += 1
                    items.append(try parseExpr())
                }
            }
            try expect("}")
            return Expr(kind: .aggregate(items), pos: pos)
        case .punct("("):
            try enter()
            defer { depth -= 1 }
            i += 1
            let e = try parseExpr()
            try expect(")")
            return e
        case .keyword(.cast):
            try enter()
            defer { depth -= 1 }
            i += 1
            try expect("(")
            let value = try parseExpr()
            try expect(",")
            guard case .string(let type) = tok.kind else { throw fail(tok.pos, "expected a type name such as \"NSDate\"") }
            guard type == "NSDate" else { throw fail(tok.pos, "only CAST(…, \"NSDate\") is supported") }
            i += 1
            try expect(")")
            return Expr(kind: .castDate(value), pos: pos)
        case .end:
            throw fail(pos, "unexpected end of the predicate: expected a key path or a value")
        default:
            throw fail(pos, "expected a key path or a value, found \(describe(t))")
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
