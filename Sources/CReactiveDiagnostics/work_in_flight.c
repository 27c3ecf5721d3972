#include "CReactiveDiagnostics.h"

// Work in flight: what may still run after a test's body has returned and release what the test
// left alive. The settle loop waits while there is some and decides at once when there is none.
//
// Timed work: `dispatch_after` and `dispatch_after_f` (what `DispatchQueue.asyncAfter`, a
// `DispatchQueue` scheduler's `schedule(after:)` and Swift Concurrency's sleeps on Linux call).
// As with `swift_task_create` (task_hook.c), the test executable's own definitions below are
// the ones the code under test and the shared libraries (libswiftDispatch, libswift_Concurrency)
// bind to; they forward to libdispatch's (`dlsym(RTLD_NEXT)`), wrapping the work so that its
// due time is kept in a table from the call until the work has run. Untracked (forwarded as
// they are) until the engine arms them. The table keeps the soonest-due work; what it has no
// slot for is counted, with the earliest time any of it is due, and is in flight from then on.
//
// Hops: `dispatch_async` and `dispatch_async_f` (what `DispatchQueue.async`, a `DispatchQueue`
// scheduler's `schedule` and `subscribe(on:)`/`receive(on:)` call) keep the test the caller
// works for with the work, and the work runs as that test's: timed work it schedules is that
// test's too (Swift Testing runs tests in parallel, and a test whose code hops to a queue and
// schedules a timer there must not hold every other test's settle). Only work submitted for a
// known test is wrapped; a block libdispatch made itself (`DispatchWorkItem`, whose flags, such
// as a barrier, libdispatch reads from the block) is forwarded as it is.
//
// Running threads: a thread of the process other than the caller that is running, or sleeping
// for a time (`nanosleep`, `clock_nanosleep`: `Thread.sleep`, `usleep`), read from
// /proc/self/task; not one inside the library's own work (`rdiag_own_work_begin`).

#include <stdint.h>
#include <string.h>

#if defined(__linux__)
#include "next_definition.h"
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef void (*dispatch_after_f_fn)(uint64_t when, void *queue, void *context, void (*work)(void *));
typedef void (*dispatch_after_fn)(uint64_t when, void *queue, void *block);

// The Blocks runtime (libBlocksRuntime, which libdispatch links): weak, as a process without
// it has no blocks to copy.
extern void *_Block_copy(const void *block) __attribute__((weak));
extern void _Block_release(const void *block) __attribute__((weak));

enum { TIMED_SLOTS = 2048 };
// Work overdue by more than this is not coming: its queue is suspended, or the process was
// forked after it was scheduled (a child has none of its parent's threads).
static const uint64_t STALE_NS = 1000000000ull;

static _Atomic(void *) real_after_f;
static _Atomic(void *) real_after;
static atomic_int armed;
static pthread_mutex_t timed_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t timed_due[TIMED_SLOTS];   // CLOCK_MONOTONIC ns; 0 = free
static uint64_t timed_sequence[TIMED_SLOTS];   // which piece of work holds the slot
static uint64_t timed_owner[TIMED_SLOTS];   // the test it was scheduled for; 0 = none known
static _Atomic(void *) owner_reader;   // uint64_t (*)(void): the test the caller works for
static uint64_t next_sequence;
// The test the work running on this thread was submitted for (run_owned, run_timed), or 0.
static _Thread_local uint64_t inherited_owner;
// Pending work the table keeps no slot for (the table keeps the soonest due), and the earliest
// time any of it is due (a lower bound: it only grows back when all of it has run).
static int timed_overflow;
static uint64_t overflow_due = UINT64_MAX;
// Free slots, a stack (`free_count` < 0: not filled yet), so that taking one is O(1): XCTest on
// Linux schedules a 30-day timeout for every async test that never fires, and a scan for a free
// slot went past all of them (about 10 µs a test at -O0 once a suite had run 1,000 tests).
static int free_slots[TIMED_SLOTS];
static int free_count = -1;
// The slot of the work due latest, once the table is full (-1: unknown, found by a scan when
// needed); kept while later work goes to the overflow, as XCTest's timeouts do.
static int latest_slot = -1;

