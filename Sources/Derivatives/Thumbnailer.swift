import CVips
import Catalog
import Foundation
import PhotoModel

/// Makes thumbnails for catalog assets with libvips (images) and libavcodec (video poster frames).
///
/// Bounded concurrency: at most `concurrency` assets are decoded at once (each libvips pipeline runs on
/// one worker thread and streams its input). An asset that cannot be rendered becomes an error entry;
/// the run goes on.
public struct Thumbnailer: Sendable {
    public struct Failure: Sendable, Equatable, CustomStringConvertible {
        public var path: String
        public var stage: String
        public var reason: String
        public var description: String { "\(path): \(stage): \(reason)" }
    }

    public struct Summary: Sendable {
        public var assets = 0
        /// Files written by this run.
        public var created: [String] = []
        /// Outputs that already existed (skipped).
        public var existing = 0
        /// Assets with nothing to render (audio, no photo/video resource).
        public var unsupported = 0
        public var errors: [Failure] = []

        public init() {}

        /// One asset that could not be rendered.
        public static func failed(path: String, stage: String, reason: String) -> Summary {
            var s = Summary()
            s.assets = 1
            s.errors = [Failure(path: path, stage: stage, reason: reason)]
            return s
        }

        /// Adds another run's counts (several runs over parts of one job: `shoebox report`).
        public mutating func merge(_ o: Summary) {
            assets += o.assets
            created += o.created
            existing += o.existing
            unsupported += o.unsupported
            errors += o.errors
        }
    }

    /// Where a run is, after each asset.
    public struct Progress: Sendable {
        public var assetsDone = 0
        public var assetsTotal = 0
        public var written = 0
        public var existing = 0
        public var errors = 0
        /// Seconds since the run started.
        public var elapsed: Double = 0
    }

    public var request: ThumbnailRequest
    public var concurrency: Int

    /// Runs one asset's render (`path`: its source, for an error row). nil: right here, in the task. The
    /// ingest and `shoebox thumbnails` pass the run's `FileWorkPool`, so a render stuck in libvips or
    /// libavcodec (a file replaced by a FIFO, a hung mount) is abandoned with an error and the run goes on.
    public typealias RenderExecutor = @Sendable (_ path: String, _ render: @escaping @Sendable () -> Summary) async -> Summary
    public var executor: RenderExecutor?

    public init(request: ThumbnailRequest, concurrency: Int? = nil) {
        self.request = request
        let cores = ProcessInfo.processInfo.activeProcessorCount
        self.concurrency = max(1, min(concurrency ?? cores, cores))
    }

    /// Renders every asset; `progress` is called after each one, on the caller's task.
    public func run(assets: FetchResult, progress: ((Progress) -> Void)? = nil) async -> Summary {
        await run(count: assets.count, progress: progress) { i throws(CatalogError) in try assets.object(at: i) }
    }

    public func run(assets: [StoredAsset], progress: ((Progress) -> Void)? = nil) async -> Summary {
        await run(count: assets.count, progress: progress) { i in assets[i] }
    }

    func run(count: Int, progress: ((Progress) -> Void)?, load: (Int) throws(CatalogError) -> StoredAsset) async -> Summary {
        let start = Date()
        var summary = Summary()
        do { try Vips.ensureInitialised() } catch {
            summary.errors.append(Failure(path: "", stage: "thumbnail", reason: error.description))
            return summary
        }
        Self.markOutputDirectory(request.outputDirectory)
        let request = self.request
        let executor = self.executor
        await withTaskGroup(of: Summary.self) { group in
            var next = 0
            // Assets are loaded here, one at a time (a FetchResult's batch cache is not for concurrent
            // use); only the rendering runs in the child tasks.
            func add() {
                let i = next
                next += 1
                let loaded: Result<StoredAsset, CatalogError>
                do { loaded = .success(try load(i)) } catch { loaded = .failure(error) }
                group.addTask {
                    switch loaded {
                    case .success(let asset):
                        let job: @Sendable () -> Summary = {
                            var s = Summary()
                            s.assets = 1
                            Self.render(asset, request, into: &s)
                            return s
                        }
                        guard let executor else { return job() }
                        let path = Self.source(of: asset.asset, version: request.version).map { Self.absolutePath(asset, $0) } ?? asset.asset.id
                        return await executor(path, job)
                    case .failure(let error):
                        var s = Summary()
                        s.assets = 1
                        s.errors.append(Failure(path: "#\(i)", stage: "fetch", reason: "\(error)"))
                        return s
                    }
                }
            }
            while next < count, next < concurrency { add() }
            for await s in group {
                summary.merge(s)
                if next < count { add() }
                progress?(
                    Progress(
                        assetsDone: summary.assets, assetsTotal: count, written: summary.created.count,
                        existing: summary.existing,
                        errors: summary.errors.count, elapsed: Date().timeIntervalSince(start)))
            }
        }
        summary.created.sort()
        return summary
    }

