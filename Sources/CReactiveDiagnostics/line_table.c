// An image's source lines, read from its DWARF line programs (.debug_line) without starting
// llvm-symbolizer: what a failing test needs to be placed at its line. llvm-symbolizer's first
// answer for a large test binary waits for it to read the whole symbol table and index the
// debug information (18 ms of CPU for a 21 MB binary, 25–60 ms under load); this reads each
// unit's code ranges when the image is opened (2–3 ms for that binary in a debug build), indexes a
// unit's line program on the first lookup in its code, and answers a lookup by re-running one
// sequence.
//
// What it answers is what llvm-symbolizer's outermost frame says (the line kept by
// LLVMSymbolizer.parse): the line table's row for the address, or, where the address lies in
// code inlined into the function, the call site of the outermost inlined subroutine
// (DW_TAG_inlined_subroutine's call file, line and column, read from the unit's DIEs). Anything
// it does not read with certainty (DWARF 5 address or range indexes in an inlined subroutine,
// compressed sections, a line of 0) is "unknown", and the caller asks llvm-symbolizer.

#include "CReactiveDiagnostics.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include "map_file.h"
#include <pthread.h>
#include <stdio.h>

struct section {
    const uint8_t *data;
    size_t size;
};

// One sequence of a line program: the addresses it covers, the program and its unit.
struct sequence {
    uint64_t start;
    uint64_t end;
    uint32_t program; // offset of the program in .debug_line
    uint32_t unit;    // index in units, or UINT32_MAX
};

struct unit {
    uint64_t offset;   // of the unit header in .debug_info
    uint64_t program;  // DW_AT_stmt_list
    const char *directory; // DW_AT_comp_dir, or NULL
    // The unit's code, from its first DIE (DWARF 4 and earlier): low_pc and high_pc, or a range
    // list in .debug_ranges (relative to low_pc when it has one).
    uint64_t low, high, ranges;
    int has_low, has_high, high_is_address, has_ranges, version;
};

// Where a unit's code is: its program is indexed on the first lookup that falls in one of its
// ranges, not when the table is opened.
struct unit_range {
    uint64_t start;
    uint64_t end;
    uint32_t unit;
};

// A lazily indexed unit's sequences, read on its first lookup.
struct unit_sequences {
    int state; // 0 not read yet, 1 read
    struct sequence *items;
    size_t count;
};

struct rdiag_line_table {
    const uint8_t *file;
    size_t file_size;
    struct section line, info, abbrev, str, line_str, ranges;
    struct sequence *sequences; // of the units whose code ranges are not known (indexed on open)
    size_t sequence_count;
    struct unit *units;
    size_t unit_count;
    struct unit_range *unit_ranges; // of the others, sorted by start
    size_t unit_range_count;
    int owns_file; // the file is our mapping (rdiag_line_table_open), unmapped on close
    // Read on a unit's first lookup, under `lock`: its outermost inlined subroutines and, for a
    // unit with known code ranges, its sequences.
    pthread_mutex_t lock;
    struct inlined_set *inlined;           // unit_count of them
    struct unit_sequences *unit_sequences; // unit_count of them
};

// Where code was inlined into a unit's functions: the outermost inlined subroutines' ranges,
// sorted, with their call sites.
struct inlined_range {
    uint64_t low;
    uint64_t high;
    uint64_t file, line, column;
};

struct inlined_set {
    int state; // 0 not read yet, 1 read, -1 not readable with certainty
    struct inlined_range *ranges;
    size_t count;
};

// How many of `count` entries, `stride` bytes apart and sorted by the address each begins with
// (its first field), begin at or before `address`: the last of them is the one that may cover it.
static size_t at_or_before(const void *entries, size_t count, size_t stride, uint64_t address) {
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        uint64_t start;
        memcpy(&start, (const uint8_t *)entries + middle * stride, sizeof start);
        if (start <= address) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    return low;
}
_Static_assert(offsetof(struct sequence, start) == 0, "at_or_before reads a sequence's start first");
_Static_assert(offsetof(struct unit_range, start) == 0, "at_or_before reads a unit range's start first");
_Static_assert(offsetof(struct inlined_range, low) == 0, "at_or_before reads an inlined range's low first");

// The readers below run for every byte of what is read, in the test process's debug build: clang
// inlines them there too only when told to.
#define INLINE __attribute__((always_inline)) inline

// A reader over a section's bytes; `failed` once it would read past its end.
struct cursor {
    const uint8_t *at;
    const uint8_t *end;
    int failed;
};

INLINE static int has(struct cursor *c, size_t n) {
    if (c->failed || (size_t)(c->end - c->at) < n) {
        c->failed = 1;
        return 0;
    }
    return 1;
}

INLINE static uint64_t fixed(struct cursor *c, size_t n) {
    if (!has(c, n)) {
        return 0;
    }
    uint64_t value = 0;
    for (size_t i = 0; i < n; i++) {
        value |= (uint64_t)c->at[i] << (8 * i);
    }
    c->at += n;
    return value;
}

INLINE static uint64_t uleb(struct cursor *c) {
    uint64_t value = 0;
    for (int shift = 0; has(c, 1); shift += 7) {
        uint8_t byte = *c->at++;
        if (shift < 64) {
            value |= (uint64_t)(byte & 0x7f) << shift;
        }
        if ((byte & 0x80) == 0) {
            return value;
        }
    }
    return 0;
}

INLINE static int64_t sleb(struct cursor *c) {
    int64_t value = 0;
    int shift = 0;
    while (has(c, 1)) {
        uint8_t byte = *c->at++;
        if (shift < 64) {
            value |= (int64_t)((uint64_t)(byte & 0x7f) << shift);
        }
        shift += 7;
        if ((byte & 0x80) == 0) {
            if (shift < 64 && (byte & 0x40)) {
                value |= -((int64_t)1 << shift);
            }
            return value;
        }
    }
    return 0;
}

static const char *cstring(struct cursor *c) {
    const uint8_t *start = c->at;
    while (has(c, 1)) {
        if (*c->at++ == 0) {
            return (const char *)start;
        }
    }
    return NULL;
}

static void skip(struct cursor *c, uint64_t n) {
    if (has(c, (size_t)n)) {
        c->at += n;
    }
}

static const char *string_at(const struct section *section, uint64_t offset) {
    if (section->data == NULL || offset >= section->size || memchr(section->data + offset, 0, section->size - offset) == NULL) {
        return NULL;
    }
    return (const char *)section->data + offset;
}

// A unit's length field: its length and whether offsets in it are 8 bytes (64-bit DWARF).
static uint64_t unit_length(struct cursor *c, int *wide) {
    uint64_t length = fixed(c, 4);
    *wide = 0;
    if (length == 0xffffffffu) {
        *wide = 1;
        length = fixed(c, 8);
    }
    return length;
}

// Starts `c` at the unit at `offset` of `section`, after its length field, and ends it at the
// unit's end; 0 when the unit does not fit the section.
static int enter_unit(const struct section *section, uint64_t offset, struct cursor *c, int *wide) {
    if (offset >= section->size) {
        return 0;
    }
    *c = (struct cursor){section->data + offset, section->data + section->size, 0};
    uint64_t length = unit_length(c, wide);
    if (c->failed || length > (uint64_t)(c->end - c->at)) {
        return 0;
    }
    c->end = c->at + length;
    return 1;
}

// MARK: Attribute values

