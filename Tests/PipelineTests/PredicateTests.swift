import Catalog
import Foundation
import PhotoModel
import Testing

/// The predicate language: grammar, substitutions, errors with positions, SQL safety, and semantics on
/// a real catalog.
@Suite struct PredicateTests {
    static func compile(_ s: String, _ args: [String] = []) throws -> CompiledPredicate {
        try PredicateCompiler.compile(s, arguments: args)
    }

    static func failure(_ s: String, _ args: [String] = []) -> PredicateCompiler.CompileError? {
        do {
            _ = try PredicateCompiler.compile(s, arguments: args)
            return nil
        } catch { return error }
    }

    // MARK: - Grammar

    @Test func simpleComparisonsCompileToParameters() throws {
        #expect(try Self.compile("isFavorite == YES") == CompiledPredicate(sql: "a.is_favorite = ?", arguments: [.int(1)]))
        #expect(try Self.compile("pixelWidth >= 4000") == CompiledPredicate(sql: "a.pixel_width >= ?", arguments: [.int(4000)]))
        #expect(try Self.compile("duration < 1.5") == CompiledPredicate(sql: "a.duration < ?", arguments: [.double(1.5)]))
        #expect(try Self.compile("mediaType == image") == CompiledPredicate(sql: "a.media_type = ?", arguments: [.int(1)]))
        #expect(try Self.compile("mediaType == 2").arguments == [.int(2)])
        #expect(try Self.compile("playbackStyle == livePhoto").arguments == [.int(3)])
        #expect(try Self.compile("playbackVariation == none").arguments == [.int(0)])
        #expect(try Self.compile("make == nil") == CompiledPredicate(sql: "a.make IS NULL", arguments: []))
        #expect(try Self.compile("make != NULL").sql == "a.make IS NOT NULL")
        #expect(try Self.compile("location == nil").sql == "a.latitude IS NULL")
        #expect(try Self.compile("make != \"Apple\"") == CompiledPredicate(sql: "a.make IS NOT ?", arguments: [.text("Apple")]))
        #expect(
            try Self.compile("make == 'Apple'")
                == CompiledPredicate(sql: "(a.make IS NOT NULL AND a.make = ?)", arguments: [.text("Apple")]))
        #expect(try Self.compile("5 < pixelWidth") == CompiledPredicate(sql: "a.pixel_width > ?", arguments: [.int(5)]))
        #expect(try Self.compile("pixelWidth > pixelHeight").sql == "a.pixel_width > a.pixel_height")
        #expect(try Self.compile("TRUEPREDICATE").sql == "1")
        #expect(try Self.compile("FALSEPREDICATE").sql == "0")
        #expect(try Self.compile("isTrashed == NO").sql == "(a.trashed_at IS NOT NULL) = ?")
        #expect(try Self.compile("pixelWidth > -1").arguments == [.int(-1)])
        #expect(try Self.compile("mediaSubtypes == 0x8").arguments == [.int(8)])
    }

    @Test func precedenceIsNotThenAndThenOr() throws {
        #expect(
            try Self.compile("isFavorite == YES OR isHidden == YES AND pixelWidth > 5").sql
                == "(a.is_favorite = ? OR (a.is_hidden = ? AND a.pixel_width > ?))")
        #expect(
            try Self.compile("NOT isFavorite == YES AND isHidden == NO").sql == "((NOT a.is_favorite = ?) AND a.is_hidden = ?)")
        #expect(
            try Self.compile("(isFavorite == YES OR isHidden == YES) AND pixelWidth > 5").sql
                == "((a.is_favorite = ? OR a.is_hidden = ?) AND a.pixel_width > ?)")
        #expect(
            try Self.compile("NOT (isFavorite == YES OR isHidden == YES)").sql == "(NOT (a.is_favorite = ? OR a.is_hidden = ?))")
        #expect(try Self.compile("!!isFavorite == YES").sql == "(NOT (NOT a.is_favorite = ?))")
        #expect(
            try Self.compile("((isFavorite == YES))").sql == "a.is_favorite = ?")
        let p = try Self.compile("isFavorite == YES || isHidden == NO && pixelWidth > 1 OR pixelHeight < 2")
        #expect(p.sql == "((a.is_favorite = ? OR (a.is_hidden = ? AND a.pixel_width > ?)) OR a.pixel_height < ?)")
        #expect(p.arguments == [.int(1), .int(0), .int(1), .int(2)])
    }

    @Test func nsPredicateSpellingsAreEquivalent() throws {
        let pairs: [(String, String)] = [
            ("pixelWidth = 5", "pixelWidth == 5"),
            ("pixelWidth <> 5", "pixelWidth != 5"),
            ("pixelWidth =< 5", "pixelWidth <= 5"),
            ("pixelWidth => 5", "pixelWidth >= 5"),
            ("isFavorite == YES && isHidden == NO", "isFavorite == TRUE AND isHidden == FALSE"),
            ("isFavorite == yes || isHidden == no", "isFavorite == true or isHidden == false"),
            ("!(isFavorite == 1)", "not (isFavorite == YES)"),
            ("truepredicate", "TRUEPREDICATE"),
            ("make == nil", "make == NULL"),
            ("make == 'Apple'", "make == \"Apple\""),
            ("mediaType in {image, video}", "mediaType IN {1, 2}"),
            ("filename contains[C] 'x'", "filename CONTAINS[c] \"x\""),
            ("filename beginswith 'x'", "filename BEGINSWITH 'x'"),
            ("pixelWidth between {1, 2}", "pixelWidth BETWEEN {1,2}"),
            ("location.latitude > 1", "latitude > 1"),
            ("location.coordinate.longitude > 1", "longitude > 1"),
            ("mediaType == %@", "mediaType == image"),
        ]
        for (a, b) in pairs {
            let args = a.contains("%@") ? ["image"] : []
            #expect(try Self.compile(a, args) == Self.compile(b), "\(a) vs \(b)")
        }
    }

    @Test func operatorsOnEachKind() throws {
        #expect(try Self.compile("pixelWidth BETWEEN {100, 200}").sql == "a.pixel_width BETWEEN ? AND ?")
        #expect(try Self.compile("mediaType IN {image, video}").sql == "a.media_type IN (?, ?)")
        #expect(try Self.compile("mediaType IN {}").sql == "0")
        #expect(try Self.compile("filename IN {'a', \"b\"}").arguments == [.text("a"), .text("b")])
        // Written to seek the asset_subtypes index: the subtype values present, those with the bit, IN.
        let live = try Self.compile("mediaSubtypes CONTAINS photoLive")
        #expect(live.arguments == [.int(8)])
        #expect(live.sql.hasPrefix("a.media_subtypes IN (WITH RECURSIVE v(x) AS (SELECT min(media_subtypes) FROM asset"))
        #expect(live.sql.hasSuffix(" SELECT x FROM v WHERE (x & ?) != 0)"))
        #expect(try Self.compile("burstSelectionTypes CONTAINS 1").sql == "(a.burst_selection_types & ?) != 0")
        #expect(
            try Self.compile("(mediaSubtypes & 8) == 8")
                == CompiledPredicate(sql: "(a.media_subtypes & ?) = ?", arguments: [.int(8), .int(8)]))
        // The bit tests `(mediaSubtypes & m) != 0` and `== 0` are written like CONTAINS (the index seek).
        #expect(try Self.compile("(mediaSubtypes & 8) != 0") == live)
        #expect(try Self.compile("(mediaSubtypes & %d) != 0", ["16"]).arguments == [.int(16)])
        #expect(try Self.compile("(8 & mediaSubtypes) != 0") == live)
        #expect(try Self.compile("0 != (mediaSubtypes & photoLive)") == live)
        #expect(try Self.compile("0 != (mediaSubtypes & photoHDR)").arguments == [.int(2)])
        let clear = try Self.compile("(mediaSubtypes & 8) == 0")
        #expect(clear.arguments == [.int(8)])
        #expect(clear.sql == live.sql.replacingOccurrences(of: "(x & ?) != 0)", with: "(x & ?) = 0)"))
        #expect(try Self.compile("0 == (photoLive & mediaSubtypes)") == clear)
        // Other shapes keep the plain masked comparison.
        #expect(try Self.compile("(mediaSubtypes & 8) != 8").sql == "(a.media_subtypes & ?) != ?")
        #expect(try Self.compile("burstSelectionTypes CONTAINS userPick").arguments == [.int(2)])
        #expect(
            try Self.compile("traits CONTAINS selfie")
                == CompiledPredicate(sql: "instr(',' || a.traits || ',', ?) > 0", arguments: [.text(",selfie,")]))
        #expect(try Self.compile("'selfie' IN traits") == Self.compile("traits CONTAINS selfie"))
        #expect(try Self.compile("traits == ''").sql == "a.traits = ?")
        #expect(try Self.compile("filename CONTAINS 'a*b'").arguments == [.text("*a[*]b*")])
        #expect(try Self.compile("filename CONTAINS 'IMG'").sql == "a.filename GLOB ?")
        #expect(try Self.compile("filename BEGINSWITH 'IMG_'").arguments == [.text("IMG_*")])
        #expect(try Self.compile("filename ENDSWITH '.HEIC'").arguments == [.text("*.HEIC")])
        #expect(try Self.compile("filename LIKE 'IMG_?[1].*'").arguments == [.text("IMG_?[[]1].*")])
        #expect(try Self.compile(#"filename LIKE 'a\*b'"#).arguments == [.text("a[*]b")])
        #expect(
            try Self.compile("filename LIKE[c] 'IMG_*.HEIC'")
                == CompiledPredicate(sql: "lower(a.filename) LIKE ? ESCAPE '\\'", arguments: [.text("img\\_%.heic")]))
        #expect(try Self.compile("filename CONTAINS[cd] '100%'").arguments == [.text("%100\\%%")])
        #expect(try Self.compile("filename ==[c] 'ABC'").sql == "lower(a.filename) = ?")
        #expect(try Self.compile("filename ==[c] 'ABC'").arguments == [.text("abc")])
        #expect(try Self.compile("'IMG' IN filename") == Self.compile("filename CONTAINS 'IMG'"))
    }

    @Test func stringEscapes() throws {
        #expect(try Self.compile(#"filename == "it's""#).arguments == [.text("it's")])
        #expect(try Self.compile(#"filename == 'it\'s'"#).arguments == [.text("it's")])
        #expect(try Self.compile(#"filename == "a\"b\\c\n\t""#).arguments == [.text("a\"b\\c\n\t")])
        #expect(try Self.compile(#"filename == "caf\u00e9""#).arguments == [.text("café")])
        #expect(try Self.compile("filename == \"café ✓\"").arguments == [.text("café ✓")])
    }

    @Test func datesAreNormalised() throws {
        #expect(try Self.compile("creationDate >= '2020-01-01'").arguments == [.text("2020-01-01T00:00:00")])
        #expect(try Self.compile("creationDate >= \"2020-01-01\"").sql == "(a.creation_date IS NOT NULL AND a.creation_date >= ?)")
        #expect(try Self.compile("creationDate < '2020-01-01 10:00'").arguments == [.text("2020-01-01T10:00:00")])
        #expect(try Self.compile("creationDate < '2020-01-01T10:00:00.5Z'").arguments == [.text("2020-01-01T10:00:00.5")])
        // Local capture time: an offset is ignored for creationDate …
        #expect(try Self.compile("creationDate < '2020-01-01T10:00:00+02:00'").arguments == [.text("2020-01-01T10:00:00")])
        // … and applied for the UTC dates.
        #expect(try Self.compile("modificationDate < '2020-01-01T01:00:00+02:00'").arguments == [.text("2019-12-31T23:00:00")])
        #expect(try Self.compile("addedDate > '2020-03-01T00:00:00-0130'").arguments == [.text("2020-03-01T01:30:00")])
        #expect(try Self.compile("modificationDate > '2020-01-01'").sql == "rtrim(a.modification_date, 'Z') > ?")
        #expect(try Self.compile("creationDate > CAST(\"2021-02-03T04:05:06\", \"NSDate\")").arguments == [.text("2021-02-03T04:05:06")])
        #expect(try Self.compile("creationDate > CAST(0, \"NSDate\")").arguments == [.text("2001-01-01T00:00:00")])
        #expect(try Self.compile("addedDate > CAST(86400.25, 'NSDate')").arguments == [.text("2001-01-02T00:00:00.250")])
        #expect(try Self.compile("addedDate > CAST('-86400', 'NSDate')").arguments == [.text("2000-12-31T00:00:00")])
        #expect(try Self.compile("creationDate BETWEEN {'2020-01-01', '2020-12-31T23:59:59'}").arguments.count == 2)
        #expect(try Self.compile("creationDate == %@", ["2024-02-29"]).arguments == [.text("2024-02-29T00:00:00")])
    }

    @Test func substitutions() throws {
        #expect(try Self.compile("%K == %@", ["isFavorite", "YES"]) == Self.compile("isFavorite == YES"))
        #expect(try Self.compile("filename == %@", ["IMG_1.HEIC"]).arguments == [.text("IMG_1.HEIC")])
        #expect(try Self.compile("pixelWidth > %@", ["4000"]).arguments == [.int(4000)])
        #expect(try Self.compile("duration > %@", ["2.5"]).arguments == [.double(2.5)])
        #expect(try Self.compile("pixelWidth > %d", ["12"]).arguments == [.int(12)])
        #expect(try Self.compile("duration > %f", ["0.5"]).arguments == [.double(0.5)])
        #expect(try Self.compile("pixelWidth > %ld AND pixelHeight < %lld", ["1", "2"]).arguments == [.int(1), .int(2)])
        #expect(try Self.compile("mediaType == %@", ["2"]).arguments == [.int(2)])
        #expect(try Self.compile("isHidden == %@", ["false"]).arguments == [.int(0)])
        #expect(try Self.compile("traits CONTAINS %@", ["selfie"]).arguments == [.text(",selfie,")])
        #expect(try Self.compile("mediaSubtypes CONTAINS %@", ["photoHDR"]).arguments == [.int(2)])
        #expect(try Self.compile("%K > %K", ["pixelWidth", "pixelHeight"]).sql == "a.pixel_width > a.pixel_height")
        #expect(try Self.compile("filename IN {%@, %@}", ["a", "b"]).arguments == [.text("a"), .text("b")])
        // A %@ argument is always a value, never a key path or syntax.
        #expect(try Self.compile("filename == %@", ["pixelWidth"]).arguments == [.text("pixelWidth")])
    }

    // MARK: - Errors

    @Test func errorsCarryTheirPosition() {
        let cases: [(String, [String], Int, String)] = [
            ("foo == 1", [], 0, "unknown key path 'foo'"),
            ("pixelWidth == 1 AND bar > 2", [], 20, "unknown key path 'bar'"),
            ("pixelWidth CONTAINS \"x\"", [], 11, "CONTAINS applies to"),
            ("pixelWidth == \"x\"", [], 14, "pixelWidth is a number"),
            ("isFavorite > 3", [], 11, "isFavorite is a boolean: only == and != apply"),
            ("isFavorite == 3", [], 14, "isFavorite is a boolean"),
            ("mediaType == imag", [], 13, "unknown mediaType 'imag'"),
            ("mediaType < image", [], 10, "mediaType is an enumeration"),
            ("mediaSubtypes CONTAINS photoDead", [], 23, "unknown mediaSubtypes 'photoDead'"),
            ("traits CONTAINS sellfie", [], 16, "unknown trait 'sellfie'"),
            ("filename == \"abc", [], 12, "unterminated string"),
            ("filename == 'abc\\", [], 12, "unterminated string"),
            ("filename == \"a\\qb\"", [], 14, "unknown escape '\\q'"),
            ("filename == \"a\" xyz", [], 16, "unexpected 'xyz' after a complete predicate"),
            ("filename == \"a\")", [], 15, "unexpected ')'"),
            ("(filename == \"a\"", [], 16, "expected ')'"),
            ("filename ==", [], 11, "unexpected end of the predicate"),
            ("filename", [], 8, "expected an operator"),
            ("filename MATCHES 'a.*'", [], 9, "MATCHES (regular expressions) is not supported"),
            ("ANY traits == 'x'", [], 0, "ANY is not supported"),
            ("filename == %@", [], 12, "missing argument 1 for '%@'"),
            ("filename == %@ AND make == %@", ["a"], 27, "missing argument 2"),
            ("filename == %@", ["a", "b"], 14, "2 arguments given but the predicate uses 1"),
            ("%K == 1", ["nope"], 0, "unknown key path 'nope' for %K"),
            ("pixelWidth == %d", ["x"], 14, "argument 1 for %d is not an integer"),
            ("pixelWidth == %@", ["x"], 14, "the argument 'x' is not"),
            ("pixelWidth == %s", [], 14, "unsupported format specifier '%s'"),
            ("filename == $name", [], 12, "variables such as '$name' are not supported"),
            ("filename == 'a' | make == 'b'", [], 16, "unexpected '|'"),
            ("filename == 'a' # x", [], 16, "unexpected character '#'"),
            ("filename CONTAINS[x] 'a'", [], 18, "unknown modifier 'x'"),
            ("filename CONTAINS[cx] 'a'", [], 19, "unknown modifier 'x'"),
            ("pixelWidth ==[c] 5", [], 13, "[c] and [d] apply to text key paths"),
            ("creationDate > '2020-13-01'", [], 15, "'2020-13-01' is not a date"),
            ("creationDate > 5", [], 15, "creationDate is a date"),
            ("pixelWidth BETWEEN {1}", [], 19, "BETWEEN needs a list of two values"),
            ("pixelWidth IN 5", [], 14, "IN needs a list"),
            ("make == Apple", [], 8, "unknown key path 'Apple' (text values need quotes"),
            ("1 == 1", [], 0, "a comparison needs a key path on one side"),
            ("pixelWidth < nil", [], 11, "nil can only be compared with == or !="),
            ("(pixelWidth & 8) != 0", [], 12, "'&' applies to bitmask key paths"),
            ("location == 5", [], 12, "location can only be compared with nil"),
            ("mediaSubtypes > 3", [], 14, "mediaSubtypes is a bitmask"),
            ("creationDate > CAST('2020-01-01', 'NSString')", [], 34, "only CAST(…, \"NSDate\") is supported"),
            ("filename == 99999999999999999999", [], 12, "out of range"),
            ("pixelWidth > - x", [], 15, "expected a number after '-'"),
            ("traits.@count > 1", [], 7, "collection operators"),
            ("(mediaSubtypes & 8) != ", [], 23, "unexpected end of the predicate"),
            ("filename == 'é' AND x == 1", [], 21, "unknown key path 'x'"),
        ]
        for (source, args, position, message) in cases {
            guard let e = Self.failure(source, args) else {
                Issue.record("\(source) compiled")
                continue
            }
            #expect(e.position == position, "\(source): \(e.message)")
            #expect(e.message.contains(message), "\(source): \(e.message)")
            #expect(e.source == source)
        }
    }

    @Test func errorDescriptionHasACaret() throws {
        let e = try #require(Self.failure("mediaType == imag"))
        #expect(e.description.hasPrefix("error: at column 14: unknown mediaType 'imag'"))
        #expect(e.description.hasSuffix("\nmediaType == imag\n             ^"))
        // Columns count characters, not bytes.
        let u = try #require(Self.failure("filename == 'é' AND x == 1"))
        #expect(u.position == 21)
        #expect(u.lineAndColumn.column == 21)
        #expect(u.description.hasSuffix("\n" + String(repeating: " ", count: 20) + "^"))
        let m = try #require(Self.failure("isFavorite == YES\nAND nope == 1"))
        #expect(m.description.hasPrefix("error: at line 2, column 5: unknown key path 'nope'"))
        #expect(m.description.hasSuffix("\nAND nope == 1\n    ^"))
    }

    // MARK: - Catalog

    final class Scratch {
        let url: URL
        let catalog: Catalog
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-predicate-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            catalog = try Catalog(path: url.appendingPathComponent("catalog.sqlite").path)
        }
        deinit { try? FileManager.default.removeItem(at: url) }

        func count(_ s: String, _ args: [String] = []) throws -> Int {
            try catalog.count(where: PredicateCompiler.compile(s, arguments: args))
        }
    }

    /// Three assets: a Live Photo selfie, a hidden burst photo named `it's`, a timelapse video.
    static func catalogWithThreeAssets() throws -> Scratch {
        let s = try Scratch()
        var live = Asset(id: "photos/IMG_0001.HEIC", mediaType: .image)
        live.mediaSubtypes = [.photoLive, .photoHDR]
        live.traits = [.selfie, .hasDepthData]
        live.playbackStyle = .livePhoto
        live.creationDate = AssetDate(local: "2020-06-01T10:00:00", offsetSeconds: 7200)
        live.location = Location(latitude: 48.85, longitude: 2.35, altitude: 35)
        live.pixelWidth = 4032
        live.pixelHeight = 3024
        live.contentIdentifier = "CID-1"
        live.isFavorite = true
        live.make = "Apple"
        live.model = "iPhone 12"
        live.lensModel = "iPhone 12 back camera 4.2mm f/1.6"

        var quoted = Asset(id: "photos/it's", mediaType: .image)
        quoted.traits = [.raw, .burst]
        quoted.pixelWidth = 640
        quoted.pixelHeight = 480
        quoted.burstIdentifier = "B1"
        quoted.representsBurst = true
        quoted.burstSelectionTypes = [.userPick]
        quoted.hasAdjustments = true
        quoted.isHidden = true
        quoted.make = "Café Cam"

        var clip = Asset(id: "photos/clip_100%.mov", mediaType: .video)
        clip.mediaSubtypes = [.videoTimelapse]
        clip.playbackVariation = .autoloop
        clip.creationDate = AssetDate(local: "2019-12-31T23:59:59.500", offsetSeconds: nil)
        clip.pixelWidth = 1920
        clip.pixelHeight = 1080
        clip.duration = 12.5
        clip.make = "Canon"

        let run = try s.catalog.beginRun(roots: ["/r"])
        try s.catalog.commitFolder(
            FolderCommit(
                runID: run, root: "/r", dir: "/r/photos", files: [], vanished: [],
                assets: [live, quoted, clip].map { AssetInput(asset: $0, root: "/r", dir: "/r/photos", resourceHashes: []) },
                errors: []))
        return s
    }

    @Test func semanticsOnARealCatalog() throws {
        let s = try Self.catalogWithThreeAssets()
        let expectations: [(String, [String], Int)] = [
            ("TRUEPREDICATE", [], 3),
            ("FALSEPREDICATE", [], 0),
            ("mediaType == image", [], 2),
            ("mediaType == video", [], 1),
            ("mediaType != image", [], 1),
            ("mediaType IN {video, audio}", [], 1),
            ("mediaSubtypes CONTAINS photoLive", [], 1),
            ("(mediaSubtypes & 8) != 0", [], 1),
            ("(mediaSubtypes & 8) == 8", [], 1),
            ("(mediaSubtypes & %d) != 0", ["262144"], 1),
            ("(mediaSubtypes & 8) == 0", [], 2),
            ("NOT (mediaSubtypes & 8) == 0", [], 1),
            ("NOT (mediaSubtypes & 8) != 0", [], 2),
            ("(mediaSubtypes & 262152) != 0", [], 2),
            ("(mediaSubtypes & 262152) == 0", [], 1),
            ("(mediaSubtypes & 0) != 0", [], 0),
            ("(mediaSubtypes & 0) == 0", [], 3),
            ("(mediaSubtypes & 1) != 0 OR (mediaSubtypes & 8) == 0", [], 2),
            ("mediaSubtypes == 0", [], 1),
            ("mediaSubtypes == 10", [], 1),
            ("NOT mediaSubtypes CONTAINS photoHDR", [], 2),
            ("playbackStyle == livePhoto", [], 1),
            ("playbackStyle == video", [], 1),
            ("playbackVariation == autoloop", [], 1),
            // Catalog.commitFolder does not store representsBurst / burstSelectionTypes yet (columns keep their defaults).
            ("burstSelectionTypes CONTAINS userPick", [], 0),
            ("burstSelectionTypes == 0", [], 3),
            ("mediaType == image AND mediaSubtypes CONTAINS photoLive AND creationDate >= \"2020-01-01\"", [], 1),
            ("creationDate >= '2020-01-01'", [], 1),
            ("creationDate < '2020-01-01'", [], 1),
            ("creationDate > '2019-12-31T23:59:59'", [], 2),
            ("creationDate > '2019-12-31T23:59:59.6'", [], 1),
            ("creationDate == '2020-06-01T10:00:00+05:00'", [], 1),
            ("creationDate BETWEEN {'2020-06-01', '2020-06-02'}", [], 1),
            ("creationDate == nil", [], 1),
            ("NOT creationDate < '2020-01-01'", [], 2),
            ("creationDate > CAST(0, 'NSDate')", [], 2),
            ("modificationDate > '2020-01-01'", [], 3),
            ("addedDate < '2020-01-01T00:00:00Z'", [], 0),
            ("addedDate > CAST('2020-01-01T00:00:00+14:00', 'NSDate')", [], 3),
            ("isFavorite == YES", [], 1),
            ("isHidden == YES", [], 1),
            ("hasAdjustments == TRUE", [], 1),
            ("representsBurst == NO", [], 3),
            ("isTrashed == NO", [], 3),
            ("%K == %@", ["isFavorite", "YES"], 1),
            ("pixelWidth > 1000", [], 2),
            ("pixelWidth > pixelHeight", [], 3),
            ("pixelHeight BETWEEN {480, 1080}", [], 2),
            ("duration > %@", ["10"], 1),
            ("duration == 12.5", [], 1),
            ("burstIdentifier == 'B1'", [], 1),
            ("burstIdentifier != 'B1'", [], 2),
            ("burstIdentifier != nil", [], 1),
            ("contentIdentifier == \"CID-1\"", [], 1),
            ("localIdentifier ENDSWITH '/L0/001'", [], 3),
            ("cloudIdentifier != ''", [], 3),
            ("filename == \"it's\"", [], 1),
            ("filename == 'it\\'s'", [], 1),
            ("filename == %@", ["it's"], 1),
            ("filename LIKE[c] \"IMG_*.HEIC\"", [], 1),
            ("filename LIKE[c] 'img_????.heic'", [], 1),
            ("filename LIKE 'img_*'", [], 0),
            ("filename LIKE 'IMG?0001*'", [], 1),
            ("filename CONTAINS '100%'", [], 1),
            ("filename CONTAINS[c] '100%'", [], 1),
            ("filename CONTAINS[c] '_100'", [], 1),
            ("filename CONTAINS '0%'", [], 1),
            ("filename CONTAINS[c] 'x%'", [], 0),
            ("filename LIKE '*\\\\%*'", [], 1),
            ("filename LIKE 'it\\'s'", [], 1),
            ("filename BEGINSWITH 'IMG'", [], 1),
            ("filename BEGINSWITH 'img'", [], 0),
            ("filename BEGINSWITH[c] 'img'", [], 1),
            ("filename ENDSWITH '.mov'", [], 1),
            ("filename ==[c] 'img_0001.heic'", [], 1),
            ("'IMG' IN filename", [], 1),
            ("make == 'Apple'", [], 1),
            ("make != 'Apple'", [], 2),
            ("NOT (make == 'Apple')", [], 2),
            ("make IN {'Apple', 'Canon'}", [], 2),
            ("make CONTAINS[c] 'CAN'", [], 1),
            ("make == \"Café Cam\"", [], 1),
            ("make BEGINSWITH[d] 'Café'", [], 1),
            ("model == 'iPhone 12' AND lensModel CONTAINS 'f/1.6'", [], 1),
            ("model == nil", [], 2),
            ("NOT model == 'iPhone 12'", [], 2),
            ("location == nil", [], 2),
            ("location != nil", [], 1),
            ("latitude > 48 AND location.longitude < 3 AND altitude == 35", [], 1),
            ("location.coordinate.latitude BETWEEN {48.8, 48.9}", [], 1),
            ("NOT latitude > 48", [], 2),
            ("traits CONTAINS selfie", [], 1),
            ("traits CONTAINS raw", [], 1),
            ("traits CONTAINS 'aw'", [], 0),
            ("traits CONTAINS 'hasDepthData'", [], 1),
            ("'burst' IN traits", [], 1),
            ("traits == ''", [], 1),
            ("traits == 'hasDepthData,selfie'", [], 1),
            ("isFavorite == YES OR isHidden == YES AND mediaType == video", [], 1),
            ("(isFavorite == YES OR isHidden == YES) AND mediaType == image", [], 2),
        ]
        for (source, args, n) in expectations {
            #expect(try s.count(source, args) == n, "\(source)")
        }
        let ids = try s.catalog.localIdentifiers(where: PredicateCompiler.compile("mediaType == image"))
        #expect(ids.count == 2)
    }

    // MARK: - SQL safety

    static let hostile = [
        "x'; DROP TABLE asset; --", "\" OR 1=1 --", "') OR ('1'='1", "/* */ DROP TABLE asset", "it's; DELETE FROM asset",
        "a.pixel_width) OR (1=1", "1; DROP TABLE asset",
    ]

    @Test func hostileInputNeverReachesTheSQLText() throws {
        let s = try Self.catalogWithThreeAssets()
        var compiled: [CompiledPredicate] = []
        for h in Self.hostile {
            let quotedDouble = "\"" + h.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
            let quotedSingle = "'" + h.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
            // As values, literal or substituted: compiled, with the value as a parameter.
            let asValues: [(String, [String])] = [
                ("filename == \(quotedDouble)", []), ("filename == \(quotedSingle)", []), ("make CONTAINS \(quotedDouble)", []),
                ("filename LIKE[c] \(quotedSingle)", []), ("lensModel IN {\(quotedDouble), 'x'}", []),
                ("filename == %@", [h]), ("make BEGINSWITH[c] %@", [h]), ("traits CONTAINS %@", [h.replacingOccurrences(of: ",", with: "")]),
                ("%K == %@", ["model", h]), ("filename ENDSWITH %@ OR make == %@", [h, h]),
            ]
            for (source, args) in asValues {
                let p = try PredicateCompiler.compile(source, arguments: args)
                for part in ["DROP", "DELETE", "--", "/*", ";", "1=1", "'1'"] {
                    #expect(!p.sql.contains(part), "\(source) → \(p.sql)")
                }
                #expect(p.sql.filter { $0 == "?" }.count == p.arguments.count, "\(source)")
                compiled.append(p)
            }
            // Where a key path, a number or a name is expected: refused.
            let refused: [(String, [String])] = [
                (h + " == 1", []), ("%K == 1", [h]), ("%K CONTAINS 'x'", [h]), ("pixelWidth == %@", [h]), ("pixelWidth == %d", [h]),
                ("mediaType == %@", [h]), ("isFavorite == %@", [h]), ("creationDate > %@", [h]), ("mediaSubtypes CONTAINS %@", [h]),
                ("filename == 'a' " + h, []), ("filename CONTAINS[\(h)] 'a'", []), ("creationDate > CAST('2020-01-01', \(quotedDouble))", []),
            ]
            for (source, args) in refused {
                #expect(Self.failure(source, args) != nil, "\(source) \(args) compiled")
            }
        }
        for bad in ["filename == 'a'; DROP TABLE asset", "filename == 'a' -- comment", "filename == 'a' /* x */", "DROP TABLE asset"] {
            #expect(Self.failure(bad) != nil, "\(bad)")
        }
        for p in compiled {
            #expect(try s.catalog.count(where: p) == 0, "\(p.sql) \(p.arguments)")
        }
        #expect(try s.count("TRUEPREDICATE") == 3)
        #expect(try s.catalog.allAssets().count == 3)
        // Literal matching of quotes and wildcards.
        #expect(try s.count("filename == \"it's\"") == 1)
        #expect(Self.failure("filename == 'it''s'") != nil)  // SQL's doubled quote is not an escape here
        #expect(try s.count("filename LIKE \"it's\"") == 1)
        #expect(try s.count("filename CONTAINS[c] \"'\"") == 1)
        #expect(try s.count("filename CONTAINS '%'") == 1)
        #expect(try s.count("filename CONTAINS[c] '%'") == 1)
        #expect(try s.count("filename CONTAINS[c] '_'") == 2)
    }

    @Test func everyDocumentedKeyPathCompiles() throws {
        for (name, info) in PredicateCompiler.keyPaths {
            let source: String
            switch info.kind {
            case .integer, .real: source = "\(name) > 1"
            case .boolean: source = "\(name) == YES"
            case .text: source = "\(name) CONTAINS[c] 'x'"
            case .localDate, .utcDate: source = "\(name) >= '2020-01-01'"
            case .enumeration: source = "\(name) == \(info.constants.keys.sorted().first!)"
            case .bitmask: source = "\(name) CONTAINS \(info.constants.keys.sorted().first!)"
            case .traits: source = "\(name) CONTAINS selfie"
            case .location: source = "\(name) != nil"
            }
            let s = try Self.catalogWithThreeAssets()
            _ = try s.catalog.count(where: PredicateCompiler.compile(source))
        }
    }
}
