import Catalog
import Foundation
import PhotoModel
import Testing
import TestSupport

@testable import Pipeline

/// Creation-request manifests: written from a catalog, checked against docs/requests.schema.json, replayed
/// into a fresh catalog in one transaction; bad manifests are rejected whole, naming the line.
@Suite(.serialized) struct RequestsTests {
    static let schemaURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/requests.schema.json")

    static func schemaFromFile() throws -> JSONSchema {
        try JSONSchema(text: String(contentsOf: schemaURL, encoding: .utf8))
    }

    /// Every line of `text` against the schema file; returns the problems as `line N: …`.
    static func schemaProblems(_ text: String) throws -> [String] {
        let schema = try schemaFromFile()
        var out: [String] = []
        for (k, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            for e in schema.validate(try JSONValue.parse(String(line))) { out.append("line \(k + 1): \(e)") }
        }
        return out
    }

    @Test func theSchemaFileIsTheEmbeddedSchema() throws {
        let file = try JSONValue.parse(String(contentsOf: Self.schemaURL, encoding: .utf8))
        #expect(file == (try JSONValue.parse(RequestsManifest.schemaText)))
        #expect(file["$schema"]?.stringValue == "https://json-schema.org/draft/2020-12/schema")
    }

    // MARK: - Round trip over the corpus

    struct AssetFacts: Equatable {
        var mediaType: MediaType
        var subtypes: MediaSubtypes
        var traits: Set<PhotoModel.Trait>
        var resources: [AssetResource]
        var hashes: [String?]
        var creationDate: AssetDate?
        var location: Location?
        var isFavorite: Bool
        var isHidden: Bool

        init(_ s: StoredAsset) {
            mediaType = s.asset.mediaType
            subtypes = s.asset.mediaSubtypes
            traits = s.asset.traits
            resources = s.asset.resources
            hashes = s.resourceHashes
            creationDate = s.asset.creationDate
            location = s.asset.location
            isFavorite = s.asset.isFavorite
            isHidden = s.asset.isHidden
        }
    }

    /// Albums as "title <- folder: sorted member paths" (a multiset: titles repeat).
    static func albumSummary(_ c: Catalog) throws -> [String] {
        let pathOf = Dictionary(uniqueKeysWithValues: try c.allAssets().map { ($0.localIdentifier, $0.asset.id) })
        return try c.albumsWithMembers().map { a in
            let folder = try c.collectionLists(containing: a.localIdentifier).map(\.title).sorted().joined(separator: ",")
            return "\(a.title) <- [\(folder)]: " + a.members.compactMap { pathOf[$0] }.sorted().joined(separator: " ")
        }.sorted()
    }

