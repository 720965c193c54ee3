#ifndef SHOEBOX_CEXIF_SHIM_H
#define SHOEBOX_CEXIF_SHIM_H
#include <libexif/exif-data.h>
#include <libexif/exif-entry.h>
#include <libexif/exif-content.h>
#include <libexif/exif-utils.h>
#include <libexif/exif-tag.h>
#include <libexif/exif-ifd.h>
#include <libexif/exif-log.h>
#include <libexif/exif-mem.h>
#include <stddef.h>

/* The libexif arena (Sources/CMediaLibs/exif_arena.c). An ExifData from shoebox_exif_data_new_arena()
   allocates from the calling thread's arena; its frees do nothing. A read takes a mark before creating it and
   releases to the mark after exif_data_unref, on the same thread: every block since the mark is given back at
   once (nested reads release only their own). */
typedef struct { size_t chunk, used; } shoebox_exif_arena_mark_t;
shoebox_exif_arena_mark_t shoebox_exif_arena_mark(void);
void shoebox_exif_arena_release(shoebox_exif_arena_mark_t mark);
ExifData *shoebox_exif_data_new_arena(void);
#endif
