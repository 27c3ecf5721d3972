#include "CReactiveDiagnostics.h"

// Unstructured tasks the code under test starts (`Task { }`, `Task.detached { }`), seen with
// the app's code left as it is.
//
// `Task.init` and `Task.detached` are emitted into the code that calls them, which then calls
// the runtime's `swift_task_create`. On Linux a test target's modules and this library are
// linked statically into one executable, so the definition below is the one those calls bind
// to (and, the executable exporting it, the one shared libraries loaded later bind to as
// well); it forwards to the runtime's own (`dlsym(RTLD_NEXT)`) and then tells the engine.
// Tasks the runtime makes itself (`async let`, sleeps) are created inside the runtime and never
// pass here; task-group children do, and are skipped by their flag.
//
// The state of a task is read at test checkpoints from the runtime's layout (swift/ABI/Task.h,
// Swift 6.3, 64-bit Linux, where priority escalation is off), guarded by the runtime's own
// debug variables (layout version, task size) and checked once against tasks of our own in
// known states (TaskTracking.validate, in the engine); off when any check fails.

#include <stdint.h>
#include <string.h>

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#include "next_definition.h"
#include <dlfcn.h>
#include <stdatomic.h>

typedef struct {
    void *task;
    void *context;
} rdiag_task_and_context;

typedef __attribute__((swiftcall)) rdiag_task_and_context (*task_create_fn)(
    size_t flags, void *options, const void *result_type, void *closure_entry, void *closure_context);

static _Atomic(void *) real_task_create;
static _Atomic(rdiag_task_created_fn) task_created_hook;
static _Thread_local int suppressed __attribute__((tls_model("initial-exec")));

static task_create_fn resolve_task_create(void) {
    return (task_create_fn)rdiag_next_definition(&real_task_create, "swift_task_create");
}

// TaskCreateFlags (swift/ABI/MetadataValues.h): bit 8 IsChildTask, bit 10 CopyTaskLocals.
enum { CREATE_IS_CHILD = 1u << 8, CREATE_COPY_TASK_LOCALS = 1u << 10 };

__attribute__((swiftcall, visibility("default"), noinline)) rdiag_task_and_context swift_task_create(
    size_t flags, void *options, const void *result_type, void *closure_entry, void *closure_context) {
    task_create_fn real = resolve_task_create();
    if (real == NULL) {
        // No runtime to forward to: nothing can run a task here anyway.
        __builtin_trap();
    }
    rdiag_task_and_context created = real(flags, options, result_type, closure_entry, closure_context);
    rdiag_task_created_fn hook = atomic_load_explicit(&task_created_hook, memory_order_acquire);
    if (hook != NULL && (flags & CREATE_IS_CHILD) == 0 && suppressed == 0 && created.task != NULL) {
        // The caller still owns the reference the runtime returned: the task is alive here.
        hook(created.task, (flags & CREATE_COPY_TASK_LOCALS) == 0 ? 1 : 0, closure_context);
    }
    return created;
}

int rdiag_task_hook_available(void) {
    return resolve_task_create() != NULL;
}

void rdiag_task_hook_set(rdiag_task_created_fn _Nullable hook) {
    atomic_store_explicit(&task_created_hook, hook, memory_order_release);
}

void rdiag_task_hook_suppress(int delta) {
    suppressed += delta;
}

// Job (HeapObject, SchedulerPrivate[2], Flags, Id, Voucher, Reserved, ResumeTask), then
// AsyncTask's ResumeContext, its private storage's ActiveTaskStatus flags, and the future
// fragment after sizeof(AsyncTask) (+ the child and group-child fragments when present).
enum {
    OFFSET_JOB_FLAGS = 32,
    OFFSET_RESUME_TASK = 56,
    OFFSET_RESUME_CONTEXT = 64,
    OFFSET_STATUS_FLAGS = 96,
    JOB_IS_CHILD = 1u << 24,
    JOB_IS_FUTURE = 1u << 25,
    JOB_IS_GROUP_CHILD = 1u << 26,
};

static size_t async_task_size(void) {
    const size_t *size = dlsym(RTLD_DEFAULT, "_swift_concurrency_debug_asyncTaskSize");
    return size != NULL ? *size : 0;
}

