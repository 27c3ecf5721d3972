#include "CReactiveDiagnostics.h"

#include <stdint.h>
#include <string.h>

#if defined(__linux__)
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <pthread.h>
#else
#include <execinfo.h>
#endif

// Two ways to walk the calling thread's stack.
//
// * `rdiag_backtrace` is libunwind's `unw_backtrace`: it finds each caller from the DWARF call
//   frame information, cached per return address (about 80 instructions a frame plus a fixed
//   ~300 to set up its cursor).
// * `rdiag_capture_stack` follows the frame-pointer chain (two loads a frame) through every frame
//   whose return address libunwind has confirmed keeps a frame pointer at that call site. A
//   return address is learned once, process-wide, by walking the stack with a libunwind cursor
//   and comparing its registers with the frame records; one that is unknown, does not keep a
//   frame pointer (most of glibc), or ends the stack sends the whole capture to libunwind. Both
//   return the same addresses for the same stack, so interning and fingerprints never see which
//   one ran.

#if defined(__linux__) && defined(__x86_64__)

// MARK: Return addresses libunwind confirmed

enum {
    FRAME_UNKNOWN = 0,
    FRAME_POINTER = 1,   // the caller at this return address keeps its frame pointer in %rbp
    FRAME_OTHER = 2,     // it does not (or libunwind could not tell): libunwind walks past it
    FRAME_LAST = 3,      // libunwind's walk ends with this frame
};

#define TABLE_BITS 15
#define TABLE_SIZE (1u << TABLE_BITS)
#define TABLE_PROBES 16

// Open addressing; an entry is (return address << 2) | state and never changes once written
// (the same address always earns the same state), so readers need no lock.
static uint64_t frame_table[TABLE_SIZE];
static int fast_path_enabled = 1;

static inline uint32_t table_slot(uintptr_t address) {
    return (uint32_t)(((uint64_t)address * 0x9E3779B97F4A7C15ull) >> (64 - TABLE_BITS));
}

static inline int frame_state(uintptr_t address) {
    uint32_t slot = table_slot(address);
    for (int probe = 0; probe < TABLE_PROBES; probe++) {
        uint64_t entry = __atomic_load_n(&frame_table[slot], __ATOMIC_RELAXED);
        if (entry == 0) {
            return FRAME_UNKNOWN;
        }
        if ((entry >> 2) == (uint64_t)address) {
            return (int)(entry & 3);
        }
        slot = (slot + 1) & (TABLE_SIZE - 1);
    }
    return FRAME_UNKNOWN;
}

static void remember_frame(uintptr_t address, int state) {
    uint64_t wanted = ((uint64_t)address << 2) | (uint64_t)state;
    uint32_t slot = table_slot(address);
    for (int probe = 0; probe < TABLE_PROBES; probe++) {
        uint64_t expected = 0;
        if (__atomic_compare_exchange_n(&frame_table[slot], &expected, wanted, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED)) {
            return;
        }
        if ((expected >> 2) == (uint64_t)address) {
            return;  // another thread learned it first
        }
        slot = (slot + 1) & (TABLE_SIZE - 1);
    }
    // Full around this slot: the address stays unknown and its stacks go to libunwind.
}

// MARK: The calling thread's stack

static _Thread_local uintptr_t thread_stack_top __attribute__((tls_model("initial-exec")));

// The highest address of the calling thread's stack (0 if it cannot be known): frame records
// are only read below it.
static uintptr_t stack_top(void) {
    uintptr_t top = thread_stack_top;
    if (top != 0) {
        return top;
    }
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
        void *base = NULL;
        size_t size = 0;
        if (pthread_attr_getstack(&attributes, &base, &size) == 0) {
            top = (uintptr_t)base + size;
        }
        pthread_attr_destroy(&attributes);
    }
    thread_stack_top = top;
    return top;
}

// MARK: Learning

#define LEARN_LIMIT (RDIAG_MAXIMUM_DEPTH + 8)

