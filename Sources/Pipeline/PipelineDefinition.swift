#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import PhotoModel
import Yams

/// What `shoebox ingest --pipeline FILE` runs: roots, filters, concurrency and stages, read from YAML.
///
/// The schema is documented key by key in `Pipelines/README.md`. Parsing goes through Yams' `Node`
/// tree (`compose`), never `Decodable`, so that every value keeps its line and column and every
/// mistake is reported where it is, compiler style.
public struct PipelineDefinition: Sendable, Equatable {
    /// Folders (or files) to ingest. Relative entries are resolved against the YAML file's folder
    /// when loaded; `~/` is the home folder.
    public var roots: [String]
    /// Catalog database path, resolved like `roots`. `nil`: the command line decides.
    public var catalog: String?
    /// Glob patterns (see `GlobPattern`); when non-empty only matching files are ingested.
    public var include: [String]
    /// Glob patterns for files and folders to skip; wins over `include`.
    public var exclude: [String]
    public var includeHidden: Bool
    public var followSymlinks: Bool
    /// Parallel workers, 1…256. `nil`: one per core.
    public var concurrency: Int?
    public var stages: Stages
    /// Days of run history to keep in the catalog, 0…36500. `nil` (YAML `null`): keep all history.
    /// Absent: `defaultHistoryRetentionDays`, the command line's default too.
    public var historyRetentionDays: Int?
    /// Remove catalog entries whose files are gone from the roots.
    public var prune: Bool
    /// Seconds one file may take before it is abandoned with an error row, 0…86400 (0: no limit).
    /// `nil`: the command line's `--file-timeout` (default 60).
    public var fileTimeout: Int?

    public init(
        roots: [String], catalog: String? = nil, include: [String] = [], exclude: [String] = [],
        includeHidden: Bool = false, followSymlinks: Bool = true, concurrency: Int? = nil,
        stages: Stages = Stages(), historyRetentionDays: Int? = PipelineDefinition.defaultHistoryRetentionDays, prune: Bool = false
    ) {
        self.roots = roots
        self.catalog = catalog
        self.include = include
        self.exclude = exclude
        self.includeHidden = includeHidden
        self.followSymlinks = followSymlinks
        self.concurrency = concurrency
        self.stages = stages
        self.historyRetentionDays = historyRetentionDays
        self.prune = prune
    }

    /// Stage switches, in pipeline order. Every stage but `thumbnails` is on by default.
    public struct Stages: Sendable, Equatable {
        public var probe = true
        public var classify = true
        public var assemble = true
        public var organize = true
        public var commit = true
        public var thumbnails = Thumbnails()

        /// Stage names as written in YAML, in pipeline order.
        public static let names = ["probe", "classify", "assemble", "organize", "commit", "thumbnails"]

        public init(
            probe: Bool = true, classify: Bool = true, assemble: Bool = true, organize: Bool = true,
            commit: Bool = true, thumbnails: Thumbnails = Thumbnails()
        ) {
            self.probe = probe
            self.classify = classify
            self.assemble = assemble
            self.organize = organize
            self.commit = commit
            self.thumbnails = thumbnails
        }

        /// Whether the stage called `name` is on; `nil` for an unknown name.
        public func isEnabled(_ name: String) -> Bool? {
            switch name {
            case "probe": probe
            case "classify": classify
            case "assemble": assemble
            case "organize": organize
            case "commit": commit
            case "thumbnails": thumbnails.enabled
            default: nil
            }
        }
    }

    /// The thumbnails stage (off by default) and its options.
    public struct Thumbnails: Sendable, Equatable {
        public enum Mode: String, Sendable, CaseIterable {
            /// Scale to fit inside size×size, keeping the aspect ratio.
            case fit
            /// Scale and crop to exactly size×size.
            case fill
        }
        public enum Format: String, Sendable, CaseIterable { case jpeg, webp, heic }

