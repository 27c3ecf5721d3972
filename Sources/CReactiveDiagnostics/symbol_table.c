// An image's function symbols (its full symbol table, or its dynamic one when stripped), read
// once from its file and sorted: a lookup is a binary search. libunwind's unw_get_proc_name
// maps the whole file and scans its symbol table on every call (a millisecond a frame for a
// large test binary); a failing test names dozens of frames.

#include "CReactiveDiagnostics.h"

#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include "map_file.h"

// 16 bytes a function (a large test binary has a few hundred thousand).
struct rdiag_function_symbol {
    uint64_t start;
    uint32_t size;
    uint32_t name; // offset in the string table
};

struct rdiag_symbol_table {
    const unsigned char *file;
    size_t file_size;
    const char *strings; // of the symbol section read
    size_t strings_size;
    struct rdiag_function_symbol *symbols; // read-only once sorted (not a holder to a heap scan)
    size_t symbols_bytes;
    size_t count;
};

static int by_start(const void *left, const void *right) {
    const struct rdiag_function_symbol *a = left, *b = right;
    if (a->start != b->start) {
        return a->start < b->start ? -1 : 1;
    }
    return a->size < b->size ? 1 : (a->size > b->size ? -1 : 0);
}

// Sorts `count` symbols as `by_start` orders them (by start, the larger first at one start): a
// radix sort, 11 bits a pass, only over the bits that differ. glibc's `qsort` calls `by_start`
// through a pointer for every comparison, and this runs in the test process's debug build (no
// optimization): 0.8 ms of the 1.4 ms it took to open the demo's test binary. Falls back to
// `qsort` when the buffer cannot be allocated.
static void sort_symbols(struct rdiag_function_symbol *symbols, size_t count) {
    if (count < 2) {
        return;
    }
    struct rdiag_function_symbol *buffer = malloc(count * sizeof *buffer);
    if (buffer == NULL) {
        qsort(symbols, count, sizeof *symbols, by_start);
        return;
    }
    uint64_t starts_differ = 0, sizes_differ = 0;
    for (size_t i = 1; i < count; i++) {
        starts_differ |= symbols[i].start ^ symbols[0].start;
        sizes_differ |= (uint64_t)(symbols[i].size ^ symbols[0].size);
    }
    // Least significant first: the sizes (descending) below, then the starts (ascending), each
    // pass stable, so that equal starts keep the sizes' order.
    struct radix_pass {
        int is_size;
        int shift;
    } passes[12];
    int pass_count = 0;
    for (int shift = 0; shift < 32; shift += 11) {
        if ((sizes_differ >> shift) & 0x7ff) {
            passes[pass_count++] = (struct radix_pass){1, shift};
        }
    }
    for (int shift = 0; shift < 64; shift += 11) {
        if ((starts_differ >> shift) & 0x7ff) {
            passes[pass_count++] = (struct radix_pass){0, shift};
        }
    }
    struct rdiag_function_symbol *from = symbols, *to = buffer;
    size_t counts[2048];
    for (int p = 0; p < pass_count; p++) {
        int is_size = passes[p].is_size, shift = passes[p].shift;
        memset(counts, 0, sizeof counts);
        for (size_t i = 0; i < count; i++) {
            uint64_t key = is_size ? (uint64_t)(0xffffffffu - from[i].size) : from[i].start;
            counts[(key >> shift) & 0x7ff]++;
        }
        size_t total = 0;
        for (size_t digit = 0; digit < 2048; digit++) {
            size_t here = counts[digit];
            counts[digit] = total;
            total += here;
        }
        for (size_t i = 0; i < count; i++) {
            uint64_t key = is_size ? (uint64_t)(0xffffffffu - from[i].size) : from[i].start;
            to[counts[(key >> shift) & 0x7ff]++] = from[i];
        }
        struct rdiag_function_symbol *swap = from;
        from = to;
        to = swap;
    }
    if (from != symbols) {
        memcpy(symbols, from, count * sizeof *symbols);
    }
    free(buffer);
}

static int in_file(const struct rdiag_symbol_table *table, uint64_t offset, uint64_t size) {
    return offset <= table->file_size && size <= table->file_size - offset;
}

// Counts (symbols == NULL) or copies the functions of one symbol section.
static size_t read_section(const struct rdiag_symbol_table *table, const ElfW(Shdr) *sections, size_t count,
                           uint32_t type, struct rdiag_function_symbol *symbols, const char **strings,
                           size_t *strings_size) {
    size_t found = 0;
    for (size_t i = 0; i < count; i++) {
        const ElfW(Shdr) *section = &sections[i];
        if (section->sh_type != type || section->sh_entsize != sizeof(ElfW(Sym)) || section->sh_link >= count) {
            continue;
        }
        const ElfW(Shdr) *string_section = &sections[section->sh_link];
        if (!in_file(table, section->sh_offset, section->sh_size) ||
            !in_file(table, string_section->sh_offset, string_section->sh_size)) {
            continue;
        }
        *strings = (const char *)table->file + string_section->sh_offset;
        *strings_size = string_section->sh_size;
        const ElfW(Sym) *entries = (const ElfW(Sym) *)(table->file + section->sh_offset);
        size_t entry_count = section->sh_size / sizeof(ElfW(Sym));
        for (size_t j = 0; j < entry_count; j++) {
            const ElfW(Sym) *symbol = &entries[j];
            int kind = ELF64_ST_TYPE(symbol->st_info);
            if ((kind != STT_FUNC && kind != STT_GNU_IFUNC) || symbol->st_shndx == SHN_UNDEF ||
                symbol->st_size == 0 || symbol->st_size > UINT32_MAX || symbol->st_name >= string_section->sh_size) {
                continue;
            }
            if (symbols != NULL) {
                symbols[found] = (struct rdiag_function_symbol){symbol->st_value, (uint32_t)symbol->st_size,
                                                                symbol->st_name};
            }
            found++;
        }
        return found;
    }
    return 0;
}

