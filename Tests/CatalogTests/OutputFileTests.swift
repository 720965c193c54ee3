import Catalog
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `OutputFile`: what each kind of path means, and that links, devices and FIFOs are written through.
@Suite struct OutputFileTests {
    static func isLink(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK
    }

    @Test func eachKindOfPathHasItsTarget() throws {
        let s = try TestScratch("output-kinds")
        let file = s.path("file.txt")
        FileManager.default.createFile(atPath: file, contents: Data("old".utf8))
        try FileManager.default.createSymbolicLink(atPath: s.path("link"), withDestinationPath: "file.txt")
        try FileManager.default.createSymbolicLink(atPath: s.path("dirlink"), withDestinationPath: s.url.path)
        #expect(mkfifo(s.path("fifo"), 0o600) == 0)

        #expect(try OutputFile.target(for: s.path("new.txt")) == .replace(path: s.path("new.txt")))
        #expect(try OutputFile.target(for: file) == .replace(path: file))
        #expect(try OutputFile.target(for: s.path("link")) == .writeThrough(path: s.path("link")))
        #expect(try OutputFile.target(for: s.path("fifo")) == .writeThrough(path: s.path("fifo")))
        #expect(try OutputFile.target(for: "/dev/null") == .writeThrough(path: "/dev/null"))
        #expect(try OutputFile.target(for: "-", allowStandardOutput: true) == .descriptor(1))
        #expect(try OutputFile.target(for: "/dev/stdout") == .descriptor(1))
        #expect(throws: OutputError.self) { try OutputFile.target(for: "-") }
        for dir in [s.url.path, s.path("dirlink")] {
            let e = #expect(throws: OutputError.self) { try OutputFile.target(for: dir) }
            #expect(e?.code == .isDirectory)
            #expect(e?.message == "\(dir) is a directory; give a file name")
        }
        let e = #expect(throws: OutputError.self) { try OutputFile.target(for: s.path("missing/x.txt")) }
        #expect(e?.code == .noFolder)
    }

    @Test func aRegularFileIsReplacedWholeAndALinkIsWrittenThrough() throws {
        let s = try TestScratch("output-write")
        let file = s.path("file.txt")
        try OutputFile.write(Data("first".utf8), to: file)
        try OutputFile.write(Data("second".utf8), to: file)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "second")

        try FileManager.default.createSymbolicLink(atPath: s.path("link"), withDestinationPath: "file.txt")
        try OutputFile.write(Data("through".utf8), to: s.path("link"))
        #expect(Self.isLink(s.path("link")))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "through")

        // A link to nothing yet creates its target.
        try FileManager.default.createSymbolicLink(atPath: s.path("dangling"), withDestinationPath: "later.txt")
        try OutputFile.write(Data("made".utf8), to: s.path("dangling"))
        #expect(Self.isLink(s.path("dangling")))
        #expect(try String(contentsOfFile: s.path("later.txt"), encoding: .utf8) == "made")

        try FileManager.default.createSymbolicLink(atPath: s.path("null"), withDestinationPath: "/dev/null")
        try OutputFile.write(Data("gone".utf8), to: s.path("null"))
        #expect(Self.isLink(s.path("null")))
        // Nothing temporary is left.
        let names = try FileManager.default.contentsOfDirectory(atPath: s.url.path).sorted()
        #expect(names == ["dangling", "file.txt", "later.txt", "link", "null"])
    }

    @Test func temporaryNamesFollowTheOneScheme() throws {
        let tmp = OutputFile.temporaryPath(beside: "/a/b/thumb_256.jpg")
        let name = URL(fileURLWithPath: tmp).lastPathComponent
        #expect(tmp.hasPrefix("/a/b/.thumb_256.jpg.") && tmp.hasSuffix(".tmp"))
        #expect(OutputFile.temporaryTarget(ofName: name) == "thumb_256.jpg")
        #expect(OutputFile.temporaryTarget(ofName: ".thumb_256.jpg.notauuid.tmp") == nil)
        #expect(OutputFile.temporaryTarget(ofName: "thumb_256.jpg") == nil)
    }

    @Test func placingWithoutReplacingKeepsWhatIsThere() throws {
        let s = try TestScratch("output-place")
        let path = s.path("c.sqlite")
        FileManager.default.createFile(atPath: path, contents: Data("theirs".utf8))
        let tmp = OutputFile.temporaryPath(beside: path)
        FileManager.default.createFile(atPath: tmp, contents: Data("ours".utf8))
        #expect(try OutputFile.place(tmp, at: path, replacing: false) == false)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "theirs")
        #expect(!FileManager.default.fileExists(atPath: tmp))
    }
}
