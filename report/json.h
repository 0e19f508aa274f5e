/** @file
 * A small streaming JSON writer: pretty-printed (two-space indent), properly escaped (control
 * characters as \u00XX; bytes that are not valid UTF-8 are written as the Latin-1 code point
 * they would be, so the output is always valid JSON). Errors are sticky: the first one
 * (nesting too deep, out of memory, unbalanced end) is kept and returned by json_finish().
 *
 *     struct rep_buf b = {0}; struct json_w w;
 *     json_init(&w, &b);
 *     json_obj_begin(&w, NULL);
 *     json_str(&w, "schema", "pmucal.inventory/1");
 *     json_obj_end(&w);
 *     st = json_finish(&w);      // b.p holds the document; the caller frees it
 */
#ifndef PMUCAL_JSON_H
#define PMUCAL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/rep.h"

#define JSON_MAX_DEPTH 32

struct json_w {
        struct rep_buf *out;
        unsigned        depth;
        bool            has_items[JSON_MAX_DEPTH];
        bool            is_array[JSON_MAX_DEPTH];
        status_t        st;
};

/** Start writing a document into @p out (appended to what it holds). */
void json_init(struct json_w *w, struct rep_buf *out);
/** Open an object. @p key is the member name inside an object, NULL inside an array or at the
 *  top level. The same rule holds for every value function below. */
void json_obj_begin(struct json_w *w, const char *key);
void json_obj_end(struct json_w *w);
void json_arr_begin(struct json_w *w, const char *key);
void json_arr_end(struct json_w *w);
/** A string value; NULL writes null. */
void json_str(struct json_w *w, const char *key, const char *val);
/** A string value of @p n bytes (may contain NUL, written as \u0000). */
void json_strn(struct json_w *w, const char *key, const char *val, size_t n);
void json_u64(struct json_w *w, const char *key, uint64_t val);
void json_i64(struct json_w *w, const char *key, int64_t val);
/** A hexadecimal string value "0x1a2b" (JSON numbers cannot hold all 64-bit values exactly). */
void json_hex(struct json_w *w, const char *key, uint64_t val);
/** A number with @p decimals decimal places from a fixed-point integer (1234, 3 -> 1.234). */
void json_fixed(struct json_w *w, const char *key, int64_t val, unsigned decimals);
void json_bool(struct json_w *w, const char *key, bool val);
void json_null(struct json_w *w, const char *key);
/** A string that may be unknown: NULL or "" writes null (null means unknown in every schema). */
void json_str_or_null(struct json_w *w, const char *key, const char *val);
/** A count or size whose 0 means unknown: 0 writes null. */
void json_u64_or_null(struct json_w *w, const char *key, uint64_t val);
/** Finish: ST_OK if the document is complete and every write succeeded, else the first error
 *  (ST_BAD_ARG for unbalanced nesting, ST_NO_MEM). Appends a final newline. */
status_t json_finish(struct json_w *w);

/** Set member @p key of the top-level object in @p doc (a document this writer produced) to
 *  the JSON value @p val (also this writer's output, @p len bytes), as the last member: a
 *  member @p key a previous call added last is replaced. ST_BAD_ARG when @p doc does not end
 *  in the top-level object's closing brace or has @p key elsewhere; ST_NO_MEM. */
status_t json_doc_set_member(struct rep_buf *doc, const char *key, const char *val, size_t len);

#endif
