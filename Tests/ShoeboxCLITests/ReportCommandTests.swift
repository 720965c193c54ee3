import Catalog
import Foundation
import PhotoModel
import TestSupport
import Testing

/// `shoebox report`: the site of the corpus checked in headless Chromium against the catalog, links that
/// resolve, the sample library's report, and the refusal to write under an ingested root.
@Suite(.serialized) struct ReportCommandTests {
    // MARK: - Without a browser

    @Test func sampleLibraryReportLinksResolveAndRerunsRenderNothing() throws {
        let scratch = try TestScratch("report")
        let library = Corpus.fixtures.appendingPathComponent("generated/library").path
        let catalog = scratch.path("c.sqlite")
        let ingest = try ProbeCommandTests.shoebox(["ingest", library, "--catalog", catalog, "--progress", "none"])
        #expect(ingest.status == 0 || ingest.status == 1, "\(ingest.stderr)")
        let site = scratch.path("site")
        let first = try ProbeCommandTests.shoebox(["report", "--catalog", catalog, "--out", site, "--progress", "none"])
        #expect(first.status == 0 || first.status == 1, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("report: "), "\(first.stdout)")
        // Exit status 1 exactly when some thumbnail failed, each failure one error line.
        let failures = first.stderr.split(separator: "\n").filter { $0.hasPrefix("error: ") && $0.contains(": thumbnail: ") }
        #expect((first.status == 1) == !failures.isEmpty, "\(first.stderr)")
        #expect(!first.stdout.contains("thumbnails: 0 files written"), "\(first.stdout)")
        let broken = Self.unresolvedLinks(in: site)
        #expect(broken.isEmpty, "links that lead nowhere: \(broken.prefix(10))")

        let again = try ProbeCommandTests.shoebox(["report", "--catalog", catalog, "--out", site, "--progress", "none"])
        #expect(again.stdout.contains("thumbnails: 0 files written"), "\(again.stdout)")
        let noRender = try ProbeCommandTests.shoebox([
            "report", "--catalog", catalog, "--out", scratch.path("site2"), "--thumbs", site + "/thumbs", "--no-render",
            "--progress", "none",
        ])
        #expect(noRender.status == 0, "\(noRender.stderr)")
        #expect(noRender.stdout.contains("thumbnails not rendered"), "\(noRender.stdout)")
        #expect(Self.unresolvedLinks(in: scratch.path("site2")).isEmpty)
        // The two sites show the same pictures: site2 reuses site's cache through a relative path.
        let index1 = try String(contentsOfFile: site + "/timeline/" + (Self.firstMonthPage(site) ?? ""), encoding: .utf8)
        #expect(index1.contains("src=\"../thumbs/"))

        // `thumbnails --prune` on the report's cache keeps the Live Photos' motion posters with their asset.
        func motionPosters() -> [String] {
            (FileManager.default.subpaths(atPath: site + "/thumbs") ?? []).filter { $0.contains("-motion_") }.sorted()
        }
        let posters = motionPosters()
        #expect(!posters.isEmpty, "the sample library's Live Photos have no motion posters")
        let prune = try ProbeCommandTests.shoebox([
            "thumbnails", "--catalog", catalog, "--out", site + "/thumbs", "--prune", "--progress", "none",
        ])
        #expect(prune.status == 0 || prune.status == 1, "\(prune.stderr)")
        #expect(motionPosters() == posters, "prune removed motion posters: \(prune.stdout)")

        // Never under a root; usage mistakes exit 2.
        let inside = try ProbeCommandTests.shoebox([
            "report", "--catalog", catalog, "--out", library + "/site", "--progress", "none",
        ])
        #expect(inside.status == 2, "\(inside.stdout) \(inside.stderr)")
        #expect(inside.stderr.contains("inside the ingested root"), "\(inside.stderr)")
        #expect(!FileManager.default.fileExists(atPath: library + "/site"))
        #expect(try ProbeCommandTests.shoebox(["report", "--catalog", catalog, "--out", site, "--sizes", "0"]).status == 2)
        #expect(try ProbeCommandTests.shoebox(["report", "mediaType ==", "--catalog", catalog, "--out", site]).status == 2)
    }

