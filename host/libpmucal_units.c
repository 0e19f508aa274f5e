/** @file libpmucal: a latency table's figures and bucket bounds in each unit (TSC ticks, core
 *  cycles, ns, and the 1.0 member cycles), read into struct pmucal_level_units (see
 *  host/include/pmucal/table.h), and the bounds a classifier compares a caller's unit with:
 *  the table's own in that unit, else the cycle bounds converted with its overall ratio. */
#include "host/include/pmucal/table.h"
#include "host/libpmucal_priv.h"

#include <jansson.h>
#include <string.h>

/* The member of each unit in a level and in bucket_upper_bounds. */
static const char *const unit_key[PMUCAL_UNIT_NS + 1] = {
        [PMUCAL_UNIT_TABLE] = "cycles",
        [PMUCAL_UNIT_TSC]   = "tsc_ticks",
        [PMUCAL_UNIT_CORE]  = "core_cycles",
        [PMUCAL_UNIT_NS]    = "ns",
};

/* p50_lo and p50_hi of figure object @p key: numbers, or null/absent (no interval). */
static bool load_interval(struct pmucal__ctx *c, json_t *o, const char *key,
                          struct pmucal_figures *f)
{
        static const char *const names[] = { "p50_lo", "p50_hi" };
        json_t                  *fo = json_object_get(o, key);
        double                   v[2];
        unsigned                 given = 0;
        size_t                   n     = pmucal__push_key(c, key);

        for (unsigned i = 0; i < 2; i++) {
                json_t *m = json_object_get(fo, names[i]);
                size_t  k;
                if (!m || json_is_null(m))
                        continue;
                k = pmucal__push_key(c, names[i]);
                if (!pmucal__check_num(c, m, &v[i]))
                        return false;
                pmucal__pop(c, k);
                given++;
        }
        pmucal__pop(c, n);
        if (given == 2) {
                f->has_interval = true;
                f->p50_lo       = v[0];
                f->p50_hi       = v[1];
        }
        return true;
}

bool pmucal__load_level_units(struct pmucal__ctx *c, json_t *o, const struct pmucal_level *l,
                              struct pmucal_level_units *u)
{
        u->unit[PMUCAL_UNIT_TABLE].has  = true;
        u->unit[PMUCAL_UNIT_TABLE].stat = l->cycles;
        if (!load_interval(c, o, "cycles", &u->unit[PMUCAL_UNIT_TABLE]))
                return false;
        for (int k = PMUCAL_UNIT_TSC; k <= PMUCAL_UNIT_NS; k++) {
                struct pmucal_figures *f = &u->unit[k];
                json_t                *m = json_object_get(o, unit_key[k]);

                if (!m || json_is_null(m))
                        continue;
                if (k == PMUCAL_UNIT_NS)
                        f->stat = l->ns; /* read and checked with the level */
                else if (!pmucal__get_stat(c, o, unit_key[k], &f->stat))
                        return false;
                f->has = true;
                if (!load_interval(c, o, unit_key[k], f))
                        return false;
        }
        return true;
}

/* The bound of level @p i in a unit read before 1.2 (cycles, ns): between the medians of the
 * two levels it separates. Later units (tsc_ticks, core_cycles): at or above the median of
 * the level below it and not below the previous bound (core-cycle bounds take the ratio of
 * the level below, so they may pass the next level's median when the ratios differ). */
static bool check_bound(struct pmucal__ctx *c, const struct pmucal_table *t,
                        const struct pmucal_level_units *lu, int unit, size_t i, double v)
{
        const char *a = t->levels[i].name, *b = t->levels[i + 1].name;
        double      lo = lu[i].unit[unit].stat.p50, hi = lu[i + 1].unit[unit].stat.p50;

        if (unit == PMUCAL_UNIT_TABLE || unit == PMUCAL_UNIT_NS) {
                if (v < lo || v >= hi)
                        return pmucal__fail(c, PMUCAL_E_SCHEMA,
                                            "%g is not between the medians of %s (%g) and %s (%g)",
                                            v, a, lo, b, hi);
                return true;
        }
        if (v < lo)
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "%g is below the median of %s (%g)", v, a, lo);
        if (i && v < lu[i - 1].unit[unit].upper)
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "%g is below the previous bound (%g)", v,
                                    lu[i - 1].unit[unit].upper);
        return true;
}

