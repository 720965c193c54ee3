/// Still formats read by `StillImageHeaders` (BMP, PSD, JPEG 2000, JPEG XL, ICO, TGA, Netpbm): size from
/// the header, then the Exif, XMP and IPTC blocks the format carries.
extension ProbeContext {
    mutating func readStill(_ kind: ContainerKind) {
        attempt(.image) { (c: inout ProbeContext) throws(ProbeError) in
            let r = try StillImageHeaders.read(kind, c.source)
            for w in r.warnings { c.report.warn(.image, w) }
            c.report.still = r.facts
            if let res = r.photoshopResources {
                let bytes = try c.source.read(res, limit: Prober.maxMetadataBlock, what: "PSD image resources")
                c.applyPhotoshopResources(bytes, source: "PSD image resources")
            }
            for (range, how) in r.exif {
                c.attempt(.exif) { (c: inout ProbeContext) throws(ProbeError) in
                    let block = try c.source.read(range, limit: Prober.maxMetadataBlock, what: how)
                    try c.applyExif(block, container: how)
                }
            }
            for (range, how) in r.xmp {
                c.attempt(.xmp) { (c: inout ProbeContext) throws(ProbeError) in
                    c.applyXMP(try c.source.read(range, limit: XMPReader.maxPacketSize, what: how), source: how)
                }
            }
            if let d = r.created { c.report.dates.modified = c.report.dates.modified ?? d }
        }
    }
}