enum {
    FORM_addr = 0x01, FORM_block2 = 0x03, FORM_block4 = 0x04, FORM_data2 = 0x05, FORM_data4 = 0x06,
    FORM_data8 = 0x07, FORM_string = 0x08, FORM_block = 0x09, FORM_block1 = 0x0a, FORM_data1 = 0x0b,
    FORM_flag = 0x0c, FORM_sdata = 0x0d, FORM_strp = 0x0e, FORM_udata = 0x0f, FORM_ref_addr = 0x10,
    FORM_ref1 = 0x11, FORM_ref2 = 0x12, FORM_ref4 = 0x13, FORM_ref8 = 0x14, FORM_ref_udata = 0x15,
    FORM_indirect = 0x16, FORM_sec_offset = 0x17, FORM_exprloc = 0x18, FORM_flag_present = 0x19,
    FORM_strx = 0x1a, FORM_addrx = 0x1b, FORM_ref_sup4 = 0x1c, FORM_strp_sup = 0x1d, FORM_data16 = 0x1e,
    FORM_line_strp = 0x1f, FORM_ref_sig8 = 0x20, FORM_implicit_const = 0x21, FORM_loclistx = 0x22,
    FORM_rnglistx = 0x23, FORM_ref_sup8 = 0x24, FORM_strx1 = 0x25, FORM_strx2 = 0x26, FORM_strx3 = 0x27,
    FORM_strx4 = 0x28, FORM_addrx1 = 0x29, FORM_addrx2 = 0x2a, FORM_addrx3 = 0x2b, FORM_addrx4 = 0x2c,
};

// One attribute's value: a number (addresses, constants, offsets, flags), a string, or neither.
struct value {
    uint64_t number;
    const char *string;
    int known;    // number or string holds the value
    int indexed;  // an index into a DWARF 5 table this reader does not read (strx, addrx, rnglistx)
    int address;  // the number is an address (DW_FORM_addr)
};

// Reads (or skips) one value of `form`; 0 when the form is not known.
static int read_value(const struct rdiag_line_table *table, struct cursor *c, uint64_t form, int64_t implicit,
                      int address_size, int wide, int version, struct value *value) {
    memset(value, 0, sizeof *value);
    int offset_size = wide ? 8 : 4;
    switch (form) {
    case FORM_addr:
        value->number = fixed(c, (size_t)address_size);
        value->known = value->address = 1;
        return 1;
    case FORM_data1: case FORM_ref1: case FORM_flag:
        value->number = fixed(c, 1);
        value->known = 1;
        return 1;
    case FORM_data2: case FORM_ref2:
        value->number = fixed(c, 2);
        value->known = 1;
        return 1;
    case FORM_data4: case FORM_ref4: case FORM_ref_sup4:
        value->number = fixed(c, 4);
        value->known = 1;
        return 1;
    case FORM_data8: case FORM_ref8: case FORM_ref_sig8: case FORM_ref_sup8:
        value->number = fixed(c, 8);
        value->known = 1;
        return 1;
    case FORM_data16:
        skip(c, 16);
        return 1;
    case FORM_sdata:
        value->number = (uint64_t)sleb(c);
        value->known = 1;
        return 1;
    case FORM_udata: case FORM_ref_udata:
        value->number = uleb(c);
        value->known = 1;
        return 1;
    case FORM_implicit_const:
        value->number = (uint64_t)implicit;
        value->known = 1;
        return 1;
    case FORM_flag_present:
        value->number = 1;
        value->known = 1;
        return 1;
    case FORM_sec_offset: case FORM_strp_sup:
        value->number = fixed(c, (size_t)offset_size);
        value->known = 1;
        return 1;
    case FORM_ref_addr:
        fixed(c, version <= 2 ? (size_t)address_size : (size_t)offset_size);
        return 1;
    case FORM_strp:
        value->string = string_at(&table->str, fixed(c, (size_t)offset_size));
        value->known = value->string != NULL;
        return 1;
    case FORM_line_strp:
        value->string = string_at(&table->line_str, fixed(c, (size_t)offset_size));
        value->known = value->string != NULL;
        return 1;
    case FORM_string:
        value->string = cstring(c);
        value->known = value->string != NULL;
        return 1;
    case FORM_block1:
        skip(c, fixed(c, 1));
        return 1;
    case FORM_block2:
        skip(c, fixed(c, 2));
        return 1;
    case FORM_block4:
        skip(c, fixed(c, 4));
        return 1;
    case FORM_block: case FORM_exprloc:
        skip(c, uleb(c));
        return 1;
    case FORM_strx: case FORM_addrx: case FORM_loclistx: case FORM_rnglistx:
        uleb(c);
        value->indexed = 1;
        return 1;
    case FORM_strx1: case FORM_addrx1:
        fixed(c, 1);
        value->indexed = 1;
        return 1;
    case FORM_strx2: case FORM_addrx2:
        fixed(c, 2);
        value->indexed = 1;
        return 1;
    case FORM_strx3: case FORM_addrx3:
        fixed(c, 3);
        value->indexed = 1;
        return 1;
    case FORM_strx4: case FORM_addrx4:
        fixed(c, 4);
        value->indexed = 1;
        return 1;
    case FORM_indirect: {
        uint64_t actual = uleb(c);
        if (actual == FORM_indirect || actual == FORM_implicit_const) {
            return 0;
        }
        return read_value(table, c, actual, 0, address_size, wide, version, value);
    }
    default:
        return 0;
    }
}

// MARK: Units and their abbreviations

enum { TAG_compile_unit = 0x11, TAG_partial_unit = 0x3c, TAG_inlined_subroutine = 0x1d };
enum {
    AT_stmt_list = 0x10, AT_low_pc = 0x11, AT_high_pc = 0x12, AT_comp_dir = 0x1b, AT_ranges = 0x55,
    AT_call_column = 0x57, AT_call_file = 0x58, AT_call_line = 0x59,
};

struct abbreviation {
    uint64_t code;
    uint64_t tag;
    int children;
    const uint8_t *attributes; // pairs of (attribute, form[, implicit constant]) up to (0, 0)
};

struct unit_header {
    int version;
    int wide;
    int address_size;
    uint64_t abbrev_offset;
    const uint8_t *dies; // the first DIE
    const uint8_t *end;  // the unit's end
};

static int read_unit_header(const struct rdiag_line_table *table, uint64_t offset, struct unit_header *header) {
    struct cursor c;
    if (!enter_unit(&table->info, offset, &c, &header->wide)) {
        return 0;
    }
    header->end = c.end;
    header->version = (int)fixed(&c, 2);
    if (header->version >= 5) {
        uint64_t type = fixed(&c, 1);
        header->address_size = (int)fixed(&c, 1);
        header->abbrev_offset = fixed(&c, header->wide ? 8 : 4);
        if (type != 1 && type != 3) { // DW_UT_compile, DW_UT_partial
            return 0;
        }
    } else if (header->version >= 2) {
        header->abbrev_offset = fixed(&c, header->wide ? 8 : 4);
        header->address_size = (int)fixed(&c, 1);
    } else {
        return 0;
    }
    header->dies = c.at;
    return !c.failed && header->address_size == 8;
}

// The unit's abbreviations, in `*list` (malloc'd; freed by the caller). 0 when unreadable.
static int read_abbreviations(const struct rdiag_line_table *table, uint64_t offset, struct abbreviation **list,
                              size_t *count) {
    *list = NULL;
    *count = 0;
    if (offset >= table->abbrev.size) {
        return 0;
    }
    size_t capacity = 0;
    struct cursor c = {table->abbrev.data + offset, table->abbrev.data + table->abbrev.size, 0};
    for (;;) {
        uint64_t code = uleb(&c);
        if (c.failed) {
            break;
        }
        if (code == 0) {
            return 1;
        }
        if (*count == capacity) {
            capacity = capacity == 0 ? 64 : capacity * 2;
            struct abbreviation *grown = realloc(*list, capacity * sizeof **list);
            if (grown == NULL) {
                break;
            }
            *list = grown;
        }
        struct abbreviation *entry = &(*list)[(*count)++];
        entry->code = code;
        entry->tag = uleb(&c);
        entry->children = (int)fixed(&c, 1);
        entry->attributes = c.at;
        for (;;) {
            uint64_t attribute = uleb(&c);
            uint64_t form = uleb(&c);
            if (form == FORM_implicit_const) {
                sleb(&c);
            }
            if (c.failed || (attribute == 0 && form == 0)) {
                break;
            }
        }
    }
    free(*list);
    *list = NULL;
    *count = 0;
    return 0;
}

