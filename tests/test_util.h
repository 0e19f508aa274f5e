/** @file
 * Helpers shared by the host unit tests (never linked into the firmware).
 */
#ifndef PMUCAL_TEST_UTIL_H
#define PMUCAL_TEST_UTIL_H

#include <stddef.h>

/** Read the fixture tests/data/@p rel (or $PMUCAL_TESTDATA/@p rel) into a new malloc'd buffer;
 *  fails the running cmocka test if it cannot. @p len (optional) receives its size. */
void *test_load(const char *rel, size_t *len);

/** Fail the running cmocka test, printing @p text (a console) first, unless it contains
 *  @p needle. */
void want(const char *text, const char *needle);
/** The same, unless it does not contain @p needle. */
void want_not(const char *text, const char *needle);
/** The last non-empty line of @p s, in a static buffer (at most 511 characters). */
const char *last_line(const char *s);
/** fake_plat_reset, then the machine of QEMU's three-node HMAT case on the test platform: three
 *  enabled CPUs (APIC IDs 0-2, 0 the BSP) and its recorded MADT and SRAT (tests/data/acpi/).
 *  Returns the SRAT as published, which a test may corrupt; it is the platform's until the
 *  next call. */
unsigned char *test_platform_qemu_3node(void);
/** Lines of console @p con that begin with @p prefix and say a NUMA cell or loaded-latency
 *  point was left out because the host disturbed every one of its windows ("...: left out,
 *  every window disturbed", the chase job's own guard): the program's chases are real on the
 *  test platform, whose processors are threads of this host. "INFO: numa: " counts cells and
 *  points, "INFO: numa: CPU " cells alone. */
unsigned test_numa_left_out(const char *con, const char *prefix);

#endif
