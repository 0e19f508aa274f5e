/** @file
 * The decoded meaning of an MADT, SRAT, SLIT or HMAT as plain text lines, one fact a line, in
 * the form tools/acpi-iasl-expect.py writes from `iasl -d` output: the real-table corpus test
 * (test_acpi_corpus.c) and build/host/acpi_decode (the whole linuxhw/ACPI corpus) hold
 * pmucal's parsers against ACPICA's disassembler line by line. Uses libc.
 */
#ifndef PMUCAL_TESTS_ACPI_CANON_H
#define PMUCAL_TESTS_ACPI_CANON_H

#include <stddef.h>
#include <stdint.h>

#include "boot/acpi.h"

/** Decode the table @p t (@p len bytes, by its signature) and append its lines to @p out
 *  (@p cap bytes, NUL-terminated). Returns the parser's status; on an error the single line
 *  "<SIG> rejected: <diag>" is written. */
status_t acpi_canon(const uint8_t *t, size_t len, char *out, size_t cap);

#endif
