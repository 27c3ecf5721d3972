#include "CReactiveDiagnostics.h"

// AsyncStream, AsyncThrowingStream and CheckedContinuation misuse in the code under test, seen
// with the app's code left as it is.
//
// None of the members below is inlinable: the app's code calls them in libswift_Concurrency,
// debug and release alike. On Linux a test target's modules and this library are linked
// statically into one executable, so the stubs of stream_trampolines_*.S (which define those
// mangled names) are what the app's calls bind to (and, the executable exporting them, what
// shared libraries loaded later bind to as well). Each stub jumps to a trampoline that calls
// rdiag_stream_hook_pre with every argument register saved, then goes to the real function
// (`dlsym(RTLD_NEXT)`), or, for yields, calls it and then rdiag_stream_hook_post with its
// result. The runtime's own internal calls do not pass here.
//
// What the hook knows needs no private layout of the streams: fixed tables keyed by the
// stream's storage object (the continuation's one reference), each entry holding a Swift weak
// reference so that a dead object frees its entry and an address reused by a new object is
// never mistaken for it. The double-resume check reads one private field: the canary's
// `UnsafeContinuation`, set to nil by the first resume, at an offset the engine checks at
// start-up (-1: the check is off).
//
// The hook looks at calls only while a test is open (one relaxed atomic load otherwise), and
// never for the library's own calls (a per-thread suppression count).

#include <stdint.h>
#include <string.h>

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

// Must match the frame the trampolines build (stream_trampolines_*.S).
struct rdiag_stream_registers {
#if defined(__x86_64__)
    uint64_t rdi, rsi, rdx, rcx, r8, r9, rax, r10, r12, r13, r14;
    uint64_t id, return_address, target, flags, pad;
    uint64_t xmm[16];
    uint64_t returned[4];
    uint64_t returned_xmm[8];
#define ARGUMENT(r, i) ((i) == 0 ? (r)->rdi : (i) == 1 ? (r)->rsi : (r)->rdx)
#define SELF(r) ((r)->r13)
#define INDIRECT_RESULT(r) ((r)->rax)
#else
    uint64_t x[8];
    uint64_t x8, x20, x21, x22;
    uint64_t id, return_address, target, flags;
    uint64_t q[16];
    uint64_t returned[4];
    uint64_t returned_q[8];
#define ARGUMENT(r, i) ((r)->x[(i)])
#define SELF(r) ((r)->x20)
#define INDIRECT_RESULT(r) ((r)->x8)
#endif
};

static const char *const names[RDIAG_STREAM_API_COUNT] = {
#define RDIAG_STREAM_STUB(symbol, id, trampoline) [id] = symbol,
#include "stream_hook_stubs.h"
#undef RDIAG_STREAM_STUB
};

// Which argument register holds the metadata of the type the call is made on: after the
// formal arguments (`self` goes in the swiftself register).
static const int type_argument[RDIAG_STREAM_API_COUNT] = {
    [RDIAG_STREAM_YIELD] = 1,
    [RDIAG_STREAM_YIELD_WITH] = 1,
    [RDIAG_STREAM_YIELD_VOID] = 0,
    [RDIAG_STREAM_FINISH] = 0,
    [RDIAG_THROWING_STREAM_YIELD] = 1,
    [RDIAG_THROWING_STREAM_YIELD_WITH] = 1,
    [RDIAG_THROWING_STREAM_YIELD_VOID] = 0,
    [RDIAG_THROWING_STREAM_FINISH] = 1,
    [RDIAG_CONTINUATION_RESUME_RETURNING] = 1,
    [RDIAG_CONTINUATION_RESUME_THROWING] = 1,
    [RDIAG_CONTINUATION_INIT] = -1,
    [RDIAG_STREAM_MAKE_ITERATOR] = 0,
    [RDIAG_THROWING_STREAM_MAKE_ITERATOR] = 0,
};

enum { FLAG_LOOKED = 1, FLAG_REPORTED = 2 };

