/** @file libpmucal: latency-table loader and classifier (see include/pmucal/table.h). Host only:
 * libc and jansson. Every field is checked for presence, type and range before use; a bad
 * one is reported with its JSON path ("levels[2].cycles.p90"). */
#include "host/include/pmucal/table.h"
#include "host/libpmucal_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEVELS 64

struct ctx {
        const char *name;  /* file name for messages */
        char       *err;
        size_t      errlen;
        char        path[160];
        enum pmucal_err e;
};

__attribute__((format(printf, 3, 4)))
static bool fail(struct ctx *c, enum pmucal_err e, const char *fmt, ...)
{
        va_list ap;
        int     k;

        if (c->e != PMUCAL_OK)
                return false;
        c->e = e;
        if (!c->err || !c->errlen)
                return false;
        if (e == PMUCAL_E_SCHEMA)
                k = snprintf(c->err, c->errlen, "%s: %s: ", c->name, c->path);
        else
                k = snprintf(c->err, c->errlen, "%s: ", c->name);
        if (k >= 0 && (size_t)k < c->errlen) {
                va_start(ap, fmt);
                vsnprintf(c->err + k, c->errlen - (size_t)k, fmt, ap);
                va_end(ap);
        }
        return false;
}

/* Path handling: push appends ".key" or "[i]", pop restores the old length. */
static size_t push_key(struct ctx *c, const char *key)
{
        size_t n = strlen(c->path);
        snprintf(c->path + n, sizeof(c->path) - n, "%s%s", n ? "." : "", key);
        return n;
}

static size_t push_idx(struct ctx *c, size_t i)
{
        size_t n = strlen(c->path);
        snprintf(c->path + n, sizeof(c->path) - n, "[%zu]", i);
        return n;
}

static void pop(struct ctx *c, size_t n)
{
        c->path[n] = '\0';
}

static const char *type_name(const json_t *v)
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

/* Member @p key of @p obj, which must be present unless @p optional. */
static json_t *member(struct ctx *c, json_t *obj, const char *key, bool optional)
{
        json_t *v = json_object_get(obj, key);
        if (!v && !optional) {
                size_t n = push_key(c, key);
                fail(c, PMUCAL_E_SCHEMA, "missing");
                pop(c, n);
        }
        return v;
}

static json_t *get_obj(struct ctx *c, json_t *obj, const char *key, bool nullable)
{
        json_t *v = member(c, obj, key, false);
        size_t  n;

        if (!v || json_is_object(v) || (nullable && json_is_null(v)))
                return v && json_is_object(v) ? v : NULL;
        n = push_key(c, key);
        fail(c, PMUCAL_E_SCHEMA, "expected an object%s, got %s", nullable ? " or null" : "",
             type_name(v));
        pop(c, n);
        return NULL;
}

/* A string member copied into dst; "" for null when @p nullable. */
static bool get_str(struct ctx *c, json_t *obj, const char *key, bool nullable, char *dst,
                    size_t cap)
{
        json_t *v = member(c, obj, key, nullable);
        size_t  n;
        bool    ok = true;

        dst[0] = '\0';
        if (!v)
                return nullable;
        n = push_key(c, key);
        if (json_is_string(v)) {
                if (json_string_length(v) >= cap || strlen(json_string_value(v)) != json_string_length(v))
                        ok = fail(c, PMUCAL_E_SCHEMA, "string too long or contains NUL (max %zu bytes)",
                                  cap - 1);
                else
                        memcpy(dst, json_string_value(v), json_string_length(v) + 1);
        } else if (!(nullable && json_is_null(v))) {
                ok = fail(c, PMUCAL_E_SCHEMA, "expected a string%s, got %s",
                          nullable ? " or null" : "", type_name(v));
        }
        pop(c, n);
        return ok;
}

/* A non-negative integer member; 0 for null when @p nullable (absent counts as null), and then
 * 0 itself is refused: unknown is written null, never 0 (docs/latency-table.md). */
