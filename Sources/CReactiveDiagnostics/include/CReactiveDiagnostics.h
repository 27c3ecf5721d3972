// Capture layer of ReactiveDiagnostics: the few things Swift cannot call directly.
//
// * `rdiag_backtrace` is the hot path: raw return addresses, no symbols.
// * Everything else (procedure names, image lookup, demangling) runs only when a report
//   is written or a stack is shown, never per event.
//
// libunwind's `unw_getcontext`, `unw_init_local` and `unw_get_proc_name` are macros
// (they expand to `_ULx86_64_*` symbols under UNW_LOCAL_ONLY), so Swift cannot call them;
// this target wraps them.
#ifndef CREACTIVEDIAGNOSTICS_H
#define CREACTIVEDIAGNOSTICS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The deepest stack `rdiag_capture_stack` captures.
#define RDIAG_MAXIMUM_DEPTH 512

/// Fills `buffer` with up to `depth` raw return addresses of the calling thread,
/// innermost first, through libunwind (`unw_backtrace`). Returns how many were written.
/// Async-signal-safe on Linux.
int rdiag_backtrace(void *_Nonnull *_Nonnull buffer, int depth);

/// Fills `buffer` with up to `depth` (at most `RDIAG_MAXIMUM_DEPTH`) raw return addresses of
/// the calling thread, from the return address of this call (its caller) outward. Follows the
/// frame-pointer chain through every return address libunwind confirmed keeps a frame pointer
/// (learned once per address, process-wide) and hands any other stack to libunwind: the same
/// addresses `rdiag_backtrace` gives, from the caller on, at a fraction of the cost.
int rdiag_capture_stack(void *_Nonnull *_Nonnull buffer, int depth);

/// Turns `rdiag_capture_stack`'s frame-pointer path on (the default) or off (libunwind only).
void rdiag_capture_stack_set_fast_path(int enabled);

/// What `rdiag_capture_stack` learned about a return address: 0 not met yet, 1 its caller keeps
/// a frame pointer there, 2 it does not (libunwind walks past it), 3 the stack ends with it.
int rdiag_capture_stack_frame_kind(uintptr_t address);

/// A frame-pointer walk without any check that the frames keep frame pointers: wrong through
/// code that does not. For measuring the physical limit only.
int rdiag_frame_pointer_walk(void *_Nonnull *_Nonnull buffer, int depth);

/// One-time set-up of libunwind for this process: per-thread caches of unwind rules.
void rdiag_backtrace_prepare(void);

/// Where the calling Swift `async` function may keep its async context.
struct rdiag_async_registers {
    /// The swiftasync register (r14 on x86_64, x22 on arm64): the context in optimized code.
    uintptr_t context;
    /// The frame pointer: unoptimized code spills the context just below it.
    uintptr_t frame;
};

/// The calling Swift `async` function's context candidates (zeros where not supported).
/// Meaningful only when called directly from the body of a Swift `async` function.
struct rdiag_async_registers rdiag_async_registers(void);

/// The word just below `frame` (the spilled async context of unoptimized code), or 0 when
/// that memory is not mapped (never faults).
uintptr_t rdiag_async_spilled_context(uintptr_t frame);

/// Whether `context` is aligned and its first two words are mapped memory (never faults).
int rdiag_async_context_is_readable(uintptr_t context);

/// Walks the chain of async contexts from `context` to the root of its task and fills
/// `buffer` with up to `depth` resume points, innermost first (each one past the resume
/// function's first instruction, so that it symbolizes like a return address). Returns how
/// many were written. `context` must be a checked context of a running function (see rdiag_async_registers).
int rdiag_async_chain(uintptr_t context, void *_Nonnull *_Nonnull buffer, int depth);

/// Resolves the procedure containing `address` through a libunwind cursor.
/// Works for internal, private and closure symbols (which `dladdr` misses).
/// Writes the mangled name (NUL-terminated, possibly truncated) and the offset of
/// `address` from the procedure's start. Returns 0 on success.
int rdiag_proc_name(uintptr_t address, char *_Nonnull name, size_t name_capacity,
                    uintptr_t *_Nonnull offset);

/// An image's function symbols with a size (`.symtab`, or `.dynsym` without it), read once from its
/// file and sorted by address: what `rdiag_proc_name` finds, at the cost of a binary search
/// rather than a scan of the file's symbol table per call. Linux only (NULL elsewhere).
typedef struct rdiag_symbol_table rdiag_symbol_table;

