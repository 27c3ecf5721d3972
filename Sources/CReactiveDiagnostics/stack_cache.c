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

static _Thread_local struct stack_cache_entry *stack_cache __attribute__((tls_model("initial-exec"))) = NULL;
static pthread_key_t stack_cache_key;
static pthread_once_t stack_cache_once = PTHREAD_ONCE_INIT;
static uint64_t next_owner = 0;

static void free_stack_cache(void *cache) {
    stack_cache = NULL;
    free(cache);
}

static void make_stack_cache_key(void) {
    pthread_key_create(&stack_cache_key, free_stack_cache);
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

// The frames of the last stack the thread captured (one buffer a thread, made on first use and
// freed with the thread's cache).
static _Thread_local uintptr_t *capture_buffer __attribute__((tls_model("initial-exec"))) = NULL;
static pthread_key_t capture_buffer_key;
static pthread_once_t capture_buffer_once = PTHREAD_ONCE_INIT;

static void free_capture_buffer(void *buffer) {
    capture_buffer = NULL;
    free(buffer);
}

static void make_capture_buffer_key(void) {
    pthread_key_create(&capture_buffer_key, free_capture_buffer);
}

static uintptr_t *thread_capture_buffer(void) {
    uintptr_t *buffer = capture_buffer;
    if (buffer == NULL) {
        buffer = malloc(RDIAG_MAXIMUM_DEPTH * sizeof(uintptr_t));
        if (buffer == NULL) {
            return NULL;
        }
        pthread_once(&capture_buffer_once, make_capture_buffer_key);
        pthread_setspecific(capture_buffer_key, buffer);
        capture_buffer = buffer;
    }
    return buffer;
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
    *frames = NULL;
    *count = 0;
    *hash = 0;
    uintptr_t *buffer = thread_capture_buffer();
    if (buffer == NULL) {
        return 0;
    }
    if (depth > RDIAG_MAXIMUM_DEPTH) {
        depth = RDIAG_MAXIMUM_DEPTH;
    }
    return find_captured(owner, buffer, rdiag_capture_stack((void **)buffer, depth), frames, count, hash);
}

uint32_t rdiag_async_chain_cached(uint64_t owner, uintptr_t context, int depth, const uintptr_t **frames,
                                  size_t *count, uint64_t *hash) {
    *frames = NULL;
    *count = 0;
    *hash = 0;
    uintptr_t *buffer = thread_capture_buffer();
    if (buffer == NULL) {
        return 0;
    }
    if (depth > RDIAG_MAXIMUM_DEPTH) {
        depth = RDIAG_MAXIMUM_DEPTH;
    }
    return find_captured(owner, buffer, rdiag_async_chain(context, (void **)buffer, depth), frames, count, hash);
}

uint32_t rdiag_stack_cache_lookup(uint64_t owner, uint64_t hash, const uintptr_t *frames, size_t count) {
    struct stack_cache_entry *cache = stack_cache;
    if (cache == NULL) {
        return 0;
    }
    const struct stack_cache_entry *entry = &cache[(hash >> 7) & (RDIAG_STACK_CACHE_SIZE - 1)];
    if (entry->owner != owner || entry->hash != hash || entry->count != count
        || memcmp(entry->frames, frames, count * sizeof(uintptr_t)) != 0) {
        return 0;
    }
    return entry->id;
}

void rdiag_stack_cache_store(uint64_t owner, uint64_t hash, const uintptr_t *stored, size_t count, uint32_t id) {
    struct stack_cache_entry *cache = stack_cache;
    if (cache == NULL) {
        cache = calloc(RDIAG_STACK_CACHE_SIZE, sizeof(struct stack_cache_entry));
        if (cache == NULL) {
            return;
        }
        pthread_once(&stack_cache_once, make_stack_cache_key);
        pthread_setspecific(stack_cache_key, cache);
        stack_cache = cache;
    }
    struct stack_cache_entry *entry = &cache[(hash >> 7) & (RDIAG_STACK_CACHE_SIZE - 1)];
    entry->owner = owner;
    entry->hash = hash;
    entry->frames = stored;
    entry->count = (uint32_t)count;
    entry->id = id;
}
