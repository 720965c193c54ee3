import Catalog
import PhotoModel

/// What a contact sheet needs of one asset: a few hundred bytes, so 100k of them sit in memory while the
/// asset pages are written one by one.
public struct ReportItem: Sendable, Equatable {
    /// How an asset's picture shows: a thumbnail file (relative to the thumbnail folder) or the reason
    /// there is none.
    public enum Picture: Sendable, Equatable {
        case file(String)
        case missing(String)
    }

    public var localIdentifier: String
    public var fileName: String
    public var mediaType: MediaType
    public var date: AssetDate?
    public var isUndated: Bool
    public var badges: [String]
    public var picture: Picture
    /// The poster frame of a Live Photo's motion (nil: not a Live Photo with a separate movie file).
    public var motion: Picture?
    public var isLive: Bool
    /// Why the still and the movie are one Live Photo (the pairing reasons), empty when not Live.
    public var pairing: [String]
    public var burstIdentifier: String?
    public var representsBurst: Bool
    public var duration: Double
    public var place: String?
    public var placeInfo: AssetPlaceInfo?

    /// The asset page, from the site root.
    public var page: String { SitePath.assetPage(localIdentifier) }

    /// `YYYY-MM` of the capture date, nil when undated.
    public var month: String? { isUndated ? nil : date.map { String($0.local.prefix(7)) } }
    public var year: String? { month.map { String($0.prefix(4)) } }

    /// `placeInfo`: the place and local time the places step derived (docs/places.md), which name the
    /// asset's place and put it on the timeline by its local day.
    public init(_ s: StoredAsset, picture: Picture, motion: Picture?, placeInfo: AssetPlaceInfo? = nil) {
        let a = s.asset
        localIdentifier = s.localIdentifier
        fileName = a.resources.first.map { ReportNames.fileName($0) } ?? a.id
        mediaType = a.mediaType
        date = placeInfo?.localDate ?? a.creationDate
        isUndated = a.isUndated
        badges = ReportNames.badges(a)
        self.picture = picture
        self.motion = motion
        isLive = a.mediaSubtypes.contains(.photoLive)
        pairing = a.reasons.filter { $0.subject == "pairedVideo" || $0.subject == "photoLive" }.map(\.evidence)
        burstIdentifier = a.burstIdentifier
        representsBurst = a.representsBurst
        duration = a.duration
        place = ReportNames.place(of: a, placeInfo)
        self.placeInfo = placeInfo
    }

    /// The text alternative of its picture: what it is, its name, when and where.
    public var altText: String {
        var parts = ["\(ReportNames.kind(mediaType, live: isLive)) \(fileName)"]
        if let d = date, !isUndated { parts.append(ReportNames.displayDate(d)) }
        if let place { parts.append(place) }
        return parts.joined(separator: ", ")
    }
}

/// The one place that names things on the site: moment titles, places, dates, badges. Places and
/// moment titles come from the catalog's own values (a moment's stored title, which Organize already
/// fills with a place name or the date range); the fallbacks are computed here, nowhere else.
public enum ReportNames {
    /// A moment's title: the catalog's title when it has one, else its date range.
    public static func momentTitle(_ c: StoredCollection) -> String {
        let t = c.title.trimmingCharacters(in: .whitespaces)
        if !t.isEmpty { return t }
        return dateRange(c.startDate, c.endDate) ?? "Undated moment"
    }

    /// An asset's place in words: the place name the places step derived (`Lisbon, Lisbon, Portugal`), else
    /// its coordinates; nil when it has no location.
    public static func place(of a: Asset, _ info: AssetPlaceInfo? = nil) -> String? {
        if let text = info?.placeText { return text }
        guard let l = a.location else { return nil }
        return String(format: "%.4f, %.4f", l.latitude, l.longitude)
    }

