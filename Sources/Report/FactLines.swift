import Foundation

/// Stored probe facts (JSON) as lines: `a.b.c = value   ← source` for `{value, source}` pairs, `a.b = value`
/// otherwise. `shoebox show --facts` prints them; asset pages list them.
public enum FactLines {
    /// The lines of one file's stored facts, nil when they do not parse.
    public static func lines(_ facts: [UInt8]) -> [String]? {
        guard let obj = try? JSONSerialization.jsonObject(with: Data(facts)) else { return nil }
        var out: [String] = []
        flatten(obj, "", into: &out)
        return out
    }

    static func flatten(_ v: Any, _ path: String, into lines: inout [String]) {
        if let d = v as? [String: Any] {
            if let source = d["source"] as? String, let value = d["value"], d.count == 2 {
                lines.append("\(path) = \(scalar(value))   ← \(source)")
                return
            }
            for k in d.keys.sorted() { flatten(d[k]!, path.isEmpty ? k : path + "." + k, into: &lines) }
        } else if let a = v as? [Any] {
            if a.isEmpty { return }
            if a.allSatisfy({ !($0 is [String: Any]) && !($0 is [Any]) }) {
                lines.append("\(path) = [\(a.map(scalar).joined(separator: ", "))]")
                return
            }
            for (i, x) in a.enumerated() { flatten(x, "\(path)[\(i)]", into: &lines) }
        } else {
            lines.append("\(path) = \(scalar(v))")
        }
    }

    static func scalar(_ v: Any) -> String {
        if let s = v as? String { return s }
        if let d = v as? [String: Any], let data = try? JSONSerialization.data(withJSONObject: d, options: [.sortedKeys]) {
            return String(decoding: data, as: UTF8.self)
        }
        return "\(v)"
    }
}
