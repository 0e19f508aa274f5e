/** @file
 * The C library subset portable code uses (boot/plat.h), for the firmware build. memcpy and
 * memset come from GNU-EFI's libefi (lib/init.c), which the compiler also calls implicitly.
 * Compiled so that GCC does not turn these loops back into calls to themselves.
 */
#include "boot/uefi/uefi_priv.h"

#define NO_PATTERNS __attribute__((optimize("no-tree-loop-distribute-patterns")))

NO_PATTERNS void *memmove(void *dst, const void *src, size_t n)
{
        unsigned char       *d = dst;
        const unsigned char *s = src;

        if (d < s) {
                while (n--)
                        *d++ = *s++;
        } else if (d > s) {
                while (n--)
                        d[n] = s[n];
        }
        return dst;
}

NO_PATTERNS int memcmp(const void *a, const void *b, size_t n)
{
        const unsigned char *x = a, *y = b;

        for (size_t i = 0; i < n; i++)
                if (x[i] != y[i])
                        return x[i] - y[i];
        return 0;
}

NO_PATTERNS size_t strlen(const char *s)
{
        size_t n = 0;

        while (s[n])
                n++;
        return n;
}

int strcmp(const char *a, const char *b)
{
        while (*a && *a == *b) {
                a++;
                b++;
        }
        return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
        for (; n; n--, a++, b++) {
                if (*a != *b)
                        return (unsigned char)*a - (unsigned char)*b;
                if (!*a)
                        return 0;
        }
        return 0;
}