int rdiag_task_layout_known(void) {
    const int *version = dlsym(RTLD_DEFAULT, "_swift_concurrency_debug_internal_layout_version");
    const _Bool *escalation = dlsym(RTLD_DEFAULT, "_swift_concurrency_debug_supportsPriorityEscalation");
    const void *const *metadata = dlsym(RTLD_DEFAULT, "_swift_concurrency_debug_asyncTaskMetadata");
    return version != NULL && *version == 1 && escalation != NULL && !*escalation && metadata != NULL
        && async_task_size() >= OFFSET_STATUS_FLAGS + 8;
}

int rdiag_task_read_state(void *task, struct rdiag_task_state *state) {
    memset(state, 0, sizeof *state);
    const void *const *metadata = dlsym(RTLD_DEFAULT, "_swift_concurrency_debug_asyncTaskMetadata");
    size_t size = async_task_size();
    if (task == NULL || metadata == NULL || size == 0 || *(void *const *)task != *metadata) {
        return -1;
    }
    const char *bytes = task;
    state->job_flags = __atomic_load_n((const uint32_t *)(bytes + OFFSET_JOB_FLAGS), __ATOMIC_RELAXED);
    state->status_flags = __atomic_load_n((const uint32_t *)(bytes + OFFSET_STATUS_FLAGS), __ATOMIC_ACQUIRE);
    state->resume_task = (uintptr_t)__atomic_load_n((void *const *)(bytes + OFFSET_RESUME_TASK), __ATOMIC_RELAXED);
    state->resume_context =
        (uintptr_t)__atomic_load_n((void *const *)(bytes + OFFSET_RESUME_CONTEXT), __ATOMIC_RELAXED);
    state->future_status = -1;
    if (state->job_flags & JOB_IS_FUTURE) {
        size_t offset = size;
        if (state->job_flags & JOB_IS_CHILD) {
            offset += 16;
        }
        if (state->job_flags & JOB_IS_GROUP_CHILD) {
            offset += 8;
        }
        uintptr_t queue = __atomic_load_n((const uintptr_t *)(bytes + offset), __ATOMIC_ACQUIRE);
        state->future_status = (int)(queue & 3);
    }
    return 0;
}

int rdiag_task_suspended_chain(void *task, void *_Nonnull *_Nonnull buffer, int depth) {
    struct rdiag_task_state state;
    if (depth <= 0 || rdiag_task_read_state(task, &state) != 0
        || (state.status_flags & (RDIAG_TASK_RUNNING | RDIAG_TASK_COMPLETE)) != 0 || state.resume_context == 0) {
        return 0;
    }
    int count = 0;
    // The task's own resume point first, unless it is one of the runtime's wait adapters.
    const void *const *future_adapter = dlsym(RTLD_DEFAULT, "_swift_concurrency_debug_task_future_wait_resume_adapter");
    const void *const *throwing_adapter = dlsym(RTLD_DEFAULT, "_swift_concurrency_debug_task_wait_throwing_resume_adapter");
    uintptr_t resume = state.resume_task;
    if (resume != 0 && (future_adapter == NULL || resume != (uintptr_t)*future_adapter)
        && (throwing_adapter == NULL || resume != (uintptr_t)*throwing_adapter)) {
        buffer[count++] = (void *)(resume + 1);
    }
    count += rdiag_async_chain(state.resume_context, buffer + count, depth - count);
    // A task that resumed meanwhile may have freed the contexts just read: no chain then.
    struct rdiag_task_state after;
    if (rdiag_task_read_state(task, &after) != 0 || after.resume_context != state.resume_context
        || after.resume_task != state.resume_task || (after.status_flags & RDIAG_TASK_RUNNING) != 0) {
        return 0;
    }
    return count;
}

extern __attribute__((swiftcall)) void *swift_task_getCurrent(void);

void *_Nullable rdiag_task_current(void) {
    return swift_task_getCurrent();
}

#else

int rdiag_task_hook_available(void) {
    return 0;
}

void rdiag_task_hook_set(rdiag_task_created_fn _Nullable hook) {
    (void)hook;
}

void rdiag_task_hook_suppress(int delta) {
    (void)delta;
}

int rdiag_task_layout_known(void) {
    return 0;
}

int rdiag_task_read_state(void *task, struct rdiag_task_state *state) {
    (void)task;
    memset(state, 0, sizeof *state);
    return -1;
}

int rdiag_task_suspended_chain(void *task, void *_Nonnull *_Nonnull buffer, int depth) {
    (void)task;
    (void)buffer;
    (void)depth;
    return 0;
}

void *_Nullable rdiag_task_current(void) {
    return NULL;
}

#endif
