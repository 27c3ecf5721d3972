// A copy of the process's writable memory, kept for the levels of one search for holders: the
// first level reads memory once (fault-free, resident pages only, as `rdiag_scan_words` does),
// the next ones scan the copy instead of reading it all again. Nothing here runs on the hot
// path: only at a test's checkpoint, for leaks whose holders are looked for.
#include "CReactiveDiagnostics.h"
#include "word_scan.h"

#include <stdlib.h>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>

/// One run of resident pages copied: where it was, and where its copy is.
struct rdiag_snapshot_run {
    uintptr_t address;
    size_t words;
    size_t offset;   // in words, from the start of the data
};

struct rdiag_memory_snapshot {
    void *mapping;
    size_t mapping_size;
    struct rdiag_snapshot_run *runs;
    size_t run_count;
    size_t run_capacity;
    uintptr_t *data;
    size_t data_words;
    size_t data_capacity;   // in words
    unsigned char *residency;
};

enum { snapshot_chunk = 1 << 18 };

rdiag_memory_snapshot *rdiag_snapshot_create(size_t capacity) {
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || page > 4096 || capacity == 0) {
        return NULL;
    }
    rdiag_memory_snapshot *snapshot = calloc(1, sizeof *snapshot);
    unsigned char *residency = malloc(snapshot_chunk / (size_t)page + 1);
    if (snapshot == NULL || residency == NULL) {
        free(snapshot);
        free(residency);
        return NULL;
    }
    // One mapping for the runs and the copy, reserved (no page is touched before it is
    // written): the copy's words are no references, and the caller lists its range as such.
    // Each run holds at least one page.
    size_t run_capacity = capacity / (size_t)page + 1;
    size_t runs_size = (run_capacity * sizeof(struct rdiag_snapshot_run) + 15) & ~(size_t)15;
    size_t mapping_size = runs_size + capacity + (size_t)page;
    void *mapping = mmap(NULL, mapping_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                         -1, 0);
    if (mapping == MAP_FAILED) {
        free(snapshot);
        free(residency);
        return NULL;
    }
    snapshot->mapping = mapping;
    snapshot->mapping_size = mapping_size;
    snapshot->runs = mapping;
    snapshot->run_capacity = run_capacity;
    // 8 bytes past a 16-byte boundary, like the scanner's own buffer: a copied object's
    // header never sits where an object would start.
    snapshot->data = (uintptr_t *)((char *)mapping + runs_size + 8);
    snapshot->data_capacity = (capacity - 8) / sizeof(uintptr_t);
    snapshot->residency = residency;
    return snapshot;
}

int rdiag_snapshot_add(rdiag_memory_snapshot *snapshot, uintptr_t start, uintptr_t end, size_t *bytes_copied) {
    *bytes_copied = 0;
    long page = sysconf(_SC_PAGESIZE);
    if ((start & (uintptr_t)(page - 1)) != 0) {
        return 0;
    }
    for (uintptr_t cursor = start; cursor < end; cursor += snapshot_chunk) {
        size_t length = end - cursor < snapshot_chunk ? end - cursor : snapshot_chunk;
        size_t pages = (length + (size_t)page - 1) / (size_t)page;
        // Pages never touched (or swapped out) hold nothing: skip them without faulting them in.
        if (mincore((void *)cursor, length, snapshot->residency) != 0) {
            continue;
        }
        for (size_t first = 0; first < pages;) {
            if (!(snapshot->residency[first] & 1)) {
                first++;
                continue;
            }
            size_t last = first;
            while (last + 1 < pages && (snapshot->residency[last + 1] & 1)) {
                last++;
            }
            uintptr_t run = cursor + first * (size_t)page;
            size_t run_length = (last - first + 1) * (size_t)page;
            if (run + run_length > cursor + length) {
                run_length = cursor + length - run;
            }
            size_t words = run_length / sizeof(uintptr_t);
            if (snapshot->run_count == snapshot->run_capacity
                || words > snapshot->data_capacity - snapshot->data_words) {
                return 0;
            }
            size_t copied = rdiag_read_memory(run, snapshot->data + snapshot->data_words, run_length);
            if (copied > 0) {
                struct rdiag_snapshot_run *entry = &snapshot->runs[snapshot->run_count++];
                entry->address = run;
                entry->words = copied / sizeof(uintptr_t);
                entry->offset = snapshot->data_words;
                snapshot->data_words += entry->words;
                *bytes_copied += copied;
            }
            first = last + 1;
        }
    }
    return 1;
}

size_t rdiag_snapshot_scan(const rdiag_memory_snapshot *snapshot, const uintptr_t *targets, size_t target_count,
                           uintptr_t *hits, size_t hit_capacity, size_t *bytes_scanned) {
    *bytes_scanned = 0;
    if (target_count == 0) {
        return 0;
    }
    uintptr_t *sorted = malloc(target_count * sizeof(uintptr_t));
    if (sorted == NULL) {
        return 0;
    }
    rdiag_sort_targets(targets, target_count, sorted);
    size_t found = 0;
    for (size_t index = 0; index < snapshot->run_count && found < hit_capacity; index++) {
        const struct rdiag_snapshot_run *run = &snapshot->runs[index];
        found += rdiag_scan_buffer(snapshot->data + run->offset, run->words, run->address, sorted, target_count,
                                   hits + found, hit_capacity - found);
        *bytes_scanned += run->words * sizeof(uintptr_t);
    }
    free(sorted);
    return found;
}

void rdiag_snapshot_range(const rdiag_memory_snapshot *snapshot, uintptr_t *start, size_t *length) {
    *start = (uintptr_t)snapshot->mapping;
    *length = snapshot->mapping_size;
}

void rdiag_snapshot_destroy(rdiag_memory_snapshot *snapshot) {
    if (snapshot == NULL) {
        return;
    }
    munmap(snapshot->mapping, snapshot->mapping_size);
    free(snapshot->residency);
    free(snapshot);
}
#else
rdiag_memory_snapshot *rdiag_snapshot_create(size_t capacity) {
    (void)capacity;
    return NULL;
}

int rdiag_snapshot_add(rdiag_memory_snapshot *snapshot, uintptr_t start, uintptr_t end, size_t *bytes_copied) {
    (void)snapshot; (void)start; (void)end;
    *bytes_copied = 0;
    return 0;
}

size_t rdiag_snapshot_scan(const rdiag_memory_snapshot *snapshot, const uintptr_t *targets, size_t target_count,
                           uintptr_t *hits, size_t hit_capacity, size_t *bytes_scanned) {
    (void)snapshot; (void)targets; (void)target_count; (void)hits; (void)hit_capacity;
    *bytes_scanned = 0;
    return 0;
}

void rdiag_snapshot_range(const rdiag_memory_snapshot *snapshot, uintptr_t *start, size_t *length) {
    (void)snapshot;
    *start = 0;
    *length = 0;
}

void rdiag_snapshot_destroy(rdiag_memory_snapshot *snapshot) {
    (void)snapshot;
}
#endif
