import Classify
import MediaProbe
import PhotoModel

/// A file that forms no asset, and why.
public struct Orphan: Sendable, Equatable, Codable {
    public var path: String
    public var kind: String
    public var reason: String

    public init(path: String, kind: String, reason: String) {
        self.path = path
        self.kind = kind
        self.reason = reason
    }
}

/// A metadata source attached to an asset (Takeout JSON, XMP sidecar).
public struct MetadataSource: Sendable, Equatable, Codable {
    public var type: String
    public var path: String

    public init(type: String, path: String) {
        self.type = type
        self.path = path
    }
}

/// The result of assembling the files under one root.
public struct Assembly: Sendable, Equatable {
    public var assets: [AssembledAsset]
    public var orphans: [Orphan]
    /// Problems worth a user's attention that did not stop assembly (mismatched pairs, …).
    public var notes: [String]
}

/// An asset plus what only assembly knows: the metadata sources and the pairing confidence.
public struct AssembledAsset: Sendable, Equatable {
    public var asset: Asset
    public var metadataSources: [MetadataSource] = []
    /// For a Live Photo: how sure the pairing is (`high` by content identifier, `medium` by name and time).
    public var pairingConfidence: String?
    public var pairedVideoDuration: Double?
    public var embeddedVideo: ResourceRange?

    public init(asset: Asset, metadataSources: [MetadataSource] = [], pairingConfidence: String? = nil,
                pairedVideoDuration: Double? = nil, embeddedVideo: ResourceRange? = nil) {
        self.asset = asset
        self.metadataSources = metadataSources
        self.pairingConfidence = pairingConfidence
        self.pairedVideoDuration = pairedVideoDuration
        self.embeddedVideo = embeddedVideo
    }
}

/// Files → assets and resources. Pure: works on classifications (which carry sidecar contents).
///
/// Live Photos pair by content identifier (still MakerNote 0x0011 = movie content.identifier), never by
/// name alone; only files without an identifier fall back to same folder + same stem + capture within a
/// second. RAW+JPEG with one stem in one folder is one asset. `IMG_E…`, `…_edited`, `…-edited` renders are
/// full-size resources of their original, AAE files its adjustment data. Takeout JSON and XMP sidecars
/// are metadata sources. Everything left over is an orphan with a reason.
public enum Assembler {
    public static func assemble(_ files: consuming [FileClassification], root: String) -> Assembly {
        var state = State(root: root)
        state.load(files)
        state.pairLivePhotos()
        state.pairByName()
        state.attachEdits()
        state.pairRawJPEG()
        state.makeAssets()
        state.attachAdjustments()
        state.attachSidecars()
        state.finish()
        return Assembly(assets: state.assets, orphans: state.orphans, notes: state.notes)
    }

    // MARK: - Names

    /// The parts of a file name that matter for grouping.
    struct Name: Equatable {
        let dir: String
        let file: String
        /// Without the extension.
        let stem: String
        let ext: String
        /// The stem of the original when this is an edit's name (`originalStem(ofEdit:)`), worked out once.
        let editOf: String?

        init(_ rel: String) {
            let (parent, name) = PathText.parentAndName(rel)
            file = String(name)
            dir = parent.map(String.init) ?? ""
            if let dot = file.lastIndex(of: "."), dot != file.startIndex {
                stem = String(file[..<dot])
                ext = String(file[file.index(after: dot)...]).lowercased()
            } else {
                stem = file
                ext = ""
            }
            editOf = Assembler.originalStem(ofEdit: stem)
        }
    }

    /// The edit suffixes in lower case, with their lengths in characters.
    static let editSuffixes = (["_edited"] + TakeoutReader.editedSuffixes).map { ($0.lowercased(), $0.count) }

