#ifndef SHOEBOX_CVIPS_SHIM_H
#define SHOEBOX_CVIPS_SHIM_H
#include <vips/vips.h>

/* libvips' option-taking calls are C-variadic, which Swift cannot call. Each one Shoebox needs is
   wrapped with a fixed signature; every wrapper returns 0 on success, -1 with the vips error
   buffer set on failure, like the call it wraps. The wrappers are defined in CMediaLibs/vips.c, which
   loads libvips on first use (docs/architecture.md, "Lazy media libraries"). */

/// VIPS_INIT is a macro; run once per process. libvips' and libtiff's warnings (written to stderr from
/// any thread) are silenced: failures reach the caller through the error buffer.
int shoebox_vips_init(const char *argv0);

/// crop: VIPS_INTERESTING_NONE or VIPS_INTERESTING_CENTRE; size: VIPS_SIZE_BOTH, _DOWN or _FORCE.
/// A truncated file is an error, not a thumbnail with a grey bottom.
/// Auto-rotates by EXIF orientation (HEIF irot/imir are applied by libheif). Colour is left as loaded:
/// `shoebox_vips_to_srgb` follows (libvips 8.14's export_profile also transforms *untagged* input,
/// darkening an already-sRGB picture by ~7 levels).
int shoebox_vips_thumbnail(const char *path, VipsImage **out, int width, int height, int crop, int size);

/// The same, from memory (a RAW's embedded JPEG). The buffer is not copied: it must outlive the image.
int shoebox_vips_thumbnail_buffer(void *buf, size_t len, VipsImage **out, int width, int height, int crop, int size);

int shoebox_vips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height, int crop, int size);

/// To sRGB: through the embedded ICC profile when there is one (Display P3 HEICs), by colourspace
/// conversion for other interpretations (CMYK, Lab, 16-bit RGB); untouched when already sRGB or grey.
int shoebox_vips_to_srgb(VipsImage *in, VipsImage **out);

/// Opens a file (random access: auto-rotation and cropping read out of order).
VipsImage *shoebox_vips_open(const char *path);

int shoebox_vips_autorot(VipsImage *in, VipsImage **out);

/// Opens an in-memory image (a RAW's embedded JPEG). The buffer is not copied: it must outlive every
/// image made from it, up to the save.
VipsImage *shoebox_vips_open_buffer(const void *buf, size_t len);

/// Turns `in` as EXIF orientation 1…8 says (for a RAW preview JPEG without its own orientation, which
/// takes the RAW's IFD0 value).
int shoebox_vips_orient(VipsImage *in, VipsImage **out, int orientation);

/// Renders `in` into memory, so that several smaller sizes can be made from it without decoding the
/// source again.
VipsImage *shoebox_vips_copy_memory(VipsImage *in);

int shoebox_vips_rot(VipsImage *in, VipsImage **out, int angle /* VipsAngle */);

int shoebox_vips_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height);

int shoebox_vips_jpegsave(VipsImage *in, const char *path, int q);

int shoebox_vips_webpsave(VipsImage *in, const char *path, int q);

int shoebox_vips_heifsave(VipsImage *in, const char *path, int q);

/// GObject's unref is a function taking gpointer; VipsImage is a GObject.
void shoebox_vips_unref(VipsImage *image);

int shoebox_vips_width(const VipsImage *image);

int shoebox_vips_height(const VipsImage *image);
#endif
