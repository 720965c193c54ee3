import Foundation
import TestSupport
@testable import MediaProbe

/// Reads values out of the exiftool oracle (`facts/*.json`, `-n` numbers, `-G1` groups).
enum Oracle {
    static func tags(_ rel: String) -> [String: Any] { (Corpus.facts(for: rel)?["exiftool"] as? [String: Any]) ?? [:] }

    static func int(_ v: Any?) -> Int64? {
        if let s = v as? String { return Int64(s) }
        if let n = v as? NSNumber { return n.int64Value }
        return nil
    }

    static func double(_ v: Any?) -> Double? {
        if let s = v as? String { return Double(s) }
        if let n = v as? NSNumber { return n.doubleValue }
        return nil
    }

    static func string(_ v: Any?) -> String? {
        if let s = v as? String { return s }
        if let n = v as? NSNumber { return n.stringValue }
        return nil
    }

    /// A list tag as strings (exiftool writes a one-item list as a scalar).
    static func list(_ v: Any?) -> [String] {
        if let a = v as? [Any] { return a.compactMap(string) }
        return string(v).map { [$0] } ?? []
    }

    /// An XMP date as exiftool prints it (`2021-04-08T16:04:55` → `2021:04:08 16:04:55`).
    static func exiftoolDate(_ xmp: String) -> String {
        var chars = Array(xmp)
        for i in 0..<min(10, chars.count) where chars[i] == "-" { chars[i] = ":" }
        if chars.count > 10, chars[10] == "T" { chars[10] = " " }
        return String(chars)
    }
}

/// Corpus files grouped by sniffed container kind (content, not extension).
enum CorpusImages {
    static let byKind: [ContainerKind: [String]] = {
        guard let root = Corpus.root else { return [:] }
        var out: [ContainerKind: [String]] = [:]
        for rel in Corpus.mediaFiles() {
            guard let src = try? FileSource(path: root.appendingPathComponent(rel).path),
                let head = try? src.read(at: 0, count: Sniffer.headerSize)
            else { continue }
            out[Sniffer.sniff(head, fileSize: src.size), default: []].append(rel)
        }
        return out
    }()

    static func files(_ kind: ContainerKind) -> [String] { byKind[kind] ?? [] }

    static func source(_ rel: String) throws -> FileSource {
        guard let root = Corpus.root else { throw ProbeError(.unreadable, "no corpus") }
        return try FileSource(path: root.appendingPathComponent(rel).path)
    }

    static func bytes(_ rel: String) throws -> [UInt8] {
        guard let root = Corpus.root else { return [] }
        return [UInt8](try Data(contentsOf: root.appendingPathComponent(rel)))
    }
}

/// Compares parsed XMP with the oracle's `XMP-*` tags for the namespaces Shoebox uses.
enum XMPOracle {
    /// Groups whose every scalar tag must be present with the same name (case-insensitive) and value.
    static let strictGroups: Set<String> = ["GCamera", "GPano", "GDepth", "GFocus"]
    /// Single tags compared where the oracle has them.
    static let strictTags: Set<String> = [
        "exif:UserComment", "exif:DateTimeOriginal", "photoshop:DateCreated", "xmp:CreateDate", "xmp:Rating",
        "dc:Title", "dc:Description", "dc:Subject",
    ]

    /// exiftool tag names that differ from the XMP property name.
    static let renamed: [String: String] = ["GDepth:DepthImage": "GDepth:Data", "GImage:ImageData": "GImage:Data"]

    /// Mismatches as readable lines (empty when everything agrees).
    static func mismatches(_ facts: XMPFacts, oracle: [String: Any]) -> [String] {
        var out: [String] = []
        let lowered = Dictionary(facts.fields.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        let oversized = Set(facts.oversizedFields.keys.map { $0.lowercased() })
        for (key, value) in oracle where key.hasPrefix("XMP-") {
            let name = renamed[String(key.dropFirst(4))] ?? String(key.dropFirst(4))
            let group = String(name.prefix { $0 != ":" })
            guard strictGroups.contains(group) || strictTags.contains(name) else { continue }
            let expected = Oracle.list(value).joined(separator: ", ")
            if expected.hasPrefix("(Binary data") {
                if lowered[name.lowercased()] == nil && !oversized.contains(name.lowercased()) {
                    out.append("\(name): binary in oracle, missing here")
                }
                continue
            }
            guard let got = lowered[name.lowercased()] else {
                out.append("\(name): missing (oracle \(expected))")
                continue
            }
            if let a = Double(got), let b = Double(expected), abs(a - b) <= 1e-9 * max(1, abs(b)) { continue }
            if got == expected || Oracle.exiftoolDate(got) == expected { continue }
            out.append("\(name): \(got) != oracle \(expected)")
        }
        return out
    }

    /// The `XMP-GContainer` directory lists compared with the parsed directory.
    static func directoryMismatches(_ facts: XMPFacts, oracle: [String: Any]) -> [String] {
        var out: [String] = []
        let semantics = Oracle.list(oracle["XMP-GContainer:DirectoryItemSemantic"])
        let mimes = Oracle.list(oracle["XMP-GContainer:DirectoryItemMime"])
        let lengths = Oracle.list(oracle["XMP-GContainer:DirectoryItemLength"]).compactMap { UInt64($0) }
        let paddings = Oracle.list(oracle["XMP-GContainer:DirectoryItemPadding"]).compactMap { UInt64($0) }
        if facts.directory.compactMap(\.semantic) != semantics { out.append("semantics \(facts.directory.compactMap(\.semantic)) != \(semantics)") }
        if facts.directory.compactMap(\.mime) != mimes { out.append("mimes \(facts.directory.compactMap(\.mime)) != \(mimes)") }
        if facts.directory.compactMap(\.length) != lengths { out.append("lengths \(facts.directory.compactMap(\.length)) != \(lengths)") }
        if facts.directory.compactMap(\.padding) != paddings { out.append("paddings \(facts.directory.compactMap(\.padding)) != \(paddings)") }
        return out
    }
}

/// Builders for synthetic inputs.
enum Bytes {
    static func u16be(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func u32be(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func u16le(_ v: Int) -> [UInt8] { u16be(v).reversed() }
    static func u32le(_ v: Int) -> [UInt8] { u32be(v).reversed() }
    static func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// A JPEG segment: FF marker, length, payload.
    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + u16be(payload.count + 2) + payload
    }
}
