import Foundation
import Testing

@testable import MediaProbe

/// Inputs that crashed a libFuzzer target (Fuzz/), kept so they stay fixed. Each file is
/// `FuzzRegressions/<target>-<n>.bin` and runs through the same calls as Fuzz/Sources/<target>/main.swift;
/// passing means "returned or threw", the only thing the fuzzer checks (and, for FuzzFacts, an answer that
/// is JSONDecoder's).
@Suite struct FuzzRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("FuzzRegressions")

    static let files: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
        .filter { $0.hasSuffix(".bin") }.sorted()

    @Test func directoryIsNotEmpty() {
        #expect(!Self.files.isEmpty)
    }

    @Test(arguments: files) func replay(_ name: String) throws {
        let bytes = [UInt8](try Data(contentsOf: Self.directory.appendingPathComponent(name)))
        let target = String(name.prefix { $0 != "-" })
        switch target {
        case "FuzzBMFF": _ = try? BMFFReader.read(MemorySource(bytes))
        case "FuzzJPEG":
            _ = try? JPEGReader.read(MemorySource(bytes))
            _ = try? SamsungTrailerReader.read(MemorySource(bytes))
        case "FuzzPNG": _ = try? PNGReader.read(MemorySource(bytes))
        case "FuzzGIF": _ = try? GIFReader.read(MemorySource(bytes))
        case "FuzzWebP": _ = try? WebPReader.read(MemorySource(bytes))
        case "FuzzMakerNote": _ = try? AppleMakerNoteReader.parse(bytes)
        case "FuzzXMP":
            _ = XMPReader.parse(bytes, source: "fuzz")
            if let nul = bytes.firstIndex(of: 0) {
                _ = XMPReader.parse(standard: Array(bytes[..<nul]), extended: Array(bytes[(nul + 1)...]), source: "fuzz")
            }
        case "FuzzTIFF":
            _ = try? TIFFReader(bytes)
            _ = TIFFReader.loops(in: bytes)
        case "FuzzAAE":
            _ = try? AAEReader.read(bytes)
            _ = try? SidecarPlist.parse(bytes)
        case "FuzzTakeout":
            _ = try? TakeoutReader.read(bytes, fileName: "fuzz.jpg.json")
            _ = try? SidecarJSON.parse(bytes)
        case "FuzzInflate":
            guard let first = bytes.first else { return }
            let stream = Array(bytes.dropFirst())
            let limit = first & 0x80 != 0 ? 1 << 16 : 1 << 22
            if first & 1 == 0 { _ = try? Inflate.raw(stream, limit: limit) } else { _ = try? Inflate.zlib(stream, limit: limit) }
        case "FuzzProbe": _ = Prober().probe(source: MemorySource(bytes), path: "fuzz")
        case "FuzzFacts":
            // What the hand reader reads must be what JSONDecoder reads (FuzzFacts-1: a key twice).
            if let ours = FactsJSONReader.read(bytes) {
                #expect(ours == (try? JSONDecoder().decode(ProbeReport.self, from: Data(bytes))), "\(name)")
            }
        default:
            // FuzzPredicate inputs live in Tests/PipelineTests/FuzzRegressions (MediaProbeTests does not link Catalog).
            Issue.record("\(name): no replay for target \(target)")
        }
    }
}
