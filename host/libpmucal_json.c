/** @file libpmucal: the JSON-reading kit every loader uses (see host/libpmucal_priv.h): the
 *  context with the JSON path and the first error, the parse step, and one getter per kind of
 *  field that checks presence, type and range and reports a bad one with its path. Host only:
 *  libc and jansson. */
#include "host/libpmucal_priv.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool pmucal__fail(struct pmucal__ctx *c, enum pmucal_err e, const char *fmt, ...)
{
        va_list ap;

        if (c->e != PMUCAL_OK)
                return false;
        c->e = e;
        va_start(ap, fmt);
        pmucal__format_err(c->err, c->errlen, c->name, c->path, fmt, ap);
        va_end(ap);
        return false;
}

/* Path handling: push appends ".key" or "[i]", pop restores the old length. */
size_t pmucal__push_key(struct pmucal__ctx *c, const char *key)
{
        size_t n = strlen(c->path);
        snprintf(c->path + n, sizeof(c->path) - n, "%s%s", n ? "." : "", key);
        return n;
}

size_t pmucal__push_idx(struct pmucal__ctx *c, size_t i)
{
        size_t n = strlen(c->path);
        snprintf(c->path + n, sizeof(c->path) - n, "[%zu]", i);
        return n;
}

void pmucal__pop(struct pmucal__ctx *c, size_t n)
{
        c->path[n] = '\0';
}

void pmucal__at(struct pmucal__ctx *c, const char *fmt, ...)
{
        size_t  k = c->root < sizeof(c->path) ? c->root : 0;
        va_list ap;

        if (k)
                k += (size_t)snprintf(c->path + k, sizeof(c->path) - k, ".");
        va_start(ap, fmt);
        vsnprintf(c->path + k, sizeof(c->path) - k, fmt, ap);
        va_end(ap);
}

const char *pmucal__type_name(const json_t *v)
{
        switch (json_typeof(v)) {
        case JSON_OBJECT: return "an object";
        case JSON_ARRAY: return "an array";
        case JSON_STRING: return "a string";
        case JSON_INTEGER: return "an integer";
        case JSON_REAL: return "a number";
        case JSON_TRUE:
        case JSON_FALSE: return "a boolean";
        case JSON_NULL: return "null";
        }
        return "?";
}

/* A new @p d document filled from @p root at *(void **)out, or nothing after failing. */
static void new_doc(struct pmucal__ctx *c, const struct pmucal__doc *d, json_t *root, void *out)
{
        char *doc = calloc(1, d->size);

        if (!doc) {
                pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
                return;
        }
        if (d->pool != PMUCAL__NONE)
                c->pool = (struct pmucal__pool **)(doc + d->pool);
        if (d->n_unknown != PMUCAL__NONE) {
                c->n_unknown     = (size_t *)(doc + d->n_unknown);
                c->unknown_first = doc + d->unknown_first;
        }
        if (!d->fill(c, root, doc) || c->e != PMUCAL_OK) {
                d->free(doc);
                return;
        }
        memcpy(out, &doc, sizeof(doc)); /* the caller's typed pointer */
}

enum pmucal_err pmucal__load_doc(const struct pmucal__doc *d, const char *buf, size_t len,
                                 const char *name, void *out, char *err, size_t errlen)
{
        struct pmucal__ctx c = { .name = name ? name : "<buffer>", .err = err, .errlen = errlen };
        json_error_t       je;
        json_t            *root;
        void              *none = NULL;

        if (out)
                memcpy(out, &none, sizeof(none));
        if (err && errlen)
                err[0] = '\0';
        if (!out || (!buf && len))
                return PMUCAL_E_ARG;
        root = json_loadb(buf ? buf : "", len, JSON_REJECT_DUPLICATES, &je);
        if (!root) {
                c.e = PMUCAL_E_SYNTAX;
                if (err && errlen)
                        snprintf(err, errlen, "%s:%d:%d: %s", c.name, je.line, je.column, je.text);
        } else {
                new_doc(&c, d, root, out);
                json_decref(root);
        }
        pmucal__escape_msg(err, errlen);
        return c.e;
}

/* Member @p key of @p obj, which must be present unless @p optional. */
json_t *pmucal__member(struct pmucal__ctx *c, json_t *obj, const char *key, bool optional)
{
        json_t *v = json_object_get(obj, key);
        if (!v && !optional) {
                size_t n = pmucal__push_key(c, key);
                pmucal__fail(c, PMUCAL_E_SCHEMA, "missing");
                pmucal__pop(c, n);
        }
        return v;
}

