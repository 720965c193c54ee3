/// Options for a probe.
public struct ProbeOptions: Sendable, Equatable {
    /// Ask libheif to decode the primary image, not only to open it (slow on large HEICs).
    public var verifyHEIFDecode = false
    /// Cross-check movies with libavformat.
    public var useLibavformat = true
    /// Confirm HEIFs open with libheif.
    public var useLibheif = true
    /// Also open QuickTime/MP4 movies with libavformat to cross-check our box reading (formats without a
    /// box reader — AVI, Matroska, MPEG-TS — always use it).
    public var crossCheckMovies = true

    public init(verifyHEIFDecode: Bool = false, useLibavformat: Bool = true, useLibheif: Bool = true, crossCheckMovies: Bool = true) {
        self.verifyHEIFDecode = verifyHEIFDecode
        self.useLibavformat = useLibavformat
        self.useLibheif = useLibheif
        self.crossCheckMovies = crossCheckMovies
    }

    /// The metadata-only ingest profile: our own readers only, no libheif open and no libavformat
    /// cross-check of movies our box reader understood (their facts are the same; see `docs/architecture.md`).
    public static let metadataOnly = ProbeOptions(useLibheif: false, crossCheckMovies: false)
}

/// `path → ProbeReport`: facts only, every fact tagged with where it came from.
///
/// Never throws and never crashes on bad input: a file that cannot be read yields a report whose
/// `issues` name the stage and the reason. Safe to call from many tasks at once.
public struct Prober: Sendable {
    public var options: ProbeOptions

    public init(options: ProbeOptions = ProbeOptions()) { self.options = options }

    /// Largest metadata block (EXIF, XMP) read into memory.
    static let maxMetadataBlock = 16 << 20

    /// The version of the facts this probe writes. Bump it when a reader learns to read more (or reads
    /// differently): the catalog probes files whose stored facts carry an older version again.
    /// 2: MPEG-TS streams come from `MPEGTSReader` (values as libavformat's; `format.reader` and the pixel
    /// size's source name it).
    /// 3: AVI streams come from `AVIStreamReader` (values as libavformat's; `format.reader` names it), and
    /// its header tags (IDIT, INFO, Nikon ncdt) are sourced as "AVI header tag".
    /// 4: an EXIF date's source names the tags it was made of (`EXIF DateTimeOriginal (libexif)` for a date
    /// without sub-seconds or offset, where every date named all three).
    public static let version = 4

    /// Probes a file. With a `deadline`, reads (ours and libavformat's) stop once it passes and the report
    /// carries a `timed-out` error.
    public func probe(path: String, deadline: Deadline? = nil) -> ProbeReport {
        probe(path: path, deadline: deadline, hash: nil).report
    }

    /// Probes a file and, with a `mode`, hashes it when it is media (a known kind, not skipped, not timed
    /// out) through the same open file: one open, and the probe reads headers and tails only, so the hash
    /// is the one pass over the file's bytes. `seen`: what the caller's `stat` of the path just said
    /// (`FileSource.init`).
    public func probe(path: String, deadline: Deadline? = nil, hash mode: HashMode?, seen: FileSource.Seen? = nil) -> (
        report: ProbeReport, hash: String?
    ) {
        let source: FileSource
        do {
            source = try FileSource(path: path, deadline: deadline, seen: seen)
        } catch {
            var r = ProbeReport(path: path, fileSize: 0, kind: .unknown)
            r.fail(.open, error.description)
            return (r, nil)
        }
        var ctx = ProbeContext(source: source, path: path, options: options, onDisk: true)
        ctx.deadline = deadline
        ctx.run()
        var r = ctx.report
        r.fileModified = FileDate(local: FileDate.utcText(source.modificationTime), offsetSeconds: 0)
        guard let mode, Self.isHashed(r) else { return (r, nil) }
        return (r, try? ContentHasher.hash(source, mode: mode))
    }

    /// Whether a probe with a hash mode hashes the file its report is of: media (a known kind, not skipped),
    /// not timed out.
    public static func isHashed(_ r: ProbeReport) -> Bool {
        let timedOut = r.issues.contains { $0.severity == .error && $0.reason.hasPrefix(ProbeError.Code.timedOut.rawValue) }
        return r.notMedia == nil && !timedOut && r.kind != .unknown && r.kind != .empty
    }

    /// Probes bytes from any source. `onDisk` allows the C libraries (which open the path themselves).
    public func probe(source: any ByteSource, path: String, onDisk: Bool = false) -> ProbeReport {
        var ctx = ProbeContext(source: source, path: path, options: options, onDisk: onDisk)
        ctx.run()
        return ctx.report
    }
}

/// One probe in progress.
struct ProbeContext {
    let source: any ByteSource
    let path: String
    let options: ProbeOptions
    let onDisk: Bool
    var report: ProbeReport
    var deadline: Deadline?

