import FuzzDriver
import MediaProbe

/// One input: a whole TIFF-family file walked where its directories are (`TIFFDirectories`, classic and
/// BigTIFF), then everything derived from the walk, and the libexif block it writes walked again.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    guard let d = try? TIFFDirectories(MemorySource(bytes)) else { return 0 }
    _ = d.refinedKind
    _ = d.rawSize
    _ = d.mainImage
    let (block, _) = d.exifBlock()
    precondition(block.count <= 0xFFFE, "the libexif block must fit libexif's cap")
    _ = try? TIFFDirectories(MemorySource(block))
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
