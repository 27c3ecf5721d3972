// Declarations of the library's entry points: see include/CCapture.h. One function of the
// benchmark's own below.
#include "CCapture.h"
// For __GLIBC__ (features.h): without a libc header first, the check below never saw glibc and
// the heap in use was the resident size.
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

unsigned long rd_benchmark_heap_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    return (unsigned long)mallinfo2().uordblks;
#else
    return 0;
#endif
}