/// Reads the function symbols of the ELF file at `path`; NULL when it cannot be read.
/// The table keeps the file mapped (read-only) until closed.
rdiag_symbol_table *_Nullable rdiag_symbol_table_open(const char *_Nonnull path);

/// The symbol of the function containing `address` (an address of the file, that is a
/// loaded address minus the image's load bias) and `address`'s offset in it; NULL when no
/// function symbol contains it. The name lives as long as the table.
const char *_Nullable rdiag_symbol_table_lookup(const rdiag_symbol_table *_Nonnull table, uint64_t address,
                                                uint64_t *_Nonnull offset);

/// The address (of the file) of the function named `name`: 1 with it in `*address`, 0 when the
/// table has no such function. A scan of the table: for a closure's line, not per event.
int rdiag_symbol_table_find(const rdiag_symbol_table *_Nonnull table, const char *_Nonnull name,
                            uint64_t *_Nonnull address);

/// How many function symbols the table holds.
size_t rdiag_symbol_table_count(const rdiag_symbol_table *_Nonnull table);

/// Unmaps the file and frees the table.
void rdiag_symbol_table_close(rdiag_symbol_table *_Nullable table);

/// An image's source lines from its DWARF line programs (line_table.c): the line of an address
/// as llvm-symbolizer's outermost frame gives it, without starting llvm-symbolizer. Linux only
/// (NULL elsewhere).
typedef struct rdiag_line_table rdiag_line_table;

/// Opens the line programs of the ELF file at `path`: its units' code ranges, each unit's
/// program indexed by address on the first lookup in its code (a unit whose ranges its first DIE
/// does not give, at once); NULL when it has none this reader can use (no debug information,
/// compressed sections). The table keeps the file mapped (read-only) until closed; lookups may
/// come from several threads.
rdiag_line_table *_Nullable rdiag_line_table_open(const char *_Nonnull path);

/// Reads the line programs of an ELF image already in memory (`bytes`, `size` of them, kept alive
/// and unchanged by the caller until the table is closed): what `rdiag_line_table_open` does with
/// the file it maps; for tests that hand it damaged images.
rdiag_line_table *_Nullable rdiag_line_table_read(const void *_Nonnull bytes, size_t size);

/// The source line of the instruction at `address` (an address of the file): 1 with the file's
/// path (NUL-terminated, at most `file_capacity` bytes), line and column (0 when unknown); 2 when
/// its row has no line (code the compiler made: line 0), with the file and column; 0 when this
/// reader cannot tell it with certainty (no row, code inlined in a way it does not read): ask
/// llvm-symbolizer then.
int rdiag_line_table_lookup(const rdiag_line_table *_Nonnull table, uint64_t address, char *_Nonnull file,
                            size_t file_capacity, uint32_t *_Nonnull line, uint32_t *_Nonnull column);

/// The function starting at `address` (a closure's, found by its symbol) as llvm-symbolizer
/// tells it to a `CODE` query for its symbol and a `FRAME` query at its start: the line table's
/// row there (file, line, column), the function's declaration line, and the names of the
/// variables and parameters below its DIE in order (NUL-separated in `names`, `*name_count` of
/// them; "" for one without a name). 1 when read with certainty; 0 otherwise (ask llvm-symbolizer).
int rdiag_line_table_function(const rdiag_line_table *_Nonnull table, uint64_t address, char *_Nonnull file,
                              size_t file_capacity, uint32_t *_Nonnull line, uint32_t *_Nonnull column,
                              uint32_t *_Nonnull declaration_line, char *_Nonnull names, size_t names_capacity,
                              size_t *_Nonnull name_count);

/// Unmaps the file and frees the table.
void rdiag_line_table_close(rdiag_line_table *_Nullable table);

/// Whether the ELF file at `path` carries debug information or names a file that does: 1 when
/// it has a `.debug_*` or `.zdebug_*` section, or a `.gnu_debuglink` or `.gnu_debugaltlink`;
/// 0 when it has none of them; -1 when it cannot be read (and always elsewhere than Linux).
int rdiag_image_debug_information(const char *_Nonnull path);

/// Describes the loaded image containing `address`: its absolute path, its load bias
/// (subtract it from an address to get the offset llvm-symbolizer expects) and, when
/// the image carries one, its GNU build id as lowercase hex; and the loaded segment that holds
/// `address` ([`segment_start`, `segment_end`)): every address in it belongs to the same image,
/// so a caller can answer later addresses from a cache. Returns 0 on success; on failure the
/// segment is the address alone.
int rdiag_image_segment_for_address(uintptr_t address,
                                    char *_Nonnull path, size_t path_capacity,
                                    uintptr_t *_Nonnull load_bias,
                                    char *_Nonnull build_id, size_t build_id_capacity,
                                    uintptr_t *_Nonnull segment_start,
                                    uintptr_t *_Nonnull segment_end);

