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
}
