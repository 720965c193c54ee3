#ifndef SHOEBOX_CXXHASH_SHIM_H
#define SHOEBOX_CXXHASH_SHIM_H
#include <stddef.h>
#include <xxhash.h>
#if defined(__x86_64__)
// Debian's libxxhash also exports the x86 dispatching entry points (AVX2/AVX-512 chosen at run time; the
// plain ones are SSE2): the same hashes, ~35 % more bytes per second here.
#define XXH_DISPATCH_DISABLE_REPLACE
#include <xxh_x86dispatch.h>
#endif

/// XXH3-128 update through the fastest implementation this CPU runs.
static inline XXH_errorcode shoebox_xxh3_128_update(XXH3_state_t *state, const void *input, size_t length) {
#if defined(__x86_64__)
    return XXH3_128bits_update_dispatch(state, input, length);
#else
    return XXH3_128bits_update(state, input, length);
#endif
}
#endif
