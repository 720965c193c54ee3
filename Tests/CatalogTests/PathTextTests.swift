import Testing

@testable import Catalog
import PhotoModel

/// `PathText` stands in for `split(separator: "/")` on hot paths: it must give what the split gave.
@Suite struct PathTextTests {
    static let paths = [
        "", "/", "//", "a", "/a", "a/", "a//", "/a/b", "a/b/c.jpg", "a//b", "a//b/", "/tmp/big/t3k/rep-0001/IMG_1234.HEIC",
        "Ärger/e\u{301}/東京.jpg", "dir/.hidden", "x/y/z/", "///x", "photos/2019/07/IMG_E1234.HEIC",
    ]

    @Test func lastComponentIsTheSplitsLast() {
        for p in Self.paths {
            #expect(PathText.lastComponent(p) == p.split(separator: "/").last, "\(p)")
            #expect(PathText.fileName(p) == (p.split(separator: "/").last.map(String.init) ?? p), "\(p)")
        }
    }

    @Test func parentAndNameKeepEmptyComponents() {
        for p in Self.paths {
            let parts = p.split(separator: "/", omittingEmptySubsequences: false)
            let (parent, name) = PathText.parentAndName(p)
            #expect(String(name) == parts.last.map(String.init) ?? p, "\(p)")
            #expect((parent.map(String.init) ?? "") == parts.dropLast().joined(separator: "/"), "\(p)")
        }
    }

    @Test func organizeRowFolderIsTheSplitsFolder() {
        for p in Self.paths {
            #expect(
                OrganizeRow.folder(root: "/r", primaryPath: p) == "/r/" + p.split(separator: "/").dropLast().joined(separator: "/"), "\(p)")
        }
    }

    /// A path below a root, by bytes: names that start with a combining mark (which joins the "/" before it
    /// into one character), an emoji, a sibling that continues the root's name, the root "/" and a root
    /// written with a trailing slash; text canonically equal to the root's but spelled with other bytes is
    /// not below it.
    @Test func relativePathsAreByBytes() {
        #expect(PathText.relative("/r/a/b.jpg", to: "/r") == "a/b.jpg")
        #expect(PathText.relative("/r/\u{301}mark/2.jpg", to: "/r") == "\u{301}mark/2.jpg")
        #expect(PathText.relative("/r/\u{1F4F7} Trip/1.jpg", to: "/r/") == "\u{1F4F7} Trip/1.jpg")
        #expect(PathText.relative("/x/y", to: "/") == "x/y")
        for outside in ["/r", "/r/", "/r-old/a.jpg", "/r copy/a.jpg", "/ra.jpg", "r/a.jpg", "/"] {
            #expect(PathText.relative(outside, to: "/r") == nil, "\(outside)")
        }
        #expect(PathText.relative("/cafe\u{301}/a.jpg", to: "/caf\u{E9}") == nil)
        #expect("/cafe\u{301}/a.jpg".hasPrefix("/caf\u{E9}/"), "Swift's hasPrefix: canonical equivalence")
        #expect(!"/r/\u{301}mark".hasPrefix("/r/"), "Swift's hasPrefix: the mark joins the slash")
        #expect(PathText.isInside("/r", "/r") && PathText.isInside("/r/a", "/r") && PathText.isInside("/", "/") && PathText.isInside("/a", "/"))
        #expect(!PathText.isInside("/r-old", "/r") && !PathText.isInside("/caf\u{E9}", "/cafe\u{301}"))
    }

    @Test func componentsSplitAtSlashBytes() {
        for p in Self.paths {
            #expect(PathText.components(p) == p.split(separator: "/"), "\(p)")
        }
        let odd = "/data/./\u{301}x/../y"
        #expect(odd.split(separator: "/").map(String.init) == ["data", "./\u{301}x", "..", "y"], "by character: the mark joins the slash")
        #expect(PathText.components(odd).map(String.init) == ["data", ".", "\u{301}x", "..", "y"])
    }
}
