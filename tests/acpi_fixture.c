/** @file ACPI test fixtures and table helpers (see acpi_fixture.h). */
#include "tests/acpi_fixture.h"

#include <stdio.h>

#include "tests/test_util.h"

uint8_t *acpi_fixture_load(const char *name, size_t *len)
{
        char rel[256];

        snprintf(rel, sizeof(rel), "%s/%s", "acpi", name);
        return test_load(rel, len);
}

void acpi_fixture_put_le(uint8_t *p, uint64_t v, unsigned bytes)
{
        /* fields wider than 8 bytes get zeros above v (a shift by 64 is undefined) */
        for (unsigned i = 0; i < bytes; i++)
                p[i] = i < 8 ? (uint8_t)(v >> (8 * i)) : 0;
}

void acpi_fixture_checksum(uint8_t *t, size_t len)
{
        uint8_t sum = 0;

        t[9] = 0;
        for (size_t i = 0; i < len; i++)
                sum = (uint8_t)(sum + t[i]);
        t[9] = (uint8_t)-sum;
}

bool acpi_fixture_all_zero(const void *p, size_t n)
{
        const uint8_t *b = p;

        for (size_t i = 0; i < n; i++)
                if (b[i])
                        return false;
        return true;
}
