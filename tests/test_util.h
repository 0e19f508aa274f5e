/** @file
 * Helpers shared by the host unit tests (never linked into the firmware).
 */
#ifndef PMUCAL_TEST_UTIL_H
#define PMUCAL_TEST_UTIL_H

#include <stddef.h>

/** Read the fixture tests/data/@p rel (or $PMUCAL_TESTDATA/@p rel) into a new malloc'd buffer;
 *  fails the running cmocka test if it cannot. @p len (optional) receives its size. */
void *test_load(const char *rel, size_t *len);

#endif