/// Demangles a Swift (`$s…`, `_T…`) or C++ (`_Z…`) symbol. Returns a malloc'd string
/// the caller frees, or NULL when the symbol is not mangled or cannot be demangled.
char *_Nullable rdiag_demangle(const char *_Nonnull symbol);

/// The kernel's id for the calling thread (what `ps -L`, gdb and crash logs show).
uint64_t rdiag_thread_id(void);

/// The same id as `rdiag_thread_id`, cached per thread: cheap enough for the hot path
/// (a thread-local read after the first call). Never 0.
uint64_t rdiag_thread_id_cached(void);

/// Writes the name of the thread `thread_id` (a `rdiag_thread_id` of this process), read
/// from `/proc` on Linux. Returns 0 on success, -1 where it cannot be known.
int rdiag_thread_name_of(uint64_t thread_id, char *_Nonnull name, size_t capacity);

/// 1 when the calling thread is the process's initial thread.
int rdiag_is_process_main_thread(void);

/// Marks the main queue (a dispatch-specific value on it) so that `rdiag_main_queue_is_current`
/// can find it. Idempotent; `rdiag_main_queue_is_current` calls it when it was not called yet.
void rdiag_main_queue_mark(void);

/// 1 when the caller runs on the main queue (or a queue targeting it), wherever the queue is
/// drained, or on the process's initial thread; one thread-local read there, else one
/// `dispatch_get_specific`.
int rdiag_main_queue_is_current(void);

/// Writes the calling thread's name (may be empty). Returns 0 on success. On Linux the kernel
/// keeps at most 15 bytes of it.
int rdiag_thread_name(char *_Nonnull name, size_t capacity);

/// 1 when libdispatch's function entry points used below are there (always, off Linux).
int rdiag_dispatch_direct_available(void);

/// `dispatch_async_f`: runs `work(context)` on `queue` (a libdispatch queue object), with no
/// block made for it. Call only when `rdiag_dispatch_direct_available()`.
void rdiag_dispatch_async_f(void *_Nonnull queue, void *_Nullable context, void (*_Nonnull work)(void *_Nullable));

/// `dispatch_get_current_queue`: the libdispatch queue object whose work the calling thread
/// runs. Call only when `rdiag_dispatch_direct_available()`.
void *_Nullable rdiag_dispatch_current_queue(void);

/// Writes the label of the dispatch queue whose work the calling thread is running (the
/// default root queue's on a thread that runs none). Returns 0 on success.
int rdiag_dispatch_queue_label(char *_Nonnull label, size_t capacity);

/// The calling thread's shard number plus one, 0 until assigned (see `rdiag_thread_shard`).
extern _Thread_local uint32_t rdiag_thread_shard_plus_one __attribute__((tls_model("initial-exec")));

/// Assigns the calling thread its shard number (round-robin) and returns it.
uint32_t rdiag_thread_shard_assign(void);

/// A small number for the calling thread, assigned round-robin on first use (for sharding):
/// inline, one thread-local load once assigned.
static inline uint32_t rdiag_thread_shard(void) {
    uint32_t shard = rdiag_thread_shard_plus_one;
    return __builtin_expect(shard != 0, 1) ? shard - 1 : rdiag_thread_shard_assign();
}

/// The uptime clock in nanoseconds: the clock of `DispatchTime.uptimeNanoseconds`, read directly.
uint64_t rdiag_uptime_nanoseconds(void);

/// Whether `rdiag_ticks` reads the time-stamp counter (set once, by `rdiag_ticks_prepare`).
extern int rdiag_ticks_are_tsc;
/// Nanoseconds per tick of `rdiag_ticks` (1 when its ticks are nanoseconds).
extern double rdiag_nanoseconds_per_tick;

/// Calibrates the uptime clock if it is not yet (once per process: about 0.25 ms), so that
/// `rdiag_ticks` reads the same counter from then on. Call before the first `rdiag_ticks`.
void rdiag_ticks_prepare(void);

/// A tick count for measuring intervals on the hot path: the time-stamp counter itself where
/// the uptime clock is built on it (one instruction, no scaling), else the uptime clock's
/// nanoseconds. Differences times `rdiag_nanoseconds_per_tick` are nanoseconds.
static inline uint64_t rdiag_ticks(void) {
#if defined(__linux__) && defined(__x86_64__)
    if (__builtin_expect(__atomic_load_n(&rdiag_ticks_are_tsc, __ATOMIC_RELAXED), 1)) {
        return __builtin_ia32_rdtsc();
    }
#endif
    return rdiag_uptime_nanoseconds();
}

