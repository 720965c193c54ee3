import FuzzDriver
import MediaProbe

/// The still-format header readers and the date parsers. The first byte chooses: 0–7 a header reader
/// (BMP, PSD, JP2, J2K, JXL, ICO, TGA, PNM) on the rest, 8 Photoshop resources + IPTC, 9 XMP dates.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size > 0, let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let kinds: [ContainerKind] = [.bmp, .psd, .jp2, .j2k, .jxl, .ico, .tga, .pnm]
    switch Int(data[0]) % 10 {
    case let i where i < kinds.count:
        _ = try? StillImageHeaders.facts(kinds[i], MemorySource(bytes))
        _ = Sniffer.sniff(Array(bytes.prefix(Sniffer.headerSize)), fileSize: UInt64(bytes.count))
    case 8:
        for b in PhotoshopResources.blocks(bytes) { _ = IPTCReader.read(Array(bytes[b.range])) }
        let f = IPTCReader.read(bytes)
        _ = IPTCFacts.date(f.dateCreated, f.timeCreated)
    default:
        _ = XMPDate.parse(String(decoding: bytes, as: UTF8.self))
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
