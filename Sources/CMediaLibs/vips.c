// The CVips wrappers (declared in CVips/shim.h, documented there). Variadic libvips calls go through
// SHOEBOX_MEDIA_FN, a pointer typed from the real declaration; the fixed-signature calls go through stubs.c.
#include "loader.h"
#include "../CVips/shim.h"
#include <vips/vector.h>

static void shoebox_vips_log_nothing(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

int shoebox_vips_init(const char *argv0) {
    if (vips_version(3) - vips_version(5) != VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE) {
        SHOEBOX_MEDIA_FN(SHOEBOX_LIB_VIPS, vips_error)("vips_init", "ABI mismatch");
        return -1;
    }
    if (vips_init(argv0)) return -1;
    g_log_set_handler("VIPS", (GLogLevelFlags)(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO),
                      shoebox_vips_log_nothing, NULL);
    /* No code generated at run time (liborc): Debian's orc 0.4.33 crashed once in CI inside its own code
       (a bad pointer while the thumbnail tests rendered on several threads), and the thumbnails take as long
       without it (the corpus: 3.3-3.4 s either way; Benchmarks/README.md, session 30). */
    SHOEBOX_MEDIA_FN(SHOEBOX_LIB_VIPS, vips_vector_set_enabled)(FALSE);
    /* No operation cache: every file is opened once, and a cache would hold decoded tiles. */
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    return 0;
}

int shoebox_vips_thumbnail(const char *path, VipsImage **out, int width, int height,
                                         int crop, int size) {
    return SHOEBOX_MEDIA_FN(SHOEBOX_LIB_VIPS, vips_thumbnail)(path, out, width, "height", height, "crop", (VipsInteresting)crop,
                          "size", (VipsSize)size,
                          "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

int shoebox_vips_thumbnail_buffer(void *buf, size_t len, VipsImage **out, int width,
                                                int height, int crop, int size) {
    return SHOEBOX_MEDIA_FN(SHOEBOX_LIB_VIPS, vips_thumbnail_buffer)(buf, len, out, width, "height", height, "crop", (VipsInteresting)crop,
                                 "size", (VipsSize)size,
                                 "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

int shoebox_vips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height,
                                               int crop, int size) {
    return SHOEBOX_MEDIA_FN(SHOEBOX_LIB_VIPS, vips_thumbnail_image)(in, out, width, "height", height, "crop", (VipsInteresting)crop,
                                "size", (VipsSize)size, NULL);
}

int shoebox_vips_to_srgb(VipsImage *in, VipsImage **out) {
    if (vips_image_get_typeof(in, VIPS_META_ICC_NAME))
        return SHOEBOX_MEDIA_FN(SHOEBOX_LIB_VIPS, vips_icc_transform)(in, out, "srgb", "embedded", TRUE, "intent", VIPS_INTENT_RELATIVE, NULL);
    VipsInterpretation i = vips_image_get_interpretation(in);
    if (i == VIPS_INTERPRETATION_sRGB || i == VIPS_INTERPRETATION_B_W || i == VIPS_INTERPRETATION_MULTIBAND) {
        g_object_ref(in);
        *out = in;
        return 0;
    }
    return SHOEBOX_MEDIA_FN(SHOEBOX_LIB_VIPS, vips_colourspace)(in, out, VIPS_INTERPRETATION_sRGB, NULL);
}

VipsImage *shoebox_vips_open(const char *path) {
    return SHOEBOX_MEDIA_FN(SHOEBOX_LIB_VIPS, vips_image_new_from_file)(path, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

int shoebox_vips_autorot(VipsImage *in, VipsImage **out) {
    return SHOEBOX_MEDIA_FN(SHOEBOX_LIB_VIPS, vips_autorot)(in, out, NULL);
}

VipsImage *shoebox_vips_open_buffer(const void *buf, size_t len) {
    return SHOEBOX_MEDIA_FN(SHOEBOX_LIB_VIPS, vips_image_new_from_buffer)(buf, len, "", "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

int shoebox_vips_orient(VipsImage *in, VipsImage **out, int orientation) {
    VipsImage *t;
    if (SHOEBOX_MEDIA_FN(SHOEBOX_LIB_VIPS, vips_copy)(in, &t, NULL)) return -1;
    vips_image_set_int(t, VIPS_META_ORIENTATION, orientation);
    int rc = SHOEBOX_MEDIA_FN(SHOEBOX_LIB_VIPS, vips_autorot)(t, out, NULL);
    g_object_unref(t);
    return rc;
}

VipsImage *shoebox_vips_copy_memory(VipsImage *in) {
    return vips_image_copy_memory(in);
}

int shoebox_vips_rot(VipsImage *in, VipsImage **out, int angle /* VipsAngle */) {
    return SHOEBOX_MEDIA_FN(SHOEBOX_LIB_VIPS, vips_rot)(in, out, (VipsAngle)angle, NULL);
}

int shoebox_vips_extract_area(VipsImage *in, VipsImage **out, int left, int top,
                                            int width, int height) {
    return SHOEBOX_MEDIA_FN(SHOEBOX_LIB_VIPS, vips_extract_area)(in, out, left, top, width, height, NULL);
}

int shoebox_vips_jpegsave(VipsImage *in, const char *path, int q) {
    return SHOEBOX_MEDIA_FN(SHOEBOX_LIB_VIPS, vips_jpegsave)(in, path, "Q", q, "strip", TRUE, NULL);
}

int shoebox_vips_webpsave(VipsImage *in, const char *path, int q) {
    return SHOEBOX_MEDIA_FN(SHOEBOX_LIB_VIPS, vips_webpsave)(in, path, "Q", q, "strip", TRUE, NULL);
}

int shoebox_vips_heifsave(VipsImage *in, const char *path, int q) {
    return SHOEBOX_MEDIA_FN(SHOEBOX_LIB_VIPS, vips_heifsave)(in, path, "Q", q, "strip", TRUE, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_HEVC, NULL);
}

void shoebox_vips_unref(VipsImage *image) { if (image) g_object_unref(image); }

int shoebox_vips_width(const VipsImage *image) { return vips_image_get_width(image); }

int shoebox_vips_height(const VipsImage *image) { return vips_image_get_height(image); }
