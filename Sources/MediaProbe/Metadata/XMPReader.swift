#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small, bounded XMP reader: no DTDs, no entity expansion, no network. Extracts the fields Shoebox
/// uses (see `XMPFacts`) from attributes and simple elements.
///
/// Prefixes are normalised by namespace URI (`knownNamespaces`); other namespaces keep their declared
/// prefix. `rdf:Alt` yields the `x-default` (else first) item, `rdf:Seq`/`rdf:Bag` their items joined
/// with ", ". A field seen twice keeps its first value. DOCTYPE and entity declarations are skipped.
public enum XMPReader {
    /// Bytes of a packet that are read; the rest is ignored.
    public static let maxPacketSize = 4 << 20
    /// Deepest element nesting followed; deeper content is ignored.
    public static let maxDepth = 128
    /// Longest value stored; longer ones (embedded base64 images) are listed in `oversizedFields`.
    public static let maxValueLength = 64 << 10

    static let rdfNS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let xmlNS = "http://www.w3.org/XML/1998/namespace"
    /// The `xml` prefix, bound without a declaration.
    static let xmlNamespace = Namespace(uri: xmlNS)

    /// Namespace URI → canonical prefix (ExifTool's group names).
    public static let knownNamespaces: [String: String] = [
        "http://ns.google.com/photos/1.0/camera/": "GCamera",
        "http://ns.google.com/photos/1.0/container/": "Container",
        "http://ns.google.com/photos/1.0/container/item/": "Item",
        "http://ns.google.com/photos/1.0/panorama/": "GPano",
        "http://ns.google.com/photos/1.0/depthmap/": "GDepth",
        "http://ns.google.com/photos/1.0/image/": "GImage",
        "http://ns.google.com/photos/1.0/focus/": "GFocus",
        "http://ns.adobe.com/exif/1.0/": "exif",
        "http://ns.adobe.com/exif/1.0/aux/": "aux",
        "http://cipa.jp/exif/1.0/": "exifEX",
        "http://ns.adobe.com/xap/1.0/": "xmp",
        "http://ns.adobe.com/xap/1.0/mm/": "xmpMM",
        "http://ns.adobe.com/xmp/note/": "xmpNote",
        "http://ns.adobe.com/photoshop/1.0/": "photoshop",
        "http://ns.adobe.com/tiff/1.0/": "tiff",
        "http://ns.adobe.com/hdr-gain-map/1.0/": "hdrgm",
        "http://purl.org/dc/elements/1.1/": "dc",
        "adobe:ns:meta/": "x",
        "http://www.w3.org/1999/02/22-rdf-syntax-ns#": "rdf",
    ]

    /// Parses one XMP packet (or sidecar file).
    public static func parse(_ packet: [UInt8], source: String) -> XMPFacts {
        var p = Parser(source: source)
        p.run(packet.count > maxPacketSize ? Array(packet[0..<maxPacketSize]) : packet)
        return p.finish()
    }

    /// Parses a JPEG's standard packet and its Extended XMP; standard fields win on conflict.
    public static func parse(standard: [UInt8], extended: [UInt8]?, source: String) -> XMPFacts {
        var facts = parse(standard, source: source)
        guard let extended else { return facts }
        let ext = parse(extended, source: source)
        facts.fields.merge(ext.fields) { a, _ in a }
        facts.oversizedFields.merge(ext.oversizedFields) { a, _ in a }
        if facts.directory.isEmpty { facts.directory = ext.directory }
        return facts
    }

    /// A declared namespace with its canonical prefix (`knownNamespaces`), looked up once when it is declared
    /// rather than for every name in its scope.
    struct Namespace {
        var uri: String
        var known: String?
        init(uri: String) {
            self.uri = uri
            known = XMPReader.knownNamespaces[uri]
        }
    }

