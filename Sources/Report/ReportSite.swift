import Catalog
import Derivatives
import Foundation
import PhotoModel

/// A report the catalog cannot make: an output folder inside an ingested root, a folder that cannot be written.
public struct ReportError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// What `shoebox report` makes, and where.
public struct ReportOptions: Sendable {
    public var outputDirectory: URL
    /// The thumbnails stage's folder (same names and cache as `shoebox thumbnails --out`).
    public var thumbnailRequest: ThumbnailRequest
    public var fetch: FetchOptions
    /// The predicate as typed, shown on the start page.
    public var predicateText: String?
    /// Render missing thumbnails (false: use the ones already in the folder, render none).
    public var renderThumbnails: Bool
    /// Write one page per asset with its stored facts.
    public var assetPages: Bool

    public init(
        outputDirectory: URL, thumbnailRequest: ThumbnailRequest, fetch: FetchOptions, predicateText: String?,
        renderThumbnails: Bool = true, assetPages: Bool = true
    ) {
        self.outputDirectory = outputDirectory
        self.thumbnailRequest = thumbnailRequest
        self.fetch = fetch
        self.predicateText = predicateText
        self.renderThumbnails = renderThumbnails
        self.assetPages = assetPages
    }
}

/// What a report run did.
public struct ReportSummary: Sendable {
    public var assets = 0
    public var pages = 0
    /// The thumbnails stage's counts over the report's runs (the stills, then the Live Photos' motion posters).
    public var thumbnails = Thumbnailer.Summary()
    public var thumbnailSeconds = 0.0
    public var pageSeconds = 0.0
    /// Assets shown without a thumbnail (their placeholder says why).
    public var missingPictures = 0
}

extension Thumbnailer.Summary {
    /// Each failed source path with its reason.
    var failures: [String: String] { Dictionary(errors.map { ($0.path, $0.reason) }, uniquingKeysWith: { a, _ in a }) }
}

/// Writes the static site of a catalog: pages from `ReportPages`, pictures from the thumbnails stage.
public struct ReportSite {
    public let catalog: Catalog
    public let options: ReportOptions
    let out: URL
    let thumbsFromRoot: String

    public init(catalog: Catalog, options: ReportOptions) {
        self.catalog = catalog
        self.options = options
        out = options.outputDirectory.standardizedFileURL
        let rel = SitePath.relative(from: out.path, to: options.thumbnailRequest.outputDirectory.standardizedFileURL.path)
        thumbsFromRoot = rel == "." ? "" : rel + "/"
    }

    /// Refuses an output or thumbnail folder inside a root the catalog ingested: sources are read-only.
    public func checkOutputFolders() throws {
        let roots = try catalog.knownRoots().map { Self.resolved($0) }
        for (what, dir) in [("--out", out.path), ("thumbnail folder", options.thumbnailRequest.outputDirectory.path)] {
            let d = Self.resolved(dir)
            if let root = roots.first(where: { d == $0 || d.hasPrefix($0 == "/" ? "/" : $0 + "/") }) {
                throw ReportError(
                    "\(what) \(dir) is inside the ingested root \(root); Shoebox never writes under a root. Choose a folder outside it."
                )
            }
        }
    }

    /// An absolute path with symlinks of its existing part resolved.
    static func resolved(_ path: String) -> String {
        var url = URL(fileURLWithPath: path).standardizedFileURL
        var tail: [String] = []
        while !FileManager.default.fileExists(atPath: url.path), url.path != "/" {
            tail.insert(url.lastPathComponent, at: 0)
            url.deleteLastPathComponent()
        }
        var p = url.resolvingSymlinksInPath().path
        for t in tail { p += (p.hasSuffix("/") ? "" : "/") + t }
        return p
    }

    // MARK: - The run