    /// The path's last component (a file's path has no trailing slash).
    var fileName: String {
        path.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(path[path.utf8.index(after: $0)...]) } ?? path
    }

    init(source: any ByteSource, path: String, options: ProbeOptions, onDisk: Bool) {
        self.source = source
        self.path = path
        self.options = options
        self.onDisk = onDisk
        self.report = ProbeReport(path: path, fileSize: source.size, kind: .unknown)
    }

    mutating func run() {
        let header: [UInt8]
        do {
            header = try source.read(at: 0, count: Sniffer.headerSize)
        } catch {
            report.fail(.open, error.description)
            return
        }
        var kind = Sniffer.sniff(header, fileSize: source.size)
        report.kind = kind
        let name = fileName
        if NotMediaRule.isSystemFile(name) {
            report.notMedia = NotMediaRule.classify(name: name, empty: kind == .empty)
            report.kind = .unknown
            return
        }
        switch kind {
        case .empty:
            if let skip = NotMediaRule.classify(name: name, empty: true) {
                report.notMedia = skip
                return
            }
            report.fail(.sniff, "empty file (0 bytes)")
            return
        case .unknown:
            if let skip = NotMediaRule.classify(name: name, empty: false) {
                report.notMedia = skip
                return
            }
            report.fail(.sniff, "unrecognised content (first bytes \(hex(header.prefix(8)))); not a supported image, video or sidecar")
            checkExtension()
            return
        default: break
        }

        switch kind {
        case .jpeg: readJPEG(source, container: "JPEG")
        case .png: readPNG()
        case .gif: readGIF()
        case .webp: readWebP()
        case .raf: readRAF()
        case .bmp, .psd, .jp2, .j2k, .jxl, .ico, .tga, .pnm: readStill(kind)
        case .mp3, .wav, .aiff:
            if kind == .wav { checkRIFFSize() }
            readWithLibavformat(analyze: true)  // an MP3's duration needs the stream analysed
        case _ where kind.isTIFFBased: kind = readTIFF()
        case _ where kind.isBMFF: readBMFF()
        case .avi, .matroska, .webm, .mpegTS:
            checkRIFFSize()
            if kind == .avi { readAVIHeader() }
            if kind == .mpegTS, let m = AVCHDReader.read(source) {
                if let d = m.date { report.dates.avchd = Sourced(d, "H.264 SEI MDPM recording time (AVCHD)") }
                if let s = m.make { report.camera.make = Sourced(s, "H.264 SEI MDPM 0xE0 maker code (AVCHD)") }
                if let s = m.model { report.camera.model = Sourced(s, "H.264 SEI MDPM 0xE4–0xEB model name (AVCHD)") }
            }
            switch kind {
            case .mpegTS: readOwnStreams(MPEGTSReader.read(source), reader: MPEGTSReader.name)
            case .avi: readOwnStreams(AVIStreamReader.read(source), reader: AVIStreamReader.name, tagSource: "AVI header tag")
            default: readWithLibavformat(analyze: true)
            }
        case .xmp:
            attempt(.xmp) { (c: inout ProbeContext) throws(ProbeError) in
                let bytes = try c.source.read(ByteRange(offset: 0, length: c.source.size), limit: Prober.maxMetadataBlock, what: "XMP sidecar")
                c.applyXMP(bytes, source: "XMP sidecar")
            }
        case .aae:
            attempt(.sidecar) { (c: inout ProbeContext) throws(ProbeError) in
                let bytes = try c.source.read(ByteRange(offset: 0, length: c.source.size), limit: AAEReader.maxFileSize, what: "AAE sidecar")
                c.report.adjustments = try AAEReader.read(bytes)
            }
        case .json:
            if header.starts(with: Array(#"{"kind":"header","version":"#.utf8)), header.firstRange(of: Array(#""catalogID":"#.utf8)) != nil {
                report.notMedia = NotMedia(category: NotMedia.shoebox, reason: "a creation-request manifest written by 'shoebox requests'")
                report.kind = .unknown
                return
            }
            do {
                let bytes = try source.read(ByteRange(offset: 0, length: source.size), limit: TakeoutReader.maxFileSize, what: "JSON sidecar")
                report.takeout = try TakeoutReader.read(bytes, fileName: name)
            } catch {
                // JSON that is not a Takeout sidecar is not ours to read; a Takeout-named file that does
                // not parse is a sidecar we failed to read.
                if error.code == .notTakeout || !NotMediaRule.looksLikeTakeoutSidecar(name) {
                    let category = NotMediaRule.category(ofName: name)
                    report.notMedia = NotMedia(category: category, reason: "not a Takeout sidecar (\(error.message))")
                    report.kind = .unknown
                    return
                }
                report.fail(.sidecar, error.description)
            }
        default: break
        }
        report.kind = kind
        locateMotionPhoto()
        fillLocationFromXMP()
        fillPixelSize()
        requirePrimaryContent()
        checkExtension()
    }

    /// A file that claims to be an image or a movie but whose container does not lead to a primary image
    /// (no frame header, no primary item, no size) or to a playable track is an error: it is not an asset.
    mutating func requirePrimaryContent() {
        guard !report.issues.contains(where: { $0.severity == .error }) else { return }
        let kind = report.kind
        // A RAW's structure (IFD0, the RAF header, CR3 boxes) is its primary image even when no size is
        // recorded; its reader reports a structure it cannot walk as an error already.
        if kind.isImage, !kind.isRAW {
            let w = report.pixelWidth?.value ?? 0, h = report.pixelHeight?.value ?? 0
            if w <= 0 || h <= 0 {
                if kind == .jpeg, report.jpeg?.hasImageBody == true { return }  // damaged: data without a frame header
                let what = kind == .heic || kind == .avif ? "no primary item with a size ('pitm' + 'ispe')" : "no image size in the container"
                report.fail(kind.isBMFF ? .heif : .sniff, "\(what): not a decodable image")
            } else if let g = report.gif, g.frameCount == 0 {
                report.fail(.gif, "no image data after the GIF header: not a decodable image")
            }
        } else if kind.isVideo, report.quickTime != nil {
            let tracks = report.quickTime?.tracks ?? []
            let playable = tracks.contains { ($0.handler == "vide" || $0.handler == "soun") && $0.sampleEntry != nil }
            let streams = report.streams.contains { $0.type == "video" || $0.type == "audio" }
            if !playable && !streams {
                report.fail(.bmff, "no video or audio track with a sample description: nothing to play")
            }
        }
    }

    // MARK: - Families

    mutating func readJPEG(_ src: any ByteSource, container: String) {
        attempt(.jpeg) { (c: inout ProbeContext) throws(ProbeError) in
            let r = try JPEGReader.read(src)
            for w in r.warnings { c.report.warn(.jpeg, w) }
            for d in r.damage { c.report.damage(.jpeg, d) }
            c.report.jpeg = r.facts
            if let range = r.facts.exifRange {
                c.attempt(.exif) { (c: inout ProbeContext) throws(ProbeError) in
                    let block = try src.read(range, limit: Prober.maxMetadataBlock, what: "APP1 Exif segment")
                    try c.applyExif(block, container: "\(container) APP1")
                }
            }
            if let xmp = r.xmpPacket { c.applyXMP(xmp, source: "\(container) APP1 XMP") }
            if let range = r.facts.photoshopRange, let b = try? src.read(range, limit: Prober.maxMetadataBlock, what: "APP13") {
                c.applyPhotoshopResources(b, source: "\(container) APP13 Photoshop 3.0")
            }
            if container == "JPEG", r.facts.width == nil {
                if r.facts.hasImageBody {
                    // Image data is there (Photos imports such a file), but its size is unknown.
                    let at = r.facts.scanOffset.map { "before the scan at offset \($0)" } ?? "before the end of image at \(r.facts.endOfImage ?? 0)"
                    c.report.damage(.jpeg, "no readable frame header (SOF0–SOF15) \(at): the image's size is unknown")
                } else {
                    c.report.fail(.jpeg, "no frame header (SOF0–SOF15) and no scan before the end of the segments: not a decodable image")
                }
            }
        }
        if report.kind == .jpeg {
            attempt(.jpeg) { (c: inout ProbeContext) throws(ProbeError) in
                c.report.samsungTrailer = try SamsungTrailerReader.read(c.source)
                for w in c.report.samsungTrailer?.warnings ?? [] { c.report.warn(.jpeg, "Samsung trailer: \(w)") }
            }
        }
    }

    mutating func readPNG() {
        attempt(.png) { (c: inout ProbeContext) throws(ProbeError) in
            let r = try PNGReader.read(c.source)
            for w in r.warnings { c.report.warn(.png, w) }
            for d in r.damage { c.report.damage(.png, d) }
            c.report.png = r.facts
            if let range = r.facts.exifRange {
                c.attempt(.exif) { (c: inout ProbeContext) throws(ProbeError) in
                    let block = try c.source.read(range, limit: Prober.maxMetadataBlock, what: "PNG eXIf chunk")
                    try c.applyExif(block, container: "PNG eXIf")
                }
            }
            if let xmp = r.xmpPacket { c.applyXMP(xmp, source: "PNG iTXt XML:com.adobe.xmp") }
        }
    }

    mutating func readGIF() {
        attempt(.gif) { (c: inout ProbeContext) throws(ProbeError) in
            let g = try GIFReader.read(c.source)
            for w in g.warnings { c.report.warn(.gif, w) }
            for d in g.damage { c.report.damage(.gif, d) }
            c.report.gif = g
        }
    }

    /// A RIFF file (AVI, WebP) declares its size in its header; a shorter file was cut.
    mutating func checkRIFFSize() {
        guard let h = try? source.read(at: 0, count: 12), h.count == 12, h.matches("RIFF"),
            let declared = BinaryReader.uint(h, at: 4, size: 4, bigEndian: false)
        else { return }
        if declared + 8 > source.size {
            report.damage(.sniff, "truncated: the RIFF header declares \(declared + 8) bytes, the file has \(source.size)")
        }
    }

    mutating func readWebP() {
        checkRIFFSize()
        attempt(.webp) { (c: inout ProbeContext) throws(ProbeError) in
            let r = try WebPReader.read(c.source)
            for w in r.warnings { c.report.warn(.webp, w) }
            for d in r.damage { c.report.damage(.webp, d) }
            c.report.webp = r.facts
            if let range = r.facts.exifRange {
                c.attempt(.exif) { (c: inout ProbeContext) throws(ProbeError) in
                    let block = try c.source.read(range, limit: Prober.maxMetadataBlock, what: "WebP EXIF chunk")
                    try c.applyExif(block, container: "WebP EXIF")
                }
            }
            if let xmp = r.xmpPacket { c.applyXMP(xmp, source: "WebP XMP chunk") }
        }
    }

    /// TIFF-based RAW or TIFF: the directories walked where they are (`TIFFDirectories`), the kind refined
    /// by structure, libexif on a compact block of IFD0/Exif/GPS/Interop, then XMP, IPTC and the size.
    mutating func readTIFF() -> ContainerKind {
        var kind = report.kind
        let dirs = walkTIFFDirectories()
        if kind == .tiff, let dirs { kind = dirs.refinedKind }
        report.kind = kind
        // Before libexif, so that a block it refuses costs no size, XMP or IPTC (and its IFD0 size does not
        // replace the main image's).
        if let dirs { applyTIFFDirectories(dirs, kind: kind) }
        attempt(.tiff) { (c: inout ProbeContext) throws(ProbeError) in
            // The first 64 KiB as they are (a BigTIFF: the classic block written from its IFDs), for the
            // truncation checks and Panasonic's embedded JPEG below.
            let written = dirs?.exifBlock().block
            var block = try dirs?.isBigTIFF == true ? written ?? [] : c.source.read(at: 0, count: ExifReader.maxBlock - 6)
            // Panasonic (IIU) and Olympus (IIRO/IIRS) use their own magic numbers in an otherwise
            // standard TIFF header; libexif wants 42.
            if block.count >= 4, block[0] == 0x49, block[1] == 0x49, block[2] != 0x2A {
                block[2] = 0x2A
                block[3] = 0
            }
            let r = try c.applyExif(written ?? block, container: "TIFF header")
            if let end = r.dataEnd, end > c.source.size {
                c.report.damage(.tiff, "truncated: image data referenced by IFD0/IFD1 ends at byte \(end), the file has \(c.source.size)")
            }
            if let overrun = RawTIFF.ifd0Overrun(block, fileSize: c.source.size) {
                c.report.damage(.tiff, "truncated: \(overrun), the file has \(c.source.size) bytes")
            }
            if let end = RawTIFF.subIFDDataEnd(block, fileSize: c.source.size), end > c.source.size {
                c.report.damage(.tiff, "truncated: raw image data referenced by a SubIFD ends at byte \(end), the file has \(c.source.size)")
            }
            // Panasonic keeps its full Exif in an embedded JPEG.
            if let jpg = RawTIFF.embeddedJPEG(block), jpg.end <= c.source.size {
                c.readJPEG(SliceSource(base: c.source, range: jpg), container: "RW2 JpgFromRaw")
                c.report.jpeg = nil
            }
            // A RAW without a full-resolution IFD of its own (CR2, RW2, ORF): the Exif size.
            if kind.isRAW, dirs?.rawSize == nil, let w = c.report.exif?.exifPixelWidth, let h = c.report.exif?.exifPixelHeight, w.value > 0,
                h.value > 0
            {
                c.report.pixelWidth = w
                c.report.pixelHeight = h
            }
        }
        if kind == .tiff, isDNGFlag { kind = .dng }
        return kind
    }

    /// Set by `applyExif` when IFD0 carries DNGVersion.
    var isDNGFlag = false

    /// Fujifilm RAF: a header pointing at an embedded JPEG that carries the EXIF.
    mutating func readRAF() {
        attempt(.jpeg) { (c: inout ProbeContext) throws(ProbeError) in
            let h = try c.source.readExactly(at: 84, count: 8, what: "RAF header JPEG pointer")
            let off = BinaryReader.uint(h, at: 0, size: 4, bigEndian: true) ?? 0
            let len = BinaryReader.uint(h, at: 4, size: 4, bigEndian: true) ?? 0
            guard off > 0, len > 0, off + len <= c.source.size else {
                throw ProbeError(.malformed, "RAF embedded JPEG at \(off) length \(len) lies outside the file")
            }
            let slice = SliceSource(base: c.source, range: ByteRange(offset: off, length: len))
            c.readJPEG(slice, container: "RAF embedded JPEG")
            c.report.jpeg = nil  // the preview's size is not the RAW's
            if let w = c.report.exif?.exifPixelWidth, let h = c.report.exif?.exifPixelHeight {
                c.report.pixelWidth = w
                c.report.pixelHeight = h
            }
        }
    }

    mutating func readBMFF() {
        attempt(.bmff) { (c: inout ProbeContext) throws(ProbeError) in
            let r = try BMFFReader.read(c.source)
            for w in r.warnings { c.report.warn(.bmff, w) }
            for d in r.damage { c.report.damage(.bmff, d) }
            c.report.brands = r.brands
            if !r.brands.isEmpty { c.report.kind = Sniffer.kind(forBrands: r.brands) }
            c.report.quickTime = r.quickTime
            c.report.heif = r.heif
            if let heif = r.heif {
                if let range = heif.exifRange {
                    c.attempt(.exif) { (c: inout ProbeContext) throws(ProbeError) in
                        let block = try c.source.read(range, limit: Prober.maxMetadataBlock, what: "HEIF Exif item")
                        try c.applyExif(block, container: "HEIF Exif item")
                    }
                }
                if let range = heif.xmpRange {
                    c.attempt(.xmp) { (c: inout ProbeContext) throws(ProbeError) in
                        let block = try c.source.read(range, limit: Prober.maxMetadataBlock, what: "HEIF XMP item")
                        c.applyXMP(block, source: "HEIF XMP item")
                    }
                }
            }
            // CR3: CMT1 is IFD0, CMT2 the Exif IFD, CMT4 the GPS IFD, each as its own TIFF.
            let roles: [(String, ExifReader.FirstIFD)] = [("CMT1", .ifd0), ("CMT2", .exif), ("CMT4", .gps)]
            for (range, role) in zip(r.tiffBlocks, roles) {
                c.attempt(.exif) { (c: inout ProbeContext) throws(ProbeError) in
                    let block = try c.source.read(range, limit: ExifReader.maxBlock - 6, what: "CR3 \(role.0) TIFF block")
                    try c.applyExif(block, container: "CR3 \(role.0)", firstIFD: role.1)
                }
            }
            if let qt = r.quickTime { c.applyQuickTime(qt) }
        }
        if report.kind == .heic || report.kind == .avif {
            attempt(.jpeg) { (c: inout ProbeContext) throws(ProbeError) in
                c.report.samsungTrailer = try SamsungTrailerReader.read(c.source)
            }
            if options.useLibheif, onDisk, !(deadline?.hasPassed ?? false) {
                do {
                    let note = try HEIFDecodeCheck.check(path: path, decode: options.verifyHEIFDecode)
                    report.heifDecodes = Sourced(true, note)
                } catch {
                    report.heifDecodes = Sourced(false, "libheif 1.15: \(error.description)")
                    report.warn(.libheif, "libheif 1.15 cannot read this file (\(error.description)); metadata comes from our own reader")
                }
            }
        } else if report.kind.isVideo, options.crossCheckMovies || report.quickTime?.videoTrack == nil {
            readWithLibavformat(analyze: false)
        }
        if report.kind.isVideo, report.quickTime?.tracks.isEmpty ?? true, report.streams.isEmpty,
            !report.issues.contains(where: { $0.severity == .error })
        {
            report.fail(.bmff, "no track in the movie (no readable moov/trak): nothing to play")
        }
    }

    /// A file's streams from one of our container readers (`MPEGTSReader`, `AVIStreamReader`), with
    /// libavformat as the cross-check when asked for and as the reader of whatever ours does not cover.
    /// `tagSource`: the container's tags (creation time, make, model) are facts too, named so.
    mutating func readOwnStreams(_ reading: MPEGTSReader.Reading, reader: String, tagSource: String? = nil) {
        guard case .facts(var format, let streams) = reading else {
            readWithLibavformat(analyze: true)
            return
        }
        format.reader = reader
        report.format = format
        report.streams = streams
        if let tagSource { applyFormatTags(format, source: tagSource) }
        guard options.crossCheckMovies, options.useLibavformat, onDisk, !(deadline?.hasPassed ?? false),
            let theirs = try? AVProbe.probe(path: path, analyze: true, deadline: deadline)
        else { return }
        for difference in MPEGTSReader.differences((format, streams), theirs) {
            report.warn(.libavformat, "\(difference) (reference: libavformat 5.1 on the same file)")
        }
    }

    mutating func readWithLibavformat(analyze: Bool) {
        guard options.useLibavformat, onDisk, !(deadline?.hasPassed ?? false) else { return }
        do {
            let r = try AVProbe.probe(path: path, analyze: analyze, deadline: deadline)
            report.format = r.format
            report.streams = r.streams
            crossCheckStreams()
            if report.quickTime == nil { applyFormatTags(r.format) }
        } catch {
            let stage: ProbeStage = .libavformat
            if report.quickTime == nil {
                report.fail(stage, error.description)
            } else {
                report.warn(stage, "\(error.description); facts come from our own box reader")
            }
        }
    }

    // MARK: - Metadata blocks

    @discardableResult
    mutating func applyExif(_ block: [UInt8], container: String, firstIFD: ExifReader.FirstIFD = .ifd0) throws(ProbeError)
        -> ExifReading
    {
        // libexif quietly stops at an IFD that points back at one already read; we say so.
        let loops = TIFFReader.loops(in: block)
        if !loops.isEmpty {
            // A loop out of the Interop IFD or IFD1 (the thumbnail) costs no fact: IFD0, Exif and GPS were read.
            if loops.allSatisfy({ $0.hasPrefix("interop") || $0.hasPrefix("ifd1") }) {
                report.warn(.exif, "\(container): IFD offset loop (\(loops.joined(separator: ", "))); IFD0, Exif and GPS were read, the loop is not followed")
            } else {
                report.fail(.exif, "\(container): IFD offset loop (\(loops.joined(separator: ", "))); entries after the loop are not read")
            }
        }
        let r = try ExifReader.read(block, container: container, firstIFD: firstIFD)
        isDNGFlag = isDNGFlag || r.isDNG
        if report.exif == nil { report.exif = r.exif } else { mergeExif(r.exif) }
        report.camera.make = report.camera.make ?? r.camera.make
        report.camera.model = report.camera.model ?? r.camera.model
        report.camera.software = report.camera.software ?? r.camera.software
        report.camera.lensMake = report.camera.lensMake ?? r.camera.lensMake
        report.camera.lensModel = report.camera.lensModel ?? r.camera.lensModel
        report.orientation = report.orientation ?? r.orientation
        report.location = report.location ?? r.location
        report.dates.original = report.dates.original ?? r.dates.original
        report.dates.digitized = report.dates.digitized ?? r.dates.digitized
        report.dates.modified = report.dates.modified ?? r.dates.modified
        report.dates.gps = report.dates.gps ?? r.dates.gps
        if report.kind.isTIFFBased, report.pixelWidth == nil, let w = r.imageWidth, let h = r.imageHeight {
            report.pixelWidth = w  // a plain TIFF's size; RAWs are refined in readTIFF
            report.pixelHeight = h
        }
        if report.kind == .cr3, let w = r.exif.exifPixelWidth, let h = r.exif.exifPixelHeight {
            report.pixelWidth = report.pixelWidth ?? w
            report.pixelHeight = report.pixelHeight ?? h
        }
        if let mn = r.makerNote, AppleMakerNoteReader.isAppleMakerNote(mn), report.apple == nil {
            do {
                report.apple = try AppleMakerNoteReader.parse(mn)
            } catch {
                report.warn(.makerNote, "Apple maker note in \(container): \(error.description)")
            }
        }
        return r
    }

    mutating func mergeExif(_ e: ExifFacts) {
        guard var x = report.exif else { return }
        x.customRendered = x.customRendered ?? e.customRendered
        x.userComment = x.userComment ?? e.userComment
        x.imageUniqueID = x.imageUniqueID ?? e.imageUniqueID
        x.exifPixelWidth = x.exifPixelWidth ?? e.exifPixelWidth
        x.exifPixelHeight = x.exifPixelHeight ?? e.exifPixelHeight
        x.imageDescription = x.imageDescription ?? e.imageDescription
        x.focalLengthIn35mm = x.focalLengthIn35mm ?? e.focalLengthIn35mm
        x.makerNoteSize = x.makerNoteSize ?? e.makerNoteSize
        report.exif = x
    }

    mutating func applyXMP(_ packet: [UInt8], source: String) {
        let x = XMPReader.parse(packet, source: source)
        guard x.declaredEntities == 0 else {
            report.fail(.xmp, "\(source): the packet declares \(x.declaredEntities) XML entities in a DOCTYPE (the billion-laughs pattern); not expanded, and none of its fields are used")
            return
        }
        if var existing = report.xmp {
            existing.fields.merge(x.fields) { old, _ in old }
            if existing.directory.isEmpty { existing.directory = x.directory }
            report.xmp = existing
        } else {
            report.xmp = x
        }
        if report.dates.xmpCreation == nil {
            // The first full date-time in this order, else the first date of reduced precision.
            var partial: Sourced<FileDate>?
            for key in ["exif:DateTimeOriginal", "photoshop:DateCreated", "xmp:CreateDate"] {
                guard let v = x[key] else { continue }
                guard let d = XMPDate.parse(v) else {
                    report.warn(.xmp, "XMP \(key) (\(source)) \"\(v.prefix(64))\" is not an XMP date (YYYY[-MM[-DD[Thh:mm[:ss[.s]][TZD]]]]); ignored")
                    continue
                }
                let found = Sourced(d.date, "XMP \(key)\(d.precision) (\(source))")
                if d.precision.isEmpty {
                    report.dates.xmpCreation = found
                    break
                }
                partial = partial ?? found
            }
            report.dates.xmpCreation = report.dates.xmpCreation ?? partial
        }
    }

    mutating func applyQuickTime(_ qt: QuickTimeFacts) {
        if let c = qt.creationTime {
            report.dates.movieHeaderCreation = Sourced(c, "QuickTime mvhd creation time (UTC)")
        }
        if let item = qt.movieValue("com.apple.quicktime.creationdate"), let s = item.value.stringValue,
            let d = ExifDate.parse(s, subSeconds: nil, offset: nil)
        {
            report.dates.quickTimeCreation = Sourced(d, "\(item.source) com.apple.quicktime.creationdate")
        }
        if let item = qt.userData.first(where: { $0.key == "©day" || $0.key == "date" }), let s = item.value.stringValue,
            let d = XMPDate.parse(String(s.map { $0 == " " ? "T" : $0 })), d.precision.isEmpty
        {
            report.dates.userDataCreation = Sourced(d.date, "\(item.source) \(item.key) (local time + offset)")
        }
        let locationKeys = ["com.apple.quicktime.location.ISO6709"]
        for key in locationKeys {
            if let item = qt.movieValue(key), let s = item.value.stringValue, let g = ISO6709.parse(s) {
                report.location = Sourced(g, "\(item.source) \(key)")
                break
            }
        }
        for key in ["©xyz", "loci"] where report.location == nil {
            let all = qt.userData + qt.tracks.flatMap(\.userData)
            if let item = all.first(where: { $0.key == key }), let s = item.value.stringValue, let g = ISO6709.parse(s) {
                report.location = Sourced(g, "\(item.source) \(key)")
            }
        }
        func text(_ key: String, track: Bool = false) -> Sourced<String>? {
            let item = track ? qt.trackValue(key) : qt.movieValue(key)
            guard let item, let s = item.value.stringValue?.trimmingWhitespace(), !s.isEmpty else { return nil }
            return Sourced(s, "\(item.source) \(key)")
        }
        report.camera.make = report.camera.make ?? text("com.apple.quicktime.make")
        report.camera.model = report.camera.model ?? text("com.apple.quicktime.model")
        report.camera.software = report.camera.software ?? text("com.apple.quicktime.software")
        report.camera.lensModel = report.camera.lensModel ?? text("com.apple.quicktime.camera.lens_model", track: true)
        for (key, ud) in [("©mak", \CameraFacts.make), ("©mod", \CameraFacts.model)] where report.camera[keyPath: ud] == nil {
            if let item = qt.userData.first(where: { $0.key == key }), let s = item.value.stringValue, !s.isEmpty {
                report.camera[keyPath: ud] = Sourced(s, "\(item.source) \(key)")
            }
        }
    }

    /// MP4/MOV tags from libavformat, used only when our box reader found nothing (AVI, MTS, MKV).
    mutating func applyFormatTags(_ f: FormatFacts, source: String = "libavformat format tag") {
        if report.dates.movieHeaderCreation == nil, let c = f.tags["creation_time"],
            let d = ExifDate.parse(c, subSeconds: nil, offset: nil)
        {
            report.dates.movieHeaderCreation = Sourced(d, "\(source) creation_time")
        }
        if report.camera.make == nil, let m = f.tags["make"] ?? f.tags["com.apple.quicktime.make"] {
            report.camera.make = Sourced(m, "\(source) make")
        }
        if report.camera.model == nil, let m = f.tags["model"] ?? f.tags["com.apple.quicktime.model"] {
            report.camera.model = Sourced(m, "\(source) model")
        }
        if report.location == nil, let s = f.tags["location"], let g = ISO6709.parse(s) {
            report.location = Sourced(g, "\(source) location")
        }
    }

    /// Compares libavformat's stream view with our own box reading; disagreements are warnings.
    mutating func crossCheckStreams() {
        guard let qt = report.quickTime, let video = qt.videoTrack,
            let s = report.streams.first(where: { $0.type == "video" })
        else { return }
        if let w = video.codedWidth ?? video.width, let sw = s.width, w != sw {
            report.warn(.libavformat, "video width: box reader \(w), libavformat \(sw)")
        }
        // Only a claim that would cross the slo-mo threshold (85 fps) matters (reference C7).
        if let ours = video.nominalFrameRate, let claimed = s.claimedFrameRate, claimed >= 85, claimed > ours * 1.5 {
            report.warn(
                .libavformat,
                "libavformat r_frame_rate claims \(format2(claimed)) fps; stts gives a real average of \(format2(ours)) fps (reference C7)"
            )
        }
        if let n = video.sampleCount, let fc = s.frameCount, UInt64(fc) != n {
            report.warn(.libavformat, "video sample count: stts \(n), libavformat nb_frames \(fc)")
        }
        if let intent = qt.movieValue("com.apple.quicktime.full-frame-rate-playback-intent"),
            let theirs = report.format?.tags["com.apple.quicktime.full-frame-rate-playback-intent"],
            theirs != intent.value.description
        {
            report.warn(.libavformat, "full-frame-rate-playback-intent: ilst says \(intent.value), libavformat says \(theirs) (reference C4/C5)")
        }
    }

    // MARK: - Derived facts

    /// Finds an Android motion photo's embedded MP4 and verifies the `ftyp` at its start.
    mutating func locateMotionPhoto() {
        let size = source.size
        var candidates: [(ByteRange, String)] = []
        if let r = report.heif?.motionPhotoVideo { candidates.append((r, "HEIF top-level 'mpvd' box payload")) }
        if let e = report.samsungTrailer?.entries.first(where: { $0.name == "MotionPhoto_Data" }) {
            candidates.append((e.data, "Samsung SEFT trailer MotionPhoto_Data"))
        }
        let xmp = report.xmp
        let claims = xmp?["GCamera:MotionPhoto"] == "1" || xmp?["GCamera:MicroVideo"] == "1"
        if let dir = xmp?.directory, let idx = dir.firstIndex(where: { $0.semantic == "MotionPhoto" }) {
            let tail = dir[idx...].reduce(UInt64(0)) { $0 + ($1.length ?? 0) + ($1.padding ?? 0) }
            let len = dir[idx].length ?? 0
            if tail > 0, tail <= size, len > 0 {
                candidates.append((ByteRange(offset: size - tail, length: len), "XMP Container:Directory MotionPhoto item"))
            }
        }
        if let s = xmp?["GCamera:MicroVideoOffset"], let off = UInt64(s), off > 0, off <= size {
            candidates.append((ByteRange(offset: size - off, length: off), "XMP GCamera:MicroVideoOffset"))
        }
        if let t = report.jpeg?.trailer, t.length > 8 { candidates.append((t, "data after the JPEG EOI")) }
        for (range, how) in candidates where range.length >= 8 && range.end <= size {
            guard let head = try? source.read(at: range.offset, count: 12), head.count == 12, head.matches("ftyp", at: 4)
            else { continue }
            let ts = xmp?["GCamera:MotionPhotoPresentationTimestampUs"] ?? xmp?["GCamera:MicroVideoPresentationTimestampUs"]
            report.embeddedVideo = EmbeddedVideo(range: range, source: how + " (ftyp verified)", presentationTimestampUs: ts.flatMap { Int64($0) })
            return
        }
        if claims {
            report.warn(.motionPhoto, "XMP claims a motion photo but no MP4 (ftyp) was found at any declared offset")
        }
    }

    /// The stored pixel size, from the most direct source for the container.
    mutating func fillPixelSize() {
        if report.pixelWidth != nil && report.pixelHeight != nil { return }
        if let (w, h, src) = pixelSizeCandidate() {
            report.pixelWidth = Sourced(w, src)
            report.pixelHeight = Sourced(h, src)
        }
    }

    /// The first size the report carries, in order of directness. (A plain function, not a closure that
    /// captures `self`: the 6.3 optimiser crashed on that shape in release builds.)
    func pixelSizeCandidate() -> (Int, Int, String)? {
        func valid(_ w: Int?, _ h: Int?, _ src: String) -> (Int, Int, String)? {
            guard let w, let h, w > 0, h > 0 else { return nil }
            return (w, h, src)
        }
        let r = report
        if let j = r.jpeg, let c = valid(j.width, j.height, j.heightFromDNL ? "JPEG SOF width + DNL (FFDC) height" : "JPEG SOF") { return c }
        if let p = r.png, let c = valid(p.width, p.height, "PNG IHDR") { return c }
        if let g = r.gif, let c = valid(g.width, g.height, "GIF logical screen descriptor") { return c }
        if let w = r.webp, let c = valid(w.width, w.height, "WebP VP8/VP8L/VP8X header") { return c }
        if let h = r.heif, let c = valid(h.width, h.height, "HEIF primary item 'ispe'") { return c }
        if let s = r.still, let c = valid(s.width, s.height, s.sizeSource) { return c }
        if let v = r.quickTime?.videoTrack {
            // The track header's presentation size (what players and Photos show, before rotation); the
            // sample entry's coded size can differ (Jellyfish.mov: 640x360 coded, 1920x1080 shown).
            if let c = valid(v.width, v.height, "video track 'tkhd' width/height") { return c }
            if let c = valid(v.codedWidth, v.codedHeight, "video sample entry width/height") { return c }
        }
        if let s = r.streams.first(where: { $0.type == "video" }), let c = valid(s.width, s.height, r.format?.reader ?? "libavformat video stream") {
            return c
        }
        if let e = r.exif, let c = valid(e.exifPixelWidth?.value, e.exifPixelHeight?.value, "EXIF ExifImageWidth/ExifImageHeight") {
            return c
        }
        return nil
    }

    mutating func checkExtension() {
        let name = fileName
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return }
        let ext = name[name.index(after: dot)...].lowercased()
        let kind = report.kind
        guard kind != .empty, kind != .unknown, !kind.extensions.contains(ext) else { return }
        // A TIFF-based RAW is refined from its tags; a plain TIFF header behind a RAW extension is fine.
        if kind == .tiff, ["dng", "nef", "nrw", "arw", "pef", "srw", "3fr", "erf", "mef", "mos", "iiq", "rwl", "sr2"].contains(ext) {
            return
        }
        report.warn(.sniff, "extension .\(ext) does not match the content (\(kind.rawValue))")
    }

    // MARK: - Helpers

    /// Runs one reader; its `ProbeError` becomes an error issue at `stage`, and the probe goes on.
    mutating func attempt(_ stage: ProbeStage, _ body: (inout ProbeContext) throws(ProbeError) -> Void) {
        do {
            try body(&self)
        } catch {
            // A used-up time budget fails every later read too: report it once.
            if error.code == .timedOut, report.issues.contains(where: { $0.reason.hasPrefix(ProbeError.Code.timedOut.rawValue) }) { return }
            report.fail(stage, error.description)
        }
    }

    func hex<C: Collection>(_ b: C) -> String where C.Element == UInt8 {
        b.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
    }

    func format2(_ v: Double) -> String { String((v * 100).rounded() / 100) }

}