// Work wrapped with the test it was submitted for: a function and its context, or a block.
// It starts with the test's number (small, or 0), never a pointer: a memory scan for what holds
// a leaked object (the retain-path walker) that lands in one must not take its first word, the
// work's context (often a Swift object), for an object's metadata.
typedef struct {
    uint64_t owner;
    void *context;
    void (*work)(void *);
    void *block;
} owned_work;

// Timed work: the work, and its slot in the table of due times.
typedef struct {
    owned_work run; // first: see owned_work
    int slot;
    uint64_t sequence;
} timed_work;

static uint64_t clock_ns(clockid_t clock) {
    struct timespec now;
    clock_gettime(clock, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

// dispatch_time_t on Linux: 0 now, ~0 forever; bit 63 clear: CLOCK_MONOTONIC ns ("uptime");
// bits 63 and 62 set: wall-clock ns; bit 63 alone: CLOCK_BOOTTIME ns. As CLOCK_MONOTONIC ns.
static uint64_t due_time(uint64_t when) {
    uint64_t now = clock_ns(CLOCK_MONOTONIC);
    if (when == 0) {
        return now;
    }
    if ((when >> 63) == 0) {
        return when;
    }
    uint64_t value = when & ~(3ull << 62);
    uint64_t base = ((when >> 62) & 1) ? clock_ns(CLOCK_REALTIME) : clock_ns(CLOCK_BOOTTIME);
    return value > base ? now + (value - base) : now;
}

// Work counted without a slot, due at `due`. Under the lock.
static void overflow_add(uint64_t due) {
    timed_overflow += 1;
    if (due < overflow_due) {
        overflow_due = due;
    }
}

// Under the lock: the free-slot stack, filled on first use (lowest slots first).
static void fill_free_slots(void) {
    free_count = 0;
    for (int index = TIMED_SLOTS - 1; index >= 0; index--) {
        if (timed_due[index] == 0) {
            free_slots[free_count++] = index;
        }
    }
}

// A slot for work due at `due` (its sequence in `*sequence`), or -1 when it is counted as
// overflow. When the table is full, the work due latest gives its slot to work due sooner: a
// process with thousands of far-future timers pending (a framework's "never" as 30 days ahead)
// still has its soon-due work in the table, and the overflow is known to be due only later.
static int take_slot(uint64_t due, uint64_t owner, uint64_t *sequence) {
    due = due == 0 ? 1 : due;
    pthread_mutex_lock(&timed_lock);
    if (free_count < 0) {
        fill_free_slots();
    }
    int slot = -1;
    if (free_count > 0) {
        slot = free_slots[--free_count];
        if (latest_slot >= 0 && due > timed_due[latest_slot]) {
            latest_slot = slot;
        }
    } else {
        if (latest_slot < 0) {
            latest_slot = 0;
            for (int index = 1; index < TIMED_SLOTS; index++) {
                if (timed_due[index] > timed_due[latest_slot]) {
                    latest_slot = index;
                }
            }
        }
        if (timed_due[latest_slot] > due) {
            overflow_add(timed_due[latest_slot]);
            slot = latest_slot;
            latest_slot = -1;
        }
    }
    if (slot >= 0) {
        timed_due[slot] = due;
        timed_owner[slot] = owner;
        timed_sequence[slot] = ++next_sequence;
        *sequence = next_sequence;
    } else {
        overflow_add(due);
        *sequence = 0;
    }
    pthread_mutex_unlock(&timed_lock);
    return slot;
}

static void give_slot(int slot, uint64_t sequence) {
    pthread_mutex_lock(&timed_lock);
    if (slot >= 0 && timed_sequence[slot] == sequence && timed_due[slot] != 0) {
        timed_due[slot] = 0;
        if (free_count >= 0) {
            free_slots[free_count++] = slot;
        }
        if (slot == latest_slot) {
            latest_slot = -1;
        }
    } else if (timed_overflow > 0) {
        timed_overflow -= 1;
        if (timed_overflow == 0) {
            overflow_due = UINT64_MAX;
        }
    }
    pthread_mutex_unlock(&timed_lock);
}

// The Blocks ABI: the function a block runs is its fourth word.
struct block_layout {
    void *isa;
    int flags;
    int reserved;
    void (*invoke)(void *);
};

// Runs the work as its test's (the thread's inherited owner meanwhile), and releases its block.
static void run_as_owner(const owned_work *work) {
    uint64_t saved = inherited_owner;
    inherited_owner = work->owner;
    if (work->block != NULL) {
        ((struct block_layout *)work->block)->invoke(work->block);
        _Block_release(work->block);
    } else {
        work->work(work->context);
    }
    inherited_owner = saved;
}

static void run_timed(void *context) {
    timed_work *work = context;
    run_as_owner(&work->run);
    give_slot(work->slot, work->sequence);
    free(work);
}

// The test the caller works for: its own (a thread-local or task-local the reader reads), else
// the one of the work it runs; or 0.
static uint64_t current_owner(void) {
    uint64_t (*reader)(void) = (uint64_t (*)(void))atomic_load_explicit(&owner_reader, memory_order_relaxed);
    uint64_t owner = reader != NULL ? reader() : 0;
    return owner != 0 ? owner : inherited_owner;
}

void rdiag_timed_work_set_owner_reader(uint64_t (*reader)(void)) {
    atomic_store_explicit(&owner_reader, (void *)reader, memory_order_relaxed);
}

static dispatch_after_f_fn resolve_after_f(void) {
    return (dispatch_after_f_fn)rdiag_next_definition(&real_after_f, "dispatch_after_f");
}

static dispatch_after_fn resolve_after(void) {
    return (dispatch_after_fn)rdiag_next_definition(&real_after, "dispatch_after");
}

__attribute__((visibility("default"), noinline)) void dispatch_after_f(
    uint64_t when, void *queue, void *context, void (*work)(void *)) {
    dispatch_after_f_fn real = resolve_after_f();
    if (real == NULL) {
        __builtin_trap();
    }
    timed_work *wrapped = NULL;
    if (atomic_load_explicit(&armed, memory_order_relaxed) && when != ~0ull) {
        wrapped = malloc(sizeof *wrapped);
    }
    if (wrapped == NULL) {
        real(when, queue, context, work);
        return;
    }
    *wrapped = (timed_work){.run = {.owner = current_owner(), .context = context, .work = work, .block = NULL}};
    wrapped->slot = take_slot(due_time(when), wrapped->run.owner, &wrapped->sequence);
    real(when, queue, wrapped, run_timed);
}

__attribute__((visibility("default"), noinline)) void dispatch_after(uint64_t when, void *queue, void *block) {
    dispatch_after_fn real = resolve_after();
    dispatch_after_f_fn real_f = resolve_after_f();
    if (real == NULL) {
        __builtin_trap();
    }
    timed_work *wrapped = NULL;
    if (atomic_load_explicit(&armed, memory_order_relaxed) && when != ~0ull && real_f != NULL
        && _Block_copy != NULL && _Block_release != NULL) {
        wrapped = malloc(sizeof *wrapped);
    }
    if (wrapped == NULL) {
        real(when, queue, block);
        return;
    }
    *wrapped = (timed_work){.run = {.owner = current_owner(), .context = NULL, .work = NULL, .block = _Block_copy(block)}};
    wrapped->slot = take_slot(due_time(when), wrapped->run.owner, &wrapped->sequence);
    real_f(when, queue, wrapped, run_timed);
}

typedef void (*dispatch_async_f_fn)(void *queue, void *context, void (*work)(void *));
typedef void (*dispatch_async_fn)(void *queue, void *block);

static _Atomic(void *) real_async_f;
static _Atomic(void *) real_async;

static void run_owned(void *context) {
    run_as_owner(context);
    free(context);
}

// The address range of libdispatch's code, learnt from its own `dispatch_async` (the next
// definition: under Thread Sanitizer, the one we forward to is the sanitizer's, in the
// executable): a block whose function lies there is one libdispatch made (dispatch_block_create,
// DispatchWorkItem).
static _Atomic(uintptr_t) dispatch_text_start;
static _Atomic(uintptr_t) dispatch_text_end;
static atomic_int dispatch_text_known;

static int find_dispatch_text(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    uintptr_t address = (uintptr_t)data;
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD || (header->p_flags & PF_X) == 0) {
            continue;
        }
        uintptr_t start = info->dlpi_addr + header->p_vaddr;
        uintptr_t end = start + header->p_memsz;
        if (address >= start && address < end) {
            atomic_store_explicit(&dispatch_text_start, start, memory_order_relaxed);
            atomic_store_explicit(&dispatch_text_end, end, memory_order_relaxed);
            return 1;
        }
    }
    return 0;
}

