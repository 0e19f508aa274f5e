/** @file libpmucal: the latency-table loader (see host/include/pmucal/table.h; the
 * classifier is host/libpmucal_classify.c). Host only: libc and jansson. Every field is
 * checked for presence, type, range and meaning before use; a bad one is reported with its
 * JSON path ("levels[2].cycles.p90"). Strings and arrays live in the table's pool. */
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

#define MAX_LEVELS PMUCAL_RULE_MAX_LEVELS
#define MAX_FLAGS  PMUCAL_RULE_MAX_FLAGS

/* The table and the pool that owns everything it points to. */
struct table_priv {
        struct pmucal_table  pub;
        struct pmucal__pool *pool;
};

static bool check_schema(struct pmucal__ctx *c, json_t *root, struct pmucal_table *t)
{
        json_t         *v = json_object_get(root, "schema");
        char            msg[256];
        unsigned        minor;
        enum pmucal_err e;

        if (!v || !json_is_string(v))
                return pmucal__fail(c, PMUCAL_E_KIND, "not a pmucal latency table (no \"schema\" string)");
        e = pmucal__schema_version(json_string_value(v), PMUCAL_TABLE_SCHEMA_PREFIX,
                                   PMUCAL_TABLE_MAJOR, &minor, msg, sizeof(msg));
        if (e != PMUCAL_OK)
                return pmucal__fail(c, e, "%s%s", e == PMUCAL_E_KIND ? "not a pmucal latency table: " : "",
                            msg);
        if (!(t->schema = pmucal__pool_strdup(c->pool, json_string_value(v))))
                return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
        t->major = PMUCAL_TABLE_MAJOR;
        t->minor = minor;
        return true;
}

static bool load_machine(struct pmucal__ctx *c, json_t *root, struct pmucal_table *t)
{
        json_t  *m = pmucal__get_obj(c, root, "machine", false);
        uint64_t    f = 0, mo = 0, st = 0, nodes = 0;
        const char *mc;

        if (!m)
                return false;
        size_t n = pmucal__push_key(c, "machine");
        bool ok = pmucal__get_str(c, m, "vendor", true, &t->vendor) &&
                  pmucal__get_u64(c, m, "family", false, 0xffff, &f) &&
                  pmucal__get_u64(c, m, "model", false, 0xffff, &mo) &&
                  pmucal__get_u64(c, m, "stepping", false, 0xff, &st) &&
                  pmucal__get_str(c, m, "brand", true, &t->brand) &&
                  pmucal__get_str(c, m, "microcode", true, &mc) &&
                  pmucal__get_u64(c, m, "core_hz", true, UINT64_MAX, &t->core_hz) &&
                  pmucal__get_u64(c, m, "tsc_hz", true, UINT64_MAX, &t->tsc_hz) &&
                  pmucal__get_str(c, m, "smbios_manufacturer", true, &t->smbios_manufacturer) &&
                  pmucal__get_str(c, m, "smbios_product", true, &t->smbios_product) &&
                  pmucal__get_u64(c, m, "nodes", true, 65536, &nodes);
        if (ok && mc) {
                char *end;
                errno            = 0;
                t->microcode     = strtoull(mc, &end, 16);
                t->has_microcode = true;
                if (errno || *end || strncmp(mc, "0x", 2)) {
                        size_t k = pmucal__push_key(c, "microcode");
                        ok = pmucal__fail(c, PMUCAL_E_SCHEMA, "\"%s\" is not a hex number \"0x...\"", mc);
                        pmucal__pop(c, k);
                }
        }
        if (ok) {
                t->family   = (unsigned)f;
                t->model    = (unsigned)mo;
                t->stepping = (unsigned)st;
                t->nodes    = (unsigned)nodes;
        }
        pmucal__pop(c, n);
        return ok;
}

static bool load_method(struct pmucal__ctx *c, json_t *root, struct pmucal_table *t)
{
        json_t  *m = pmucal__get_obj(c, root, "method", false);
        uint64_t w = 0;

        if (!m)
                return false;
        size_t n  = pmucal__push_key(c, "method");
        bool   ok = pmucal__get_str(c, m, "kernel", true, &t->kernel) &&
                  pmucal__get_str(c, m, "layout", true, &t->layout) &&
                  pmucal__get_u64(c, m, "page_bytes", true, 1ull << 40, &t->page_bytes) &&
                  pmucal__get_u64(c, m, "windows", false, 1u << 20, &w) &&
                  pmucal__get_str(c, m, "clock", false, &t->clock) &&
                  pmucal__get_str(c, m, "prefetchers", true, &t->prefetchers) &&
                  pmucal__get_str(c, m, "pmucal_version", true, &t->pmucal_version) &&
                  pmucal__get_str(c, m, "platform", true, &t->platform) &&
                  pmucal__get_str(c, m, "date", true, &t->date);
        t->windows = (unsigned)w;
        pmucal__pop(c, n);
        return ok;
}

