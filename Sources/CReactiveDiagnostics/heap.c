// Fault-free reads of this process's own memory, and the few Swift runtime entry points the
// retain-path walker needs. Nothing here runs on the hot path: only at a test checkpoint,
// for subscriptions that are still alive.
#include "CReactiveDiagnostics.h"
#include "word_scan.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#elif defined(__APPLE__)
#include <mach/mach.h>
#include <mach/mach_vm.h>
#endif

// MARK: Memory

#if defined(__linux__)
static atomic_int vm_readv_refused;   // process_vm_readv not allowed (seccomp): use /proc/self/mem
static atomic_int self_mem = -1;

static int open_self_mem(void) {
    int fd = atomic_load_explicit(&self_mem, memory_order_acquire);
    if (fd >= 0) {
        return fd;
    }
    int opened = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
    if (opened < 0) {
        return -1;
    }
    int expected = -1;
    if (!atomic_compare_exchange_strong(&self_mem, &expected, opened)) {
        close(opened);
        return expected;
    }
    return opened;
}
#endif

size_t rdiag_read_memory(uintptr_t address, void *buffer, size_t length) {
    if (length == 0 || address == 0) {
        return 0;
    }
#if defined(__linux__)
    if (!atomic_load_explicit(&vm_readv_refused, memory_order_relaxed)) {
        struct iovec local = {buffer, length};
        struct iovec remote = {(void *)address, length};
        ssize_t copied = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
        if (copied >= 0) {
            return (size_t)copied;
        }
        if (errno != EPERM && errno != ENOSYS) {
            return 0;   // EFAULT: not readable
        }
        atomic_store_explicit(&vm_readv_refused, 1, memory_order_relaxed);
    }
    int fd = open_self_mem();
    if (fd < 0) {
        return 0;
    }
    ssize_t copied = pread(fd, buffer, length, (off_t)address);
    return copied > 0 ? (size_t)copied : 0;
#elif defined(__APPLE__)
    mach_vm_size_t copied = 0;
    kern_return_t status = mach_vm_read_overwrite(
        mach_task_self(), (mach_vm_address_t)address, (mach_vm_size_t)length, (mach_vm_address_t)buffer, &copied);
    return status == KERN_SUCCESS ? (size_t)copied : 0;
#else
    (void)buffer;
    return 0;
#endif
}

// MARK: Swift runtime

// SWIFT_CC(swift) entry points of the runtime, looked up with dlsym so that a runtime without
// one of them degrades to "unknown" instead of failing to load.
#if __has_attribute(swiftcall)
#define RDIAG_SWIFTCC __attribute__((swiftcall))
#else
#define RDIAG_SWIFTCC
#endif

typedef struct {
    const char *name;
    void (*free_name)(const char *);
    _Bool is_strong;
    _Bool is_var;
} rdiag_field_reflection_metadata;

typedef const void *(*type_by_name_fn)(const char *, size_t, const void *, const void *const *) RDIAG_SWIFTCC;
typedef intptr_t (*field_count_fn)(const void *) RDIAG_SWIFTCC;
typedef intptr_t (*field_offset_fn)(const void *, intptr_t) RDIAG_SWIFTCC;
typedef const void *(*field_type_fn)(const void *, intptr_t, rdiag_field_reflection_metadata *) RDIAG_SWIFTCC;

static struct {
    type_by_name_fn type_by_name;
    field_count_fn field_count;
    field_offset_fn field_offset;
    field_type_fn field_type;
} runtime;

static pthread_once_t runtime_once = PTHREAD_ONCE_INIT;

static void load_runtime(void) {
    runtime.type_by_name = (type_by_name_fn)dlsym(RTLD_DEFAULT, "swift_getTypeByMangledNameInContext");
    runtime.field_count = (field_count_fn)dlsym(RTLD_DEFAULT, "swift_reflectionMirror_recursiveCount");
    runtime.field_offset = (field_offset_fn)dlsym(RTLD_DEFAULT, "swift_reflectionMirror_recursiveChildOffset");
    runtime.field_type = (field_type_fn)dlsym(RTLD_DEFAULT, "swift_reflectionMirror_recursiveChildMetadata");
}

int rdiag_swift_reflection_available(void) {
    pthread_once(&runtime_once, load_runtime);
    return runtime.type_by_name && runtime.field_count && runtime.field_offset && runtime.field_type;
}

const void *rdiag_swift_type_by_mangled_name(
    const char *name, size_t length, const void *context, const void *const *generic_arguments) {
    if (!rdiag_swift_reflection_available()) {
        return NULL;
    }
    return runtime.type_by_name(name, length, context, generic_arguments);
}

intptr_t rdiag_swift_field_count(const void *type) {
    if (!rdiag_swift_reflection_available()) {
        return 0;
    }
    return runtime.field_count(type);
}

