/// What an Apple `.AAE` adjustment sidecar says (facts only; which asset it belongs to is the assembler's call).
public struct AdjustmentSidecar: Sendable, Equatable, Codable {
    /// How `adjustmentData` was encoded.
    public enum DataEncoding: String, Sendable, Equatable, Codable {
        /// No `adjustmentData` in the file.
        case none
        /// Raw DEFLATE of JSON (com.apple.photo).
        case deflateJSON
        /// A binary plist (com.apple.video.slomo 1.1).
        case binaryPlist
        /// An NSKeyedArchiver binary plist (com.apple.video.slomo 1.0).
        case keyedArchive
        /// Bytes this reader does not interpret (third-party editors, `com.apple.Photos.externalEdit`).
        case opaque
    }

    /// `adjustmentFormatIdentifier`, e.g. `com.apple.photo`, `com.apple.video.slomo`.
    public var formatIdentifier: String
    /// `adjustmentFormatVersion` as written (e.g. "1.4", "1.10").
    public var formatVersion: String?
    /// `adjustmentEditorBundleID` (may be empty).
    public var editorBundleID: String?
    /// `adjustmentBaseVersion`.
    public var baseVersion: Int64?
    /// `adjustmentRenderTypes`.
    public var renderTypes: Int64?
    /// `adjustmentTimestamp` as ISO 8601 text.
    public var timestamp: String?
    /// How `adjustmentData` was encoded.
    public var dataEncoding: DataEncoding
    /// Identifiers of the adjustments in a com.apple.photo payload, in file order (enabled or not).
    public var adjustments: [String]
    /// The subset of `adjustments` whose `enabled` flag is false.
    public var disabledAdjustments: [String]
    /// `metadata.orientation` of a com.apple.photo payload (EXIF orientation of the master; 0 = unknown).
    public var orientation: Int?
    /// `metadata.masterWidth` of a com.apple.photo payload.
    public var masterWidth: Int?
    /// `metadata.masterHeight` of a com.apple.photo payload.
    public var masterHeight: Int?
    /// PHAssetPlaybackVariation from an enabled `AutoLoop` adjustment: 0 none, 1 loop, 2 bounce, 3 long exposure.
    public var playbackVariation: Int?
    /// The slow-motion ramp of a com.apple.video.slomo sidecar.
    public var slowMotion: SlowMotion?

    /// A slow-motion ramp from a `com.apple.video.slomo` sidecar.
    public struct SlowMotion: Sendable, Equatable, Codable {
        /// Playback rate of the slow part (e.g. 0.125, 0.25); nil when it could not be decoded.
        public var rate: Float?
        /// Start of the first slow region, in seconds.
        public var start: Double?
        /// Duration of the first slow region, in seconds.
        public var duration: Double?
        /// Number of regions in the file.
        public var regionCount: Int

        /// Creates a ramp.
        public init(rate: Float?, start: Double?, duration: Double?, regionCount: Int) {
            self.rate = rate
            self.start = start
            self.duration = duration
            self.regionCount = regionCount
        }
    }
}

/// Reads Apple `.AAE` sidecars (XML or binary plist; com.apple.photo DEFLATE/JSON and slo-mo payloads).
public enum AAEReader {
    /// Largest AAE file accepted.
    public static let maxFileSize = 16 << 20
    /// Largest inflated adjustment payload accepted (also capped at 1000× the compressed size).
    public static let maxInflated = 64 << 20

    /// Parses one AAE file.
    public static func read(_ bytes: [UInt8]) throws(ProbeError) -> AdjustmentSidecar {
        guard bytes.count <= maxFileSize else { throw ProbeError(.tooLarge, "AAE: \(bytes.count) bytes exceeds the \(maxFileSize)-byte limit") }
        let root = try SidecarPlist.parse(bytes, what: "AAE")
        guard case .dict(let d) = root else { throw ProbeError(.malformed, "AAE: top-level value is not a dictionary") }
        guard let identifier = d["adjustmentFormatIdentifier"]?.stringValue else {
            throw ProbeError(.malformed, "AAE: no adjustmentFormatIdentifier string (not an adjustment sidecar)")
        }
        var out = AdjustmentSidecar(
            formatIdentifier: identifier,
            formatVersion: d["adjustmentFormatVersion"].flatMap(text),
            editorBundleID: d["adjustmentEditorBundleID"]?.stringValue,
            baseVersion: d["adjustmentBaseVersion"]?.intValue,
            renderTypes: d["adjustmentRenderTypes"]?.intValue,
            timestamp: d["adjustmentTimestamp"].flatMap(text),
            dataEncoding: .none, adjustments: [], disabledAdjustments: [],
            orientation: nil, masterWidth: nil, masterHeight: nil, playbackVariation: nil, slowMotion: nil)
        guard let data = d["adjustmentData"] else { return out }
        guard let payload = data.dataValue else {
            throw ProbeError(.malformed, "AAE \(identifier): adjustmentData is not <data>")
        }
        switch identifier {
        case "com.apple.photo":
            try decodePhoto(payload, into: &out)
        case "com.apple.video.slomo":
            try decodeSlomo(payload, into: &out)
        default:
            out.dataEncoding = .opaque
        }
        return out
    }

