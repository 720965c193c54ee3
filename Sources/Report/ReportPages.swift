import Catalog
import PhotoModel

/// The site's pages as pure functions from catalog values to HTML text. Paths in links are relative:
/// `root` leads from the page's folder back to the site root, `thumbs` from the page's folder to the
/// thumbnail folder.
public enum ReportPages {
    /// Assets on one page of a contact sheet, list rows on one page of a list.
    public static let perPage = 200

    // MARK: - Pieces

    /// An asset's picture: the thumbnail, or a placeholder that says why there is none.
    static func picture(_ p: ReportItem.Picture, alt: String, thumbs: String) -> String {
        switch p {
        case .file(let rel):
            return "<img src=\"\(HTML.escape(thumbs + rel))\" alt=\"\(HTML.escape(alt))\">"
        case .missing(let reason):
            return "<span class=\"placeholder\" role=\"img\" aria-label=\"\(HTML.escape("No thumbnail for \(alt): \(reason)"))\">"
                + "<span>No thumbnail</span><small>\(HTML.escape(reason))</small></span>"
        }
    }

    static func badges(_ item: ReportItem, burstCount: Int?) -> String {
        var out = item.badges.map { HTML.badge($0, kind: $0 == "Live" ? "live" : "trait") }
        if let n = burstCount { out.append(HTML.badge("Burst · \(n)", kind: "burst")) }
        return out.isEmpty ? "" : "<span class=\"badges\">\(out.joined())</span>"
    }

    /// One tile of a contact sheet: the picture links to the asset page; a burst's representative also
    /// links to its burst page and shows as a stack.
    static func tile(_ item: ReportItem, root: String, thumbs: String, bursts: [String: BurstInfo]) -> String {
        let burst = item.burstIdentifier.flatMap { bursts[$0] }
        let stacked = burst.map { $0.count > 1 } ?? false
        var html = "<li class=\"tile\(stacked ? " stack" : "")\"><a class=\"pic\" href=\"\(root)\(item.page)\">"
        html += picture(item.picture, alt: item.altText, thumbs: thumbs) + "</a>"
        html += "<span class=\"name\">\(HTML.escape(item.fileName))</span>"
        html += badges(item, burstCount: stacked ? burst?.count : nil)
        if let burst, stacked {
            html += "<a class=\"more\" href=\"\(root)\(burst.page)\">All \(burst.count) burst frames</a>"
        }
        return html + "</li>"
    }

    static func sheet(
        _ items: some Sequence<ReportItem>, root: String, thumbs: String, bursts: [String: BurstInfo], label: String
    ) -> String {
        "<ul class=\"sheet\" aria-label=\"\(HTML.escape(label))\">"
            + items.map { tile($0, root: root, thumbs: thumbs, bursts: bursts) }.joined() + "</ul>"
    }

    static func plural(_ n: Int, _ one: String, _ many: String? = nil) -> String { "\(n) \(n == 1 ? one : many ?? one + "s")" }

    // MARK: - Pages

