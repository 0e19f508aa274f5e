/** @file
 * The freestanding basics every layer may use: size units, array and bit helpers, and the
 * subset of the C library the portable code calls. The firmware build gets the functions from
 * boot/uefi/uefi_libc.c, the host builds from libc; the prototypes are the standard ones.
 * Portable: only <stdbool.h>, <stddef.h> and <stdint.h>.
 */
#ifndef PMUCAL_BASE_H
#define PMUCAL_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KiB (1024ull)
#define MiB (1024ull * KiB)
#define GiB (1024ull * MiB)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BIT_ULL(n)    (1ull << (n))

void  *memcpy(void *dst, const void *src, size_t n);
void  *memmove(void *dst, const void *src, size_t n);
void  *memset(void *dst, int c, size_t n);
int    memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int    strcmp(const char *a, const char *b);
int    strncmp(const char *a, const char *b, size_t n);

#endif