const void *rdiag_swift_field(const void *type, intptr_t index, intptr_t *offset, char *name, size_t name_capacity,
                              int *is_strong) {
    if (!rdiag_swift_reflection_available() || name_capacity == 0) {
        return NULL;
    }
    rdiag_field_reflection_metadata field = {0};
    const void *field_type = runtime.field_type(type, index, &field);
    name[0] = 0;
    if (field.name != NULL) {
        strncpy(name, field.name, name_capacity - 1);
        name[name_capacity - 1] = 0;
        if (field.free_name != NULL) {
            field.free_name(field.name);
        }
    }
    *is_strong = field.is_strong ? 1 : 0;
    *offset = runtime.field_offset(type, index);
    return field_type;
}

typedef unsigned (*enum_tag_fn)(const void *, const void *) RDIAG_SWIFTCC;
typedef void (*enum_project_fn)(void *, const void *) RDIAG_SWIFTCC;

unsigned rdiag_swift_enum_tag(const void *witness, const void *value, const void *type) {
    return ((enum_tag_fn)witness)(value, type);
}

void rdiag_swift_enum_project(const void *witness, void *value, const void *type) {
    ((enum_project_fn)witness)(value, type);
}

// MARK: Scanning for references

#if defined(__linux__)
#include <stdlib.h>
#include <sys/mman.h>
#endif

#if defined(__linux__)
// Bits of a target's address (above its 16-byte alignment) the filter of `rdiag_scan_buffer` keys on.
#define RDIAG_FILTER_BITS 4096

// The words of `buffer` equal to one of `sorted` (ascending), as addresses from `base`. Written
// to be fast without optimization (tests run debug builds): one pass whatever the number of
// targets; a word outside the targets' range, or whose bits 4 to 15 no target has (a 4,096-bit
// filter), is passed over at once; the rest are looked up in `sorted`. (One pass per cluster of
// nearby targets, before, read a buffer a dozen times for a dozen leaks: measured in
// OpenCombine's suite.)
size_t rdiag_scan_buffer(const uintptr_t *buffer, size_t words, uintptr_t base, const uintptr_t *sorted,
                         size_t count, uintptr_t *hits, size_t capacity) {
    if (count == 0) {
        return 0;
    }
    uint64_t filter[RDIAG_FILTER_BITS / 64] = {0};
    for (size_t index = 0; index < count; index++) {
        uintptr_t key = (sorted[index] >> 4) & (RDIAG_FILTER_BITS - 1);
        filter[key >> 6] |= (uint64_t)1 << (key & 63);
    }
    uintptr_t low = sorted[0];
    uintptr_t span = sorted[count - 1] - low;
    size_t found = 0;
    for (size_t position = 0; position < words && found < capacity; position++) {
        uintptr_t word = buffer[position];
        if (word - low > span) {
            continue;
        }
        uintptr_t key = (word >> 4) & (RDIAG_FILTER_BITS - 1);
        if (!((filter[key >> 6] >> (key & 63)) & 1)) {
            continue;
        }
        size_t lower = 0;
        size_t upper = count;
        while (lower < upper) {
            size_t middle = lower + (upper - lower) / 2;
            if (sorted[middle] < word) {
                lower = middle + 1;
            } else {
                upper = middle;
            }
        }
        if (lower < count && sorted[lower] == word) {
            hits[found++] = base + (uintptr_t)position * sizeof(uintptr_t);
        }
    }
    return found;
}

void rdiag_sort_targets(const uintptr_t *targets, size_t count, uintptr_t *sorted) {
    for (size_t index = 0; index < count; index++) {
        uintptr_t value = targets[index];
        size_t position = index;
        while (position > 0 && sorted[position - 1] > value) {
            sorted[position] = sorted[position - 1];
            position--;
        }
        sorted[position] = value;
    }
}
#endif

size_t rdiag_chunk_usable_size(uintptr_t header) {
    uintptr_t chunk = header & ~(uintptr_t)0x7;
    if ((chunk & 0xF) != 0 || chunk < 32 || chunk > ((uintptr_t)1 << 26)) {
        return 0;
    }
    return chunk - ((header & 0x2) != 0 ? 2 : 1) * sizeof(uintptr_t);
}

