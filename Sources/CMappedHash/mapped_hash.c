#define _GNU_SOURCE
#include "mapped_hash.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/// The jump buffer of this thread's guarded region, or NULL outside one.
static __thread sigjmp_buf *guard;
static struct sigaction previous;
static pthread_once_t installed = PTHREAD_ONCE_INIT;
static int installation_failed;

static void on_sigbus(int sig, siginfo_t *info, void *context) {
    sigjmp_buf *jump = guard;
    if (jump) {
        guard = NULL;
        siglongjmp(*jump, 1);
    }
    // Not ours: put the previous disposition back; returning re-runs the faulting access, which then
    // reaches it (the Swift runtime's crash report, or the default action).
    (void)sig; (void)info; (void)context;
    sigaction(SIGBUS, &previous, NULL);
}

static void install(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    installation_failed = sigaction(SIGBUS, &action, &previous) != 0;
}

int shoebox_xxh3_128_update_mapped(int fd, uint64_t offset, uint64_t length, XXH3_state_t *state) {
    if (length == 0) return 0;
    pthread_once(&installed, install);
    if (installation_failed) return 1;
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) return 1;
    uint64_t start = offset - offset % (uint64_t)page;
    uint64_t lead = offset - start;
    if (length > SIZE_MAX - lead) return 1;
    size_t span = (size_t)(lead + length);
    void *map = mmap(NULL, span, PROT_READ, MAP_PRIVATE, fd, (off_t)start);
    if (map == MAP_FAILED) return 1;
    (void)madvise(map, span, MADV_SEQUENTIAL);
    // volatile: read after siglongjmp returns to this frame.
    volatile int result = 0;
    sigjmp_buf jump;
    if (sigsetjmp(jump, 1) == 0) {
        guard = &jump;
        shoebox_xxh3_128_update(state, (const char *)map + lead, (size_t)length);
        guard = NULL;
    } else {
        result = 2;
    }
    munmap(map, span);
    return result;
}