json_t *pmucal__get(struct pmucal__ctx *c, json_t *obj, const char *key, json_type type,
                    bool nullable)
{
        static const char *const want[] = {
                [JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array", [JSON_STRING] = "a string",
                [JSON_INTEGER] = "an integer", [JSON_REAL] = "a number", [JSON_TRUE] = "a boolean",
                [JSON_FALSE] = "a boolean", [JSON_NULL] = "null",
        };
        json_t *v = pmucal__member(c, obj, key, false);
        size_t  n;

        if (!v || (nullable && json_is_null(v)) || json_typeof(v) == type ||
            (type == JSON_REAL && json_is_number(v)) || (type == JSON_TRUE && json_is_boolean(v)))
                return v;
        n = pmucal__push_key(c, key);
        pmucal__fail(c, PMUCAL_E_SCHEMA, "expected %s%s, got %s", want[type],
                     nullable ? " or null" : "", pmucal__type_name(v));
        pmucal__pop(c, n);
        return NULL;
}

bool pmucal__is_obj(struct pmucal__ctx *c, const json_t *v)
{
        if (json_is_object(v))
                return true;
        return pmucal__fail(c, PMUCAL_E_SCHEMA, "expected an object, got %s", pmucal__type_name(v));
}

json_t *pmucal__get_obj(struct pmucal__ctx *c, json_t *obj, const char *key, bool nullable)
{
        json_t *v = pmucal__member(c, obj, key, false);
        size_t  n;

        if (!v || json_is_object(v) || (nullable && json_is_null(v)))
                return v && json_is_object(v) ? v : NULL;
        n = pmucal__push_key(c, key);
        pmucal__fail(c, PMUCAL_E_SCHEMA, "expected an object%s, got %s", nullable ? " or null" : "",
             pmucal__type_name(v));
        pmucal__pop(c, n);
        return NULL;
}

/* A string member copied into the pool; NULL for null when @p nullable (absent counts as
 * null). No string is cut: one over PMUCAL_MAX_STRING bytes or with a NUL in it is an error. */
bool pmucal__get_str(struct pmucal__ctx *c, json_t *obj, const char *key, bool nullable, const char **dst)
{
        json_t *v = pmucal__member(c, obj, key, nullable);
        size_t  n;
        bool    ok = true;

        *dst = NULL;
        if (!v)
                return nullable;
        n = pmucal__push_key(c, key);
        if (json_is_string(v)) {
                if (json_string_length(v) > PMUCAL_MAX_STRING || strlen(json_string_value(v)) != json_string_length(v))
                        ok = pmucal__fail(c, PMUCAL_E_SCHEMA, "string longer than %u bytes or with a NUL in it",
                                  PMUCAL_MAX_STRING);
                else if (!(*dst = pmucal__pool_strdup(c->pool, json_string_value(v))))
                        ok = pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
        } else if (!(nullable && json_is_null(v))) {
                ok = pmucal__fail(c, PMUCAL_E_SCHEMA, "expected a string%s, got %s",
                          nullable ? " or null" : "", pmucal__type_name(v));
        }
        pmucal__pop(c, n);
        return ok;
}

bool pmucal__get_str_buf(struct pmucal__ctx *c, json_t *obj, const char *key, char *dst, size_t cap)
{
        json_t *v = pmucal__get(c, obj, key, JSON_STRING, false);
        size_t  n;

        if (!v)
                return false;
        if (json_string_length(v) < cap && strlen(json_string_value(v)) == json_string_length(v)) {
                memcpy(dst, json_string_value(v), json_string_length(v) + 1);
                return true;
        }
        n = pmucal__push_key(c, key);
        pmucal__fail(c, PMUCAL_E_SCHEMA, "string longer than %zu bytes or with a NUL in it", cap - 1);
        pmucal__pop(c, n);
        return false;
}

bool pmucal__get_bool(struct pmucal__ctx *c, json_t *obj, const char *key, bool *out)
{
        json_t *v = pmucal__get(c, obj, key, JSON_TRUE, false);

        if (v)
                *out = json_is_true(v);
        return v != NULL;
}

/* A non-negative integer member; 0 for null when @p nullable (absent counts as null), and then
 * 0 itself is refused: unknown is written null, never 0 (docs/latency-table.md). */
bool pmucal__get_u64(struct pmucal__ctx *c, json_t *obj, const char *key, bool nullable, uint64_t max,
                    uint64_t *out)
{
        json_t *v = pmucal__member(c, obj, key, nullable);
        size_t  n;
        bool    ok = true;

        *out = 0;
        if (!v)
                return nullable;
        n = pmucal__push_key(c, key);
        if (json_is_integer(v)) {
                json_int_t i = json_integer_value(v);
                if (i < 0 || (uint64_t)i > max)
                        ok = pmucal__fail(c, PMUCAL_E_SCHEMA, "%" JSON_INTEGER_FORMAT " out of range 0..%" PRIu64,
                                  i, max);
                else if (i == 0 && nullable)
                        ok = pmucal__fail(c, PMUCAL_E_SCHEMA, "0: an unknown value is written null, not 0");
                else
                        *out = (uint64_t)i;
        } else if (!(nullable && json_is_null(v))) {
                ok = pmucal__fail(c, PMUCAL_E_SCHEMA, "expected an integer%s, got %s",
                          nullable ? " or null" : "", pmucal__type_name(v));
        }
        pmucal__pop(c, n);
        return ok;
}

bool pmucal__check_num(struct pmucal__ctx *c, json_t *v, double *out)
{
        double d;
        if (!json_is_number(v))
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "expected a number, got %s", pmucal__type_name(v));
        d = json_number_value(v);
        if (!isfinite(d) || d < 0 || d > 1e12)
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "%g out of range 0..1e12", d);
        *out = d;
        return true;
}

