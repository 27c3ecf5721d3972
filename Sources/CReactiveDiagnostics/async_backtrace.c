#include "CReactiveDiagnostics.h"

#include <unistd.h>
#include <sys/mman.h>

// Swift async functions receive their context in a dedicated register (r14 on x86_64, x22 on
// arm64); optimized code keeps it there across calls to C (the register is callee-saved), while
// unoptimized code spills it to the slot below the frame pointer. The naked stub returns both
// candidates, read before any compiler-generated code runs; the caller checks which one holds
// a context.
#if defined(__x86_64__) && (defined(__linux__) || defined(__APPLE__))
__attribute__((naked)) struct rdiag_async_registers rdiag_async_registers(void) {
    __asm__ volatile("movq %r14, %rax\n\tmovq %rbp, %rdx\n\tretq");
}
#elif defined(__aarch64__) && (defined(__linux__) || defined(__APPLE__))
__attribute__((naked)) struct rdiag_async_registers rdiag_async_registers(void) {
    __asm__ volatile("mov x0, x22\n\tmov x1, x29\n\tret");
}
#else
struct rdiag_async_registers rdiag_async_registers(void) {
    struct rdiag_async_registers none = {0, 0};
    return none;
}
#endif

/// Whether `length` bytes at `address` lie in mapped memory (one `mincore` per page).
static int is_mapped(uintptr_t address, size_t length) {
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) {
        return 0;
    }
    uintptr_t first = address & ~((uintptr_t)page - 1);
    uintptr_t last = (address + length - 1) & ~((uintptr_t)page - 1);
    for (uintptr_t start = first; start <= last; start += (uintptr_t)page) {
#if defined(__APPLE__)
        char residency = 0;
#else
        unsigned char residency = 0;
#endif
        // Fails with ENOMEM for an unmapped page; never faults.
        if (mincore((void *)start, (size_t)page, &residency) != 0) {
            return 0;
        }
    }
    return 1;
}

int rdiag_async_context_is_readable(uintptr_t context) {
    if (context == 0 || (context & 7) != 0) {
        return 0;
    }
    return is_mapped(context, 2 * sizeof(uintptr_t));
}

uintptr_t rdiag_async_spilled_context(uintptr_t frame) {
    if (frame < 2 * sizeof(uintptr_t) || (frame & 7) != 0 || !is_mapped(frame - sizeof(uintptr_t), sizeof(uintptr_t))) {
        return 0;
    }
    return ((const uintptr_t *)frame)[-1];
}

int rdiag_async_chain(uintptr_t context, void **buffer, int depth) {
    // An async context starts with its parent's context and the function that resumes the
    // parent (swift/ABI/Task.h: AsyncContext). The chain ends at the task's first context.
    long page_size = sysconf(_SC_PAGESIZE);
    uintptr_t page_mask = page_size > 0 ? ~((uintptr_t)page_size - 1) : ~(uintptr_t)4095;
    uintptr_t checked_page = 0;
    int count = 0;
    while (context != 0 && (context & 7) == 0 && count < depth) {
        // Contexts sit in a task's allocator slabs: check each new page once, never fault.
        uintptr_t page = context & page_mask;
        if (page != checked_page || ((context + sizeof(uintptr_t)) & page_mask) != page) {
            if (!is_mapped(context, 2 * sizeof(uintptr_t))) {
                break;
            }
            checked_page = page;
        }
        const uintptr_t *words = (const uintptr_t *)context;
        uintptr_t resume = words[1];
#if defined(__aarch64__)
        resume &= 0x0000ffffffffffffULL;   // pointer-authentication bits, where present
#endif
        if (resume == 0) {
            break;
        }
        // A resume point is a function's first instruction, not a return address: one past
        // it, so that lookups of "return address - 1" land inside the resume function.
        buffer[count++] = (void *)(resume + 1);
        uintptr_t parent = words[0];
        if (parent == context) {
            break;
        }
        context = parent;
    }
    return count;
}
