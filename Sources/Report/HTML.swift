/// Small, pure helpers for writing HTML text: escaping, the page shell, pagination links.
///
/// Everything that comes from a catalog (file names, titles, reasons, paths) is user data and goes through
/// `escape` before it reaches a page.
public enum HTML {
    /// `&`, `<`, `>`, `"` and `'` as character references: safe in text and in quoted attribute values.
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// The site's sections, in the order of the main navigation.
    public enum Section: String, CaseIterable, Sendable {
        case timeline, moments, live, bursts, albums, errors

        var title: String {
            switch self {
            case .timeline: return "Timeline"
            case .moments: return "Moments"
            case .live: return "Live Photos"
            case .bursts: return "Bursts"
            case .albums: return "Albums"
            case .errors: return "Errors"
            }
        }

        /// The section's first page, from the site root.
        var path: String { self == .timeline ? "index.html" : "\(rawValue)/index.html" }
    }

    /// A whole page: landmarks (banner, navigation, main), a skip link, one `h1` (`heading`), the body.
    ///
    /// `root` is the relative way back to the site root from the page's folder (`""`, `"../"`, `"../../"`).
    public static func page(title: String, heading: String? = nil, root: String, section: Section?, body: String) -> String {
        var nav = ""
        for s in Section.allCases {
            let current = s == section ? " aria-current=\"page\"" : ""
            nav += "<li><a href=\"\(root)\(s.path)\"\(current)>\(s.title)</a></li>"
        }
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)) — Shoebox</title>
            <link rel="stylesheet" href="\(root)style.css">
            </head>
            <body>
            <a class="skip" href="#main">Skip to content</a>
            <header role="banner"><p class="brand"><a href="\(root)index.html">Shoebox</a></p>
            <nav aria-label="Sections"><ul>\(nav)</ul></nav></header>
            <main id="main" tabindex="-1">
            <h1>\(escape(heading ?? title))</h1>
            \(body)
            </main>
            </body>
            </html>

            """
    }

    /// The file name of page `n` (1-based) of a paginated list: `base.html`, `base-p2.html`, …
    public static func pageFile(_ base: String, _ n: Int) -> String { n <= 1 ? "\(base).html" : "\(base)-p\(n).html" }

    /// Links to every page of a list (`pages` pages, this is page `current`), or nothing for one page.
    public static func pagination(base: String, current: Int, pages: Int, label: String = "Pages") -> String {
        guard pages > 1 else { return "" }
        var items: [String] = []
        if current > 1 { items.append("<li><a href=\"\(pageFile(base, current - 1))\" rel=\"prev\">Previous</a></li>") }
        for n in pageNumbersShown(current: current, pages: pages) {
            if n == 0 {
                items.append("<li aria-hidden=\"true\">…</li>")
            } else if n == current {
                items.append("<li><a href=\"\(pageFile(base, n))\" aria-current=\"page\">\(n)</a></li>")
            } else {
                items.append("<li><a href=\"\(pageFile(base, n))\">\(n)</a></li>")
            }
        }
        if current < pages { items.append("<li><a href=\"\(pageFile(base, current + 1))\" rel=\"next\">Next</a></li>") }
        return "<nav class=\"pages\" aria-label=\"\(escape(label))\"><ul>\(items.joined())</ul></nav>"
    }

    /// Page numbers to link: the first, the last and two either side of the current one; 0 marks a gap.
    static func pageNumbersShown(current: Int, pages: Int) -> [Int] {
        var out: [Int] = []
        for n in 1...pages where n == 1 || n == pages || abs(n - current) <= 2 {
            if let last = out.last, n > last + 1 { out.append(0) }
            out.append(n)
        }
        return out
    }

    /// A badge (a short label in a pill); `kind` picks its colour class.
    static func badge(_ text: String, kind: String = "trait") -> String {
        "<span class=\"badge \(kind)\">\(escape(text))</span>"
    }

    /// A definition list of label/value rows; values are escaped here.
    static func facts(_ rows: [(String, String)]) -> String {
        "<dl class=\"facts\">" + rows.map { "<dt>\(escape($0.0))</dt><dd>\(escape($0.1))</dd>" }.joined() + "</dl>"
    }
}

/// Where a file of the site lives and how a page reaches another one.
public enum SitePath {
    /// A file-name-safe form of an identifier: letters, digits and `-` kept, everything else `-`.
    public static func safe(_ id: String) -> String {
        String(id.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "-" })
    }

    /// The asset page of a local identifier, from the site root (`assets/ab/<id>.html`; two-character
    /// folders keep 100k pages out of one directory).
    public static func assetPage(_ localIdentifier: String) -> String {
        let s = safe(localIdentifier)
        return "assets/\(String(s.prefix(2)).lowercased())/\(s).html"
    }

    /// The way back to the site root from a page at `path` (relative to the root): one `../` per folder.
    public static func root(of path: String) -> String {
        String(repeating: "../", count: path.split(separator: "/").count - 1)
    }

    /// `to` (an absolute path) relative to the folder `from` (an absolute path), `/`-separated.
    public static func relative(from: String, to: String) -> String {
        let a = from.split(separator: "/").map(String.init)
        let b = to.split(separator: "/").map(String.init)
        var i = 0
        while i < a.count, i < b.count, a[i] == b[i] { i += 1 }
        let up = Array(repeating: "..", count: a.count - i)
        let rest = (up + b[i...]).joined(separator: "/")
        return rest.isEmpty ? "." : rest
    }
}
