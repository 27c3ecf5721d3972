#include "CReactiveDiagnostics.h"

#if defined(__linux__)
// libdispatch's C entry points, declared weak like the others this target uses: a process
// without libdispatch still links, and the direct path is then simply not taken.
extern void dispatch_async_f(void *queue, void *context, void (*work)(void *)) __attribute__((weak));
extern void *dispatch_get_current_queue(void) __attribute__((weak));
#else
#include <dispatch/dispatch.h>
#endif

int rdiag_dispatch_direct_available(void) {
#if defined(__linux__)
    return dispatch_async_f != NULL && dispatch_get_current_queue != NULL;
#else
    return 1;
#endif
}

void rdiag_dispatch_async_f(void *queue, void *context, void (*work)(void *)) {
    dispatch_async_f(queue, context, work);
}

void *rdiag_dispatch_current_queue(void) {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    return (void *)dispatch_get_current_queue();
#pragma clang diagnostic pop
}
