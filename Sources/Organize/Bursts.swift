import PhotoModel

/// One file as the burst grouper sees it: identity, name, time, camera and every burst hint the
/// earlier stages found.
public struct BurstCandidate: Sendable, Equatable, Hashable {
    /// The asset's id (its primary path relative to the root).
    public var id: String
    /// The primary file's name (`IMG_0658.JPG`, `00001IMG_00001_BURST20190512151327453.jpg`).
    public var filename: String
    public var creationDate: AssetDate?
    public var make: String?
    public var model: String?
    /// Apple MakerNote 0x0B `BurstUUID`.
    public var appleBurstUUID: String?
    /// XMP `GCamera:BurstID`.
    public var googleBurstID: String?
    /// XMP `GCamera:BurstPrimary` (the cover the camera chose).
    public var googleBurstPrimary: Bool
    /// A sidecar or Takeout says the user picked this frame.
    public var userPicked: Bool
    /// The folder the file is in: the name and time rules group frames of one folder only (a camera writes a
    /// burst into one folder; identical copies in other folders are not frames). Empty: the id's directory
    /// (an id that is a path).
    public var folder: String = ""

    public init(
        id: String, filename: String? = nil, creationDate: AssetDate? = nil, make: String? = nil,
        model: String? = nil, appleBurstUUID: String? = nil, googleBurstID: String? = nil,
        googleBurstPrimary: Bool = false, userPicked: Bool = false
    ) {
        self.id = id
        self.filename = filename ?? PathText.fileName(id)
        self.creationDate = creationDate
        self.make = make
        self.model = model
        self.appleBurstUUID = appleBurstUUID
        self.googleBurstID = googleBurstID
        self.googleBurstPrimary = googleBurstPrimary
        self.userPicked = userPicked
    }

    /// From an assembled asset (its `burstIdentifier` is the Apple BurstUUID the probe read); the
    /// Google and user-pick hints come from XMP and sidecars.
    public init(asset: Asset, googleBurstID: String? = nil, googleBurstPrimary: Bool = false, userPicked: Bool = false) {
        let primary = asset.resources.first { $0.type == .photo || $0.type == .video }
        self.init(
            id: asset.id, filename: primary?.originalFilename, creationDate: asset.creationDate,
            make: asset.make, model: asset.model, appleBurstUUID: asset.burstIdentifier,
            googleBurstID: googleBurstID, googleBurstPrimary: googleBurstPrimary, userPicked: userPicked)
    }
}

/// One burst: its frames in shot order, the representative and each frame's selection types.
public struct BurstSet: Sendable, Equatable {
    public enum Source: String, Sendable, Equatable {
        case appleBurstUUID, googleBurstID, fileName, timeRule
    }

    /// PhotoKit's `burstIdentifier`: the Apple BurstUUID or Google BurstID as written in the file, or a
    /// name-based UUID for sets found by name or by time.
    public var identifier: String
    public var source: Source
    /// Member ids in shot order (creation time, then file name).
    public var members: [String]
    public var representative: String
    /// Selection types per member; members without any are absent.
    public var selectionTypes: [String: BurstSelectionTypes]
    /// Why these files form a set, and why this representative.
    public var reasons: [Reason]
}

/// Groups files into burst sets. Pure and deterministic: the same candidates in any order give the same sets.
///
/// Evidence, strongest first; a file joins the set of the first rule that claims it:
/// 1. **Apple `BurstUUID`** (MakerNote 0x0B): files with the same value. Used as the identifier.
/// 2. **Google `GCamera:BurstID`**: files with the same value; `GCamera:BurstPrimary` marks the cover.
/// 3. **File names** (same folder):
///    - old Pixel / Google Camera: `00001IMG_00001_BURST20190512151327453[_COVER].jpg` — the digits after
///      `BURST` (the burst's start time) are the key, the leading number is the frame;
///    - Huawei / Honor / Xiaomi / newer Samsung and the like: `<stem>_BURST<1–3 digits>[_COVER].<ext>`
///      (`IMG_20180101_120000_BURST001_COVER.jpg`, `20190310_151220_Burst01.jpg`) — the stem is the key;
///    - in both, a `COVER` frame is the camera's own pick and becomes the representative;
///    - old Samsung `YYYYMMDD_HHMMSS_NNN.jpg`: **ambiguous**, because Samsung also uses a numeric suffix
///      for several photos saved in the same second. Accepted only when at least
///      `minimumFramesForAmbiguousNames` (3) files in one folder share the `YYYYMMDD_HHMMSS` stem and the
///      same make/model; two such files are left to the time rule.
/// 4. **Time rule** for files with none of the above: at least `minimumFramesForTimeRule` (3) frames from
///    one camera (same make and model, at least one of them known) whose consecutive capture times are at
///    most `maximumTimeRuleGap` (0.5 s) apart. A camera writing whole seconds only gives gaps of 0 or ≥ 1 s,
///    so only frames sharing one second are grouped then.
///
/// Sets of one frame are not bursts (there is nothing to stack); such a frame keeps no burst identifier.
///
/// **Representative** (`representsBurst`): the Google `BurstPrimary` or file-name `COVER` frame when there
/// is one (the camera's pick, `autoPick`); else, only with `userPickBecomesRepresentative`, the first frame
/// the user picked; else the **first frame in shot order**, marked `autoPick`. Apple's camera picks its key
/// frame by image analysis we cannot repeat; Photos' database for the corpus burst (IMG_0658/0664/0667/0675,
/// ZAVALANCHEPICKTYPE 20 = key + default pick on IMG_0658, the earliest frame; 8 = user pick on IMG_0667)
/// shows the key frame staying the default pick even though the user picked another frame, so by default a
/// user pick adds `userPick` to that frame and does not move the representative.
public enum BurstGrouper {
    public struct Options: Sendable, Equatable {
        public var minimumFramesForTimeRule = 3
        public var maximumTimeRuleGap = 0.5
        public var minimumFramesForAmbiguousNames = 3
        public var userPickBecomesRepresentative = false
        public init() {}
    }