static int made_by_dispatch(void *block) {
    if (atomic_load_explicit(&dispatch_text_known, memory_order_acquire) == 0) {
        void *libdispatch_async = dlsym(RTLD_NEXT, "dispatch_async");
        if (libdispatch_async != NULL) {
            dl_iterate_phdr(find_dispatch_text, libdispatch_async);
        }
        atomic_store_explicit(&dispatch_text_known, 1, memory_order_release);
    }
    uintptr_t invoke = (uintptr_t)((struct block_layout *)block)->invoke;
    return invoke >= atomic_load_explicit(&dispatch_text_start, memory_order_relaxed)
        && invoke < atomic_load_explicit(&dispatch_text_end, memory_order_relaxed);
}

__attribute__((visibility("default"), noinline)) void dispatch_async_f(
    void *queue, void *context, void (*work)(void *)) {
    dispatch_async_f_fn real = (dispatch_async_f_fn)rdiag_next_definition(&real_async_f, "dispatch_async_f");
    if (real == NULL) {
        __builtin_trap();
    }
    uint64_t owner = atomic_load_explicit(&armed, memory_order_relaxed) ? current_owner() : 0;
    owned_work *wrapped = owner != 0 ? malloc(sizeof *wrapped) : NULL;
    if (wrapped == NULL) {
        real(queue, context, work);
        return;
    }
    *wrapped = (owned_work){.context = context, .work = work, .block = NULL, .owner = owner};
    real(queue, wrapped, run_owned);
}