// The abbreviation `code` of the table at `offset`, read without the others after it (a unit's
// first DIE uses one of the first, usually); 0 when there is none.
static int abbreviation_at(const struct rdiag_line_table *table, uint64_t offset, uint64_t code,
                           struct abbreviation *found) {
    if (offset >= table->abbrev.size) {
        return 0;
    }
    struct cursor c = {table->abbrev.data + offset, table->abbrev.data + table->abbrev.size, 0};
    for (;;) {
        uint64_t entry = uleb(&c);
        if (c.failed || entry == 0) {
            return 0;
        }
        found->code = entry;
        found->tag = uleb(&c);
        found->children = (int)fixed(&c, 1);
        found->attributes = c.at;
        if (entry == code) {
            return !c.failed;
        }
        for (;;) {
            uint64_t attribute = uleb(&c);
            uint64_t form = uleb(&c);
            if (form == FORM_implicit_const) {
                sleb(&c);
            }
            if (c.failed || (attribute == 0 && form == 0)) {
                break;
            }
        }
    }
}

static const struct abbreviation *find_abbreviation(const struct abbreviation *list, size_t count, uint64_t code) {
    if (code >= 1 && code <= count && list[code - 1].code == code) {
        return &list[code - 1]; // codes are usually 1, 2, 3, …
    }
    for (size_t i = 0; i < count; i++) {
        if (list[i].code == code) {
            return &list[i];
        }
    }
    return NULL;
}

// MARK: Line programs

struct program {
    int version;
    int wide;
    int address_size;
    uint8_t minimum_length;
    uint8_t default_is_stmt;
    int8_t line_base;
    uint8_t line_range;
    uint8_t opcode_base;
    const uint8_t *opcode_lengths;
    const uint8_t *tables; // directories and files
    const uint8_t *code;
    const uint8_t *end;
};

static int read_program(const struct rdiag_line_table *table, uint64_t offset, struct program *program) {
    struct cursor c;
    if (!enter_unit(&table->line, offset, &c, &program->wide)) {
        return 0;
    }
    program->end = c.end;
    program->version = (int)fixed(&c, 2);
    if (program->version < 2 || program->version > 5) {
        return 0;
    }
    program->address_size = 8;
    if (program->version >= 5) {
        program->address_size = (int)fixed(&c, 1);
        fixed(&c, 1); // segment selector size
    }
    uint64_t header_length = fixed(&c, program->wide ? 8 : 4);
    if (c.failed || header_length > (uint64_t)(c.end - c.at)) {
        return 0;
    }
    program->code = c.at + header_length;
    program->minimum_length = (uint8_t)fixed(&c, 1);
    if (program->version >= 4) {
        fixed(&c, 1); // maximum operations per instruction (VLIW only)
    }
    program->default_is_stmt = (uint8_t)fixed(&c, 1);
    program->line_base = (int8_t)fixed(&c, 1);
    program->line_range = (uint8_t)fixed(&c, 1);
    program->opcode_base = (uint8_t)fixed(&c, 1);
    program->opcode_lengths = c.at;
    skip(&c, program->opcode_base > 0 ? program->opcode_base - 1u : 0u);
    program->tables = c.at;
    return !c.failed && program->line_range != 0 && program->opcode_base != 0 && program->address_size == 8;
}

// Directory or file entry of a DWARF 5 table: its path (DW_LNCT_path) and directory index.
static int read_entry_v5(const struct rdiag_line_table *table, const struct program *program, struct cursor *c,
                         const uint8_t *formats, uint64_t format_count, const char **path, uint64_t *directory) {
    struct cursor f = {formats, program->code, 0};
    *path = NULL;
    *directory = 0;
    for (uint64_t i = 0; i < format_count; i++) {
        uint64_t type = uleb(&f);
        uint64_t form = uleb(&f);
        struct value value;
        if (f.failed || !read_value(table, c, form, 0, program->address_size, program->wide, 5, &value)) {
            return 0;
        }
        if (type == 1) { // DW_LNCT_path
            *path = value.string;
        } else if (type == 2 && value.known) { // DW_LNCT_directory_index
            *directory = value.number;
        }
    }
    return !c->failed;
}

// Entry `index` of the program's directories (`files` 0) or files (`files` 1): its path and,
// for a file, its directory index. 0 when it has none.
static int program_entry(const struct rdiag_line_table *table, const struct program *program, int files,
                         uint64_t index, const char **path, uint64_t *directory) {
    struct cursor c = {program->tables, program->code, 0};
    *path = NULL;
    *directory = 0;
    if (program->version >= 5) {
        for (int table_index = 0; table_index <= files; table_index++) {
            uint64_t format_count = fixed(&c, 1);
            const uint8_t *formats = c.at;
            for (uint64_t i = 0; i < format_count * 2; i++) {
                uleb(&c);
            }
            uint64_t count = uleb(&c);
            for (uint64_t entry = 0; entry < count && !c.failed; entry++) {
                if (!read_entry_v5(table, program, &c, formats, format_count, path, directory)) {
                    return 0;
                }
                if (table_index == files && entry == index) {
                    return *path != NULL;
                }
            }
        }
        return 0;
    }
    // DWARF 2–4: directories from 1 (0 is the unit's directory), files from 1.
    uint64_t number = 1;
    for (;;) {
        const char *directory_path = cstring(&c);
        if (directory_path == NULL || *directory_path == 0) {
            break;
        }
        if (!files && number == index) {
            *path = directory_path;
            return 1;
        }
        number++;
    }
    if (!files) {
        return 0;
    }
    number = 1;
    for (;;) {
        const char *name = cstring(&c);
        if (name == NULL || *name == 0) {
            return 0;
        }
        uint64_t directory_index = uleb(&c);
        uleb(&c); // modification time
        uleb(&c); // length
        if (number == index) {
            *path = name;
            *directory = directory_index;
            return !c.failed;
        }
        number++;
    }
}

// The path of file `index` as llvm-symbolizer gives it: the name if absolute, else under its
// directory, itself under the unit's directory if relative.
static int file_path(const struct rdiag_line_table *table, const struct program *program, const char *unit_directory,
                     uint64_t index, char *buffer, size_t capacity) {
    const char *name;
    uint64_t directory_index;
    if (!program_entry(table, program, 1, index, &name, &directory_index)) {
        return 0;
    }
    const char *directory = NULL;
    if (name[0] != '/') {
        if (program->version < 5 && directory_index == 0) {
            directory = unit_directory;
        } else if (!program_entry(table, program, 0, directory_index, &directory, &directory_index)) {
            return 0;
        }
    }
    // A relative directory is under the unit's: DW_AT_comp_dir, which DWARF 5 also puts first in
    // the program's own directories.
    const char *base = NULL;
    if (directory != NULL && directory[0] != '/') {
        uint64_t unused;
        if (program->version >= 5 && program_entry(table, program, 0, 0, &base, &unused) && base[0] == '/') {
            // base is the program's directory 0
        } else {
            base = unit_directory;
        }
    }
    int written;
    if (directory == NULL) {
        written = snprintf(buffer, capacity, "%s", name);
    } else if (base == NULL) {
        written = snprintf(buffer, capacity, "%s/%s", directory, name);
    } else {
        written = snprintf(buffer, capacity, "%s/%s/%s", base, directory, name);
    }
    return written > 0 && (size_t)written < capacity;
}

// One row of the line table machine.
struct row {
    uint64_t address;
    uint64_t file;
    int64_t line;
    uint64_t column;
};

