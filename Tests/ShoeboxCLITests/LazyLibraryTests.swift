import Foundation
import TestSupport
import Testing

/// The media libraries are loaded on first use (CMediaLibs): commands that neither probe nor decode never
/// map libvips, libav*, libheif or libexif; probing still loads what it needs. The dynamic loader's own
/// trace (`LD_DEBUG=libs`, on stderr) says which shared objects a run initialised.
@Suite struct LazyLibraryTests {
    static let media = ["libvips", "libavcodec", "libavformat", "libavutil", "libswscale", "libheif", "libexif"]

    /// The file names of the shared objects a run of `shoebox args` initialised, and the run.
    static func loaded(_ args: [String]) throws -> (run: Subprocess.Run, objects: [String]) {
        let r = try Subprocess.run("/usr/bin/env", ["LD_DEBUG=libs", ProbeCommandTests.binary.path] + args)
        let objects = r.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let at = line.range(of: "calling init: ") else { return nil }
            return line[at.upperBound...].split(separator: "/").last.map(String.init)
        }
        return (r, objects)
    }

    static func media(in objects: [String]) -> [String] {
        objects.filter { o in media.contains { o.hasPrefix($0 + ".so") } }
    }

    @Test func versionMapsNoMediaLibrary() throws {
        let (r, objects) = try Self.loaded(["--version"])
        #expect(r.status == 0)
        // The trace works (libc is always there), so an empty answer below means something.
        try #require(objects.contains { $0.hasPrefix("libc.so") }, "no LD_DEBUG trace: \(r.stderr.prefix(300))")
        #expect(Self.media(in: objects) == [])
    }

    @Test func queryCountMapsNoMediaLibrary() throws {
        let scratch = try TestScratch("lazy")
        let catalog = scratch.url.appendingPathComponent("c.sqlite").path
        let made = try Subprocess.run(ProbeCommandTests.binary.path, ["change", "--create", "--create-album", "Trip", "--catalog", catalog])
        try #require(made.status == 0, "\(made.stderr)")
        let (r, objects) = try Self.loaded(["query", "--count", "--catalog", catalog])
        #expect(r.status == 0)
        #expect(r.stdout == "0\n")
        try #require(objects.contains { $0.hasPrefix("libc.so") })
        #expect(Self.media(in: objects) == [])
    }

    /// The other side: probing a JPEG loads libexif when it gets there, and still nothing for pixels.
    @Test func probeLoadsLibexifOnDemand() throws {
        let file = try #require(ProbeCommandTests.goodFile)
        let (r, objects) = try Self.loaded(["probe", file])
        #expect(r.status == 0, "\(r.stderr.suffix(300))")
        #expect(r.stdout.contains("\"pixelWidth\""))
        #expect(Self.media(in: objects).contains { $0.hasPrefix("libexif.so") })
        #expect(!Self.media(in: objects).contains { $0.hasPrefix("libvips.so") })
    }
}