// Walks the whole stack with a libunwind cursor and records, for every return address, whether
// its caller's frame record sits where the frame pointer says: %rbp of that frame + 16 is the
// caller's stack pointer after the return (its canonical frame address), and the record holds
// the next return address and the next frame's %rbp. Writes the walk's return addresses that
// follow `first` (the return address of `rdiag_capture_stack`) to `buffer`, as
// `rdiag_backtrace` would; returns how many, or -1 when `first` was not found.
__attribute__((noinline))
static int learn_frames(uintptr_t first, void **buffer, int depth) {
    // This function's own frames and rdiag_capture_stack's come first: a few more than `depth`.
    int limit = depth + 4 < LEARN_LIMIT ? depth + 4 : LEARN_LIMIT;
    unw_context_t context;
    unw_cursor_t cursor;
    if (unw_getcontext(&context) != 0 || unw_init_local(&cursor, &context) != 0) {
        return -1;
    }
    uintptr_t ips[LEARN_LIMIT + 1];
    uintptr_t sps[LEARN_LIMIT + 1];
    uintptr_t rbps[LEARN_LIMIT + 1];
    int count = 0;
    int ended = 0;
    while (count <= limit) {
        int step = unw_step(&cursor);
        if (step <= 0) {
            ended = step == 0;
            break;
        }
        unw_word_t ip = 0, sp = 0, rbp = 0;
        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0 || unw_get_reg(&cursor, UNW_REG_SP, &sp) != 0
            || unw_get_reg(&cursor, UNW_X86_64_RBP, &rbp) != 0) {
            break;
        }
        ips[count] = (uintptr_t)ip;
        sps[count] = (uintptr_t)sp;
        rbps[count] = (uintptr_t)rbp;
        count++;
    }
    for (int index = 0; index < count; index++) {
        if (index + 1 < count) {
            uintptr_t record = rbps[index];
            int keeps = record != 0 && (record & 7) == 0 && record + 16 == sps[index + 1]
                && ((uintptr_t *)record)[1] == ips[index + 1] && ((uintptr_t *)record)[0] == rbps[index + 1];
            remember_frame(ips[index], keeps ? FRAME_POINTER : FRAME_OTHER);
        } else if (ended) {
            remember_frame(ips[index], FRAME_LAST);
        }
    }
    int start = -1;
    for (int index = 0; index < count; index++) {
        if (ips[index] == first) {
            start = index;
            break;
        }
    }
    if (start < 0) {
        return -1;
    }
    int written = 0;
    for (int index = start; index < count && written < depth; index++) {
        buffer[written++] = (void *)ips[index];
    }
    return written;
}

// MARK: The bottom of each thread's stack

// The outermost frames of a thread (thread entry in glibc, `__libc_start_main`) keep no frame
// pointer, so a walk that reaches them would need libunwind every time. They stay on the stack
// for the thread's whole life: the first time libunwind walks them, the thread remembers the
// frame record they hang from and what follows it.
#define TAIL_LIMIT 6

struct stack_bottom {
    uintptr_t frame;          // the frame record whose return address enters the tail
    uintptr_t saved;          // the frame pointer saved in that record
    int count;                // 0: nothing remembered
    uintptr_t tail[TAIL_LIMIT];
};

static _Thread_local struct stack_bottom thread_bottom __attribute__((tls_model("initial-exec")));

// libunwind's walk, from the caller of `rdiag_capture_stack` on. `frame` is the frame record the
// frame-pointer walk stopped at (its return address, `address`, is at `buffer[stopped]`).
__attribute__((noinline))
static int libunwind_from_caller(uintptr_t first, void **buffer, int depth, uintptr_t frame, uintptr_t address,
                                 int stopped) {
    void *addresses[RDIAG_MAXIMUM_DEPTH + 2];
    int count = unw_backtrace(addresses, depth + 2);
    for (int index = 0; index < count; index++) {
        if ((uintptr_t)addresses[index] == first) {
            int written = count - index < depth ? count - index : depth;
            memcpy(buffer, addresses + index, (size_t)written * sizeof(void *));
            // The stack ended a few frames after where the frame-pointer walk stopped: remember
            // that bottom for this thread.
            int tail = count - (index + stopped);
            if (frame != 0 && count < depth + 2 && tail > 0 && tail <= TAIL_LIMIT
                && (uintptr_t)addresses[index + stopped] == address) {
                thread_bottom.frame = frame;
                thread_bottom.saved = ((uintptr_t *)frame)[0];
                for (int entry = 0; entry < tail; entry++) {
                    thread_bottom.tail[entry] = (uintptr_t)addresses[index + stopped + entry];
                }
                thread_bottom.count = tail;
            }
            return written;
        }
    }
    return 0;
}