/// Nanoseconds in `ticks` ticks of `rdiag_ticks` (an interval).
static inline uint64_t rdiag_ticks_to_nanoseconds(uint64_t ticks) {
    double per_tick;
    __atomic_load(&rdiag_nanoseconds_per_tick, &per_tick, __ATOMIC_RELAXED);
    return (uint64_t)((double)ticks * per_tick);
}

/// Ticks of `rdiag_ticks` in `nanoseconds` (an interval).
static inline uint64_t rdiag_nanoseconds_to_ticks(uint64_t nanoseconds) {
    double per_tick;
    __atomic_load(&rdiag_nanoseconds_per_tick, &per_tick, __ATOMIC_RELAXED);
    double ticks = (double)nanoseconds / per_tick;
    return ticks >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)ticks;
}

/// The tick count `rdiag_ticks` will read at uptime `nanoseconds` (a due time in the future or
/// the past), from the ticks and uptime now.
uint64_t rdiag_ticks_at_uptime(uint64_t nanoseconds);

/// A thread-local pointer for CombineDiagnostics' per-thread hook state (read on every hook
/// event: a plain thread-local read instead of `pthread_getspecific`).
void *_Nullable rdiag_hook_state_get(void);
void rdiag_hook_state_set(void *_Nullable state);

/// A thread-local pointer for the labels the thread interned last (ReactiveDiagnostics).
void *_Nullable rdiag_recent_labels_get(void);
void rdiag_recent_labels_set(void *_Nullable labels);

// MARK: Stack interning: a per-thread cache of stacks already interned

/// A number no other interner has, for the entries it stores in the per-thread cache.
uint64_t rdiag_stack_cache_owner(void);

/// The id the calling thread's cache holds for `frames` (interned by `owner` under `hash`),
/// compared frame by frame; 0 when it holds none.
uint32_t rdiag_stack_cache_lookup(uint64_t owner, uint64_t hash, const uintptr_t *_Nonnull frames, size_t count);

/// The interner's hash of a stack: its innermost 16 frames and its depth (not stable across
/// runs).
uint64_t rdiag_stack_hash(const uintptr_t *_Nullable frames, size_t count);

/// `rdiag_stack_cache_lookup` under the stack's own hash, which it writes to `hash` for the
/// interner's slow path; 0 for an empty stack.
uint32_t rdiag_stack_cache_find(uint64_t owner, const uintptr_t *_Nullable frames, size_t count,
                                uint64_t *_Nonnull hash);

/// Captures the calling thread's stack (at most `depth` frames, as `rdiag_capture_stack`) into
/// the thread's capture buffer and returns the id the thread's cache holds for it under
/// `owner`. When it holds none, returns 0 with `frames`, `count` and `hash` set for the
/// interner (`frames` stays valid until the thread's next capture; `count` is 0 when nothing
/// could be captured).
uint32_t rdiag_capture_stack_cached(uint64_t owner, int depth, const uintptr_t *_Nullable *_Nonnull frames,
                                    size_t *_Nonnull count, uint64_t *_Nonnull hash);

/// `rdiag_capture_stack_cached` for the chain of async contexts from `context`, as
/// `rdiag_async_chain` reads it.
uint32_t rdiag_async_chain_cached(uint64_t owner, uintptr_t context, int depth,
                                  const uintptr_t *_Nullable *_Nonnull frames, size_t *_Nonnull count,
                                  uint64_t *_Nonnull hash);

/// Remembers in the calling thread's cache that `owner` interned the `count` frames stored at
/// `stored` (which must stay where they are while `owner` lives) as `id`.
void rdiag_stack_cache_store(uint64_t owner, uint64_t hash, const uintptr_t *_Nonnull stored, size_t count, uint32_t id);

/// Asks the processor to bring the cache line at `address` to this core for writing, ahead
/// of a write: owned, not shared, so the write then needs no second trip to the core that
/// wrote it last (a hint: never faults, whatever the address).
static inline void rdiag_prefetch_for_write(const void *_Nullable address) {
#if defined(__x86_64__)
    // PREFETCHW: on every x86-64 processor of AMD, on Intel's since Broadwell (a no-op before).
    // __builtin_prefetch(address, 1, 3) gives a plain prefetch unless the target names PRFCHW.
    __asm__ volatile("prefetchw (%0)" : : "r"(address));
#else
    __builtin_prefetch(address, 1, 3);
#endif
}