    /// The start page: totals and the timeline by year and month.
    public static func index(_ s: SiteSummary) -> String {
        var b = "<section aria-labelledby=\"totals\"><h2 id=\"totals\">In this report</h2><ul class=\"totals\">"
        b += "<li><strong>\(s.assets)</strong> assets</li>"
        b += "<li><strong>\(s.images)</strong> photos</li><li><strong>\(s.videos)</strong> videos</li>"
        b += "<li><a href=\"live/index.html\"><strong>\(s.live)</strong> Live Photos</a></li>"
        b += "<li><a href=\"bursts/index.html\"><strong>\(s.bursts)</strong> bursts</a></li>"
        b += "<li><a href=\"moments/index.html\"><strong>\(s.moments)</strong> moments</a></li>"
        b += "<li><a href=\"albums/index.html\"><strong>\(s.albums)</strong> albums</a></li>"
        b += "<li><a href=\"errors/index.html\"><strong>\(s.errors)</strong> errors</a></li>"
        b += "<li><strong>\(s.thumbnailsMissing)</strong> without a thumbnail</li></ul>"
        if let p = s.predicate { b += "<p>Assets matching <code>\(HTML.escape(p))</code>.</p>" }
        b += "</section><section aria-labelledby=\"timeline\"><h2 id=\"timeline\">Timeline</h2>"
        for y in s.years {
            b += "<section class=\"year\" aria-labelledby=\"y\(HTML.escape(y.year))\"><h3 id=\"y\(HTML.escape(y.year))\">"
            b += "\(HTML.escape(y.year)) <span class=\"count\">\(plural(y.count, "asset"))</span></h3><ul class=\"months\">"
            for m in y.months {
                b += "<li><a href=\"timeline/\(HTML.pageFile(m.month, 1))\">\(HTML.escape(ReportNames.monthTitle(m.month)))</a> "
                b += "<span class=\"count\">\(plural(m.count, "asset"))</span></li>"
            }
            b += "</ul></section>"
        }
        if s.undated > 0 {
            b +=
                "<section class=\"year\" aria-labelledby=\"undated\"><h3 id=\"undated\">Undated <span class=\"count\">\(plural(s.undated, "asset"))</span></h3>"
            b +=
                "<p>No capture date in the file or its sidecars. <a href=\"timeline/\(HTML.pageFile("undated", 1))\">See them</a>.</p></section>"
        }
        b +=
            "</section><p class=\"generated\">Generated \(HTML.escape(s.generated)) from <code>\(HTML.escape(s.catalogPath))</code>.</p>"
        return HTML.page(title: "Library", heading: "Library timeline", root: "", section: .timeline, body: b)
    }

    /// A contact sheet page of a list of assets (a month, a moment, an album, a burst).
    public static func sheetPage(
        title: String, intro: String = "", items: ArraySlice<ReportItem>, base: String, page: Int, pages: Int, root: String,
        thumbs: String, bursts: [String: BurstInfo], section: HTML.Section, total: Int
    ) -> String {
        var b = intro
        let first = items.startIndex + 1
        b +=
            "<p class=\"count\">\(plural(total, "asset"))\(pages > 1 ? "; page \(page) of \(pages) (\(first)–\(items.endIndex))" : "")</p>"
        b += HTML.pagination(base: base, current: page, pages: pages)
        b += sheet(items, root: root, thumbs: thumbs, bursts: bursts, label: title)
        b += HTML.pagination(base: base, current: page, pages: pages, label: "Pages (bottom)")
        return HTML.page(
            title: pages > 1 ? "\(title), page \(page)" : title, heading: title, root: root, section: section, body: b)
    }

    /// A paginated table page (moments, bursts, albums, errors): `header` cells, rows of HTML cells.
    public static func tablePage(
        title: String, intro: String, caption: String, header: [String], rows: ArraySlice<[String]>, base: String, page: Int,
        pages: Int, root: String, section: HTML.Section
    ) -> String {
        var b = intro + HTML.pagination(base: base, current: page, pages: pages)
        b += "<table><caption>\(HTML.escape(caption))</caption><thead><tr>"
        b += header.map { "<th scope=\"col\">\(HTML.escape($0))</th>" }.joined() + "</tr></thead><tbody>"
        for r in rows { b += "<tr>" + r.map { "<td>\($0)</td>" }.joined() + "</tr>" }
        b += "</tbody></table>" + HTML.pagination(base: base, current: page, pages: pages, label: "Pages (bottom)")
        return HTML.page(
            title: pages > 1 ? "\(title), page \(page)" : title, heading: title, root: root, section: section, body: b)
    }

    /// A page of Live Photos: the still beside a poster frame of its motion, the badge and the pairing reason.
    public static func livePage(items: ArraySlice<ReportItem>, page: Int, pages: Int, total: Int, thumbs: String) -> String {
        var b = "<p class=\"count\">\(plural(total, "Live Photo"))\(pages > 1 ? "; page \(page) of \(pages)" : "")</p>"
        b += HTML.pagination(base: "index", current: page, pages: pages)
        b += "<ul class=\"livelist\" aria-label=\"Live Photos\">"
        for item in items {
            b += "<li><h2><a href=\"../\(item.page)\">\(HTML.escape(item.fileName))</a> \(HTML.badge("Live", kind: "live"))</h2>"
            b += "<div class=\"pair\"><figure>" + picture(item.picture, alt: item.altText, thumbs: thumbs)
            b += "<figcaption>Still</figcaption></figure><figure>"
            b += picture(
                item.motion ?? .missing("no separate movie file"), alt: "Poster frame of the motion of \(item.fileName)",
                thumbs: thumbs)
            b += "<figcaption>Motion (poster frame)</figcaption></figure></div>"
            b += pairingText(item.pairing) + "</li>"
        }
        b += "</ul>" + HTML.pagination(base: "index", current: page, pages: pages, label: "Pages (bottom)")
        return HTML.page(
            title: pages > 1 ? "Live Photos, page \(page)" : "Live Photos", heading: "Live Photos", root: "../", section: .live,
            body: b)
    }