    /// `IMG_E1234` → `IMG_1234`, `x_edited`/`x-edited` (and Takeout's translations) → `x`; nil when the stem
    /// is not an edit's.
    static func originalStem(ofEdit stem: String) -> String? {
        let upper = stem.uppercased()
        if upper.hasPrefix("IMG_E"), stem.count > 5, stem.dropFirst(5).first?.isNumber == true {
            return "IMG_" + stem.dropFirst(5)
        }
        let lower = stem.lowercased()
        for (suffix, count) in editSuffixes where lower.hasSuffix(suffix) && stem.count > count {
            return String(stem.dropLast(count))
        }
        return nil
    }

    /// `IMG_O1234` (original adjustments) → `IMG_1234`.
    static func originalAdjustmentStem(_ stem: String) -> String? {
        let upper = stem.uppercased()
        guard upper.hasPrefix("IMG_O"), stem.count > 5, stem.dropFirst(5).first?.isNumber == true else { return nil }
        return "IMG_" + stem.dropFirst(5)
    }

    /// Stem variants a Live Photo's movie may carry: `IMG_0728_3.mov`, `IMG_0728_HEVC.MOV`.
    static func baseStem(_ stem: String) -> String {
        for suffix in ["_3", "_HEVC", "_hevc", "(1)"] where stem.hasSuffix(suffix) && stem.count > suffix.count {
            return String(stem.dropLast(suffix.count))
        }
        return stem
    }

    static let stillUTI: [String: String] = [
        "jpeg": "public.jpeg", "png": "public.png", "gif": "com.compuserve.gif", "webp": "org.webmproject.webp",
        "heic": "public.heic", "avif": "public.avif", "tiff": "public.tiff", "dng": "com.adobe.raw-image",
        "cr2": "com.canon.cr2-raw-image", "cr3": "com.canon.cr3-raw-image", "nef": "com.nikon.raw-image",
        "arw": "com.sony.arw-raw-image", "orf": "com.olympus.raw-image", "rw2": "com.panasonic.rw2-raw-image",
        "pef": "com.pentax.raw-image", "raf": "com.fuji.raw-image", "mov": "com.apple.quicktime-movie",
        "mp4": "public.mpeg-4", "m4v": "com.apple.m4v-video", "3gp": "public.3gpp", "avi": "public.avi",
        "matroska": "org.matroska.mkv", "webm": "org.webmproject.webm", "mpeg-ts": "public.avchd-mpeg-2-transport-stream",
        "aae": "com.apple.photos.apple-adjustment-envelope", "srw": "com.samsung.raw-image", "bmp": "com.microsoft.bmp",
        "psd": "com.adobe.photoshop-image", "jp2": "public.jpeg-2000", "j2k": "public.jpeg-2000", "jxl": "public.jpeg-xl",
        "ico": "com.microsoft.ico", "tga": "com.truevision.tga-image", "pnm": "public.pbm", "m4a": "com.apple.m4a-audio",
        "mp3": "public.mp3", "wav": "com.microsoft.waveform-audio", "aiff": "public.aiff-audio",
    ]

    // MARK: - State

    struct Item {
        var c: FileClassification
        var rel: String
        var name: Name
        /// Index of the asset this file belongs to, once decided.
        var owner: Int?
        var role: AssetResourceType?
    }

    struct Group {
        var primary: Int
        var members: [(Int, AssetResourceType)] = []
        var reasons: [Reason] = []
        var confidence: String?
    }

    struct State {
        let root: String
        var items: [Item] = []
        var groups: [Group] = []
        var assets: [AssembledAsset] = []
        var orphans: [Orphan] = []
        var notes: [String] = []

        init(root: String) { self.root = root }

        func relative(_ path: String) -> String {
            // By bytes (PathText.relative): a name starting with a combining mark joins the "/" before it.
            if let r = PathText.relative(path, to: root) { return r }
            if path.utf8.elementsEqual(root.utf8) { return Name(path).file }
            return path
        }