__attribute__((visibility("default"), noinline)) void dispatch_async(void *queue, void *block) {
    dispatch_async_fn real = (dispatch_async_fn)rdiag_next_definition(&real_async, "dispatch_async");
    dispatch_async_f_fn real_f = (dispatch_async_f_fn)rdiag_next_definition(&real_async_f, "dispatch_async_f");
    if (real == NULL) {
        __builtin_trap();
    }
    uint64_t owner = 0;
    if (atomic_load_explicit(&armed, memory_order_relaxed) && real_f != NULL && _Block_copy != NULL
        && _Block_release != NULL) {
        owner = current_owner();
    }
    owned_work *wrapped = owner != 0 && !made_by_dispatch(block) ? malloc(sizeof *wrapped) : NULL;
    if (wrapped == NULL) {
        real(queue, block);
        return;
    }
    *wrapped = (owned_work){.context = NULL, .work = NULL, .block = _Block_copy(block), .owner = owner};
    real_f(queue, wrapped, run_owned);
}

int rdiag_timed_work_available(void) {
    return resolve_after_f() != NULL && resolve_after() != NULL && _Block_copy != NULL;
}

// A forked child runs none of the work its parent had scheduled: forget it.
static void forget_in_child(void) {
    memset(timed_due, 0, sizeof timed_due);
    free_count = -1;
    latest_slot = -1;
    timed_overflow = 0;
    overflow_due = UINT64_MAX;
    pthread_mutex_init(&timed_lock, NULL);
}

void rdiag_timed_work_arm(void) {
    if (atomic_exchange_explicit(&armed, 1, memory_order_relaxed) == 0) {
        pthread_atfork(NULL, NULL, forget_in_child);
    }
}

int rdiag_timed_work_due_within(uint64_t nanoseconds, uint64_t owner) {
    uint64_t now = clock_ns(CLOCK_MONOTONIC);
    uint64_t limit = now + nanoseconds;
    uint64_t stale = now > STALE_NS ? now - STALE_NS : 0;
    int due = 0;
    pthread_mutex_lock(&timed_lock);
    if (timed_overflow > 0 && overflow_due <= limit) {
        due += timed_overflow;
    }
    for (int index = 0; index < TIMED_SLOTS; index++) {
        if (timed_due[index] > stale && timed_due[index] <= limit &&
            (owner == 0 || timed_owner[index] == 0 || timed_owner[index] == owner)) {
            due += 1;
        }
    }
    pthread_mutex_unlock(&timed_lock);
    return due;
}