    static func folderSummary(_ c: Catalog) throws -> [String] {
        try c.collectionLists(type: .folder).map { f in
            "\(f.title) <- [" + (try c.collectionLists(containing: f.localIdentifier).map(\.title).sorted().joined(separator: ",")) + "]"
        }.sorted()
    }

    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"))
    func corpusRoundTripsThroughAManifest() async throws {
        let root = try #require(Corpus.root).path
        let s = try IngestTests.Scratch()
        let source = try Catalog(path: s.catalogPath)
        _ = try await IngestTests.ingest([root], source)
        let requests = try source.creationRequests()
        let text = requests.text
        let file = s.url.appendingPathComponent("all.jsonl")
        try Data(text.utf8).write(to: file)

        let problems = try Self.schemaProblems(text)
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        try RequestsManifest.validate(text, file: file.path)
        let src = try source.allAssets()
        #expect(requests.assetCount == src.count)
        #expect(requests.albumCount == (try source.collectionCount(type: .album)))
        // Placeholders are new identifiers, mapped back to the source's.
        #expect(Set(requests.placeholders.values).isSuperset(of: src.map(\.localIdentifier)))
        #expect(Set(requests.placeholders.keys).isDisjoint(with: src.map(\.localIdentifier)))
        // Every reference points back.
        var seen = Set<String>()
        for line in requests.lines {
            let v = try JSONValue.parse(line)
            for r in (v["members"]?.arrayValue ?? []) + [v["parent"] ?? .null] where !r.isNull {
                #expect(seen.contains(r.stringValue ?? ""), "forward reference in \(line.prefix(120))")
            }
            if let p = v["placeholder"]?.stringValue { seen.insert(p) }
        }

        let s2 = try IngestTests.Scratch()
        let target = try Catalog(path: s2.catalogPath)
        let records = try target.replayCreationRequests(String(contentsOf: file, encoding: .utf8), file: file.path)
        #expect(records.filter { $0.objectType == "asset" && $0.changeType == "inserted" }.count == src.count)
        let dst = try target.allAssets()
        let srcFacts = Dictionary(uniqueKeysWithValues: src.map { ($0.asset.id, AssetFacts($0)) })
        let dstFacts = Dictionary(uniqueKeysWithValues: dst.map { ($0.asset.id, AssetFacts($0)) })
        #expect(Set(srcFacts.keys) == Set(dstFacts.keys))
        for (k, v) in srcFacts where dstFacts[k] != v {
            Issue.record("\(k): \(String(describing: dstFacts[k])) != \(v)")
        }
        #expect(Set(dst.map(\.localIdentifier)).isDisjoint(with: src.map(\.localIdentifier)), "the importer makes its own identifiers")
        #expect(try Self.albumSummary(target) == (try Self.albumSummary(source)))
        #expect(try Self.folderSummary(target) == (try Self.folderSummary(source)))
        #expect(try target.integrityCheck() == "ok")

        // A predicate limits the assets; albums keep only members in the manifest.
        let videos = try source.creationRequests(matching: FetchOptions(predicate: PredicateCompiler.compile("mediaType == video")))
        #expect(try Self.schemaProblems(videos.text).isEmpty)
        try RequestsManifest.validate(videos.text, file: "videos.jsonl")
        #expect(videos.assetCount == src.filter { $0.asset.mediaType == .video }.count)
        #expect(videos.assetCount > 0 && videos.albumCount > 0 && videos.albumCount < requests.albumCount)
        let s3 = try IngestTests.Scratch()
        let vt = try Catalog(path: s3.catalogPath)
        try vt.replayCreationRequests(videos.text, file: "videos.jsonl")
        #expect(try vt.allAssets().allSatisfy { $0.asset.mediaType == .video })
        #expect(try vt.albumsWithMembers().allSatisfy { !$0.members.isEmpty })

        // --root: paths relative to a folder above the catalog root, never escaping it.
        let parent = URL(fileURLWithPath: root).deletingLastPathComponent().path
        let above = try source.creationRequests(root: parent)
        let name = URL(fileURLWithPath: root).lastPathComponent
        #expect(above.lines.dropFirst().prefix(above.assetCount).allSatisfy { $0.contains("\"path\":\"\(name)/") })
        #expect(throws: RequestsError.self) { try source.creationRequests(root: root + "/lychee") }
    }

    // MARK: - Bad manifests

    static let header = #"{"kind":"header","version":1,"catalogID":"X","root":"/photos","createdAt":"2024-01-01T00:00:00Z"}"#
    static let p1 = "11111111-1111-1111-1111-111111111111/L0/001"
    static let p2 = "22222222-2222-2222-2222-222222222222/L0/001"
    static let f1 = "33333333-3333-3333-3333-333333333333/L0/010"
    static let a1 = "44444444-4444-4444-4444-444444444444/L0/040"

    static func asset(_ line: Int, _ p: String, path: String, type: String = "photo", media: String = "image") -> String {
        #"{"kind":"assetCreationRequest","line":\#(line),"placeholder":"\#(p)","resources":[{"type":"\#(type)","path":"\#(path)","originalFilename":"x","uniformTypeIdentifier":null,"fileSize":4,"contentHash":"xxh128:00","byteRange":null}],"creationDate":"2024-05-01T10:00:00+02:00","location":{"latitude":1.5,"longitude":2.5,"altitude":null},"isFavorite":true,"isHidden":false,"mediaType":"\#(media)","mediaSubtypes":[],"traits":["selfie"]}"#
    }