/* A level's agreement with CPUID: one of the values this reader knows, or PMUCAL_UNKNOWN for
 * one a later minor added (counted; the enum is open, docs/versioning.md). */
static bool get_agreement(struct pmucal__ctx *c, json_t *o, const char **out)
{
        int i = pmucal__get_enum(c, o, "agreement", pmucal_rule_agreement, PMUCAL_RULE_N_AGREEMENT,
                                 PMUCAL_RULE_AGREEMENT_WORDS);

        if (i >= 0)
                *out = i < PMUCAL_RULE_N_AGREEMENT ? pmucal_rule_agreement[i] : PMUCAL_UNKNOWN;
        return i >= 0;
}

static bool load_level(struct pmucal__ctx *c, json_t *o, struct pmucal_level *l,
                       struct pmucal_level_units *u)
{
        uint64_t lvl = 0;
        json_t  *ns;

        if (!json_is_object(o))
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "expected an object, got %s", pmucal__type_name(o));
        if (!pmucal__get_str(c, o, "name", false, &l->name) ||
            !pmucal__get_u64(c, o, "capacity_bytes", true, UINT64_MAX, &l->capacity_bytes) ||
            !pmucal__get_u64(c, o, "cpuid_capacity_bytes", true, UINT64_MAX, &l->cpuid_capacity_bytes) ||
            !pmucal__get_u64(c, o, "cpuid_level", true, 15, &lvl) ||
            !get_agreement(c, o, &l->agreement) ||
            !pmucal__get_stat(c, o, "cycles", &l->cycles))
                return false;
        if (!l->name || !l->name[0]) {
                pmucal__push_key(c, "name");
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "empty");
        }
        l->cpuid_level = (unsigned)lvl;
        ns             = pmucal__member(c, o, "ns", true);
        if (ns && !json_is_null(ns)) {
                if (!pmucal__get_stat(c, o, "ns", &l->ns))
                        return false;
                l->has_ns = true;
        }
        return pmucal__load_level_units(c, o, l, u);
}

/* Level @p i against the levels before it: a name of its own, a median and a capacity above
 * the previous level's (capacities compared where both are known). */
static bool check_order(struct pmucal__ctx *c, const struct pmucal_table *t, size_t i)
{
        const struct pmucal_level *l = &t->levels[i];

        for (size_t j = 0; j < i; j++)
                if (!strcmp(t->levels[j].name, l->name)) {
                        pmucal__push_key(c, "name");
                        return pmucal__fail(c, PMUCAL_E_SCHEMA, "\"%s\" is also the name of levels[%zu]",
                                    l->name, j);
                }
        if (i && l->cycles.p50 <= t->levels[i - 1].cycles.p50) {
                pmucal__push_key(c, "cycles.p50");
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "%g is not above the previous level's %g",
                            l->cycles.p50, t->levels[i - 1].cycles.p50);
        }
        for (size_t j = i; l->capacity_bytes && j-- > 0;)
                if (t->levels[j].capacity_bytes) {
                        if (l->capacity_bytes > t->levels[j].capacity_bytes)
                                break;
                        pmucal__push_key(c, "capacity_bytes");
                        return pmucal__fail(c, PMUCAL_E_SCHEMA, "%" PRIu64 " is not above levels[%zu]'s "
                                    "%" PRIu64, l->capacity_bytes, j, t->levels[j].capacity_bytes);
                }
        return true;
}

bool pmucal__load_levels(struct pmucal__ctx *c, json_t *root, struct pmucal_table *t)
{
        json_t                    *arr = pmucal__member(c, root, "levels", false), *bo;
        size_t                     n   = pmucal__push_key(c, "levels");
        struct pmucal_level_units *lu;

        if (!arr)
                return false;
        if (!json_is_array(arr))
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "expected an array, got %s", pmucal__type_name(arr));
        if (json_array_size(arr) == 0 || json_array_size(arr) > MAX_LEVELS)
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "%zu levels (want 1..%u)", json_array_size(arr),
                            MAX_LEVELS);
        t->n_levels = json_array_size(arr);
        t->levels   = pmucal__pool_alloc(c->pool, t->n_levels * sizeof(*t->levels));
        lu          = pmucal__pool_alloc(c->pool, t->n_levels * sizeof(*lu));
        if (!t->levels || !lu)
                return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
        t->level_units = lu;
        for (size_t i = 0; i < t->n_levels; i++) {
                size_t k = pmucal__push_idx(c, i);
                if (!load_level(c, json_array_get(arr, i), &t->levels[i], &lu[i]))
                        return false;
                if (!check_order(c, t, i))
                        return false;
                pmucal__pop(c, k);
        }
        pmucal__pop(c, n);

        if (!(bo = pmucal__get_obj(c, root, "bucket_upper_bounds", false)))
                return false;
        n = pmucal__push_key(c, "bucket_upper_bounds");
        if (!pmucal__load_unit_bounds(c, bo, t, lu))
                return false;
        pmucal__pop(c, n);
        for (size_t i = 0; i < t->n_levels; i++) { /* the 1.0 fields */
                struct pmucal_level *l = &t->levels[i];
                l->has_upper    = lu[i].unit[PMUCAL_UNIT_TABLE].has_upper;
                l->upper_cycles = lu[i].unit[PMUCAL_UNIT_TABLE].upper;
                l->has_ns       = lu[i].unit[PMUCAL_UNIT_NS].has;
                l->upper_ns     = lu[i].unit[PMUCAL_UNIT_NS].upper;
        }
        return true;
}

