/** @file
 * Reading back what the JSON writer (report/json.h) produced, on the firmware side where there
 * is no JSON library: a syntax walk over objects, arrays, strings with escapes, numbers and
 * literals, no allocation. While walking it copies one top-level string member (@c str_key,
 * e.g. "schema") and counts the elements of one top-level array member (@c arr_key, e.g.
 * "levels"). Enough to catch a writer that emitted something a consumer cannot parse; the
 * host side reads JSON with jansson (host/).
 *
 *     struct json_check c = { .str_key = "schema", .arr_key = "levels" };
 *     if (json_check(buf.p, buf.len, &c) == ST_OK) ... c.str, c.n_elems ...
 */
#ifndef PMUCAL_REPORT_JSON_CHECK_H
#define PMUCAL_REPORT_JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/status.h"

struct json_check {
        const char *str_key;  /* in: top-level string member to copy into str; NULL: none */
        const char *arr_key;  /* in: top-level array member to count; NULL: none */
        const char *has_key;  /* in: top-level member whose presence goes to has; NULL: none */
        bool        has;      /* out: has_key is a member of the top-level object */
        char        str[40];  /* out: its value (escapes kept, truncated); "" if absent */
        size_t      n_elems;  /* out: elements of the arr_key array */
        bool        ok;       /* out: well-formed */
        const char *why;      /* out: the first error when not ok */
        /* walk state */
        const char *p, *end;
        int         depth;
};

/** Check that @p text[0..@p len) is exactly one well-formed JSON value (whitespace around it
 *  allowed). ST_OK, or ST_BAD_DATA with @p c->why; NULL @p text is "empty". */
status_t json_check(const char *text, size_t len, struct json_check *c);

#endif