    /// The resource a version reads, by PhotoKit's rules.
    public static func source(of asset: Asset, version: ThumbnailRequest.Version) -> AssetResource? {
        func first(_ t: AssetResourceType) -> AssetResource? { asset.resources.first { $0.type == t } }
        switch asset.mediaType {
        case .image:
            if version == .current, let r = first(.fullSizePhoto) { return r }
            return first(.photo) ?? first(.alternatePhoto)
        case .video:
            if version == .current, let r = first(.fullSizeVideo) { return r }
            return first(.video)
        default:
            return nil
        }
    }

    /// The content hash the catalog stored for `resource` of `stored`.
    static func hash(of resource: AssetResource, in stored: StoredAsset) -> String? {
        guard let i = stored.asset.resources.firstIndex(of: resource), i < stored.resourceHashes.count else { return nil }
        return stored.resourceHashes[i]
    }

    static func absolutePath(_ stored: StoredAsset, _ r: AssetResource) -> String {
        if r.path.hasPrefix("/") { return r.path }
        if stored.root.isEmpty { return r.path }
        return stored.root.hasSuffix("/") ? stored.root + r.path : stored.root + "/" + r.path
    }

    static func render(_ stored: StoredAsset, _ request: ThumbnailRequest, into s: inout Summary) {
        guard let resource = source(of: stored.asset, version: request.version), resource.byteRange == nil else {
            s.unsupported += 1
            return
        }
        let path = absolutePath(stored, resource)
        let fm = FileManager.default
        let sourceHash = hash(of: resource, in: stored)
        let wanted = request.sizes.map {
            ($0, request.outputURL(cloudIdentifier: stored.cloudIdentifier, size: $0, sourceHash: sourceHash))
        }
        let todo = wanted.filter { !fm.fileExists(atPath: $0.1.path) }
        s.existing += wanted.count - todo.count
        guard !todo.isEmpty else { return }
        do {
            if isRAW(resource, in: stored.asset) {
                try renderRAW(path: path, todo: todo, request, into: &s)
                return
            }
            var frame: PosterFrame?
            var memory: FileInMemory?
            if stored.asset.mediaType == .video {
                frame = try PosterFrame.decode(path: path)
            } else {
                // A HEIC libheif 1.15 would refuse for its gain-map references: a patched copy in memory.
                let refused = HEIFCompatibility.references(path: path)
                if !refused.isEmpty { memory = try HEIFCompatibility.patched(path: path, refused) }
            }
            let known =
                resource.type == .photo || resource.type == .video ? (stored.asset.pixelWidth, stored.asset.pixelHeight) : (0, 0)
            try renderSizes(todo, request, source: path, sourceSize: known, into: &s) { size, write throws(DerivativeError) in
                // libvips is lazy: a decoding error shows when `write` pulls the pixels.
                do throws(DerivativeError) {
                    try write(squared(thumbnail(path: path, frame: frame, memory: memory, size: size, request), request))
                } catch {
                    guard frame == nil, request.crop == nil else { throw error }
                    do throws(DerivativeError) {
                        try write(squared(fullDecode(path: path, memory: memory, size: size, request), request))
                    } catch _ { throw error }
                }
            }
        } catch {
            s.errors.append(Failure(path: path, stage: "thumbnail", reason: "\(error)"))
        }
    }

