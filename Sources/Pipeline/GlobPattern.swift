/// A shell-style path pattern, matched against paths relative to a crawl root.
///
/// Syntax (one path component is the text between two `/`):
///
/// | Pattern      | Matches                                                                    |
/// |--------------|----------------------------------------------------------------------------|
/// | `*`          | any run of characters within one component (also a leading `.`)           |
/// | `?`          | exactly one character, never `/`                                           |
/// | `[abc]`      | one of `a`, `b`, `c`; `[a-z]` a range; `[!x]` or `[^x]` anything but `x`   |
/// | `**`         | zero or more whole components; must stand alone between slashes            |
/// | `\x`         | the character `x` literally (`\*`, `\?`, `\[`)                            |
///
/// - A pattern **without** `/` matches the *name* (last component) of a path at any depth:
///   `*.tmp` is the same as `**/*.tmp`.
/// - A pattern **with** `/` matches the whole path relative to the root; a leading `/` is allowed
///   and changes nothing (`/Import/*.jpg` = `Import/*.jpg`).
/// - A trailing `/` restricts the pattern to directories: `cache/` matches a folder named `cache`.
/// - `**` matches zero components too, so `**/@eaDir/**` matches the folder `a/@eaDir` itself — which
///   is what lets the crawler skip that folder without entering it.
/// - Matching is case-sensitive, except for a literal file extension that ends the pattern: `*.heic`
///   matches `IMG_1.HEIC` and `IMG_1.heic` (but `img_1.heic` does not match `IMG_1.heic`). Prefix the
///   pattern with `(?i)` (or pass `caseInsensitive: true`) to ignore case everywhere: `(?i)IMG_*`.
/// - Characters are compared as Swift `Character`s, so NFC and NFD spellings of a name match.
public struct GlobPattern: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The pattern as written (including any `(?i)` prefix).
    public let pattern: String
    public let caseInsensitive: Bool
    /// True when the pattern contains `/` and is matched against the whole relative path.
    public let isAnchored: Bool
    /// True when the pattern ended with `/`: it matches directories only.
    public let directoryOnly: Bool

    private let components: [Component]
    /// Characters of the literal extension that ends the pattern (`heic` in `*.heic`, folded to lower
    /// case); 0 when there is none. The same many last characters of a name are folded before matching.
    private let extensionLength: Int

    public var description: String { pattern }

    /// A malformed pattern; `offset` counts `Character`s from the start of the pattern as written.
    public struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        public var offset: Int
        public var message: String
        public var description: String { "\(message) (at character \(offset + 1))" }
    }

    /// Compiles `pattern`. Throws for an empty pattern, an unclosed or empty `[...]`, a dangling `\`,
    /// or `**` mixed with other characters in one component (`a**b`).
    public init(_ pattern: String, caseInsensitive: Bool = false) throws(SyntaxError) {
        self.pattern = pattern
        var chars = Array(pattern)
        var base = 0
        var ci = caseInsensitive
        if chars.starts(with: Array("(?i)")) {
            ci = true
            chars.removeFirst(4)
            base = 4
        }
        self.caseInsensitive = ci
        guard !chars.isEmpty else { throw SyntaxError(offset: 0, message: "empty pattern") }
        var dirOnly = false
        if chars.count > 1, chars.last == "/", !(chars.count >= 2 && chars[chars.count - 2] == "\\") {
            dirOnly = true
            chars.removeLast()
        }
        self.directoryOnly = dirOnly
        var start = 0
        if chars.first == "/" {
            start = 1
            guard chars.count > 1 else { throw SyntaxError(offset: base, message: "pattern '/' matches nothing") }
        }
        // Split on unescaped '/', keeping offsets for error reporting.
        var comps: [Component] = []
        var anchored = start == 1
        var i = start
        var compStart = start
        func finish(_ end: Int) throws(SyntaxError) {
            let piece = Array(chars[compStart..<end])
            if piece.isEmpty {
                throw SyntaxError(offset: base + end, message: "empty path component ('//')")
            }
            comps.append(try Self.compile(piece, at: base + compStart, ci: ci))
        }
        while i < chars.count {
            let c = chars[i]
            if c == "\\" {
                i += 2
                continue
            }
            if c == "[" {
                // Skip a bracket expression so a '/' inside it is reported by compile, not split.
                if let close = Self.closingBracket(chars, from: i) { i = close + 1; continue }
            }
            if c == "/" {
                anchored = true
                try finish(i)
                compStart = i + 1
            }
            i += 1
        }
        try finish(chars.count)
        var extLength = 0
        if !ci, case .tokens(let tokens)? = comps.last {
            // `….ext`: letters and digits after a literal '.', at the end.
            let tail = tokens.reversed().prefix { if case .literal(let c) = $0 { c.count == 1 && (c.first!.isLetter || c.first!.isNumber) } else { false } }
            if !tail.isEmpty, tail.count < tokens.count, case .literal(".") = tokens[tokens.count - tail.count - 1] {
                extLength = tail.count
                comps[comps.count - 1] = .tokens(tokens.prefix(tokens.count - extLength) + tail.reversed().map { if case .literal(let c) = $0 { .literal(c.lowercased()) } else { $0 } })
            }
        }
        self.extensionLength = extLength
        self.isAnchored = anchored
        self.components = anchored ? comps : [.doubleStar] + comps
    }

    /// Whether `path` (relative to the crawl root, `/`-separated, no leading `/`) matches.
    /// `isDirectory` matters only for patterns ending in `/`.
    public func matches(_ path: String, isDirectory: Bool = false) -> Bool {
        if directoryOnly && !isDirectory { return false }
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map { Array($0) }
        return match(components[...], parts[...])
    }

    public static func == (a: GlobPattern, b: GlobPattern) -> Bool {
        a.pattern == b.pattern && a.caseInsensitive == b.caseInsensitive
    }
    public func hash(into h: inout Hasher) {
        h.combine(pattern)
        h.combine(caseInsensitive)
    }

    // MARK: - Compilation

    enum Component: Sendable {
        case doubleStar
        case tokens([Token])
    }

    enum Token: Sendable {
        case literal(String)  // folded when case-insensitive
        case one
        case star
        case set(negated: Bool, items: [SetItem])
    }

    enum SetItem: Sendable {
        case char(String)  // folded when case-insensitive
        case range(Character, Character)
    }

    static func closingBracket(_ chars: [Character], from open: Int) -> Int? {
        var j = open + 1
        if j < chars.count, chars[j] == "!" || chars[j] == "^" { j += 1 }
        if j < chars.count, chars[j] == "]" { j += 1 }  // a leading ']' is literal
        while j < chars.count {
            if chars[j] == "\\" { j += 2; continue }
            if chars[j] == "]" { return j }
            j += 1
        }
        return nil
    }

    static func compile(_ piece: [Character], at offset: Int, ci: Bool) throws(SyntaxError) -> Component {
        if piece == ["*", "*"] { return .doubleStar }
        var tokens: [Token] = []
        var i = 0
        func fold(_ c: Character) -> String { ci ? c.lowercased() : String(c) }
        while i < piece.count {
            let c = piece[i]
            switch c {
            case "\\":
                guard i + 1 < piece.count else {
                    throw SyntaxError(offset: offset + i, message: "'\\' at the end of the pattern escapes nothing")
                }
                tokens.append(.literal(fold(piece[i + 1])))
                i += 2
            case "?":
                tokens.append(.one)
                i += 1
            case "*":
                if i + 1 < piece.count, piece[i + 1] == "*" {
                    throw SyntaxError(
                        offset: offset + i,
                        message: "'**' must be a whole path component (like 'a/**/b'); use '*' inside a name")
                }
                if case .star? = tokens.last {} else { tokens.append(.star) }
                i += 1
            case "[":
                guard let close = closingBracket(piece, from: i) else {
                    throw SyntaxError(offset: offset + i, message: "'[' is never closed; write '\\[' for a literal bracket")
                }
                var j = i + 1
                var negated = false
                if piece[j] == "!" || piece[j] == "^" { negated = true; j += 1 }
                var items: [SetItem] = []
                var first = true
                while j < close {
                    var lo = piece[j]
                    if lo == "\\" { j += 1; lo = piece[j] }
                    else if lo == "]" && !first { break }
                    first = false
                    if j + 2 < close, piece[j + 1] == "-" {
                        var hi = piece[j + 2]
                        var step = 3
                        if hi == "\\", j + 3 < close { hi = piece[j + 3]; step = 4 }
                        guard lo <= hi else {
                            throw SyntaxError(offset: offset + j, message: "range '\(lo)-\(hi)' is reversed")
                        }
                        items.append(.range(lo, hi))
                        j += step
                    } else {
                        items.append(.char(fold(lo)))
                        j += 1
                    }
                }
                if items.isEmpty {
                    throw SyntaxError(offset: offset + i, message: "empty character class '[]'")
                }
                tokens.append(.set(negated: negated, items: items))
                i = close + 1
            default:
                tokens.append(.literal(fold(c)))
                i += 1
            }
        }
        return .tokens(tokens)
    }

    // MARK: - Matching

    private func match(_ pattern: ArraySlice<Component>, _ path: ArraySlice<[Character]>) -> Bool {
        guard let first = pattern.first else { return path.isEmpty }
        switch first {
        case .doubleStar:
            let rest = pattern.dropFirst()
            // Collapse runs of '**'.
            if case .doubleStar? = rest.first { return match(rest, path) }
            var p = path
            while true {
                if match(rest, p) { return true }
                if p.isEmpty { return false }
                p = p.dropFirst()
            }
        case .tokens(let tokens):
            guard var name = path.first else { return false }
            if extensionLength > 0, pattern.count == 1, name.count > extensionLength {
                let k = name.count - extensionLength
                name = Array(name[..<k]) + Array(String(name[k...]).lowercased())
            }
            return Self.matchName(tokens, name, ci: caseInsensitive) && match(pattern.dropFirst(), path.dropFirst())
        }
    }

    private static func matchName(_ tokens: [Token], _ name: [Character], ci: Bool) -> Bool {
        // Classic iterative wildcard match with single-star backtracking: no recursion, O(n·m) worst case.
        var t = 0, n = 0
        var starT = -1, starN = 0
        while n < name.count {
            if t < tokens.count {
                switch tokens[t] {
                case .star:
                    starT = t
                    starN = n
                    t += 1
                    continue
                case .one:
                    t += 1; n += 1
                    continue
                case .literal(let c):
                    if c == fold(name[n], ci) { t += 1; n += 1; continue }
                case .set(let negated, let items):
                    if inSet(items, name[n], ci: ci) != negated { t += 1; n += 1; continue }
                }
            }
            guard starT >= 0 else { return false }
            t = starT + 1
            starN += 1
            n = starN
        }
        while t < tokens.count, case .star = tokens[t] { t += 1 }
        return t == tokens.count
    }

    private static func fold(_ c: Character, _ ci: Bool) -> String { ci ? c.lowercased() : String(c) }

    private static func inSet(_ items: [SetItem], _ c: Character, ci: Bool) -> Bool {
        let folded = fold(c, ci)
        // For ranges, try the character itself and, ignoring case, its one-character case variants.
        var variants: [Character] = [c]
        if ci {
            for s in [c.lowercased(), c.uppercased()] where s.count == 1 { variants.append(s.first!) }
        }
        for item in items {
            switch item {
            case .char(let y): if folded == y { return true }
            case .range(let lo, let hi): if variants.contains(where: { lo <= $0 && $0 <= hi }) { return true }
            }
        }
        return false
    }
}
