// A per-thread cache of stacks already interned: a thread that captures the same stack again
// (a subscription made in a loop, a job enqueued from the same place) finds its id without
// the interner's shard lock. Entries point at the interner's stored frames, which never move
// while the interner lives; an interner's owner number is never reused, so an entry left by
// an interner that is gone never matches (and its frames are never read).
#include "CReactiveDiagnostics.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define RDIAG_STACK_CACHE_SIZE 128   // entries per thread, direct-mapped by hash

struct stack_cache_entry {
    uint64_t owner;
    uint64_t hash;
    const uintptr_t *frames;
    uint32_t count;
    uint32_t id;
};

// What a thread keeps: the cache, and the frames of the last stack it captured (made on first
// use, freed when the thread exits).
struct thread_stacks {
    struct stack_cache_entry cache[RDIAG_STACK_CACHE_SIZE];
    uintptr_t captured[RDIAG_MAXIMUM_DEPTH];
};

static _Thread_local struct thread_stacks *thread_stacks __attribute__((tls_model("initial-exec"))) = NULL;
static pthread_key_t thread_stacks_key;
static pthread_once_t thread_stacks_once = PTHREAD_ONCE_INIT;
static uint64_t next_owner = 0;

static void free_thread_stacks(void *stacks) {
    thread_stacks = NULL;
    free(stacks);
}

static void make_thread_stacks_key(void) {
    pthread_key_create(&thread_stacks_key, free_thread_stacks);
}

// The calling thread's stacks, made on first use; NULL when they cannot be.
static struct thread_stacks *own_thread_stacks(void) {
    struct thread_stacks *stacks = thread_stacks;
    if (stacks == NULL) {
        stacks = calloc(1, sizeof *stacks);
        if (stacks == NULL) {
            return NULL;
        }
        pthread_once(&thread_stacks_once, make_thread_stacks_key);
        pthread_setspecific(thread_stacks_key, stacks);
        thread_stacks = stacks;
    }
    return stacks;
}

uint64_t rdiag_stack_cache_owner(void) {
    return __atomic_add_fetch(&next_owner, 1, __ATOMIC_RELAXED);
}

uint64_t rdiag_stack_hash(const uintptr_t *frames, size_t count) {
    // Only the innermost 16 frames and the depth: distinct call sites almost always differ
    // there, and the interner compares whole stacks anyway.
    uint64_t hash = 0x9e3779b97f4a7c15ull ^ (uint64_t)count;
    size_t hashed = count < 16 ? count : 16;
    for (size_t index = 0; index < hashed; index++) {
        hash = (hash ^ (uint64_t)frames[index]) * 0xff51afd7ed558ccdull;
    }
    return hash ^ (hash >> 29);
}

uint32_t rdiag_stack_cache_find(uint64_t owner, const uintptr_t *frames, size_t count, uint64_t *hash) {
    *hash = rdiag_stack_hash(frames, count);
    return count == 0 ? 0 : rdiag_stack_cache_lookup(owner, *hash, frames, count);
}

// Clears a capture's results and returns the thread's buffer for it, with `depth` clamped to
// the buffer; NULL when there is none.
static uintptr_t *begin_capture(int *depth, const uintptr_t **frames, size_t *count, uint64_t *hash) {
    *frames = NULL;
    *count = 0;
    *hash = 0;
    struct thread_stacks *stacks = own_thread_stacks();
    if (stacks == NULL) {
        return NULL;
    }
    if (*depth > RDIAG_MAXIMUM_DEPTH) {
        *depth = RDIAG_MAXIMUM_DEPTH;
    }
    return stacks->captured;
}

// Looks up the `captured` frames the thread's buffer holds (see rdiag_capture_stack_cached).
static uint32_t find_captured(uint64_t owner, uintptr_t *buffer, int captured, const uintptr_t **frames,
                              size_t *count, uint64_t *hash) {
    if (captured <= 0) {
        return 0;
    }
    *frames = buffer;
    *count = (size_t)captured;
    return rdiag_stack_cache_find(owner, buffer, (size_t)captured, hash);
}

__attribute__((noinline))
uint32_t rdiag_capture_stack_cached(uint64_t owner, int depth, const uintptr_t **frames, size_t *count, uint64_t *hash) {
    uintptr_t *buffer = begin_capture(&depth, frames, count, hash);
    if (buffer == NULL) {
        return 0;
    }
    return find_captured(owner, buffer, rdiag_capture_stack((void **)buffer, depth), frames, count, hash);
}

uint32_t rdiag_async_chain_cached(uint64_t owner, uintptr_t context, int depth, const uintptr_t **frames,
                                  size_t *count, uint64_t *hash) {
    uintptr_t *buffer = begin_capture(&depth, frames, count, hash);
    if (buffer == NULL) {
        return 0;
    }
    return find_captured(owner, buffer, rdiag_async_chain(context, (void **)buffer, depth), frames, count, hash);
}

uint32_t rdiag_stack_cache_lookup(uint64_t owner, uint64_t hash, const uintptr_t *frames, size_t count) {
    struct thread_stacks *stacks = thread_stacks;
    if (stacks == NULL) {
        return 0;
    }
    const struct stack_cache_entry *entry = &stacks->cache[(hash >> 7) & (RDIAG_STACK_CACHE_SIZE - 1)];
    if (entry->owner != owner || entry->hash != hash || entry->count != count
        || memcmp(entry->frames, frames, count * sizeof(uintptr_t)) != 0) {
        return 0;
    }
    return entry->id;
}

void rdiag_stack_cache_store(uint64_t owner, uint64_t hash, const uintptr_t *stored, size_t count, uint32_t id) {
    struct thread_stacks *stacks = own_thread_stacks();
    if (stacks == NULL) {
        return;
    }
    struct stack_cache_entry *entry = &stacks->cache[(hash >> 7) & (RDIAG_STACK_CACHE_SIZE - 1)];
    entry->owner = owner;
    entry->hash = hash;
    entry->frames = stored;
    entry->count = (uint32_t)count;
    entry->id = id;
}
