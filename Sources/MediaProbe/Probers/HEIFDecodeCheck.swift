import CHeif

/// Confirms with libheif 1.15 that a HEIF opens (and, when asked, that its primary image decodes).
///
/// A failure is a warning: metadata never depends on libheif, which refuses some iPhone 15 Pro files (C7).
enum HEIFDecodeCheck {
    /// `heif_init` must run once before any parallel use.
    static let initialised: Void = { _ = heif_init(nil) }()

    static func check(path: String, decode: Bool) throws(ProbeError) -> String {
        _ = initialised
        guard let ctx = heif_context_alloc() else {
            throw ProbeError(.library, "out of memory", function: "heif_context_alloc")
        }
        defer { heif_context_free(ctx) }
        try checked(heif_context_read_from_file(ctx, path, nil), "heif_context_read_from_file")
        var handle: OpaquePointer? = nil
        try checked(heif_context_get_primary_image_handle(ctx, &handle), "heif_context_get_primary_image_handle")
        defer { if let handle { heif_image_handle_release(handle) } }
        guard let handle else { throw ProbeError(.library, "no primary image", function: "heif_context_get_primary_image_handle") }
        let w = heif_image_handle_get_width(handle), h = heif_image_handle_get_height(handle)
        guard decode else { return "libheif 1.15 opened the primary image (\(w)x\(h))" }
        var img: OpaquePointer? = nil
        try checked(heif_decode_image(handle, &img, heif_colorspace_undefined, heif_chroma_undefined, nil), "heif_decode_image")
        if let img { heif_image_release(img) }
        return "libheif 1.15 decoded the primary image (\(w)x\(h))"
    }

    /// The one checking helper for libheif calls: a non-OK `heif_error` becomes a `ProbeError`.
    static func checked(_ err: heif_error, _ function: String) throws(ProbeError) {
        guard err.code != heif_error_Ok else { return }
        let msg = err.message.map { String(cString: $0) } ?? "error \(err.code.rawValue)"
        throw ProbeError(.library, msg, function: function)
    }
}
