import Foundation
import FuzzDriver
import MediaProbe

/// One input, read as a catalog's stored facts. Whatever `FactsJSONReader` reads must be what `JSONDecoder`
/// reads of the same bytes (the catalogs were read by `JSONDecoder` before it): a difference is a finding,
/// as a crash or a hang is. Where it is unsure it reads nothing, and `JSONDecoder` is asked.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    if let ours = FactsJSONReader.read(bytes) {
        let theirs = try? JSONDecoder().decode(ProbeReport.self, from: Data(bytes))
        if ours != theirs {
            fatalError("FactsJSONReader read \(ours), JSONDecoder \(theirs.map { "\($0)" } ?? "nothing")")
        }
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
