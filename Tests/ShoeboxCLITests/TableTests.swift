import Testing

@testable import shoebox

/// Table layout measured in terminal columns (issue 16 §2).
@Suite struct TableTests {
    @Test func displayWidthCountsWideAndCombiningCharacters() {
        #expect(DisplayWidth.of("abc") == 3)
        #expect(DisplayWidth.of("東京タワー") == 10)  // East Asian wide: two columns each
        #expect(DisplayWidth.of("e\u{0301}te\u{0301}") == 3)  // combining acute: no column
        #expect(DisplayWidth.of("서울") == 4)
        #expect(DisplayWidth.of("📷") == 2)
        #expect(DisplayWidth.pad("東京", 6) == "東京  ")
        #expect(DisplayWidth.truncate("東京タワーの夜景", 9) == "東京タワ…")
        #expect(DisplayWidth.truncate("Cafe\u{0301} de Flore", 5) == "Cafe\u{0301}…")
        #expect(DisplayWidth.truncate("short", 9) == "short")
    }

    @Test func identifiersAndPathsAreNeverCutOtherColumnsAre() {
        var t = Table([.init("title"), .init("localIdentifier", .whole), .init("count", .number)])
        let id = "6B3A40C2-DA02-4526-BC17-FDD7FD5780A2/L0/001"
        t.append(["A very long album title that will not fit on a narrow terminal", id, "7"])
        t.append(["東京タワーの夜景と浅草寺の朝", id, "12"])
        let lines = t.lines(maxWidth: 70)
        #expect(lines[0].hasPrefix("TITLE"))
        for l in lines.dropFirst() {
            #expect(l.contains(id + "  "), "the id is whole: \(l)")
            #expect(l.contains("…"), "the title is cut: \(l)")
        }
        // Columns line up by display width, wide characters included.
        let starts = lines.map { l in
            DisplayWidth.of(String(l[..<(l.range(of: "6B3A40C2")?.lowerBound ?? l.range(of: "LOCALIDENTIFIER")!.lowerBound)]))
        }
        #expect(Set(starts).count == 1, "\(lines)")
        #expect(lines[1].hasSuffix(" 7") && lines[2].hasSuffix("12"))
        // Without a terminal (a pipe), nothing is cut.
        #expect(!t.lines(maxWidth: nil).joined().contains("…"))
    }

    @Test func sizesCamerasAndSuggestions() {
        #expect(Cell.bytes(512) == "512 B")
        #expect(Cell.bytes(3_700_000) == "3.7 MB")
        #expect(Cell.bytes(12_345_678_901) == "12 GB")
        #expect(Cell.csv("a,\"b\"") == "\"a,\"\"b\"\"\"")
        #expect(Suggestion.closest(to: "querry", in: ["query", "show", "stats"]) == "query")
        #expect(Suggestion.closest(to: "zzzzzz", in: ["query", "show"]) == nil)
        #expect(
            Arguments.expandingAliases(["query", "--json", "--", "--json"]) == ["query", "--format", "json", "--", "--json"])
        #expect(Arguments.expandingAliases(["thumbnails", "--json"]) == ["thumbnails", "--json"])
    }
}