/// `rdiag_prefetch_for_write` for every cache line of the `size` bytes at `address` (an object
/// that straddles two or three lines is filled in all of them).
static inline void rdiag_prefetch_range_for_write(const void *_Nullable address, size_t size) {
    uintptr_t line = (uintptr_t)address & ~(uintptr_t)63;
    uintptr_t end = (uintptr_t)address + size;
    for (; line < end; line += 64) {
        rdiag_prefetch_for_write((const void *)line);
    }
}

/// A thread-local pointer to the diagnostic executor whose job the thread runs
/// (ConcurrencyDiagnostics).
void *_Nullable rdiag_running_executor_get(void);
void rdiag_running_executor_set(void *_Nullable executor);

/// A thread-local pointer to the thread's lane of scheduled actions (ReactiveDiagnostics).
void *_Nullable rdiag_action_lane_get(void);
void rdiag_action_lane_set(void *_Nullable lane);

/// Thread-local test attribution: the id of the test whose work this thread is doing,
/// set by ReactiveDiagnostics around deliveries and scheduled actions (0 = none).
uint32_t rdiag_current_test_get(void);
void rdiag_current_test_set(uint32_t test);


// MARK: Work in flight (Linux)

/// 1 where timed work (`dispatch_after`, `dispatch_after_f`) can be followed: Linux, the test
/// executable's own definitions (work_in_flight.c).
int rdiag_timed_work_available(void);
/// Starts following timed work scheduled from now on (before, it is forwarded as it is).
void rdiag_timed_work_arm(void);
/// Sets the function that names the test timed work is scheduled for (0: none known), called
/// inside `dispatch_after`: it must not allocate, lock or schedule work.
void rdiag_timed_work_set_owner_reader(uint64_t (*_Nullable reader)(void));
/// How many pieces of timed work scheduled since arming have not run yet and are due within
/// `nanoseconds` from now, less those overdue by more than a second (a suspended queue's, a
/// forked parent's); work the table had no room for counts once the earliest of it is due.
/// With an `owner` other than 0, only work scheduled for that test or for no known test counts.
int rdiag_timed_work_due_within(uint64_t nanoseconds, uint64_t owner);
/// How many pieces of timed work in the table were scheduled for exactly `owner` and have not
/// run yet, whenever they are due (what the attribution is, for tests).
int rdiag_timed_work_pending_for(uint64_t owner);
/// How many threads of the process other than the caller are running or in a timed sleep;
/// -1 where that cannot be read. Threads inside the library's own work are not counted.
int rdiag_other_threads_busy(void);
/// Marks the calling thread as doing the library's own work (naming stacks for the crash
/// journal) until `rdiag_own_work_end`: not work in flight for a test.
void rdiag_own_work_begin(void);
/// Ends what `rdiag_own_work_begin` started on the calling thread.
void rdiag_own_work_end(void);
/// Whether the thread `tid` of this process counts as busy for `rdiag_other_threads_busy`
/// (for tests); 0 where that cannot be read.
int rdiag_thread_counts_as_busy(long tid);
/// The calling thread's id (`gettid`); 0 where there is none.
long rdiag_current_thread_id(void);


// MARK: Unstructured tasks (Swift Concurrency, Linux)

/// Called for every unstructured task the code under test starts (`Task { }`, `Task.detached
/// { }`), on the starting thread, right after the runtime made it: `detached` is 1 when the
/// task inherits nothing from its starter; `context` is the task's closure context.
typedef void (*rdiag_task_created_fn)(void *_Nonnull task, int detached, void *_Nullable context);

/// 1 where unstructured tasks can be seen (Linux, the test executable's own `swift_task_create`).
int rdiag_task_hook_available(void);
/// Sets (or, with NULL, clears) the function told of each unstructured task.
void rdiag_task_hook_set(rdiag_task_created_fn _Nullable hook);
/// Adds `delta` to the calling thread's count of reasons not to tell: the library's own tasks.
void rdiag_task_hook_suppress(int delta);

/// ActiveTaskStatus flags read from a task (Swift 6.3, 64-bit Linux).
enum {
    RDIAG_TASK_CANCELLED = 0x100,
    RDIAG_TASK_RUNNING = 0x800,
    RDIAG_TASK_ENQUEUED = 0x1000,
    RDIAG_TASK_COMPLETE = 0x2000,
    RDIAG_TASK_SUSPENDED_ON_DEPENDENCY = 0x4000,
};