    struct Frame {
        /// The element's name as written (`exif:DateTimeOriginal`): an end tag that repeats it closes it.
        var name: Substring
        var uri: String
        var local: String
        var key: String
        var declared: [String: Namespace] = [:]
        var text: [UInt8] = []
        var textOverflow = 0
        var hasChildren = false
        var lang: String?
        /// Index of the directory item this element opened (an `rdf:li` under `Container:Directory`).
        var dirItem: Int?
        var isRDF: Bool { uri == XMPReader.rdfNS }
    }

    struct Parser {
        var facts: XMPFacts
        var stack: [Frame] = []
        var lists: [String: [String]] = [:]
        var listOrder: [String] = []
        var altIsDefault: Set<String> = []
        var skippedDepth = 0

        init(source: String) { facts = XMPFacts(source: source) }

        mutating func finish() -> XMPFacts {
            for k in listOrder where facts.fields[k] == nil { facts.fields[k] = lists[k]?.joined(separator: ", ") }
            return facts
        }

        /// The namespace `prefix` names in the open elements' scope (the innermost declaration wins).
        func resolve(_ prefix: String) -> Namespace? {
            for f in stack.reversed() where !f.declared.isEmpty { if let ns = f.declared[prefix] { return ns } }
            if prefix == "xml" { return XMPReader.xmlNamespace }
            return nil
        }

        func canonical(_ qname: Substring, declared: [String: Namespace]) -> (uri: String, local: String, key: String) {
            // An empty name (`<:>`, `<a></:>`, an attribute named `:`) must not crash: found by FuzzXMP.
            let colon = XMPReader.firstColon(qname)
            let prefix = colon.map { String(qname[..<$0]) } ?? ""
            let local = String(colon.map { qname[XMPReader.index(after: $0, in: qname)...] } ?? qname)
            // An unbound prefix has no namespace (URI ""), and keys its names by itself.
            let ns = (declared.isEmpty ? nil : declared[prefix]) ?? resolve(prefix)
            let canon = ns?.known ?? prefix
            return (ns?.uri ?? "", local, canon.isEmpty ? local : XMPReader.qualified(canon, local))
        }

        var currentDirItem: Int? {
            for f in stack.reversed() { if let d = f.dirItem { return d } }
            return nil
        }

        mutating func setItem(_ index: Int, _ local: String, _ value: String) {
            guard index < facts.directory.count else { return }
            let v = value.trimmingWhitespace()
            switch local {
            case "Mime": facts.directory[index].mime = v
            case "Semantic": facts.directory[index].semantic = v
            case "Length": facts.directory[index].length = UInt64(v)
            case "Padding": facts.directory[index].padding = UInt64(v)
            default: break
            }
        }

        mutating func store(_ key: String, _ value: String, overflow: Int = 0) {
            if overflow > 0 || value.utf8.count > XMPReader.maxValueLength {
                if facts.oversizedFields[key] == nil { facts.oversizedFields[key] = value.utf8.count + overflow }
                return
            }
            if facts.fields[key] == nil { facts.fields[key] = value }
        }

        /// The property an `rdf:li` belongs to, and the kind of its container.
        func listOwner() -> (key: String, container: String)? {
            guard stack.count >= 2, stack[stack.count - 1].isRDF else { return nil }
            let container = stack[stack.count - 1].local
            for f in stack.dropLast().reversed() where !f.isRDF { return (f.key, container) }
            return nil
        }

