/** @file
 * Host test helpers for the ACPI parser tests (test_acpi.c, test_acpi_hmat.c): loading the
 * fixtures in tests/data/acpi/, writing little-endian fields and fixing the checksum of a
 * table a test corrupted. Uses libc.
 */
#ifndef PMUCAL_TESTS_ACPI_FIXTURE_H
#define PMUCAL_TESTS_ACPI_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** tests/data/acpi/@p name in a new (malloc'd) buffer, its size in @p *len (test_load). */
uint8_t *acpi_fixture_load(const char *name, size_t *len);
/** Store @p v at @p p as @p bytes little-endian bytes. */
void acpi_fixture_put_le(uint8_t *p, uint64_t v, unsigned bytes);
/** Recompute the checksum byte (offset 9) of the @p len-byte table @p t. [ACPI-6.5] 5.2.6 */
void acpi_fixture_checksum(uint8_t *t, size_t len);
/** True when the @p n bytes at @p p are all zero. */
bool acpi_fixture_all_zero(const void *p, size_t n);

#endif