static bool get_u64(struct ctx *c, json_t *obj, const char *key, bool nullable, uint64_t max,
                    uint64_t *out)
{
        json_t *v = member(c, obj, key, nullable);
        size_t  n;
        bool    ok = true;

        *out = 0;
        if (!v)
                return nullable;
        n = push_key(c, key);
        if (json_is_integer(v)) {
                json_int_t i = json_integer_value(v);
                if (i < 0 || (uint64_t)i > max)
                        ok = fail(c, PMUCAL_E_SCHEMA, "%" JSON_INTEGER_FORMAT " out of range 0..%" PRIu64,
                                  i, max);
                else if (i == 0 && nullable)
                        ok = fail(c, PMUCAL_E_SCHEMA, "0: an unknown value is written null, not 0");
                else
                        *out = (uint64_t)i;
        } else if (!(nullable && json_is_null(v))) {
                ok = fail(c, PMUCAL_E_SCHEMA, "expected an integer%s, got %s",
                          nullable ? " or null" : "", type_name(v));
        }
        pop(c, n);
        return ok;
}

static bool check_num(struct ctx *c, json_t *v, double *out)
{
        double d;
        if (!json_is_number(v))
                return fail(c, PMUCAL_E_SCHEMA, "expected a number, got %s", type_name(v));
        d = json_number_value(v);
        if (!isfinite(d) || d < 0 || d > 1e12)
                return fail(c, PMUCAL_E_SCHEMA, "%g out of range 0..1e12", d);
        *out = d;
        return true;
}

static bool get_stat(struct ctx *c, json_t *obj, const char *key, struct pmucal_stat *s)
{
        static const char *const names[] = { "min", "p10", "p50", "p90" };
        double                   v[4];
        json_t                  *o = get_obj(c, obj, key, false);
        size_t                   n;

        if (!o)
                return false;
        n = push_key(c, key);
        for (unsigned i = 0; i < 4; i++) {
                json_t *m = member(c, o, names[i], false);
                size_t  k;
                if (!m)
                        return false;
                k = push_key(c, names[i]);
                if (!check_num(c, m, &v[i]))
                        return false;
                if (i && v[i] < v[i - 1])
                        return fail(c, PMUCAL_E_SCHEMA, "%g is below %s (%g)", v[i], names[i - 1], v[i - 1]);
                pop(c, k);
        }
        pop(c, n);
        *s = (struct pmucal_stat){ v[0], v[1], v[2], v[3] };
        return true;
}

static bool check_schema(struct ctx *c, json_t *root, struct pmucal_table *t)
{
        json_t         *v = json_object_get(root, "schema");
        char            msg[256];
        unsigned        minor;
        enum pmucal_err e;

        if (!v || !json_is_string(v))
                return fail(c, PMUCAL_E_KIND, "not a pmucal latency table (no \"schema\" string)");
        e = pmucal__schema_version(json_string_value(v), PMUCAL_TABLE_SCHEMA_PREFIX,
                                   PMUCAL_TABLE_MAJOR, &minor, msg, sizeof(msg));
        if (e != PMUCAL_OK)
                return fail(c, e, "%s%s", e == PMUCAL_E_KIND ? "not a pmucal latency table: " : "",
                            msg);
        snprintf(t->schema, sizeof(t->schema), "%s", json_string_value(v));
        t->major = PMUCAL_TABLE_MAJOR;
        return true;
}