    /// Writes every size of `todo`, largest first. `make` builds one size from the source and hands it to
    /// `write` (which pulls the pixels), so that it can retry another way when decoding fails.
    /// The smaller sizes are shrunk from the largest result, held in memory, instead of decoding the source
    /// again — when that is safe: the largest was not upscaled (`fast`, or the source's known pixel size,
    /// cropped as asked, covers it) and it is at most 4096 pixels (48 MB of RGB).
    static func renderSizes(
        _ todo: [(Int, URL)], _ request: ThumbnailRequest, source: String, sourceSize: (Int, Int), into s: inout Summary,
        make: (Int, (VipsImageRef) throws(DerivativeError) -> Void) throws(DerivativeError) -> Void
    ) throws(DerivativeError) {
        let ordered = todo.sorted { $0.0 > $1.0 }
        guard let largest = ordered.first?.0 else { return }
        var (w, h) = (Double(sourceSize.0), Double(sourceSize.1))
        if let c = request.crop { (w, h) = (w * c.width, h * c.height) }
        let covered = Int((request.mode == .fit ? max(w, h) : min(w, h)).rounded(.down)) >= largest
        let reuse = ordered.count > 1 && largest <= 4096 && (request.resize == .fast || covered)
        var base: VipsImageRef?
        for (size, url) in ordered {
            try FileManager.default.createDirectoryIfNeeded(url.deletingLastPathComponent())
            if let base {
                let (tw, th, crop, sz) = vipsOptions(size, request)
                let image = try Vips.make("vips_thumbnail_image", path: source) {
                    shoebox_vips_thumbnail_image(base.pointer, $0, tw, th, crop, sz)
                }
                try save(image, to: url, source: source, request)
            } else {
                try make(size) { image throws(DerivativeError) in
                    guard reuse else { return try save(image, to: url, source: source, request) }
                    let pixels = try pulled(image)
                    try save(pixels, to: url, source: source, request)
                    base = pixels
                }
            }
            s.created.append(url.path)
        }
    }

    /// The image rendered into memory, to be saved and shrunk again without going back to the source.
    static func pulled(_ image: VipsImageRef) throws(DerivativeError) -> VipsImageRef {
        try Vips.make("vips_image_copy_memory") { out in
            guard let p = shoebox_vips_copy_memory(image.pointer) else { return -1 }
            out.pointee = p
            return 0
        }
    }

    /// A RAW resource: the catalog's type identifier says so (`…raw-image`), or the asset is a RAW and
    /// this is its photo. A RAW+JPEG pair's primary is the JPEG, which libvips reads as any JPEG.
    static func isRAW(_ resource: AssetResource, in asset: Asset) -> Bool {
        if let uti = resource.uniformTypeIdentifier { return uti.hasSuffix("raw-image") }
        return asset.traits.contains(.raw) && resource.type == .photo
    }

    /// libvips has no RAW decoder here: a RAW's thumbnails come from its largest embedded JPEG preview.
    /// A preview too small for a size is refused (one error naming the preview) unless the request is
    /// `fast`, which renders it at its own size; the sizes it can serve are still written.
    static func renderRAW(path: String, todo: [(Int, URL)], _ request: ThumbnailRequest, into s: inout Summary)
        throws(DerivativeError)
    {
        let preview = try RawPreview.largest(path: path)
        let fits = todo.filter { request.resize == .fast || preview.side(for: request.mode) >= $0.0 }
        let refused = todo.filter { !fits.map(\.1).contains($0.1) }.map(\.0)
        let size = preview.orientationToApply >= 5 ? (preview.height, preview.width) : (preview.width, preview.height)
        try renderSizes(fits, request, source: path, sourceSize: size, into: &s) { size, write throws(DerivativeError) in
            // libvips reads the JPEG in place and lazily: the pixels are pulled in here.
            try preview.jpeg.withBytes { buf throws(DerivativeError) in
                try write(squared(rawThumbnail(buf, preview, path: path, size: size, request), request))
            }
        }
        if !refused.isEmpty {
            let sizes = refused.map(String.init).joined(separator: ", ")
            let side = request.mode == .fill ? " (fill needs its short side)" : ""
            throw DerivativeError(
                "RAW embedded preview \(preview.width)×\(preview.height) (\(preview.location)) is smaller than \(sizes)\(side); --resize fast renders it at its own size"
            )
        }
    }

