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
