/// TIFF-family files read where their directories are (`TIFFDirectories`): the file type by structure,
/// XMP from tag 700, IPTC from tag 33723, and the main image's own size.
extension ProbeContext {
    /// Walks the file's IFDs; nil (with an issue) when the header cannot be read. Loops are errors as
    /// in `applyExif`; other walk problems are warnings.
    mutating func walkTIFFDirectories() -> TIFFDirectories? {
        let dirs: TIFFDirectories
        do {
            dirs = try TIFFDirectories(source)
        } catch {
            report.warn(.tiff, "TIFF directories: \(error.description)")
            return nil
        }
        if dirs.loops.contains(where: { $0.hasPrefix("ExifIFD") || $0.hasPrefix("GPS") }) {
            report.fail(
                .exif, "TIFF header: IFD offset loop (\(dirs.loops.joined(separator: ", "))); entries after the loop are not read"
            )
        }
        // Other loops (a page chain pointing back, an Interop IFD) cost no fact: warnings.
        for w in dirs.warnings { report.warn(.tiff, w) }
        return dirs
    }

    /// The facts libexif does not give: XMP (0x02BC) and IPTC (0x83BB) blocks in IFD0, and the pixel size —
    /// a RAW's developed size, or a plain TIFF's main image (the first full-resolution IFD), never the
    /// Exif ExifImageWidth/ExifImageHeight, which editors leave stale.
    mutating func applyTIFFDirectories(_ dirs: TIFFDirectories, kind: ContainerKind) {
        if let e = dirs.ifd0?.entry(0x02BC), let xmp = dirs.bytes(e, limit: XMPReader.maxPacketSize) {
            applyXMP(xmp, source: "TIFF IFD0 0x02BC XMP")
        }
        if let e = dirs.ifd0?.entry(0x83BB), let iptc = dirs.bytes(e, limit: Prober.maxMetadataBlock) {
            applyIPTC(IPTCReader.read(iptc), source: "TIFF IFD0 0x83BB IPTC-NAA")
        }
        if kind.isRAW {
            if let s = dirs.rawSize {
                report.pixelWidth = Sourced(s.width, s.source)
                report.pixelHeight = Sourced(s.height, s.source)
            }
        } else if let main = dirs.mainImage {
            let src = "TIFF \(main.directory.role) ImageWidth/ImageLength (0x0100/0x0101)"
            report.pixelWidth = Sourced(main.width, src)
            report.pixelHeight = Sourced(main.height, src)
        }
    }
}