size_t rdiag_covering_chunks(const uintptr_t *words, size_t word_count, uintptr_t window, uintptr_t address,
                             uintptr_t from, uintptr_t lowest, uintptr_t *starts, size_t capacity, uintptr_t *resume) {
    size_t found = 0;
    uintptr_t start = from & ~(uintptr_t)0xF;
    *resume = 0;
    if (lowest < window + sizeof(uintptr_t)) {
        lowest = window + sizeof(uintptr_t);
    }
    while (start >= lowest && start > 0) {
        if (found == capacity) {
            *resume = start;
            return found;
        }
        size_t index = (start - sizeof(uintptr_t) - window) / sizeof(uintptr_t);
        if (index < word_count) {
            size_t usable = rdiag_chunk_usable_size(words[index]);
            if (usable != 0 && start + usable > address) {
                starts[found++] = start;
            }
        }
        start -= 16;
    }
    return found;
}

size_t rdiag_scan_words(uintptr_t start, uintptr_t end, const uintptr_t *targets, size_t target_count,
                        uintptr_t *hits, size_t hit_capacity, size_t *bytes_scanned) {
    size_t found = 0;
    *bytes_scanned = 0;
#if defined(__linux__)
    enum { chunk_size = 1 << 18 };
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || page > 4096 || (start & (uintptr_t)(page - 1)) != 0) {
        return 0;
    }
    // The copy of memory being scanned lives in a mapping of its own, unmapped on return, and
    // starts 8 bytes past a 16-byte boundary: a heap buffer would be scanned itself, and once
    // freed would leave a copy whose objects (headers and fields intact) a later scan for
    // holders would believe.
    size_t mapping_size = chunk_size + (size_t)page;
    void *mapping = mmap(NULL, mapping_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uintptr_t *buffer = mapping == MAP_FAILED ? NULL : (uintptr_t *)((char *)mapping + 8);
    unsigned char *residency = malloc(chunk_size / (size_t)page + 1);
    uintptr_t *sorted = malloc(target_count * sizeof(uintptr_t) + 1);
    if (buffer == NULL || residency == NULL || sorted == NULL) {
        if (buffer != NULL) {
            munmap(mapping, mapping_size);
        }
        free(residency);
        free(sorted);
        return 0;
    }
    rdiag_sort_targets(targets, target_count, sorted);
    for (uintptr_t cursor = start; cursor < end && found < hit_capacity; cursor += chunk_size) {
        size_t length = end - cursor < chunk_size ? end - cursor : chunk_size;
        // Pages never touched (or swapped out) hold nothing: skip them without faulting them in.
        size_t pages = (length + (size_t)page - 1) / (size_t)page;
        if (mincore((void *)cursor, length, residency) != 0) {
            continue;
        }
        for (size_t first = 0; first < pages && found < hit_capacity;) {
            if (!(residency[first] & 1)) {
                first++;
                continue;
            }
            size_t last = first;
            while (last + 1 < pages && (residency[last + 1] & 1)) {
                last++;
            }
            uintptr_t run = cursor + first * (size_t)page;
            size_t run_length = (last - first + 1) * (size_t)page;
            if (run + run_length > cursor + length) {
                run_length = cursor + length - run;
            }
            size_t copied = rdiag_read_memory(run, buffer, run_length);
            *bytes_scanned += copied;
            found += rdiag_scan_buffer(buffer, copied / sizeof(uintptr_t), run, sorted, target_count, hits + found,
                                 hit_capacity - found);
            first = last + 1;
        }
    }
    munmap(mapping, mapping_size);
    free(residency);
    free(sorted);
#else
    (void)start; (void)end; (void)targets; (void)target_count; (void)hits; (void)hit_capacity;
#endif
    return found;
}

// MARK: Allocator

#if defined(__linux__)
#include <malloc.h>
#include <stdlib.h>

static atomic_int chunk_headers = -1;   // -1: not probed yet

/// Whether the size word glibc keeps before each allocation says the usable size that
/// malloc_usable_size reports, for sizes no other allocator rounds the same way. A
/// sanitizer's allocator reports the requested size and keeps no such word.
static int probe_chunk_headers(void) {
    static const size_t sizes[] = {33, 97, 501};
    for (size_t index = 0; index < sizeof sizes / sizeof sizes[0]; index++) {
        void *pointer = malloc(sizes[index]);
        if (pointer == NULL) {
            return 0;
        }
        uintptr_t header = 0;
        size_t read = rdiag_read_memory((uintptr_t)pointer - sizeof header, &header, sizeof header);
        size_t usable = malloc_usable_size(pointer);
        free(pointer);
        uintptr_t chunk = header & ~(uintptr_t)0x7;
        size_t overhead = (header & 0x2) ? 2 * sizeof header : sizeof header;
        if (read != sizeof header || chunk < overhead || chunk - overhead != usable || usable == sizes[index]) {
            return 0;
        }
    }
    return 1;
}
#endif

int rdiag_allocator_has_chunk_headers(void) {
#if defined(__linux__)
    int known = atomic_load_explicit(&chunk_headers, memory_order_relaxed);
    if (known < 0) {
        known = probe_chunk_headers();
        atomic_store_explicit(&chunk_headers, known, memory_order_relaxed);
    }
    return known == 1;
#else
    return 0;
#endif
}

