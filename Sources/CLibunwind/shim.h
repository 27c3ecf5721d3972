// Local-only unwinding: we only ever walk our own process, which makes
// libunwind use its fast, signal-safe code paths (the `_UL*` symbols).
#ifndef CLIBUNWIND_SHIM_H
#define CLIBUNWIND_SHIM_H
#if defined(__linux__)
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif
#endif