static bool load_machine(struct ctx *c, json_t *root, struct pmucal_table *t)
{
        json_t  *m = get_obj(c, root, "machine", false);
        uint64_t f = 0, mo = 0, st = 0, nodes = 0;
        char     mc[24];

        if (!m)
                return false;
        size_t n = push_key(c, "machine");
        bool ok = get_str(c, m, "vendor", true, t->vendor, sizeof(t->vendor)) &&
                  get_u64(c, m, "family", false, 0xffff, &f) &&
                  get_u64(c, m, "model", false, 0xffff, &mo) &&
                  get_u64(c, m, "stepping", false, 0xff, &st) &&
                  get_str(c, m, "brand", true, t->brand, sizeof(t->brand)) &&
                  get_str(c, m, "microcode", true, mc, sizeof(mc)) &&
                  get_u64(c, m, "core_hz", true, UINT64_MAX, &t->core_hz) &&
                  get_u64(c, m, "tsc_hz", true, UINT64_MAX, &t->tsc_hz) &&
                  get_str(c, m, "smbios_manufacturer", true, t->smbios_manufacturer,
                          sizeof(t->smbios_manufacturer)) &&
                  get_str(c, m, "smbios_product", true, t->smbios_product, sizeof(t->smbios_product)) &&
                  get_u64(c, m, "nodes", true, 65536, &nodes);
        if (ok && mc[0]) {
                char *end;
                errno            = 0;
                t->microcode     = strtoull(mc, &end, 16);
                t->has_microcode = true;
                if (errno || *end || strncmp(mc, "0x", 2)) {
                        size_t k = push_key(c, "microcode");
                        ok = fail(c, PMUCAL_E_SCHEMA, "\"%s\" is not a hex number \"0x...\"", mc);
                        pop(c, k);
                }
        }
        if (ok) {
                t->family   = (unsigned)f;
                t->model    = (unsigned)mo;
                t->stepping = (unsigned)st;
                t->nodes    = (unsigned)nodes;
        }
        pop(c, n);
        return ok;
}

static bool load_method(struct ctx *c, json_t *root, struct pmucal_table *t)
{
        json_t  *m = get_obj(c, root, "method", false);
        uint64_t w = 0;

        if (!m)
                return false;
        size_t n  = push_key(c, "method");
        bool   ok = get_str(c, m, "kernel", true, t->kernel, sizeof(t->kernel)) &&
                  get_str(c, m, "layout", true, t->layout, sizeof(t->layout)) &&
                  get_u64(c, m, "page_bytes", true, 1ull << 40, &t->page_bytes) &&
                  get_u64(c, m, "windows", false, 1u << 20, &w) &&
                  get_str(c, m, "clock", false, t->clock, sizeof(t->clock)) &&
                  get_str(c, m, "prefetchers", true, t->prefetchers, sizeof(t->prefetchers)) &&
                  get_str(c, m, "pmucal_version", true, t->pmucal_version, sizeof(t->pmucal_version));
        t->windows = (unsigned)w;
        pop(c, n);
        return ok;
}

static bool load_level(struct ctx *c, json_t *o, struct pmucal_level *l)
{
        uint64_t lvl = 0;
        json_t  *ns;

        if (!json_is_object(o))
                return fail(c, PMUCAL_E_SCHEMA, "expected an object, got %s", type_name(o));
        if (!get_str(c, o, "name", false, l->name, sizeof(l->name)) ||
            !get_u64(c, o, "capacity_bytes", true, UINT64_MAX, &l->capacity_bytes) ||
            !get_u64(c, o, "cpuid_capacity_bytes", true, UINT64_MAX, &l->cpuid_capacity_bytes) ||
            !get_u64(c, o, "cpuid_level", true, 15, &lvl) ||
            !get_str(c, o, "agreement", false, l->agreement, sizeof(l->agreement)) ||
            !get_stat(c, o, "cycles", &l->cycles))
                return false;
        if (!l->name[0]) {
                push_key(c, "name");
                return fail(c, PMUCAL_E_SCHEMA, "empty");
        }
        l->cpuid_level = (unsigned)lvl;
        ns             = member(c, o, "ns", true);
        if (ns && !json_is_null(ns)) {
                if (!get_stat(c, o, "ns", &l->ns))
                        return false;
                l->has_ns = true;
        }
        return true;
}

/* Level @p i against the levels before it: a name of its own, a median and a capacity above
 * the previous level's (capacities compared where both are known). */
static bool check_order(struct ctx *c, const struct pmucal_table *t, size_t i)
{
        const struct pmucal_level *l = &t->levels[i];

        for (size_t j = 0; j < i; j++)
                if (!strcmp(t->levels[j].name, l->name)) {
                        push_key(c, "name");
                        return fail(c, PMUCAL_E_SCHEMA, "\"%s\" is also the name of levels[%zu]",
                                    l->name, j);
                }
        if (i && l->cycles.p50 <= t->levels[i - 1].cycles.p50) {
                push_key(c, "cycles.p50");
                return fail(c, PMUCAL_E_SCHEMA, "%g is not above the previous level's %g",
                            l->cycles.p50, t->levels[i - 1].cycles.p50);
        }
        for (size_t j = i; l->capacity_bytes && j-- > 0;)
                if (t->levels[j].capacity_bytes) {
                        if (l->capacity_bytes > t->levels[j].capacity_bytes)
                                break;
                        push_key(c, "capacity_bytes");
                        return fail(c, PMUCAL_E_SCHEMA, "%" PRIu64 " is not above levels[%zu]'s "
                                    "%" PRIu64, l->capacity_bytes, j, t->levels[j].capacity_bytes);
                }
        return true;
}