// MARK: A sanitizer's allocator

// Where glibc's chunk headers are missing (ThreadSanitizer, AddressSanitizer), the sanitizer's
// runtime says which allocation contains an address: its public interface, looked up at run
// time so that a build without a sanitizer links and runs as before.
typedef const void *(*allocated_begin_function)(const void *);
typedef size_t (*allocated_size_function)(const void *);
static _Atomic(allocated_begin_function) sanitizer_allocated_begin;
static _Atomic(allocated_size_function) sanitizer_allocated_size;
static atomic_int sanitizer_looked_up;

static void look_up_sanitizer(void) {
    if (atomic_load_explicit(&sanitizer_looked_up, memory_order_acquire)) {
        return;
    }
    allocated_begin_function begin = (allocated_begin_function)dlsym(RTLD_DEFAULT, "__sanitizer_get_allocated_begin");
    allocated_size_function size = (allocated_size_function)dlsym(RTLD_DEFAULT, "__sanitizer_get_allocated_size");
    if (begin != NULL && size != NULL) {
        atomic_store_explicit(&sanitizer_allocated_begin, begin, memory_order_relaxed);
        atomic_store_explicit(&sanitizer_allocated_size, size, memory_order_relaxed);
    }
    atomic_store_explicit(&sanitizer_looked_up, 1, memory_order_release);
}

int rdiag_sanitizer_knows_allocations(void) {
    look_up_sanitizer();
    return atomic_load_explicit(&sanitizer_allocated_begin, memory_order_relaxed) != NULL;
}

int rdiag_sanitizer_allocation(uintptr_t address, uintptr_t *begin, size_t *size) {
    look_up_sanitizer();
    allocated_begin_function find_begin = atomic_load_explicit(&sanitizer_allocated_begin, memory_order_relaxed);
    allocated_size_function find_size = atomic_load_explicit(&sanitizer_allocated_size, memory_order_relaxed);
    if (find_begin == NULL || find_size == NULL || address == 0) {
        return 0;
    }
    const void *start = find_begin((const void *)address);
    if (start == NULL) {
        return 0;
    }
    size_t bytes = find_size(start);
    if (bytes == 0 || (uintptr_t)start + bytes <= address) {
        return 0;
    }
    *begin = (uintptr_t)start;
    *size = bytes;
    return 1;
}

// MARK: Mappings

static inline int is_space(uint8_t byte) {
    return byte == ' ' || byte == '\t';
}

// A hexadecimal number at `*at` (advanced past it); 0 in `*ok` when there is none.
static inline uint64_t hex_number(const uint8_t *line, size_t length, size_t *at, int *ok) {
    uint64_t value = 0;
    size_t first = *at;
    while (*at < length) {
        uint8_t byte = line[*at];
        uint64_t digit;
        if (byte >= '0' && byte <= '9') {
            digit = (uint64_t)(byte - '0');
        } else if (byte >= 'a' && byte <= 'f') {
            digit = (uint64_t)(byte - 'a' + 10);
        } else if (byte >= 'A' && byte <= 'F') {
            digit = (uint64_t)(byte - 'A' + 10);
        } else {
            break;
        }
        value = value * 16 + digit;
        (*at)++;
    }
    *ok = *at > first;
    return value;
}

int rdiag_maps_parse_line(const uint8_t *line, size_t length, uint64_t *start, uint64_t *end, int *permissions,
                          size_t *path_start, size_t *path_length) {
    size_t at = 0;
    int ok;
    while (at < length && line[at] == ' ') at++;
    *start = hex_number(line, length, &at, &ok);
    if (!ok || at >= length || line[at] != '-') {
        return 0;
    }
    at++;
    *end = hex_number(line, length, &at, &ok);
    if (!ok || at >= length || line[at] != ' ') {
        return 0;
    }
    while (at < length && line[at] == ' ') at++;
    if (length - at < 3) {
        return 0;
    }
    *permissions = (line[at] == 'r' ? 1 : 0) | (line[at + 1] == 'w' ? 2 : 0) | (line[at + 2] == 'x' ? 4 : 0);
    // perms, offset, dev: each followed by more; the inode may end the line.
    for (int field = 0; field < 3; field++) {
        while (at < length && line[at] != ' ') at++;
        if (at >= length) {
            return 0;
        }
        while (at < length && line[at] == ' ') at++;
    }
    while (at < length && line[at] != ' ') at++;
    while (at < length && line[at] == ' ') at++;
    size_t last = length;
    while (last > at && is_space(line[last - 1])) last--;
    *path_start = at;
    *path_length = last > at ? last - at : 0;
    return 1;
}