    /// The preview JPEG at `size`: `vips_thumbnail_buffer` (shrink-on-load, the JPEG's own EXIF orientation),
    /// then the RAW's orientation when the JPEG has none. With a crop: decode, orient, crop, resize.
    static func rawThumbnail(
        _ buf: UnsafeRawBufferPointer, _ preview: RawPreview, path: String, size: Int, _ request: ThumbnailRequest
    ) throws(DerivativeError) -> VipsImageRef {
        let (w, h, crop, sz) = vipsOptions(size, request)
        let orientation = Int32(preview.orientationToApply)
        if request.crop == nil {
            let image = try Vips.make("vips_thumbnail_buffer", path: path) {
                shoebox_vips_thumbnail_buffer(UnsafeMutableRawPointer(mutating: buf.baseAddress), buf.count, $0, w, h, crop, sz)
            }
            guard orientation > 1 else { return image }
            return try Vips.make("vips_autorot", path: path) { shoebox_vips_orient(image.pointer, $0, orientation) }
        }
        let opened = try Vips.make("vips_image_new_from_buffer", path: path) { out in
            guard let p = shoebox_vips_open_buffer(buf.baseAddress, buf.count) else { return -1 }
            out.pointee = p
            return 0
        }
        var image = try Vips.make("vips_autorot", path: path) { shoebox_vips_autorot(opened.pointer, $0) }
        if orientation > 1 {
            let src = image
            image = try Vips.make("vips_autorot", path: path) { shoebox_vips_orient(src.pointer, $0, orientation) }
        }
        return try cropAndResize(image, size: size, request)
    }

    /// Target box, crop and size options for libvips' thumbnail calls.
    static func vipsOptions(_ size: Int, _ request: ThumbnailRequest) -> (Int32, Int32, Int32, Int32) {
        let crop = Int32(request.mode == .fill ? VIPS_INTERESTING_CENTRE.rawValue : VIPS_INTERESTING_NONE.rawValue)
        let sz = Int32(request.resize == .exact ? VIPS_SIZE_BOTH.rawValue : VIPS_SIZE_DOWN.rawValue)
        return (Int32(size), Int32(size), crop, sz)
    }

    /// Fill is square even when `fast` left a small source unscaled (libvips then skips the crop).
    /// Also the last step before saving: the picture goes to sRGB.
    static func squared(_ input: VipsImageRef, _ request: ThumbnailRequest) throws(DerivativeError) -> VipsImageRef {
        let image = try Vips.make("vips_icc_transform") { shoebox_vips_to_srgb(input.pointer, $0) }
        guard request.mode == .fill, image.width != image.height else { return image }
        let side = min(image.width, image.height)
        let left = (image.width - side) / 2, top = (image.height - side) / 2
        return try Vips.make("vips_extract_area") {
            shoebox_vips_extract_area(image.pointer, $0, Int32(left), Int32(top), Int32(side), Int32(side))
        }
    }

    static func thumbnail(path: String, frame: PosterFrame?, memory: FileInMemory? = nil, size: Int, _ request: ThumbnailRequest)
        throws(DerivativeError) -> VipsImageRef
    {
        let (w, h, crop, sz) = vipsOptions(size, request)
        if frame == nil, request.crop == nil, let memory {
            let buf = memory.bytes
            return try Vips.make("vips_thumbnail_buffer", path: path) {
                shoebox_vips_thumbnail_buffer(UnsafeMutableRawPointer(mutating: buf.baseAddress), buf.count, $0, w, h, crop, sz)
            }
        }
        if frame == nil, request.crop == nil {
            // The streaming path: shrink-on-load, EXIF auto-rotation, HEIF transforms by libheif. libvips
            // 8.14 may pick a HEIF's embedded thumbnail and then refuse it ("bad image dimensions on
            // decode"): `render` then tries `fullDecode`, and the first error is the one reported.
            // (libvips is lazy: the failure shows when the pixels are pulled, in the save.)
            return try Vips.make("vips_thumbnail", path: path) { shoebox_vips_thumbnail(path, $0, w, h, crop, sz) }
        }
        return try fullDecode(path: path, frame: frame, memory: memory, size: size, request)
    }

    /// Decode the whole picture (a file, or a video frame), orient, crop, then resize.
    static func fullDecode(
        path: String, frame: PosterFrame? = nil, memory: FileInMemory? = nil, size: Int, _ request: ThumbnailRequest
    ) throws(DerivativeError) -> VipsImageRef {
        var image: VipsImageRef
        if let frame {
            // libvips copies the pixels, so no pointer outlives the closure.
            let copied = frame.rgb.withUnsafeBytes { buf in
                vips_image_new_from_memory_copy(
                    buf.baseAddress, buf.count, Int32(frame.width), Int32(frame.height), 3, VIPS_FORMAT_UCHAR)
            }
            guard let copied else { throw DerivativeError(Vips.errorText(), function: "vips_image_new_from_memory_copy") }
            image = VipsImageRef(copied)
            if frame.clockwiseRotation != 0 {
                let angle: VipsAngle =
                    frame.clockwiseRotation == 90
                    ? VIPS_ANGLE_D90 : frame.clockwiseRotation == 180 ? VIPS_ANGLE_D180 : VIPS_ANGLE_D270
                let src = image
                image = try Vips.make("vips_rot") { shoebox_vips_rot(src.pointer, $0, Int32(angle.rawValue)) }
            }
        } else {
            let opened = try Vips.make(memory == nil ? "vips_image_new_from_file" : "vips_image_new_from_buffer", path: path) { out in
                let buf = memory?.bytes
                guard let p = buf.map({ shoebox_vips_open_buffer($0.baseAddress, $0.count) }) ?? shoebox_vips_open(path) else {
                    return -1
                }
                out.pointee = p
                return 0
            }
            image = try Vips.make("vips_autorot", path: path) { shoebox_vips_autorot(opened.pointer, $0) }
        }
        return try cropAndResize(image, size: size, request)
    }