// Runs a program to the row that covers `target` (the last row at or before it, within the
// sequence that covers it, as llvm looks a row up): 1 with it in `found`, 0 when none does.
static int run_program(const struct program *program, uint64_t target, struct row *found) {
    struct cursor c = {program->code, program->end, 0};
    struct row state = {0, 1, 1, 0};
    struct row last = {0};
    int has_last = 0;
    while (!c.failed && c.at < c.end) {
        uint8_t opcode = (uint8_t)fixed(&c, 1);
        int emit = 0;
        int end_sequence = 0;
        if (opcode >= program->opcode_base) {
            uint8_t adjusted = (uint8_t)(opcode - program->opcode_base);
            state.address += (uint64_t)(adjusted / program->line_range) * program->minimum_length;
            state.line += program->line_base + adjusted % program->line_range;
            emit = 1;
        } else if (opcode == 0) {
            uint64_t length = uleb(&c);
            if (length == 0 || !has(&c, (size_t)length)) {
                return 0;
            }
            const uint8_t *next = c.at + length;
            uint8_t sub = (uint8_t)fixed(&c, 1);
            if (sub == 1) { // DW_LNE_end_sequence
                emit = 1;
                end_sequence = 1;
            } else if (sub == 2) { // DW_LNE_set_address
                state.address = fixed(&c, length - 1 < 8 ? (size_t)(length - 1) : 8);
            }
            c.at = next;
        } else {
            switch (opcode) {
            case 1: // copy
                emit = 1;
                break;
            case 2: // advance_pc
                state.address += uleb(&c) * program->minimum_length;
                break;
            case 3: // advance_line
                state.line += sleb(&c);
                break;
            case 4: // set_file
                state.file = uleb(&c);
                break;
            case 5: // set_column
                state.column = uleb(&c);
                break;
            case 8: // const_add_pc
                state.address += (uint64_t)((255 - program->opcode_base) / program->line_range) * program->minimum_length;
                break;
            case 9: // fixed_advance_pc
                state.address += fixed(&c, 2);
                break;
            case 6: case 7: case 10: case 11: // negate_stmt, basic_block, prologue_end, epilogue_begin
                break;
            default: {
                uint8_t arguments = program->opcode_lengths[opcode - 1];
                for (uint8_t i = 0; i < arguments; i++) {
                    uleb(&c);
                }
                break;
            }
            }
        }
        if (!emit) {
            continue;
        }
        if (has_last && last.address <= target && target < state.address) {
            *found = last;
            return 1;
        }
        if (state.address <= target) {
            last = state;
            has_last = !end_sequence;
        }
        if (end_sequence) {
            state = (struct row){0, 1, 1, 0};
            has_last = 0;
        }
    }
    return 0;
}

// Appends the sequences of a program to `*items` (`*count` of them, room for `*capacity`):
// addresses only, with the bytes read in place. This runs in the test process's debug build (no
// optimization), so it avoids a call per byte.
static void index_program(const struct program *program, uint32_t program_offset, uint32_t unit,
                          struct sequence **items, size_t *count, size_t *capacity) {
    const uint8_t *at = program->code;
    const uint8_t *end = program->end;
    uint64_t address = 0;
    uint64_t sequence_start = UINT64_MAX;
    const uint64_t const_add = (uint64_t)((255 - program->opcode_base) / program->line_range) * program->minimum_length;
#define SKIP_LEB()                                                                                                     \
    do {                                                                                                               \
        while (at < end && (*at & 0x80)) at++;                                                                         \
        if (at >= end) return;                                                                                         \
        at++;                                                                                                          \
    } while (0)
    while (at < end) {
        uint8_t opcode = *at++;
        int row = 0;
        if (opcode >= program->opcode_base) {
            address += (uint64_t)((uint8_t)(opcode - program->opcode_base) / program->line_range) * program->minimum_length;
            row = 1;
        } else if (opcode == 0) {
            struct cursor c = {at, end, 0};
            uint64_t length = uleb(&c);
            if (c.failed || length == 0 || (uint64_t)(end - c.at) < length) {
                return;
            }
            uint8_t sub = *c.at;
            if (sub == 1) { // DW_LNE_end_sequence
                if (sequence_start != UINT64_MAX && address > sequence_start && sequence_start != 0) {
                    if (*count == *capacity) {
                        size_t grown_capacity = *capacity == 0 ? 64 : *capacity * 2;
                        struct sequence *grown = realloc(*items, grown_capacity * sizeof *grown);
                        if (grown == NULL) {
                            return;
                        }
                        *items = grown;
                        *capacity = grown_capacity;
                    }
                    (*items)[(*count)++] = (struct sequence){sequence_start, address, program_offset, unit};
                }
                address = 0;
                sequence_start = UINT64_MAX;
            } else if (sub == 2) { // DW_LNE_set_address
                struct cursor operand = {c.at + 1, c.at + length, 0};
                address = fixed(&operand, length - 1 < 8 ? (size_t)(length - 1) : 8);
            }
            at = c.at + length;
            continue;
        } else if (opcode == 1) { // copy
            row = 1;
        } else if (opcode == 2) { // advance_pc
            struct cursor c = {at, end, 0};
            address += uleb(&c) * program->minimum_length;
            at = c.at;
        } else if (opcode == 8) { // const_add_pc
            address += const_add;
        } else if (opcode == 9) { // fixed_advance_pc
            if (end - at < 2) return;
            address += (uint64_t)at[0] | ((uint64_t)at[1] << 8);
            at += 2;
        } else if (opcode == 3 || opcode == 4 || opcode == 5) { // advance_line, set_file, set_column
            SKIP_LEB();
        } else if (opcode != 6 && opcode != 7 && opcode != 10 && opcode != 11) {
            for (uint8_t i = 0; i < program->opcode_lengths[opcode - 1]; i++) {
                SKIP_LEB();
            }
        }
        if (row && sequence_start == UINT64_MAX) {
            sequence_start = address;
        }
    }
#undef SKIP_LEB
}

// MARK: Opening

static int in_file(const struct rdiag_line_table *table, uint64_t offset, uint64_t size) {
    return offset <= table->file_size && size <= table->file_size - offset;
}

static int by_program(const void *left, const void *right) {
    const struct unit *a = left, *b = right;
    return a->program < b->program ? -1 : (a->program > b->program ? 1 : 0);
}

static int by_start(const void *left, const void *right) {
    const struct sequence *a = left, *b = right;
    return a->start < b->start ? -1 : (a->start > b->start ? 1 : 0);
}

static int by_range_start(const void *left, const void *right) {
    const struct unit_range *a = left, *b = right;
    return a->start < b->start ? -1 : (a->start > b->start ? 1 : 0);
}

// Appends unit `index`'s code ranges to the table's (after the DIE range iterator, below).
static int add_unit_ranges(struct rdiag_line_table *table, size_t index, size_t *capacity);

// The abbreviations of units' first DIEs read_units found last. Units of one object file share a
// table, and in a Swift debug build most of them (873 of the demo's 1,273 units) share one, where
// their first DIE's abbreviation is tens of entries down: found once, not once a unit.
struct abbreviation_cache {
    struct {
        uint64_t offset;
        struct abbreviation abbreviation;
    } entries[8];
    size_t used, next;
};

static int unit_abbreviation(const struct rdiag_line_table *table, struct abbreviation_cache *cache, uint64_t offset,
                             uint64_t code, struct abbreviation *found) {
    for (size_t i = 0; i < cache->used; i++) {
        if (cache->entries[i].offset == offset && cache->entries[i].abbreviation.code == code) {
            *found = cache->entries[i].abbreviation;
            return 1;
        }
    }
    if (!abbreviation_at(table, offset, code, found)) {
        return 0;
    }
    size_t slot = cache->used < 8 ? cache->used++ : cache->next++ % 8;
    cache->entries[slot].offset = offset;
    cache->entries[slot].abbreviation = *found;
    return 1;
}