    private static func text(_ v: SidecarValue) -> String? {
        switch v {
        case .string(let s), .date(let s): return s
        case .integer(let i): return String(i)
        case .real(let r): return String(r)
        default: return nil
        }
    }

    // MARK: com.apple.photo

    private static func decodePhoto(_ payload: [UInt8], into out: inout AdjustmentSidecar) throws(ProbeError) {
        let what = "AAE com.apple.photo adjustmentData"
        let json: [UInt8]
        if payload.first == UInt8(ascii: "{") {
            json = payload  // uncompressed JSON (seen from some third-party writers)
        } else {
            let limit = min(maxInflated, max(4096, payload.count * 1000))
            do {
                json = try Inflate.raw(payload, limit: limit)
            } catch {
                // Some writers wrap the stream in a zlib header; accept that too.
                guard payload.count >= 2, payload[0] & 0x0F == 8, (UInt16(payload[0]) << 8 | UInt16(payload[1])) % 31 == 0,
                    let z = try? Inflate.zlib(payload, limit: limit)
                else {
                    throw ProbeError(error.code, "\(what): \(error.message)")
                }
                json = z
            }
        }
        out.dataEncoding = .deflateJSON
        let v: SidecarValue
        do {
            v = try SidecarJSON.parse(json, what: what)
        } catch {
            throw ProbeError(error.code, "\(what) (inflated \(json.count) bytes): \(error.message)")
        }
        guard case .dict = v else { throw ProbeError(.malformed, "\(what): JSON is not an object") }
        if let list = v["adjustments"] {
            guard let items = list.arrayValue else { throw ProbeError(.malformed, "\(what): 'adjustments' is not an array") }
            for item in items {
                guard let id = item["identifier"]?.stringValue else { continue }
                out.adjustments.append(id)
                let enabled = item["enabled"]?.boolValue ?? true
                if !enabled { out.disabledAdjustments.append(id) }
                if enabled, out.playbackVariation == nil, let pv = playbackVariation(identifier: id, settings: item["settings"]) {
                    out.playbackVariation = pv
                }
            }
        }
        if let meta = v["metadata"] {
            out.orientation = meta["orientation"]?.intValue.flatMap { Int(exactly: $0) }
            out.masterWidth = meta["masterWidth"]?.intValue.flatMap { Int(exactly: $0) }
            out.masterHeight = meta["masterHeight"]?.intValue.flatMap { Int(exactly: $0) }
        }
    }

    /// PHAssetPlaybackVariation for one enabled adjustment, or nil when it is not a playback effect.
    ///
    /// Apple's Photos edits store Loop/Bounce/Long Exposure as the `AutoLoop` adjustment with a `flavor`
    /// setting; PhotoImaging's `PIAutoLoopFlavorFromString` maps "AutoLoop" 1, "Mirror" 2, "LongExposure" 3,
    /// anything else 0 — the same numbers as PHAssetPlaybackVariation. Older builds spelled bounce
    /// "Bounce"/"PingPong"; those are accepted too, and so is an identifier that names the flavor itself.
    public static func playbackVariation(identifier: String, settings: SidecarValue?) -> Int? {
        func flavor(_ s: String) -> Int? {
            switch s.lowercased() {
            case "autoloop", "loop": return 1
            case "mirror", "bounce", "pingpong": return 2
            case "longexposure": return 3
            case "none": return 0
            default: return nil
            }
        }
        if identifier.lowercased() == "autoloop" {
            guard let f = settings?["flavor"]?.stringValue else { return 1 }  // Apple's default flavor
            return flavor(f) ?? 0
        }
        switch identifier.lowercased() {
        case "mirror", "bounce", "longexposure": return flavor(identifier)
        default: return nil
        }
    }