/// A window onto part of another source (an embedded JPEG, a motion-photo video).
struct SliceSource: ByteSource {
    let base: any ByteSource
    let range: ByteRange

    var size: UInt64 { range.length }

    func read(at offset: UInt64, count: Int) throws(ProbeError) -> [UInt8] {
        guard offset < range.length, count > 0 else { return [] }
        let n = Int(min(UInt64(count), range.length - offset))
        return try base.read(at: range.offset + offset, count: n)
    }
}

/// ISO 6709 location strings: `+48.8583+002.2945+035.000/`.
enum ISO6709 {
    static func parse(_ s: String) -> GeoLocation? {
        var numbers: [Double] = []
        var current = ""
        for ch in s {
            if ch == "+" || ch == "-" {
                if !current.isEmpty, let v = Double(current) { numbers.append(v) }
                current = String(ch)
            } else if ch.isNumber || ch == "." {
                current.append(ch)
            } else {
                if !current.isEmpty, let v = Double(current) { numbers.append(v) }
                current = ""
                if ch == "/" { break }
            }
        }
        if !current.isEmpty, let v = Double(current) { numbers.append(v) }
        // 0,0 is "no fix" ('null island'), dropped as the EXIF reader drops it.
        guard numbers.count >= 2, abs(numbers[0]) <= 90, abs(numbers[1]) <= 180, numbers[0] != 0 || numbers[1] != 0 else { return nil }
        return GeoLocation(latitude: numbers[0], longitude: numbers[1], altitude: numbers.count > 2 ? numbers[2] : nil)
    }
}
