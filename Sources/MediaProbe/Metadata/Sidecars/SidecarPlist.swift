/// A small, bounded property-list reader: XML (`<plist>`) and binary (`bplist00`).
///
/// Nesting is limited to `maxDepth`, binary-plist reference cycles are refused, and the total number
/// of values built is capped, so neither deep nesting nor a shared-reference "zip bomb" can exhaust
/// the stack or memory.
public enum SidecarPlist {
    /// Deepest nesting of arrays and dictionaries accepted.
    public static let maxDepth = 64
    /// Most values one parse may build (binary plists can share children, so this bounds the tree).
    public static let maxValues = 200_000
    /// Largest input accepted.
    public static let maxInput = 16 << 20

    /// Parses an XML or binary property list.
    public static func parse(_ bytes: [UInt8], what: String = "plist") throws(ProbeError) -> SidecarValue {
        guard bytes.count <= maxInput else { throw ProbeError(.tooLarge, "\(what): \(bytes.count) bytes exceeds the \(maxInput)-byte limit") }
        if bytes.matches("bplist00") {
            var p = try BinaryPlistParser(bytes, what: what)
            return try p.parseTop()
        }
        var p = XMLPlistParser(bytes, what: what)
        return try p.parseDocument()
    }
}

// MARK: - XML

private struct XMLPlistParser {
    let b: [UInt8]
    let what: String
    var i = 0
    var values = 0

    init(_ bytes: [UInt8], what: String) {
        b = bytes
        self.what = what
        // UTF-8 byte-order mark.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
    }

    func fail(_ msg: String) -> ProbeError { ProbeError(.malformed, "\(what): \(msg) at byte \(i)") }

