import Catalog
import PhotoModel
import Report
import Testing

/// The pure parts of the site: escaping user data, relative paths, pagination, names.
@Suite struct HTMLTests {
    @Test func escapesEverySpecialCharacter() {
        #expect(
            HTML.escape(#"<a href="x">Tom & 'Jerry'</a>"#) == "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;")
        #expect(HTML.escape("IMG_0001 é 🙂.HEIC") == "IMG_0001 é 🙂.HEIC")
    }

    @Test func pagesKeepUserDataOutOfMarkup() {
        let page = HTML.page(title: "<script>alert(1)</script>", root: "../", section: .moments, body: "")
        #expect(!page.contains("<script>"))
        #expect(page.contains("<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>"))
        #expect(page.contains("<a href=\"../moments/index.html\" aria-current=\"page\">Moments</a>"))
        #expect(page.contains("<main id=\"main\""))
    }

    @Test func relativePaths() {
        #expect(SitePath.relative(from: "/a/site", to: "/a/site/thumbs") == "thumbs")
        #expect(SitePath.relative(from: "/a/site", to: "/a/cache/thumbs") == "../cache/thumbs")
        #expect(SitePath.relative(from: "/a/site", to: "/a/site") == ".")
        #expect(SitePath.root(of: "assets/ab/x.html") == "../../")
        #expect(SitePath.root(of: "index.html") == "")
        #expect(SitePath.assetPage("0A1B-2C/L0/001") == "assets/0a/0A1B-2C-L0-001.html")
        #expect(SitePath.safe("../../etc/passwd") == "------etc-passwd")
    }

    @Test func paginationLinksAroundTheCurrentPage() {
        #expect(HTML.pageFile("2023-05", 1) == "2023-05.html")
        #expect(HTML.pageFile("2023-05", 3) == "2023-05-p3.html")
        #expect(HTML.pagination(base: "x", current: 1, pages: 1) == "")
        let nav = HTML.pagination(base: "index", current: 250, pages: 500)
        #expect(nav.contains("href=\"index-p250.html\" aria-current=\"page\""))
        #expect(nav.contains("href=\"index-p249.html\" rel=\"prev\""))
        #expect(nav.contains("href=\"index-p500.html\""))
        #expect(nav.contains("href=\"index.html\">1<"))
        #expect(!nav.contains("index-p100.html"))
    }

    @Test func namesAndDates() {
        #expect(ReportNames.monthTitle("2023-05") == "May 2023")
        #expect(ReportNames.displayDate(AssetDate(local: "2023-05-12T14:03:22", offsetSeconds: 3600)) == "12 May 2023 14:03")
        #expect(ReportNames.dateRange("2023-05-12T10:00:00Z", "2023-05-14T09:00:00Z") == "12 May 2023 – 14 May 2023")
        #expect(ReportNames.dateRange("2023-05-12T10:00:00Z", "2023-05-12T19:00:00Z") == "12 May 2023")
        #expect(ReportNames.duration(7.4) == "0:07")
        #expect(ReportNames.duration(3723) == "1:02:03")
        var a = Asset(id: "x", mediaType: .image)
        a.mediaSubtypes = [.photoLive, .photoHDR]
        a.traits = [.selfie, .raw, Trait("somethingNew")]
        #expect(ReportNames.badges(a) == ["Live", "HDR", "Selfie", "RAW", "somethingNew"])
    }
}
