#ifndef SHOEBOX_MEDIA_LOADER_H
#define SHOEBOX_MEDIA_LOADER_H
/* Internal to CMediaLibs: the library table and the lazy function-pointer macro. */

/* Indexes into loader.c's table; gen-stubs.py names them in the same order. */
enum {
    SHOEBOX_LIB_EXIF, SHOEBOX_LIB_HEIF, SHOEBOX_LIB_AVUTIL, SHOEBOX_LIB_AVCODEC, SHOEBOX_LIB_AVFORMAT,
    SHOEBOX_LIB_SWSCALE, SHOEBOX_LIB_GLIB, SHOEBOX_LIB_GOBJECT, SHOEBOX_LIB_VIPS, SHOEBOX_LIB_COUNT
};

/* The address of `name` in `library`, loading the library on first use. Never returns NULL: when the library
   or the symbol is missing it prints one line naming the library and the Debian package, and exits 127. */
void *shoebox_media_symbol(int library, const char *name);

/* A pointer to the real `name`, typed from its declaration in the system header (so every call through it is
   checked), looked up once and cached. Works for variadic functions too: SHOEBOX_MEDIA_FN(L, vips_copy)(in,
   &out, NULL). */
#define SHOEBOX_MEDIA_FN(library, name)                                                           \
    (__extension__({                                                                              \
        static __typeof__(&name) shoebox_cached_;                                                 \
        __typeof__(&name) shoebox_f_ = __atomic_load_n(&shoebox_cached_, __ATOMIC_ACQUIRE);       \
        if (!shoebox_f_) {                                                                        \
            shoebox_f_ = (__typeof__(&name))shoebox_media_symbol(library, #name);                 \
            __atomic_store_n(&shoebox_cached_, shoebox_f_, __ATOMIC_RELEASE);                     \
        }                                                                                         \
        shoebox_f_;                                                                               \
    }))
#endif