    mutating func skipSpace() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
    }

    /// Skips whitespace, `<?…?>`, `<!DOCTYPE…>` and comments.
    mutating func skipMisc() throws(ProbeError) {
        while true {
            skipSpace()
            if b.matches("<?", at: i) {
                guard let e = b.firstIndex(of: Array("?>".utf8), from: i + 2) else { throw fail("unterminated <?") }
                i = e + 2
            } else if b.matches("<!--", at: i) {
                guard let e = b.firstIndex(of: Array("-->".utf8), from: i + 4) else { throw fail("unterminated comment") }
                i = e + 3
            } else if b.matches("<!", at: i) {
                guard let e = b.firstIndex(of: [UInt8(ascii: ">")], from: i + 2) else { throw fail("unterminated <!") }
                i = e + 1
            } else {
                return
            }
        }
    }

    /// A tag at the cursor: name, whether it closes (`</x>`) and whether it is empty (`<x/>`).
    mutating func tag() throws(ProbeError) -> (name: String, closing: Bool, empty: Bool) {
        try skipMisc()
        guard i < b.count, b[i] == UInt8(ascii: "<") else {
            throw i >= b.count ? ProbeError(.truncated, "\(what): ends where a tag was expected") : fail("expected a tag")
        }
        guard let close = b.firstIndex(of: [UInt8(ascii: ">")], from: i + 1) else {
            throw ProbeError(.truncated, "\(what): unterminated tag at byte \(i)")
        }
        var s = i + 1, e = close
        let closing = s < e && b[s] == UInt8(ascii: "/")
        if closing { s += 1 }
        let empty = e > s && b[e - 1] == UInt8(ascii: "/")
        if empty { e -= 1 }
        var n = s
        while n < e, b[n] != 0x20, b[n] != 0x09, b[n] != 0x0A, b[n] != 0x0D { n += 1 }
        i = close + 1
        return (String(decoding: b[s..<n], as: UTF8.self), closing, empty)
    }

    /// Text up to `</name>`, entities decoded.
    mutating func text(until name: String) throws(ProbeError) -> String {
        let end = Array("</\(name)".utf8)
        guard let e = b.firstIndex(of: end, from: i) else { throw ProbeError(.truncated, "\(what): missing </\(name)>") }
        let raw = b[i..<e]
        guard let gt = b.firstIndex(of: [UInt8(ascii: ">")], from: e) else { throw ProbeError(.truncated, "\(what): unterminated </\(name)") }
        i = gt + 1
        return try decodeEntities(raw)
    }

    func decodeEntities(_ raw: ArraySlice<UInt8>) throws(ProbeError) -> String {
        var problem = ""
        guard let text = XMLText.decode(raw, strict: true, problem: &problem) else { throw fail(problem) }
        return text
    }

    mutating func parseDocument() throws(ProbeError) -> SidecarValue {
        try skipMisc()
        guard i < b.count else { throw ProbeError(.truncated, "\(what): empty") }
        guard b.matches("<", at: i) else { throw ProbeError(.malformed, "\(what): not a property list (neither XML nor bplist00)") }
        let save = i
        let t = try tag()
        if t.name == "plist" && !t.closing {
            if t.empty { throw fail("empty <plist/>") }
            let v = try value(depth: 0)
            let c = try tag()
            guard c.closing, c.name == "plist" else { throw fail("expected </plist>") }
            return v
        }
        i = save
        return try value(depth: 0)
    }

    mutating func value(depth: Int) throws(ProbeError) -> SidecarValue {
        guard depth < SidecarPlist.maxDepth else { throw ProbeError(.tooDeep, "\(what): nesting deeper than \(SidecarPlist.maxDepth)") }
        values += 1
        guard values <= SidecarPlist.maxValues else { throw ProbeError(.tooLarge, "\(what): more than \(SidecarPlist.maxValues) values") }
        let t = try tag()
        guard !t.closing else { throw fail("unexpected </\(t.name)>") }
        switch t.name {
        case "dict":
            var d: [String: SidecarValue] = [:]
            if t.empty { return .dict(d) }
            while true {
                let k = try tag()
                if k.closing {
                    guard k.name == "dict" else { throw fail("expected </dict>, found </\(k.name)>") }
                    return .dict(d)
                }
                guard k.name == "key" else { throw fail("expected <key> in <dict>, found <\(k.name)>") }
                let key = k.empty ? "" : try text(until: "key")
                d[key] = try value(depth: depth + 1)
            }
        case "array":
            var a: [SidecarValue] = []
            if t.empty { return .array(a) }
            while true {
                try skipMisc()
                if b.matches("</", at: i) {
                    let c = try tag()
                    guard c.name == "array" else { throw fail("expected </array>, found </\(c.name)>") }
                    return .array(a)
                }
                a.append(try value(depth: depth + 1))
            }
        case "string", "key":
            return .string(t.empty ? "" : try text(until: t.name))
        case "integer":
            let s = t.empty ? "" : try text(until: "integer")
            let trimmed = s.sidecarTrimmed
            if let v = Int64(trimmed) { return .integer(v) }
            if let v = UInt64(trimmed) { return .integer(Int64(bitPattern: v)) }
            if trimmed.hasPrefix("0x") || trimmed.hasPrefix("0X"), let v = Int64(trimmed.dropFirst(2), radix: 16) { return .integer(v) }
            throw fail("bad <integer> \(String(s.prefix(40)))")
        case "real":
            let s = t.empty ? "" : try text(until: "real")
            guard let v = Double(s.sidecarTrimmed) else { throw fail("bad <real> \(String(s.prefix(40)))") }
            return .real(v)
        case "true":
            if !t.empty { _ = try text(until: "true") }
            return .bool(true)
        case "false":
            if !t.empty { _ = try text(until: "false") }
            return .bool(false)
        case "date":
            return .date(String(try (t.empty ? "" : text(until: "date")).sidecarTrimmed))
        case "data":
            let s = t.empty ? "" : try text(until: "data")
            guard let d = SidecarBase64.decode(s) else { throw fail("bad base64 in <data>") }
            return .data(d)
        default:
            throw fail("unknown element <\(t.name)>")
        }
    }
}

