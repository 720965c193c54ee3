import Assemble
@testable import Catalog
import Foundation
import PhotoModel
@testable import shoebox
import TestSupport
import Testing

/// The hand-written JSON of `query --format ndjson/json` (`AssetRowWriter`) against the `JSONEncoder` shape it
/// replaced (`AssetJSON` plus the two identifiers), compared as parsed JSON so they cannot drift apart.
@Suite(.serialized) struct AssetRowWriterTests {
    /// What `query` printed before: `AssetJSON` of the stored asset, then the two identifiers.
    struct Reference: Encodable {
        let s: StoredAsset

        func encode(to encoder: any Encoder) throws {
            let sources = s.metadataSources.map { MetadataSource(type: $0.type, path: $0.path) }
            try AssetJSON(AssembledAsset(asset: s.asset, metadataSources: sources)).encode(to: encoder)
            var c = encoder.container(keyedBy: K.self)
            try c.encode(s.localIdentifier, forKey: .localIdentifier)
            try c.encode(s.cloudIdentifier, forKey: .cloudIdentifier)
        }

        enum K: String, CodingKey { case localIdentifier, cloudIdentifier }
    }

    static func parsed(_ data: Data) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary)
    }

    static func reference(_ s: StoredAsset) throws -> NSDictionary {
        let enc = JSONEncoder()
        enc.outputFormatting = [.withoutEscapingSlashes]
        return try parsed(try enc.encode(Reference(s: s)))
    }

    static func written(_ s: StoredAsset) -> Data {
        var w = AssetRowWriter(fd: -1, flushAt: .max)
        w.object(s)
        return Data(w.pending)
    }

    /// The generated sample library ingested (Live Photos, RAW+JPEG, edits, sidecars, Takeout, broken files),
    /// and the corpus too when it is there.
    static let catalog: String? = {
        let library = Corpus.fixtures.appendingPathComponent("generated/library").path
        guard FileManager.default.fileExists(atPath: library), let scratch = try? TestScratch.untilExit("rowwriter") else { return nil }
        let path = scratch.url.appendingPathComponent("c.sqlite").path
        var roots = [library]
        if let corpus = Corpus.root?.path { roots.append(corpus) }
        let r = try? Subprocess.run(ProbeCommandTests.binary.path, ["ingest", "--catalog", path, "--progress", "none"] + roots)
        guard let r, r.status == 0 || r.status == 1 else { return nil }
        return path
    }()

    /// Every asset of the test catalog (hidden, trashed and every burst frame included), `sort` as `query --sort`.
    static func everything(sortedBy sort: String? = nil) throws -> FetchResult {
        let path = try #require(catalog, "no sample library (python3 Fixtures/generate.py)")
        var options = FetchOptions()
        options.includeHiddenAssets = true
        options.includeAllBurstAssets = true
        options.includeTrashed = true
        options.sortDescriptors = sort.map { [.init(parsing: $0)] } ?? []
        return try Catalog(path: path, mode: .readOnly).fetchAssets(options)
    }

    @Test func everyStoredAssetMatchesTheEncoderShape() throws {
        let result = try Self.everything()
        try #require(result.count > 10)
        var compared = 0
        try result.enumerate { _, s in
            let data = Self.written(s)
            let got = try Self.parsed(data)
            #expect(got == (try Self.reference(s)), "\(s.asset.id): \(String(decoding: data, as: UTF8.self))")
            #expect(got.allKeys.count == AssetRowWriter.keyOrder.count)
            compared += 1
        }
        #expect(compared == result.count)
    }

    /// The row stream (`objects(of:)`, what `query` uses) writes the same objects, in the result's order,
    /// straight from SQLite rows.
    @Test func rowStreamMatchesTheEncoderShape() throws {
        let result = try Self.everything(sortedBy: "-filename")
        var expected: [NSDictionary] = []
        try result.enumerate { _, s in expected.append(try Self.reference(s)) }
        var w = AssetRowWriter(fd: -1, flushAt: .max)
        try w.objects(of: result, after: "\n")
        let lines = String(decoding: w.pending, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == expected.count)
        for (line, want) in zip(lines, expected) {
            #expect(try Self.parsed(Data(line.utf8)) == want, "\(line)")
        }
    }

    /// Strings that need escaping, absent values, a location with and without altitude, a video duration.
    @Test func escapingAndAbsentValues() throws {
        var a = Asset(id: "dir/\"quoted\" \\ back/slash\tand\nnew\u{1}line é 📷.mov", mediaType: .video)
        a.duration = 3.5
        a.make = "A\u{7F}\u{1F}B"
        a.model = nil
        a.location = Location(latitude: 48.858_37, longitude: -2.294_481e-3, altitude: nil)
        a.creationDate = AssetDate(local: "2024-05-01T12:00:00.120", offsetSeconds: -34_200)
        a.reasons = [Reason("photoLive", "paired \"movie\""), Reason("x", "")]
        a.resources = [AssetResource(type: .video, path: "a/b.mov", originalFilename: "b.mov", uniformTypeIdentifier: nil, fileSize: 12)]
        let s = StoredAsset(
            localIdentifier: "L/L0/001", cloudIdentifier: "C:001", root: "/r", asset: a, isTrashed: false,
            metadataSources: [MetadataSourceRef(type: "xmp", path: "b.xmp")], resourceHashes: [nil])
        let data = Self.written(s)
        let reference = try Self.reference(s)
        #expect(try Self.parsed(data) == reference, "\(String(decoding: data, as: UTF8.self))\n\(reference)")
        // Keys come in the documented order.
        let text = String(decoding: data, as: UTF8.self)
        let positions = AssetRowWriter.keyOrder.map { text.range(of: "\"\($0)\":")?.lowerBound }
        #expect(!positions.contains(nil))
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
    }

    /// Through the binary: `query --format ndjson` and `--format json` print the same objects as the reference.
    @Test func queryPrintsTheWriterOutput() throws {
        let path = try #require(Self.catalog, "no sample library (python3 Fixtures/generate.py)")
        let catalog = try Catalog(path: path, mode: .readOnly)
        var expected: [String: NSDictionary] = [:]
        try catalog.fetchAssets(FetchOptions()).enumerate { _, s in expected[s.localIdentifier] = try Self.reference(s) }
        let nd = try Subprocess.run(ProbeCommandTests.binary.path, ["query", "--format", "ndjson", "--catalog", path])
        #expect(nd.status == 0, "\(nd.stderr)")
        let lines = nd.stdout.split(separator: "\n")
        #expect(lines.count == expected.count)
        for line in lines {
            let got = try Self.parsed(Data(line.utf8))
            #expect(got == expected[got["localIdentifier"] as? String ?? ""])
        }
        let js = try Subprocess.run(ProbeCommandTests.binary.path, ["query", "--format", "json", "--catalog", path])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(js.stdout.utf8)) as? [NSDictionary])
        #expect(array.count == expected.count)
        #expect(array.allSatisfy { $0 == expected[$0["localIdentifier"] as? String ?? ""] })
    }

    /// Fetches of the test catalog the enumeration paths are compared on: sorts with ties, limits, a
    /// predicate (the bit test), every burst frame, hidden and trashed assets, an empty result.
    static func optionVariants() throws -> [(String, FetchOptions)] {
        func o(_ predicate: String? = nil, sort: [String] = [], limit: Int? = nil, bursts: Bool = false, hidden: Bool = false, trashed: Bool = false) throws -> FetchOptions {
            var x = predicate.map { FetchOptions(predicate: try! PredicateCompiler.compile($0)) } ?? FetchOptions()
            x.sortDescriptors = sort.map(SortDescriptor.init(parsing:))
            x.fetchLimit = limit
            x.includeAllBurstAssets = bursts
            x.includeHiddenAssets = hidden
            x.includeTrashed = trashed
            return x
        }
        return [
            ("default", try o()),
            ("everything", try o(bursts: true, hidden: true, trashed: true)),
            ("all bursts", try o(bursts: true)),
            ("sorted -filename, hidden", try o(sort: ["-filename"], hidden: true)),
            ("sorted mediaType, -creationDate (ties)", try o(sort: ["mediaType", "-creationDate"], bursts: true)),
            ("sorted, limit 7", try o(sort: ["creationDate"], limit: 7)),
            ("limit 5", try o(limit: 5)),
            ("limit 0", try o(limit: 0)),
            ("predicate", try o("mediaType == image AND creationDate >= \"2010-01-01\"")),
            ("bit test", try o("(mediaSubtypes & 8) != 0", bursts: true)),
            ("bit clear, sorted", try o("(mediaSubtypes & 8) == 0", sort: ["-pixelWidth"], hidden: true)),
            ("empty", try o("mediaType == audio AND mediaType == image")),
        ]
    }

    /// The row stream over one statement (`objects(matching:in:)`, what `query --format json/ndjson` runs)
    /// writes the same bytes as the id list and batches (`objects(of:)`), in the same order.
    @Test func oneStatementMatchesTheBatchedStream() throws {
        let path = try #require(Self.catalog, "no sample library (python3 Fixtures/generate.py)")
        let catalog = try Catalog(path: path, mode: .readOnly)
        for (name, options) in try Self.optionVariants() {
            var old = AssetRowWriter(fd: -1, flushAt: .max)
            try old.objects(of: catalog.fetchAssets(options), after: "\n")
            var new = AssetRowWriter(fd: -1, flushAt: .max)
            let n = try new.objects(matching: options, in: catalog, after: "\n")
            #expect(n == (try catalog.countAssets(options)), "\(name)")
            #expect(String(decoding: new.pending, as: UTF8.self) == String(decoding: old.pending, as: UTF8.self), "\(name)")
        }
    }

    /// CSV from the rows (`csvLines(matching:in:fields:)`) is the CSV of the stored assets
    /// (`QueryOutput.value`, which `query --format table` also uses), every field, in the same order.
    @Test func csvFromRowsMatchesStoredAssets() throws {
        let path = try #require(Self.catalog, "no sample library (python3 Fixtures/generate.py)")
        let catalog = try Catalog(path: path, mode: .readOnly)
        #expect(QueryOutput.fields == AssetField.allCases.map(\.rawValue))
        let fieldSets: [[AssetField]] = [AssetField.allCases, [.localIdentifier], [.fileSize, .filename], [.camera, .duration, .latitude]]
        for (name, options) in try Self.optionVariants() {
            for fields in fieldSets {
                var expected = ""
                try catalog.fetchAssets(options).enumerate { _, s in
                    expected += Cell.csvLine(fields.map { QueryOutput.value(s, $0.rawValue) }) + "\n"
                }
                var w = AssetRowWriter(fd: -1, flushAt: .max)
                _ = try w.csvLines(matching: options, in: catalog, fields: fields)
                #expect(String(decoding: w.pending, as: UTF8.self) == expected, "\(name): \(fields)")
            }
        }
    }

    /// CSV quoting with its byte fast path is the character test it replaced (a `\r\n` pair is one character,
    /// neither `\r` nor `\n`, and was never quoted).
    @Test(arguments: ["plain", "", "a,b", "say \"hi\"", "line\nbreak", "cr\ronly", "crlf\r\npair", "é,📷", "tab\tx", "\r\n,"])
    func csvQuotingIsTheCharacterTest(_ s: String) {
        let before = s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
        #expect(AssetField.csv(s) == before)
    }
    /// The row stream's escaping (`OutBytes.escaped`, eight bytes at a time) writes what the reference
    /// (`AssetRowWriter.escaped`, byte by byte) writes: every byte value, at every position and length.
    @Test func wordWiseEscapingMatchesByteWise() {
        var rng = SystemRandomNumberGenerator()
        let special: [UInt8] = [0x00, 0x08, 0x09, 0x0A, 0x0C, 0x0D, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xA2, 0xDC, 0xFF]
        var inputs: [[UInt8]] = (0...256).map { n in (0..<n).map { UInt8(truncatingIfNeeded: $0) } }
        for b in special {  // one special byte at each offset of a 17-byte run of plain ones
            for at in 0..<17 { var x = [UInt8](repeating: UInt8(ascii: "a"), count: 17); x[at] = b; inputs.append(x) }
        }
        for _ in 0..<2000 {
            let n = Int.random(in: 0..<40, using: &rng)
            inputs.append((0..<n).map { _ in Bool.random(using: &rng) ? special.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng) })
        }
        for x in inputs {
            var reference: [UInt8] = []
            AssetRowWriter.escaped(bytes: x, into: &reference)
            var out = OutBytes(capacity: 8)
            defer { out.deallocate() }
            x.withUnsafeBufferPointer { out.escaped($0) }
            #expect(Array(out.bytes) == reference, "\(x)")
        }
    }
}
