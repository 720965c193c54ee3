// The libexif arena (declared in CExif/shim.h, documented there): libexif's allocations for one read come
// from a per-thread arena, given back all at once when the read ends, instead of a calloc and a free each (an
// entry, its data, each IFD's entry array grown by one at a time: ~100 of each per photo).
#include <stdlib.h>
#include <string.h>
#include "loader.h"
#include "../CExif/shim.h"

enum { SHOEBOX_ARENA_CHUNK = 64 * 1024, SHOEBOX_ARENA_KEEP = 4 };

typedef struct {
    char *base;
    size_t size, used;
} shoebox_chunk;

// One thread's arena. The chunks after `current` are always empty (kept for reuse).
typedef struct {
    shoebox_chunk *chunks;
    size_t count, capacity, current;
} shoebox_arena;

static _Thread_local shoebox_arena shoebox_exif_arena;

// Each block is 16-byte aligned, its size kept in the 16 bytes before it (for realloc).
static void *shoebox_arena_alloc(ExifLong requested) {
    shoebox_arena *a = &shoebox_exif_arena;
    size_t need = (((size_t)requested + 15) & ~(size_t)15) + 16;
    if (a->count == 0 || a->chunks[a->current].used + need > a->chunks[a->current].size) {
        size_t next = a->count == 0 ? 0 : a->current + 1;
        if (next < a->count && need <= a->chunks[next].size) {
            a->current = next;
        } else {
            for (size_t i = next; i < a->count; i++) free(a->chunks[i].base);  // empty, too small
            a->count = next;
            if (a->count == a->capacity) {
                size_t capacity = a->capacity ? a->capacity * 2 : 8;
                shoebox_chunk *grown = realloc(a->chunks, capacity * sizeof *grown);
                if (!grown) return NULL;
                a->chunks = grown;
                a->capacity = capacity;
            }
            size_t size = need > SHOEBOX_ARENA_CHUNK ? need : SHOEBOX_ARENA_CHUNK;
            char *base = malloc(size);
            if (!base) return NULL;
            a->chunks[a->count] = (shoebox_chunk){base, size, 0};
            a->current = a->count;
            a->count += 1;
        }
    }
    shoebox_chunk *c = &a->chunks[a->current];
    char *block = c->base + c->used;
    c->used += need;
    memset(block, 0, need);  // libexif's own allocator is calloc
    memcpy(block, &need, sizeof need);
    return block + 16;
}

// A block that has room stays where it is; one that must move takes twice what it had, so that an array grown
// one element at a time (libexif adds an IFD's entries so) costs twice its final size, not its square.
static void *shoebox_arena_realloc(void *old, ExifLong requested) {
    if (!old) return shoebox_arena_alloc(requested);
    size_t need;
    memcpy(&need, (char *)old - 16, sizeof need);
    size_t had = need - 16;
    if ((size_t)requested <= had) return old;
    size_t grown = 2 * had > (size_t)requested ? 2 * had : (size_t)requested;
    if (grown > 0xFFFFFFFFu) grown = requested;
    void *block = shoebox_arena_alloc((ExifLong)grown);
    if (block) memcpy(block, old, had);
    return block;
}

static void shoebox_arena_free(void *p) { (void)p; }

shoebox_exif_arena_mark_t shoebox_exif_arena_mark(void) {
    shoebox_arena *a = &shoebox_exif_arena;
    if (a->count == 0) return (shoebox_exif_arena_mark_t){0, 0};
    return (shoebox_exif_arena_mark_t){a->current, a->chunks[a->current].used};
}

void shoebox_exif_arena_release(shoebox_exif_arena_mark_t mark) {
    shoebox_arena *a = &shoebox_exif_arena;
    if (a->count == 0) return;
    for (size_t i = mark.chunk + 1; i <= a->current && i < a->count; i++) a->chunks[i].used = 0;
    a->current = mark.chunk < a->count ? mark.chunk : 0;
    a->chunks[a->current].used = mark.chunk < a->count ? mark.used : 0;
    // Chunks past the first few, all empty now, go back to the system.
    if (a->count > SHOEBOX_ARENA_KEEP && a->current + 1 < a->count) {
        size_t keep = a->current + 1 > SHOEBOX_ARENA_KEEP ? a->current + 1 : SHOEBOX_ARENA_KEEP;
        for (size_t i = keep; i < a->count; i++) free(a->chunks[i].base);
        a->count = keep;
    }
}

ExifData *shoebox_exif_data_new_arena(void) {
    ExifMem *mem = exif_mem_new(shoebox_arena_alloc, shoebox_arena_realloc, shoebox_arena_free);
    if (!mem) return NULL;
    ExifData *data = exif_data_new_mem(mem);
    exif_mem_unref(mem);  // the data holds its own reference
    return data;
}
