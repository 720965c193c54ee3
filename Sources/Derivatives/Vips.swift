import CHeif
import CVips
import Foundation

/// An error from a C library while making a derivative, naming the call that failed.
public struct DerivativeError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var function: String?

    public init(_ message: String, function: String? = nil) {
        self.message = message
        self.function = function
    }

    public var description: String {
        if let function { return "\(message) (\(function))" }
        return message
    }
}

/// libvips through fixed-signature shims (`Sources/CVips/shim.h`). Images never leave the function that
/// made them: `VipsImageRef` owns one reference and drops it when the scope ends.
enum Vips {
    /// `VIPS_INIT` and `heif_init` once per process, before any parallel decode.
    static let initialised: Result<Void, DerivativeError> = {
        _ = heif_init(nil)
        guard shoebox_vips_init(CommandLine.arguments.first ?? "shoebox") == 0 else {
            return .failure(DerivativeError(errorText(), function: "vips_init"))
        }
        // Parallelism comes from the thumbnailer's task group; one worker thread per pipeline.
        vips_concurrency_set(1)
        return .success(())
    }()

    static func ensureInitialised() throws(DerivativeError) {
        if case .failure(let e) = initialised { throw e }
    }

    /// The vips error buffer, taken and cleared. The buffer is process-wide, so lines from concurrent
    /// renders can land in it: lines naming another file are dropped when `path` is given.
    static func errorText(path: String? = nil) -> String {
        guard let p = vips_error_buffer_copy() else { return "unknown libvips error" }
        defer { g_free(p) }
        var lines = String(cString: p).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if let path {
            lines = lines.filter { $0.contains(path) || !$0.contains("/") }
            // "bad seek" is libheif probing past a truncated file's end: context, not the cause.
            let causes = lines.filter { !$0.contains("bad seek") }
            if !causes.isEmpty { lines = causes }
        }
        let s = lines.joined(separator: "; ")
        return s.isEmpty ? "unknown libvips error" : s
    }

    /// The one checking helper for libvips calls: a non-zero status becomes a `DerivativeError`.
    static func checked(_ status: Int32, _ function: String, path: String? = nil) throws(DerivativeError) {
        guard status != 0 else { return }
        throw DerivativeError(errorText(path: path), function: function)
    }

    /// Runs `call` with an out-parameter and returns the image it produced, owned.
    static func make(_ function: String, path: String? = nil, _ call: (UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32) throws(DerivativeError) -> VipsImageRef {
        var out: UnsafeMutablePointer<VipsImage>? = nil
        let rc = call(&out)
        guard rc == 0, let out else {
            if let out { shoebox_vips_unref(out) }
            throw DerivativeError(errorText(path: path), function: function)
        }
        return VipsImageRef(out)
    }
}

/// One owned reference to a `VipsImage`. Not Sendable: it lives inside one render.
final class VipsImageRef {
    let pointer: UnsafeMutablePointer<VipsImage>
    init(_ pointer: UnsafeMutablePointer<VipsImage>) { self.pointer = pointer }
    deinit { shoebox_vips_unref(pointer) }
    var width: Int { Int(shoebox_vips_width(pointer)) }
    var height: Int { Int(shoebox_vips_height(pointer)) }
}