        mutating func startElement(_ name: Substring, _ attrs: [(Substring, String)], selfClosing: Bool) {
            if skippedDepth > 0 || stack.count >= XMPReader.maxDepth {
                if !selfClosing { skippedDepth += 1 }
                return
            }
            var declared: [String: Namespace] = [:]
            for (n, v) in attrs {
                if XMPReader.isDefaultDeclaration(n) {
                    declared[""] = Namespace(uri: v)
                } else if XMPReader.isPrefixedDeclaration(n) {
                    declared[String(n.dropFirst(6))] = Namespace(uri: v)
                }
            }
            let c = canonical(name, declared: declared)
            if !stack.isEmpty { stack[stack.count - 1].hasChildren = true }
            var frame = Frame(name: name, uri: c.uri, local: c.local, key: c.key, declared: declared)
            if frame.isRDF, c.local == "li", stack.count >= 2,
                stack[stack.count - 1].isRDF, stack[stack.count - 2].key == "Container:Directory"
            {
                facts.directory.append(XMPDirectoryItem(mime: nil, semantic: nil, length: nil, padding: nil))
                frame.dirItem = facts.directory.count - 1
            }
            stack.append(frame)
            for (n, v) in attrs where !XMPReader.isDefaultDeclaration(n) && !XMPReader.isPrefixedDeclaration(n) {
                let a = canonical(n, declared: [:])
                if a.uri == XMPReader.xmlNS {
                    if a.local == "lang" { stack[stack.count - 1].lang = v }
                    continue
                }
                if a.uri == XMPReader.rdfNS || a.uri.isEmpty && !n.contains(":") { continue }
                if a.key.hasPrefix("Item:"), let d = currentDirItem {
                    setItem(d, a.local, v)
                } else {
                    store(a.key, v)
                }
            }
            if selfClosing { endElement(nil) }
        }

        mutating func endElement(_ name: Substring?) {
            if skippedDepth > 0 {
                skippedDepth -= 1
                return
            }
            guard var frame = stack.popLast() else { return }
            // The same name as the start tag names the same element (the stack below is as it was then).
            if let name, name != frame.name {
                let c = canonical(name, declared: frame.declared)
                if c.key != frame.key, stack.contains(where: { $0.key == c.key }) {
                    // Mismatched end tag: close everything up to the element it names.
                    while let f = stack.popLast(), f.key != c.key {}
                    return
                }
            }
            if frame.isRDF, ["Bag", "Seq", "Alt"].contains(frame.local), !frame.hasChildren,
                let owner = stack.last(where: { !$0.isRDF }), lists[owner.key] == nil
            {
                store(owner.key, "")  // an empty list, as exiftool reports it
                return
            }
            guard !frame.hasChildren, !frame.text.isEmpty || frame.textOverflow > 0 else { return }
            let value = XMPReader.decodeText(frame.text)
            frame.text = []
            if frame.isRDF {
                guard frame.local == "li", let owner = listOwner() else { return }
                if owner.key.hasPrefix("Item:"), let d = currentDirItem {
                    setItem(d, String(owner.key.dropFirst(5)), value)
                } else if owner.container == "Alt" {
                    if frame.lang == "x-default", !altIsDefault.contains(owner.key), frame.textOverflow == 0,
                        value.utf8.count <= XMPReader.maxValueLength
                    {
                        facts.fields[owner.key] = value
                        altIsDefault.insert(owner.key)
                    } else {
                        store(owner.key, value, overflow: frame.textOverflow)
                    }
                } else {
                    if lists[owner.key] == nil { listOrder.append(owner.key) }
                    if (lists[owner.key]?.count ?? 0) < 1000 { lists[owner.key, default: []].append(value) }
                }
                return
            }
            if frame.key.hasPrefix("Item:"), let d = currentDirItem ?? frame.dirItem {
                setItem(d, frame.local, value)
            } else if frame.uri != "adobe:ns:meta/" {
                store(frame.key, value, overflow: frame.textOverflow)
            }
        }

        mutating func text(_ t: ArraySlice<UInt8>) {
            guard skippedDepth == 0, !stack.isEmpty, !stack[stack.count - 1].hasChildren else { return }
            let room = XMPReader.maxValueLength + 1 - stack[stack.count - 1].text.count
            if room >= t.count {
                stack[stack.count - 1].text.append(contentsOf: t)
            } else {
                stack[stack.count - 1].text.append(contentsOf: t.prefix(max(0, room)))
                stack[stack.count - 1].textOverflow += t.count - max(0, room)
            }
        }