    public static func group(_ items: [BurstCandidate], options: Options = Options()) -> [BurstSet] {
        // Candidates are referred to by index (a library's worth of them is not copied to sort or bucket),
        // visited in identifier order.
        var claimed = [Bool](repeating: false, count: items.count)
        var sets: [BurstSet] = []
        let order = items.indices.sorted { items[$0].id < items[$1].id }
        func claim(_ frames: [Int]) { for f in frames { claimed[f] = true } }

        // 1 and 2: identifiers written in the file.
        for (source, key) in [(BurstSet.Source.appleBurstUUID, \BurstCandidate.appleBurstUUID),
                              (.googleBurstID, \BurstCandidate.googleBurstID)] {
            var groups: [String: [Int]] = [:]
            for i in order where !claimed[i] {
                if let v = items[i][keyPath: key], !v.isEmpty { groups[v, default: []].append(i) }
            }
            for (value, frames) in groups.sorted(by: { $0.key < $1.key }) where frames.count >= 2 {
                let tag = source == .appleBurstUUID ? "Apple MakerNote BurstUUID" : "XMP GCamera:BurstID"
                sets.append(make(frames.map { items[$0] }, identifier: value, source: source,
                                 why: "\(frames.count) files share \(tag) = \(value)", options: options))
                claim(frames)
            }
        }

        // 3: file names.
        var named: [String: (frames: [Int], pattern: NamePattern, name: String)] = [:]
        for i in order where !claimed[i] {
            let c = items[i]
            guard let m = NamePattern.match(c.filename) else { continue }
            // The folder the organize stage names (a catalog's ids are local identifiers, whose "directory"
            // is each asset's own: keyed by it, no name set formed in a catalog), else the id's directory.
            let key = (c.folder.isEmpty ? directory(of: c.id) : c.folder) + "|" + m.pattern.rawValue + "|" + m.key
            named[key, default: ([], m.pattern, m.key)].frames.append(i)
        }
        for (_, g) in named.sorted(by: { $0.key < $1.key }) {
            var frames = g.frames.map { items[$0] }
            if g.pattern == .samsungNumbered {
                let cameras = Set(frames.map { cameraKey($0) })
                guard frames.count >= options.minimumFramesForAmbiguousNames, cameras.count == 1 else { continue }
            } else if frames.count < 2 {
                continue
            }
            frames = inShotOrder(frames)
            let covers = frames.filter { NamePattern.isCover($0.filename) }
            let why = "\(frames.count) files in one folder named like a \(g.pattern.description) burst (key \(g.name))"
                + (g.pattern == .samsungNumbered ? "; accepted because ≥ \(options.minimumFramesForAmbiguousNames) frames share the second and the camera" : "")
            // Named by the name key and the first frame in shot order (its id: a catalog's local identifier),
            // as the time rule's sets are: not by the folder's path, so renaming or moving a folder keeps its
            // bursts' identifiers (its assets keep theirs), and a copy of the folder still makes sets of its own.
            let name = g.pattern.rawValue + "|" + g.name + "|" + frames[0].id
            sets.append(make(frames, inShotOrder: true, identifier: StableIdentifier.uuid("burst:name:" + name), source: .fileName,
                             why: why, cover: covers.first?.id, options: options))
            claim(g.frames)
        }

        // 4: time rule, per camera.
        var byCamera: [String: [(index: Int, time: Double)]] = [:]
        for i in order where !claimed[i] {
            let c = items[i]
            guard c.make != nil || c.model != nil, let d = c.creationDate, let t = CivilDate.seconds(d) else { continue }
            byCamera[cameraKey(c) + (c.folder.isEmpty ? "" : " in " + c.folder), default: []].append((i, t))
        }
        for (_, list) in byCamera.sorted(by: { $0.key < $1.key }) {
            let sorted = list.sorted { $0.time != $1.time ? $0.time < $1.time : items[$0.index].filename < items[$1.index].filename }
            var run: [(index: Int, time: Double)] = []
            func flush() {
                defer { run = [] }
                guard run.count >= options.minimumFramesForTimeRule else { return }
                let maxGap = zip(run.dropFirst(), run).map { $0.time - $1.time }.max() ?? 0
                let frames = run.map { items[$0.index] }
                // The camera as `shoebox show` names it ("NIKON D7500", not the key's "NIKON NIKON D7500").
                let name = CameraName.display(make: frames[0].make, model: frames[0].model) ?? cameraKey(frames[0])
                let place = frames[0].folder.isEmpty ? "" : " in " + frames[0].folder
                let why = "\(frames.count) frames from \(name)\(place) with consecutive capture times ≤ \(fmt(options.maximumTimeRuleGap)) s apart (largest gap \(fmt(maxGap)) s), no burst id or burst file name"
                sets.append(make(frames, identifier: StableIdentifier.uuid("burst:time:" + frames[0].id),
                                 source: .timeRule, why: why, options: options))
            }
            for e in sorted {
                if let last = run.last, e.time - last.time > options.maximumTimeRuleGap { flush() }
                run.append(e)
            }
            flush()
        }
        return sets.sorted { $0.members[0] < $1.members[0] }
    }