    // MARK: com.apple.video.slomo

    private static func decodeSlomo(_ payload: [UInt8], into out: inout AdjustmentSidecar) throws(ProbeError) {
        let what = "AAE com.apple.video.slomo adjustmentData"
        guard payload.matches("bplist00") else {
            throw ProbeError(.malformed, "\(what): not a binary plist (\(payload.count) bytes)")
        }
        let tree = try SidecarPlist.parse(payload, what: what)
        if tree["$archiver"] != nil || tree["$objects"] != nil {
            out.dataEncoding = .keyedArchive
            var budget = 50_000
            let resolved = (tree["$top"]?["root"]).flatMap { SidecarKeyedArchive.resolve($0, objects: tree["$objects"]?.arrayValue ?? [], depth: 0, budget: &budget) }
            out.slowMotion = resolved.flatMap(slowMotion(from:)) ?? AdjustmentSidecar.SlowMotion(rate: nil, start: nil, duration: nil, regionCount: 0)
        } else {
            out.dataEncoding = .binaryPlist
            guard let sm = slowMotion(from: tree) else {
                throw ProbeError(.malformed, "\(what): no slowMotion dictionary")
            }
            out.slowMotion = sm
        }
    }

    private static func slowMotion(from tree: SidecarValue) -> AdjustmentSidecar.SlowMotion? {
        let sm = tree["slowMotion"] ?? tree
        guard case .dict = sm, sm["rate"] != nil || sm["regions"] != nil else { return nil }
        let rate = sm["rate"]?.doubleValue.map { Float($0) }
        let regions = sm["regions"]?.arrayValue ?? []
        var start: Double?, duration: Double?
        if let first = regions.first {
            let range = first["timeRange"] ?? first
            start = range["start"].flatMap(seconds)
            duration = range["duration"].flatMap(seconds)
        }
        return AdjustmentSidecar.SlowMotion(rate: rate, start: start, duration: duration, regionCount: regions.count)
    }

    /// Seconds of a CMTime dictionary (`value`, `timescale`, `flags` bit 0 = valid).
    private static func seconds(_ t: SidecarValue) -> Double? {
        guard let value = t["value"]?.intValue, let scale = t["timescale"]?.intValue, scale > 0 else { return nil }
        if let flags = t["flags"]?.intValue, flags & 1 == 0 { return nil }
        return Double(value) / Double(scale)
    }
}

/// A generic NSKeyedArchiver flattener: UIDs become the objects they name, NSDictionary/NSArray/NSString
/// become plain values. Depth- and budget-limited, so cycles and shared references end quietly in nil.
enum SidecarKeyedArchive {
    static func resolve(_ v: SidecarValue, objects: [SidecarValue], depth: Int, budget: inout Int) -> SidecarValue? {
        guard depth < SidecarPlist.maxDepth, budget > 0 else { return nil }
        budget -= 1
        switch v {
        case .uid(let u):
            guard u < UInt64(objects.count) else { return nil }
            let o = objects[Int(u)]
            if case .string("$null") = o { return .null }
            return resolve(o, objects: objects, depth: depth + 1, budget: &budget)
        case .dict(let d):
            if let keys = d["NS.keys"]?.arrayValue, let vals = d["NS.objects"]?.arrayValue, keys.count == vals.count {
                var out: [String: SidecarValue] = [:]
                for (k, val) in zip(keys, vals) {
                    guard let key = resolve(k, objects: objects, depth: depth + 1, budget: &budget)?.stringValue else { continue }
                    out[key] = resolve(val, objects: objects, depth: depth + 1, budget: &budget)
                }
                return .dict(out)
            }
            if let vals = d["NS.objects"]?.arrayValue {
                return .array(vals.compactMap { resolve($0, objects: objects, depth: depth + 1, budget: &budget) })
            }
            if let s = d["NS.string"]?.stringValue { return .string(s) }
            var out: [String: SidecarValue] = [:]
            for (k, val) in d where k != "$class" {
                out[k] = resolve(val, objects: objects, depth: depth + 1, budget: &budget)
            }
            return .dict(out)
        case .array(let a):
            return .array(a.compactMap { resolve($0, objects: objects, depth: depth + 1, budget: &budget) })
        default:
            return v
        }
    }
}
