#ifndef SHOEBOX_MEDIA_H
#define SHOEBOX_MEDIA_H
/* The media libraries (libexif, libheif, libav*, libswscale, libvips with glib/gobject) are not linked: each
   function Shoebox calls is a stub that loads its library by soname on first use (docs/architecture.md,
   "Lazy media libraries"). A command that never probes or decodes never maps them. */

/// NULL when every library of `family` ("exif", "heif", "ffmpeg" or "vips") can be loaded; otherwise a
/// message naming the library that cannot, the loader's reason and the Debian package to install. Never
/// exits: code that wants a normal error before the first library call asks here.
const char *shoebox_media_unavailable(const char *family);
#endif
