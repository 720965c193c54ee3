import ArgumentParser
import Foundation

/// Output formats shared by the listing commands. `--json` is the same as `--format json`
/// (`Arguments.expandingAliases`).
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, ndjson, csv

    /// The `--format` help text every listing command shows.
    static let help = ArgumentHelp("Output format: table, json, ndjson or csv (--json is --format json).")
}

/// One JSON style for every command: keys sorted (byte-identical output for the same input), slashes
/// unescaped; `json` is indented, `ndjson` is one line per object.
enum JSONOutput {
    static func encoder(pretty: Bool) -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting =
            pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
        return e
    }

    /// `value` as one line (`pretty == false`) or indented.
    static func text(_ value: some Encodable, pretty: Bool) throws -> String {
        String(decoding: try encoder(pretty: pretty).encode(value), as: UTF8.self)
    }

    /// A `JSONSerialization` object with the same style.
    static func text(object: Any, pretty: Bool) throws -> String {
        var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        if pretty { options.insert(.prettyPrinted) }
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: options), as: UTF8.self)
    }

    /// Prints a list of documents: one indented array for `json`, a line each for `ndjson`.
    static func printList<T: Encodable>(_ items: [T], format: OutputFormat) throws {
        if format == .json {
            print(try text(items, pretty: true))
        } else {
            let e = encoder(pretty: false)
            for i in items { print(String(decoding: try e.encode(i), as: UTF8.self)) }
        }
    }
}

/// Command-line arguments as people type them.
enum Arguments {
    /// Subcommands whose `--format` takes `json` (thumbnails' `--format` is an image format).
    static let jsonAliasCommands: Set<String> = [
        "probe", "inspect", "query", "show", "stats", "changes", "errors", "skipped", "collections", "moments", "bursts",
        "roots",
    ]

    /// `--json` → `--format json` for the commands above (osxphotos' habit); nothing after `--` changes.
    static func expandingAliases(_ args: [String]) -> [String] {
        guard let command = args.first, jsonAliasCommands.contains(command) else { return args }
        var out: [String] = []
        var literal = false
        for a in args {
            if a == "--" { literal = true }
            if !literal && a == "--json" { out += ["--format", "json"] } else { out.append(a) }
        }
        return out
    }
}

/// "Did you mean …?" for a mistyped name.
enum Suggestion {
    /// The candidate closest to `word` by edit distance, when it is close enough to be a plausible typo.
    static func closest(to word: String, in candidates: [String]) -> String? {
        let w = Array(word.lowercased())
        var best: (String, Int)?
        for c in candidates {
            let d = distance(w, Array(c.lowercased()))
            if d < (best?.1 ?? Int.max) { best = (c, d) }
        }
        guard let best, best.1 <= max(2, w.count / 3) else { return nil }
        return best.0
    }

    /// ` Did you mean 'x'?` or nothing.
    static func phrase(for word: String, in candidates: [String]) -> String {
        closest(to: word, in: candidates).map { " Did you mean '\($0)'?" } ?? ""
    }

    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var prev = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let cur = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1))
                prev = cur
            }
        }
        return row[b.count]
    }
}

/// `--fields a,b,c` checked against the fields a listing knows.
enum FieldList {
    static func parse(_ text: String?, known: [String], default defaults: [String]) throws -> [String] {
        guard let text else { return defaults }
        let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if names.isEmpty { throw ValidationError("--fields needs at least one name. Fields: \(known.joined(separator: ", ")).") }
        for n in names where !known.contains(n) {
            throw ValidationError(
                "Unknown field '\(n)'.\(Suggestion.phrase(for: n, in: known)) Fields: \(known.joined(separator: ", ")).")
        }
        return names
    }
}
