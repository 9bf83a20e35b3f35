/*
 * The native half of librdx: the functions of rdx.h that must work without the embedded
 * interpreter (the thread-local last error, status names, releasing strings), plus private
 * helpers that the Python half (bindings/python/rdx_capi.py) calls to hand memory to C.
 *
 * Everything returned to callers is allocated here with malloc, so that callers release it
 * with the matching rdx_*_free without caring that Python produced the contents. This file
 * owns no graph state: graphs and handles live in the Python half.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rdx.h"
#include "runtime.h"

#define RDX_EXPORT __attribute__((visibility("default")))

/* The last error message lives in a pthread key rather than in Python: it is then truly per
 * OS thread (whatever the interpreter does with thread states), readable without the GIL or
 * a started interpreter, and freed by the key's destructor when the thread exits. */
static pthread_key_t error_key;
static pthread_once_t error_once = PTHREAD_ONCE_INIT;
static int error_key_ok = 0;

static void error_key_init(void) {
    error_key_ok = pthread_key_create(&error_key, free) == 0;
}

void rdx__set_last_error(const char *message, size_t length) {
    pthread_once(&error_once, error_key_init);
    if (!error_key_ok) {
        return;
    }
    char *copy = malloc(length + 1);
    if (copy == NULL) {
        /* Keep the previous message rather than lose the thread's only diagnostic. */
        return;
    }
    memcpy(copy, message, length);
    copy[length] = '\0';
    char *old = pthread_getspecific(error_key);
    if (pthread_setspecific(error_key, copy) != 0) {
        free(copy);
        return;
    }
    free(old);
}

char *rdx__strdup(const char *bytes, size_t length) {
    char *copy = malloc(length + 1);
    if (copy != NULL) {
        memcpy(copy, bytes, length);
        copy[length] = '\0';
    }
    return copy;
}

char **rdx__string_array(size_t count) {
    /* calloc so that a partly filled array can be released by rdx_string_array_free. */
    return calloc(count == 0 ? 1 : count, sizeof(char *));
}

char **rdx__string_array_unpack(const char *packed, size_t length, size_t count) {
    char **array = rdx__string_array(count);
    if (array == NULL) {
        return NULL;
    }
    const char *at = packed, *end = packed + length;
    for (size_t i = 0; i < count; i++) {
        const char *nul = at < end ? memchr(at, '\0', (size_t)(end - at)) : NULL;
        if (nul == NULL || (array[i] = rdx__strdup(at, (size_t)(nul - at))) == NULL) {
            rdx_string_array_free(array, count);
            return NULL;
        }
        at = nul + 1;
    }
    if (at != end) {
        rdx_string_array_free(array, count);
        return NULL;
    }
    return array;
}

RDX_EXPORT int32_t rdx_abi_version(void) {
    return RDX_ABI_VERSION;
}

RDX_EXPORT const char *rdx_last_error_message(void) {
    pthread_once(&error_once, error_key_init);
    if (!error_key_ok) {
        return "";
    }
    const char *message = pthread_getspecific(error_key);
    return message != NULL ? message : "";
}

RDX_EXPORT const char *rdx_status_name(rdx_status_t status) {
    switch (status) {
    case RDX_OK: return "RDX_OK";
    case RDX_DONE: return "RDX_DONE";
    case RDX_ERR_INVALID_ARGUMENT: return "RDX_ERR_INVALID_ARGUMENT";
    case RDX_ERR_NOT_FOUND: return "RDX_ERR_NOT_FOUND";
    case RDX_ERR_INVALID_HANDLE: return "RDX_ERR_INVALID_HANDLE";
    case RDX_ERR_IO: return "RDX_ERR_IO";
    case RDX_ERR_ENCODING: return "RDX_ERR_ENCODING";
    case RDX_ERR_NOT_RESOLVED: return "RDX_ERR_NOT_RESOLVED";
    case RDX_ERR_INTERNAL: return "RDX_ERR_INTERNAL";
    default: return "RDX_UNKNOWN_STATUS";
    }
}

RDX_EXPORT void rdx_string_free(char *string) {
    free(string);
}

RDX_EXPORT void rdx_string_array_free(char **strings, size_t count) {
    if (strings == NULL) {
        return;
    }
    for (size_t i = 0; i < count; i++) {
        free(strings[i]);
    }
    free(strings);
}

RDX_EXPORT void rdx_location_free(rdx_location_t *location) {
    if (location == NULL) {
        return;
    }
    free(location->path);
    free(location->uri);
    location->path = NULL;
    location->uri = NULL;
}
