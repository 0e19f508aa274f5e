/** @file libpmucal: the latency table's level sets per core type and cache domain (1.4
 * "core_types", docs/latency-table.md). Optional: a table without them has n_core_sets 0.
 * Each set's levels, with their figures and bounds in each unit, are read and checked by the
 * same function as the top-level ones (pmucal__load_levels). */
#include "host/include/pmucal/table.h"
#include "host/libpmucal_priv.h"

#include <string.h>

#define MAX_SETS  64
#define MAX_IDS   4096
#define MAX_CACHE 8

/* An array of integers up to @p max (NULL entries: 0 when @p nullable) into the pool. */
static bool get_u64_array(struct pmucal__ctx *c, json_t *o, const char *key, bool nullable,
                          uint64_t max, size_t cap, size_t *n, uint64_t **out)
{
        json_t *a = pmucal__member(c, o, key, false);
        size_t  k = pmucal__push_key(c, key);

        if (!a)
                return false;
        if (!json_is_array(a))
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "expected an array, got %s",
                                    pmucal__type_name(a));
        if (json_array_size(a) > cap)
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "%zu entries (at most %zu)",
                                    json_array_size(a), cap);
        *n = json_array_size(a);
        if (!(*out = pmucal__pool_alloc(c->pool, (*n ? *n : 1) * sizeof(**out))))
                return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
        for (size_t i = 0; i < *n; i++) {
                json_t *v = json_array_get(a, i);
                size_t  j = pmucal__push_idx(c, i);
                if (nullable && json_is_null(v)) {
                        (*out)[i] = 0;
                } else if (!json_is_integer(v) || json_integer_value(v) < 0 ||
                           (uint64_t)json_integer_value(v) > max) {
                        return pmucal__fail(c, PMUCAL_E_SCHEMA, "expected an integer 0..%llu",
                                            (unsigned long long)max);
                } else {
                        (*out)[i] = (uint64_t)json_integer_value(v);
                }
                pmucal__pop(c, j);
        }
        pmucal__pop(c, k);
        return true;
}

static bool get_ids(struct pmucal__ctx *c, json_t *o, const char *key, size_t *n,
                    const uint32_t **out)
{
        uint64_t *v;
        uint32_t *ids;

        if (!get_u64_array(c, o, key, false, UINT32_MAX, MAX_IDS, n, &v))
                return false;
        if (!(ids = pmucal__pool_alloc(c->pool, (*n ? *n : 1) * sizeof(*ids))))
                return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
        for (size_t i = 0; i < *n; i++) {
                if (i && v[i] <= v[i - 1]) {
                        pmucal__push_key(c, key);
                        pmucal__push_idx(c, i);
                        return pmucal__fail(c, PMUCAL_E_SCHEMA, "not ascending");
                }
                ids[i] = (uint32_t)v[i];
        }
        *out = ids;
        return true;
}

/* A set's core type: null (not hybrid), one of the values this reader knows, or
 * PMUCAL_UNKNOWN for one a later minor added (counted; the enum is open). */
static bool get_core_type(struct pmucal__ctx *c, json_t *o, const char **out)
{
        json_t *v = pmucal__member(c, o, "core_type", true);
        int     i;

        *out = NULL;
        if (!v || json_is_null(v))
                return true;
        if ((i = pmucal__get_enum(c, o, "core_type", pmucal_rule_core_type, PMUCAL_RULE_N_CORE_TYPE,
                                  PMUCAL_RULE_CORE_TYPE_WORDS)) < 0)
                return false;
        *out = i < PMUCAL_RULE_N_CORE_TYPE ? pmucal_rule_core_type[i] : PMUCAL_UNKNOWN;
        return true;
}

static bool load_set(struct pmucal__ctx *c, json_t *o, struct pmucal_core_set *s)
{
        uint64_t *cache, on = 0;

        if (!json_is_object(o))
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "expected an object, got %s",
                                    pmucal__type_name(o));
        if (!get_core_type(c, o, &s->core_type) ||
            !get_u64_array(c, o, "cache_bytes", true, UINT64_MAX, MAX_CACHE, &s->n_cache_levels,
                           &cache) ||
            !get_ids(c, o, "apic_ids", &s->n_apic_ids, &s->apic_ids) ||
            !get_ids(c, o, "llc_domains", &s->n_llc_domains, &s->llc_domains) ||
            !pmucal__get_u64(c, o, "measured_on_apic_id", false, UINT32_MAX, &on) ||
            !pmucal__get_bool(c, o, "bsp_set", &s->bsp_set) ||
            !pmucal__get_bool(c, o, "measured", &s->measured) ||
            !pmucal__get_str(c, o, "why_not_measured", true, &s->why_not_measured))
                return false;
        s->cache_bytes         = cache;
        s->measured_on_apic_id = (uint32_t)on;
        if (!s->n_apic_ids)
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "apic_ids: a set covers no processor");
        if (s->measured) {
                struct pmucal_table lv = { 0 };
                if (!pmucal__load_levels(c, o, &lv))
                        return false;
                s->n_levels    = lv.n_levels;
                s->levels      = lv.levels;
                s->level_units = lv.level_units;
        } else if (!s->why_not_measured) {
                pmucal__push_key(c, "why_not_measured");
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "null, but the set was not measured");
        }
        return true;
}

bool pmucal__load_core_sets(struct pmucal__ctx *c, json_t *root, struct pmucal_table *t)
{
        json_t                 *ct = json_object_get(root, "core_types"), *sets;
        struct pmucal_core_set *out;
        size_t                  n, k;

        if (!ct || json_is_null(ct))
                return true;
        k = pmucal__push_key(c, "core_types");
        if (!json_is_object(ct))
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "expected an object, got %s",
                                    pmucal__type_name(ct));
        if (!(sets = pmucal__member(c, ct, "sets", false)))
                return false;
        size_t ks = pmucal__push_key(c, "sets");
        if (!json_is_array(sets))
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "expected an array, got %s",
                                    pmucal__type_name(sets));
        if ((n = json_array_size(sets)) > MAX_SETS)
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "%zu sets (at most %d)", n, MAX_SETS);
        if (!(out = pmucal__pool_alloc(c->pool, (n ? n : 1) * sizeof(*out))))
                return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
        memset(out, 0, (n ? n : 1) * sizeof(*out));
        for (size_t i = 0; i < n; i++) {
                size_t j = pmucal__push_idx(c, i);
                if (!load_set(c, json_array_get(sets, i), &out[i]))
                        return false;
                for (size_t p = 0; p < i; p++)
                        for (size_t a = 0; a < out[i].n_apic_ids; a++)
                                for (size_t b = 0; b < out[p].n_apic_ids; b++)
                                        if (out[i].apic_ids[a] == out[p].apic_ids[b])
                                                return pmucal__fail(c, PMUCAL_E_SCHEMA,
                                                        "apic_ids: %u is also in set %zu",
                                                        out[i].apic_ids[a], p);
                pmucal__pop(c, j);
        }
        pmucal__pop(c, ks);
        pmucal__pop(c, k);
        t->core_sets   = out;
        t->n_core_sets = n;
        return true;
}

const struct pmucal_core_set *pmucal_table_core_set(const struct pmucal_table *t,
                                                    uint32_t apic_id)
{
        for (size_t i = 0; t && i < t->n_core_sets; i++)
                for (size_t a = 0; a < t->core_sets[i].n_apic_ids; a++)
                        if (t->core_sets[i].apic_ids[a] == apic_id)
                                return &t->core_sets[i];
        return NULL;
}
