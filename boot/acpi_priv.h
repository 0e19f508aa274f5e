/** @file
 * Private to the ACPI table parsers (boot/acpi.c: header, MADT, SRAT, SLIT; boot/acpi_hmat.c:
 * HMAT): the little-endian field readers and the diagnostic helpers every parser reports
 * through. Not part of the acpi.h API; nothing else includes it.
 */
#ifndef PMUCAL_ACPI_PRIV_H
#define PMUCAL_ACPI_PRIV_H

#include <stdarg.h>

#include "lib/fmt.h"
#include "boot/acpi.h"

/* Little-endian fields at @p p (ACPI tables need not be aligned). */

static inline uint16_t rd16(const uint8_t *p)
{
        return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t rd32(const uint8_t *p)
{
        return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
               ((uint32_t)p[3] << 24);
}

static inline uint64_t rd64(const uint8_t *p)
{
        return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32);
}

/* Record where (@p off) and what (@p fmt) in @p d, if given; return @p st. */
PRINTF_FMT(4, 5)
static inline status_t fail(struct acpi_diag *d, status_t st, size_t off, const char *fmt, ...)
{
        va_list ap;

        if (!d)
                return st;
        d->offset = (uint32_t)off;
        va_start(ap, fmt);
        fmt_vsnprintf(d->what, sizeof(d->what), fmt, ap);
        va_end(ap);
        return st;
}

/* A sub-structure of @p len bytes at @p off, shorter than the @p need its type requires. */
static inline status_t too_short(struct acpi_diag *d, const char *sig, const char *what,
                                 size_t off, size_t len, size_t need)
{
        return fail(d, ST_BAD_DATA, off, "%s: %s entry of %zu bytes, needs %zu", sig, what,
                    len, need);
}

#endif /* PMUCAL_ACPI_PRIV_H */
