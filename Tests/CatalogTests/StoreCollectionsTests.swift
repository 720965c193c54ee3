import Catalog
import PhotoModel
import TestSupport
import Testing

/// `Catalog.storeCollections` writes a change record only for what differs from the stored collections and
/// lists (title, dates, predicate, members; title, dates, children), so an organize that derives the same
/// collections again records nothing.
@Suite struct StoreCollectionsTests {
    static func moment(_ n: Int, start: String, end: String, title: String = "Lisbon") -> CollectionSpec {
        CollectionSpec(localIdentifier: "M\(n)", type: .moment, subtype: AssetCollectionSubtype(rawValue: 0), title: title, startDate: start, endDate: end)
    }

    static let smart = CollectionSpec(localIdentifier: "S1", type: .smartAlbum, subtype: .albumRegular, title: "Videos", predicate: "mediaType == 2")

    static func cluster(_ children: [String], title: String = "Portugal") -> CollectionListSpec {
        CollectionListSpec(
            localIdentifier: "L1", type: .momentList, subtype: .momentListCluster, title: title, startDate: "2024-05-01T10:00:00Z",
            endDate: "2024-05-03T18:00:00Z", children: children)
    }

    @Test func onlyWhatDiffersIsRecorded() throws {
        let s = try TestScratch("store-collections")
        let catalog = try Catalog(path: s.path("c.sqlite"))
        func store(_ collections: [CollectionSpec], _ lists: [CollectionListSpec]) throws -> Int {
            try catalog.storeCollections(collections, replacing: [.moment, .smartAlbum], lists: lists, replacingLists: [.momentList], runID: nil)
        }
        let m1 = Self.moment(1, start: "2024-05-01T10:00:00Z", end: "2024-05-01T18:00:00Z")
        let m2 = Self.moment(2, start: "2024-05-03T09:00:00Z", end: "2024-05-03T18:00:00Z", title: "Porto")
        #expect(try store([m1, m2, Self.smart], [Self.cluster(["M1", "M2"])]) == 4)
        #expect(try store([m1, m2, Self.smart], [Self.cluster(["M1", "M2"])]) == 0, "the same collections again: nothing")

        var later = m1
        later.endDate = "2024-05-01T19:00:00Z"
        var renamed = m2
        renamed.title = "Porto and Gaia"
        var smart = Self.smart
        smart.predicate = "mediaType == 1"
        #expect(try store([later, renamed, smart], [Self.cluster(["M1", "M2"])]) == 3, "one end date, one title, one predicate")
        #expect(try catalog.collections(type: .moment).map(\.title).sorted() == ["Lisbon", "Porto and Gaia"])

        #expect(try store([later, renamed, smart], [Self.cluster(["M2", "M1"], title: "Portugal")]) == 1, "the list's children reordered")
        #expect(try store([later, renamed, smart], [Self.cluster(["M2", "M1"], title: "Portugal 2024")]) == 1, "the list's title")
        #expect(try store([renamed, smart], [Self.cluster(["M2"], title: "Portugal 2024")]) == 2, "a moment gone, the list's children")
        #expect(try catalog.collections(type: .moment).map(\.localIdentifier) == ["M2"])
        #expect(try store([renamed, smart], [Self.cluster(["M2"], title: "Portugal 2024")]) == 0)
    }

    /// Organize stores albums and folders on their own (as soon as they are built) and moments, their lists
    /// and smart albums after the moments step: each store replaces its own types and leaves the other's.
    @Test func storesOfOtherTypesLeaveEachOthersCollections() throws {
        let s = try TestScratch("store-collections-split")
        let catalog = try Catalog(path: s.path("c.sqlite"))
        func album(_ id: String) -> CollectionSpec { CollectionSpec(localIdentifier: id, type: .album, subtype: .albumRegular, title: id) }
        func folder(_ children: [String]) -> CollectionListSpec {
            CollectionListSpec(localIdentifier: "F1", type: .folder, subtype: .regularFolder, title: "root", children: children)
        }
        func storeAlbums(_ albums: [CollectionSpec], _ lists: [CollectionListSpec]) throws -> Int {
            try catalog.storeCollections(albums, replacing: [.album], lists: lists, replacingLists: [.folder], runID: nil)
        }
        func storeMoments(_ moments: [CollectionSpec], _ lists: [CollectionListSpec]) throws -> Int {
            try catalog.storeCollections(moments, replacing: [.moment, .smartAlbum], lists: lists, replacingLists: [.momentList], runID: nil)
        }
        let m1 = Self.moment(1, start: "2024-05-01T10:00:00Z", end: "2024-05-01T18:00:00Z")
        #expect(try storeAlbums([album("A1"), album("A2")], [folder(["A1", "A2"])]) == 3)
        #expect(try storeMoments([m1, Self.smart], [Self.cluster(["M1"])]) == 3)
        // Again, in the other order: nothing differs, nothing is recorded or removed.
        #expect(try storeMoments([m1, Self.smart], [Self.cluster(["M1"])]) == 0)
        #expect(try storeAlbums([album("A1"), album("A2")], [folder(["A1", "A2"])]) == 0)
        // An album gone: only it (and its folder's children) change; the moment, its list and the smart album stay.
        #expect(try storeAlbums([album("A1")], [folder(["A1"])]) == 2)
        #expect(try catalog.collections(type: .album).map(\.localIdentifier) == ["A1"])
        #expect(try catalog.collections(type: .moment).map(\.localIdentifier) == ["M1"])
        #expect(try catalog.collectionCount(type: .smartAlbum) == 1)
        // A moment gone: the albums stay.
        #expect(try storeMoments([Self.smart], [Self.cluster([])]) == 2)
        #expect(try catalog.collections(type: .album).map(\.localIdentifier) == ["A1"])
        #expect(try catalog.collections(type: .moment).isEmpty)
    }
}