    /// Places (docs/places.md) on the site: moment titles with place names, asset pages with the place and
    /// the inferred local time and their reasons, the timeline by local day (Takeout's UTC time becomes
    /// Tokyo's next morning).
    @Test(.enabled(if: GazetteerFile.isAvailable, "\(GazetteerFile.skipMessage)"))
    func placesNameMomentsAndAssetsAndTheTimelineUsesLocalDays() throws {
        let scratch = try TestScratch("report-places")
        let library = Corpus.fixtures.appendingPathComponent("generated/places").path
        let catalog = scratch.path("c.sqlite")
        let ingest = try ProbeCommandTests.shoebox(
            ["ingest", library, "--catalog", catalog, "--progress", "none"])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        let site = scratch.path("site")
        let r = try ProbeCommandTests.shoebox([
            "report", "--catalog", catalog, "--out", site, "--progress", "none", "--no-render",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let moments = Self.pages(in: site + "/moments").compactMap {
            try? String(contentsOfFile: site + "/moments/" + $0, encoding: .utf8)
        }
        .joined()
        for title in ["Lisbon, 12 May 2023", "Sintra, 13 May 2023", "Apia, 10 June 2023", "Pago Pago, 10 June 2023"] {
            #expect(moments.contains(title), "no moment titled \(title)")
        }
        let stored = try Catalog(path: catalog, mode: .readOnly).allAssets()
        func page(_ name: String) throws -> String {
            let s = try #require(stored.first { $0.asset.id.hasSuffix("/" + name) }, "\(name)")
            let rel = try #require(Self.assetPage(of: s, in: site), "\(name): no page")
            return try String(contentsOfFile: site + "/" + rel, encoding: .utf8)
        }
        let elvas = try page("elvas.jpg")
        #expect(elvas.contains("Elvas, Portalegre, Portugal"), "elvas.jpg's page has no place name")
        #expect(elvas.contains("inferred from GPS (Europe/Lisbon, Elvas)"), "elvas.jpg's page has no zone reason")
        let tokyo = try page("tokyo.jpg")
        #expect(tokyo.contains("Tokyo"), "tokyo.jpg's page has no place name")
        // The local day, not the UTC one, files it on the timeline.
        let stamp = try #require(stored.first { $0.asset.id.hasSuffix("/tokyo.jpg") }?.asset.creationDate)
        let info = try #require(
            try Catalog(path: catalog, mode: .readOnly).placeInfo(
                stored.first { $0.asset.id.hasSuffix("/tokyo.jpg") }!.localIdentifier))
        let local = try #require(info.localDate)
        #expect(local.local.prefix(10) != stamp.local.prefix(10), "the fixture crosses midnight: \(stamp) → \(local)")
        let month = site + "/timeline/" + String(local.local.prefix(7)) + ".html"
        let timeline = (try? String(contentsOfFile: month, encoding: .utf8)) ?? ""
        #expect(timeline.contains("tokyo.jpg"), "tokyo.jpg is not on \(month)")
    }

    /// A file name is user data: it reaches every page escaped, and links still resolve.
    @Test(.enabled(if: ProbeCommandTests.goodFile != nil, "no fixture or corpus file"))
    func fileNamesAreEscaped() throws {
        let scratch = try TestScratch("report-names")
        let tree = scratch.path("photos")
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        let name = #"<b>Tom & "Jerry"'s<i> #1?.jpg"#
        try FileManager.default.copyItem(atPath: try #require(ProbeCommandTests.goodFile), toPath: tree + "/" + name)
        let catalog = scratch.path("c.sqlite")
        #expect(try ProbeCommandTests.shoebox(["ingest", tree, "--catalog", catalog, "--progress", "none"]).status == 0)
        let site = scratch.path("site")
        let r = try ProbeCommandTests.shoebox(["report", "--catalog", catalog, "--out", site, "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        let escaped = "&lt;b&gt;Tom &amp; &quot;Jerry&quot;&#39;s&lt;i&gt; #1?.jpg"
        var pages = 0
        let en = FileManager.default.enumerator(atPath: site)
        while let rel = en?.nextObject() as? String {
            guard rel.hasSuffix(".html"), let text = try? String(contentsOfFile: site + "/" + rel, encoding: .utf8) else {
                continue
            }
            #expect(!text.contains("<b>Tom"), "\(rel) has the raw file name")
            if text.contains(escaped) { pages += 1 }
        }
        #expect(pages >= 3, "the escaped name is on \(pages) pages")  // month, moment, asset page at least
        #expect(Self.unresolvedLinks(in: site).isEmpty)
    }

    /// Relative `href`/`src` targets of every page of a site that are not files.
    static func unresolvedLinks(in site: String) -> [String] {
        var bad: [String] = []
        let en = FileManager.default.enumerator(atPath: site)
        let pattern = try! NSRegularExpression(pattern: ##"(?:href|src)="([^"#]+)""##)
        while let rel = en?.nextObject() as? String {
            guard rel.hasSuffix(".html"), let text = try? String(contentsOfFile: site + "/" + rel, encoding: .utf8) else {
                continue
            }
            let dir = URL(fileURLWithPath: site + "/" + rel).deletingLastPathComponent()
            for m in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let target = String(text[Range(m.range(at: 1), in: text)!]).replacingOccurrences(of: "&amp;", with: "&")
                if target.contains("://") { bad.append("\(rel): absolute \(target)"); continue }
                if !FileManager.default.fileExists(atPath: dir.appendingPathComponent(target).standardizedFileURL.path) {
                    bad.append("\(rel) → \(target)")
                }
            }
        }
        return bad
    }

    static func firstMonthPage(_ site: String) -> String? {
        (try? FileManager.default.contentsOfDirectory(atPath: site + "/timeline"))?.filter { $0.first?.isNumber == true }.sorted()
            .first
    }

    // MARK: - In a browser

    /// Headless Chromium (Debian's `chromium`), or nil.
    static let chromium: String? = Subprocess.which("chromium") ?? Subprocess.which("chromium-browser")
    static let noBrowser = "chromium is absent (make deps installs it): the report is not checked in a browser"

    /// The corpus's report, with screenshots of the index, one moment, one Live Photo and the errors page.
    @Test(.enabled(if: Corpus.isAvailable, "\(Corpus.skipMessage)"), .enabled(if: chromium != nil, "\(noBrowser)"))
    func corpusReportInChromiumMatchesTheCatalog() throws {
        try Self.checkInBrowser(root: try #require(Corpus.root).path, screenshots: true)
    }

    /// The bundled sample library's report (a clone without ../shared still checks a site in a browser).
    @Test(.enabled(if: chromium != nil, "\(noBrowser)"))
    func sampleLibraryReportInChromiumMatchesTheCatalog() throws {
        try Self.checkInBrowser(root: Corpus.fixtures.appendingPathComponent("generated/library").path, screenshots: false)
    }

    /// Ingests `root`, reports it, and compares what Chromium shows with what the catalog says.
    static func checkInBrowser(root: String, screenshots: Bool) throws {
        let scratch = try TestScratch("report-browser")
        let catalogPath = scratch.path("c.sqlite")
        let ingest = try ProbeCommandTests.shoebox(["ingest", root, "--catalog", catalogPath, "--progress", "none"])
        #expect(ingest.status == 0 || ingest.status == 1, "\(ingest.stderr)")
        let site = scratch.path("site")
        let run = try ProbeCommandTests.shoebox(["report", "--catalog", catalogPath, "--out", site, "--progress", "none"])
        #expect(run.status == 0 || run.status == 1, "\(run.stderr)")

        // What the catalog says, computed here from the fetch API (hidden assets and burst frames other
        // than the representative are not shown, as in Photos).
        let catalog = try Catalog(path: catalogPath, mode: .readOnly)
        let shown = try catalog.fetchAssets(FetchOptions())
        var years: [String: Int] = [:]
        var undated = 0
        var live: [StoredAsset] = []
        try shown.enumerate { _, s in
            if s.asset.isUndated { undated += 1 } else { years[String(s.asset.creationDate!.local.prefix(4)), default: 0] += 1 }
            if s.asset.mediaSubtypes.contains(.photoLive) { live.append(s) }
        }
        var everyFrame = FetchOptions()
        everyFrame.includeAllBurstAssets = true
        var burstIDs = Set<String>()
        try catalog.fetchAssets(everyFrame).enumerate { _, s in if let b = s.asset.burstIdentifier { burstIDs.insert(b) } }
        let momentCount = try catalog.collectionCount(type: .moment)
        let errorRows = try catalog.errors().count
        let browser = Browser(chromium: try #require(chromium), scratch: scratch)

        let index = try browser.text(of: site + "/index.html")
        #expect(index.contains("\(shown.count) assets"), "\(index)")
        for (y, n) in years { #expect(index.contains("\(y) \(n) asset"), "year \(y): \(n) assets expected in: \(index)") }
        if undated > 0 { #expect(index.contains("Undated \(undated) asset"), "\(index)") }
        #expect(index.contains("\(momentCount) moments"), "\(index)")
        #expect(index.contains("\(live.count) Live Photos"), "\(index)")
        #expect(index.contains("\(burstIDs.count) bursts"), "\(index)")
        #expect(index.contains("\(errorRows) errors"), "\(index)")

        let moments = try browser.text(of: site + "/moments/index.html")
        #expect(moments.contains("\(momentCount) moment"), "\(moments)")
        let errors = try browser.text(of: site + "/errors/index.html")
        #expect(errors.contains("\(errorRows) error row"), "\(errors)")
        for e in try catalog.errors() { #expect(errors.contains(e.path), "error row of \(e.path) missing") }

        // A moment with pictures, a Live Photo's page, the Live Photos page, a month: every <img> decodes.
        // The moment with the most pictures (the screenshot's subject too).
        let moment = try #require(
            Self.pages(in: site + "/moments").filter { $0 != "index.html" }.max {
                Self.imgTags(site + "/moments/" + $0) < Self.imgTags(site + "/moments/" + $1)
            })
        let liveAsset = try #require(live.first)
        let livePage = site + "/" + (try #require(Self.assetPage(of: liveAsset, in: site)))
        let month = try #require(Self.firstMonthPage(site))
        for page in [site + "/moments/" + moment, livePage, site + "/live/index.html", site + "/timeline/" + month] {
            let check = try browser.images(of: page)
            #expect(
                check.total > 0 && check.total == Self.imgTags(page),
                "\(page): \(check.total) <img> in the browser, \(Self.imgTags(page)) in the file")
            #expect(check.broken.isEmpty, "\(page): images that do not decode: \(check.broken)")
        }
        // Every Live Photo shows a poster of its motion: a movie file beside it, or the movie embedded in the still
        // (motion photos: the range from its stored facts).
        for s in live {
            let page = try #require(Self.assetPage(of: s, in: site), "no page for \(s.asset.id)")
            let html = try String(contentsOfFile: site + "/" + page, encoding: .utf8)
            #expect(
                html.contains("<img src=\"../../thumbs/") && html.contains("alt=\"Poster frame of the motion of"),
                "\(s.asset.id): no motion poster")
        }
        let liveText = try browser.text(of: livePage)
        #expect(liveText.contains("Live Photo pairing"), "\(liveText)")
        for r in liveAsset.asset.reasons where r.subject == "pairedVideo" { #expect(liveText.contains(r.evidence)) }

        guard screenshots else { return }
        for (name, page) in [
            ("index", site + "/index.html"), ("moment", site + "/moments/" + moment), ("live", livePage),
            ("errors", site + "/errors/index.html"),
        ] {
            let png = try browser.screenshot(of: page, name: name)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: png))
            #expect(bytes.count > 5_000 && bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(name): \(bytes.count) bytes")
        }
    }

    static func imgTags(_ page: String) -> Int {
        ((try? String(contentsOfFile: page, encoding: .utf8)) ?? "").components(separatedBy: "<img ").count - 1
    }

    static func pages(in dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".html") }.sorted()
    }

    static func assetPage(of s: StoredAsset, in site: String) -> String? {
        let safe = String(s.localIdentifier.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "-" })
        let rel = "assets/\(String(safe.prefix(2)).lowercased())/\(safe).html"
        return FileManager.default.fileExists(atPath: site + "/" + rel) ? rel : nil
    }

    /// Headless Chromium driven from the command line: `--dump-dom` for text, `--screenshot` for pictures.
    ///
    /// Images are checked without a DevTools client: a copy of the page, in its own folder (so relative
    /// links resolve), gets a script that waits for the load event (which waits for every image) and
    /// writes each `<img>` whose `naturalWidth` is 0 into the DOM that `--dump-dom` prints. The report
    /// itself has no script.
    struct Browser {
        let chromium: String
        let scratch: TestScratch
        static let flags = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
            "--virtual-time-budget=15000",
        ]

        func run(_ args: [String]) throws -> String {
            let r = try Subprocess.run(chromium, Self.flags + ["--user-data-dir=" + scratch.path("chromium-profile")] + args)
            #expect(r.status == 0, "chromium \(args): \(r.stderr.suffix(2000))")
            return r.stdout
        }

        /// The page's text as Chromium parsed it: tags dropped, entities of the escaper decoded, spaces collapsed.
        func text(of page: String) throws -> String {
            let dom = try run(["--dump-dom", URL(fileURLWithPath: page).absoluteString])
            #expect(dom.contains("</html>"), "\(page): no DOM dumped")
            Self.checkAccessibleMarkup(dom, page)
            var t = dom.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
            for (e, c) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&"), ("&nbsp;", " ")] {
                t = t.replacingOccurrences(of: e, with: c)
            }
            return t.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }

        func images(of page: String) throws -> (total: Int, broken: [String]) {
            let url = URL(fileURLWithPath: page)
            let html = try String(contentsOf: url, encoding: .utf8)
            let script = """
                <script>window.addEventListener('load', () => { const all = Array.from(document.images);
                const bad = all.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src'));
                const p = document.createElement('pre'); p.id = 'imgcheck';
                p.textContent = 'IMGCHECK total=' + all.length + ' broken=' + JSON.stringify(bad); document.body.appendChild(p); });</script>
                """
            let copy = url.deletingLastPathComponent().appendingPathComponent(".check-" + url.lastPathComponent)
            try html.replacingOccurrences(of: "</body>", with: script + "</body>").write(
                to: copy, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: copy) }
            let dom = try run(["--dump-dom", copy.absoluteString])
            Self.checkAccessibleMarkup(dom, page)
            // The script's own text contains the marker too: the result is the <pre> it added.
            guard let r = dom.range(of: #"id="imgcheck">IMGCHECK total=\d+ broken=\[[^<]*\]"#, options: .regularExpression) else {
                Issue.record("\(page): the image check did not run")
                return (0, [])
            }
            let match = dom[r]
            let found = match[match.range(of: "total=")!.upperBound...]
            let total = Int(found.prefix { $0.isNumber }) ?? 0
            let json = found.drop { $0 != "[" }.replacingOccurrences(of: "&quot;", with: "\"")
            let broken = (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String]) ?? ["unparsed: \(json)"]
            return (total, broken)
        }