/* bucket_upper_bounds.<unit>: n_levels - 1 numbers, when every level has that unit. */
static bool load_bounds(struct pmucal__ctx *c, json_t *arr, const struct pmucal_table *t,
                        struct pmucal_level_units *lu, int unit)
{
        size_t want = t->n_levels - 1;

        for (size_t i = 0; i < t->n_levels; i++)
                if (!lu[i].unit[unit].has)
                        return pmucal__fail(c, PMUCAL_E_SCHEMA, "%s bounds but not every level has %s",
                                            unit_key[unit], unit_key[unit]);
        if (!json_is_array(arr))
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "expected an array, got %s", pmucal__type_name(arr));
        if (json_array_size(arr) != want)
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "%zu bounds for %zu levels (want %zu)",
                                    json_array_size(arr), t->n_levels, want);
        for (size_t i = 0; i < want; i++) {
                double v;
                size_t k = pmucal__push_idx(c, i);

                if (!pmucal__check_num(c, json_array_get(arr, i), &v) ||
                    !check_bound(c, t, lu, unit, i, v))
                        return false;
                pmucal__pop(c, k);
                lu[i].unit[unit].has_upper = true;
                lu[i].unit[unit].upper     = v;
        }
        return true;
}

bool pmucal__load_unit_bounds(struct pmucal__ctx *c, json_t *bo, struct pmucal_table *t,
                              struct pmucal_level_units *lu)
{
        static const int order[] = { PMUCAL_UNIT_TABLE, PMUCAL_UNIT_NS, PMUCAL_UNIT_TSC,
                                     PMUCAL_UNIT_CORE };

        for (size_t j = 0; j < sizeof(order) / sizeof(order[0]); j++) {
                int     u = order[j];
                json_t *b = pmucal__member(c, bo, unit_key[u], u != PMUCAL_UNIT_TABLE);
                size_t  k;

                if (!b && u == PMUCAL_UNIT_TABLE)
                        return false;
                if (!b || json_is_null(b)) {
                        /* no bounds in this unit: its figures are not used to classify */
                        for (size_t i = 0; i < t->n_levels; i++)
                                lu[i].unit[u].has = false;
                        continue;
                }
                k = pmucal__push_key(c, unit_key[u]);
                if (!load_bounds(c, b, t, lu, u))
                        return false;
                pmucal__pop(c, k);
        }
        return true;
}

enum pmucal_err pmucal__unit_bounds(const struct pmucal_table *t, enum pmucal_unit unit,
                                    double *upper, bool *has_ceiling, double *ceiling)
{
        struct pmucal__clocks            c    = pmucal__table_clocks(t);
        const struct pmucal_level       *last = &t->levels[t->n_levels - 1];
        const struct pmucal_figures     *lf   = &t->level_units[t->n_levels - 1].unit[unit];
        enum pmucal_err                  e;

        if ((unsigned)unit > PMUCAL_UNIT_NS)
                return PMUCAL_E_ARG;
        if (unit == PMUCAL_UNIT_CORE && t->core_ratio_override) {
                /* the caller's core clock, not the calibration's: the TSC bounds times it */
                if ((e = pmucal__unit_bounds(t, PMUCAL_UNIT_TSC, upper, has_ceiling, ceiling)) !=
                    PMUCAL_OK)
                        return e;
                for (size_t i = 0; i + 1 < t->n_levels; i++)
                        upper[i] *= t->core_per_tsc;
                if (*has_ceiling)
                        *ceiling *= t->core_per_tsc;
                return PMUCAL_OK;
        }
        for (size_t i = 0; i + 1 < t->n_levels; i++) {
                const struct pmucal_figures *f = &t->level_units[i].unit[unit];
                if (f->has_upper)
                        upper[i] = f->upper;
                else if ((e = pmucal__convert(&c, t->levels[i].upper_cycles, PMUCAL_UNIT_TABLE, unit,
                                              &upper[i])) != PMUCAL_OK)
                        return e;
        }
        *has_ceiling = last->has_ceiling;
        if (!last->has_ceiling)
                return PMUCAL_OK;
        if (lf->has) {
                *ceiling = PMUCAL_CEILING_FACTOR * lf->stat.p90;
                return PMUCAL_OK;
        }
        return pmucal__convert(&c, last->ceiling_cycles, PMUCAL_UNIT_TABLE, unit, ceiling);
}