// Each unit's line program and directory, from its first DIE.
static void read_units(struct rdiag_line_table *table) {
    struct abbreviation_cache cache = {0};
    size_t capacity = 0;
    for (uint64_t offset = 0; offset < table->info.size;) {
        struct cursor c;
        int wide;
        if (!enter_unit(&table->info, offset, &c, &wide) || c.end == c.at) {
            return;
        }
        uint64_t next = (uint64_t)(c.end - table->info.data);
        struct unit_header header;
        struct abbreviation found;
        const struct abbreviation *abbreviation = &found;
        if (read_unit_header(table, offset, &header)) {
            struct cursor die = {header.dies, header.end, 0};
            if (unit_abbreviation(table, &cache, header.abbrev_offset, uleb(&die), &found) &&
                (abbreviation->tag == TAG_compile_unit || abbreviation->tag == TAG_partial_unit)) {
                struct unit unit = {.offset = offset, .program = UINT64_MAX, .directory = NULL};
                unit.version = header.version;
                struct cursor spec = {abbreviation->attributes, table->abbrev.data + table->abbrev.size, 0};
                for (;;) {
                    uint64_t attribute = uleb(&spec);
                    uint64_t form = uleb(&spec);
                    int64_t implicit = form == FORM_implicit_const ? sleb(&spec) : 0;
                    if (spec.failed || (attribute == 0 && form == 0)) {
                        break;
                    }
                    struct value value;
                    if (!read_value(table, &die, form, implicit, header.address_size, header.wide, header.version,
                                    &value) ||
                        die.failed) {
                        break;
                    }
                    if (attribute == AT_stmt_list && value.known && !value.string) {
                        unit.program = value.number;
                    } else if (attribute == AT_comp_dir && value.string != NULL) {
                        unit.directory = value.string;
                    } else if (attribute == AT_low_pc && value.known && value.address) {
                        unit.low = value.number;
                        unit.has_low = 1;
                    } else if (attribute == AT_high_pc && value.known && !value.string) {
                        unit.high = value.number;
                        unit.high_is_address = value.address;
                        unit.has_high = 1;
                    } else if (attribute == AT_ranges && value.known && !value.string) {
                        unit.ranges = value.number;
                        unit.has_ranges = 1;
                    }
                }
                if (unit.program != UINT64_MAX) {
                    if (table->unit_count == capacity) {
                        capacity = capacity == 0 ? 256 : capacity * 2;
                        struct unit *grown = realloc(table->units, capacity * sizeof *grown);
                        if (grown == NULL) {
                            return;
                        }
                        table->units = grown;
                    }
                    table->units[table->unit_count++] = unit;
                }
            }
        }
        offset = next;
    }
}

// The section headers of the 64-bit little-endian ELF image `file` (`size` bytes) in `*sections`,
// and the one holding their names in `*names`: how many there are, 0 when the image is no such
// ELF file or its headers or names do not fit in it.
static size_t elf_sections(const uint8_t *file, size_t size, const ElfW(Shdr) **sections, const ElfW(Shdr) **names) {
    const ElfW(Ehdr) *header = (const ElfW(Ehdr) *)file;
    if (size < sizeof(ElfW(Ehdr)) || memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
        header->e_ident[EI_CLASS] != ELFCLASS64 || header->e_ident[EI_DATA] != ELFDATA2LSB ||
        header->e_shentsize != sizeof(ElfW(Shdr)) || header->e_shoff > size ||
        (uint64_t)header->e_shnum * sizeof(ElfW(Shdr)) > size - header->e_shoff || header->e_shstrndx >= header->e_shnum) {
        return 0;
    }
    *sections = (const ElfW(Shdr) *)(file + header->e_shoff);
    *names = &(*sections)[header->e_shstrndx];
    if ((*names)->sh_offset > size || (*names)->sh_size > size - (*names)->sh_offset) {
        return 0;
    }
    return header->e_shnum;
}

// The NUL-terminated name of `section`, read from `names`; NULL when it does not fit there.
static const char *section_name(const uint8_t *file, const ElfW(Shdr) *names, const ElfW(Shdr) *section) {
    if (section->sh_name >= names->sh_size) {
        return NULL;
    }
    const char *name = (const char *)file + names->sh_offset + section->sh_name;
    size_t room = names->sh_size - section->sh_name;
    return strnlen(name, room) < room ? name : NULL;
}

static void read_sections(struct rdiag_line_table *table) {
    const ElfW(Shdr) *sections, *names;
    size_t count = elf_sections(table->file, table->file_size, &sections, &names);
    struct {
        const char *name;
        struct section *section;
    } wanted[] = {
        {".debug_line", &table->line}, {".debug_info", &table->info}, {".debug_abbrev", &table->abbrev},
        {".debug_str", &table->str}, {".debug_line_str", &table->line_str}, {".debug_ranges", &table->ranges},
    };
    for (size_t i = 0; i < count; i++) {
        const ElfW(Shdr) *section = &sections[i];
        const char *name = section_name(table->file, names, section);
        if (name == NULL || section->sh_type == SHT_NOBITS || (section->sh_flags & SHF_COMPRESSED) != 0 ||
            !in_file(table, section->sh_offset, section->sh_size)) {
            continue;
        }
        for (size_t j = 0; j < sizeof wanted / sizeof wanted[0]; j++) {
            if (strcmp(name, wanted[j].name) == 0) {
                wanted[j].section->data = table->file + section->sh_offset;
                wanted[j].section->size = section->sh_size;
            }
        }
    }
}

rdiag_line_table *rdiag_line_table_open(const char *path) {
    size_t size;
    void *file = rdiag_map_file(path, &size);
    if (file == NULL) {
        return NULL;
    }
    rdiag_line_table *table = rdiag_line_table_read(file, size);
    if (table == NULL) {
        munmap(file, size);
        return NULL;
    }
    table->owns_file = 1;
    // Indexed: the file's pages are given back (clean pages, read again only where a lookup
    // goes: one program and one unit's DIEs).
    madvise(file, size, MADV_DONTNEED);
    return table;
}

int rdiag_image_debug_information(const char *path) {
    size_t size;
    const uint8_t *file = rdiag_map_file(path, &size);
    if (file == NULL) {
        return -1;
    }
    const ElfW(Shdr) *sections, *names;
    size_t count = elf_sections(file, size, &sections, &names);
    int found = count > 0 ? 0 : -1;
    for (size_t i = 0; i < count && found == 0; i++) {
        const char *name = section_name(file, names, &sections[i]);
        found = name != NULL && (strncmp(name, ".debug_", 7) == 0 || strncmp(name, ".zdebug_", 8) == 0 ||
                                 strcmp(name, ".gnu_debuglink") == 0 || strcmp(name, ".gnu_debugaltlink") == 0);
    }
    munmap((void *)file, size);
    return found;
}

