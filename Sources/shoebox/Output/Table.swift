import Catalog
import Foundation

/// Columns measured by how wide they print, not by how many characters they hold.
enum DisplayWidth {
    /// Terminal columns `s` takes: 0 for combining marks and zero-width characters, 2 for East Asian
    /// wide and fullwidth characters and emoji, 1 otherwise (what `wcwidth` says, without the locale).
    static func of(_ s: String) -> Int {
        var w = 0
        for c in s.unicodeScalars { w += of(c) }
        return w
    }

    static func of(_ c: Unicode.Scalar) -> Int {
        let v = c.value
        if v < 0x300 { return v < 0x20 || (0x7F..<0xA0).contains(v) ? 0 : 1 }
        switch c.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if (0x1160...0x11FF).contains(v) || (0xD7B0...0xD7FF).contains(v) { return 0 }  // Hangul medial/final jamo
        return isWide(v) ? 2 : 1
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges, and emoji presented as pictures.
    static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0, 0x23F3, 0x25FD...0x25FE,
            0x2614...0x2615, 0x2648...0x2653, 0x267F, 0x2693, 0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE,
            0x26C4...0x26C5, 0x26CE, 0x26D4, 0x26EA, 0x26F2...0x26F3, 0x26F5, 0x26FA, 0x26FD, 0x2705,
            0x270A...0x270B, 0x2728, 0x274C, 0x274E, 0x2753...0x2755, 0x2757, 0x2795...0x2797, 0x27B0, 0x27BF,
            0x2B1B...0x2B1C, 0x2B50, 0x2B55, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
            0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
            0x1F004, 0x1F0CF, 0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F251, 0x1F300...0x1F64F, 0x1F680...0x1F6FF,
            0x1F7E0...0x1F7EB, 0x1F90C...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `s` padded with spaces to `width` columns (never cut).
    static func pad(_ s: String, _ width: Int) -> String {
        let w = of(s)
        return w >= width ? s : s + String(repeating: " ", count: width - w)
    }

    /// `s` cut to at most `width` columns, ending in `…` when anything was cut; whole characters only
    /// (a base letter keeps its combining marks).
    static func truncate(_ s: String, _ width: Int) -> String {
        guard of(s) > width else { return s }
        guard width > 0 else { return "" }
        var out = ""
        var w = 0
        for ch in s {
            let cw = of(String(ch))
            if w + cw > width - 1 { break }
            out.append(ch)
            w += cw
        }
        return out + "…"
    }
}

/// A table for the terminal: a header of upper-cased names, columns as wide as their widest cell.
/// Identifiers and paths are never cut (people copy them); when the rows are wider than the terminal,
/// the other columns are cut with `…`, widest first, down to a floor. The last column is not padded.
struct Table {
    enum Kind {
        /// Never cut: identifiers, paths, tokens.
        case whole
        /// Cut with … when the table is too wide.
        case text
        /// Right-aligned, never cut.
        case number
    }

    struct Column {
        var name: String
        var kind: Kind
        init(_ name: String, _ kind: Kind = .text) {
            self.name = name
            self.kind = kind
        }
    }

    var columns: [Column]
    var rows: [[String]] = []

    init(_ columns: [Column]) { self.columns = columns }

    mutating func append(_ row: [String]) { rows.append(row) }

    /// The table's lines for a terminal `maxWidth` columns wide (nil: no limit).
    func lines(maxWidth: Int? = Table.terminalWidth()) -> [String] {
        let header = columns.map { $0.name.uppercased() }
        var widths = header.map(DisplayWidth.of)
        for r in rows {
            for (k, v) in r.enumerated() where k < widths.count { widths[k] = max(widths[k], DisplayWidth.of(v)) }
        }
        if let maxWidth { shrink(&widths, to: maxWidth) }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for (k, col) in columns.enumerated() {
                let v = k < cells.count ? cells[k] : ""
                let last = k == columns.count - 1
                switch col.kind {
                case .whole: parts.append(last ? v : DisplayWidth.pad(v, widths[k]))
                case .number: parts.append(String(repeating: " ", count: max(0, widths[k] - DisplayWidth.of(v))) + v)
                case .text:
                    let cut = DisplayWidth.truncate(v, widths[k])
                    parts.append(last ? cut : DisplayWidth.pad(cut, widths[k]))
                }
            }
            var s = parts.joined(separator: "  ")
            while s.hasSuffix(" ") { s.removeLast() }
            return s
        }
        return [line(header)] + rows.map(line)
    }

    /// Narrows the `.text` columns (widest first, to no less than 8 or their header) until the table fits.
    private func shrink(_ widths: inout [Int], to maxWidth: Int) {
        func total() -> Int { widths.reduce(0, +) + 2 * max(0, widths.count - 1) }
        while total() > maxWidth {
            let candidates = columns.indices.filter {
                columns[$0].kind == .text && widths[$0] > max(8, DisplayWidth.of(columns[$0].name))
            }
            guard let widest = candidates.max(by: { widths[$0] < widths[$1] }) else { return }
            widths[widest] -= 1
        }
    }

    func print() {
        for l in lines() { Swift.print(l) }
    }

    /// The terminal's width when standard output is a terminal; nil otherwise (a pipe gets whole cells).
    static func terminalWidth() -> Int? {
        guard isatty(1) == 1 else { return nil }
        var w = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &w) == 0, w.ws_col > 20 { return Int(w.ws_col) }
        return nil
    }
}

/// Values as tables show them.
enum Cell {
    /// `3.7 MB` (SI units, as Finder and Photos show file sizes); bytes below 1 kB.
    static func bytes(_ n: Int64?) -> String {
        guard let n else { return "" }
        if n < 1000 { return "\(n) B" }
        let units = ["kB", "MB", "GB", "TB", "PB"]
        var v = Double(n) / 1000
        var i = 0
        while v >= 999.95 && i < units.count - 1 {
            v /= 1000
            i += 1
        }
        return String(format: v < 10 ? "%.1f" : "%.0f", v) + " " + units[i]
    }

    /// A CSV field: quoted when it holds a comma, quote or line break.
    static func csv(_ s: String) -> String { AssetField.csv(s) }

    static func csvLine(_ cells: [String]) -> String { AssetField.csvLine(cells) }
}