        /// Items by folder and lower-cased stem, in order: what the lookups by name (an edit's original, a RAW's
        /// JPEG) scan instead of every item — a scan per file was quadratic in a folder's size (Benchmarks/README.md,
        /// session 25). Names never change after `load`; made only when some item is an edit or a RAW, the only
        /// ones looked up by it.
        var byStem: [FolderName: [Int]] = [:]

        /// `files` is sorted where it lies (a huge folder's judgements are tens of MB: not copied twice).
        mutating func load(_ files: consuming [FileClassification]) {
            files.sort { $0.path < $1.path }
            items.reserveCapacity(files.count)
            for f in files {
                let rel = relative(f.path)
                items.append(Item(c: f, rel: rel, name: Name(rel)))
            }
            guard items.contains(where: { $0.name.editOf != nil || $0.c.kind.isRAW }) else { return }
            for i in items.indices { byStem[FolderName(dir: items[i].name.dir, name: items[i].name.stem.lowercased()), default: []].append(i) }
        }

        /// The items in folder `dir` whose stem is `stem` in any case, in order.
        func items(in dir: String, stem: String) -> [Int] { byStem[FolderName(dir: dir, name: stem.lowercased())] ?? [] }

        var media: [Int] { items.indices.filter { [.image, .video, .audio].contains(items[$0].c.role) } }

        func isEdit(_ i: Int) -> Bool { items[i].name.editOf != nil }

        /// Starts a group with `i` as its primary resource.
        mutating func newGroup(_ i: Int, _ type: AssetResourceType) -> Int {
            groups.append(Group(primary: i, members: [(i, type)]))
            items[i].owner = groups.count - 1
            items[i].role = type
            return groups.count - 1
        }

        mutating func add(_ i: Int, to g: Int, as type: AssetResourceType, _ reason: Reason? = nil) {
            groups[g].members.append((i, type))
            items[i].owner = g
            items[i].role = type
            if let reason { groups[g].reasons.append(reason) }
        }

        // MARK: Live Photos by content identifier

        mutating func pairLivePhotos() {
            var byID: [String: (stills: [Int], movies: [Int])] = [:]
            for i in media {
                guard let id = items[i].c.contentIdentifier else { continue }
                if items[i].c.role == .image, items[i].c.embeddedVideo == nil { byID[id, default: ([], [])].stills.append(i) }
                if items[i].c.role == .video { byID[id, default: ([], [])].movies.append(i) }
            }
            for (id, set) in byID.sorted(by: { $0.key < $1.key }) where !set.stills.isEmpty && !set.movies.isEmpty {
                let origStills = set.stills.filter { !isEdit($0) }
                let origMovies = set.movies.filter { !isEdit($0) }
                let editStills = set.stills.filter { isEdit($0) }
                let editMovies = set.movies.filter { isEdit($0) }
                // With several stills on one identifier, the movie goes to the still with its stem.
                let stillPool = origStills.isEmpty ? set.stills : origStills
                let moviePool = origMovies.isEmpty ? set.movies : origMovies
                guard let still = stillPool.first(where: { s in moviePool.contains { sameStem($0, s) } }) ?? stillPool.first else { continue }
                // An edited pair with its own identifier, whose original is in the same folder, belongs to
                // that original: the edit pass attaches it as full-size resources.
                if isEdit(still), hasOriginal(still) { continue }
                // Prefer the movie in the same folder with the closest stem.
                let candidates = origMovies.isEmpty ? set.movies.filter { !editMovies.contains($0) || origStills.isEmpty } : origMovies
                guard let movie = best(candidates, for: still) else { continue }
                let g = newGroup(still, .photo)
                add(movie, to: g, as: .pairedVideo, Reason("pairedVideo", "\(items[movie].rel): \(items[movie].c.contentIdentifierSource ?? "content.identifier") = still's \(items[still].c.contentIdentifierSource ?? "ContentIdentifier") = \(id)"))
                groups[g].confidence = "high"
                for other in origStills where other != still {
                    notes.append("content identifier \(id) is shared by two stills (\(items[still].rel), \(items[other].rel)); only the first is paired")
                }
                for other in origMovies where other != movie {
                    notes.append("content identifier \(id) is shared by two movies (\(items[movie].rel), \(items[other].rel)); only the first is paired")
                }
                // An edited Live Photo: the edited still with the edited movie.
                if let es = editStills.first(where: { items[$0].owner == nil }) {
                    add(es, to: g, as: .fullSizePhoto, Reason("fullSizePhoto", "\(items[es].rel): rendered edit with the same content identifier"))
                }
                if let em = editMovies.first(where: { items[$0].owner == nil }) {
                    add(em, to: g, as: .fullSizePairedVideo, Reason("fullSizePairedVideo", "\(items[em].rel): rendered edit of the paired video (same content identifier)"))
                }
            }
        }