static bool load_flags(struct pmucal__ctx *c, json_t *root, struct pmucal_table *t)
{
        json_t      *arr = pmucal__member(c, root, "flags", false);
        size_t       n   = pmucal__push_key(c, "flags");
        const char **f;

        if (!arr)
                return false;
        if (!json_is_array(arr))
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "expected an array, got %s", pmucal__type_name(arr));
        if (json_array_size(arr) > MAX_FLAGS)
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "%zu flags (at most %u)", json_array_size(arr),
                            MAX_FLAGS);
        if (!(f = pmucal__pool_alloc(c->pool, (json_array_size(arr) + 1) * sizeof(*f))))
                return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
        for (size_t i = 0; i < json_array_size(arr); i++) {
                json_t *v = json_array_get(arr, i);
                size_t  k = pmucal__push_idx(c, i);
                if (!json_is_string(v))
                        return pmucal__fail(c, PMUCAL_E_SCHEMA, "expected a string, got %s", pmucal__type_name(v));
                if (!(f[i] = pmucal__pool_strdup(c->pool, json_string_value(v))))
                        return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
                pmucal__pop(c, k);
        }
        t->flags   = f;
        t->n_flags = json_array_size(arr);
        pmucal__pop(c, n);
        return true;
}

/* What the figures are in, whether a core:TSC ratio was measured, and the last level's
 * ceiling when it is not DRAM (the sweep ended inside a cache, or no hierarchy showed). */
static void derive(struct pmucal_table *t)
{
        struct pmucal_level *last = &t->levels[t->n_levels - 1];

        t->cycles_unit = pmucal__clock_unit(t->clock);
        if (pmucal_table_has_flag(t, "no_dram") || pmucal_table_has_flag(t, "no_hierarchy") ||
            pmucal_table_has_flag(t, "buffer_reduced")) {
                last->has_ceiling    = true;
                last->ceiling_cycles = PMUCAL_CEILING_FACTOR * last->cycles.p90;
                last->ceiling_ns     = PMUCAL_CEILING_FACTOR * last->ns.p90;
        }
}

/* The table's sections into @p doc, a new struct table_priv. */
static bool load_root(struct pmucal__ctx *c, json_t *root, void *doc)
{
        struct pmucal_table *t = &((struct table_priv *)doc)->pub;

        if (!json_is_object(root))
                return pmucal__fail(c, PMUCAL_E_KIND, "not a pmucal latency table (top level is %s)",
                                    pmucal__type_name(root));
        if (check_schema(c, root, t) && load_machine(c, root, t) && load_method(c, root, t) &&
            pmucal__load_levels(c, root, t) && load_flags(c, root, t) &&
            pmucal__load_core_sets(c, root, t)) {
                derive(t);
                pmucal__load_core_clock(c, root, t);
        }
        t->has_tlb = json_object_get(root, "tlb") != NULL;
        return c->e == PMUCAL_OK;
}

static void free_doc(void *doc)
{
        pmucal_table_free(doc);
}

static const struct pmucal__doc table_doc = {
        .size          = sizeof(struct table_priv),
        .pool          = offsetof(struct table_priv, pool),
        .n_unknown     = offsetof(struct table_priv, pub.n_unknown),
        .unknown_first = offsetof(struct table_priv, pub.unknown_first),
        .fill          = load_root,
        .free          = free_doc,
};

enum pmucal_err pmucal_table_load_buf(const char *buf, size_t len, const char *name,
                                      struct pmucal_table **out, char *err, size_t errlen)
{
        return pmucal__load_doc(&table_doc, buf, len, name, out, err, errlen);
}

enum pmucal_err pmucal_table_load(const char *path, struct pmucal_table **out, char *err,
                                  size_t errlen)
{
        return pmucal__load_doc_path(&table_doc, path, out, err, errlen);
}

void pmucal_table_free(struct pmucal_table *t)
{
        struct table_priv *p = (struct table_priv *)t; /* pub is its first member */

        if (!p)
                return;
        pmucal__pool_free(p->pool);
        free(p);
}

bool pmucal_table_has_flag(const struct pmucal_table *t, const char *name)
{
        for (size_t i = 0; t && name && i < t->n_flags; i++)
                if (!strcmp(t->flags[i], name))
                        return true;
        return false;
}
