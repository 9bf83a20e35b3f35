/*
 * Private helpers of librdx shared by runtime.c and the cffi-generated module: they are how
 * the Python half hands malloc'ed memory and error messages to C. Not part of the ABI (hidden
 * from the library's exported symbols); the build script declares the same prototypes to cffi.
 */
#ifndef RDX_RUNTIME_H
#define RDX_RUNTIME_H

#include <stddef.h>

#define RDX_PRIVATE __attribute__((visibility("hidden")))

/* Replace the calling thread's last error message with a copy of `length` bytes. */
RDX_PRIVATE void rdx__set_last_error(const char *message, size_t length);

/* A malloc'ed, NUL-terminated copy of `length` bytes (NULL when out of memory). */
RDX_PRIVATE char *rdx__strdup(const char *bytes, size_t length);

/* A zeroed array of `count` string pointers for rdx_string_array_free (NULL when out of memory). */
RDX_PRIVATE char **rdx__string_array(size_t count);

/* An array of `count` malloc'ed strings for rdx_string_array_free, copied from `packed`: the
 * strings laid end to end, each followed by its NUL, `length` bytes in all. One call for a
 * whole list instead of one per string. NULL when out of memory or when `packed` does not hold
 * exactly `count` NUL-terminated strings. */
RDX_PRIVATE char **rdx__string_array_unpack(const char *packed, size_t length, size_t count);

#endif /* RDX_RUNTIME_H */