        mutating func run(_ b: [UInt8]) {
            let n = b.count
            var i = 0
            while i < n {
                guard let lt = XMPReader.find(UInt8(ascii: "<"), in: b, from: i) else {
                    text(b[i..<n])
                    return
                }
                if lt > i { text(b[i..<lt]) }
                i = lt
                // The byte after `<` says which kind of markup this is; only `<!` needs a longer look.
                let next = i + 1 < n ? b[i + 1] : 0
                if next == UInt8(ascii: "!"), b.matches("<!--", at: i) {
                    i = XMPReader.find("-->", in: b, from: i + 4).map { $0 + 3 } ?? n
                } else if next == UInt8(ascii: "!"), b.matches("<![CDATA[", at: i) {
                    let end = XMPReader.find("]]>", in: b, from: i + 9) ?? n
                    text(b[(i + 9)..<end])
                    i = min(n, end + 3)
                } else if next == UInt8(ascii: "!") {
                    let end = XMPReader.skipDeclaration(b, from: i + 2)
                    facts.declaredEntities += XMPReader.count("<!ENTITY", in: b[i..<end])
                    i = end
                } else if next == UInt8(ascii: "?") {
                    i = XMPReader.find("?>", in: b, from: i + 2).map { $0 + 2 } ?? n
                } else if next == UInt8(ascii: "/") {
                    let gt = XMPReader.find(UInt8(ascii: ">"), in: b, from: i + 2) ?? n
                    let name = XMPReader.trimmed(b[(i + 2)..<gt])
                    endElement(Substring(decoding: name, as: UTF8.self))
                    i = min(n, gt + 1)
                } else {
                    i = startTag(b, from: i + 1)
                }
            }
        }

        /// Parses a start tag after `<`; returns the index after its `>`.
        mutating func startTag(_ b: [UInt8], from start: Int) -> Int {
            let n = b.count
            var i = start
            while i < n, !XMPReader.isSpace(b[i]), b[i] != UInt8(ascii: ">"), b[i] != UInt8(ascii: "/") { i += 1 }
            let name = Substring(decoding: b[start..<i], as: UTF8.self)
            var attrs: [(Substring, String)] = []
            while i < n {
                while i < n, XMPReader.isSpace(b[i]) { i += 1 }
                guard i < n else { break }
                if b[i] == UInt8(ascii: ">") {
                    if !name.isEmpty { startElement(name, attrs, selfClosing: false) }
                    return i + 1
                }
                if b[i] == UInt8(ascii: "/") {
                    if i + 1 < n, b[i + 1] == UInt8(ascii: ">") {
                        if !name.isEmpty { startElement(name, attrs, selfClosing: true) }
                        return i + 2
                    }
                    i += 1
                    continue
                }
                let ns = i
                while i < n, !XMPReader.isSpace(b[i]), b[i] != UInt8(ascii: "="), b[i] != UInt8(ascii: ">"),
                    b[i] != UInt8(ascii: "/")
                { i += 1 }
                let attrName = Substring(decoding: b[ns..<i], as: UTF8.self)
                while i < n, XMPReader.isSpace(b[i]) { i += 1 }
                guard i < n, b[i] == UInt8(ascii: "=") else { continue }
                i += 1
                while i < n, XMPReader.isSpace(b[i]) { i += 1 }
                guard i < n, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") else { continue }
                let q = b[i]
                let vs = i + 1
                let ve = XMPReader.find(q, in: b, from: vs) ?? n
                if attrs.count < 1000 { attrs.append((attrName, XMPReader.decodeText(b[vs..<ve]))) }
                i = min(n, ve + 1)
            }
            return n
        }
    }

    /// The first `:` of a name (as `firstIndex(of: ":")` finds it, a character at a time), found by its byte;
    /// a `:` followed by a non-ASCII byte (a combining mark would make it another character) takes the
    /// character path.
    static func firstColon(_ name: Substring) -> Substring.Index? {
        let bytes = name.utf8
        // The colon's offset by memchr over the name's bytes (the generic search was ~370 instructions a name).
        var n = name
        guard let offset = n.withUTF8({ b -> Int? in
            guard let p = b.baseAddress, let hit = memchr(p, 0x3A, b.count) else { return nil }
            return UnsafeRawPointer(hit) - UnsafeRawPointer(p)
        }) else { return nil }
        let i = bytes.index(bytes.startIndex, offsetBy: offset)
        let next = bytes.index(after: i)
        return next == bytes.endIndex || bytes[next] < 0x80 ? i : name.firstIndex(of: ":")
    }