static void *real_functions[RDIAG_STREAM_API_COUNT];
static _Atomic uint64_t call_counts[RDIAG_STREAM_API_COUNT];
static _Atomic int open_tests;
static _Atomic long canary_offset = -1;
static _Atomic(rdiag_stream_event_fn) event_hook;
static _Atomic(rdiag_yield_result_fn) yield_result_hook;
static _Thread_local int suppressed __attribute__((tls_model("initial-exec")));
static _Thread_local int in_hook __attribute__((tls_model("initial-exec")));
extern void rdiag_stream_skip_return(void);

// The Swift runtime's weak references (libswiftCore): is a recorded object still that object?
struct weak_reference {
    void *bits;
};
extern struct weak_reference *swift_weakInit(struct weak_reference *reference, void *object);
extern void *swift_weakLoadStrong(struct weak_reference *reference);
extern void swift_weakDestroy(struct weak_reference *reference);
extern void swift_release(void *object);

__attribute__((constructor)) static void resolve_real_functions(void) {
    for (int i = 0; i < RDIAG_STREAM_API_COUNT; i++) {
        real_functions[i] = dlsym(RTLD_NEXT, names[i]);
    }
}

// MARK: Tables (fixed size: bounded memory; an entry lives while its object does)

enum { SLOTS = 1024, PROBES = 8 };

struct slot {
    void *object;
    struct weak_reference weak;
    int live;
    int frame_count;
    void *frames[RDIAG_STREAM_DEPTH];
};