        /// Same folder and same base stem (`IMG_0728` ~ `IMG_0728_3`).
        func sameStem(_ a: Int, _ b: Int) -> Bool {
            items[a].name.dir == items[b].name.dir && baseStem(items[a].name.stem).lowercased() == baseStem(items[b].name.stem).lowercased()
        }

        /// Whether an edit's original (by name) is in the same folder.
        func hasOriginal(_ i: Int) -> Bool {
            guard let stem = items[i].name.editOf else { return false }
            let n = items[i].name
            return items(in: n.dir, stem: stem).contains { items[$0].c.role == items[i].c.role }
        }

        /// The candidate in the same folder with the most similar stem, else the first.
        func best(_ candidates: [Int], for i: Int) -> Int? {
            let n = items[i].name
            return candidates.first { items[$0].name.dir == n.dir && baseStem(items[$0].name.stem) == baseStem(n.stem) }
                ?? candidates.first { items[$0].name.dir == n.dir } ?? candidates.first
        }

        // MARK: Fallback pairing by name and time

        mutating func pairByName() {
            let free = media.filter { items[$0].owner == nil && !isEdit($0) }
            let stills = free.filter { items[$0].c.role == .image && items[$0].c.embeddedVideo == nil && !items[$0].c.kind.isRAW }
            let movies = free.filter { items[$0].c.role == .video }
            guard !movies.isEmpty, !stills.isEmpty else { return }
            // The stills by folder and base stem, in order (a scan of every still per movie was quadratic: a
            // phone's camera folder of 4,000 photos and 1,000 videos spent 0.4 s here).
            var stillsByBase: [FolderName: [Int]] = [:]
            for s in stills { stillsByBase[FolderName(dir: items[s].name.dir, name: baseStem(items[s].name.stem)), default: []].append(s) }
            for m in movies where items[m].owner == nil {
                let mn = items[m].name
                guard let s = stillsByBase[FolderName(dir: mn.dir, name: baseStem(mn.stem))]?.first(where: { items[$0].owner == nil }) else { continue }
                // Only when one side has no identifier: two different identifiers are two different captures.
                if let a = items[s].c.contentIdentifier, let b = items[m].c.contentIdentifier, a != b { continue }
                guard let ds = items[s].c.creationDate, let dm = items[m].c.creationDate,
                    let es = Classifier.epochSeconds(ds.local), let em = Classifier.epochSeconds(dm.local)
                else { continue }
                // Compare instants when both offsets are known, else wall-clock times.
                let delta = abs((es - (ds.offsetSeconds ?? 0)) - (em - (dm.offsetSeconds ?? 0)))
                let deltaLocal = abs(es - em)
                guard min(delta, deltaLocal) <= 1 else { continue }
                let g = newGroup(s, .photo)
                add(m, to: g, as: .pairedVideo, Reason("pairedVideo", "\(items[m].rel): no shared content identifier; same folder and stem, capture times within 1 s (medium confidence)"))
                groups[g].confidence = "medium"
            }
        }

        // MARK: Edits

