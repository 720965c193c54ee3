/// A parsed property-list or JSON value, as the sidecar readers see it.
///
/// Dates stay text (ISO 8601, UTC); binary-plist dates are converted to the same form.
public indirect enum SidecarValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case date(String)
    case data([UInt8])
    case array([SidecarValue])
    case dict([String: SidecarValue])
    /// A binary-plist UID (NSKeyedArchiver object reference).
    case uid(UInt64)
    case null

    /// The value for `key` when this is a dictionary.
    public subscript(_ key: String) -> SidecarValue? {
        if case .dict(let d) = self { return d[key] }
        return nil
    }

    /// Text, for strings (and dates).
    public var stringValue: String? {
        switch self {
        case .string(let s), .date(let s): return s
        default: return nil
        }
    }

    /// An integer, for integers, integral reals, booleans and decimal strings.
    public var intValue: Int64? {
        switch self {
        case .integer(let i): return i
        case .real(let d):
            guard d.isFinite, d == d.rounded(), abs(d) < 9.0e18 else { return nil }
            return Int64(d)
        case .bool(let b): return b ? 1 : 0
        case .string(let s): return Int64(s.sidecarTrimmed)
        default: return nil
        }
    }

    /// A number, for integers, reals and numeric strings.
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .real(let d): return d
        case .string(let s): return Double(s.sidecarTrimmed)
        default: return nil
        }
    }

    /// A boolean, for booleans and the integers 0/1.
    public var boolValue: Bool? {
        switch self {
        case .bool(let b): return b
        case .integer(let i) where i == 0 || i == 1: return i == 1
        case .string(let s) where s == "true" || s == "false": return s == "true"
        default: return nil
        }
    }

    /// The elements, for arrays.
    public var arrayValue: [SidecarValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The bytes, for data.
    public var dataValue: [UInt8]? {
        if case .data(let d) = self { return d }
        return nil
    }
}

extension String {
    var sidecarTrimmed: Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\n" || f == "\r" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\n" || l == "\r" { s.removeLast() }
        return s
    }
}

/// Calendar helpers for ISO 8601 text without Foundation.
enum SidecarDate {
    /// `yyyy-MM-ddTHH:mm:ssZ` for seconds since 1970 (UTC); nil when out of a sane range.
    static func iso8601(unixSeconds: Double) -> String? {
        guard unixSeconds.isFinite, abs(unixSeconds) < 1.0e12 else { return nil }
        return FileDate.utcText(Int(unixSeconds.rounded(.down))) + "Z"
    }

    /// Seconds between 1970-01-01 and 2001-01-01 (the plist / Core Foundation epoch).
    static let appleEpochOffset: Double = 978_307_200
}