    static let months = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
    ]

    /// `2023-05` → `May 2023`.
    public static func monthTitle(_ month: String) -> String {
        let parts = month.split(separator: "-")
        guard parts.count == 2, let m = Int(parts[1]), (1...12).contains(m) else { return month }
        return "\(months[m - 1]) \(parts[0])"
    }

    /// `2023-05-12T14:03:22` → `12 May 2023 14:03`.
    public static func displayDate(_ d: AssetDate) -> String {
        let s = d.local
        guard s.count >= 16, let m = Int(s.dropFirst(5).prefix(2)), (1...12).contains(m), let day = Int(s.dropFirst(8).prefix(2))
        else { return s }
        return "\(day) \(months[m - 1]) \(s.prefix(4)) \(s.dropFirst(11).prefix(5))"
    }

    /// `12 May 2023 – 14 May 2023` (one date when both are the same day), from stored ISO dates.
    public static func dateRange(_ start: String?, _ end: String?) -> String? {
        func day(_ s: String?) -> String? {
            guard let s, let d = AssetDate(iso: s) else { return nil }
            return String(displayDate(d).split(separator: " ").prefix(3).joined(separator: " "))
        }
        switch (day(start), day(end)) {
        case let (a?, b?): return a == b ? a : "\(a) – \(b)"
        case let (a?, nil): return a
        case let (nil, b?): return b
        default: return nil
        }
    }

    /// "Live Photo", "photo", "video", "audio".
    public static func kind(_ t: MediaType, live: Bool) -> String {
        if live { return "Live Photo" }
        switch t {
        case .image: return "photo"
        case .video: return "video"
        case .audio: return "audio"
        default: return "asset"
        }
    }

    /// The original file name of a resource (its path's last component when none is stored).
    static func fileName(_ r: AssetResource) -> String {
        r.originalFilename.isEmpty ? String(r.path.split(separator: "/").last ?? "") : r.originalFilename
    }

    /// Subtype and trait badges, as Photos shows them: Live, HDR, Panorama, Slo-mo, Selfie, RAW…
    public static func badges(_ a: Asset) -> [String] {
        var out: [String] = []
        let subtypes: [(MediaSubtypes, String)] = [
            (.photoLive, "Live"), (.photoHDR, "HDR"), (.photoPanorama, "Panorama"), (.photoScreenshot, "Screenshot"),
            (.photoDepthEffect, "Portrait"), (.photoAnimation, "Animated"), (.spatialMedia, "Spatial"),
            (.videoHighFrameRate, "Slo-mo"), (.videoTimelapse, "Time-lapse"),
            (.videoCinematic, "Cinematic"), (.videoScreenRecording, "Screen recording"), (.videoStreamed, "Streamed"),
        ]
        for (bit, name) in subtypes where a.mediaSubtypes.contains(bit) { out.append(name) }
        let traits: [(Trait, String)] = [
            (.selfie, "Selfie"), (.raw, "RAW"), (.proRAW, "ProRAW"), (.animated, "Animated"), (.motionPhoto, "Motion photo"),
            (.hasHDRGainMap, "HDR gain map"), (.hasDepthData, "Depth"), (.panoramaLike, "Panorama-like"), (.edited, "Edited"),
            (.slomo, "Slo-mo"), (.burst, "Burst"), (.screenRecordingByName, "Screen recording"),
        ]
        for (t, name) in traits where a.traits.contains(t) && !out.contains(name) { out.append(name) }
        for t in a.traits.sorted() where !traits.contains(where: { $0.0 == t }) { out.append(t.rawValue) }
        if a.isFavorite { out.append("Favourite") }
        if a.mediaType == .video || a.mediaType == .audio { out.append(duration(a.duration)) }
        return out
    }

    /// `0:07`, `1:02:03`.
    public static func duration(_ seconds: Double) -> String {
        let t = Int(seconds.rounded())
        let h = t / 3600, m = (t % 3600) / 60, s = t % 60
        let ss = s < 10 ? "0\(s)" : "\(s)"
        if h > 0 { return "\(h):\(m < 10 ? "0" : "")\(m):\(ss)" }
        return "\(m):\(ss)"
    }
}
