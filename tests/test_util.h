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

#endif