rdiag_symbol_table *rdiag_symbol_table_open(const char *path) {
    size_t size;
    void *file = rdiag_map_file(path, &size);
    if (file == NULL) {
        return NULL;
    }
    struct rdiag_symbol_table *table = calloc(1, sizeof(*table));
    if (table == NULL) {
        munmap(file, size);
        return NULL;
    }
    table->file = file;
    table->file_size = size;
    const ElfW(Ehdr) *header = file;
    if (memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_ident[EI_CLASS] != ELFCLASS64 ||
        header->e_shentsize != sizeof(ElfW(Shdr)) ||
        !in_file(table, header->e_shoff, (uint64_t)header->e_shnum * sizeof(ElfW(Shdr)))) {
        rdiag_symbol_table_close(table);
        return NULL;
    }
    const ElfW(Shdr) *sections = (const ElfW(Shdr) *)(table->file + header->e_shoff);
    size_t section_count = header->e_shnum;
    // The full table holds the exported symbols too: the dynamic one is read only without it
    // (a stripped library).
    uint32_t type = SHT_SYMTAB;
    size_t count = read_section(table, sections, section_count, type, NULL, &table->strings, &table->strings_size);
    if (count == 0) {
        type = SHT_DYNSYM;
        count = read_section(table, sections, section_count, type, NULL, &table->strings, &table->strings_size);
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t bytes = ((count * sizeof(struct rdiag_function_symbol)) + page - 1) / page * page;
    if (count > 0) {
        void *symbols = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (symbols == MAP_FAILED) {
            rdiag_symbol_table_close(table);
            return NULL;
        }
        table->symbols = symbols;
        table->symbols_bytes = bytes;
        table->count =
            read_section(table, sections, section_count, type, table->symbols, &table->strings, &table->strings_size);
        sort_symbols(table->symbols, table->count);
        mprotect(table->symbols, bytes, PROT_READ);
    }
    // The symbol entries were read once and are copied: their pages are given back (clean pages
    // of the file, read again only if touched; the names stay, read only when asked for).
    madvise((void *)table->file, table->file_size, MADV_DONTNEED);
    return table;
}

const char *rdiag_symbol_table_lookup(const rdiag_symbol_table *table, uint64_t address, uint64_t *offset) {
    *offset = 0;
    // The last symbol starting at or before the address.
    size_t low = 0, high = table->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (table->symbols[middle].start <= address) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    // Walking back, the first that contains it starts nearest (functions do not nest; aliases
    // share a start).
    for (size_t steps = 0; low > 0 && steps < 64; steps++) {
        const struct rdiag_function_symbol *symbol = &table->symbols[--low];
        if (address - symbol->start < symbol->size) {
            *offset = address - symbol->start;
            return table->strings + symbol->name;
        }
    }
    return NULL;
}

int rdiag_symbol_table_find(const rdiag_symbol_table *table, const char *name, uint64_t *address) {
    *address = 0;
    size_t length = strlen(name);
    for (size_t i = 0; i < table->count; i++) {
        const struct rdiag_function_symbol *symbol = &table->symbols[i];
        if (symbol->name < table->strings_size && table->strings_size - symbol->name > length &&
            memcmp(table->strings + symbol->name, name, length + 1) == 0) {
            *address = symbol->start;
            return 1;
        }
    }
    return 0;
}

size_t rdiag_symbol_table_count(const rdiag_symbol_table *table) {
    return table->count;
}

void rdiag_symbol_table_close(rdiag_symbol_table *table) {
    if (table == NULL) {
        return;
    }
    if (table->symbols != NULL) {
        munmap(table->symbols, table->symbols_bytes);
    }
    munmap((void *)table->file, table->file_size);
    free(table);
}

#else

rdiag_symbol_table *rdiag_symbol_table_open(const char *path) {
    (void)path;
    return NULL;
}

const char *rdiag_symbol_table_lookup(const rdiag_symbol_table *table, uint64_t address, uint64_t *offset) {
    (void)table;
    (void)address;
    *offset = 0;
    return NULL;
}

int rdiag_symbol_table_find(const rdiag_symbol_table *table, const char *name, uint64_t *address) {
    (void)table;
    (void)name;
    *address = 0;
    return 0;
}

size_t rdiag_symbol_table_count(const rdiag_symbol_table *table) {
    (void)table;
    return 0;
}

void rdiag_symbol_table_close(rdiag_symbol_table *table) {
    (void)table;
}

#endif
