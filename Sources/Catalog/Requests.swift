import Foundation
import GRDB
import PhotoModel

// Creation-request manifests (`shoebox requests`): the catalog written out as PhotoKit would be asked to
// create it — `PHAssetCreationRequest`s, then `PHCollectionListChangeRequest`s (folders), then
// `PHAssetCollectionChangeRequest`s (albums) — as JSON Lines, and replayed into a catalog (the importer's
// side) in one transaction.
//
// Order: line 1 is the header; then every asset; then the folders, each parent before its children (a
// folder names its parent); then the albums (an album names its folder and its member assets). So every
// reference points at an earlier line, as PhotoKit needs: a folder must exist before an album is added to
// it, an asset before it is added to an album. Moments and smart albums are computed, never created.
// Schema: `docs/requests.schema.json` (embedded as `RequestsManifest.schemaText`).

/// One problem with one manifest line.
public struct ManifestIssue: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var reason: String

    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    /// `FILE:LINE: reason`.
    public var description: String { "\(file):\(line): \(reason)" }
}

/// A manifest rejected whole: nothing was applied.
public struct ManifestError: Error, Sendable, CustomStringConvertible {
    public var issues: [ManifestIssue]
    public var description: String { issues.map(\.description).joined(separator: "\n") }
}

/// A manifest that cannot be written (an asset outside `--root`, a resource type PhotoKit cannot create, …).
public struct RequestsError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A written manifest.
public struct CreationRequests: Sendable {
    /// One JSON document per line (no newlines inside).
    public var lines: [String]
    /// Placeholder → the source catalog's local identifier (assets, albums and folders).
    public var placeholders: [String: String]
    public var assetCount = 0
    public var folderCount = 0
    public var albumCount = 0

    /// The JSON Lines text.
    public var text: String { lines.map { $0 + "\n" }.joined() }
}

public enum RequestsManifest {
    public static let version: Int64 = 1

    /// Resource types a creation request can carry (`PHAssetCreationRequest.addResource(with:…)`).
    public static let resourceTypes: [AssetResourceType] = [
        .photo, .video, .pairedVideo, .alternatePhoto, .fullSizePhoto, .fullSizeVideo, .fullSizePairedVideo, .adjustmentData,
    ]

    /// The schema of one line (the text of `docs/requests.schema.json`).
    public static let schema: JSONSchema = {
        do { return try JSONSchema(text: schemaText) } catch { fatalError("the embedded requests schema does not parse: \(error)") }
    }()

    static let keyOrder = [
        "kind", "version", "catalogID", "root", "createdAt", "line", "placeholder", "title", "parent", "members", "mediaType", "mediaSubtypes",
        "traits", "creationDate", "location", "latitude", "longitude", "altitude", "isFavorite", "isHidden", "resources", "type", "path",
        "originalFilename", "uniformTypeIdentifier", "fileSize", "contentHash", "byteRange", "offset", "length",
    ]

    static func line(_ v: [String: JSONValue]) -> String { JSONValue.object(v).serialized(keyOrder: keyOrder) }

    /// `SOURCE_DATE_EPOCH` (seconds since 1970) when set, else now.
    public static func defaultCreatedAt() -> Date {
        if let e = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"], let secs = Double(e) { return Date(timeIntervalSince1970: secs) }
        return Date()
    }

    static func newPlaceholder(_ suffix: String) -> String { UUID().uuidString.uppercased() + "/L0/" + suffix }