    /// Renders missing thumbnails (with `thumbnailer`, whose request must be `options.thumbnailRequest`),
    /// then writes every page. `progress` gets the thumbnails stage's progress.
    /// `pages` gets the asset pages written so far, their total and the seconds since pages began.
    public func build(
        thumbnailer: Thumbnailer, progress: ((Thumbnailer.Progress) -> Void)? = nil, pages: ((Int, Int, Double) -> Void)? = nil
    ) async throws -> ReportSummary {
        var summary = ReportSummary()
        var fetch = options.fetch
        fetch.includeAllBurstAssets = true
        if fetch.sortDescriptors.isEmpty { fetch.sortDescriptors = [SortDescriptor(key: "creationDate")] }
        let all = try catalog.fetchAssets(fetch, batchSize: 1000)
        var shownOptions = fetch
        shownOptions.includeAllBurstAssets = options.fetch.includeAllBurstAssets
        let shown = Set(try catalog.fetchAssets(shownOptions).rowIDs)

        let t0 = Date()
        if options.renderThumbnails {
            summary.thumbnails.merge(await thumbnailer.run(assets: all, progress: progress))
        }
        // Pass 1: the contact-sheet items, and the motion movies of Live Photos to render.
        var items: [ReportItem] = []
        items.reserveCapacity(all.count)
        var motions: [(Int, StoredAsset)] = []
        var unreadable: [Int: String] = [:]
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-report-motion-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        var failed = summary.thumbnails.failures
        let places = try catalog.placeInfos()
        try all.enumerate { i, s in
            items.append(
                ReportItem(
                    s, picture: picture(s, size: smallest, failures: failed), motion: nil, placeInfo: places[s.localIdentifier]))
            if let m = Self.motionAsset(s) {
                motions.append((i, m))
            } else if s.asset.mediaSubtypes.contains(.photoLive) {
                switch embeddedMotionAsset(s, scratch: scratch) {
                case .success(let m): motions.append((i, m))
                case .failure(let e): unreadable[i] = e.message
                }
            }
        }
        if options.renderThumbnails, !motions.isEmpty {
            summary.thumbnails.merge(await thumbnailer.run(assets: motions.map(\.1)))
            failed = summary.thumbnails.failures
        }
        for (i, m) in motions { items[i].motion = picture(m, size: smallest, failures: failed) }
        for (i, reason) in unreadable { items[i].motion = .missing(reason) }
        summary.thumbnailSeconds = Date().timeIntervalSince(t0)

        let t1 = Date()
        var writer = PageWriter(out: out)
        try writeStyle(&writer)
        let visible = zip(all.rowIDs, items).filter { shown.contains($0.0) }.map(\.1)
        summary.assets = visible.count
        summary.missingPictures = visible.filter { if case .missing = $0.picture { return true } else { return false } }.count

        let bursts = try writeBursts(items, &writer)
        var site = SiteSummary()
        site.predicate = options.predicateText
        site.catalogPath = catalog.path
        site.generated = ISO8601DateFormatter().string(from: Date())
        site.assets = visible.count
        site.images = visible.filter { $0.mediaType == .image }.count
        site.videos = visible.filter { $0.mediaType == .video }.count
        site.bursts = Set(items.compactMap(\.burstIdentifier)).count
        site.thumbnailsMissing = summary.missingPictures
        try writeTimeline(visible, bursts, &site, &writer)
        site.live = try writeLive(visible, &writer)
        let byID = Dictionary(items.enumerated().map { ($0.element.localIdentifier, $0.offset) }, uniquingKeysWith: { a, _ in a })
        let rowIndex = Dictionary(all.rowIDs.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
        let visibleIDs = Set(visible.map(\.localIdentifier))
        var memberships: [String: [(title: String, page: String?)]] = [:]
        site.moments = try writeMoments(items, byID, visibleIDs, bursts, &memberships, &writer)
        site.albums = try writeAlbums(items, rowIndex, visibleIDs, bursts, &memberships, &writer)
        site.errors = try writeErrors(summary.thumbnails.errors, &writer)
        try writer.write("index.html", ReportPages.index(site))
        if options.assetPages {
            try all.enumerate { i, s in
                let facts = try catalog.facts(ofAsset: s.localIdentifier).map { f in
                    (
                        path: f.path, probeVersion: f.probeVersion,
                        lines: FactLines.lines(f.facts) ?? ["(stored facts do not decode)"]
                    )
                }
                let detail = AssetDetail(
                    stored: s, item: items[i], large: picture(s, size: largest, failures: failed),
                    burst: s.asset.burstIdentifier.flatMap { bursts[$0] }, collections: memberships[s.localIdentifier] ?? [],
                    facts: facts, placeInfo: items[i].placeInfo)
                try writer.write(items[i].page, ReportPages.assetPage(detail, thumbs: "../../" + thumbsFromRoot))
                pages?(i + 1, items.count, Date().timeIntervalSince(t1))
            }
        }
        summary.pages = writer.pages
        summary.pageSeconds = Date().timeIntervalSince(t1)
        return summary
    }

    var smallest: Int { options.thumbnailRequest.sizes.min() ?? 256 }
    var largest: Int { options.thumbnailRequest.sizes.max() ?? 256 }

    /// The thumbnail of `s` at `size` if its file is there, else why not.
    func picture(_ s: StoredAsset, size: Int, failures: [String: String]) -> ReportItem.Picture {
        let request = options.thumbnailRequest
        guard let r = Thumbnailer.source(of: s.asset, version: request.version) else {
            return .missing("nothing to render: a \(s.asset.mediaType.name) asset without a photo or video file")
        }
        if r.byteRange != nil { return .missing("the picture is embedded inside another file; it is not rendered") }
        if let url = request.outputURL(for: s, size: size), FileManager.default.fileExists(atPath: url.path) {
            return .file(url.deletingLastPathComponent().lastPathComponent + "/" + url.lastPathComponent)
        }
        let path = r.path.hasPrefix("/") || s.root.isEmpty ? r.path : (s.root.hasSuffix("/") ? s.root : s.root + "/") + r.path
        if let reason = failures[path] { return .missing("thumbnail failed: \(reason)") }
        return .missing(
            options.renderThumbnails
                ? "no thumbnail was made" : "not in the thumbnail folder (thumbnails were not rendered for this report)")
    }

    /// A Live Photo's movie as a video asset of its own, for the thumbnails stage to make a poster frame of:
    /// its cloud identifier gains `-motion`, so its files sit beside the still's in the same cache.
    static func motionAsset(_ s: StoredAsset) -> StoredAsset? {
        guard s.asset.mediaSubtypes.contains(.photoLive),
            let i = s.asset.resources.firstIndex(where: { $0.type == .pairedVideo && $0.byteRange == nil })
        else { return nil }
        var m = s
        m.cloudIdentifier += ThumbnailKey.motionSuffix
        var r = s.asset.resources[i]
        r.type = .video
        m.asset.mediaType = .video
        m.asset.resources = [r]
        m.asset.pixelWidth = 0
        m.asset.pixelHeight = 0
        m.resourceHashes = [i < s.resourceHashes.count ? s.resourceHashes[i] : nil]
        return m
    }

    /// The largest embedded movie copied out for a poster frame.
    static let embeddedMotionLimit: UInt64 = 256 << 20

    /// A motion photo's movie, embedded in the still's file (its byte range is a stored fact), as a video asset
    /// like `motionAsset`'s: the bytes are copied into `scratch` (never next to the source) when a poster is
    /// still to be rendered.
    func embeddedMotionAsset(_ s: StoredAsset, scratch: URL) -> Result<StoredAsset, ReportError> {
        guard let photo = s.asset.resources.first(where: { $0.type == .photo && $0.byteRange == nil }) else {
            return .failure(ReportError("no photo file holds the motion"))
        }
        let source = photo.path.hasPrefix("/") ? photo.path : (s.root.hasSuffix("/") ? s.root : s.root + "/") + photo.path
        guard let facts = try? catalog.facts(ofAsset: s.localIdentifier).first(where: { $0.path == source })?.facts,
            let obj = try? JSONSerialization.jsonObject(with: Data(facts)) as? [String: Any],
            let range = (obj["embeddedVideo"] as? [String: Any])?["range"] as? [String: Any],
            let offset = (range["offset"] as? NSNumber)?.uint64Value, let length = (range["length"] as? NSNumber)?.uint64Value,
            length > 0
        else {
            return .failure(ReportError("the motion is embedded in the still, and its stored facts give no byte range for it"))
        }
        guard length <= Self.embeddedMotionLimit else {
            return .failure(
                ReportError(
                    "the embedded motion is \(length) bytes, over the \(Self.embeddedMotionLimit >> 20) MiB copied for a poster frame"
                ))
        }
        var m = s
        m.cloudIdentifier += ThumbnailKey.motionSuffix
        m.root = scratch.path
        m.asset.mediaType = .video
        m.asset.resources = [
            AssetResource(type: .video, path: SitePath.safe(s.localIdentifier) + ".mp4", originalFilename: photo.originalFilename)
        ]
        m.asset.pixelWidth = 0
        m.asset.pixelHeight = 0
        m.resourceHashes = [s.resourceHashes.first ?? nil]
        let request = options.thumbnailRequest
        let cached = request.sizes.allSatisfy { size in
            request.outputURL(for: m, size: size).map { FileManager.default.fileExists(atPath: $0.path) } ?? false
        }
        guard options.renderThumbnails, !cached else { return .success(m) }
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: source))
            defer { try? handle.close() }
            try handle.seek(toOffset: offset)
            let bytes = try handle.read(upToCount: Int(length)) ?? Data()
            guard bytes.count == Int(length) else {
                return .failure(ReportError("the embedded motion's \(length) bytes at \(offset) run past the end of \(source)"))
            }
            try bytes.write(to: scratch.appendingPathComponent(m.asset.resources[0].path))
        } catch {
            return .failure(
                ReportError("the embedded motion could not be copied out of \(source): \(error.localizedDescription)"))
        }
        return .success(m)
    }

    // MARK: - Sections

    func sheets(
        _ list: [ReportItem], base: String, folder: String, title: String, intro: String = "", bursts: [String: BurstInfo],
        section: HTML.Section, _ w: inout PageWriter
    ) throws {
        let pages = max(1, (list.count + ReportPages.perPage - 1) / ReportPages.perPage)
        let root = SitePath.root(of: folder + "/x.html")
        for p in 1...pages {
            let slice = list[((p - 1) * ReportPages.perPage)..<min(list.count, p * ReportPages.perPage)]
            let html = ReportPages.sheetPage(
                title: title, intro: intro, items: slice, base: base, page: p, pages: pages, root: root,
                thumbs: root + thumbsFromRoot,
                bursts: bursts, section: section, total: list.count)
            try w.write(folder + "/" + HTML.pageFile(base, p), html)
        }
    }

    func table(
        title: String, intro: String, caption: String, header: [String], rows: [[String]], folder: String, base: String,
        section: HTML.Section, _ w: inout PageWriter
    ) throws {
        let pages = max(1, (rows.count + ReportPages.perPage - 1) / ReportPages.perPage)
        for p in 1...pages {
            let slice = rows[((p - 1) * ReportPages.perPage)..<min(rows.count, p * ReportPages.perPage)]
            let html = ReportPages.tablePage(
                title: title, intro: intro, caption: caption, header: header, rows: slice, base: base, page: p, pages: pages,
                root: SitePath.root(of: folder + "/x.html"), section: section)
            try w.write(folder + "/" + HTML.pageFile(base, p), html)
        }
    }

    func writeTimeline(_ visible: [ReportItem], _ bursts: [String: BurstInfo], _ site: inout SiteSummary, _ w: inout PageWriter)
        throws
    {
        var months: [String: [ReportItem]] = [:]
        var undated: [ReportItem] = []
        for item in visible {
            if let m = item.month { months[m, default: []].append(item) } else { undated.append(item) }
        }
        var years: [String: SiteSummary.Year] = [:]
        for (m, list) in months {
            let y = String(m.prefix(4))
            years[y, default: SiteSummary.Year(year: y, count: 0, months: [])].count += list.count
            years[y]!.months.append((m, list.count))
            try sheets(
                list, base: m, folder: "timeline", title: ReportNames.monthTitle(m), bursts: bursts, section: .timeline, &w)
        }
        site.years = years.values.sorted { $0.year < $1.year }.map { y in
            var y = y
            y.months.sort { $0.month < $1.month }
            return y
        }
        site.undated = undated.count
        if !undated.isEmpty {
            try sheets(
                undated, base: "undated", folder: "timeline", title: "Undated",
                intro: "<p>No capture date in these files or their sidecars; the file's modification time stands in.</p>",
                bursts: bursts,
                section: .timeline, &w)
        }
    }

    func writeLive(_ visible: [ReportItem], _ w: inout PageWriter) throws -> Int {
        let live = visible.filter(\.isLive)
        let pages = max(1, (live.count + ReportPages.perPage - 1) / ReportPages.perPage)
        for p in 1...pages {
            let slice = live[((p - 1) * ReportPages.perPage)..<min(live.count, p * ReportPages.perPage)]
            try w.write(
                "live/" + HTML.pageFile("index", p),
                ReportPages.livePage(items: slice, page: p, pages: pages, total: live.count, thumbs: "../" + thumbsFromRoot))
        }
        return live.count
    }

    /// Every burst: a page with its frames (the representative first) and the list of bursts.
    func writeBursts(_ items: [ReportItem], _ w: inout PageWriter) throws -> [String: BurstInfo] {
        var groups: [String: [ReportItem]] = [:]
        var order: [String] = []
        for item in items {
            guard let b = item.burstIdentifier else { continue }
            if groups[b] == nil { order.append(b) }
            groups[b, default: []].append(item)
        }
        var info: [String: BurstInfo] = [:]
        for b in order { info[b] = BurstInfo(page: "bursts/\(SitePath.safe(b)).html", count: groups[b]!.count) }
        var rows: [[String]] = []
        for b in order {
            var frames = groups[b]!
            frames.sort { $0.representsBurst && !$1.representsBurst }
            let rep = frames[0]
            let title = "Burst of \(frames.count): \(rep.fileName)"
            try sheets(
                frames, base: SitePath.safe(b), folder: "bursts", title: title,
                intro: "<p>Representative frame first. Burst identifier <code>\(HTML.escape(b))</code>.</p>", bursts: [:],
                section: .bursts, &w)
            rows.append([
                "<a href=\"\(SitePath.safe(b)).html\">\(HTML.escape(rep.fileName))</a>",
                rep.date.map { HTML.escape(ReportNames.displayDate($0)) } ?? "-", "\(frames.count)",
                ReportPages.picture(rep.picture, alt: rep.altText, thumbs: "../" + thumbsFromRoot),
            ])
        }
        try table(
            title: "Bursts", intro: "<p>\(ReportPages.plural(order.count, "burst")); each shows its representative frame.</p>",
            caption: "Bursts, oldest first", header: ["Representative", "Date", "Frames", "Picture"], rows: rows,
            folder: "bursts", base: "index",
            section: .bursts, &w)
        return info
    }

    func writeMoments(
        _ items: [ReportItem], _ byID: [String: Int], _ visible: Set<String>, _ bursts: [String: BurstInfo],
        _ memberships: inout [String: [(title: String, page: String?)]], _ w: inout PageWriter
    ) throws -> Int {
        let stored = try catalog.collections(type: .moment)
        let members = Dictionary(try catalog.moments().map { ($0.localIdentifier, $0.members) }, uniquingKeysWith: { a, _ in a })
        var rows: [[String]] = []
        for c in stored {
            let ids = (members[c.localIdentifier] ?? []).filter { byID[$0] != nil }
            guard !ids.isEmpty else { continue }
            let title = ReportNames.momentTitle(c)
            let base = SitePath.safe(c.localIdentifier)
            let page = "moments/\(base).html"
            for id in ids { memberships[id, default: []].append(("Moment: \(title)", page)) }
            let list = ids.filter { visible.contains($0) }.map { items[byID[$0]!] }
            guard !list.isEmpty else { continue }
            let dates = ReportNames.dateRange(c.startDate, c.endDate) ?? "undated"
            var intro = dates == title ? "" : "<p class=\"dates\">\(HTML.escape(dates))</p>"
            if let place = list.lazy.compactMap(\.place).first { intro += "<p class=\"place\">Place: \(HTML.escape(place))</p>" }
            try sheets(list, base: base, folder: "moments", title: title, intro: intro, bursts: bursts, section: .moments, &w)
            rows.append([
                "<a href=\"\(base).html\">\(HTML.escape(title))</a>", HTML.escape(dates), "\(list.count)",
                ReportPages.picture(list[0].picture, alt: list[0].altText, thumbs: "../" + thumbsFromRoot),
            ])
        }
        try table(
            title: "Moments", intro: "<p>\(ReportPages.plural(rows.count, "moment")), oldest first.</p>", caption: "Moments",
            header: ["Moment", "Dates", "Assets", "First picture"], rows: rows, folder: "moments", base: "index",
            section: .moments, &w)
        return rows.count
    }

    /// Albums and smart albums (evaluated now), each a contact sheet of the report's assets in it.
    func writeAlbums(
        _ items: [ReportItem], _ rowIndex: [Int64: Int], _ visible: Set<String>, _ bursts: [String: BurstInfo],
        _ memberships: inout [String: [(title: String, page: String?)]], _ w: inout PageWriter
    ) throws -> Int {
        var rows: [[String]] = []
        for c in try catalog.collections(type: .smartAlbum) + catalog.collections(type: .album) {
            let ids: [Int64]
            if let p = c.predicate {
                ids = try catalog.fetchAssets(smartAlbum: c.subtype, predicate: p, includeAllBurstAssets: true).rowIDs
            } else {
                var o = FetchOptions()
                o.includeAllBurstAssets = true
                ids = try catalog.fetchAssets(inCollection: c.localIdentifier, o).rowIDs
            }
            let inReport = ids.compactMap { rowIndex[$0] }.map { items[$0] }
            let base = SitePath.safe(c.localIdentifier)
            let kind = c.predicate != nil ? "Smart album" : "Album"
            let title = c.title.isEmpty ? "Untitled \(kind.lowercased())" : c.title
            for item in inReport {
                memberships[item.localIdentifier, default: []].append(("\(kind): \(title)", "albums/\(base).html"))
            }
            let list = inReport.filter { visible.contains($0.localIdentifier) }
            guard !list.isEmpty else { continue }
            var intro = "<p>\(kind)"
            if let p = c.predicate {
                intro +=
                    ", evaluated now: <code>\(HTML.escape(p.components(separatedBy: "\u{1F}").joined(separator: " ")))</code>"
            }
            intro += ".</p>"
            try sheets(list, base: base, folder: "albums", title: title, intro: intro, bursts: bursts, section: .albums, &w)
            rows.append(["<a href=\"\(base).html\">\(HTML.escape(title))</a>", kind, "\(list.count)"])
        }
        try table(
            title: "Albums",
            intro:
                "<p>\(ReportPages.plural(rows.count, "album")) with assets in this report: smart albums first, then albums.</p>",
            caption: "Albums",
            header: ["Album", "Kind", "Assets"], rows: rows, folder: "albums", base: "index", section: .albums, &w)
        return rows.count
    }

    /// The errors page: the catalog's failed and damaged files, skipped files, and this run's thumbnail failures.
    func writeErrors(_ thumbnailFailures: [Thumbnailer.Failure], _ w: inout PageWriter) throws -> Int {
        let errors = try catalog.errors()
        let skipped = try catalog.skippedFiles()
        let kinds: [(String, String, [[String]])] = [
            (
                "failed", "Failed: could not be catalogued",
                errors.filter { $0.severity == .failed }.map { [$0.path, $0.stage, $0.reason] }
            ),
            (
                "damaged", "Damaged: catalogued, but cut or inconsistent",
                errors.filter { $0.severity == .damaged }.map { [$0.path, $0.stage, $0.reason] }
            ),
            ("skipped", "Skipped: not media", skipped.map { [$0.path, $0.category, $0.reason] }),
            ("thumbnails", "Thumbnails that failed in this run", thumbnailFailures.map { [$0.path, $0.stage, $0.reason] }),
        ]
        var b =
            "<p>\(ReportPages.plural(errors.count, "error row")) in the catalog (\(errors.filter { $0.severity == .failed }.count) failed, "
        b += "\(errors.filter { $0.severity == .damaged }.count) damaged), \(ReportPages.plural(skipped.count, "skipped file")), "
        b += "\(ReportPages.plural(thumbnailFailures.count, "thumbnail failure")) in this run.</p>"
        let shownInline = ReportPages.perPage
        for (key, title, rows) in kinds {
            b +=
                "<section aria-labelledby=\"\(key)\"><h2 id=\"\(key)\">\(HTML.escape(title)) <span class=\"count\">(\(rows.count))</span></h2>"
            if rows.isEmpty {
                b += "<p>None.</p></section>"
                continue
            }
            let cells = rows.map { $0.map(HTML.escape) }
            b += "<table><caption>\(HTML.escape(title))</caption><thead><tr><th scope=\"col\">File</th><th scope=\"col\">"
            b += key == "skipped" ? "Category" : "Stage"
            b += "</th><th scope=\"col\">Reason</th></tr></thead><tbody>"
            for r in cells.prefix(shownInline) { b += "<tr>" + r.map { "<td>\($0)</td>" }.joined() + "</tr>" }
            b += "</tbody></table>"
            if rows.count > shownInline {
                b += "<p><a href=\"\(key).html\">All \(rows.count) (\(key))</a></p>"
                try table(
                    title: title, intro: "", caption: title, header: ["File", key == "skipped" ? "Category" : "Stage", "Reason"],
                    rows: cells,
                    folder: "errors", base: key, section: .errors, &w)
            }
            b += "</section>"
        }
        try w.write("errors/index.html", HTML.page(title: "Errors", root: "../", section: .errors, body: b))
        return errors.count
    }

    func writeStyle(_ w: inout PageWriter) throws { try w.write("style.css", ReportStyle.css) }
}

/// Writes the site's files, creating each folder once, and counts pages.
struct PageWriter {
    let out: URL
    var folders: Set<String> = []
    var pages = 0

    mutating func write(_ path: String, _ text: String) throws {
        let url = out.appendingPathComponent(path)
        let dir = url.deletingLastPathComponent().path
        if !folders.contains(dir) {
            do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                throw ReportError("cannot create \(dir): \(error.localizedDescription)")
            }
            folders.insert(dir)
        }
        do { try Data(text.utf8).write(to: url) } catch {
            throw ReportError("cannot write \(url.path): \(error.localizedDescription)")
        }
        if path.hasSuffix(".html") { pages += 1 }
    }
}