        public var enabled = false
        /// Longest-edge sizes in pixels, each 16…8192, no repeats.
        public var sizes = [256, 1024]
        public var mode = Mode.fit
        public var format = Format.jpeg
        /// Output folder, resolved like `roots`. `nil`: the stage's default (next to the catalog).
        public var out: String?
        /// After rendering, delete the files of `out` named by the thumbnail scheme whose asset left the
        /// catalog or changed (`shoebox thumbnails --prune`).
        public var prune = false

        public init(
            enabled: Bool = false, sizes: [Int] = [256, 1024], mode: Mode = .fit, format: Format = .jpeg, out: String? = nil,
            prune: Bool = false
        ) {
            self.enabled = enabled
            self.sizes = sizes
            self.mode = mode
            self.format = format
            self.out = out
            self.prune = prune
        }
    }

    // MARK: Limits

    /// Larger documents are refused before parsing.
    public static let maximumDocumentBytes = 1 << 20
    /// Nodes after alias expansion; more is refused (billion laughs).
    public static let maximumNodes = 10_000
    /// With anchors present, at most this many aliases (`*name`) are accepted, checked before composing.
    public static let maximumAliases = 8
    public static let concurrencyRange = 1...256
    public static let fileTimeoutRange = 0...86400
    public static let historyRetentionRange = 0...36500
    /// Days of change history kept when neither the command line nor a definition says otherwise.
    public static let defaultHistoryRetentionDays = 30
    public static let thumbnailSizeRange = 16...8192

    // MARK: Using a definition

    /// A crawler configured from `include`, `exclude`, `includeHidden` and `followSymlinks`.
    /// Patterns are validated when a definition is parsed; this throws only for hand-built definitions.
    public func makeCrawler() throws(GlobPattern.SyntaxError) -> Crawler {
        try IngestScope(roots: roots, include: include, exclude: exclude, includeHidden: includeHidden, followSymlinks: followSymlinks).makeCrawler()
    }

    // MARK: Loading

    /// Reads and parses the pipeline definition at `path`. Relative paths inside it are resolved
    /// against the file's folder (made absolute with the current directory). Errors name `path` as given.
    /// With `requireRoots: false` (the config file), `roots` may be absent.
    public static func load(path: String, requireRoots: Bool = true) throws(PipelineDefinitionError) -> PipelineDefinition {
        let bytes = try readLimited(path)
        let text: String
        switch validateUTF8(bytes) {
        case .success(let s): text = s
        case .failure(let position):
            throw PipelineDefinitionError(
                kind: .syntax, file: path, line: position.line, column: position.column,
                message: "the file is not valid UTF-8 (byte offset \(position.offset))", sourceLine: nil)
        }
        var dir = path
        if let slash = dir.lastIndex(of: "/") {
            dir = String(dir[..<slash])
            if dir.isEmpty { dir = "/" }
        } else {
            dir = "."
        }
        if !dir.hasPrefix("/") { dir = currentDirectory() + "/" + dir }
        return try parse(text, baseDirectory: normalize(dir), file: path, requireRoots: requireRoots)
    }