struct table {
    struct slot slots[SLOTS];
    _Atomic int live;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct table finished;  // stream storages finished
static struct table iterated;  // streams with an iterator
static struct table gone;      // stream storages told of once as "consumer gone"
static struct table adopted;   // the library's own streams (diagnosed streams check themselves)
static struct slot resumed[SLOTS];  // first resume per canary (no weak reference: the canary is freed with it)

// Strong references loaded under the lock, released after it: a release may run a deinit
// (a stream's `onTermination`), which is user code.
struct releases {
    void *objects[2 * PROBES];
    int count;
};

static size_t slot_index(const void *object) {
    uintptr_t bits = (uintptr_t)object >> 4;
    bits ^= bits >> 17;
    bits *= 0x9E3779B97F4A7C15ull;
    return (size_t)(bits >> 20);
}

static void forget(struct table *table, struct slot *slot) {
    swift_weakDestroy(&slot->weak);
    slot->live = 0;
    atomic_fetch_sub_explicit(&table->live, 1, memory_order_relaxed);
}

// Whether `slot` still holds its object (a dead one is forgotten). Caller holds the lock.
static int holds(struct table *table, struct slot *slot, struct releases *releases) {
    if (!slot->live) {
        return 0;
    }
    void *strong = swift_weakLoadStrong(&slot->weak);
    if (strong == NULL) {
        forget(table, slot);
        return 0;
    }
    releases->objects[releases->count++] = strong;
    return 1;
}

// The live entry of `object`, or NULL. Caller holds the lock.
static struct slot *lookup(struct table *table, void *object, struct releases *releases) {
    size_t index = slot_index(object);
    for (int i = 0; i < PROBES; i++) {
        struct slot *slot = &table->slots[(index + i) % SLOTS];
        if (slot->live && slot->object == object && holds(table, slot, releases)) {
            if (releases->objects[releases->count - 1] == object) {
                return slot;
            }
        }
    }
    return NULL;
}

// Records `object` with its stack, over a free or dead entry, else over the first probed one
// (what it said is lost). Caller holds the lock.
static void insert(struct table *table, void *object, const void *const *frames, int count, struct releases *releases) {
    size_t index = slot_index(object);
    struct slot *victim = NULL;
    for (int i = 0; i < PROBES && victim == NULL; i++) {
        struct slot *slot = &table->slots[(index + i) % SLOTS];
        if (!holds(table, slot, releases)) {
            victim = slot;
        }
    }
    if (victim == NULL) {
        victim = &table->slots[index % SLOTS];
        forget(table, victim);
    }
    victim->object = object;
    swift_weakInit(&victim->weak, object);
    victim->live = 1;
    atomic_fetch_add_explicit(&table->live, 1, memory_order_relaxed);
    victim->frame_count = count;
    if (count > 0) {
        memcpy(victim->frames, frames, sizeof(void *) * (size_t)count);
    }
}

static void release_all(struct releases *releases) {
    for (int i = 0; i < releases->count; i++) {
        swift_release(releases->objects[i]);
    }
    releases->count = 0;
}

// The stack of the offending call: the app's call site first, then its callers.
static int capture(void **frames, const void *call_site) {
    void *captured[RDIAG_STREAM_DEPTH + 8];
    int count = rdiag_capture_stack(captured, RDIAG_STREAM_DEPTH + 8);
    int kept = 0;
    frames[kept++] = (void *)call_site;
    for (int i = 0; i < count; i++) {
        if (captured[i] == call_site) {
            for (int j = i + 1; j < count && kept < RDIAG_STREAM_DEPTH; j++) {
                frames[kept++] = captured[j];
            }
            break;
        }
    }
    return kept;
}

static void report(
    struct rdiag_stream_event *event, int misuse, int api, const void *object, const void *type,
    const struct slot *earlier) {
    rdiag_stream_event_fn hook = atomic_load_explicit(&event_hook, memory_order_acquire);
    if (hook == NULL) {
        return;
    }
    event->misuse = misuse;
    event->api = api;
    event->object = object;
    event->type = type;
    event->earlier_frame_count = earlier != NULL ? earlier->frame_count : 0;
    if (earlier != NULL) {
        memcpy(event->earlier_frames, earlier->frames, sizeof(void *) * (size_t)earlier->frame_count);
    }
    hook(event);
}

// A stream's finish, yield or `makeAsyncIterator()`: looks `object` up in `table`, records it
// there when `records` and it is not; returns 1 (with the earlier stack in `earlier`) when it was.
static int seen_before(struct table *table, void *object, int records, const void *const *frames, int count,
                       struct slot *earlier) {
    struct releases releases = {.count = 0};
    pthread_mutex_lock(&lock);
    struct slot *slot = lookup(table, object, &releases);
    if (slot != NULL) {
        *earlier = *slot;
    } else if (records) {
        insert(table, object, frames, count, &releases);
    }
    pthread_mutex_unlock(&lock);
    release_all(&releases);
    return slot != NULL;
}

static int is_yield(int api) {
    return api == RDIAG_STREAM_YIELD || api == RDIAG_STREAM_YIELD_WITH || api == RDIAG_STREAM_YIELD_VOID
        || api == RDIAG_THROWING_STREAM_YIELD || api == RDIAG_THROWING_STREAM_YIELD_WITH
        || api == RDIAG_THROWING_STREAM_YIELD_VOID;
}

static const void *type_of(const struct rdiag_stream_registers *r, int api) {
    int index = type_argument[api];
    return index < 0 ? NULL : (const void *)ARGUMENT(r, index);
}

static void *real_function(int api) {
    void *real = real_functions[api];
    if (real == NULL) {
        // The app calls an entry point this runtime lacks: without us it would not have loaded.
        fprintf(stderr, "ReactiveDiagnostics: the Swift runtime has no %s\n", names[api]);
        abort();
    }
    return real;
}

__attribute__((visibility("hidden"))) void *rdiag_stream_hook_pre(struct rdiag_stream_registers *r) {
    int api = (int)r->id;
    if (atomic_load_explicit(&open_tests, memory_order_relaxed) <= 0 || suppressed != 0 || in_hook != 0) {
        return real_function(api);
    }
    in_hook = 1;
    atomic_fetch_add_explicit(&call_counts[api], 1, memory_order_relaxed);
    r->flags = FLAG_LOOKED;
    void *result = real_function(api);
    const void *call_site = (const void *)r->return_address;
    struct rdiag_stream_event event;
    struct slot earlier;
    if (api == RDIAG_CONTINUATION_INIT) {
        // Checked after the call (rdiag_stream_hook_post).
    } else if (api == RDIAG_STREAM_FINISH || api == RDIAG_THROWING_STREAM_FINISH) {
        // `self` is passed indirectly: the swiftself register points to the continuation,
        // whose one word is the storage.
        void *object = *(void **)SELF(r);
        event.frame_count = capture(event.frames, call_site);
        if (seen_before(&finished, object, 1, (const void *const *)event.frames, event.frame_count, &earlier)) {
            report(&event, RDIAG_STREAM_FINISHED_TWICE, api, object, type_of(r, api), &earlier);
        }
    } else if (api == RDIAG_STREAM_MAKE_ITERATOR || api == RDIAG_THROWING_STREAM_MAKE_ITERATOR) {
        void *object = *(void **)SELF(r);  // the stream: one reference to its context
        event.frame_count = capture(event.frames, call_site);
        if (atomic_load_explicit(&adopted.live, memory_order_relaxed) > 0
            && seen_before(&adopted, object, 0, NULL, 0, &earlier)) {
            // The library's own stream.
        } else if (seen_before(&iterated, object, 1, (const void *const *)event.frames, event.frame_count, &earlier)) {
            report(&event, RDIAG_STREAM_SECOND_ITERATOR, api, object, type_of(r, api), &earlier);
        }
    } else if (is_yield(api)) {
        void *object = *(void **)SELF(r);
        if (atomic_load_explicit(&finished.live, memory_order_relaxed) > 0
            && seen_before(&finished, object, 0, NULL, 0, &earlier)) {
            r->flags |= FLAG_REPORTED;
            event.frame_count = capture(event.frames, call_site);
            report(&event, RDIAG_STREAM_VALUE_AFTER_FINISH, api, object, type_of(r, api), &earlier);
        }
    } else if (api == RDIAG_CONTINUATION_RESUME_RETURNING || api == RDIAG_CONTINUATION_RESUME_THROWING) {
        long offset = atomic_load_explicit(&canary_offset, memory_order_acquire);
        void *canary = *(void **)SELF(r);
        if (offset >= 0) {
            void *pending = __atomic_load_n((void **)((char *)canary + offset), __ATOMIC_ACQUIRE);
            struct slot *slot = &resumed[slot_index(canary) % SLOTS];
            event.frame_count = capture(event.frames, call_site);
            if (pending != NULL) {
                // The first resume: remember its stack.
                pthread_mutex_lock(&lock);
                slot->object = canary;
                slot->frame_count = event.frame_count;
                memcpy(slot->frames, event.frames, sizeof(void *) * (size_t)event.frame_count);
                pthread_mutex_unlock(&lock);
            } else {
                pthread_mutex_lock(&lock);
                earlier = *slot;
                pthread_mutex_unlock(&lock);
                const void *type = type_of(r, api);
                report(&event, RDIAG_CONTINUATION_RESUMED_TWICE, api, canary, type,
                       earlier.object == canary ? &earlier : NULL);
                // Dropped instead of trapping. The argument is `__owned`: destroy it with the
                // value witness of T (or E), the type's first (or second) generic argument.
                const void *argument_type = ((const void *const *)type)[api == RDIAG_CONTINUATION_RESUME_RETURNING ? 2 : 3];
                void *const *witnesses = ((void *const *const *)argument_type)[-1];
                void (*destroy)(void *, const void *) = (void (*)(void *, const void *))witnesses[1];
                destroy((void *)ARGUMENT(r, 0), argument_type);
                result = (void *)rdiag_stream_skip_return;
            }
        }
    }
    in_hook = 0;
    return result;
}

__attribute__((visibility("hidden"))) void rdiag_stream_hook_post(struct rdiag_stream_registers *r) {
    int api = (int)r->id;
    if (r->flags != FLAG_LOOKED || in_hook != 0) {
        return;
    }
    in_hook = 1;
    struct rdiag_stream_event event;
    if (api == RDIAG_CONTINUATION_INIT) {
        // Every client-side init (release builds) checks the canary layout: the canary holds
        // the UnsafeContinuation and the function name the init was given.
        void *canary = *(void **)INDIRECT_RESULT(r);
        long offset = atomic_load_explicit(&canary_offset, memory_order_acquire);
        const uint64_t *words = (const uint64_t *)((char *)canary + (offset >= 0 ? offset : 0));
        if (offset >= 0 && (words[0] != ARGUMENT(r, 0) || words[1] != ARGUMENT(r, 1) || words[2] != ARGUMENT(r, 2))) {
            atomic_store_explicit(&canary_offset, -1, memory_order_release);
            event.frame_count = capture(event.frames, (const void *)r->return_address);
            report(&event, RDIAG_CONTINUATION_LAYOUT_CHANGED, api, canary, NULL, NULL);
        }
    } else {
        rdiag_yield_result_fn decode = atomic_load_explicit(&yield_result_hook, memory_order_acquire);
        const void *type = type_of(r, api);
        if (decode != NULL && decode(api, (const void *)INDIRECT_RESULT(r), type) == 2) {
            // Terminated with no finish seen: the consumer went away. Told once per stream.
            void *object = *(void **)SELF(r);
            struct slot earlier;
            event.frame_count = capture(event.frames, (const void *)r->return_address);
            if (!seen_before(&gone, object, 1, (const void *const *)event.frames, event.frame_count, &earlier)) {
                report(&event, RDIAG_STREAM_VALUE_AFTER_CONSUMER_GONE, api, object, type, NULL);
            }
        }
    }
    in_hook = 0;
}

int rdiag_stream_hook_available(void) {
    for (int i = 0; i < RDIAG_STREAM_API_COUNT; i++) {
        if (real_functions[i] == NULL) {
            return 0;
        }
    }
    return 1;
}

void rdiag_stream_hook_set(rdiag_stream_event_fn _Nullable event, rdiag_yield_result_fn _Nullable yield_result) {
    atomic_store_explicit(&yield_result_hook, yield_result, memory_order_release);
    atomic_store_explicit(&event_hook, event, memory_order_release);
}

void rdiag_stream_hook_tests(int delta) {
    atomic_fetch_add_explicit(&open_tests, delta, memory_order_relaxed);
}

void rdiag_stream_hook_suppress(int delta) {
    suppressed += delta;
}

void rdiag_stream_hook_adopt(const void *_Nonnull stream) {
    struct slot earlier;
    seen_before(&adopted, (void *)stream, 1, NULL, 0, &earlier);
}

int rdiag_stream_hook_tables(const void *_Nonnull *_Nonnull starts, unsigned long *_Nonnull sizes, int capacity) {
    const void *tables[] = {&finished, &iterated, &gone, &adopted, resumed};
    const unsigned long lengths[] = {sizeof finished, sizeof iterated, sizeof gone, sizeof adopted, sizeof resumed};
    int count = (int)(sizeof tables / sizeof tables[0]);
    for (int index = 0; index < count && index < capacity; index++) {
        starts[index] = tables[index];
        sizes[index] = lengths[index];
    }
    return count < capacity ? count : capacity;
}

void rdiag_stream_hook_set_canary_offset(long offset) {
    atomic_store_explicit(&canary_offset, offset, memory_order_release);
}

long rdiag_stream_hook_canary_offset(void) {
    return atomic_load_explicit(&canary_offset, memory_order_acquire);
}

uint64_t rdiag_stream_hook_calls(int api) {
    return api >= 0 && api < RDIAG_STREAM_API_COUNT ? atomic_load_explicit(&call_counts[api], memory_order_relaxed) : 0;
}

#else

int rdiag_stream_hook_available(void) {
    return 0;
}

void rdiag_stream_hook_set(rdiag_stream_event_fn _Nullable event, rdiag_yield_result_fn _Nullable yield_result) {
    (void)event;
    (void)yield_result;
}

void rdiag_stream_hook_tests(int delta) {
    (void)delta;
}

void rdiag_stream_hook_suppress(int delta) {
    (void)delta;
}

void rdiag_stream_hook_adopt(const void *_Nonnull stream) {
    (void)stream;
}

void rdiag_stream_hook_set_canary_offset(long offset) {
    (void)offset;
}

long rdiag_stream_hook_canary_offset(void) {
    return -1;
}

uint64_t rdiag_stream_hook_calls(int api) {
    (void)api;
    return 0;
}

#endif