    static func folder(_ line: Int, _ p: String, parent: String? = nil) -> String {
        #"{"kind":"collectionListCreationRequest","line":\#(line),"placeholder":"\#(p)","title":"Trips","parent":\#(parent.map { "\"\($0)\"" } ?? "null")}"#
    }

    static func album(_ line: Int, _ p: String, parent: String?, members: [String]) -> String {
        let m = members.map { "\"\($0)\"" }.joined(separator: ",")
        return #"{"kind":"collectionCreationRequest","line":\#(line),"placeholder":"\#(p)","title":"Paris","parent":\#(parent.map { "\"\($0)\"" } ?? "null"),"members":[\#(m)]}"#
    }

    static func manifest(_ lines: [String]) -> String { lines.map { $0 + "\n" }.joined() }

    static let good = manifest([
        header, asset(2, p1, path: "a/one.jpg"), asset(3, p2, path: "a/two.mov", type: "video", media: "video"), folder(4, f1),
        album(5, a1, parent: f1, members: [p1, p2]),
    ])

    @Test func aHandMadeManifestReplaysWithFoldersAndMemberships() throws {
        #expect(try Self.schemaProblems(Self.good).isEmpty)
        let s = try IngestTests.Scratch()
        let c = try Catalog(path: s.catalogPath)
        let records = try c.replayCreationRequests(Self.good, file: "good.jsonl")
        #expect(records.map(\.objectType) == ["asset", "asset", "collectionList", "assetCollection"])
        let assets = try c.allAssets()
        #expect(assets.map(\.asset.id) == ["a/one.jpg", "a/two.mov"])
        #expect(assets.allSatisfy { $0.root == "/photos" && $0.asset.isFavorite && $0.asset.traits == [PhotoModel.Trait("selfie")] })
        #expect(assets.first?.asset.creationDate?.description == "2024-05-01T10:00:00+02:00")
        #expect(assets.first?.asset.location == Location(latitude: 1.5, longitude: 2.5))
        #expect(assets.last?.asset.mediaType == .video)
        #expect(try Self.albumSummary(c) == ["Paris <- [Trips]: a/one.jpg a/two.mov"])
        #expect(try Self.folderSummary(c) == ["Trips <- []"])
        // Made as a user's are: an organize of this catalog leaves them.
        #expect(try SQLiteFiles.strings(s.catalogPath, "SELECT by_user FROM collection UNION ALL SELECT by_user FROM collection_list") == ["1", "1"])
    }

