#include "CReactiveDiagnostics.h"

#include <time.h>

uint64_t rdiag_uptime_nanoseconds(void) {
#if defined(__APPLE__)
    return clock_gettime_nsec_np(CLOCK_UPTIME_RAW);
#else
    // CLOCK_MONOTONIC is what Dispatch's uptime reads on Linux (DispatchTime.uptimeNanoseconds),
    // without the two layers of calls above it.
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
#endif
}

// libdispatch's own C entry point (Dispatch's Swift overlay wraps it in two more calls).
extern void *dispatch_get_specific(const void *key);

int rdiag_queue_has_specific(const void *key) {
    return dispatch_get_specific(key) != NULL;
}
