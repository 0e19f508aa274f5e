/** @file libpmucal: the latency-table classifier and unit conversion (see
 *  host/include/pmucal/table.h). Pure functions of a loaded table: no allocation, no state,
 *  safe to call from any number of threads at once. A latency is compared with the bounds in
 *  its own unit (the table's where it gives them, else converted once per call), never
 *  converted itself. */
#include "host/include/pmucal/table.h"
#include "host/libpmucal_priv.h"


enum pmucal_err pmucal_table_convert(const struct pmucal_table *t, double v,
                                     enum pmucal_unit from, enum pmucal_unit to, double *out)
{
        struct pmucal__clocks c;

        if (!t || !out)
                return PMUCAL_E_ARG;
        c = pmucal__table_clocks(t);
        return pmucal__convert(&c, v, from, to, out);
}

/* The bounds one call compares with, in the caller's unit (host/libpmucal_units.c). */
struct bounds {
        size_t n;                    /* levels with an upper bound: n_levels - 1 */
        double upper[64];            /* the loader reads at most 64 levels */
        bool   has_ceiling;
        double ceiling;
};

static enum pmucal_err bounds_for(const struct pmucal_table *t, enum pmucal_unit unit,
                                  struct bounds *b)
{
        if ((unsigned)unit > PMUCAL_UNIT_NS || t->n_levels > sizeof(b->upper) / sizeof(b->upper[0]))
                return PMUCAL_E_ARG;
        b->n = t->n_levels - 1;
        return pmucal__unit_bounds(t, unit, b->upper, &b->has_ceiling, &b->ceiling);
}

static int level_of(const struct bounds *b, double v)
{
        for (size_t i = 0; i < b->n; i++)
                if (v <= b->upper[i])
                        return (int)i;
        if (b->has_ceiling && v > b->ceiling)
                return PMUCAL_LEVEL_BEYOND;
        return (int)b->n;
}

enum pmucal_err pmucal_table_classify(const struct pmucal_table *t, double latency,
                                      enum pmucal_unit unit, int *level)
{
        struct bounds   b;
        enum pmucal_err e;

        if (!t || !level || !t->n_levels)
                return PMUCAL_E_ARG;
        if ((e = bounds_for(t, unit, &b)) != PMUCAL_OK)
                return e;
        if (!pmucal__latency_ok(latency))
                return PMUCAL_E_RANGE;
        *level = level_of(&b, latency);
        return PMUCAL_OK;
}

enum pmucal_err pmucal_table_classify_batch(const struct pmucal_table *t,
                                            const double *latencies, size_t n,
                                            enum pmucal_unit unit, int *levels, size_t *n_invalid)
{
        struct bounds   b;
        enum pmucal_err e;
        size_t          bad = 0;

        if (!t || !t->n_levels || (n && (!latencies || !levels)))
                return PMUCAL_E_ARG;
        if ((e = bounds_for(t, unit, &b)) != PMUCAL_OK)
                return e;
        for (size_t i = 0; i < n; i++) {
                if (!pmucal__latency_ok(latencies[i])) {
                        levels[i] = PMUCAL_LEVEL_INVALID;
                        bad++;
                } else {
                        levels[i] = level_of(&b, latencies[i]);
                }
        }
        if (n_invalid)
                *n_invalid = bad;
        return PMUCAL_OK;
}