rdiag_line_table *rdiag_line_table_read(const void *bytes, size_t size) {
    struct rdiag_line_table *table = calloc(1, sizeof(*table));
    if (table == NULL) {
        return NULL;
    }
    table->file = bytes;
    table->file_size = size;
    read_sections(table);
    if (table->line.data == NULL || table->info.data == NULL || table->abbrev.data == NULL) {
        rdiag_line_table_close(table);
        return NULL;
    }
    read_units(table);
    qsort(table->units, table->unit_count, sizeof *table->units, by_program);
    // A unit whose code ranges are known is indexed on its first lookup (most of the image is
    // never looked up); the others' sequences now (a program two units share, once).
    size_t capacity = 0, range_capacity = 0;
    for (size_t i = 0; i < table->unit_count; i++) {
        uint64_t offset = table->units[i].program;
        int shared = (i > 0 && offset == table->units[i - 1].program) ||
                     (i + 1 < table->unit_count && offset == table->units[i + 1].program);
        if (i > 0 && offset == table->units[i - 1].program) {
            continue;
        }
        if (offset > UINT32_MAX || (!shared && add_unit_ranges(table, i, &range_capacity))) {
            continue;
        }
        struct program program;
        if (!read_program(table, offset, &program)) {
            continue;
        }
        index_program(&program, (uint32_t)offset, (uint32_t)i, &table->sequences, &table->sequence_count, &capacity);
    }
    qsort(table->sequences, table->sequence_count, sizeof *table->sequences, by_start);
    qsort(table->unit_ranges, table->unit_range_count, sizeof *table->unit_ranges, by_range_start);
    if (table->sequence_count == 0 && table->unit_range_count == 0) {
        rdiag_line_table_close(table);
        return NULL;
    }
    pthread_mutex_init(&table->lock, NULL);
    size_t per_unit = table->unit_count > 0 ? table->unit_count : 1;
    table->inlined = calloc(per_unit, sizeof *table->inlined);
    table->unit_sequences = calloc(per_unit, sizeof *table->unit_sequences);
    if (table->inlined == NULL || table->unit_sequences == NULL) {
        rdiag_line_table_close(table);
        return NULL;
    }
    return table;
}

void rdiag_line_table_close(rdiag_line_table *table) {
    if (table == NULL) {
        return;
    }
    if (table->inlined != NULL || table->unit_sequences != NULL) {
        for (size_t i = 0; i < table->unit_count; i++) {
            if (table->inlined != NULL) {
                free(table->inlined[i].ranges);
            }
            if (table->unit_sequences != NULL) {
                free(table->unit_sequences[i].items);
            }
        }
        free(table->inlined);
        free(table->unit_sequences);
        pthread_mutex_destroy(&table->lock);
    }
    free(table->unit_ranges);
    free(table->sequences);
    free(table->units);
    if (table->owns_file) {
        munmap((void *)table->file, table->file_size);
    }
    free(table);
}

// MARK: Lookup

static int sequence_of(const rdiag_line_table *table, uint64_t address, const struct unit **unit,
                       struct program *program);

enum { TAG_subprogram = 0x2e, TAG_variable = 0x34, TAG_formal_parameter = 0x05 };
enum { AT_name = 0x03, AT_decl_line = 0x3b, AT_abstract_origin = 0x31, AT_specification = 0x47 };

// What the walks read of one DIE.
struct die {
    uint64_t tag;
    int children;
    int has_low, has_high, high_is_address, has_ranges;
    uint64_t low, high, ranges;
    uint64_t call_file, call_line, call_column, decl_line;
    uint64_t origin; // DW_AT_specification or DW_AT_abstract_origin, relative to the unit; 0 if none
    const char *name;
    int uncertain;      // a range attribute or the name is in a DWARF 5 index this reader does not read
};

// A walk over one unit's DIEs, in order.
struct die_walk {
    const struct rdiag_line_table *table;
    struct unit_header header;
    struct abbreviation *abbreviations;
    size_t abbreviation_count;
    const uint8_t *unit_start; // the unit's header: references are relative to it
    struct cursor at;
    int level;       // the depth of the next DIE
    int depth;       // of the DIE read last: 0 for the unit's
    uint64_t base;   // the unit's base address, for its range lists
};

static int begin_walk(const struct rdiag_line_table *table, const struct unit *unit, struct die_walk *walk) {
    memset(walk, 0, sizeof *walk);
    walk->table = table;
    if (!read_unit_header(table, unit->offset, &walk->header) ||
        !read_abbreviations(table, walk->header.abbrev_offset, &walk->abbreviations, &walk->abbreviation_count)) {
        return 0;
    }
    walk->unit_start = table->info.data + unit->offset;
    walk->at = (struct cursor){walk->header.dies, walk->header.end, 0};
    return 1;
}

static void end_walk(struct die_walk *walk) {
    free(walk->abbreviations);
    walk->abbreviations = NULL;
}

// The next DIE (its depth in walk->depth): 1, 0 at the unit's end, -1 when unreadable.
static int next_die(struct die_walk *walk, struct die *die) {
    for (;;) {
        if (walk->at.failed) {
            return -1;
        }
        if (walk->at.at >= walk->at.end) {
            return 0;
        }
        uint64_t code = uleb(&walk->at);
        if (code == 0) {
            // The end of a parent's children; at the unit's, the end of the walk.
            if (--walk->level <= 0) {
                return 0;
            }
            continue;
        }
        const struct abbreviation *abbreviation =
            find_abbreviation(walk->abbreviations, walk->abbreviation_count, code);
        if (abbreviation == NULL) {
            return -1;
        }
        memset(die, 0, sizeof *die);
        die->tag = abbreviation->tag;
        die->children = abbreviation->children;
        struct cursor spec = {abbreviation->attributes, walk->table->abbrev.data + walk->table->abbrev.size, 0};
        for (;;) {
            uint64_t attribute = uleb(&spec);
            uint64_t form = uleb(&spec);
            int64_t implicit = form == FORM_implicit_const ? sleb(&spec) : 0;
            if (spec.failed || (attribute == 0 && form == 0)) {
                break;
            }
            struct value value;
            if (!read_value(walk->table, &walk->at, form, implicit, walk->header.address_size, walk->header.wide,
                            walk->header.version, &value) ||
                walk->at.failed) {
                return -1;
            }
            if (value.indexed &&
                (attribute == AT_low_pc || attribute == AT_high_pc || attribute == AT_ranges || attribute == AT_name)) {
                die->uncertain = 1;
            }
            if (attribute == AT_name && value.string != NULL) {
                die->name = value.string;
            }
            if (!value.known || value.string != NULL) {
                continue;
            }
            switch (attribute) {
            case AT_low_pc:
                die->has_low = 1;
                die->low = value.number;
                break;
            case AT_high_pc:
                die->has_high = 1;
                die->high = value.number;
                die->high_is_address = value.address;
                break;
            case AT_ranges:
                die->has_ranges = 1;
                die->ranges = value.number;
                break;
            case AT_call_file:
                die->call_file = value.number;
                break;
            case AT_call_line:
                die->call_line = value.number;
                break;
            case AT_call_column:
                die->call_column = value.number;
                break;
            case AT_decl_line:
                die->decl_line = value.number;
                break;
            case AT_specification: case AT_abstract_origin:
                if (form == FORM_ref1 || form == FORM_ref2 || form == FORM_ref4 || form == FORM_ref8 ||
                    form == FORM_ref_udata) {
                    die->origin = value.number;
                }
                break;
            default:
                break;
            }
        }
        walk->depth = walk->level;
        if (walk->depth == 0) {
            walk->base = die->has_low ? die->low : 0;
        }
        if (die->children) {
            walk->level += 1;
        } else if (walk->depth == 0) {
            walk->at.at = walk->at.end; // a unit without children
        }
        return 1;
    }
}

// The declaration line of a DIE, following its specification or abstract origin (as llvm's
// getDeclLine does) a few steps at most; 0 when it has none.
static uint64_t decl_line_of(const struct die_walk *walk, const struct die *die) {
    struct die current = *die;
    for (int step = 0; step < 4 && current.decl_line == 0 && current.origin != 0; step++) {
        if (current.origin >= (uint64_t)(walk->header.end - walk->unit_start)) {
            return 0;
        }
        struct die_walk at = *walk;
        at.at = (struct cursor){walk->unit_start + current.origin, walk->header.end, 0};
        at.level = 1; // a DIE inside the unit
        if (next_die(&at, &current) <= 0) {
            return 0;
        }
    }
    return current.decl_line;
}

// A DIE's code ranges, one at a time: its low_pc/high_pc, or its DWARF 4 range list.
struct die_ranges {
    const struct die *die;
    struct cursor list; // the range list, when the DIE has one
    uint64_t base;      // the base address its entries are relative to
    int done;
};

