// How an entry point the test executable defines itself (task_hook.c, work_in_flight.c) reaches
// the definition it stands in for: a sanitizer's interceptor of it when the executable has one
// (Thread Sanitizer links its runtime into the executable and intercepts libdispatch with weak
// definitions, which ours take the place of: calling past them would hide every happens-before
// edge of the work submitted, and report races that are none), else the next definition in
// lookup order (`dlsym(RTLD_NEXT)`); looked up once and kept in `cache`. Linux only; included
// where the interposed entry points are.
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>

static inline void *rdiag_next_definition(_Atomic(void *) *cache, const char *name) {
    void *real = atomic_load_explicit(cache, memory_order_acquire);
    if (real == NULL) {
        char interceptor[128];
        if (snprintf(interceptor, sizeof interceptor, "__interceptor_%s", name) < (int)sizeof interceptor) {
            real = dlsym(RTLD_DEFAULT, interceptor);
        }
        if (real == NULL) {
            real = dlsym(RTLD_NEXT, name);
        }
        atomic_store_explicit(cache, real, memory_order_release);
    }
    return real;
}
