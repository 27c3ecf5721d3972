#include "CReactiveDiagnostics.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#if defined(__linux__) && defined(__x86_64__)
#include <x86intrin.h>
#endif

static uint64_t kernel_uptime(void) {
#if defined(__APPLE__)
    return clock_gettime_nsec_np(CLOCK_UPTIME_RAW);
#else
    // CLOCK_MONOTONIC is what Dispatch's uptime reads on Linux (DispatchTime.uptimeNanoseconds).
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
#endif
}

int rdiag_ticks_are_tsc = 0;
double rdiag_nanoseconds_per_tick = 1.0;

#if defined(__linux__) && defined(__x86_64__)

// The uptime clock read from the time-stamp counter, where the kernel's own clock source is the
// TSC (so it is invariant and in step across CPUs): one instruction instead of the vDSO's
// sequence, scaled with a rate calibrated against CLOCK_MONOTONIC and re-anchored every
// millisecond, so it never drifts from Dispatch's uptime by more than a millisecond's worth of
// the kernel's frequency corrections (a fraction of a microsecond).
//
// The anchor is a sequence lock: writers (whoever notices the anchor is a millisecond old)
// take the odd value, readers retry while it is odd or changed.

enum { TSC_UNKNOWN = 0, TSC_USABLE = 1, TSC_UNUSABLE = 2 };

static int tsc_state = TSC_UNKNOWN;
static uint64_t sequence;
static uint64_t anchor_ticks;
static uint64_t anchor_nanos;
static double nanos_per_tick;
static uint64_t resync_ticks;

static int kernel_uses_tsc(void) {
    FILE *file = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (file == NULL) {
        return 0;
    }
    char name[32] = {0};
    size_t length = fread(name, 1, sizeof name - 1, file);
    fclose(file);
    return length >= 3 && strncmp(name, "tsc", 3) == 0 && (length == 3 || name[3] == '\n');
}

// One reading of both clocks: the counter read just before and just after CLOCK_MONOTONIC, the
// tightest bracket of a few tries (a reading the thread was preempted in is not taken).
static void read_both(uint64_t *ticks, uint64_t *nanos) {
    uint64_t best_width = UINT64_MAX;
    for (int attempt = 0; attempt < 8; attempt++) {
        uint64_t before = __rdtsc();
        uint64_t uptime = kernel_uptime();
        uint64_t after = __rdtsc();
        if (after >= before && after - before < best_width) {
            best_width = after - before;
            *ticks = before + (after - before) / 2;
            *nanos = uptime;
        }
    }
}

// Calibrates over 250 µs once (the first uptime read of the process, or the first scheduler
// probe, pays it). Each end is read within a bracket of a few tens of nanoseconds, so the rate
// is within a few parts in 10,000 of the kernel's; re-anchoring every millisecond keeps the
// clock within a fraction of a microsecond of CLOCK_MONOTONIC.
static void calibrate(void) {
    int state = __atomic_load_n(&tsc_state, __ATOMIC_ACQUIRE);
    if (state != TSC_UNKNOWN) {
        return;
    }
    static int calibrating = 0;
    if (__atomic_exchange_n(&calibrating, 1, __ATOMIC_ACQ_REL)) {
        while (__atomic_load_n(&tsc_state, __ATOMIC_ACQUIRE) == TSC_UNKNOWN) {
        }
        return;
    }
    if (!kernel_uses_tsc()) {
        __atomic_store_n(&tsc_state, TSC_UNUSABLE, __ATOMIC_RELEASE);
        return;
    }
    uint64_t ticks0 = 0, nanos0 = 0, ticks1 = 0, nanos1 = 0;
    read_both(&ticks0, &nanos0);
    do {
        read_both(&ticks1, &nanos1);
    } while (nanos1 - nanos0 < 250000);
    if (ticks1 <= ticks0) {
        __atomic_store_n(&tsc_state, TSC_UNUSABLE, __ATOMIC_RELEASE);
        return;
    }
    nanos_per_tick = (double)(nanos1 - nanos0) / (double)(ticks1 - ticks0);
    resync_ticks = (uint64_t)(1000000.0 / nanos_per_tick);
    anchor_ticks = ticks1;
    anchor_nanos = nanos1;
    __atomic_store(&rdiag_nanoseconds_per_tick, &nanos_per_tick, __ATOMIC_RELAXED);
    __atomic_store_n(&rdiag_ticks_are_tsc, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&tsc_state, TSC_USABLE, __ATOMIC_RELEASE);
}

void rdiag_ticks_prepare(void) {
    calibrate();
}

__attribute__((noinline))
static uint64_t resync(void) {
    uint64_t current = __atomic_load_n(&sequence, __ATOMIC_RELAXED);
    if ((current & 1) != 0
        || !__atomic_compare_exchange_n(&sequence, &current, current + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        return kernel_uptime();  // another thread is re-anchoring
    }
    uint64_t nanos = kernel_uptime();
    uint64_t ticks = __rdtsc();
    __atomic_store_n(&anchor_ticks, ticks, __ATOMIC_RELAXED);
    __atomic_store_n(&anchor_nanos, nanos, __ATOMIC_RELAXED);
    __atomic_store_n(&sequence, current + 2, __ATOMIC_RELEASE);
    return nanos;
}

uint64_t rdiag_uptime_nanoseconds(void) {
    if (__builtin_expect(__atomic_load_n(&tsc_state, __ATOMIC_ACQUIRE) != TSC_USABLE, 0)) {
        calibrate();
        if (__atomic_load_n(&tsc_state, __ATOMIC_ACQUIRE) != TSC_USABLE) {
            return kernel_uptime();
        }
    }
    for (;;) {
        uint64_t before = __atomic_load_n(&sequence, __ATOMIC_ACQUIRE);
        uint64_t ticks0 = __atomic_load_n(&anchor_ticks, __ATOMIC_RELAXED);
        uint64_t nanos0 = __atomic_load_n(&anchor_nanos, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if ((before & 1) != 0 || __atomic_load_n(&sequence, __ATOMIC_RELAXED) != before) {
            continue;
        }
        uint64_t ticks = __rdtsc();
        uint64_t elapsed = ticks - ticks0;
        if (ticks < ticks0 || elapsed > resync_ticks) {
            return resync();
        }
        return nanos0 + (uint64_t)((double)elapsed * nanos_per_tick);
    }
}

#else

uint64_t rdiag_uptime_nanoseconds(void) {
    return kernel_uptime();
}

void rdiag_ticks_prepare(void) {}

#endif

uint64_t rdiag_ticks_at_uptime(uint64_t nanoseconds) {
    uint64_t ticks = rdiag_ticks();
    uint64_t now = rdiag_uptime_nanoseconds();
    if (!__atomic_load_n(&rdiag_ticks_are_tsc, __ATOMIC_RELAXED)) {
        return nanoseconds;
    }
    double per_tick;
    __atomic_load(&rdiag_nanoseconds_per_tick, &per_tick, __ATOMIC_RELAXED);
    double offset = ((double)nanoseconds - (double)now) / per_tick;
    double due = (double)ticks + offset;
    return due <= 0 ? 0 : (uint64_t)due;
}