    /// The placeholder an exported object gets: a UUID derived from the catalog and the object's local
    /// identifier (two FNV-1a 64-bit hashes, RFC 4122 variant, version 8), so the same catalog exports the
    /// same manifest byte for byte, and distinct objects get distinct placeholders.
    static func placeholder(for localIdentifier: String, catalogID: String, _ suffix: String) -> String {
        func fnv(_ seed: UInt64) -> UInt64 {
            var h = seed
            for b in (catalogID + "\u{1F}" + localIdentifier).utf8 {
                h ^= UInt64(b)
                h = h &* 0x100_0000_01B3
            }
            return h
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        for (i, h) in [fnv(0xCBF2_9CE4_8422_2325), fnv(0x84222325_CBF29CE4)].enumerated() {
            for k in 0..<8 { bytes[i * 8 + k] = UInt8(truncatingIfNeeded: h >> (56 - 8 * UInt64(k))) }
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String($0, radix: 16, uppercase: true) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        let a = Array(hex)
        let uuid = [a[0..<8], a[8..<12], a[12..<16], a[16..<20], a[20..<32]].map { String($0) }.joined(separator: "-")
        return uuid + "/L0/" + suffix
    }

    /// Why `path` is not a safe path relative to a root, or nil.
    public static func pathProblem(_ path: String) -> String? {
        if path.isEmpty { return "empty path" }
        if path.hasPrefix("/") { return "path '\(path)' is absolute; paths are relative to the root" }
        // Components by bytes, as the file system splits them: split by character, "../\u{301}x" is one
        // component (the combining mark joins the "/" before it) and its ".." went unseen.
        if path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).contains(where: { $0.elementsEqual("..".utf8) }) {
            return "path '\(path)' leaves the root ('..')"
        }
        if path.contains("\0") { return "path contains a NUL byte" }
        return nil
    }

    // MARK: - Reading

    struct AssetLine {
        var line: Int
        var placeholder: String
        var asset: Asset
        var hashes: [String?]
    }

    struct ListLine {
        var line: Int
        var placeholder: String
        var title: String
        var parent: String?
    }

    struct AlbumLine {
        var line: Int
        var placeholder: String
        var title: String
        var parent: String?
        var members: [String]
    }

    struct Plan {
        var root: String
        var assets: [AssetLine] = []
        var lists: [ListLine] = []
        var albums: [AlbumLine] = []
    }

    /// Checks every line (JSON, schema, line numbers, paths, resource types, references only to earlier
    /// lines); throws every problem found, each naming its line.
    public static func validate(_ text: String, file: String) throws(ManifestError) {
        _ = try plan(text, file: file)
    }

    static func plan(_ text: String, file: String) throws(ManifestError) -> Plan {
        var issues: [ManifestIssue] = []
        func fail(_ n: Int, _ reason: String) { issues.append(ManifestIssue(file: file, line: n, reason: reason)) }
        var rawLines = text.components(separatedBy: "\n")
        if rawLines.last == "" { rawLines.removeLast() }
        if rawLines.isEmpty { throw ManifestError(issues: [ManifestIssue(file: file, line: 1, reason: "empty manifest: no header")]) }
        if !text.hasSuffix("\n") {
            // A writer always ends the last line; a missing newline means the file was cut short.
            fail(rawLines.count, "the last line has no newline: the manifest is truncated")
        }

        // Pass 1: parse, and note where each placeholder is defined (to tell "later" from "undefined").
        var parsed: [JSONValue?] = []
        var definedAt: [String: (line: Int, kind: String)] = [:]
        for (k, raw) in rawLines.enumerated() {
            let n = k + 1
            if raw.trimmingCharacters(in: .whitespaces).isEmpty {
                fail(n, "empty line")
                parsed.append(nil)
                continue
            }
            guard let v = try? JSONValue.parse(raw), case .object = v else {
                fail(n, "not a JSON object (a truncated or corrupt line)")
                parsed.append(nil)
                continue
            }
            parsed.append(v)
            if let p = v["placeholder"]?.stringValue, let kind = v["kind"]?.stringValue {
                if let first = definedAt[p] {
                    fail(n, "placeholder \(p) is already defined on line \(first.line)")
                } else {
                    definedAt[p] = (n, kind)
                }
            }
        }

        // Pass 2: each line on its own, then its references.
        var plan = Plan(root: "/")
        for (k, value) in parsed.enumerated() {
            guard let v = value else { continue }
            let n = k + 1
            let kind = v["kind"]?.stringValue ?? ""
            if n == 1 && kind != "header" { fail(n, "the first line must be the header (kind \"header\")"); continue }
            if n > 1 && kind == "header" { fail(n, "a second header"); continue }

            // Clear messages for the mistakes that matter most, before the schema's generic ones.
            var specific: [String] = []
            if kind == "assetCreationRequest" {
                for r in v["resources"]?.arrayValue ?? [] {
                    if let t = r["type"]?.stringValue, !resourceTypes.contains(where: { $0.name == t }) {
                        specific.append("unknown resource type '\(t)' (known: \(resourceTypes.map(\.name).joined(separator: ", ")))")
                    }
                    if let p = r["path"]?.stringValue, let why = pathProblem(p) { specific.append(why) }
                }
            }
            if !specific.isEmpty {
                for s in specific { fail(n, s) }
                continue
            }
            let schemaErrors = schema.validate(v)
            if !schemaErrors.isEmpty {
                fail(n, "does not match the schema: " + schemaErrors.prefix(3).joined(separator: "; "))
                continue
            }
            if kind == "header" {
                if let r = v["root"]?.stringValue { plan.root = r }
                continue
            }
            if let l = v["line"]?.intValue, l != n { fail(n, "the line field says \(l), but this is line \(n)") }
            let placeholder = v["placeholder"]?.stringValue ?? ""

            /// A reference to a placeholder of one of `kinds`, defined on an earlier line.
            func reference(_ p: String, _ what: String, _ kinds: Set<String>) -> Bool {
                guard let d = definedAt[p] else {
                    fail(n, "\(what) \(p) is not defined on any line (a dangling reference)")
                    return false
                }
                if d.line >= n {
                    fail(n, "\(what) \(p) refers to line \(d.line), which is not an earlier line")
                    return false
                }
                if !kinds.contains(d.kind) {
                    fail(n, "\(what) \(p) is a \(d.kind) (line \(d.line)), not a \(kinds.sorted().joined(separator: " or "))")
                    return false
                }
                return true
            }

            switch kind {
            case "assetCreationRequest":
                plan.assets.append(assetLine(v, n, placeholder))
            case "collectionListCreationRequest":
                let parent = v["parent"]?.stringValue
                if let parent, !reference(parent, "parent", ["collectionListCreationRequest"]) { continue }
                plan.lists.append(ListLine(line: n, placeholder: placeholder, title: v["title"]?.stringValue ?? "", parent: parent))
            case "collectionCreationRequest":
                let parent = v["parent"]?.stringValue
                var ok = true
                if let parent, !reference(parent, "parent", ["collectionListCreationRequest"]) { ok = false }
                let members = (v["members"]?.arrayValue ?? []).compactMap(\.stringValue)
                for m in members where !reference(m, "member", ["assetCreationRequest"]) { ok = false }
                if ok {
                    plan.albums.append(AlbumLine(line: n, placeholder: placeholder, title: v["title"]?.stringValue ?? "", parent: parent, members: members))
                }
            default:
                fail(n, "unknown kind '\(kind)'")
            }
        }
        if !issues.isEmpty {
            throw ManifestError(issues: issues.sorted { $0.line < $1.line })
        }
        return plan
    }

    static func assetLine(_ v: JSONValue, _ n: Int, _ placeholder: String) -> AssetLine {
        var resources: [AssetResource] = []
        var hashes: [String?] = []
        for r in v["resources"]?.arrayValue ?? [] {
            let range: ResourceRange? = r["byteRange"].flatMap { b in
                guard let o = b["offset"]?.intValue, let l = b["length"]?.intValue else { return nil }
                return ResourceRange(offset: UInt64(o), length: UInt64(l))
            }
            resources.append(
                AssetResource(
                    type: AssetResourceType(name: r["type"]?.stringValue ?? "") ?? .photo, path: r["path"]?.stringValue ?? "",
                    originalFilename: r["originalFilename"]?.stringValue ?? "", uniformTypeIdentifier: r["uniformTypeIdentifier"]?.stringValue,
                    fileSize: r["fileSize"]?.intValue.map { UInt64($0) }, byteRange: range))
            hashes.append(r["contentHash"]?.stringValue)
        }
        var a = Asset(id: resources.first?.path ?? "", mediaType: MediaType(name: v["mediaType"]?.stringValue ?? "") ?? .unknown)
        var subtypes = MediaSubtypes()
        let names = Set((v["mediaSubtypes"]?.arrayValue ?? []).compactMap(\.stringValue))
        for (bit, name) in MediaSubtypes.named where names.contains(name) { subtypes.insert(bit) }
        a.mediaSubtypes = subtypes
        a.traits = Set((v["traits"]?.arrayValue ?? []).compactMap(\.stringValue).map { Trait($0) })
        a.creationDate = v["creationDate"]?.stringValue.flatMap { AssetDate(iso: $0) }
        if let l = v["location"], let lat = l["latitude"]?.numberValue, let lon = l["longitude"]?.numberValue {
            a.location = Location(latitude: lat, longitude: lon, altitude: l["altitude"]?.numberValue)
        }
        a.isFavorite = v["isFavorite"]?.boolValue ?? false
        a.isHidden = v["isHidden"]?.boolValue ?? false
        a.resources = resources
        // What PhotoKit would derive from the resources and subtypes.
        if a.mediaSubtypes.contains(.photoLive) {
            a.playbackStyle = .livePhoto
        } else if a.mediaSubtypes.contains(.photoAnimation) {
            a.playbackStyle = .imageAnimated
        } else if a.mediaType == .image {
            a.playbackStyle = .image
        } else if a.mediaType == .video {
            a.playbackStyle = .video
        }
        return AssetLine(line: n, placeholder: placeholder, asset: a, hashes: hashes)
    }
}

// MARK: - Catalog side

extension Catalog {
    /// Albums (type 1, not transient) with their live members' local identifiers in position order.
    public func albumsWithMembers() throws(CatalogError) -> [(localIdentifier: String, title: String, members: [String])] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT id, local_identifier, title FROM collection WHERE type = 1 AND transient = 0 ORDER BY title, local_identifier").map { r in
                let members = try String.fetchAll(
                    db,
                    sql: "SELECT a.local_identifier FROM collection_membership m JOIN asset a ON a.id = m.asset_id WHERE m.collection_id = ? AND a.trashed_at IS NULL ORDER BY m.position",
                    arguments: [r["id"] as Int64])
                return (r["local_identifier"], (r["title"] as String?) ?? "", members)
            }
        }
    }

    /// The creation-request manifest for this catalog's assets (all live ones, hidden and every burst frame
    /// included; or those matching `options`' predicate), its albums and its folders. Paths are relative to
    /// `root` (default: the assets' catalog root, which must then be the same for all). With a predicate,
    /// albums keep only members in the manifest, and albums and folders left empty are dropped.
    /// `createdAt` defaults to `SOURCE_DATE_EPOCH` when set (reproducible output, as build tools do), else now;
    /// placeholders derive from the catalog and the objects, so the rest of the manifest is the same bytes
    /// for the same catalog.
    public func creationRequests(matching options: FetchOptions? = nil, root: String? = nil, createdAt: Date = RequestsManifest.defaultCreatedAt()) throws -> CreationRequests {
        var o = options ?? FetchOptions()
        o.includeHiddenAssets = true
        o.includeAllBurstAssets = true
        o.includeTrashed = false
        if o.sortDescriptors.isEmpty { o.sortDescriptors = [SortDescriptor(key: "path")] }
        var assets: [StoredAsset] = []
        try fetchAssets(o).enumerate { _, a in assets.append(a) }

        let base: String
        if let root {
            base = Self.trimSlash(URL(fileURLWithPath: root).standardizedFileURL.path)
        } else {
            let roots = Set(assets.map { Self.trimSlash($0.root) })
            guard roots.count <= 1 else {
                throw RequestsError("the assets come from \(roots.count) roots (\(roots.sorted().joined(separator: ", "))); pass --root DIR, a folder holding them all")
            }
            base = roots.first ?? "/"
        }

        var out = CreationRequests(lines: [], placeholders: [:])
        let catalogID = try catalogID()
        out.lines.append(
            RequestsManifest.line([
                "kind": .string("header"), "version": .int(RequestsManifest.version), "catalogID": .string(catalogID),
                "root": .string(base), "createdAt": .string(ISO8601DateFormatter().string(from: createdAt)),
            ]))
        var placeholderOf: [String: String] = [:]
        for s in assets {
            var resources: [JSONValue] = []
            for (k, r) in s.asset.resources.enumerated() {
                guard RequestsManifest.resourceTypes.contains(r.type) else {
                    throw RequestsError("\(s.asset.id): a \(r.type.name) resource cannot be part of a creation request")
                }
                if let why = RequestsManifest.pathProblem(r.path) { throw RequestsError("\(s.asset.id): \(why)") }
                let abs = Self.trimSlash(s.root) + "/" + r.path
                guard let rel = PathText.relative(abs, to: base) else { throw RequestsError("\(abs) is outside the root \(base)") }
                if let why = RequestsManifest.pathProblem(rel) { throw RequestsError("\(abs): \(why)") }
                let hash = k < s.resourceHashes.count ? s.resourceHashes[k] : nil
                resources.append(
                    .object([
                        "type": .string(r.type.name), "path": .string(rel), "originalFilename": .string(r.originalFilename),
                        "uniformTypeIdentifier": r.uniformTypeIdentifier.map(JSONValue.string) ?? .null,
                        "fileSize": r.fileSize.map { .int(Int64($0)) } ?? .null, "contentHash": hash.map(JSONValue.string) ?? .null,
                        "byteRange": r.byteRange.map { .object(["offset": .int(Int64($0.offset)), "length": .int(Int64($0.length))]) } ?? .null,
                    ]))
            }
            let p = RequestsManifest.placeholder(for: s.localIdentifier, catalogID: catalogID, "001")
            placeholderOf[s.localIdentifier] = p
            out.placeholders[p] = s.localIdentifier
            let a = s.asset
            out.lines.append(
                RequestsManifest.line([
                    "kind": .string("assetCreationRequest"), "line": .int(Int64(out.lines.count + 1)), "placeholder": .string(p),
                    "resources": .array(resources), "creationDate": a.creationDate.map { .string($0.description) } ?? .null,
                    "location": a.location.map {
                        .object(["latitude": .double($0.latitude), "longitude": .double($0.longitude), "altitude": $0.altitude.map(JSONValue.double) ?? .null])
                    } ?? .null,
                    "isFavorite": .bool(a.isFavorite), "isHidden": .bool(a.isHidden), "mediaType": .string(a.mediaType.name),
                    "mediaSubtypes": .array(MediaSubtypes.named.filter { a.mediaSubtypes.contains($0.0) }.map { .string($0.1) }),
                    "traits": .array(a.traits.map(\.rawValue).sorted().map(JSONValue.string)),
                ]))
        }
        out.assetCount = assets.count

        // Albums (members limited to the manifest) and folders.
        let filtered = options != nil
        var albums = try albumsWithMembers().map { a in (a.localIdentifier, a.title, a.members.compactMap { placeholderOf[$0] }) }
        if filtered { albums.removeAll { $0.2.isEmpty } }
        let folders = try collectionLists(type: .folder)
        var parentOf: [String: String] = [:]
        for f in folders { for c in f.children { parentOf[c] = f.localIdentifier } }
        // Folders holding (at any depth) a kept album; without a predicate, every folder.
        var keptFolders = Set<String>()
        if filtered {
            for a in albums {
                var p = parentOf[a.0]
                while let f = p, keptFolders.insert(f).inserted { p = parentOf[f] }
            }
        } else {
            keptFolders = Set(folders.map(\.localIdentifier))
        }
        let folderByID = Dictionary(folders.map { ($0.localIdentifier, $0) }, uniquingKeysWith: { a, _ in a })
        // Parent before child: depth-first from the top-level folders.
        var ordered: [StoredCollectionList] = []
        var visited = Set<String>()
        func visit(_ f: StoredCollectionList) {
            guard keptFolders.contains(f.localIdentifier), visited.insert(f.localIdentifier).inserted else { return }
            ordered.append(f)
            for c in f.children { if let child = folderByID[c] { visit(child) } }
        }
        for f in folders where parentOf[f.localIdentifier].map({ folderByID[$0] == nil }) ?? true { visit(f) }
        for f in folders { visit(f) }  // anything left (a cycle would be a catalog bug): still before albums
        for f in ordered {
            let p = RequestsManifest.placeholder(for: f.localIdentifier, catalogID: catalogID, "010")
            placeholderOf[f.localIdentifier] = p
            out.placeholders[p] = f.localIdentifier
        }
        var emitted = Set<String>()
        for f in ordered {
            // A parent not yet written can only come from a cycle; drop the link rather than point forward.
            let parent = parentOf[f.localIdentifier].flatMap { placeholderOf[$0] }.flatMap { emitted.contains($0) ? $0 : nil }
            emitted.insert(placeholderOf[f.localIdentifier]!)
            out.lines.append(
                RequestsManifest.line([
                    "kind": .string("collectionListCreationRequest"), "line": .int(Int64(out.lines.count + 1)),
                    "placeholder": .string(placeholderOf[f.localIdentifier]!), "title": .string(f.title),
                    "parent": parent.map(JSONValue.string) ?? .null,
                ]))
        }
        out.folderCount = ordered.count
        for a in albums {
            let p = RequestsManifest.placeholder(for: a.0, catalogID: catalogID, "040")
            out.placeholders[p] = a.0
            out.lines.append(
                RequestsManifest.line([
                    "kind": .string("collectionCreationRequest"), "line": .int(Int64(out.lines.count + 1)), "placeholder": .string(p),
                    "title": .string(a.1), "parent": parentOf[a.0].flatMap { placeholderOf[$0] }.map(JSONValue.string) ?? .null,
                    "members": .array(a.2.map(JSONValue.string)),
                ]))
        }
        out.albumCount = albums.count
        return out
    }

    static func trimSlash(_ p: String) -> String {
        var s = p
        while s.count > 1 && s.hasSuffix("/") { s.removeLast() }
        return s
    }

    /// Performs a creation-request manifest (the importer's side) in ONE transaction: every line is checked
    /// first (`RequestsManifest.validate`), and an asset whose primary file is already in the catalog
    /// rejects the whole manifest; on any problem nothing is applied and a `ManifestError` names the lines.
    /// Paths are taken relative to `root` (default: the header's root). Returns the change records.
    @discardableResult
    public func replayCreationRequests(_ text: String, file: String, root: String? = nil) throws -> [ChangeRecord] {
        let plan = try RequestsManifest.plan(text, file: file)
        let base = Self.trimSlash(root ?? plan.root)
        var conflicts: [ManifestIssue] = []
        do {
            return try write { db in
                var records: [ChangeRecord] = []
                var assetRow: [String: Int64] = [:]
                for a in plan.assets {
                    if try Bool.fetchOne(db, sql: "SELECT 1 FROM asset WHERE root = ? AND primary_path = ?", arguments: [base, a.asset.id]) == true {
                        conflicts.append(ManifestIssue(file: file, line: a.line, reason: "\(base)/\(a.asset.id) is already an asset of this catalog"))
                        continue
                    }
                    let slash = a.asset.id.lastIndex(of: "/")
                    let dir = slash.map { base + "/" + a.asset.id[..<$0] } ?? base
                    var input = AssetInput(asset: a.asset, root: base, dir: dir, resourceHashes: a.hashes)
                    input.embeddedVideo = a.asset.resources.first { $0.type == .pairedVideo && $0.byteRange != nil }?.byteRange
                    let (id, lid) = try Self.insert(db, input)
                    try Self.linkFiles(db, assetID: id, input)
                    assetRow[a.placeholder] = id
                    records.append(try Self.record(db, nil, "asset", lid, "inserted", []))
                }
                if !conflicts.isEmpty { throw CatalogError(.sql, "manifest conflicts with the catalog") }
                var listLID: [String: String] = [:]
                var children: [String: [String]] = [:]
                // Folders and albums made by requests are made as a user's are (`by_user`): an organize of
                // this catalog leaves them, as it leaves those made with `shoebox change`.
                for l in plan.lists {
                    let lid = RequestsManifest.newPlaceholder("010")
                    listLID[l.placeholder] = lid
                    if let p = l.parent { children[p, default: []].append(lid) }
                    try db.execute(
                        sql: "INSERT INTO collection_list(local_identifier, type, subtype, title, children, parent_id, by_user) VALUES (?, ?, ?, ?, '', (SELECT id FROM collection_list WHERE local_identifier = ?), 1)",
                        arguments: [lid, CollectionListType.folder.rawValue, CollectionListSubtype.regularFolder.rawValue, l.title, l.parent.flatMap { listLID[$0] }])
                    records.append(try Self.record(db, nil, "collectionList", lid, "inserted", []))
                }
                for c in plan.albums {
                    let lid = RequestsManifest.newPlaceholder("040")
                    if let p = c.parent { children[p, default: []].append(lid) }
                    try db.execute(
                        sql: "INSERT INTO collection(local_identifier, type, subtype, title, list_id, by_user) VALUES (?, ?, ?, ?, (SELECT id FROM collection_list WHERE local_identifier = ?), 1)",
                        arguments: [lid, AssetCollectionType.album.rawValue, AssetCollectionSubtype.albumRegular.rawValue, c.title, c.parent.flatMap { listLID[$0] }])
                    try Self.setMembers(db, db.lastInsertedRowID, c.members.compactMap { assetRow[$0] })
                    records.append(try Self.record(db, nil, "assetCollection", lid, "inserted", []))
                }
                for (p, kids) in children {
                    try db.execute(sql: "UPDATE collection_list SET children = ? WHERE local_identifier = ?", arguments: [kids.joined(separator: "\n"), listLID[p]])
                }
                return records
            }
        } catch {
            if !conflicts.isEmpty { throw ManifestError(issues: conflicts) }
            throw error
        }
    }
}
