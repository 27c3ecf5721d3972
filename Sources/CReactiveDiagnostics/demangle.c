#include "CReactiveDiagnostics.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

// Exported by the Swift runtime (libswiftCore), which every Swift process has loaded.
extern char *swift_demangle(const char *mangled_name, size_t mangled_name_length,
                            char *output_buffer, size_t *output_buffer_size, uint32_t flags);

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

static int is_swift_symbol(const char *symbol) {
    return strncmp(symbol, "$s", 2) == 0 || strncmp(symbol, "_$s", 3) == 0 ||
           strncmp(symbol, "$S", 2) == 0 || strncmp(symbol, "_$S", 3) == 0 ||
           strncmp(symbol, "_T0", 3) == 0 || strncmp(symbol, "$e", 2) == 0;
}

char *rdiag_demangle(const char *symbol) {
    if (symbol == NULL || symbol[0] == 0) {
        return NULL;
    }
    if (is_swift_symbol(symbol)) {
        return swift_demangle(symbol, strlen(symbol), NULL, NULL, 0);
    }
    if (strncmp(symbol, "_Z", 2) == 0) {
        // Looked up at run time so the package does not have to link libstdc++ itself.
        // Threads may race to look it up: they all find the same pointer, published atomically.
        static cxa_demangle_fn cached = NULL;
        cxa_demangle_fn cxa_demangle = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
        if (cxa_demangle == NULL) {
            cxa_demangle = (cxa_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
            __atomic_store_n(&cached, cxa_demangle, __ATOMIC_RELEASE);
        }
        if (cxa_demangle != NULL) {
            int status = 0;
            char *result = cxa_demangle(symbol, NULL, NULL, &status);
            if (status == 0) {
                return result;
            }
            free(result);
        }
    }
    return NULL;
}