        mutating func attachEdits() {
            for i in media where items[i].owner == nil {
                guard let origStem = items[i].name.editOf else { continue }
                let n = items[i].name
                let isVideo = items[i].c.role == .video
                // The original: same folder, the original stem, same media type (a still for an edited still).
                let sameStem = items(in: n.dir, stem: origStem)
                guard let o = sameStem.first(where: { $0 != i && items[$0].c.role == items[i].c.role && !isEdit($0) })
                    ?? (isVideo ? sameStem.first(where: { $0 != i && items[$0].c.role == .image }) : nil)
                else { continue }
                let g = items[o].owner ?? newGroup(o, items[o].c.role == .video ? .video : .photo)
                let type: AssetResourceType
                if !isVideo {
                    type = .fullSizePhoto
                } else if groups[g].members.contains(where: { $0.1 == .pairedVideo }) || items[o].c.role == .image {
                    type = .fullSizePairedVideo
                } else {
                    type = .fullSizeVideo
                }
                add(i, to: g, as: type, Reason(type.name, "\(items[i].rel): rendered edit of \(items[o].rel) (name)"))
            }
        }

        // MARK: RAW + JPEG

        mutating func pairRawJPEG() {
            for r in media where items[r].owner == nil && items[r].c.kind.isRAW {
                let n = items[r].name
                guard let j = items(in: n.dir, stem: n.stem).first(where: { $0 != r && [.jpeg, .heic].contains(items[$0].c.kind) }) else { continue }
                let g = items[j].owner ?? newGroup(j, .photo)
                add(r, to: g, as: .alternatePhoto, Reason("alternatePhoto", "\(items[r].rel): RAW with the same stem as \(items[j].rel)"))
            }
        }

        // MARK: Assets

        mutating func makeAssets() {
            for i in media where items[i].owner == nil {
                _ = newGroup(i, items[i].c.role == .video ? .video : (items[i].c.role == .audio ? .audio : .photo))
            }
            assets.reserveCapacity(assets.count + groups.count)  // no doubling copies (~380 bytes an asset)
            for g in groups.indices {
                assets.append(makeAsset(groups[g]))
            }
        }

        func makeAsset(_ g: Group) -> AssembledAsset {
            let p = items[g.primary]
            let c = p.c
            var a = Asset(id: p.rel, mediaType: c.mediaType)
            a.mediaSubtypes = c.subtypes
            a.traits = c.traits
            a.playbackStyle = c.playbackStyle
            a.creationDate = c.creationDate
            a.creationDateSource = c.creationDateSource
            a.location = c.location
            a.locationSource = c.locationSource
            a.pixelWidth = c.pixelWidth
            a.pixelHeight = c.pixelHeight
            a.duration = c.mediaType == .video || c.mediaType == .audio ? (c.duration ?? 0) : 0
            a.contentIdentifier = c.contentIdentifier
            a.burstIdentifier = c.burstIdentifier
            a.make = c.make
            a.model = c.model
            a.lensModel = c.lensModel
            a.reasons = c.reasons + g.reasons
            for (i, type) in g.members {
                let it = items[i]
                a.resources.append(
                    AssetResource(
                        type: type, path: it.rel, originalFilename: it.name.file,
                        uniformTypeIdentifier: Assembler.stillUTI[it.c.kind.rawValue], fileSize: it.c.fileSize))
            }
            var out = AssembledAsset(asset: a)
            out.pairingConfidence = g.confidence
            out.embeddedVideo = c.embeddedVideo
            if let pv = g.members.first(where: { $0.1 == .pairedVideo }) {
                out.asset.mediaSubtypes.insert(.photoLive)
                out.asset.playbackStyle = .livePhoto
                out.asset.reasons.append(Reason("photoLive", "paired video \(items[pv.0].rel) (\(g.confidence ?? "high") confidence)"))
                out.pairedVideoDuration = items[pv.0].c.duration
                if out.asset.location == nil, let l = items[pv.0].c.location {
                    out.asset.location = l
                    out.asset.locationSource = "paired video: \(items[pv.0].c.locationSource ?? "")"
                }
            }
            if g.members.contains(where: { [.fullSizePhoto, .fullSizeVideo, .fullSizePairedVideo].contains($0.1) }) {
                out.asset.traits.insert(.edited)
                out.asset.hasAdjustments = true
                let renders = g.members.filter { [.fullSizePhoto, .fullSizeVideo, .fullSizePairedVideo].contains($0.1) }.map { items[$0.0].name.file }
                out.asset.reasons.append(Reason("trait:edited", "rendered edit present (\(renders.joined(separator: ", ")))"))
            }
            return out
        }

