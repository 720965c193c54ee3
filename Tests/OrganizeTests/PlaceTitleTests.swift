import Organize
import PhotoModel
import Testing

/// Moment and cluster titles from places, PhotoKit style (docs/places.md), with hand-written expectations.
@Suite struct PlaceTitleTests {
    /// Seconds since 1970 for a UTC wall-clock text.
    func t(_ s: String) -> Double { Double(WallClock.seconds(s)!) }

    func item(_ id: String, _ utc: String, _ place: String?) -> MomentItem<String> {
        MomentItem(id: id, instant: t(utc), localDate: String(utc.prefix(10)), place: place)
    }

    @Test func dominantPlaces() {
        #expect(PlaceTitle.dominant([]) == [])
        #expect(PlaceTitle.dominant([nil, nil]) == [])
        #expect(PlaceTitle.dominant(["Lisbon", nil, "Lisbon"]) == ["Lisbon"])
        // Sintra holds 1 of 4 (25 %): shares the title; Cascais 1 of 5 (20 %) does not.
        #expect(PlaceTitle.dominant(["Lisbon", "Lisbon", "Sintra", "Lisbon"]) == ["Lisbon", "Sintra"])
        #expect(PlaceTitle.dominant(["Lisbon", "Lisbon", "Cascais", "Lisbon", "Lisbon"]) == ["Lisbon"])
        // A tie: first in time first.
        #expect(PlaceTitle.dominant(["Sintra", "Lisbon", "Lisbon", "Sintra"]) == ["Sintra", "Lisbon"])
        #expect(PlaceTitle.home(["Lisbon", "Lisbon", "Sintra"]) == "Lisbon")
        #expect(PlaceTitle.home(["Lisbon", "Lisbon"]) == nil)  // one place only: a trip, not a home
        #expect(PlaceTitle.home(["Lisbon", "Sintra"]) == nil)
    }

    @Test func tripTitlesAndHomeDays() {
        // Home in Porto (5 photos over two days), then three days in Lisbon and Sintra.
        var items = (0..<3).map { item("home-a\($0)", "2023-05-01T1\($0):00:00", "Porto") }
        items += (0..<2).map { item("home-b\($0)", "2023-05-03T1\($0):00:00", "Porto") }
        items += [
            item("l1", "2023-05-12T10:00:00", "Lisbon"), item("l2", "2023-05-12T11:00:00", "Lisbon"),
            item("s1", "2023-05-13T10:00:00", "Sintra"), item("s2", "2023-05-13T10:30:00", nil),
            item("l3", "2023-05-14T18:00:00", "Lisbon"),
        ]
        var ahead = items
        ahead += (0..<8).map { item("home-c\($0)", "2023-06-0\($0 + 1)T12:00:00", "Porto") }
        let r = MomentSegmenter.segment(ahead)
        #expect(
            r.moments.map(\.title) == [
                "1 May 2023", "3 May 2023", "Lisbon, 12 May 2023", "Sintra, 13 May 2023", "Lisbon, 14 May 2023",
                "1 June 2023", "2 June 2023", "3 June 2023", "4 June 2023", "5 June 2023", "6 June 2023", "7 June 2023",
                "8 June 2023",
            ])
        #expect(r.moments[0].reasons.contains(Reason("moment.title", "Porto is the home area: titled by date")))
        #expect(r.moments[3].reasons.contains(Reason("moment.title", "places of 1 of 2 items: Sintra 1")))
        #expect(r.clusters.map(\.title).contains("Lisbon & Sintra, 12–14 May 2023"), "\(r.clusters.map(\.title))")
        // Without a home rule, home days are named too.
        var o = MomentSegmenter.Options()
        o.homeByDate = false
        #expect(MomentSegmenter.segment(ahead, options: o).moments[0].title == "Porto, 1 May 2023")
    }
}
