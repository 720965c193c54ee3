import Derivatives
import FuzzDriver

#if canImport(Glibc)
    import Glibc
#endif

/// The RAW preview reader works on a file (it reads with pread), so each input is written to one scratch
/// file of this process first. Thrown errors are expected; crashes, hangs and ASan reports are findings.
let scratch = "/tmp/shoebox-fuzz-rawpreview-\(getpid()).raw"
let fd = open(scratch, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard fd >= 0, ftruncate(fd, 0) == 0 else { return 0 }
    if size > 0, let data, pwrite(fd, data, size, 0) != size { return 0 }
    _ = try? RawPreview.largest(path: scratch)
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
let status = LLVMFuzzerRunDriver(&argc, &argv, fuzzOne)
unlink(scratch)
exit(status)
