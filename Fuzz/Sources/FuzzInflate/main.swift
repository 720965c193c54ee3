import FuzzDriver
import MediaProbe

/// One input: thrown errors are expected; crashes, hangs and ASan reports are findings.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    // First byte picks the format and the output limit; the rest is the stream.
    guard let first = bytes.first else { return 0 }
    let stream = Array(bytes.dropFirst())
    let limit = first & 0x80 != 0 ? 1 << 16 : 1 << 22
    if first & 1 == 0 {
        _ = try? Inflate.raw(stream, limit: limit)
    } else {
        _ = try? Inflate.zlib(stream, limit: limit)
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