/// Lenient base64 (whitespace ignored, padding optional).
enum SidecarBase64 {
    static func decode(_ s: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count * 3 / 4)
        var acc: UInt32 = 0, n = 0
        var padding = false
        for c in s.utf8 {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"), UInt8(ascii: "-"): v = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): v = 63
            case UInt8(ascii: "="): padding = true; continue
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default: return nil
            }
            if padding { return nil }  // data after '='
            acc = acc << 6 | v
            n += 1
            if n == 4 {
                out.append(UInt8(truncatingIfNeeded: acc >> 16))
                out.append(UInt8(truncatingIfNeeded: acc >> 8))
                out.append(UInt8(truncatingIfNeeded: acc))
                acc = 0
                n = 0
            }
        }
        switch n {
        case 0: break
        case 2: out.append(UInt8(truncatingIfNeeded: acc >> 4))
        case 3:
            out.append(UInt8(truncatingIfNeeded: acc >> 10))
            out.append(UInt8(truncatingIfNeeded: acc >> 2))
        default: return nil
        }
        return out
    }
}

// MARK: - Binary

private struct BinaryPlistParser {
    let b: [UInt8]
    let what: String
    let offsetSize: Int
    let refSize: Int
    let objectCount: Int
    let top: Int
    let tableOffset: Int
    var values = 0
    var inProgress: Set<Int> = []

    init(_ bytes: [UInt8], what: String) throws(ProbeError) {
        b = bytes
        self.what = what
        guard bytes.count >= 8 + 1 + 32 else { throw ProbeError(.truncated, "\(what): binary plist of \(bytes.count) bytes has no trailer") }
        let t = bytes.count - 32
        offsetSize = Int(bytes[t + 6])
        refSize = Int(bytes[t + 7])
        let count = BinaryReader.uint(bytes, at: t + 8, size: 8, bigEndian: true) ?? 0
        let topObj = BinaryReader.uint(bytes, at: t + 16, size: 8, bigEndian: true) ?? 0
        let table = BinaryReader.uint(bytes, at: t + 24, size: 8, bigEndian: true) ?? 0
        guard (1...8).contains(offsetSize), (1...8).contains(refSize) else {
            throw ProbeError(.malformed, "\(what): binary plist offset/ref size \(offsetSize)/\(refSize)")
        }
        guard count >= 1, count <= UInt64(t), topObj < count, table >= 8, table <= UInt64(t),
            count * UInt64(offsetSize) <= UInt64(t) - table
        else {
            throw ProbeError(.malformed, "\(what): binary plist trailer is inconsistent (objects \(count), top \(topObj), table at \(table))")
        }
        objectCount = Int(count)
        top = Int(topObj)
        tableOffset = Int(table)
    }

    func fail(_ msg: String) -> ProbeError { ProbeError(.malformed, "\(what): binary plist \(msg)") }

    mutating func parseTop() throws(ProbeError) -> SidecarValue { try object(top, depth: 0) }

    func offset(of ref: Int) throws(ProbeError) -> Int {
        guard ref >= 0, ref < objectCount,
            let o = BinaryReader.uint(b, at: tableOffset + ref * offsetSize, size: offsetSize, bigEndian: true),
            o >= 8, o < UInt64(tableOffset)
        else { throw fail("object \(ref) has a bad offset") }
        return Int(o)
    }

    func uint(at o: Int, size: Int) throws(ProbeError) -> UInt64 {
        guard let v = BinaryReader.uint(b, at: o, size: size, bigEndian: true) else {
            throw ProbeError(.truncated, "\(what): binary plist wants \(size) bytes at \(o)")
        }
        return v
    }

    /// The element count after a marker with low nibble `n` and where the payload starts.
    func count(_ n: Int, at o: Int) throws(ProbeError) -> (Int, Int) {
        if n != 0xF { return (n, o + 1) }
        guard o + 1 < b.count else { throw ProbeError(.truncated, "\(what): binary plist count cut off") }
        let m = b[o + 1]
        guard m >> 4 == 1, m & 0xF <= 3 else { throw fail("bad count marker at \(o + 1)") }
        let size = 1 << Int(m & 0xF)
        let v = try uint(at: o + 2, size: size)
        guard v <= UInt64(b.count) else { throw fail("count \(v) exceeds the file size") }
        return (Int(v), o + 2 + size)
    }

    func need(_ start: Int, _ length: Int) throws(ProbeError) {
        guard length >= 0, start >= 0, start <= tableOffset, length <= tableOffset - start else {
            throw ProbeError(.truncated, "\(what): binary plist object of \(length) bytes at \(start) runs past the object area")
        }
    }