/// What a task's header says.
struct rdiag_task_state {
    uint32_t job_flags;
    uint32_t status_flags;
    /// The future's state: 0 executing, 1 succeeded, 2 failed; -1 not a future.
    int future_status;
    /// Where the task resumes: its own resume function and its innermost async context.
    uintptr_t resume_task;
    uintptr_t resume_context;
};

/// 1 when the runtime's debug variables say the layout read below is the one it has.
int rdiag_task_layout_known(void);
/// Reads a live task's state (the caller holds a reference). 0, or -1 when `task` is not a task.
int rdiag_task_read_state(void *_Nonnull task, struct rdiag_task_state *_Nonnull state);
/// The resume points of a suspended task, innermost first (each one past the resume
/// function's entry, as rdiag_async_chain writes them); 0 when it is running, complete or
/// resumed while being read.
int rdiag_task_suspended_chain(void *_Nonnull task, void *_Nonnull *_Nonnull buffer, int depth);
/// The current task (`swift_task_getCurrent`), NULL outside any task.
void *_Nullable rdiag_task_current(void);

// MARK: AsyncStream and continuations (Swift Concurrency, Linux)

/// The runtime entry points the stream hook sees, in the order of stream_hook_stubs.h.
enum rdiag_stream_api {
    RDIAG_STREAM_YIELD = 0,
    RDIAG_STREAM_YIELD_WITH,
    RDIAG_STREAM_YIELD_VOID,
    RDIAG_STREAM_FINISH,
    RDIAG_THROWING_STREAM_YIELD,
    RDIAG_THROWING_STREAM_YIELD_WITH,
    RDIAG_THROWING_STREAM_YIELD_VOID,
    RDIAG_THROWING_STREAM_FINISH,
    RDIAG_CONTINUATION_RESUME_RETURNING,
    RDIAG_CONTINUATION_RESUME_THROWING,
    RDIAG_CONTINUATION_INIT,
    RDIAG_STREAM_MAKE_ITERATOR,
    RDIAG_THROWING_STREAM_MAKE_ITERATOR,
    RDIAG_STREAM_API_COUNT
};

/// What the stream hook saw.
enum rdiag_stream_misuse {
    /// A yield after the stream's finish (earlier: the finish).
    RDIAG_STREAM_VALUE_AFTER_FINISH = 1,
    /// A second finish (earlier: the first).
    RDIAG_STREAM_FINISHED_TWICE,
    /// A yield that returned `.terminated` with no finish seen: the consumer went away.
    RDIAG_STREAM_VALUE_AFTER_CONSUMER_GONE,
    /// A second `makeAsyncIterator()` on the same stream (earlier: the first).
    RDIAG_STREAM_SECOND_ITERATOR,
    /// A `CheckedContinuation` resumed a second time (earlier: the first resume); the second
    /// resume is dropped.
    RDIAG_CONTINUATION_RESUMED_TWICE,
    /// A `CheckedContinuation` whose layout is not the one checked at start-up: the
    /// double-resume check is now off.
    RDIAG_CONTINUATION_LAYOUT_CHANGED,
};

/// Frames kept per stack by the stream hook.
#define RDIAG_STREAM_DEPTH 32

/// One misuse, with the stack of the offending call (from the app's call site outward) and,
/// when there is one, the stack of the earlier call it conflicts with.
struct rdiag_stream_event {
    int misuse;
    int api;
    /// The stream's storage, the stream or the continuation's canary.
    const void *_Nullable object;
    /// The metadata of the type the call was made on (`AsyncStream<Int>.Continuation`,
    /// `CheckedContinuation<Int, Never>`), or NULL.
    const void *_Nullable type;
    int frame_count;
    void *_Nullable frames[RDIAG_STREAM_DEPTH];
    int earlier_frame_count;
    void *_Nullable earlier_frames[RDIAG_STREAM_DEPTH];
};

/// Told of each misuse, on the offending thread, outside every lock of the hook.
typedef void (*rdiag_stream_event_fn)(const struct rdiag_stream_event *_Nonnull event);
/// Reads the `YieldResult` a yield wrote at `result` (`type`: the continuation's metadata):
/// 0 enqueued, 1 dropped, 2 terminated, -1 unknown.
typedef int (*rdiag_yield_result_fn)(int api, const void *_Nonnull result, const void *_Nonnull type);