// Appends the remembered bottom of this thread's stack if the walk stopped at its frame record.
static inline int finish_at_bottom(uintptr_t frame, uintptr_t address, void **buffer, int count, int depth) {
    const struct stack_bottom *bottom = &thread_bottom;
    if (bottom->count == 0 || bottom->frame != frame || bottom->tail[0] != address
        || bottom->saved != ((uintptr_t *)frame)[0]) {
        return -1;
    }
    for (int entry = 1; entry < bottom->count && count < depth; entry++) {
        buffer[count++] = (void *)bottom->tail[entry];
    }
    return count;
}

__attribute__((noinline))
int rdiag_capture_stack(void **buffer, int depth) {
    if (depth <= 0) {
        return 0;
    }
    if (depth > RDIAG_MAXIMUM_DEPTH) {
        depth = RDIAG_MAXIMUM_DEPTH;
    }
    uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
    uintptr_t first = ((uintptr_t *)frame)[1];
    if (__atomic_load_n(&fast_path_enabled, __ATOMIC_RELAXED)) {
        uintptr_t top = stack_top();
        int count = 0;
        int learned = 0;
        while (top != 0) {
            uintptr_t address = ((uintptr_t *)frame)[1];
            buffer[count++] = (void *)address;
            if (count == depth) {
                return count;
            }
            int state = frame_state(address);
            if (state == FRAME_LAST) {
                return count;
            }
            if (state == FRAME_POINTER) {
                uintptr_t next = ((uintptr_t *)frame)[0];
                if (next > frame && next + 16 <= top && (next & 7) == 0) {
                    frame = next;
                    continue;
                }
            } else if (state == FRAME_OTHER) {
                int written = finish_at_bottom(frame, address, buffer, count, depth);
                if (written >= 0) {
                    return written;
                }
                return libunwind_from_caller(first, buffer, depth, frame, address, count - 1);
            } else if (state == FRAME_UNKNOWN && !learned) {
                // Learn every return address of this stack once, then use that walk.
                int written = learn_frames(first, buffer, depth);
                if (written >= 0) {
                    return written;
                }
                learned = 1;
            }
            break;
        }
    }
    return libunwind_from_caller(first, buffer, depth, 0, 0, 0);
}

void rdiag_capture_stack_set_fast_path(int enabled) {
    __atomic_store_n(&fast_path_enabled, enabled ? 1 : 0, __ATOMIC_RELAXED);
}

int rdiag_capture_stack_frame_kind(uintptr_t address) {
    return frame_state(address);
}

int rdiag_frame_pointer_walk(void **buffer, int depth) {
    if (depth <= 0) {
        return 0;
    }
    uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
    uintptr_t top = stack_top();
    int count = 0;
    while (count < depth && top != 0) {
        buffer[count++] = (void *)((uintptr_t *)frame)[1];
        uintptr_t next = ((uintptr_t *)frame)[0];
        if (next <= frame || next + 16 > top || (next & 7) != 0) {
            break;
        }
        frame = next;
    }
    return count;
}

#else  // No frame-pointer path: every capture is libunwind's (or execinfo's) walk.

__attribute__((noinline))
int rdiag_capture_stack(void **buffer, int depth) {
    if (depth <= 0) {
        return 0;
    }
    if (depth > RDIAG_MAXIMUM_DEPTH) {
        depth = RDIAG_MAXIMUM_DEPTH;
    }
    void *addresses[RDIAG_MAXIMUM_DEPTH + 2];
    int count = rdiag_backtrace(addresses, depth + 1);
    if (count <= 1) {
        return 0;
    }
    memcpy(buffer, addresses + 1, (size_t)(count - 1) * sizeof(void *));
    return count - 1;
}

void rdiag_capture_stack_set_fast_path(int enabled) {
    (void)enabled;
}

int rdiag_capture_stack_frame_kind(uintptr_t address) {
    (void)address;
    return 0;
}

int rdiag_frame_pointer_walk(void **buffer, int depth) {
    return rdiag_capture_stack(buffer, depth);
}

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

void rdiag_backtrace_prepare(void) {
#if defined(__linux__)
    // Each thread keeps its own cache of unwind rules: no lock (and no signal-mask system calls
    // around it) when a thread meets a return address for the first time.
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
#endif
}