    /// Parses YAML `text`. Relative paths are resolved against `baseDirectory` (used as given);
    /// `file` is only used in error messages.
    public static func parse(
        _ text: String, baseDirectory: String, file: String = "<pipeline>", requireRoots: Bool = true
    ) throws(PipelineDefinitionError) -> PipelineDefinition {
        let doc = Document(file: file, text: text)
        guard text.utf8.count <= maximumDocumentBytes else {
            throw doc.error(.tooLarge, nil as Pos?, "the pipeline definition is \(text.utf8.count) bytes; at most \(maximumDocumentBytes) (1 MiB) are accepted")
        }
        try doc.checkAliases()
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else {
                if !requireRoots { return PipelineDefinition(roots: []) }
                throw doc.error(.missingKey, Pos(line: 1, column: 1), "the pipeline definition is empty; it needs at least 'roots'")
            }
            root = node
        } catch let e as PipelineDefinitionError {
            throw e
        } catch let e as YamlError {
            throw doc.error(from: e)
        } catch {
            throw doc.error(.syntax, Pos(line: 1, column: 1) as Pos?, "cannot read YAML: \(error)")
        }
        try doc.countNodes(root)
        return try doc.definition(from: root, baseDirectory: baseDirectory, requireRoots: requireRoots)
    }

    // MARK: Paths

    /// `path` made absolute against `base` (unless already absolute or `~`-relative), with `.`/`..`
    /// components and repeated slashes removed lexically.
    public static func resolve(_ path: String, against base: String) -> String {
        if path == "~" || path.hasPrefix("~/") {
            let home = ProcessInfo.processInfo.environment["HOME"] ?? "/"
            return normalize(home + path.dropFirst())
        }
        if path.hasPrefix("/") { return normalize(path) }
        return normalize(base + "/" + path)
    }

    static func normalize(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var out: [Substring] = []
        for part in PathText.components(path) {
            if part == "." { continue }
            if part == "..", let last = out.last, last != ".." {
                out.removeLast()
                continue
            }
            if part == ".." && absolute { continue }
            out.append(part)
        }
        let joined = out.joined(separator: "/")
        if absolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    static func currentDirectory() -> String {
        FileManager.default.currentDirectoryPath
    }

    private static func readLimited(_ path: String) throws(PipelineDefinitionError) -> [UInt8] {
        func fail(_ what: String) -> PipelineDefinitionError {
            PipelineDefinitionError(kind: .io, file: path, line: 0, column: 0,
                                    message: "\(what): \(String(cString: strerror(errno)))", sourceLine: nil)
        }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw fail("cannot open the pipeline definition") }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            errno = EISDIR
            throw fail("cannot read the pipeline definition")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw fail("cannot read the pipeline definition")
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > maximumDocumentBytes {
                throw PipelineDefinitionError(
                    kind: .tooLarge, file: path, line: 0, column: 0,
                    message: "the pipeline definition is larger than \(maximumDocumentBytes) bytes (1 MiB); refusing to parse it",
                    sourceLine: nil)
            }
        }
        return bytes
    }

    struct Position: Error { var line: Int; var column: Int; var offset: Int }

    static func validateUTF8(_ bytes: [UInt8]) -> Result<String, Position> {
        var parser = Unicode.UTF8.ForwardParser()
        var it = bytes.makeIterator()
        var offset = 0, line = 1, column = 1
        while true {
            switch parser.parseScalar(from: &it) {
            case .valid(let encoded):
                if encoded.count == 1 && encoded.first == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
                offset += encoded.count
            case .emptyInput:
                return .success(String(decoding: bytes, as: UTF8.self))
            case .error:
                return .failure(Position(line: line, column: column, offset: offset))
            }
        }
    }
}

