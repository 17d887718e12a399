#include "CQuireSystem.h"
#include <stdlib.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

int quire_limit_malloc_arenas(int count) {
#if defined(__GLIBC__)
    return mallopt(M_ARENA_MAX, count);
#else
    (void)count;
    return 0;
#endif
}

/// glibc fixes its arena limit the first time a thread needs a new arena, which happens before
/// Swift's `main` runs (the runtime's and Dispatch's threads): so the cap is set here, when the
/// binary loads. One arena per core, at least two, unless MALLOC_ARENA_MAX says otherwise.
__attribute__((constructor)) static void quire_malloc_arenas_at_load(void) {
    if (getenv("MALLOC_ARENA_MAX")) return;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    quire_limit_malloc_arenas(cores > 2 ? (int)cores : 2);
}