        // MARK: AAE

        mutating func attachAdjustments() {
            let adjustments = items.indices.filter { items[$0].c.role == .adjustmentSidecar }
            guard !adjustments.isEmpty else { return }
            // The first asset whose primary file has this folder and stem (in any case): an AAE adds a resource,
            // never changes an asset's primary, so one index serves every AAE (a scan per AAE was quadratic).
            var byPrimary: [FolderName: Int] = [:]
            for a in assets.indices {
                let primary = Name(assets[a].asset.id)
                let key = FolderName(dir: primary.dir, name: primary.stem.lowercased())
                if byPrimary[key] == nil { byPrimary[key] = a }
            }
            for i in adjustments {
                let n = items[i].name
                let userStem = n.stem
                let origStem = Assembler.originalAdjustmentStem(n.stem)
                let target = origStem ?? userStem
                guard let a = byPrimary[FolderName(dir: n.dir, name: target.lowercased())] else {
                    orphans.append(Orphan(path: items[i].rel, kind: "aae", reason: "no media file with stem \(target) in folder"))
                    continue
                }
                guard let adj = items[i].c.adjustments else {
                    // An AAE that cannot be read says nothing about edits: reported, not attached.
                    let why = items[i].c.errors.first ?? "not an adjustment plist"
                    orphans.append(Orphan(path: items[i].rel, kind: "aae", reason: "unreadable AAE (\(why)); not attached to \(assets[a].asset.id)"))
                    continue
                }
                assets[a].asset.resources.append(
                    AssetResource(type: .adjustmentData, path: items[i].rel, originalFilename: n.file, uniformTypeIdentifier: Assembler.stillUTI["aae"], fileSize: items[i].c.fileSize))
                let fmt = "\(adj.formatIdentifier) \(adj.formatVersion ?? "")"
                if origStem == nil {
                    assets[a].asset.hasAdjustments = true
                    assets[a].asset.reasons.append(Reason("hasAdjustments", "\(items[i].rel): user adjustments (\(fmt))"))
                    if let v = adj.playbackVariation, let pv = PlaybackVariation(rawValue: v), pv != .none {
                        assets[a].asset.playbackVariation = pv
                        assets[a].asset.reasons.append(Reason("playbackVariation", "\(items[i].rel): AutoLoop flavor → \(pv)"))
                        if pv == .autoloop || pv == .mirror { assets[a].asset.playbackStyle = .videoLooping }
                    }
                    if let slomo = adj.slowMotion, let rate = slomo.rate, rate < 1 {
                        assets[a].asset.reasons.append(Reason("trait:slomo", "\(items[i].rel): com.apple.video.slomo ramp at rate \(rate)"))
                        if !assets[a].asset.mediaSubtypes.contains(.videoHighFrameRate) { assets[a].asset.traits.insert(.possibleRenderedSlomo) }
                    }
                } else {
                    assets[a].asset.reasons.append(Reason("adjustmentData", "\(items[i].rel): original adjustments (IMG_O…), not a user edit (\(fmt))"))
                }
            }
        }

        // MARK: Takeout JSON and XMP sidecars

        /// A name in a folder (exact `String` equality per part, as the comparisons it stands in for).
        struct FolderName: Hashable {
            let dir: String
            let name: String
        }