static bool load_bounds(struct ctx *c, json_t *arr, struct pmucal_table *t, bool ns)
{
        size_t want = t->n_levels - 1;

        if (!json_is_array(arr))
                return fail(c, PMUCAL_E_SCHEMA, "expected an array, got %s", type_name(arr));
        if (json_array_size(arr) != want)
                return fail(c, PMUCAL_E_SCHEMA, "%zu bounds for %zu levels (want %zu)",
                            json_array_size(arr), t->n_levels, want);
        for (size_t i = 0; i < want; i++) {
                struct pmucal_level *a = &t->levels[i], *b = &t->levels[i + 1];
                double               lo = ns ? a->ns.p50 : a->cycles.p50;
                double               hi = ns ? b->ns.p50 : b->cycles.p50;
                double               v;
                size_t               k = push_idx(c, i);

                if (!check_num(c, json_array_get(arr, i), &v))
                        return false;
                if (v < lo || v >= hi)
                        return fail(c, PMUCAL_E_SCHEMA,
                                    "%g is not between the medians of %s (%g) and %s (%g)", v,
                                    a->name, lo, b->name, hi);
                pop(c, k);
                a->has_upper = true;
                if (ns)
                        a->upper_ns = v;
                else
                        a->upper_cycles = v;
        }
        return true;
}

static bool load_levels(struct ctx *c, json_t *root, struct pmucal_table *t)
{
        json_t *arr = member(c, root, "levels", false), *bo, *b;
        size_t  n   = push_key(c, "levels");
        bool    all_ns = true;

        if (!arr)
                return false;
        if (!json_is_array(arr))
                return fail(c, PMUCAL_E_SCHEMA, "expected an array, got %s", type_name(arr));
        if (json_array_size(arr) == 0 || json_array_size(arr) > MAX_LEVELS)
                return fail(c, PMUCAL_E_SCHEMA, "%zu levels (want 1..%d)", json_array_size(arr),
                            MAX_LEVELS);
        t->n_levels = json_array_size(arr);
        t->levels   = calloc(t->n_levels, sizeof(*t->levels));
        if (!t->levels)
                return fail(c, PMUCAL_E_NOMEM, "out of memory");
        for (size_t i = 0; i < t->n_levels; i++) {
                size_t k = push_idx(c, i);
                if (!load_level(c, json_array_get(arr, i), &t->levels[i]))
                        return false;
                if (!check_order(c, t, i))
                        return false;
                all_ns = all_ns && t->levels[i].has_ns;
                pop(c, k);
        }
        pop(c, n);

        if (!(bo = get_obj(c, root, "bucket_upper_bounds", false)))
                return false;
        n = push_key(c, "bucket_upper_bounds");
        if (!(b = member(c, bo, "cycles", false)))
                return false;
        size_t k = push_key(c, "cycles");
        if (!load_bounds(c, b, t, false))
                return false;
        pop(c, k);
        b = member(c, bo, "ns", true);
        if (b && !json_is_null(b)) {
                k = push_key(c, "ns");
                if (!all_ns)
                        return fail(c, PMUCAL_E_SCHEMA, "ns bounds but not every level has ns");
                if (!load_bounds(c, b, t, true))
                        return false;
                pop(c, k);
        } else {
                for (size_t i = 0; i < t->n_levels; i++)
                        t->levels[i].has_ns = false;
        }
        pop(c, n);
        return true;
}