    @Test func badManifestsAreRejectedWholeNamingTheLine() throws {
        let s = try IngestTests.Scratch()
        let c = try Catalog(path: s.catalogPath)
        try c.replayCreationRequests(Self.good, file: "good.jsonl")
        let count = try c.allAssets().count
        let token = try c.currentToken()
        let other = "55555555-5555-5555-5555-555555555555/L0/001"
        let truncatedAlbum = Self.album(5, Self.a1, parent: Self.f1, members: [Self.p1])
        let cases: [(String, String, Int, String)] = [
            ("dangling placeholder", Self.manifest([Self.header, Self.asset(2, other, path: "b/1.jpg"), Self.folder(3, Self.f1),
                Self.album(4, Self.a1, parent: Self.f1, members: [other, Self.p2])]), 4, "not defined"),
            ("reference to a later line", Self.manifest([Self.header, Self.asset(2, Self.p1, path: "b/1.jpg"),
                Self.album(3, Self.a1, parent: Self.f1, members: [Self.p1]), Self.folder(4, Self.f1)]), 3, "not an earlier line"),
            ("member defined later", Self.manifest([Self.header, Self.album(2, Self.a1, parent: nil, members: [Self.p1]),
                Self.asset(3, Self.p1, path: "b/1.jpg")]), 2, "not an earlier line"),
            ("path with ..", Self.manifest([Self.header, Self.asset(2, Self.p1, path: "b/1.jpg"), Self.asset(3, Self.p2, path: "b/../../etc/passwd")]), 3, ".."),
            // ".." then a name starting with a combining mark: one component when split by character.
            ("path with .. before a combining mark", Self.manifest([Self.header, Self.asset(2, Self.p1, path: "../\u{301}etc/1.jpg")]), 2, ".."),
            ("absolute path", Self.manifest([Self.header, Self.asset(2, Self.p1, path: "/etc/passwd")]), 2, "absolute"),
            ("unknown resource type", Self.manifest([Self.header, Self.asset(2, Self.p1, path: "b/1.jpg", type: "thumbnail")]), 2, "unknown resource type"),
            ("truncated line", Self.manifest([Self.header, Self.asset(2, Self.p1, path: "b/1.jpg"), Self.folder(3, Self.f1)])
                + String(truncatedAlbum.prefix(truncatedAlbum.count / 2)), 4, "truncated"),
            ("wrong line number", Self.manifest([Self.header, Self.asset(7, Self.p1, path: "b/1.jpg")]), 2, "line 2"),
            ("duplicate placeholder", Self.manifest([Self.header, Self.asset(2, Self.p1, path: "b/1.jpg"), Self.asset(3, Self.p1, path: "b/2.jpg")]), 3, "already defined"),
            ("no header", Self.manifest([Self.asset(1, Self.p1, path: "b/1.jpg")]), 1, "header"),
            ("schema: missing field", Self.manifest([Self.header, Self.folder(2, Self.f1).replacingOccurrences(of: #","title":"Trips""#, with: "")]), 2, "title"),
            ("already in the catalog", Self.good, 2, "already an asset"),
        ]
        for (name, text, line, words) in cases {
            do {
                try c.replayCreationRequests(text, file: "bad.jsonl")
                Issue.record("\(name): accepted")
            } catch let e as ManifestError {
                let first = try #require(e.issues.first)
                #expect(first.line == line, "\(name): \(e)")
                #expect(first.description.hasPrefix("bad.jsonl:\(line): "), "\(name): \(e)")
                #expect(first.reason.contains(words), "\(name): \(e)")
            }
            #expect(try c.allAssets().count == count, "\(name) changed the catalog")
            #expect(try c.currentToken() == token, "\(name) changed the catalog")
        }
        #expect(try c.integrityCheck() == "ok")
    }

    @Test func theValidatorCoversTheKeywordsTheSchemaUses() throws {
        let schema = try JSONSchema(
            text: #"""
                {"type":"object","additionalProperties":false,"required":["a"],"properties":{
                  "a":{"type":"integer","minimum":0,"maximum":9},"b":{"anyOf":[{"type":"string","pattern":"^x"},{"type":"null"}]},
                  "c":{"type":"array","minItems":1,"items":{"enum":["p","q"]}},"d":{"oneOf":[{"type":"integer"},{"type":"number"}]}}}
                """#)
        func errs(_ s: String) throws -> [String] { schema.validate(try JSONValue.parse(s)) }
        #expect(try errs(#"{"a":1,"b":"xy","c":["p"]}"#).isEmpty)
        #expect(try errs(#"{"a":1,"b":null}"#).isEmpty)
        #expect(try errs(#"{"b":"xy"}"#).contains { $0.contains("missing required property 'a'") })
        #expect(try errs(#"{"a":10}"#).contains { $0.contains("more than") })
        #expect(try errs(#"{"a":-1}"#).contains { $0.contains("less than") })
        #expect(try errs(#"{"a":1.5}"#).contains { $0.contains("expected integer") })
        #expect(try errs(#"{"a":1,"b":"yx"}"#).contains { $0.contains("does not match") })
        #expect(try errs(#"{"a":1,"c":[]}"#).contains { $0.contains("fewer than") })
        #expect(try errs(#"{"a":1,"c":["r"]}"#).contains { $0.contains("not one of") })
        #expect(try errs(#"{"a":1,"z":0}"#).contains { $0.contains("unexpected property 'z'") })
        #expect(try errs(#"{"a":1,"d":3}"#).contains { $0.contains("matches 2 of the oneOf") })
        #expect(try errs(#"{"a":1,"d":3.5}"#).isEmpty)
        #expect(try errs(#"{"a":true}"#).contains { $0.contains("expected integer, found boolean") })
    }
}
