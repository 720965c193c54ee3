import Derivatives
import FuzzDriver

#if canImport(Glibc)
    import Glibc
#endif

/// The RAW preview reader works on a file (it reads with pread), so each input is written to one scratch
/// file of this process first. Thrown errors are expected; crashes, hangs and ASan reports are findings.
/// The file is unlinked at once and read back through `/proc/self/fd`: libFuzzer ends the process with
/// `exit` from inside its driver, so nothing after the driver call would remove it.
let fd: CInt = {
    var template = Array("/tmp/shoebox-fuzz-rawpreview-XXXXXX".utf8CString)
    let fd = mkstemp(&template)
    if fd >= 0 { unlink(template) }
    return fd
}()
let scratch = "/proc/self/fd/\(fd)"

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard fd >= 0, ftruncate(fd, 0) == 0 else { return 0 }
    if size > 0, let data, pwrite(fd, data, size, 0) != size { return 0 }
    _ = try? RawPreview.largest(path: scratch)
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