/// A mistake in a pipeline definition, with its position. `description` is compiler style:
///
///     Pipelines/default.yml:7:14: error: 'concurrency' must be an integer from 1 to 256, found 'many'
///     concurrency: many
///                  ^
public struct PipelineDefinitionError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// The file cannot be opened or read (`line` and `column` are 0).
        case io
        /// Larger than `PipelineDefinition.maximumDocumentBytes`.
        case tooLarge
        /// Not YAML (Yams/libyaml scanner, parser, composer or reader error) or not UTF-8.
        case syntax
        /// The same key twice in one mapping.
        case duplicateKey
        /// Too many aliases with anchors present (checked before composing).
        case aliasLimit
        /// More than `PipelineDefinition.maximumNodes` nodes after alias expansion.
        case nodeLimit
        /// A required key is absent, or the document is empty.
        case missingKey
        /// A key the schema does not know.
        case unknownKey
        /// A value of the wrong YAML type (`concurrency: many`, `roots: {a: b}`).
        case wrongType
        /// A number outside its range.
        case outOfRange
        /// A value of the right type that is still wrong (empty `roots`, `mode: crop`, repeated size).
        case invalidValue
        /// A key under `stages:` that is not a stage.
        case unknownStage
        /// A glob pattern that does not compile.
        case badGlob
    }

    public var kind: Kind
    /// The file as named to `load(path:)`, or the `file` given to `parse`.
    public var file: String
    /// 1-based; 0 when the error has no position (I/O, oversize file).
    public var line: Int
    /// 1-based, counted in Unicode scalars like libyaml; 0 when there is no position.
    public var column: Int
    public var message: String
    /// The offending source line, without its newline, when known.
    public var sourceLine: String?

    public init(kind: Kind, file: String, line: Int, column: Int, message: String, sourceLine: String?) {
        self.kind = kind
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.sourceLine = sourceLine
    }

    public var description: String {
        guard line > 0 else { return "\(file): error: \(message)" }
        var out = "\(file):\(line):\(column): error: \(message)"
        if let src = sourceLine {
            // The caret line copies tabs so the caret lands under the column in any tab width.
            let pad = src.unicodeScalars.prefix(max(0, column - 1)).map { $0 == "\t" ? "\t" : " " }.joined()
            out += "\n" + src + "\n" + pad + "^"
        }
        return out
    }
}

// MARK: - Reading the node tree

/// A 1-based line and column (Yams' `Mark` cannot be created outside Yams).
private struct Pos { var line: Int; var column: Int }

private func hasTag(_ node: Node, _ name: Tag.Name) -> Bool { node.tag.rawValue == name.rawValue }

private struct Document {
    let file: String
    let text: String
    let lines: [Substring]