/// 1 where the stream hook's stubs are linked (Linux) and every runtime entry point they
/// forward to was found.
int rdiag_stream_hook_available(void);
/// Sets (or, with NULLs, clears) the functions the hook tells and asks.
void rdiag_stream_hook_set(rdiag_stream_event_fn _Nullable event, rdiag_yield_result_fn _Nullable yield_result);
/// Adds `delta` to the count of open tests: the hook looks at calls only while it is above 0.
void rdiag_stream_hook_tests(int delta);
/// Adds `delta` to the calling thread's count of reasons not to look: the library's own calls.
void rdiag_stream_hook_suppress(int delta);
/// Marks a stream (its one reference) as the library's: its iterators are not looked at.
void rdiag_stream_hook_adopt(const void *_Nonnull stream);
/// The stream hook's own tables (raw addresses of streams, storages and continuations it has
/// seen, kept without references): up to `capacity` start addresses and sizes. A holder scan
/// skips them: a stale address there holds nothing. Returns how many were written.
int rdiag_stream_hook_tables(const void *_Nonnull *_Nonnull starts, unsigned long *_Nonnull sizes, int capacity);
/// Where a `CheckedContinuation`'s canary keeps its `UnsafeContinuation` (checked at
/// start-up), or -1: the double-resume check off.
void rdiag_stream_hook_set_canary_offset(long offset);
long rdiag_stream_hook_canary_offset(void);
/// How many calls to `api` the hook looked at (made while a test was open, not the library's).
uint64_t rdiag_stream_hook_calls(int api);

// MARK: Heap inspection (retain paths; test checkpoints only, never the hot path)

/// Copies up to `length` bytes at `address` of this process into `buffer` without ever
/// faulting: an unmapped or unreadable address gives a short (or zero) count instead of a
/// crash (`process_vm_readv` on our own pid, else `/proc/self/mem`; `mach_vm_read_overwrite`
/// on Apple platforms). Returns the number of bytes copied.
size_t rdiag_read_memory(uintptr_t address, void *_Nonnull buffer, size_t length);

/// 1 when the Swift runtime entry points below were found (dlsym), else 0.
int rdiag_swift_reflection_available(void);

/// `swift_getTypeByMangledNameInContext`: the type metadata a mangled name (which must be
/// the compiler's own string, in place: it may hold relative symbolic references) denotes,
/// or NULL.
const void *_Nullable rdiag_swift_type_by_mangled_name(
    const char *_Nonnull name, size_t length, const void *_Nullable context,
    const void *_Nullable const *_Nullable generic_arguments);

/// The number of stored properties of a struct or class type, superclasses' included.
intptr_t rdiag_swift_field_count(const void *_Nonnull type);

/// Stored property `index` of a struct or class type (superclasses' first): its type
/// metadata (returned), its offset, its name and whether it is a strong reference storage
/// (0 for `weak`, `unowned` and `unowned(unsafe)`).
const void *_Nullable rdiag_swift_field(
    const void *_Nonnull type, intptr_t index, intptr_t *_Nonnull offset, char *_Nonnull name,
    size_t name_capacity, int *_Nonnull is_strong);

/// Calls an enum's `getEnumTag` value witness (`witness`) on a value the caller owns (a copy:
/// the walker never calls witnesses on memory it does not own).
unsigned rdiag_swift_enum_tag(const void *_Nonnull witness, const void *_Nonnull value, const void *_Nonnull type);

/// Calls an enum's `destructiveProjectEnumData` value witness on a copy the caller owns,
/// leaving the payload's bits in place of the enum's.
void rdiag_swift_enum_project(const void *_Nonnull witness, void *_Nonnull value, const void *_Nonnull type);

/// 1 when the allocator keeps glibc's size word before each allocation (so the holder scan
/// can tell which allocation contains a word), 0 otherwise (a sanitizer's allocator, or not
/// Linux). Probed once, with a few allocations of sizes only glibc rounds that way.
int rdiag_allocator_has_chunk_headers(void);

/// 1 when a sanitizer's runtime (ThreadSanitizer, AddressSanitizer) can say which allocation
/// contains an address: its allocator keeps no chunk headers, but its interface answers.
int rdiag_sanitizer_knows_allocations(void);

/// The allocation containing `address`, from a sanitizer's runtime: its start and usable size.
/// 0 without a sanitizer, or when the address is in no live heap allocation.
int rdiag_sanitizer_allocation(uintptr_t address, uintptr_t *_Nonnull begin, size_t *_Nonnull size);