    mutating func object(_ ref: Int, depth: Int) throws(ProbeError) -> SidecarValue {
        guard depth < SidecarPlist.maxDepth else { throw ProbeError(.tooDeep, "\(what): nesting deeper than \(SidecarPlist.maxDepth)") }
        values += 1
        guard values <= SidecarPlist.maxValues else { throw ProbeError(.tooLarge, "\(what): more than \(SidecarPlist.maxValues) values") }
        guard !inProgress.contains(ref) else { throw fail("reference cycle through object \(ref)") }
        let o = try offset(of: ref)
        let marker = b[o]
        let type = Int(marker >> 4), n = Int(marker & 0xF)
        switch type {
        case 0x0:
            switch n {
            case 0x0: return .null
            case 0x8: return .bool(false)
            case 0x9: return .bool(true)
            default: throw fail("unknown marker 0x\(String(marker, radix: 16)) at \(o)")
            }
        case 0x1:
            guard n <= 4 else { throw fail("integer of 2^\(n) bytes") }
            let size = 1 << n
            try need(o + 1, size)
            // 16-byte integers: the low 8 bytes carry the value.
            let v = try uint(at: o + 1 + max(0, size - 8), size: min(size, 8))
            return .integer(size >= 8 ? Int64(bitPattern: v) : Int64(v))
        case 0x2:
            guard n == 2 || n == 3 else { throw fail("real of 2^\(n) bytes") }
            try need(o + 1, 1 << n)
            let v = try uint(at: o + 1, size: 1 << n)
            return .real(n == 2 ? Double(Float(bitPattern: UInt32(v))) : Double(bitPattern: v))
        case 0x3:
            guard n == 3 else { throw fail("date marker 0x\(String(marker, radix: 16))") }
            try need(o + 1, 8)
            let secs = Double(bitPattern: try uint(at: o + 1, size: 8))
            guard let iso = SidecarDate.iso8601(unixSeconds: secs + SidecarDate.appleEpochOffset) else { throw fail("date out of range") }
            return .date(iso)
        case 0x4:
            let (len, start) = try count(n, at: o)
            try need(start, len)
            return .data(Array(b[start..<start + len]))
        case 0x5:
            let (len, start) = try count(n, at: o)
            try need(start, len)
            return .string(String(decoding: b[start..<start + len], as: UTF8.self))
        case 0x6:
            let (len, start) = try count(n, at: o)
            guard len <= b.count / 2 else { throw fail("string too long") }
            try need(start, len * 2)
            var units: [UInt16] = []
            units.reserveCapacity(len)
            for k in 0..<len { units.append(UInt16(b[start + 2 * k]) << 8 | UInt16(b[start + 2 * k + 1])) }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x8:
            try need(o + 1, n + 1)
            guard n < 8 else { throw fail("UID of \(n + 1) bytes") }
            return .uid(try uint(at: o + 1, size: n + 1))
        case 0xA, 0xC:
            let (len, start) = try count(n, at: o)
            guard len <= b.count / refSize else { throw fail("array count \(len) is impossible") }
            try need(start, len * refSize)
            inProgress.insert(ref)
            defer { inProgress.remove(ref) }
            var a: [SidecarValue] = []
            a.reserveCapacity(len)
            for k in 0..<len {
                let r = Int(try uint(at: start + k * refSize, size: refSize))
                a.append(try object(r, depth: depth + 1))
            }
            return .array(a)
        case 0xD:
            let (len, start) = try count(n, at: o)
            guard len <= b.count / (2 * refSize) else { throw fail("dictionary count \(len) is impossible") }
            try need(start, 2 * len * refSize)
            inProgress.insert(ref)
            defer { inProgress.remove(ref) }
            var d: [String: SidecarValue] = [:]
            for k in 0..<len {
                let kr = Int(try uint(at: start + k * refSize, size: refSize))
                let vr = Int(try uint(at: start + (len + k) * refSize, size: refSize))
                guard case .string(let key) = try object(kr, depth: depth + 1) else { throw fail("dictionary key is not a string") }
                d[key] = try object(vr, depth: depth + 1)
            }
            return .dict(d)
        default:
            throw fail("unknown marker 0x\(String(marker, radix: 16)) at \(o)")
        }
    }
}