// Starts reading the ranges of `die` (a DIE of a unit of DWARF `version` whose base address is
// `base`; range lists in `list`): 0 when there is none to read, -1 when they cannot be read here
// (a DWARF 5 range list, an index this reader does not read), 1 otherwise.
static int start_ranges(const struct section *list, int version, uint64_t base, const struct die *die,
                        struct die_ranges *ranges) {
    *ranges = (struct die_ranges){die, {NULL, NULL, 0}, base, 0};
    if (die->uncertain) {
        return -1;
    }
    if (die->has_low && die->has_high) {
        return 1;
    }
    if (!die->has_ranges) {
        return 0;
    }
    if (version >= 5 || die->ranges >= list->size) {
        return -1;
    }
    ranges->list = (struct cursor){list->data + die->ranges, list->data + list->size, 0};
    return 1;
}

// Starts reading the ranges of a DIE of the walk's unit (see `start_ranges`).
static int begin_ranges(const struct die_walk *walk, const struct die *die, struct die_ranges *ranges) {
    return start_ranges(&walk->table->ranges, walk->header.version, walk->base, die, ranges);
}

// The next range [low, high): 1 with it, 0 after the last, -1 when the list is cut short.
static int next_range(struct die_ranges *ranges, uint64_t *low, uint64_t *high) {
    if (ranges->done) {
        return 0;
    }
    const struct die *die = ranges->die;
    if (die->has_low && die->has_high) {
        ranges->done = 1;
        *low = die->low;
        *high = die->high_is_address ? die->high : die->low + die->high;
        return 1;
    }
    for (;;) {
        uint64_t start = fixed(&ranges->list, 8);
        uint64_t end = fixed(&ranges->list, 8);
        if (ranges->list.failed) {
            return -1;
        }
        if (start == 0 && end == 0) {
            ranges->done = 1;
            return 0;
        }
        if (start == UINT64_MAX) {
            ranges->base = end;
            continue;
        }
        *low = ranges->base + start;
        *high = ranges->base + end;
        return 1;
    }
}

// Appends unit `index`'s code ranges, from its first DIE, to the table's (dead code, which the
// linker left at address 0, is left out): 1 when it has some and all of them could be read, 0
// otherwise (nothing is appended then, and the unit's program is indexed when the table is
// opened). Only a unit of DWARF 4 or earlier.
static int add_unit_ranges(struct rdiag_line_table *table, size_t index, size_t *capacity) {
    const struct unit *unit = &table->units[index];
    struct die first = {0};
    first.has_low = unit->has_low;
    first.has_high = unit->has_high;
    first.high_is_address = unit->high_is_address;
    first.has_ranges = unit->has_ranges;
    first.low = unit->low;
    first.high = unit->high;
    first.ranges = unit->ranges;
    struct die_ranges ranges;
    if (unit->version >= 5 ||
        start_ranges(&table->ranges, unit->version, unit->has_low ? unit->low : 0, &first, &ranges) <= 0) {
        return 0;
    }
    size_t before = table->unit_range_count;
    uint64_t low, high;
    int found;
    while ((found = next_range(&ranges, &low, &high)) > 0) {
        if (low == 0 || high <= low) {
            continue;
        }
        if (table->unit_range_count == *capacity) {
            size_t grown_capacity = *capacity == 0 ? 1024 : *capacity * 2;
            struct unit_range *grown = realloc(table->unit_ranges, grown_capacity * sizeof *grown);
            if (grown == NULL) {
                found = -1;
                break;
            }
            table->unit_ranges = grown;
            *capacity = grown_capacity;
        }
        table->unit_ranges[table->unit_range_count++] = (struct unit_range){low, high, (uint32_t)index};
    }
    if (found < 0) {
        table->unit_range_count = before;
        return 0;
    }
    return table->unit_range_count > before;
}

// Whether the DIE's code covers `address`: 1, 0, or -1 when its ranges cannot be read here.
static int die_covers(const struct die_walk *walk, const struct die *die, uint64_t address) {
    struct die_ranges ranges;
    int readable = begin_ranges(walk, die, &ranges);
    if (readable <= 0) {
        return readable;
    }
    uint64_t low, high;
    int found;
    while ((found = next_range(&ranges, &low, &high)) > 0) {
        if (address >= low && address < high) {
            return 1;
        }
    }
    return found;
}

static int add_inlined(struct inlined_set *set, size_t *capacity, uint64_t low, uint64_t high, const struct die *die) {
    if (high <= low) {
        return 1;
    }
    if (set->count == *capacity) {
        size_t grown_capacity = *capacity == 0 ? 16 : *capacity * 2;
        struct inlined_range *grown = realloc(set->ranges, grown_capacity * sizeof *grown);
        if (grown == NULL) {
            return 0;
        }
        set->ranges = grown;
        *capacity = grown_capacity;
    }
    set->ranges[set->count++] = (struct inlined_range){low, high, die->call_file, die->call_line, die->call_column};
    return 1;
}

static int by_low(const void *left, const void *right) {
    const struct inlined_range *a = left, *b = right;
    return a->low < b->low ? -1 : (a->low > b->low ? 1 : 0);
}

// Reads the unit's outermost inlined subroutines (one walk over its DIEs) into `set`.
static void read_inlined(const struct rdiag_line_table *table, const struct unit *unit, struct inlined_set *set) {
    set->state = -1;
    struct die_walk walk;
    if (!begin_walk(table, unit, &walk)) {
        return;
    }
    size_t capacity = 0;
    int inlined_depth = -1; // the depth of the outermost inlined subroutine being walked
    int certain = 1;
    struct die die;
    int read;
    while (certain && (read = next_die(&walk, &die)) > 0) {
        if (inlined_depth >= 0 && walk.depth <= inlined_depth) {
            inlined_depth = -1;
        }
        if (die.tag != TAG_inlined_subroutine || inlined_depth >= 0) {
            continue;
        }
        if (die.children) {
            inlined_depth = walk.depth;
        }
        struct die_ranges ranges;
        int found = begin_ranges(&walk, &die, &ranges);
        uint64_t low, high;
        while (found > 0 && (found = next_range(&ranges, &low, &high)) > 0) {
            if (!add_inlined(set, &capacity, low, high, &die)) {
                found = -1;
            }
        }
        certain = found == 0;
    }
    end_walk(&walk);
    if (!certain || read < 0) {
        free(set->ranges);
        set->ranges = NULL;
        set->count = 0;
        return;
    }
    qsort(set->ranges, set->count, sizeof *set->ranges, by_low);
    set->state = 1;
}

// The call site of the outermost inlined subroutine of `unit` whose code covers `address`:
// 1 with it, 0 when none covers it, -1 when the unit cannot be read with certainty.
static int outermost_call_site(const struct rdiag_line_table *table, const struct unit *unit, uint64_t address,
                               uint64_t *file, uint64_t *line, uint64_t *column) {
    struct rdiag_line_table *shared = (struct rdiag_line_table *)table;
    if (shared->inlined == NULL) {
        return -1;
    }
    struct inlined_set *set = &shared->inlined[unit - table->units];
    pthread_mutex_lock(&shared->lock);
    if (set->state == 0) {
        read_inlined(table, unit, set);
    }
    pthread_mutex_unlock(&shared->lock);
    if (set->state < 0) {
        return -1;
    }
    // The last range starting at or before the address (the outermost ones do not overlap).
    size_t low = at_or_before(set->ranges, set->count, sizeof *set->ranges, address);
    if (low == 0 || address >= set->ranges[low - 1].high) {
        return 0;
    }
    *file = set->ranges[low - 1].file;
    *line = set->ranges[low - 1].line;
    *column = set->ranges[low - 1].column;
    return 1;
}

