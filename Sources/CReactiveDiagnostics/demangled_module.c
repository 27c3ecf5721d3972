// The module a demangled Swift name belongs to (FrameClassifier.module(ofDemangled:)): read here
// because every frame of every named stack asks it, and the same scan in a debug build's Swift
// (prefix tests, Foundation searches, Character iteration) cost several microseconds a frame.
// Bytes, not Characters: every delimiter is ASCII, which no byte of a multi-byte UTF-8 character
// equals; a byte of 0x80 or more counts as a letter of an identifier.
#include "CReactiveDiagnostics.h"

#include <string.h>

struct text {
    const char *at;
    const char *end;
};

static int starts(struct text t, const char *prefix, size_t length) {
    return (size_t)(t.end - t.at) >= length && memcmp(t.at, prefix, length) == 0;
}

#define STARTS(t, literal) starts((t), (literal), sizeof(literal) - 1)

// The first `word` in `t`, or NULL.
static const char *find(struct text t, const char *word, size_t length) {
    for (const char *p = t.at; (size_t)(t.end - p) >= length; p++) {
        if (*p == word[0] && memcmp(p, word, length) == 0) {
            return p;
        }
    }
    return NULL;
}

#define FIND(t, literal) find((t), (literal), sizeof(literal) - 1)

static int is_digit(char c) {
    return c >= '0' && c <= '9';
}

static int is_identifier(char c) {
    unsigned char byte = (unsigned char)c;
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || byte >= 0x80;
}

// Just past the first " in " at bracket depth 0 (a ">" closes, even in "->"), or NULL.
static const char *first_top_level_in(struct text t) {
    int depth = 0;
    for (const char *p = t.at; p < t.end; p++) {
        char c = *p;
        if (c == '(' || c == '<' || c == '[') {
            depth++;
        }
        if (c == ')' || c == '>' || c == ']') {
            depth = depth > 0 ? depth - 1 : 0;
        }
        if (depth == 0 && c == ' ' && (size_t)(t.end - p) >= 4 && memcmp(p, " in ", 4) == 0) {
            return p + 4;
        }
    }
    return NULL;
}

// Just past the last " in " at bracket depth 0, or NULL.
static const char *last_top_level_in(struct text t) {
    const char *result = NULL;
    const char *next;
    while ((next = first_top_level_in(t)) != NULL) {
        result = next;
        t.at = next;
    }
    return result;
}

// The ">" closing the "<" at `open` ("->" inside a specialization's function types is no bracket).
static const char *matching_close(struct text t, const char *open) {
    int depth = 0;
    for (const char *p = open; p < t.end; p++) {
        if (*p == '<') {
            depth++;
        }
        if (*p == '>' && (p > t.at ? p[-1] : ' ') != '-') {
            depth--;
            if (depth == 0) {
                return p;
            }
        }
    }
    return NULL;
}

static int found(const char *name, const char *start, const char *end, size_t *module_start, size_t *module_length) {
    *module_start = (size_t)(start - name);
    *module_length = (size_t)(end - start);
    return 1;
}

// "(extension in M):…" gives M.
static int extension_module(const char *name, struct text t, size_t *module_start, size_t *module_length) {
    const char *rest = t.at + sizeof("(extension in ") - 1;
    const char *close = memchr(rest, ')', (size_t)(t.end - rest));
    return close != NULL && found(name, rest, close, module_start, module_length);
}

// `$s<length><module>…`: the first identifier of a mangled name.
static int mangled_module(const char *name, struct text t, size_t *module_start, size_t *module_length) {
    size_t length = 0;
    const char *p = t.at;
    for (; p < t.end && is_digit(*p); p++) {
        if (length > (size_t)1 << 40) {
            return 0;
        }
        length = length * 10 + (size_t)(*p - '0');
    }
    if (p == t.at || length == 0 || (size_t)(t.end - p) < length) {
        return 0;
    }
    return found(name, p, p + length, module_start, module_length);
}

static const char *const prefixes[] = {
    "merged ",
    "partial apply forwarder for ",
    "partial apply for ",
    "dispatch thunk of ",
    "static ",
    "@objc ",
    "@nonobjc ",
    "async function pointer to ",
    "outlined copy of ",
    "outlined consume of ",
    "outlined destroy of ",
    "outlined retain of ",
    "outlined release of ",
    "outlined init with take of ",
    "outlined init with copy of ",
    "outlined assign with take of ",
    "outlined assign with copy of ",
    "type metadata accessor for ",
    "type metadata completion function for ",
    "lazy protocol witness table accessor for type ",
    "key path getter for ",
    "key path setter for ",
    "property wrapper backing initializer of ",
    "variable initialization expression of ",
    "one-time initialization function for ",
    "default argument ",
    "thunk for ",
    "reabstraction thunk helper ",
    "method descriptor for ",
    "nominal type descriptor for ",
    "{T:",
    "coroutine continuation prototype for ",
};

