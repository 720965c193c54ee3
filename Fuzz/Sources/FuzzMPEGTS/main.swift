import FuzzDriver
import MediaProbe

/// One input as a whole transport stream, then again with a 4 KiB head and a 2 KiB tail (so that the head
/// and the tail are read apart, a long recording's path): `.unsupported` is expected; crashes, hangs and
/// ASan reports are findings.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    _ = MPEGTSReader.read(MemorySource(bytes))
    _ = MPEGTSReader.read(MemorySource(bytes), headLimit: 4096, tailLimit: 2048)
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