    init(file: String, text: String) {
        self.file = file
        self.text = text
        self.lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? $0.dropLast() : $0
        }
    }

    func sourceLine(_ line: Int) -> String? {
        line >= 1 && line <= lines.count ? String(lines[line - 1]) : nil
    }

    func error(_ kind: PipelineDefinitionError.Kind, _ mark: Mark?, _ message: String) -> PipelineDefinitionError {
        error(kind, mark.map { Pos(line: $0.line, column: $0.column) }, message)
    }

    func error(_ kind: PipelineDefinitionError.Kind, _ mark: Pos?, _ message: String) -> PipelineDefinitionError {
        let line = mark?.line ?? 0
        let column = mark?.column ?? 0
        return PipelineDefinitionError(
            kind: kind, file: file, line: line, column: column, message: message, sourceLine: sourceLine(line))
    }

    func error(_ kind: PipelineDefinitionError.Kind, _ node: Node, _ message: String) -> PipelineDefinitionError {
        error(kind, node.mark, message)
    }

    func error(from e: YamlError) -> PipelineDefinitionError {
        let aliasHint = "a value starting with '*' is read as a YAML alias; quote glob patterns, e.g. - \"**/@eaDir/**\""
        switch e {
        case .scanner(let context, let problem, let mark, _),
             .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            var message = "invalid YAML: \(problem)"
            var at = Pos(line: mark.line, column: mark.column)
            if let context {
                if context.text.contains("alias") {
                    // Point at the '*' itself, where the alias starts.
                    at = Pos(line: context.mark.line, column: context.mark.column)
                    message = "invalid YAML: \(context.text): \(problem); \(aliasHint)"
                } else if context.mark.line != mark.line || context.mark.column != mark.column {
                    message += " (\(context.text) at \(context.mark.line):\(context.mark.column))"
                } else {
                    message += " (\(context.text))"
                }
            } else if problem.contains("undefined alias") {
                message += "; \(aliasHint)"
            }
            return error(.syntax, at, message)
        case .reader(let problem, let offset, _, _):
            var mark = Pos(line: 1, column: 1)
            if let offset, offset >= 0 {
                let prefix = text.prefix(offset)
                let line = prefix.reduce(1) { $1 == "\n" || $1 == "\r\n" ? $0 + 1 : $0 }
                let lastLine = prefix.split(separator: "\n", omittingEmptySubsequences: false).last ?? ""
                mark = Pos(line: line, column: lastLine.unicodeScalars.count + 1)
            }
            return error(.syntax, mark, "invalid YAML: \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            return error(.duplicateKey, context.mark, "key \(keys) appears more than once in this mapping")
        default:
            return error(.syntax, Pos(line: 1, column: 1), "invalid YAML: \(e)")
        }
    }

    // MARK: Billion laughs

    /// Before composing (Yams hashes mapping keys deeply, so an alias used as a key could blow up inside
    /// `compose`), counts every place an alias could start. Conservative: it may count text in quotes or
    /// block scalars, never misses a real alias. Only matters when an anchor could be present too.
    func checkAliases() throws(PipelineDefinitionError) {
        func isAnchorChar(_ s: Unicode.Scalar) -> Bool {
            (s >= "a" && s <= "z") || (s >= "A" && s <= "Z") || (s >= "0" && s <= "9") || s == "_" || s == "-"
        }
        var anchors = 0
        var aliases: [Pos] = []
        for (index, line) in lines.enumerated() {
            var scalars = Array(line.unicodeScalars)
            if !scalars.contains("\"") && !scalars.contains("'") {
                // Without quotes on the line, a '#' after a blank (or first) starts a comment — or the line
                // is inside a multi-line quoted or block scalar, where no alias can be either.
                var cut: Int?
                for (i, s) in scalars.enumerated() where s == "#" && (i == 0 || scalars[i - 1] == " " || scalars[i - 1] == "\t") {
                    cut = i
                    break
                }
                if let cut { scalars.removeSubrange(cut...) }
            }
            for (i, s) in scalars.enumerated() where s == "*" || s == "&" {
                guard i + 1 < scalars.count, isAnchorChar(scalars[i + 1]) else { continue }
                if i > 0, isAnchorChar(scalars[i - 1]) { continue }
                if s == "&" { anchors += 1 } else { aliases.append(Pos(line: index + 1, column: i + 1)) }
            }
        }
        let limit = PipelineDefinition.maximumAliases
        if anchors > 0 && aliases.count > limit {
            throw error(
                .aliasLimit, aliases[limit],
                "too many YAML aliases (\(aliases.count)); a pipeline definition may use at most \(limit) — refusing a document that could expand exponentially ('billion laughs')")
        }
    }

    /// Counts nodes as the reader will see them, aliases expanded; stops as soon as the budget is spent.
    /// The error points at the top-level key whose value crossed the budget (an expanded alias has no
    /// position of its own: Yams hands back the anchored node).
    func countNodes(_ root: Node) throws(PipelineDefinitionError) {
        var budget = PipelineDefinition.maximumNodes
        if case .mapping(let map) = root {
            budget -= 1
            for (key, value) in map {
                try countNodes(key, budget: &budget, blame: key)
                try countNodes(value, budget: &budget, blame: key)
            }
        } else {
            try countNodes(root, budget: &budget, blame: root)
        }
    }

    private func countNodes(_ node: Node, budget: inout Int, blame: Node) throws(PipelineDefinitionError) {
        budget -= 1
        if budget < 0 {
            let at = blame.string.map { "the value of '\($0)'" } ?? "the document"
            throw error(
                .nodeLimit, blame,
                "\(at) takes the document past \(PipelineDefinition.maximumNodes) YAML nodes (aliases expanded); refusing it ('billion laughs')")
        }
        switch node {
        case .scalar, .alias: return
        case .sequence(let seq):
            for child in seq { try countNodes(child, budget: &budget, blame: blame) }
        case .mapping(let map):
            for (key, value) in map {
                try countNodes(key, budget: &budget, blame: blame)
                try countNodes(value, budget: &budget, blame: blame)
            }
        }
    }

    // MARK: Typed values

    func describe(_ node: Node) -> String {
        switch node {
        case .scalar(let s):
            if hasTag(node, .null) { return s.string.isEmpty ? "nothing" : "null ('\(s.string)')" }
            return "'\(s.string)'"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        case .alias: return "an alias"
        }
    }

    func isNull(_ node: Node) -> Bool {
        if case .scalar = node, hasTag(node, .null) { return true }
        return false
    }

    func mapping(_ node: Node, _ what: String) throws(PipelineDefinitionError) -> [(key: String, keyNode: Node, value: Node)] {
        guard case .mapping(let map) = node else {
            throw error(.wrongType, node, "\(what) must be a mapping of 'key: value' lines, found \(describe(node))")
        }
        var out: [(String, Node, Node)] = []
        for (key, value) in map {
            guard case .scalar(let s) = key, !hasTag(key, .null) else {
                throw error(.wrongType, key, "keys in \(what) must be names, found \(describe(key))")
            }
            out.append((s.string, key, value))
        }
        return out.map { (key: $0.0, keyNode: $0.1, value: $0.2) }
    }

    func bool(_ node: Node, _ key: String) throws(PipelineDefinitionError) -> Bool {
        guard hasTag(node, .bool), let value = node.bool else {
            throw error(.wrongType, node, "'\(key)' must be true or false, found \(describe(node))")
        }
        return value
    }

    func int(_ node: Node, _ key: String, _ range: ClosedRange<Int>, what: String = "an integer") throws(PipelineDefinitionError) -> Int {
        let message = "'\(key)' must be \(what) from \(range.lowerBound) to \(range.upperBound), found \(describe(node))"
        guard hasTag(node, .int), let value = node.int else { throw error(.wrongType, node, message) }
        guard range.contains(value) else { throw error(.outOfRange, node, message) }
        return value
    }

    func string(_ node: Node, _ what: String) throws(PipelineDefinitionError) -> String {
        guard case .scalar(let s) = node, !isNull(node) else {
            throw error(.wrongType, node, "\(what) must be a string, found \(describe(node))")
        }
        guard !s.string.isEmpty else { throw error(.invalidValue, node, "\(what) must not be empty") }
        return s.string
    }

    /// A list, or a single scalar taken as a one-element list.
    func list(_ node: Node, _ key: String, of what: String) throws(PipelineDefinitionError) -> [Node] {
        switch node {
        case .sequence(let seq): return Array(seq)
        case .scalar where !isNull(node): return [node]
        default:
            throw error(.wrongType, node, "'\(key)' must be a list of \(what), found \(describe(node))")
        }
    }

    func globs(_ node: Node, _ key: String) throws(PipelineDefinitionError) -> [String] {
        var out: [String] = []
        for item in try list(node, key, of: "glob patterns") {
            let pattern = try string(item, "each '\(key)' entry")
            do {
                _ = try GlobPattern(pattern)
            } catch {
                throw self.error(.badGlob, globMark(item, pattern, offset: error.offset),
                                 "bad glob pattern '\(pattern)' in '\(key)': \(error.message)")
            }
            out.append(pattern)
        }
        return out
    }

    /// The position of character `offset` of `pattern` when the scalar is written verbatim on one line
    /// (plain or quoted without escapes); otherwise the scalar's start.
    func globMark(_ node: Node, _ pattern: String, offset: Int) -> Pos? {
        guard let m = node.mark else { return nil }
        let mark = Pos(line: m.line, column: m.column)
        guard let src = sourceLine(mark.line) else { return mark }
        let after = Array(src.unicodeScalars.dropFirst(mark.column - 1))
        let patternScalars = Array(pattern.unicodeScalars)
        var skip = 0
        if let q = after.first, q == "\"" || q == "'" { skip = 1 }
        guard after.count >= skip + patternScalars.count,
              Array(after[skip..<(skip + patternScalars.count)]) == patternScalars else { return mark }
        let scalarOffset = String(pattern.prefix(offset)).unicodeScalars.count
        return Pos(line: mark.line, column: mark.column + skip + scalarOffset)
    }

    func path(_ node: Node, _ what: String, base: String) throws(PipelineDefinitionError) -> String {
        PipelineDefinition.resolve(try string(node, what), against: base)
    }

    func unknownKey(_ keyNode: Node, _ key: String, in what: String, known: [String], kind: PipelineDefinitionError.Kind = .unknownKey, noun: String = "key") -> PipelineDefinitionError {
        var message = "unknown \(noun) '\(key)' in \(what)"
        if let guess = suggestion(for: key, among: known) { message += "; did you mean '\(guess)'?" }
        message += " (known: \(known.joined(separator: ", ")))"
        return error(kind, keyNode, message)
    }

    // MARK: The schema

    static let topKeys = [
        "roots", "catalog", "include", "exclude", "includeHidden", "followSymlinks", "concurrency",
        "stages", "historyRetentionDays", "prune", "fileTimeout",
    ]
    static let thumbnailKeys = ["enabled", "sizes", "mode", "format", "out", "prune"]

    func definition(from root: Node, baseDirectory base: String, requireRoots: Bool = true) throws(PipelineDefinitionError) -> PipelineDefinition {
        let pairs = try mapping(root, "the pipeline definition")
        var def = PipelineDefinition(roots: [])
        var sawRoots = false
        for (key, keyNode, value) in pairs {
            switch key {
            case "roots":
                sawRoots = true
                let items = try list(value, key, of: "folders")
                guard !items.isEmpty else {
                    throw error(.invalidValue, value, "'roots' must list at least one folder to ingest")
                }
                def.roots = []
                for item in items { def.roots.append(try path(item, "each 'roots' entry", base: base)) }
            case "catalog":
                def.catalog = isNull(value) ? nil : try path(value, "'catalog'", base: base)
            case "include":
                def.include = isNull(value) ? [] : try globs(value, key)
            case "exclude":
                def.exclude = isNull(value) ? [] : try globs(value, key)
            case "includeHidden":
                def.includeHidden = try bool(value, key)
            case "followSymlinks":
                def.followSymlinks = try bool(value, key)
            case "concurrency":
                def.concurrency = isNull(value) ? nil : try int(value, key, PipelineDefinition.concurrencyRange)
            case "historyRetentionDays":
                def.historyRetentionDays = isNull(value)
                    ? nil : try int(value, key, PipelineDefinition.historyRetentionRange, what: "a number of days")
            case "prune":
                def.prune = try bool(value, key)
            case "fileTimeout":
                def.fileTimeout = isNull(value) ? nil : try int(value, key, PipelineDefinition.fileTimeoutRange, what: "a number of seconds")
            case "stages":
                def.stages = try stages(value, base: base)
            default:
                throw unknownKey(keyNode, key, in: "the pipeline definition", known: Self.topKeys)
            }
        }
        guard sawRoots || !requireRoots else {
            throw error(.missingKey, root, "missing required key 'roots' (the folders to ingest, e.g. 'roots: [.]')")
        }
        return def
    }

    func stages(_ node: Node, base: String) throws(PipelineDefinitionError) -> PipelineDefinition.Stages {
        var stages = PipelineDefinition.Stages()
        if isNull(node) { return stages }
        for (name, keyNode, value) in try mapping(node, "'stages'") {
            switch name {
            case "probe": stages.probe = try simpleStage(value, name)
            case "classify": stages.classify = try simpleStage(value, name)
            case "assemble": stages.assemble = try simpleStage(value, name)
            case "organize": stages.organize = try simpleStage(value, name)
            case "commit": stages.commit = try simpleStage(value, name)
            case "thumbnails": stages.thumbnails = try thumbnails(value, base: base)
            default:
                throw unknownKey(keyNode, name, in: "'stages'", known: PipelineDefinition.Stages.names,
                                 kind: .unknownStage, noun: "stage")
            }
        }
        return stages
    }

    /// `stage: true|false`, or `stage: {enabled: true|false}` (a mapping turns the stage on unless it says otherwise).
    func simpleStage(_ node: Node, _ name: String) throws(PipelineDefinitionError) -> Bool {
        if case .mapping = node {
            var enabled = true
            for (key, keyNode, value) in try mapping(node, "stage '\(name)'") {
                guard key == "enabled" else {
                    throw unknownKey(keyNode, key, in: "stage '\(name)'", known: ["enabled"])
                }
                enabled = try bool(value, "\(name).enabled")
            }
            return enabled
        }
        guard hasTag(node, .bool), let value = node.bool else {
            throw error(.wrongType, node, "stage '\(name)' must be true, false or a mapping with 'enabled', found \(describe(node))")
        }
        return value
    }

    func thumbnails(_ node: Node, base: String) throws(PipelineDefinitionError) -> PipelineDefinition.Thumbnails {
        var t = PipelineDefinition.Thumbnails()
        guard case .mapping = node else {
            t.enabled = try simpleStage(node, "thumbnails")
            return t
        }
        t.enabled = true
        for (key, keyNode, value) in try mapping(node, "stage 'thumbnails'") {
            switch key {
            case "enabled":
                t.enabled = try bool(value, "thumbnails.enabled")
            case "sizes":
                let items = try list(value, "thumbnails.sizes", of: "pixel sizes")
                guard !items.isEmpty else {
                    throw error(.invalidValue, value, "'thumbnails.sizes' must list at least one size")
                }
                var sizes: [Int] = []
                for item in items {
                    let size = try int(item, "thumbnails.sizes", PipelineDefinition.thumbnailSizeRange, what: "a list of pixel sizes")
                    guard !sizes.contains(size) else {
                        throw error(.invalidValue, item, "thumbnail size \(size) is listed twice")
                    }
                    sizes.append(size)
                }
                t.sizes = sizes
            case "mode":
                t.mode = try choice(value, "thumbnails.mode", PipelineDefinition.Thumbnails.Mode.self)
            case "format":
                t.format = try choice(value, "thumbnails.format", PipelineDefinition.Thumbnails.Format.self)
            case "out":
                t.out = isNull(value) ? nil : try path(value, "'thumbnails.out'", base: base)
            case "prune":
                t.prune = try bool(value, "thumbnails.prune")
            default:
                throw unknownKey(keyNode, key, in: "stage 'thumbnails'", known: Self.thumbnailKeys)
            }
        }
        return t
    }

    func choice<T: RawRepresentable & CaseIterable>(_ node: Node, _ key: String, _ type: T.Type) throws(PipelineDefinitionError) -> T
    where T.RawValue == String {
        let names = T.allCases.map(\.rawValue)
        let message = "'\(key)' must be one of \(names.joined(separator: ", ")); found \(describe(node))"
        guard case .scalar(let s) = node, !isNull(node) else { throw error(.wrongType, node, message) }
        guard let value = T(rawValue: s.string) else {
            var m = message
            if let guess = suggestion(for: s.string, among: names) { m += "; did you mean '\(guess)'?" }
            throw error(.invalidValue, node, m)
        }
        return value
    }
}

/// A known word close to `word`: same letters ignoring case, `_` and `-`, or at most two edits away.
func suggestion(for word: String, among known: [String]) -> String? {
    func squash(_ s: String) -> String { s.lowercased().filter { $0 != "_" && $0 != "-" } }
    if let same = known.first(where: { squash($0) == squash(word) }) { return same }
    var best: (String, Int)?
    for k in known {
        let d = editDistance(Array(word.lowercased()), Array(k.lowercased()))
        if d <= 2 && d < (best?.1 ?? Int.max) { best = (k, d) }
    }
    return best?.0
}

func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var prev = Array(0...b.count)
    var cur = prev
    for i in 1...a.count {
        cur[0] = i
        for j in 1...b.count {
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&prev, &cur)
    }
    return prev[b.count]
}