static bool load_flags(struct ctx *c, json_t *root, struct pmucal_table *t)
{
        json_t *arr = member(c, root, "flags", false);
        size_t  n   = push_key(c, "flags");

        if (!arr)
                return false;
        if (!json_is_array(arr))
                return fail(c, PMUCAL_E_SCHEMA, "expected an array, got %s", type_name(arr));
        for (size_t i = 0; i < json_array_size(arr); i++) {
                json_t *v = json_array_get(arr, i);
                size_t  k = push_idx(c, i);
                if (!json_is_string(v))
                        return fail(c, PMUCAL_E_SCHEMA, "expected a string, got %s", type_name(v));
                if (t->n_flags < 16)
                        snprintf(t->flags[t->n_flags++], sizeof(t->flags[0]), "%s", json_string_value(v));
                pop(c, k);
        }
        pop(c, n);
        return true;
}

static enum pmucal_err load_root(struct ctx *c, json_t *root, struct pmucal_table **out)
{
        struct pmucal_table *t;

        if (!json_is_object(root))
                return fail(c, PMUCAL_E_KIND, "not a pmucal latency table (top level is %s)",
                            type_name(root)), c->e;
        if (!(t = calloc(1, sizeof(*t))))
                return fail(c, PMUCAL_E_NOMEM, "out of memory"), c->e;
        if (check_schema(c, root, t) && load_machine(c, root, t) && load_method(c, root, t) &&
            load_levels(c, root, t))
                load_flags(c, root, t);
        t->has_tlb = json_object_get(root, "tlb") != NULL;
        if (c->e != PMUCAL_OK)
                pmucal_table_free(t);
        else
                *out = t;
        return c->e;
}

enum pmucal_err pmucal_table_load_buf(const char *buf, size_t len, const char *name,
                                      struct pmucal_table **out, char *err, size_t errlen)
{
        struct ctx   c = { .name = name ? name : "<buffer>", .err = err, .errlen = errlen };
        json_error_t je;
        json_t      *root;

        if (err && errlen)
                err[0] = '\0';
        if (!out || (!buf && len))
                return PMUCAL_E_ARG;
        *out = NULL;
        root = json_loadb(buf ? buf : "", len, JSON_REJECT_DUPLICATES, &je);
        if (!root) {
                c.e = PMUCAL_E_SYNTAX;
                if (err && errlen)
                        snprintf(err, errlen, "%s:%d:%d: %s", c.name, je.line, je.column, je.text);
        } else {
                load_root(&c, root, out);
                json_decref(root);
        }
        pmucal__escape_msg(err, errlen);
        return c.e;
}

enum pmucal_err pmucal_table_load(const char *path, struct pmucal_table **out, char *err,
                                  size_t errlen)
{
        char            tmp[1], *buf;
        size_t          n;
        enum pmucal_err e;

        if (err && errlen)
                err[0] = '\0';
        if (!path || !out)
                return PMUCAL_E_ARG;
        *out = NULL;
        if ((e = pmucal__read_file(path, &buf, &n, err && errlen ? err : tmp,
                                   err && errlen ? errlen : sizeof(tmp))) != PMUCAL_OK) {
                pmucal__escape_msg(err, errlen);
                return e;
        }
        e = pmucal_table_load_buf(buf, n, path, out, err, errlen);
        free(buf);
        return e;
}

void pmucal_table_free(struct pmucal_table *t)
{
        if (!t)
                return;
        free(t->levels);
        free(t);
}

static int classify(const struct pmucal_table *t, double v, bool ns)
{
        if (!t || t->n_levels == 0 || isnan(v))
                return -1;
        for (size_t i = 0; i + 1 < t->n_levels; i++)
                if (v <= (ns ? t->levels[i].upper_ns : t->levels[i].upper_cycles))
                        return (int)i;
        return (int)t->n_levels - 1;
}

int pmucal_table_classify_cycles(const struct pmucal_table *t, double cycles)
{
        return classify(t, cycles, false);
}

int pmucal_table_classify_ns(const struct pmucal_table *t, double ns)
{
        if (!t || t->n_levels == 0 || !t->levels[0].has_ns)
                return -1;
        return classify(t, ns, true);
}

bool pmucal_table_has_flag(const struct pmucal_table *t, const char *name)
{
        for (unsigned i = 0; t && name && i < t->n_flags; i++)
                if (!strcmp(t->flags[i], name))
                        return true;
        return false;
}
