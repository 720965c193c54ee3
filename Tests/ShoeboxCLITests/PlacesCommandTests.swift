import Foundation
import TestSupport
import Testing

/// Places through the binary (docs/places.md): without a gazetteer one note line and everything else
/// works; with it, the next ingest adds places, `query --place/--country`, `show` and `moments` print them.
@Suite(.serialized) struct PlacesCommandTests {
    static let binary = ProbeCommandTests.binary.path
    static var fixtures: String { Corpus.fixtures.appendingPathComponent("generated/places").path }

    func run(_ args: [String], gazetteer: String) throws -> Subprocess.Run {
        var env = Subprocess.environment
        env["SHOEBOX_GAZETTEER"] = gazetteer
        return try Subprocess.run(Self.binary, args, environment: env)
    }

    @Test func missingGazetteerIsOneNote() throws {
        let s = try TestScratch("places-none")
        let catalog = s.path("c.sqlite")
        let missing = s.path("nowhere/gazetteer.bin")
        let r = try run(["ingest", "--catalog", catalog, "--progress", "none", Self.fixtures], gazetteer: missing)
        #expect(r.status == 0, "\(r.stderr)")
        let notes = (r.stdout + r.stderr).split(separator: "\n").filter { $0.contains("gazetteer") }
        #expect(
            notes == [
                "  note: gazetteer \(missing): not found (no place names or inferred time zones; `make deps` builds it, SHOEBOX_GAZETTEER names it)"
            ])
        #expect(try run(["query", "--catalog", catalog, "--count"], gazetteer: missing).stdout == "15\n")
        #expect(try run(["query", "--catalog", catalog, "--place", "Lisbon", "--count"], gazetteer: missing).stdout == "0\n")
        // Moments are titled by date only.
        #expect(try run(["moments", "--catalog", catalog], gazetteer: missing).stdout.contains("  12 May 2023  "))
    }

    /// `rederive` without the gazetteer the catalog's places came from: the places go, and it says why in
    /// the words ingest uses.
    @Test(.enabled(if: GazetteerFile.isAvailable, "\(GazetteerFile.skipMessage)"))
    func rederiveWithoutTheGazetteerSaysSo() throws {
        let s = try TestScratch("places-rederive")
        let catalog = s.path("c.sqlite")
        let ingest = try run(["ingest", "--catalog", catalog, "--progress", "none", Self.fixtures], gazetteer: GazetteerFile.path)
        #expect(ingest.status == 0, "\(ingest.stderr)")
        let missing = s.path("nowhere/gazetteer.bin")
        let r = try run(["rederive", "--catalog", catalog], gazetteer: missing)
        #expect(r.status == 0, "\(r.stderr)")
        let notes = (r.stdout + r.stderr).split(separator: "\n").filter { $0.contains("gazetteer") }
        #expect(
            notes == [
                "  note: gazetteer \(missing): not found (no place names or inferred time zones; `make deps` builds it, SHOEBOX_GAZETTEER names it)"
            ], "\(r.stdout)")
        #expect(try run(["query", "--catalog", catalog, "placeName != nil", "--count"], gazetteer: missing).stdout == "0\n")
        // With nothing changed, a second rederive organizes nothing and has nothing to say.
        let again = try run(["rederive", "--catalog", catalog], gazetteer: missing)
        #expect(!again.stdout.contains("gazetteer"), "\(again.stdout)")
    }

    @Test(.enabled(if: GazetteerFile.isAvailable, "\(GazetteerFile.skipMessage)"))
    func gazetteerAddedLater() throws {
        let s = try TestScratch("places-later")
        let catalog = s.path("c.sqlite")
        #expect(
            try run(["ingest", "--catalog", catalog, "--progress", "none", Self.fixtures], gazetteer: s.path("none.bin")).status
                == 0)
        let token = try run(["changes", "--catalog", catalog, "--current-token"], gazetteer: GazetteerFile.path).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // Nothing changed on disk: the new gazetteer alone makes the ingest derive places.
        let again = try run(["ingest", "--catalog", catalog, "--progress", "none", Self.fixtures], gazetteer: GazetteerFile.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!again.stdout.contains("gazetteer"))
        let changes = try run(
            ["changes", "--catalog", catalog, "--since", token, "--format", "csv"], gazetteer: GazetteerFile.path
        ).stdout
        #expect(changes.contains("place"), "\(changes.prefix(800))")
        #expect(
            try run(["query", "--catalog", catalog, "place CONTAINS \"Lisbon\"", "--count"], gazetteer: GazetteerFile.path).stdout
                == "8\n")
        #expect(
            try run(
                ["query", "--catalog", catalog, "--country", "Spain", "--format", "csv", "--fields", "filename"],
                gazetteer: GazetteerFile.path
            )
            .stdout == "filename\nbadajoz.jpg\n")
        let show = try run(["show", "--catalog", catalog, "dst/dst-before.jpg"], gazetteer: GazetteerFile.path).stdout
        #expect(show.contains("  place            Lisbon, Lisbon, Portugal (GeoNames 2267057)"), "\(show)")
        #expect(show.contains("  localDate        2023-03-26T00:30:00+00:00   ← inferred from GPS (Europe/Lisbon, "), "\(show)")
        #expect(show.contains("confidence medium"))
        let moments = try run(["moments", "--catalog", catalog], gazetteer: GazetteerFile.path).stdout
        #expect(moments.contains("Sintra, 13 May 2023"), "\(moments)")
        #expect(moments.contains("2023-11-15T07:13:20+09:00"), "Takeout's UTC date read as Tokyo time: \(moments)")
    }

    @Test func versionNamesGeoNames() throws {
        let r = try run(["--version"], gazetteer: "")
        #expect(r.stdout.contains("GeoNames") && r.stdout.contains("CC BY 4.0"))
    }
}
