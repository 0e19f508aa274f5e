/** @file libpmucal: the latency-table classifier and unit conversion (see
 *  host/include/pmucal/table.h). Pure functions of a loaded table: no allocation, no state,
 *  safe to call from any number of threads at once. */
#include "host/include/pmucal/table.h"
#include "host/libpmucal_priv.h"

static struct pmucal__clocks clocks(const struct pmucal_table *t)
{
        return (struct pmucal__clocks){ .cycles_unit   = t->cycles_unit,
                                        .core_measured = t->has_core_ratio,
                                        .tsc_hz        = t->tsc_hz,
                                        .core_hz       = t->core_hz };
}

enum pmucal_err pmucal_table_convert(const struct pmucal_table *t, double v,
                                     enum pmucal_unit from, enum pmucal_unit to, double *out)
{
        struct pmucal__clocks c;

        if (!t || !out)
                return PMUCAL_E_ARG;
        c = clocks(t);
        return pmucal__convert(&c, v, from, to, out);
}

/* The scale a classification compares on: the ns figures for ns input where the table has
 * them (no conversion at all), else the table's cycles after converting the input. */
struct scale {
        bool   ns;
        double factor; /* input x factor = the value compared */
};

static enum pmucal_err scale_for(const struct pmucal_table *t, enum pmucal_unit unit,
                                 struct scale *s)
{
        struct pmucal__clocks c = clocks(t);

        if ((unsigned)unit > PMUCAL_UNIT_NS)
                return PMUCAL_E_ARG;
        if (unit == PMUCAL_UNIT_NS && t->levels[0].has_ns) {
                *s = (struct scale){ true, 1.0 };
                return PMUCAL_OK;
        }
        s->ns = false;
        return pmucal__convert(&c, 1.0, unit, PMUCAL_UNIT_TABLE, &s->factor);
}

static int level_of(const struct pmucal_table *t, double v, bool ns)
{
        const struct pmucal_level *last = &t->levels[t->n_levels - 1];

        for (size_t i = 0; i + 1 < t->n_levels; i++)
                if (v <= (ns ? t->levels[i].upper_ns : t->levels[i].upper_cycles))
                        return (int)i;
        if (last->has_ceiling && v > (ns ? last->ceiling_ns : last->ceiling_cycles))
                return PMUCAL_LEVEL_BEYOND;
        return (int)t->n_levels - 1;
}

enum pmucal_err pmucal_table_classify(const struct pmucal_table *t, double latency,
                                      enum pmucal_unit unit, int *level)
{
        struct scale    s;
        enum pmucal_err e;

        if (!t || !level || !t->n_levels)
                return PMUCAL_E_ARG;
        if ((e = scale_for(t, unit, &s)) != PMUCAL_OK)
                return e;
        if (!pmucal__latency_ok(latency))
                return PMUCAL_E_RANGE;
        *level = level_of(t, latency * s.factor, s.ns);
        return PMUCAL_OK;
}

enum pmucal_err pmucal_table_classify_batch(const struct pmucal_table *t,
                                            const double *latencies, size_t n,
                                            enum pmucal_unit unit, int *levels, size_t *n_invalid)
{
        struct scale    s;
        enum pmucal_err e;
        size_t          bad = 0;

        if (!t || !t->n_levels || (n && (!latencies || !levels)))
                return PMUCAL_E_ARG;
        if ((e = scale_for(t, unit, &s)) != PMUCAL_OK)
                return e;
        for (size_t i = 0; i < n; i++) {
                if (!pmucal__latency_ok(latencies[i])) {
                        levels[i] = PMUCAL_LEVEL_INVALID;
                        bad++;
                } else {
                        levels[i] = level_of(t, latencies[i] * s.factor, s.ns);
                }
        }
        if (n_invalid)
                *n_invalid = bad;
        return PMUCAL_OK;
}
