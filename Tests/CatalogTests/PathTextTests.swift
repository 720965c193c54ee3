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
}
