#ifndef SHOEBOX_CVIPS_SHIM_H
#define SHOEBOX_CVIPS_SHIM_H
#include <vips/vips.h>

/* libvips' option-taking calls are C-variadic, which Swift cannot call. Each one Shoebox needs is
   wrapped here with a fixed signature; every wrapper returns 0 on success, -1 with the vips error
   buffer set on failure, like the call it wraps. */

static void shoebox_vips_log_nothing(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

/// VIPS_INIT is a macro; run once per process. libvips' and libtiff's warnings (written to stderr from
/// any thread) are silenced: failures reach the caller through the error buffer.
static inline int shoebox_vips_init(const char *argv0) {
    if (VIPS_INIT(argv0)) return -1;
    g_log_set_handler("VIPS", (GLogLevelFlags)(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO),
                      shoebox_vips_log_nothing, NULL);
    /* No operation cache: every file is opened once, and a cache would hold decoded tiles. */
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    return 0;
}

/// crop: VIPS_INTERESTING_NONE or VIPS_INTERESTING_CENTRE; size: VIPS_SIZE_BOTH, _DOWN or _FORCE.
/// A truncated file is an error, not a thumbnail with a grey bottom.
/// Auto-rotates by EXIF orientation (HEIF irot/imir are applied by libheif). Colour is left as loaded:
/// `shoebox_vips_to_srgb` follows (libvips 8.14's export_profile also transforms *untagged* input,
/// darkening an already-sRGB picture by ~7 levels).
static inline int shoebox_vips_thumbnail(const char *path, VipsImage **out, int width, int height,
                                         int crop, int size) {
    return vips_thumbnail(path, out, width, "height", height, "crop", (VipsInteresting)crop,
                          "size", (VipsSize)size,
                          "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

/// The same, from memory (a RAW's embedded JPEG). The buffer is not copied: it must outlive the image.
static inline int shoebox_vips_thumbnail_buffer(void *buf, size_t len, VipsImage **out, int width,
                                                int height, int crop, int size) {
    return vips_thumbnail_buffer(buf, len, out, width, "height", height, "crop", (VipsInteresting)crop,
                                 "size", (VipsSize)size,
                                 "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

static inline int shoebox_vips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height,
                                               int crop, int size) {
    return vips_thumbnail_image(in, out, width, "height", height, "crop", (VipsInteresting)crop,
                                "size", (VipsSize)size, NULL);
}

/// To sRGB: through the embedded ICC profile when there is one (Display P3 HEICs), by colourspace
/// conversion for other interpretations (CMYK, Lab, 16-bit RGB); untouched when already sRGB or grey.
static inline int shoebox_vips_to_srgb(VipsImage *in, VipsImage **out) {
    if (vips_image_get_typeof(in, VIPS_META_ICC_NAME))
        return vips_icc_transform(in, out, "srgb", "embedded", TRUE, "intent", VIPS_INTENT_RELATIVE, NULL);
    VipsInterpretation i = vips_image_get_interpretation(in);
    if (i == VIPS_INTERPRETATION_sRGB || i == VIPS_INTERPRETATION_B_W || i == VIPS_INTERPRETATION_MULTIBAND) {
        g_object_ref(in);
        *out = in;
        return 0;
    }
    return vips_colourspace(in, out, VIPS_INTERPRETATION_sRGB, NULL);
}

/// Opens a file (random access: auto-rotation and cropping read out of order).
static inline VipsImage *shoebox_vips_open(const char *path) {
    return vips_image_new_from_file(path, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

static inline int shoebox_vips_autorot(VipsImage *in, VipsImage **out) {
    return vips_autorot(in, out, NULL);
}

/// Opens an in-memory image (a RAW's embedded JPEG). The buffer is not copied: it must outlive every
/// image made from it, up to the save.
static inline VipsImage *shoebox_vips_open_buffer(const void *buf, size_t len) {
    return vips_image_new_from_buffer(buf, len, "", "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

/// Turns `in` as EXIF orientation 1…8 says (for a RAW preview JPEG without its own orientation, which
/// takes the RAW's IFD0 value).
static inline int shoebox_vips_orient(VipsImage *in, VipsImage **out, int orientation) {
    VipsImage *t;
    if (vips_copy(in, &t, NULL)) return -1;
    vips_image_set_int(t, VIPS_META_ORIENTATION, orientation);
    int rc = vips_autorot(t, out, NULL);
    g_object_unref(t);
    return rc;
}

/// Renders `in` into memory, so that several smaller sizes can be made from it without decoding the
/// source again.
static inline VipsImage *shoebox_vips_copy_memory(VipsImage *in) {
    return vips_image_copy_memory(in);
}

static inline int shoebox_vips_rot(VipsImage *in, VipsImage **out, int angle /* VipsAngle */) {
    return vips_rot(in, out, (VipsAngle)angle, NULL);
}

static inline int shoebox_vips_extract_area(VipsImage *in, VipsImage **out, int left, int top,
                                            int width, int height) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

static inline int shoebox_vips_jpegsave(VipsImage *in, const char *path, int q) {
    return vips_jpegsave(in, path, "Q", q, "strip", TRUE, NULL);
}

static inline int shoebox_vips_webpsave(VipsImage *in, const char *path, int q) {
    return vips_webpsave(in, path, "Q", q, "strip", TRUE, NULL);
}

static inline int shoebox_vips_heifsave(VipsImage *in, const char *path, int q) {
    return vips_heifsave(in, path, "Q", q, "strip", TRUE, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_HEVC, NULL);
}

/// GObject's unref is a function taking gpointer; VipsImage is a GObject.
static inline void shoebox_vips_unref(VipsImage *image) { if (image) g_object_unref(image); }

static inline int shoebox_vips_width(const VipsImage *image) { return vips_image_get_width(image); }
static inline int shoebox_vips_height(const VipsImage *image) { return vips_image_get_height(image); }
#endif
