// An ELF file mapped read-only in whole (symbol_table.c, line_table.c): the mapping, and its
// size in `*size`; NULL when the file cannot be opened or is smaller than an ELF header. Linux
// only; the caller unmaps it.
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static inline void *rdiag_map_file(const char *path, size_t *size) {
    *size = 0;
    int descriptor = open(path, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) {
        return NULL;
    }
    struct stat status;
    if (fstat(descriptor, &status) != 0 || status.st_size < (off_t)sizeof(ElfW(Ehdr))) {
        close(descriptor);
        return NULL;
    }
    void *file = mmap(NULL, (size_t)status.st_size, PROT_READ, MAP_PRIVATE, descriptor, 0);
    close(descriptor);
    if (file == MAP_FAILED) {
        return NULL;
    }
    *size = (size_t)status.st_size;
    return file;
}