        /// The asset each sidecar name attaches to — a Takeout JSON name (`TakeoutReader.sidecarCandidates`
        /// of a resource's file name), an XMP sidecar's stem (a resource's file name or stem, lower-cased) —
        /// the first asset in order with such a resource. Made once: a scan of every asset's resources for
        /// every sidecar was quadratic (a Takeout folder of 1,000 photos with their JSON took 7 s, of 5,000
        /// minutes; Benchmarks/README.md, session 25). Sidecars change no resource, so it holds throughout.
        struct SidecarOwners {
            var takeout: [FolderName: Int] = [:]
            var xmp: [FolderName: Int] = [:]
        }

        func sidecarOwners(takeout: Bool, xmp: Bool) -> SidecarOwners {
            var owners = SidecarOwners()
            for a in assets.indices {
                for r in assets[a].asset.resources {
                    let rn = Name(r.path)
                    if takeout {
                        for candidate in TakeoutReader.sidecarCandidates(forMedia: rn.file) {
                            let key = FolderName(dir: rn.dir, name: candidate)
                            if owners.takeout[key] == nil { owners.takeout[key] = a }
                        }
                    }
                    if xmp {
                        for name in [rn.file.lowercased(), rn.stem.lowercased()] {
                            let key = FolderName(dir: rn.dir, name: name)
                            if owners.xmp[key] == nil { owners.xmp[key] = a }
                        }
                    }
                }
            }
            return owners
        }

        mutating func attachSidecars() {
            let sidecars = items.indices.filter { items[$0].c.role == .takeoutJSON || items[$0].c.role == .xmpSidecar }
            guard !sidecars.isEmpty else { return }
            let owners = sidecarOwners(
                takeout: sidecars.contains { items[$0].c.role == .takeoutJSON }, xmp: sidecars.contains { items[$0].c.role == .xmpSidecar })
            for i in sidecars {
                let n = items[i].name
                if items[i].c.role == .takeoutJSON {
                    guard let t = items[i].c.takeout else {
                        orphans.append(Orphan(path: items[i].rel, kind: "json", reason: "not Google Takeout metadata: \(items[i].c.errors.first ?? "unreadable")"))
                        continue
                    }
                    if t.isAlbumMetadata {
                        orphans.append(Orphan(path: items[i].rel, kind: "googleTakeoutAlbumJson", reason: "album-level Takeout metadata (title/geo of the album folder), not attached to any media file"))
                        continue
                    }
                    guard let a = owners.takeout[FolderName(dir: n.dir, name: n.file)] else {
                        let media = TakeoutReader.mediaNames(forSidecar: n.file).first ?? n.stem
                        orphans.append(Orphan(path: items[i].rel, kind: "googleTakeoutJson", reason: "media file \(media) not present"))
                        continue
                    }
                    assets[a].metadataSources.append(MetadataSource(type: "googleTakeoutJson", path: items[i].rel))
                    apply(takeout: t, from: items[i].rel, to: a)
                } else {
                    // x.jpg.xmp or x.xmp
                    let target = n.stem
                    guard let a = owners.xmp[FolderName(dir: n.dir, name: target.lowercased())] else {
                        orphans.append(Orphan(path: items[i].rel, kind: "xmp", reason: "no media file named \(target) in folder"))
                        continue
                    }
                    assets[a].metadataSources.append(MetadataSource(type: "xmpSidecar", path: items[i].rel))
                    if let x = items[i].c.xmp { apply(xmp: x, from: items[i].rel, to: a) }
                }
            }
        }

        mutating func apply(takeout t: TakeoutMetadata, from path: String, to a: Int) {
            if assets[a].asset.creationDate == nil, let ts = t.photoTakenTime {
                assets[a].asset.creationDate = AssetDate(local: FileDate.utcText(Int(ts)), offsetSeconds: 0)
                assets[a].asset.creationDateSource = "\(path) photoTakenTime (UTC)"
            }
            if assets[a].asset.location == nil, let g = t.geoDataExif ?? t.geoData {
                assets[a].asset.location = Location(latitude: g.latitude, longitude: g.longitude, altitude: g.altitude)
                assets[a].asset.locationSource = "\(path) geoData"
            }
            if t.favorited == true {
                assets[a].asset.isFavorite = true
                assets[a].asset.reasons.append(Reason("isFavorite", "\(path) favorited = true"))
            }
            if t.archived == true {
                assets[a].asset.isHidden = true
                assets[a].asset.reasons.append(Reason("isHidden", "\(path) archived = true"))
            }
        }

