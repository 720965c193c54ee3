import Foundation
import Testing

@testable import MediaProbe

@Suite("Inflate")
struct InflateTests {
    static func bytes(_ b64: String) -> [UInt8] { Array(Data(base64Encoded: b64) ?? Data()) }

    @Test("python zlib vectors decode to the generated input", arguments: InflateVectors.all.map(\.name))
    func vectors(name: String) throws {
        let v = try #require(InflateVectors.all.first { $0.name == name })
        let compressed = Self.bytes(v.base64)
        #expect(!compressed.isEmpty)
        let expected = InflateVectors.input(v.generator, v.size, seed: v.seed)
        let out = v.kind == .zlib ? try Inflate.zlib(compressed, limit: 1 << 20) : try Inflate.raw(compressed, limit: 1 << 20)
        #expect(out == expected)
    }

    @Test("zlib level-0 vectors contain stored blocks")
    func storedBlocksAreCovered() {
        let l0 = InflateVectors.all.filter { $0.name.contains("L0") && $0.size > 0 && $0.kind == .zlib }
        #expect(!l0.isEmpty)
        for v in l0 { #expect(Self.bytes(v.base64)[2] & 0x06 == 0, "\(v.name): first block is stored") }
    }

    @Test("several stored blocks, including a 65535-byte one")
    func multipleStoredBlocks() throws {
        let data = InflateVectors.input(.random, 70_000, seed: 9)
        var stream: [UInt8] = []
        var rest = data[...]
        while !rest.isEmpty {
            let n = min(65_535, rest.count)
            let last = n == rest.count
            stream.append(last ? 1 : 0)
            stream += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            stream += rest.prefix(n)
            rest = rest.dropFirst(n)
        }
        #expect(try Inflate.raw(stream, limit: 1 << 20) == data)
        // Wrapped in zlib with the right checksum.
        let a = Inflate.adler32(data)
        let z = [0x78, 0x01] + stream + [UInt8(a >> 24), UInt8((a >> 16) & 0xFF), UInt8((a >> 8) & 0xFF), UInt8(a & 0xFF)]
        #expect(try Inflate.zlib(z, limit: 1 << 20) == data)
    }

    @Test("adler32 known values")
    func adler() {
        #expect(Inflate.adler32([]) == 1)
        #expect(Inflate.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
    }

    static func code(_ body: () throws(ProbeError) -> [UInt8]) -> ProbeError.Code? {
        do {
            _ = try body()
            return nil
        } catch {
            return error.code
        }
    }

    @Test("corrupt raw streams are rejected with a reason")
    func corruptRaw() {
        let cases: [(String, [UInt8], ProbeError.Code)] = [
            ("empty", [], .truncated),
            ("reserved block type 3", [0x07], .malformed),
            ("stored LEN/NLEN mismatch", [0x01, 0x05, 0x00, 0x00, 0x00], .malformed),
            ("stored block longer than the input", [0x01, 0x05, 0x00, 0xFA, 0xFF, 0x41], .truncated),
            ("no final block", [0x00, 0x00, 0x00, 0xFF, 0xFF], .truncated),
            ("distance before the start", [3, 2, 0], .malformed),
            ("invalid length symbol 286", [75, 28, 3, 0], .malformed),
            ("invalid distance symbol 30", [75, 4, 62, 0], .malformed),
            ("over-subscribed code lengths", [5, 0, 146, 4], .malformed),
            ("repeat with no previous length", [5, 0, 2, 36], .malformed),
        ]
        for (name, bytes, expected) in cases {
            #expect(Self.code { () throws(ProbeError) in try Inflate.raw(bytes, limit: 1 << 20) } == expected, "\(name)")
        }
    }

    @Test("truncating a valid stream anywhere gives an error, never a crash")
    func truncations() throws {
        let v = try #require(InflateVectors.all.first { $0.name == "words 5000 L9" })
        let z = Self.bytes(v.base64)
        for cut in 0..<z.count {
            #expect(Self.code { () throws(ProbeError) in try Inflate.zlib(Array(z.prefix(cut)), limit: 1 << 20) } != nil, "cut at \(cut)")
        }
    }

    @Test("zlib wrapper checks")
    func zlibWrapper() throws {
        let v = try #require(InflateVectors.all.first { $0.name == "words 5000 L1" })
        let z = Self.bytes(v.base64)
        var badSum = z
        badSum[badSum.count - 1] ^= 0x01
        #expect(Self.code { () throws(ProbeError) in try Inflate.zlib(badSum, limit: 1 << 20) } == .malformed)
        var badCheck = z
        badCheck[1] ^= 0x01
        #expect(Self.code { () throws(ProbeError) in try Inflate.zlib(badCheck, limit: 1 << 20) } == .malformed)
        var badMethod = z
        badMethod[0] = 0x77
        #expect(Self.code { () throws(ProbeError) in try Inflate.zlib(badMethod, limit: 1 << 20) } == .malformed)
        #expect(Self.code { () throws(ProbeError) in try Inflate.zlib([0x78, 0xBB, 0, 0, 0, 0, 0], limit: 1 << 20) } == .unsupported)
        #expect(Self.code { () throws(ProbeError) in try Inflate.zlib(Array(z.dropLast(2)), limit: 1 << 20) } != nil)
    }

    @Test("output limit is enforced (bomb)")
    func limit() throws {
        let v = try #require(InflateVectors.all.first { $0.name == "repetitive 100000 L9" })
        let z = Self.bytes(v.base64)
        #expect(Self.code { () throws(ProbeError) in try Inflate.zlib(z, limit: 99_999) } == .tooLarge)
        #expect(try Inflate.zlib(z, limit: 100_000).count == 100_000)
        // Stored blocks honour the limit too.
        #expect(Self.code { () throws(ProbeError) in try Inflate.raw([0x01, 0x05, 0x00, 0xFA, 0xFF, 1, 2, 3, 4, 5], limit: 4) } == .tooLarge)
        #expect(try Inflate.raw([0x01, 0x05, 0x00, 0xFA, 0xFF, 1, 2, 3, 4, 5], limit: 5) == [1, 2, 3, 4, 5])
    }

    @Test("random garbage and bit flips never crash and respect the limit")
    func fuzz() {
        var x: UInt64 = 0x1234_5678
        func next() -> UInt64 {
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return x >> 33
        }
        for _ in 0..<2000 {
            let n = Int(next() % 64)
            let garbage = (0..<n).map { _ in UInt8(truncatingIfNeeded: next()) }
            if let out = try? Inflate.raw(garbage, limit: 4096) { #expect(out.count <= 4096) }
            _ = try? Inflate.zlib(garbage, limit: 4096)
        }
        for v in InflateVectors.all where v.kind == .raw && v.size > 0 {
            let z = Self.bytes(v.base64)
            for _ in 0..<50 {
                var m = z
                let bit = Int(next() % UInt64(m.count * 8))
                m[bit / 8] ^= UInt8(1 << (bit % 8))
                if let out = try? Inflate.raw(m, limit: 200_000) { #expect(out.count <= 200_000) }
            }
        }
    }
}
