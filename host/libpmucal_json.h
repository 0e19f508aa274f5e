/** @file
 * libpmucal's latency-table reader (host/libpmucal.c) and its JSON getters
 * (host/libpmucal_json.c): a context that carries the file name, the JSON path of the field
 * being read (for messages such as "t.json: levels[1].cycles.p50: missing"), the first error
 * and the table's pool, and one getter per kind of field that checks presence, type and
 * range. Not installed; every symbol is hidden from the shared library.
 */
#ifndef PMUCAL_LIBPMUCAL_JSON_H
#define PMUCAL_LIBPMUCAL_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "host/include/pmucal/table.h"
#include "host/libpmucal_priv.h"

#define PMUCAL_MAX_STRING 65536

struct pmucal__ctx {
        struct pmucal__pool **pool;
        const char           *name; /* file name for messages */
        char                 *err;
        size_t                errlen;
        char                  path[160];
        enum pmucal_err       e;
};

/** Record the first error: @p e and "NAME: PATH: message" (the path for PMUCAL_E_SCHEMA).
 *  Returns false, so that `return pmucal__fail(...)` ends a getter. */
PMUCAL_HIDDEN bool pmucal__fail(struct pmucal__ctx *c, enum pmucal_err e, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/** Append ".key" or "[i]" to the path; pmucal__pop(c, returned length) restores it. */
PMUCAL_HIDDEN size_t pmucal__push_key(struct pmucal__ctx *c, const char *key);
PMUCAL_HIDDEN size_t pmucal__push_idx(struct pmucal__ctx *c, size_t i);
PMUCAL_HIDDEN void   pmucal__pop(struct pmucal__ctx *c, size_t n);

/** "an object", "a string", ... for messages. */
PMUCAL_HIDDEN const char *pmucal__type_name(const json_t *v);

/** Member @p key of @p obj, which must be present unless @p optional. */
PMUCAL_HIDDEN json_t *pmucal__member(struct pmucal__ctx *c, json_t *obj, const char *key,
                                     bool optional);

/** An object member (NULL for null when @p nullable). */
PMUCAL_HIDDEN json_t *pmucal__get_obj(struct pmucal__ctx *c, json_t *obj, const char *key,
                                      bool nullable);

/** A string member copied into the pool; NULL for null when @p nullable. */
PMUCAL_HIDDEN bool pmucal__get_str(struct pmucal__ctx *c, json_t *obj, const char *key,
                                   bool nullable, const char **dst);

/** A non-negative integer member up to @p max; 0 for null when @p nullable, and then a 0 in
 *  the file is an error (unknown is written null). */
PMUCAL_HIDDEN bool pmucal__get_u64(struct pmucal__ctx *c, json_t *obj, const char *key,
                                   bool nullable, uint64_t max, uint64_t *out);

/** A finite number in 0..1e12. */
PMUCAL_HIDDEN bool pmucal__check_num(struct pmucal__ctx *c, json_t *v, double *out);

/** A {min, p10, p50, p90} member, ascending. */
PMUCAL_HIDDEN bool pmucal__get_stat(struct pmucal__ctx *c, json_t *obj, const char *key,
                                    struct pmucal_stat *s);

#endif