    static func pairingText(_ pairing: [String]) -> String {
        guard !pairing.isEmpty else { return "<p class=\"reason\">Paired: no reason recorded.</p>" }
        return "<ul class=\"reason\" aria-label=\"Why this is a Live Photo\">"
            + pairing.map { "<li>\(HTML.escape($0))</li>" }.joined() + "</ul>"
    }

    /// One asset whole, as `shoebox show` prints it: identifiers, resources, subtypes and traits with
    /// their reasons, collections, and every stored fact of its files.
    public static func assetPage(_ d: AssetDetail, thumbs: String) -> String {
        let root = "../../"
        let s = d.stored
        let a = s.asset
        var b = "<div class=\"asset\"><figure>" + picture(d.large, alt: d.item.altText, thumbs: thumbs) + "<figcaption>"
        b += HTML.escape(ReportNames.kind(a.mediaType, live: d.item.isLive).capitalizedFirst) + "</figcaption></figure>"
        if d.item.isLive {
            b +=
                "<figure>"
                + picture(
                    d.item.motion ?? .missing("no separate movie file"), alt: "Poster frame of the motion of \(d.item.fileName)",
                    thumbs: thumbs)
            b += "<figcaption>Motion (poster frame)</figcaption></figure>"
        }
        b += "</div>" + badges(d.item, burstCount: nil)
        if d.item.isLive { b += "<h2>Live Photo pairing</h2>" + pairingText(d.item.pairing) }
        if let burst = d.burst {
            let role = a.representsBurst ? "the representative frame" : "a frame"
            b += "<p>This is \(role) of a <a href=\"\(root)\(burst.page)\">burst of \(burst.count)</a>.</p>"
        }
        b += "<h2>Asset</h2>" + HTML.facts(AssetFacts.rows(s, place: d.placeInfo))
        b += "<h2>Resources</h2><table><caption>Files of this asset</caption><thead><tr><th scope=\"col\">Type</th>"
        b += "<th scope=\"col\">Path</th><th scope=\"col\">Size</th><th scope=\"col\">Content hash</th></tr></thead><tbody>"
        for (i, r) in a.resources.enumerated() {
            let hash = i < s.resourceHashes.count ? s.resourceHashes[i] ?? "-" : "-"
            var path = r.path
            if let range = r.byteRange { path += " (bytes \(range.offset)…, \(range.length) bytes)" }
            b += "<tr><td>\(HTML.escape(r.type.name))</td><td>\(HTML.escape(path))</td>"
            b += "<td>\(r.fileSize.map { String($0) } ?? "-")</td><td><code>\(HTML.escape(hash))</code></td></tr>"
        }
        b += "</tbody></table>"
        if !s.metadataSources.isEmpty {
            b += "<h2>Metadata sources</h2>" + HTML.facts(s.metadataSources.map { ($0.type, $0.path) })
        }
        if !d.collections.isEmpty {
            b += "<h2>Collections</h2><ul>"
            for c in d.collections {
                b +=
                    c.page.map { "<li><a href=\"\(root)\($0)\">\(HTML.escape(c.title))</a></li>" }
                    ?? "<li>\(HTML.escape(c.title))</li>"
            }
            b += "</ul>"
        }
        b += "<h2>Reasons</h2><table><caption>Why each judgement was made</caption><thead><tr><th scope=\"col\">Subject</th>"
        b += "<th scope=\"col\">Evidence</th></tr></thead><tbody>"
        for r in a.reasons { b += "<tr><td>\(HTML.escape(r.subject))</td><td>\(HTML.escape(r.evidence))</td></tr>" }
        b += "</tbody></table>"
        if !d.facts.isEmpty {
            b += "<h2>Stored facts</h2>"
            for f in d.facts {
                b += "<details><summary>\(HTML.escape(f.path))\(f.probeVersion.map { " (probe version \($0))" } ?? "")</summary>"
                b +=
                    "<ul class=\"factlines\">" + f.lines.map { "<li><code>\(HTML.escape($0))</code></li>" }.joined()
                    + "</ul></details>"
            }
        }
        return HTML.page(title: d.item.fileName, root: root, section: nil, body: b)
    }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

/// A burst as the site shows it: its page and how many frames it has.
public struct BurstInfo: Sendable, Equatable {
    public var page: String
    public var count: Int
}

/// The numbers on the start page.
public struct SiteSummary: Sendable {
    public struct Year: Sendable {
        public var year: String
        public var count: Int
        public var months: [(month: String, count: Int)]
    }
    public var assets = 0
    public var images = 0
    public var videos = 0
    public var live = 0
    public var bursts = 0
    public var moments = 0
    public var albums = 0
    public var errors = 0
    public var thumbnailsMissing = 0
    public var undated = 0
    public var years: [Year] = []
    public var predicate: String?
    public var generated = ""
    public var catalogPath = ""
}

/// What an asset page shows beyond its contact-sheet item.
public struct AssetDetail: Sendable {
    public var stored: StoredAsset
    public var item: ReportItem
    /// The largest thumbnail (or the reason there is none).
    public var large: ReportItem.Picture
    public var burst: BurstInfo?
    public var collections: [(title: String, page: String?)]
    public var facts: [(path: String, probeVersion: Int?, lines: [String])]
    /// The derived place and local time, when there is one.
    public var placeInfo: AssetPlaceInfo? = nil
}

/// `shoebox show`'s rows of one asset, as label and value.
public enum AssetFacts {
    public static func rows(_ s: StoredAsset, place: AssetPlaceInfo? = nil) -> [(String, String)] {
        let a = s.asset
        var l: [(String, String)] = []
        l.append(("id", a.id + (s.isTrashed ? " (in Recently Deleted)" : "")))
        l.append(("localIdentifier", s.localIdentifier))
        l.append(("cloudIdentifier", s.cloudIdentifier))
        l.append(("root", s.root))
        l.append(("mediaType", a.mediaType.name))
        l.append(("mediaSubtypes", a.mediaSubtypes.names.isEmpty ? "-" : a.mediaSubtypes.names.joined(separator: ", ")))
        l.append(("traits", a.traits.isEmpty ? "-" : a.traits.map(\.rawValue).sorted().joined(separator: ", ")))
        l.append(("playbackStyle", a.playbackStyle.name + (a.playbackVariation != .none ? " (\(a.playbackVariation))" : "")))
        l.append(
            (
                "creationDate",
                (a.isUndated ? "~" : "") + (a.creationDate?.description ?? "-") + (a.creationDateSource.map { " ← \($0)" } ?? "")
            ))
        if let loc = a.location {
            l.append(
                (
                    "location",
                    "\(loc.latitude), \(loc.longitude)\(loc.altitude.map { ", \($0) m" } ?? "")\(a.locationSource.map { " ← \($0)" } ?? "")"
                ))
        } else {
            l.append(("location", "-"))
        }
        if let text = place?.placeDescription ?? ReportNames.place(of: a) { l.append(("place", text)) }
        if let text = place?.localDateDescription { l.append(("localDate", text)) }
        let timed = a.mediaType == .video || a.mediaType == .audio
        l.append(
            (
                "size",
                "\(a.pixelWidth)×\(a.pixelHeight)"
                    + (timed ? ", " + ReportNames.duration(a.duration) + String(format: " (%.3f s)", a.duration) : "")
            ))
        l.append(("camera", (a.cameraName ?? "-") + (a.lensModel.map { " — \($0)" } ?? "")))
        if let c = a.contentIdentifier { l.append(("contentIdentifier", c)) }
        if let b = a.burstIdentifier { l.append(("burstIdentifier", b + (a.representsBurst ? " (representative)" : ""))) }
        l.append(("favorite / hidden", "\(a.isFavorite ? "yes" : "no") / \(a.isHidden ? "yes" : "no")"))
        l.append(("hasAdjustments", a.hasAdjustments ? "yes" : "no"))
        return l
    }
}