        /// Landmarks, one `h1`, a language, and a text alternative on every picture, in the parsed DOM.
        static func checkAccessibleMarkup(_ dom: String, _ page: String) {
            #expect(dom.contains("<html lang=\"en\">"), "\(page): no language")
            #expect(dom.components(separatedBy: "<h1").count == 2, "\(page): not exactly one h1")
            #expect(
                dom.contains("<main id=\"main\"") && dom.contains("<nav aria-label=") && dom.contains("href=\"#main\""),
                "\(page): landmarks")
            let imgs = dom.components(separatedBy: "<img ").dropFirst().map { $0.prefix { $0 != ">" } }
            let bare = imgs.filter { $0.range(of: #"alt="[^"]+""#, options: .regularExpression) == nil }
            #expect(bare.isEmpty, "\(page): <img> without alt text: \(bare.prefix(3))")
            let placeholders = dom.components(separatedBy: "class=\"placeholder\"").dropFirst().map { $0.prefix { $0 != ">" } }
            #expect(
                placeholders.allSatisfy { $0.contains("role=\"img\" aria-label=\"No thumbnail for ") },
                "\(page): a placeholder without a label")
        }

        func screenshot(of page: String, name: String) throws -> String {
            let png = scratch.path("\(name).png")
            _ = try run(["--screenshot=" + png, "--window-size=1280,900", URL(fileURLWithPath: page).absoluteString])
            if let keep = ProcessInfo.processInfo.environment["SHOEBOX_REPORT_SCREENSHOTS"] {
                try? FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
                try? FileManager.default.removeItem(atPath: keep + "/report-\(name).png")
                try FileManager.default.copyItem(atPath: png, toPath: keep + "/report-\(name).png")
            }
            return png
        }
    }
}
