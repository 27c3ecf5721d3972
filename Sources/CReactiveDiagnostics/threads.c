#include "CReactiveDiagnostics.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/syscall.h>
// libdispatch is loaded in every Swift program that uses Foundation or Dispatch; declared weak
// so that a process without it still links and the label is simply unknown.
extern const char *dispatch_queue_get_label(void *queue) __attribute__((weak));
// libdispatch's own C entry points (Dispatch's Swift overlay wraps them in more calls, and the
// main queue is the object the header's dispatch_get_main_queue() returns).
extern struct dispatch_queue_s _dispatch_main_q;
extern void dispatch_queue_set_specific(void *queue, const void *key, void *context, void (*destructor)(void *));
extern void *dispatch_get_specific(const void *key);
#define RDIAG_MAIN_QUEUE ((void *)&_dispatch_main_q)
#else
#include <dispatch/dispatch.h>
#define RDIAG_MAIN_QUEUE dispatch_get_main_queue()
#endif

static _Thread_local uint32_t current_test __attribute__((tls_model("initial-exec"))) = 0;
_Thread_local uint32_t rdiag_thread_shard_plus_one __attribute__((tls_model("initial-exec"))) = 0;
static _Thread_local void *hook_state __attribute__((tls_model("initial-exec"))) = NULL;
static _Thread_local void *recent_labels __attribute__((tls_model("initial-exec"))) = NULL;
static _Thread_local void *action_lane __attribute__((tls_model("initial-exec"))) = NULL;
static _Thread_local void *running_executor __attribute__((tls_model("initial-exec"))) = NULL;
static uint32_t next_shard = 0;

uint32_t rdiag_thread_shard_assign(void) {
    if (rdiag_thread_shard_plus_one == 0) {
        // Round-robin, so threads registering at once rarely share a shard lock.
        rdiag_thread_shard_plus_one = __atomic_fetch_add(&next_shard, 1, __ATOMIC_RELAXED) + 1;
    }
    return rdiag_thread_shard_plus_one - 1;
}

uint32_t rdiag_current_test_get(void) { return current_test; }

void *rdiag_hook_state_get(void) { return hook_state; }

void rdiag_hook_state_set(void *state) { hook_state = state; }

void *rdiag_recent_labels_get(void) { return recent_labels; }

void rdiag_recent_labels_set(void *labels) { recent_labels = labels; }

void *rdiag_action_lane_get(void) { return action_lane; }

void rdiag_action_lane_set(void *lane) { action_lane = lane; }

void *rdiag_running_executor_get(void) { return running_executor; }

void rdiag_running_executor_set(void *executor) { running_executor = executor; }

void rdiag_current_test_set(uint32_t test) { current_test = test; }

uint64_t rdiag_thread_id(void) {
#if defined(__linux__)
    return (uint64_t)syscall(SYS_gettid);
#else
    uint64_t id = 0;
    pthread_threadid_np(NULL, &id);
    return id;
#endif
}

uint64_t rdiag_thread_id_cached(void) {
    static _Thread_local uint64_t cached __attribute__((tls_model("initial-exec"))) = 0;
    if (cached == 0) {
        cached = rdiag_thread_id();
    }
    return cached;
}

int rdiag_thread_name_of(uint64_t thread_id, char *name, size_t capacity) {
    if (capacity == 0) {
        return -1;
    }
    name[0] = 0;
#if defined(__linux__)
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%llu/comm", (unsigned long long)thread_id);
    FILE *file = fopen(path, "r");
    if (file == NULL) {
        return -1;
    }
    size_t length = fread(name, 1, capacity - 1, file);
    fclose(file);
    while (length > 0 && (name[length - 1] == '\n' || name[length - 1] == 0)) {
        length--;
    }
    name[length] = 0;
    return 0;
#else
    (void)thread_id;
    return -1;
#endif
}

int rdiag_is_process_main_thread(void) {
#if defined(__linux__)
    // A thread's answer never changes: ask the kernel once per thread, not on every check.
    static _Thread_local int cached __attribute__((tls_model("initial-exec"))) = -1;
    if (cached < 0) {
        cached = syscall(SYS_gettid) == getpid();
    }
    return cached;
#else
    return pthread_main_np() != 0;
#endif
}

// The main queue's marker: its address is the dispatch-specific key, and the value set on the
// main queue. A key lookup follows the queue (and the queues targeting it), not the thread.
static char main_queue_marker;
static int main_queue_marked = 0;

void rdiag_main_queue_mark(void) {
    if (__atomic_load_n(&main_queue_marked, __ATOMIC_ACQUIRE)) {
        return;
    }
    dispatch_queue_set_specific(RDIAG_MAIN_QUEUE, &main_queue_marker, &main_queue_marker, NULL);
    __atomic_store_n(&main_queue_marked, 1, __ATOMIC_RELEASE);
}

int rdiag_main_queue_is_current(void) {
    if (rdiag_is_process_main_thread()) {
        return 1;
    }
    if (__builtin_expect(!__atomic_load_n(&main_queue_marked, __ATOMIC_ACQUIRE), 0)) {
        rdiag_main_queue_mark();
    }
    return dispatch_get_specific(&main_queue_marker) != NULL;
}

int rdiag_thread_name(char *name, size_t capacity) {
    if (capacity == 0) {
        return -1;
    }
    name[0] = 0;
    return pthread_getname_np(pthread_self(), name, capacity);
}

int rdiag_dispatch_queue_label(char *label, size_t capacity) {
    if (capacity == 0) {
        return -1;
    }
    label[0] = 0;
#if defined(__linux__)
    if (dispatch_queue_get_label == NULL) {
        return -1;
    }
#endif
    // NULL is DISPATCH_CURRENT_QUEUE_LABEL: the queue whose work is running on this thread.
    const char *current = dispatch_queue_get_label(NULL);
    if (current == NULL) {
        return -1;
    }
    strncpy(label, current, capacity - 1);
    label[capacity - 1] = 0;
    return 0;
}