static const char *const specializations[] = {
    "generic specialization <",
    "function signature specialization <",
    "generic partial specialization <",
    "specialized ",
};

static const char *const closures[] = {"closure #", "implicit closure #", "autoclosure #"};

int rdiag_module_of_demangled(const char *name, size_t length, size_t *module_start, size_t *module_length) {
    struct text t = {name, name + length};
    int progress = 1;
    while (progress) {
        progress = 0;
        while (t.at < t.end && *t.at == ' ') {
            t.at++;
        }
        for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
            size_t prefix_length = strlen(prefixes[i]);
            if (starts(t, prefixes[i], prefix_length)) {
                t.at += prefix_length;
                progress = 1;
            }
        }
        // "default argument 2 of M.f(…)"
        if (t.at < t.end && is_digit(*t.at)) {
            const char *of = FIND(t, " of ");
            if (of != NULL) {
                const char *p = t.at;
                while (p < of && is_digit(*p)) {
                    p++;
                }
                if (p == of) {
                    t.at = of + 4;
                    progress = 1;
                }
            }
        }
        for (size_t i = 0; i < sizeof specializations / sizeof specializations[0]; i++) {
            size_t prefix_length = strlen(specializations[i]);
            if (!starts(t, specializations[i], prefix_length)) {
                continue;
            }
            if (i == 3) {
                t.at += prefix_length;
            } else {
                const char *close = matching_close(t, t.at + prefix_length - 1);
                if (close == NULL) {
                    return 0;
                }
                t.at = close + 1;
                if (STARTS(t, " of ")) {
                    t.at += 4;
                }
            }
            progress = 1;
        }
        if (STARTS(t, "(")) {
            // "(1) suspend resume partial function for …", "(extension in M):…"
            if (STARTS(t, "(extension in ")) {
                return extension_module(name, t, module_start, module_length);
            }
            const char *for_ = FIND(t, " for ");
            if (for_ != NULL) {
                struct text before = {t.at, for_};
                if (FIND(before, "partial function") != NULL || FIND(before, "resume") != NULL) {
                    t.at = for_ + 5;
                    progress = 1;
                }
            }
        }
        size_t witness = STARTS(t, "protocol witness for ")                   ? sizeof("protocol witness for ") - 1
                         : STARTS(t, "protocol conformance descriptor for ") ? sizeof("protocol conformance descriptor for ") - 1
                                                                              : 0;
        if (witness > 0) {
            const char *conformance = FIND(t, " in conformance ");
            if (conformance != NULL) {
                struct text rest = {conformance + sizeof(" in conformance ") - 1, t.end};
                const char *last_in = last_top_level_in(rest);
                if (last_in != NULL) {
                    const char *end = last_in;
                    while (end < t.end && *end != ' ' && *end != '.') {
                        end++;
                    }
                    return found(name, last_in, end, module_start, module_length);
                }
                t = rest;
            } else {
                t.at += witness;
            }
            progress = 1;
        }
        for (size_t i = 0; i < sizeof closures / sizeof closures[0]; i++) {
            if (starts(t, closures[i], strlen(closures[i]))) {
                const char *in = first_top_level_in(t);
                if (in == NULL) {
                    return 0;
                }
                t.at = in;
                progress = 1;
            }
        }
    }
    if (STARTS(t, "(extension in ")) {
        return extension_module(name, t, module_start, module_length);
    }
    if (STARTS(t, "$s") || STARTS(t, "_$s")) {
        // A mangled name the demangler left inside (async resume functions of macro expansions).
        const char *s = memchr(t.at, 's', (size_t)(t.end - t.at));
        struct text rest = {s + 1, t.end};
        return mangled_module(name, rest, module_start, module_length);
    }
    const char *dot = memchr(t.at, '.', (size_t)(t.end - t.at));
    if (dot == NULL || dot == t.at) {
        return 0;
    }
    for (const char *p = t.at; p < dot; p++) {
        if (!is_identifier(*p)) {
            return 0;
        }
    }
    return found(name, t.at, dot, module_start, module_length);
}
