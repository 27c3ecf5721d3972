// The word scan the searches for holders share (heap.c's `rdiag_scan_words`, one region at a
// time, and memory_snapshot.c's scan of a kept copy). Linux only.
#include <stddef.h>
#include <stdint.h>

#if defined(__linux__)
/// The words of `buffer` (a copy of the memory at `base`) equal to one of `sorted` (`count`
/// addresses, ascending), as addresses from `base`: up to `capacity` written to `hits`.
size_t rdiag_scan_buffer(const uintptr_t *buffer, size_t words, uintptr_t base, const uintptr_t *sorted,
                         size_t count, uintptr_t *hits, size_t capacity);

/// `targets` in ascending order, into `sorted` (a handful of addresses: insertion sort).
void rdiag_sort_targets(const uintptr_t *targets, size_t count, uintptr_t *sorted);
#endif