/// Scans the readable words of [start, end) (page-aligned) for any of `targets`, reading
/// fault-free and skipping pages that are not resident (never touched: nothing is faulted
/// in). Writes the addresses of up to `hit_capacity` matching words to `hits` and returns
/// how many; `bytes_scanned` receives the bytes read. Linux only (0 elsewhere).
size_t rdiag_scan_words(uintptr_t start, uintptr_t end, const uintptr_t *_Nonnull targets, size_t target_count,
                        uintptr_t *_Nonnull hits, size_t hit_capacity, size_t *_Nonnull bytes_scanned);

/// A copy of the process's writable memory kept for several scans for holders (one search's
/// levels): `rdiag_snapshot_add` copies the resident pages of a region (fault-free, as
/// `rdiag_scan_words` reads them), `rdiag_snapshot_scan` looks for words in all that was copied.
/// Linux only: `rdiag_snapshot_create` returns NULL elsewhere.
typedef struct rdiag_memory_snapshot rdiag_memory_snapshot;

/// A snapshot that can hold up to `capacity` bytes (address space reserved, nothing touched);
/// NULL when it cannot be made.
rdiag_memory_snapshot *_Nullable rdiag_snapshot_create(size_t capacity);

/// Copies the resident pages of [start, end) (page-aligned); `bytes_copied` receives how many
/// bytes. 0 when the snapshot is full (what was copied before stays).
int rdiag_snapshot_add(rdiag_memory_snapshot *_Nonnull snapshot, uintptr_t start, uintptr_t end,
                       size_t *_Nonnull bytes_copied);

/// The addresses (where they were in the process) of up to `hit_capacity` copied words equal to
/// one of `targets`, in `hits`; returns how many. `bytes_scanned` receives the bytes looked at.
size_t rdiag_snapshot_scan(const rdiag_memory_snapshot *_Nonnull snapshot, const uintptr_t *_Nonnull targets,
                           size_t target_count, uintptr_t *_Nonnull hits, size_t hit_capacity,
                           size_t *_Nonnull bytes_scanned);

/// The address range the snapshot occupies (its copies are no references).
void rdiag_snapshot_range(const rdiag_memory_snapshot *_Nonnull snapshot, uintptr_t *_Nonnull start,
                          size_t *_Nonnull length);

/// Frees the snapshot.
void rdiag_snapshot_destroy(rdiag_memory_snapshot *_Nullable snapshot);

/// The usable size a glibc chunk header (the word before an allocation) says, when it is
/// plausible: a chunk of 32 bytes to 64 MiB, a multiple of 16, less its header words (two when
/// the chunk was mapped on its own). 0 when it is not.
size_t rdiag_chunk_usable_size(uintptr_t header);

/// The candidate starts of the glibc heap chunk that contains `address`, nearest first: the
/// 16-byte aligned addresses `start`, from `from` down to `lowest`, whose chunk header (the word
/// at `start - 8`) is a plausible size (`rdiag_chunk_usable_size`) and covers `address`. `words` is a copy of the memory
/// from `window` (8-aligned, at most `lowest - 8`) on, `word_count` words of it. Writes up to
/// `capacity` candidates to `starts` and returns how many; `resume` receives the next start to
/// look at (0 when none is left). Pure arithmetic on the copy: nothing is read from the process.
size_t rdiag_covering_chunks(const uintptr_t *_Nonnull words, size_t word_count, uintptr_t window, uintptr_t address,
                             uintptr_t from, uintptr_t lowest, uintptr_t *_Nonnull starts, size_t capacity,
                             uintptr_t *_Nonnull resume);

/// The module a demangled Swift name belongs to (`name`, `length` bytes, no NUL needed): 1 with
/// where it starts in `name` and how long it is, 0 for C symbols and unknown shapes. The rule of
/// FrameClassifier.module(ofDemangled:), which documents it. demangled_module.c.
int rdiag_module_of_demangled(const char *_Nonnull name, size_t length, size_t *_Nonnull module_start,
                              size_t *_Nonnull module_length);

/// One line of `/proc/PID/maps` (`start-end perms offset dev inode [path]`, `length` bytes
/// without its newline): 1 with the mapping's bounds, its permissions (1 readable, 2 writable,
/// 4 executable) and where its path starts in the line and how long it is (0 without one,
/// trailing blanks left out); 0 when the line is not one. heap.c.
int rdiag_maps_parse_line(const uint8_t *_Nonnull line, size_t length, uint64_t *_Nonnull start,
                          uint64_t *_Nonnull end, int *_Nonnull permissions, size_t *_Nonnull path_start,
                          size_t *_Nonnull path_length);

#ifdef __cplusplus
}
#endif

#endif
