import PhotoModel
import TestSupport
import Testing

@testable import Organize

@Suite struct FolderAlbumTests {
    static let paths = [
        "loose.jpg",
        "2016/Chicago/IMG_1.jpg", "2016/Chicago/IMG_2.jpg",
        "2016/Tokyo/Day 1/a.heic", "2016/Tokyo/Day 2/b.heic", "2016/Tokyo/cover.jpg",
        "Scans/s1.png",
    ]

    /// A path's directory from its bytes is the one the character search finds, for slashes next to marks,
    /// joiners, grapheme prefixes (U+0600), CR, emoji and plain text, and for paths without a slash.
    @Test func directoryByBytesIsTheCharacterSearch() {
        let pieces = ["/", "/", "a", "IMG_1.jpg", "\u{301}", "\u{200D}", "\u{0600}", "\r", "\n", "é", "e\u{301}", "👩‍👩‍👧", "🇫🇷", " ", "\u{0903}", "Été", "."]
        var g = SplitMix(state: 17)
        for _ in 0..<20_000 {
            let path = (0..<Int.random(in: 0...7, using: &g)).map { _ in pieces.randomElement(using: &g)! }.joined()
            let expected = Substring(path).lastIndex(of: "/").map { String(path[..<$0]) }
            #expect(FolderAlbums.directory(of: path) == expected, "\(path.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        #expect(FolderAlbums.directory(of: "a/b/c.jpg") == "a/b")
        #expect(FolderAlbums.directory(of: "c.jpg") == nil)
        #expect(FolderAlbums.directory(of: "a/\u{301}b.jpg") == nil)
    }

    @Test func leafAlbums() {
        let (albums, folders) = FolderAlbums.build(paths: Self.paths)
        print(albums.map { "\($0.title) [\($0.directory)] \($0.members.count)" }, folders.map(\.directory))
        #expect(albums.map(\.directory) == ["2016/Chicago", "2016/Tokyo", "2016/Tokyo/Day 1", "2016/Tokyo/Day 2", "Scans"])
        #expect(albums.map(\.title) == ["Chicago", "Tokyo", "Day 1", "Day 2", "Scans"])
        #expect(folders.map(\.directory) == ["2016", "2016/Tokyo"])
        let f2016 = folders[0], tokyo = folders[1]
        #expect(f2016.parentFolder == nil)
        #expect(tokyo.parentFolder == f2016.localIdentifier)
        #expect(albums[0].parentFolder == f2016.localIdentifier)
        #expect(albums[4].parentFolder == nil)
        // 2016/Tokyo holds a file and subdirectories: a folder with an album of its own files inside.
        #expect(albums[1].parentFolder == tokyo.localIdentifier)
        #expect(albums[1].members == ["2016/Tokyo/cover.jpg"])
        #expect(tokyo.children == [albums[1].localIdentifier, albums[2].localIdentifier, albums[3].localIdentifier])
        #expect(f2016.children == [albums[0].localIdentifier, tokyo.localIdentifier])
        #expect(albums.allSatisfy { $0.localIdentifier.hasSuffix("/L0/040") && $0.subtype == .albumRegular })
        #expect(folders.allSatisfy { $0.localIdentifier.hasSuffix("/L0/010") && $0.subtype == .regularFolder })
        // Deterministic from the paths.
        #expect(FolderAlbums.build(paths: Self.paths.reversed()).albums == albums)
        #expect(FolderAlbums.build(paths: Self.paths, mode: .none).albums.isEmpty)
    }

    /// The organize stage builds its albums from `layout`: positions name the same parents and children
    /// as `build`'s identifiers, in the same order.
    @Test func layoutIsBuildWithoutIdentifiers() {
        var counts: [String: Int] = [:]
        for p in Self.paths { if let d = FolderAlbums.directory(of: p) { counts[d, default: 0] += 1 } }
        let titles = ["Scans": "Old scans"]
        let (albums, folders) = FolderAlbums.build(directories: counts, takeoutTitles: titles, skipTakeoutYearFolders: false)
        let tree = FolderAlbums.layout(directories: counts, takeoutTitles: titles, skipTakeoutYearFolders: false)
        let albumIDs = albums.map(\.localIdentifier), folderIDs = folders.map(\.localIdentifier)
        #expect(tree.albums.map(\.directory) == albums.map(\.directory))
        #expect(tree.albums.map(\.title) == ["Chicago", "Tokyo", "Day 1", "Day 2", "Old scans"])
        #expect(tree.albums.map { $0.parent.map { folderIDs[$0] } } == albums.map(\.parentFolder))
        #expect(tree.albums.map(\.holdsFolder) == [false, true, false, false, false])
        #expect(tree.folders.map(\.directory) == folders.map(\.directory))
        #expect(tree.folders.map { $0.parent.map { folderIDs[$0] } } == folders.map(\.parentFolder))
        #expect(tree.folders.map { $0.children.map { $0.identifier(albums: albumIDs, folders: folderIDs) } } == folders.map(\.children))
        // 2016/Tokyo: its subfolders' albums, and the album of its own files first ("2016/Tokyo\0" sorts before "2016/Tokyo/…").
        #expect(tree.folders[1].children == [.album(1), .album(2), .album(3)])
        #expect(FolderAlbums.layout(directories: counts, mode: .none).folders.isEmpty)
    }

    @Test func takeout() {
        let paths = [
            "Takeout/Google Photos/Photos from 2014/IMG_1.jpg", "Takeout/Google Photos/Trip to Rome_/IMG_2.jpg",
            "Takeout/Google Photos/Trip to Rome_/IMG_3.jpg",
        ]
        let titles = ["Takeout/Google Photos/Trip to Rome_": "Trip to Rome?"]
        let (albums, folders) = FolderAlbums.build(paths: paths, takeoutTitles: titles)
        #expect(albums.map(\.title) == ["Trip to Rome?"])
        #expect(albums[0].members.count == 2)
        #expect(albums[0].reasons[0].evidence.contains("metadata.json"))
        #expect(folders.map(\.directory) == ["Takeout", "Takeout/Google Photos"])
        let flat = FolderAlbums.build(paths: paths, mode: .none, takeoutTitles: titles)
        #expect(flat.albums.map(\.title) == ["Trip to Rome?"])
        #expect(flat.albums[0].parentFolder == nil && flat.folders.isEmpty)
    }
}