    /// The request's crop (in the oriented picture), then the resize to `size`.
    static func cropAndResize(_ oriented: VipsImageRef, size: Int, _ request: ThumbnailRequest) throws(DerivativeError)
        -> VipsImageRef
    {
        let (w, h, crop, sz) = vipsOptions(size, request)
        var image = oriented
        if let c = request.crop {
            let iw = Double(image.width), ih = Double(image.height)
            let left = min(Int((c.x * iw).rounded()), image.width - 1), top = min(Int((c.y * ih).rounded()), image.height - 1)
            let cw = max(1, min(Int((c.width * iw).rounded()), image.width - left))
            let ch = max(1, min(Int((c.height * ih).rounded()), image.height - top))
            let src = image
            image = try Vips.make("vips_extract_area") {
                shoebox_vips_extract_area(src.pointer, $0, Int32(left), Int32(top), Int32(cw), Int32(ch))
            }
        }
        let src = image
        return try Vips.make("vips_thumbnail_image") { shoebox_vips_thumbnail_image(src.pointer, $0, w, h, crop, sz) }
    }

    /// Writes to a temporary name beside the target and puts it in place (`OutputFile.place`: renamed, or
    /// copied through a link), so an interrupted run never leaves a partial file that a re-run would skip.
    static func save(_ image: VipsImageRef, to url: URL, source: String, _ request: ThumbnailRequest) throws(DerivativeError) {
        let tmp = OutputFile.temporaryPath(beside: url.path)
        let q = Int32(request.quality)
        let rc: Int32
        let function: String
        switch request.format {
        case .jpeg: rc = shoebox_vips_jpegsave(image.pointer, tmp, q); function = "vips_jpegsave"
        case .webp: rc = shoebox_vips_webpsave(image.pointer, tmp, q); function = "vips_webpsave"
        case .heic: rc = shoebox_vips_heifsave(image.pointer, tmp, q); function = "vips_heifsave"
        }
        if rc != 0 {
            unlink(tmp)
            throw DerivativeError(Vips.errorText(path: source), function: function)
        }
        do { try OutputFile.place(tmp, at: url.path) } catch {
            throw DerivativeError(error.message, function: error.function ?? "rename")
        }
    }
}

extension [UInt8] {
    /// `withUnsafeBytes` for a body that throws a `DerivativeError`.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(DerivativeError) -> R) throws(DerivativeError) -> R {
        let result: Result<R, DerivativeError> = withUnsafeBytes { buf in
            Result { () throws(DerivativeError) -> R in try body(buf) }
        }
        return try result.get()
    }
}

extension FileManager {
    func createDirectoryIfNeeded(_ url: URL) throws(DerivativeError) {
        do { try createDirectory(at: url, withIntermediateDirectories: true) } catch {
            throw DerivativeError("cannot create \(url.path): \(error.localizedDescription)", function: "mkdir")
        }
    }
}

extension Thumbnailer {
    /// The marker file left in a thumbnail folder, so that an ingest never takes our output for photos
    /// wherever the folder sits (the same name as `Pipeline.OwnFiles.thumbnailMarker`).
    public static let outputMarker = ".shoebox-thumbnails"

    /// Creates the output folder when needed and leaves the marker in it (best effort: a folder we cannot
    /// write fails later with a clear error per thumbnail).
    static func markOutputDirectory(_ dir: URL) {
        let marker = dir.appendingPathComponent(outputMarker).path
        guard access(marker, F_OK) != 0 else { return }
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try? OutputFile.write(Data("Thumbnails written by Shoebox. Shoebox never ingests this folder.\n".utf8), to: marker)
    }
}
