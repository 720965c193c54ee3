#include "loader.h"
#include "shoebox_media.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* By soname, never by path: the dynamic loader searches as it would for a linked library. */
static struct {
    const char *soname, *package, *family;
    pthread_once_t once;
    void *handle;
    char error[512];
} libraries[SHOEBOX_LIB_COUNT] = {
    [SHOEBOX_LIB_EXIF] = {"libexif.so.12", "libexif12", "exif", PTHREAD_ONCE_INIT},
    [SHOEBOX_LIB_HEIF] = {"libheif.so.1", "libheif1", "heif", PTHREAD_ONCE_INIT},
    [SHOEBOX_LIB_AVUTIL] = {"libavutil.so.57", "libavutil57", "ffmpeg", PTHREAD_ONCE_INIT},
    [SHOEBOX_LIB_AVCODEC] = {"libavcodec.so.59", "libavcodec59", "ffmpeg", PTHREAD_ONCE_INIT},
    [SHOEBOX_LIB_AVFORMAT] = {"libavformat.so.59", "libavformat59", "ffmpeg", PTHREAD_ONCE_INIT},
    [SHOEBOX_LIB_SWSCALE] = {"libswscale.so.6", "libswscale6", "ffmpeg", PTHREAD_ONCE_INIT},
    [SHOEBOX_LIB_GLIB] = {"libglib-2.0.so.0", "libglib2.0-0", "vips", PTHREAD_ONCE_INIT},
    [SHOEBOX_LIB_GOBJECT] = {"libgobject-2.0.so.0", "libglib2.0-0", "vips", PTHREAD_ONCE_INIT},
    [SHOEBOX_LIB_VIPS] = {"libvips.so.42", "libvips42", "vips", PTHREAD_ONCE_INIT},
};

#define LOAD_ONE(i)                                                                                   \
    static void load_##i(void) {                                                                      \
        libraries[i].handle = dlopen(libraries[i].soname, RTLD_NOW | RTLD_GLOBAL);                   \
        if (!libraries[i].handle) {                                                                   \
            const char *why = dlerror();                                                              \
            snprintf(libraries[i].error, sizeof libraries[i].error,                                   \
                     "cannot load %s (%s); install the Debian package %s", libraries[i].soname,      \
                     why ? why : "unknown reason", libraries[i].package);                            \
        }                                                                                             \
    }
LOAD_ONE(0) LOAD_ONE(1) LOAD_ONE(2) LOAD_ONE(3) LOAD_ONE(4) LOAD_ONE(5) LOAD_ONE(6) LOAD_ONE(7) LOAD_ONE(8)
static void (*const loaders[SHOEBOX_LIB_COUNT])(void) = {load_0, load_1, load_2, load_3, load_4,
                                                        load_5, load_6, load_7, load_8};
_Static_assert(SHOEBOX_LIB_COUNT == 9, "one LOAD_ONE per library");

/* Loads library `i` once per process; NULL when loaded, else the message. */
static const char *load(int i) {
    pthread_once(&libraries[i].once, loaders[i]);
    return libraries[i].handle ? NULL : libraries[i].error;
}

static void die(const char *message) {
    char line[768];
    int n = snprintf(line, sizeof line, "shoebox: %s\n", message);
    if (n > 0) (void)!write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    _exit(127); /* what the dynamic loader exits with when a linked library is missing */
}

void *shoebox_media_symbol(int library, const char *name) {
    const char *error = load(library);
    if (error) die(error);
    void *f = dlsym(libraries[library].handle, name);
    if (!f) {
        char message[512];
        snprintf(message, sizeof message, "%s has no function %s (a different version than Shoebox was built for?)",
                 libraries[library].soname, name);
        die(message);
    }
    return f;
}

const char *shoebox_media_unavailable(const char *family) {
    for (int i = 0; i < SHOEBOX_LIB_COUNT; i++) {
        if (strcmp(libraries[i].family, family) != 0) continue;
        const char *error = load(i);
        if (error) return error;
    }
    return NULL;
}
