#include "CReactiveDiagnostics.h"

#if defined(__linux__)
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#else
#include <execinfo.h>
#endif

int rdiag_backtrace(void **buffer, int depth) {
    if (depth <= 0) {
        return 0;
    }
#if defined(__linux__)
    // unw_backtrace walks with libunwind's cached frame descriptions: a few ns a frame.
    return unw_backtrace(buffer, depth);
#else
    return backtrace(buffer, depth);
#endif
}