    /// The index after the colon `firstColon` found: the next byte's when it is plain ASCII (the colon is then
    /// a character of its own), else the next character's.
    static func index(after colon: Substring.Index, in name: Substring) -> Substring.Index {
        let bytes = name.utf8
        let next = bytes.index(after: colon)
        return next == bytes.endIndex || bytes[next] < 0x80 ? next : name.index(after: colon)
    }

    /// `name.hasPrefix("xmlns:")`, by bytes when the character after the colon is plain ASCII.
    static func isPrefixedDeclaration(_ name: Substring) -> Bool {
        var n = name
        let byBytes = n.withUTF8 { b -> Bool? in
            guard b.count >= 6, b[0] == 0x78, b[1] == 0x6D, b[2] == 0x6C, b[3] == 0x6E, b[4] == 0x73, b[5] == 0x3A else { return false }
            return b.count == 6 || b[6] < 0x80 ? true : nil
        }
        return byBytes ?? name.hasPrefix("xmlns:")
    }

    /// `name == "xmlns"` (ASCII letters: equal characters are equal bytes), by bytes.
    static func isDefaultDeclaration(_ name: Substring) -> Bool {
        var n = name
        return n.withUTF8 { b in b.count == 5 && b[0] == 0x78 && b[1] == 0x6D && b[2] == 0x6C && b[3] == 0x6E && b[4] == 0x73 }
    }

    /// `prefix + ":" + local` in one allocation (the two appends of `+` were ~500 instructions a name).
    static func qualified(_ prefix: String, _ local: String) -> String {
        var a = prefix, b = local
        return a.withUTF8 { pa in
            b.withUTF8 { pb in
                String(unsafeUninitializedCapacity: pa.count + 1 + pb.count) { out in
                    var i = out.initialize(fromContentsOf: pa)
                    out[i] = 0x3A
                    i += 1
                    i += UnsafeMutableBufferPointer(rebasing: out[i...]).initialize(fromContentsOf: pb)
                    return i
                }
            }
        }
    }

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    static func trimmed(_ s: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var s = s
        while let f = s.first, isSpace(f) { s.removeFirst() }
        while let l = s.last, isSpace(l) { s.removeLast() }
        return s
    }

    static func find(_ c: UInt8, in b: [UInt8], from: Int) -> Int? {
        var i = from
        while i < b.count {
            if b[i] == c { return i }
            i += 1
        }
        return nil
    }

    static func find(_ s: String, in b: [UInt8], from: Int) -> Int? { b.firstIndex(of: Array(s.utf8), from: from) }

    /// Occurrences of `s` in a slice.
    static func count(_ s: String, in b: ArraySlice<UInt8>) -> Int {
        let needle = Array(s.utf8)
        let bytes = Array(b)
        var n = 0
        var i = 0
        while let j = bytes.firstIndex(of: needle, from: i) {
            n += 1
            i = j + needle.count
        }
        return n
    }

    /// Skips `<!DOCTYPE …>` (with an internal subset) or any other `<!…>`; nothing in it is used.
    static func skipDeclaration(_ b: [UInt8], from: Int) -> Int {
        var i = from
        var depth = 0
        while i < b.count {
            switch b[i] {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                i = (find(b[i], in: b, from: i + 1) ?? b.count - 1) + 1
                continue
            case UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "]"): depth = max(0, depth - 1)
            case UInt8(ascii: ">") where depth == 0: return i + 1
            default: break
            }
            i += 1
        }
        return b.count
    }

    /// Decodes the five XML entities and numeric character references; anything else stays as written.
    static func decodeText<C: Collection>(_ raw: C) -> String where C.Element == UInt8, C.Index == Int {
        var ignored = ""
        return XMLText.decode(raw, strict: false, problem: &ignored) ?? String(decoding: raw, as: UTF8.self)
    }
}