int rdiag_line_table_lookup(const rdiag_line_table *table, uint64_t address, char *file, size_t file_capacity,
                            uint32_t *line, uint32_t *column) {
    *line = 0;
    *column = 0;
    if (file_capacity > 0) {
        file[0] = 0;
    }
    const struct unit *unit;
    struct program program;
    if (!sequence_of(table, address, &unit, &program)) {
        return 0;
    }
    struct row row;
    if (!run_program(&program, address, &row)) {
        return 0;
    }
    uint64_t file_index = row.file, line_number = (uint64_t)row.line, column_number = row.column;
    uint64_t call_file, call_line, call_column;
    int inlined = outermost_call_site(table, unit, address, &call_file, &call_line, &call_column);
    if (inlined < 0) {
        return 0;
    }
    if (inlined > 0) {
        file_index = call_file;
        line_number = call_line;
        column_number = call_column;
    }
    if (!file_path(table, &program, unit->directory, file_index, file, file_capacity)) {
        return 0;
    }
    *column = column_number > UINT32_MAX ? 0 : (uint32_t)column_number;
    if (inlined == 0 && row.line <= 0) {
        return 2; // a row without a line (compiler-made code): llvm-symbolizer has none either
    }
    if (line_number == 0 || line_number > UINT32_MAX) {
        *column = 0;
        return 0;
    }
    *line = (uint32_t)line_number;
    return 1;
}

// The last of `count` sequences (sorted by start) that covers `address`, or NULL.
static const struct sequence *covering(const struct sequence *items, size_t count, uint64_t address) {
    size_t low = at_or_before(items, count, sizeof *items, address);
    return low > 0 && address < items[low - 1].end ? &items[low - 1] : NULL;
}

// The sequences of the unit whose code ranges cover `address` (indexed now if this is the
// unit's first lookup); NULL when no unit's ranges do.
static const struct unit_sequences *lazy_sequences(const rdiag_line_table *table, uint64_t address) {
    size_t low = at_or_before(table->unit_ranges, table->unit_range_count, sizeof *table->unit_ranges, address);
    if (low == 0 || address >= table->unit_ranges[low - 1].end || table->unit_sequences == NULL) {
        return NULL;
    }
    uint32_t index = table->unit_ranges[low - 1].unit;
    struct rdiag_line_table *shared = (struct rdiag_line_table *)table;
    struct unit_sequences *sequences = &shared->unit_sequences[index];
    pthread_mutex_lock(&shared->lock);
    if (sequences->state == 0) {
        struct program program;
        size_t capacity = 0;
        uint64_t offset = table->units[index].program;
        if (read_program(table, offset, &program)) {
            index_program(&program, (uint32_t)offset, index, &sequences->items, &sequences->count, &capacity);
            qsort(sequences->items, sequences->count, sizeof *sequences->items, by_start);
        }
        sequences->state = 1;
    }
    pthread_mutex_unlock(&shared->lock);
    return sequences;
}

// The sequence covering `address`, its unit and its program; 0 when none does.
static int sequence_of(const rdiag_line_table *table, uint64_t address, const struct unit **unit,
                       struct program *program) {
    const struct sequence *sequence = covering(table->sequences, table->sequence_count, address);
    if (sequence == NULL) {
        const struct unit_sequences *lazy = lazy_sequences(table, address);
        sequence = lazy == NULL ? NULL : covering(lazy->items, lazy->count, address);
    }
    if (sequence == NULL || sequence->unit >= table->unit_count) {
        return 0;
    }
    *unit = &table->units[sequence->unit];
    return read_program(table, sequence->program, program);
}

// Appends `name` and its NUL to `names` at `*used`; 0 when it does not fit.
static int append_name(char *names, size_t capacity, size_t *used, const char *name) {
    size_t length = strlen(name);
    if (*used + length + 1 > capacity) {
        return 0;
    }
    memcpy(names + *used, name, length + 1);
    *used += length + 1;
    return 1;
}

int rdiag_line_table_function(const rdiag_line_table *table, uint64_t address, char *file, size_t file_capacity,
                              uint32_t *line, uint32_t *column, uint32_t *declaration_line, char *names,
                              size_t names_capacity, size_t *name_count) {
    *line = 0;
    *column = 0;
    *declaration_line = 0;
    *name_count = 0;
    if (file_capacity > 0) {
        file[0] = 0;
    }
    const struct unit *unit;
    struct program program;
    struct row row;
    if (!sequence_of(table, address, &unit, &program) || !run_program(&program, address, &row) ||
        !file_path(table, &program, unit->directory, row.file, file, file_capacity)) {
        return 0;
    }
    struct die_walk walk;
    if (!begin_walk(table, unit, &walk)) {
        return 0;
    }
    // The subprogram covering the address (llvm-symbolizer's FRAME: its variables and
    // parameters in DIE order, anywhere below it; a variable's own children are not looked at).
    int result = 0;
    int function_depth = -1;
    int skip_below = -1; // the depth of a variable whose children are passed over
    size_t used = 0;
    struct die die;
    int read;
    while ((read = next_die(&walk, &die)) > 0) {
        if (function_depth < 0) {
            if (die.tag == TAG_subprogram) {
                int inside = die_covers(&walk, &die, address);
                if (inside == 0) {
                    continue;
                }
                // Uncertain, its line on a declaration elsewhere, or not its start (llvm-symbolizer's
                // FRAME would be asked elsewhere): llvm-symbolizer tells.
                uint64_t declared = inside > 0 ? decl_line_of(&walk, &die) : 0;
                if (inside < 0 || declared == 0 || declared > UINT32_MAX || !die.has_low || die.low != address) {
                    break;
                }
                function_depth = walk.depth;
                *declaration_line = (uint32_t)declared;
                result = 1;
            }
            continue;
        }
        if (walk.depth <= function_depth) {
            break; // past the function's DIEs
        }
        if (skip_below >= 0) {
            if (walk.depth > skip_below) {
                continue;
            }
            skip_below = -1;
        }
        if (die.tag == TAG_inlined_subroutine && die_covers(&walk, &die, address) != 0) {
            result = 0; // its first instruction is inlined code: llvm-symbolizer tells that
            break;
        }
        if (die.tag == TAG_variable || die.tag == TAG_formal_parameter) {
            if (die.uncertain || !append_name(names, names_capacity, &used, die.name != NULL ? die.name : "")) {
                result = 0;
                break;
            }
            *name_count += 1;
            if (die.children) {
                skip_below = walk.depth;
            }
        }
    }
    if (read < 0) {
        result = 0;
    }
    end_walk(&walk);
    if (result) {
        *line = row.line > 0 && row.line <= UINT32_MAX ? (uint32_t)row.line : 0;
        *column = row.column <= UINT32_MAX ? (uint32_t)row.column : 0;
    }
    return result;
}

#else

rdiag_line_table *rdiag_line_table_open(const char *path) {
    (void)path;
    return NULL;
}

rdiag_line_table *rdiag_line_table_read(const void *bytes, size_t size) {
    (void)bytes;
    (void)size;
    return NULL;
}

int rdiag_line_table_lookup(const rdiag_line_table *table, uint64_t address, char *file, size_t file_capacity,
                            uint32_t *line, uint32_t *column) {
    (void)table;
    (void)address;
    if (file_capacity > 0) {
        file[0] = 0;
    }
    *line = 0;
    *column = 0;
    return 0;
}

int rdiag_line_table_function(const rdiag_line_table *table, uint64_t address, char *file, size_t file_capacity,
                              uint32_t *line, uint32_t *column, uint32_t *declaration_line, char *names,
                              size_t names_capacity, size_t *name_count) {
    (void)table;
    (void)address;
    (void)names;
    (void)names_capacity;
    if (file_capacity > 0) {
        file[0] = 0;
    }
    *line = 0;
    *column = 0;
    *declaration_line = 0;
    *name_count = 0;
    return 0;
}

int rdiag_image_debug_information(const char *path) {
    (void)path;
    return -1;
}

void rdiag_line_table_close(rdiag_line_table *table) {
    (void)table;
}

#endif