bool pmucal__get_num(struct pmucal__ctx *c, json_t *obj, const char *key, bool nullable,
                     double *out)
{
        json_t *v = pmucal__member(c, obj, key, nullable);
        size_t  n;
        bool    ok;

        *out = NAN;
        if (!v || (nullable && json_is_null(v)))
                return v || nullable;
        n  = pmucal__push_key(c, key);
        ok = pmucal__check_num(c, v, out);
        pmucal__pop(c, n);
        return ok;
}

bool pmucal__get_stat_opt(struct pmucal__ctx *c, json_t *obj, const char *key,
                          struct pmucal_stat *s, bool *has)
{
        json_t *v = pmucal__member(c, obj, key, false);

        *has = false;
        if (!v)
                return false;
        if (json_is_null(v))
                return true;
        return (*has = pmucal__get_stat(c, obj, key, s));
}

/* An enum value a later minor added: counted, the first one named with its path. */
static void unknown_value(struct pmucal__ctx *c, const char *key, const char *value)
{
        size_t n;

        if ((*c->n_unknown)++)
                return;
        n = pmucal__push_key(c, key);
        if (snprintf(c->unknown_first, PMUCAL_UNKNOWN_FIRST, "%s: \"%s\"", c->path, value) >=
            PMUCAL_UNKNOWN_FIRST)
                memcpy(c->unknown_first + PMUCAL_UNKNOWN_FIRST - 4, "...", 4); /* cut, said so */
        pmucal__pop(c, n);
}

int pmucal__get_enum(struct pmucal__ctx *c, json_t *obj, const char *key,
                     const char *const *known, size_t n_known, const char *what)
{
        json_t     *v = pmucal__get(c, obj, key, JSON_STRING, false);
        const char *s;
        size_t      n;

        if (!v)
                return -1;
        s = json_string_value(v);
        for (size_t q = 0; q < n_known; q++)
                if (strlen(known[q]) == json_string_length(v) && !strcmp(s, known[q]))
                        return (int)q;
        if (c->n_unknown) {
                unknown_value(c, key, s);
                return (int)n_known;
        }
        n = pmucal__push_key(c, key);
        pmucal__fail(c, PMUCAL_E_SCHEMA, "\"%s\" is not %s", s, what);
        pmucal__pop(c, n);
        return -1;
}

bool pmucal__get_name(struct pmucal__ctx *c, json_t *obj, const char *key,
                      const char *const *known, size_t n_known, char *dst, size_t cap)
{
        int i = pmucal__get_enum(c, obj, key, known, n_known, "");

        if (i >= 0)
                snprintf(dst, cap, "%s", (size_t)i < n_known ? known[i] : PMUCAL_UNKNOWN);
        return i >= 0;
}

bool pmucal__get_stat(struct pmucal__ctx *c, json_t *obj, const char *key, struct pmucal_stat *s)
{
        static const char *const names[] = { "min", "p10", "p50", "p90" };
        double                   v[4];
        json_t                  *o = pmucal__get_obj(c, obj, key, false);
        size_t                   n;

        if (!o)
                return false;
        n = pmucal__push_key(c, key);
        for (unsigned i = 0; i < 4; i++) {
                json_t *m = pmucal__member(c, o, names[i], false);
                size_t  k;
                if (!m)
                        return false;
                k = pmucal__push_key(c, names[i]);
                if (!pmucal__check_num(c, m, &v[i]))
                        return false;
                if (i && v[i] < v[i - 1])
                        return pmucal__fail(c, PMUCAL_E_SCHEMA, "%g is below %s (%g)", v[i], names[i - 1], v[i - 1]);
                pmucal__pop(c, k);
        }
        pmucal__pop(c, n);
        *s = (struct pmucal_stat){ v[0], v[1], v[2], v[3] };
        return true;
}