    /// Sets `burstIdentifier`, `representsBurst` and `burstSelectionTypes` on the assets the sets name.
    /// Assets in no set lose a stale burst identifier only if `clearOthers`.
    public static func apply(_ sets: [BurstSet], to assets: [Asset], clearOthers: Bool = false) -> [Asset] {
        var byMember: [String: BurstSet] = [:]
        for s in sets { for m in s.members { byMember[m] = s } }
        return assets.map { a in
            var a = a
            if let s = byMember[a.id] {
                a.burstIdentifier = s.identifier
                a.representsBurst = s.representative == a.id
                a.burstSelectionTypes = s.selectionTypes[a.id] ?? []
                a.reasons.append(Reason("burst", s.reasons.map(\.evidence).joined(separator: "; ")))
            } else if clearOthers {
                a.burstIdentifier = nil
                a.representsBurst = false
                a.burstSelectionTypes = []
            }
            return a
        }
    }

    // MARK: - Helpers

    /// `ordered`: the frames are in shot order already (the name rule orders them to name the set).
    static func make(
        _ frames: [BurstCandidate], inShotOrder ordered: Bool = false, identifier: String, source: BurstSet.Source, why: String,
        cover: String? = nil, options: Options
    ) -> BurstSet {
        let frames = ordered ? frames : inShotOrder(frames)
        var reasons = [Reason("burst", why)]
        var types: [String: BurstSelectionTypes] = [:]
        for f in frames where f.userPicked { types[f.id, default: []].insert(.userPick) }
        let rep: String
        if let p = frames.first(where: \.googleBurstPrimary) {
            rep = p.id
            types[rep, default: []].insert(.autoPick)
            reasons.append(Reason("representsBurst", "\(p.filename): XMP GCamera:BurstPrimary (the camera's cover)"))
        } else if let c = cover {
            rep = c
            types[rep, default: []].insert(.autoPick)
            reasons.append(Reason("representsBurst", "\(frames.first { $0.id == c }?.filename ?? c): COVER in the file name (the camera's cover)"))
        } else if options.userPickBecomesRepresentative, let u = frames.first(where: \.userPicked) {
            rep = u.id
            reasons.append(Reason("representsBurst", "\(u.filename): first frame the user picked"))
        } else {
            rep = frames[0].id
            types[rep, default: []].insert(.autoPick)
            reasons.append(Reason("representsBurst", "\(frames[0].filename): first frame in shot order (our auto pick; Apple's key frame in the corpus burst is its earliest)"))
        }
        let picked = frames.filter(\.userPicked).map(\.filename)
        if !picked.isEmpty { reasons.append(Reason("burstSelectionTypes", "userPick on \(picked.joined(separator: ", ")) (sidecar or Takeout)")) }
        return BurstSet(identifier: identifier, source: source, members: frames.map(\.id), representative: rep,
                        selectionTypes: types, reasons: reasons)
    }

