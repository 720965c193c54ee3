#ifndef SHOEBOX_MAPPED_HASH_H
#define SHOEBOX_MAPPED_HASH_H
#include <stddef.h>
#include <stdint.h>
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

/// Feeds `length` bytes of `fd` from `offset` into an XXH3 state straight from the page cache (mmap),
/// without the copy a read() makes. A file that shrinks while it is mapped raises SIGBUS on the missing
/// pages; that signal is caught on this thread only (sigsetjmp/siglongjmp inside this function, never
/// across a Swift frame) and reported, so a source truncated under us is an error, not a crash.
///
/// Returns 0 when every byte was fed, 1 when the range cannot be mapped (the caller reads it instead; the
/// state is untouched), 2 when a page was missing (the file shrank: the state is unusable).
int shoebox_xxh3_128_update_mapped(int fd, uint64_t offset, uint64_t length, XXH3_state_t *state);

#endif