int rdiag_timed_work_pending_for(uint64_t owner) {
    int pending = 0;
    pthread_mutex_lock(&timed_lock);
    for (int index = 0; index < TIMED_SLOTS; index++) {
        if (timed_due[index] != 0 && timed_owner[index] == owner) {
            pending += 1;
        }
    }
    pthread_mutex_unlock(&timed_lock);
    return pending;
}

// Threads doing the library's own work (at most OWN_THREADS at once; more are counted as busy).
enum { OWN_THREADS = 16 };
static _Atomic long own_threads[OWN_THREADS];

void rdiag_own_work_begin(void) {
    long self = (long)syscall(SYS_gettid);
    for (int index = 0; index < OWN_THREADS; index++) {
        long expected = 0;
        if (atomic_compare_exchange_strong(&own_threads[index], &expected, self)) {
            return;
        }
    }
}

void rdiag_own_work_end(void) {
    long self = (long)syscall(SYS_gettid);
    for (int index = 0; index < OWN_THREADS; index++) {
        long expected = self;
        if (atomic_compare_exchange_strong(&own_threads[index], &expected, 0)) {
            return;
        }
    }
}

static int is_own_thread(long tid) {
    for (int index = 0; index < OWN_THREADS; index++) {
        if (atomic_load_explicit(&own_threads[index], memory_order_relaxed) == tid) {
            return 1;
        }
    }
    return 0;
}

// A thread's state and, when sleeping, its system call: "R" running, or a timed sleep.
static int thread_is_busy(const char *tid) {
    if (is_own_thread(strtol(tid, NULL, 10))) {
        return 0;
    }
    char path[64];
    char text[512];
    snprintf(path, sizeof path, "/proc/self/task/%s/stat", tid);
    int file = open(path, O_RDONLY | O_CLOEXEC);
    if (file < 0) {
        return 0;   // ended meanwhile
    }
    ssize_t length = read(file, text, sizeof text - 1);
    close(file);
    if (length <= 0) {
        return 0;
    }
    text[length] = 0;
    const char *end = strrchr(text, ')');   // the name may hold spaces and parentheses
    if (end == NULL || end[1] == 0) {
        return 0;
    }
    char state = end[2];
    if (state == 'R') {
        return 1;
    }
    if (state != 'S') {
        return 0;
    }
    snprintf(path, sizeof path, "/proc/self/task/%s/syscall", tid);
    file = open(path, O_RDONLY | O_CLOEXEC);
    if (file < 0) {
        return 0;
    }
    length = read(file, text, sizeof text - 1);
    close(file);
    if (length <= 0) {
        return 0;
    }
    text[length] = 0;
    long number = strtol(text, NULL, 10);
    return number == SYS_nanosleep || number == SYS_clock_nanosleep;
}

int rdiag_thread_counts_as_busy(long tid) {
    char name[32];
    snprintf(name, sizeof name, "%ld", tid);
    return thread_is_busy(name);
}

long rdiag_current_thread_id(void) {
    return (long)syscall(SYS_gettid);
}

int rdiag_other_threads_busy(void) {
    DIR *tasks = opendir("/proc/self/task");
    if (tasks == NULL) {
        return -1;
    }
    char self[32];
    snprintf(self, sizeof self, "%ld", (long)syscall(SYS_gettid));
    int busy = 0;
    struct dirent *entry;
    while ((entry = readdir(tasks)) != NULL) {
        if (entry->d_name[0] == '.' || strcmp(entry->d_name, self) == 0) {
            continue;
        }
        if (thread_is_busy(entry->d_name)) {
            busy += 1;
        }
    }
    closedir(tasks);
    return busy;
}

#else

int rdiag_timed_work_available(void) { return 0; }
void rdiag_timed_work_arm(void) {}
void rdiag_timed_work_set_owner_reader(uint64_t (*reader)(void)) { (void)reader; }
int rdiag_timed_work_pending_for(uint64_t owner) {
    (void)owner;
    return 0;
}
int rdiag_timed_work_due_within(uint64_t nanoseconds, uint64_t owner) {
    (void)nanoseconds;
    (void)owner;
    return 0;
}
int rdiag_other_threads_busy(void) { return -1; }
void rdiag_own_work_begin(void) {}
void rdiag_own_work_end(void) {}
int rdiag_thread_counts_as_busy(long tid) {
    (void)tid;
    return 0;
}
long rdiag_current_thread_id(void) { return 0; }

#endif