        mutating func apply(xmp x: XMPFacts, from path: String, to a: Int) {
            if assets[a].asset.creationDate == nil {
                for key in ["exif:DateTimeOriginal", "photoshop:DateCreated", "xmp:CreateDate"] {
                    if let v = x[key], let d = AssetDate(iso: v) {
                        assets[a].asset.creationDate = d
                        assets[a].asset.creationDateSource = "\(path) \(key)"
                        break
                    }
                }
            }
            if let rating = x["xmp:Rating"], let r = Int(rating), r >= 5 {
                assets[a].asset.isFavorite = true
                assets[a].asset.reasons.append(Reason("isFavorite", "\(path) xmp:Rating = \(r)"))
            }
        }

        // MARK: Finish

        mutating func finish() {
            for i in items.indices where items[i].c.role == .unsupported {
                let why = items[i].c.errors.first ?? "not a photo, video or known sidecar"
                orphans.append(Orphan(path: items[i].rel, kind: items[i].c.kind.rawValue, reason: why))
            }
            // The primary file of each undated asset, found through an index of the items by path: a scan of the
            // items per asset was quadratic — a folder of 20,000 undated PNGs (screenshots, scans, downloads)
            // spent 4 s of its 6 s here (Benchmarks/README.md, session 32).
            let undated = assets.indices.filter { assets[$0].asset.creationDate == nil }
            var itemOf: [String: Int] = [:]
            if !undated.isEmpty {
                itemOf.reserveCapacity(items.count)
                for i in items.indices where itemOf[items[i].rel] == nil { itemOf[items[i].rel] = i }  // the first, as before
            }
            for a in undated {
                if let m = itemOf[assets[a].asset.id].flatMap({ items[$0].c.fileModified }) {
                    assets[a].asset.creationDate = m
                    assets[a].asset.creationDateSource = Asset.fileTimeDateSource + " (last resort: no date in the file or its sidecars)"
                }
            }
            assets.sort { $0.asset.id < $1.asset.id }
            orphans.sort { $0.path < $1.path }
        }
    }
}

extension Assembler {
    /// What the files of one asset share within a folder, from their names alone (lower-cased): the
    /// original's base stem. `IMG_1234.HEIC`, `IMG_1234.MOV`, `IMG_1234_3.MOV`, `IMG_1234.AAE`,
    /// `IMG_O1234.AAE`, `IMG_E1234.JPG`, `IMG_1234.HEIC.json`, `IMG_1234.xmp` and `IMG_1234.HEIC.xmp` all
    /// give `img_1234`.
    ///
    /// Built from the stem rules assembly uses (`originalStem(ofEdit:)`, `originalAdjustmentStem`,
    /// `baseStem`, Takeout sidecar names), so that the crawler keeps together what assembly may attach
    /// (`--include '*.heic'` keeps the paired movie, edits and sidecars). Assembly itself pairs by content
    /// identifier first; this key is the name-only superset.
    public static func companionKey(ofFileName name: String) -> String {
        var file = name
        let lower = file.lowercased()
        if lower.hasSuffix(".json"), let media = TakeoutReader.mediaNames(forSidecar: file).first {
            file = media
        } else if lower.hasSuffix(".xmp") {
            file = String(file.dropLast(4))
        }
        var stem = Name(file).stem
        stem = originalStem(ofEdit: stem) ?? originalAdjustmentStem(stem) ?? stem
        return baseStem(stem).lowercased()
    }
}
