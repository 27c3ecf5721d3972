// How an entry point the test executable defines itself (task_hook.c, work_in_flight.c) reaches
// the definition it stands in for: the next one in lookup order (`dlsym(RTLD_NEXT)`), looked up
// once and kept in `cache`. Linux only; included where the interposed entry points are.
#include <dlfcn.h>
#include <stdatomic.h>

static inline void *rdiag_next_definition(_Atomic(void *) *cache, const char *name) {
    void *real = atomic_load_explicit(cache, memory_order_acquire);
    if (real == NULL) {
        real = dlsym(RTLD_NEXT, name);
        atomic_store_explicit(cache, real, memory_order_release);
    }
    return real;
}
