#include "CReactiveDiagnostics.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <elf.h>
#include <link.h>
#include <unistd.h>
#endif

int rdiag_proc_name(uintptr_t address, char *name, size_t name_capacity, uintptr_t *offset) {
    if (name_capacity == 0) {
        return -1;
    }
    name[0] = 0;
    *offset = 0;
#if defined(__linux__)
    // dladdr only sees exported symbols; a libunwind cursor placed at the address reads
    // the full symbol table, so internal and closure functions resolve too.
    unw_context_t context;
    unw_cursor_t cursor;
    if (unw_getcontext(&context) != 0) {
        return -1;
    }
    if (unw_init_local(&cursor, &context) != 0) {
        return -1;
    }
    if (unw_set_reg(&cursor, UNW_REG_IP, (unw_word_t)address) != 0) {
        return -1;
    }
    unw_word_t symbol_offset = 0;
    int result = unw_get_proc_name(&cursor, name, name_capacity, &symbol_offset);
    // -UNW_ENOMEM means the name was truncated: still useful.
    if (result == 0 || result == -UNW_ENOMEM) {
        *offset = (uintptr_t)symbol_offset;
        return name[0] ? 0 : -1;
    }
#endif
    Dl_info info;
    if (dladdr((void *)address, &info) != 0 && info.dli_sname != NULL) {
        strncpy(name, info.dli_sname, name_capacity - 1);
        name[name_capacity - 1] = 0;
        *offset = address - (uintptr_t)info.dli_saddr;
        return 0;
    }
    return -1;
}

#if defined(__linux__)
struct image_query {
    uintptr_t address;
    int found;
    char *path;
    size_t path_capacity;
    uintptr_t load_bias;
    char *build_id;
    size_t build_id_capacity;
    uintptr_t segment_start;
    uintptr_t segment_end;
};

static void hex_encode(const unsigned char *bytes, size_t count, char *out, size_t capacity) {
    static const char digits[] = "0123456789abcdef";
    size_t i = 0;
    for (; i < count && (i * 2 + 2) < capacity; i++) {
        out[i * 2] = digits[bytes[i] >> 4];
        out[i * 2 + 1] = digits[bytes[i] & 0xf];
    }
    out[i * 2] = 0;
}

static void read_build_id(struct dl_phdr_info *info, struct image_query *query) {
    query->build_id[0] = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type != PT_NOTE) {
            continue;
        }
        const char *cursor = (const char *)(info->dlpi_addr + header->p_vaddr);
        const char *end = cursor + header->p_memsz;
        while (cursor + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *note = (const ElfW(Nhdr) *)cursor;
            const char *note_name = cursor + sizeof(ElfW(Nhdr));
            const char *desc = note_name + ((note->n_namesz + 3) & ~3u);
            if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
                memcmp(note_name, "GNU", 4) == 0 && desc + note->n_descsz <= end) {
                hex_encode((const unsigned char *)desc, note->n_descsz,
                           query->build_id, query->build_id_capacity);
                return;
            }
            cursor = desc + ((note->n_descsz + 3) & ~3u);
        }
    }
}

static int find_image(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct image_query *query = (struct image_query *)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type != PT_LOAD) {
            continue;
        }
        uintptr_t start = info->dlpi_addr + header->p_vaddr;
        if (query->address >= start && query->address < start + header->p_memsz) {
            query->found = 1;
            query->segment_start = start;
            query->segment_end = start + header->p_memsz;
            query->load_bias = info->dlpi_addr;
            const char *name = info->dlpi_name;
            if (name == NULL || name[0] == 0) {
                // The main executable has no name here; /proc/self/exe is its real path.
                ssize_t length = readlink("/proc/self/exe", query->path, query->path_capacity - 1);
                query->path[length > 0 ? length : 0] = 0;
            } else {
                // dlpi_name can be relative to the working directory at load time.
                char *resolved = realpath(name, NULL);
                strncpy(query->path, resolved ? resolved : name, query->path_capacity - 1);
                query->path[query->path_capacity - 1] = 0;
                free(resolved);
            }
            read_build_id(info, query);
            return 1;
        }
    }
    return 0;
}
#endif

int rdiag_image_segment_for_address(uintptr_t address, char *path, size_t path_capacity,
                                    uintptr_t *load_bias, char *build_id, size_t build_id_capacity,
                                    uintptr_t *segment_start, uintptr_t *segment_end) {
    if (path_capacity == 0 || build_id_capacity == 0) {
        return -1;
    }
    path[0] = 0;
    build_id[0] = 0;
    *load_bias = 0;
    *segment_start = address;
    *segment_end = address + 1;
#if defined(__linux__)
    struct image_query query = {address, 0, path, path_capacity, 0, build_id, build_id_capacity, 0, 0};
    dl_iterate_phdr(find_image, &query);
    if (query.found) {
        *load_bias = query.load_bias;
        *segment_start = query.segment_start;
        *segment_end = query.segment_end;
        return 0;
    }
    return -1;
#else
    Dl_info info;
    if (dladdr((void *)address, &info) == 0 || info.dli_fname == NULL) {
        return -1;
    }
    strncpy(path, info.dli_fname, path_capacity - 1);
    path[path_capacity - 1] = 0;
    *load_bias = (uintptr_t)info.dli_fbase;
    return 0;
#endif
}