    /// Shot order: by time (frames without one last), then file name, folder and id; `ta`, `tb`: the frames'
    /// times (`CivilDate.seconds` of their creation dates).
    static func shotOrder(_ a: BurstCandidate, _ ta: Double?, _ b: BurstCandidate, _ tb: Double?) -> Bool {
        if let ta, let tb, ta != tb { return ta < tb }
        if (ta == nil) != (tb == nil) { return ta != nil }
        // Copies of one burst in several folders (one Apple BurstUUID): by folder, so the same files give the
        // same representative on every run (local identifiers are random).
        if a.filename != b.filename { return a.filename < b.filename }
        return a.folder != b.folder ? a.folder < b.folder : a.id < b.id
    }

    /// The frames in shot order, each frame's time read once and the frames moved once: a comparison
    /// read both times from their text (an array each) and the sort moved whole candidates, so a time-lapse
    /// folder of 30,000 frames 0.5 s apart — one set by the time rule — took 0.8 s to order.
    static func inShotOrder(_ frames: [BurstCandidate]) -> [BurstCandidate] {
        let times = frames.map { $0.creationDate.flatMap(CivilDate.seconds) }
        return frames.indices.sorted { shotOrder(frames[$0], times[$0], frames[$1], times[$1]) }.map { frames[$0] }
    }

    static func cameraKey(_ c: BurstCandidate) -> String { "\(c.make ?? "?") \(c.model ?? "?")" }

    static func directory(of id: String) -> String {
        guard let i = id.lastIndex(of: "/") else { return "" }
        return String(id[..<i])
    }

    static func fmt(_ x: Double) -> String {
        let r = (x * 1000).rounded() / 1000
        return String(r)
    }
}

/// Vendor burst file names.
enum NamePattern: String, Sendable {
    case pixel, vendorBurst, samsungNumbered

    var description: String {
        switch self {
        case .pixel: return "Pixel (…IMG_…_BURST<time>[_COVER])"
        case .vendorBurst: return "vendor (<stem>_BURST<n>[_COVER])"
        case .samsungNumbered: return "Samsung (YYYYMMDD_HHMMSS_NNN)"
        }
    }

    static func stem(_ name: String) -> String {
        guard let dot = name.firstIndex(of: ".") else { return name }
        return String(name[..<dot])
    }

    /// Whether `_BURST` occurs in the text, ASCII letters in any case.
    static func hasBurstMarker(_ text: String) -> Bool {
        let marker = "_BURST".utf8
        var matched = marker.startIndex
        for c in text.utf8 {
            let upper = c >= 0x61 && c <= 0x7A ? c - 0x20 : c
            if upper == marker[matched] {
                matched = marker.index(after: matched)
                if matched == marker.endIndex { return true }
            } else {
                matched = upper == marker.first ? marker.index(after: marker.startIndex) : marker.startIndex
            }
        }
        return false
    }

    static func isCover(_ name: String) -> Bool { name.uppercased().contains("COVER") }

    /// The pattern and the key shared by every frame of one burst.
    static func match(_ filename: String) -> (pattern: NamePattern, key: String)? {
        let s = stem(filename)
        // An ASCII stem that has no `_BURST` (any case) and is not 19 bytes long matches nothing: most names
        // end here, without an upper-cased copy.
        if s.utf8.allSatisfy({ $0 < 0x80 }), s.utf8.count != 19, !hasBurstMarker(s) { return nil }
        let u = s.uppercased()
        // Cheap guards first: a regex literal is built on every evaluation, which cost a quarter of a
        // 100k-asset re-derivation when every name went through all three.
        if u.contains("_BURST") {
            if let m = u.wholeMatch(of: /\d{5}IMG_\d{5}_BURST(\d{14,17})(?:_COVER)?/) {
                return (.pixel, String(m.1))
            }
            if let m = u.wholeMatch(of: /(.+?)_BURST\d{1,3}(?:_COVER)?/) {
                return (.vendorBurst, String(m.1))
            }
        }
        if u.utf8.count == 19, let m = u.wholeMatch(of: /(\d{8}_\d{6})_\d{3}/) {
            return (.samsungNumbered, String(m.1))
        }
        return nil
    }
}

/// PhotoKit's default fetch shows one asset per burst (the representative); `includeAllBurstAssets` shows all.
public enum BurstVisibility {
    public static func isVisible(_ asset: Asset, includeAllBurstAssets: Bool = false) -> Bool {
        includeAllBurstAssets || asset.burstIdentifier == nil || asset.representsBurst
    }

    public static func filter(_ assets: [Asset], includeAllBurstAssets: Bool = false) -> [Asset] {
        assets.filter { isVisible($0, includeAllBurstAssets: includeAllBurstAssets) }
    }
}
