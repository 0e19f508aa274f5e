/** @file libpmucal: a latency table's core:TSC ratio and where it comes from (see
 *  host/include/pmucal/table.h, "The core clock"): read from method.core_clock (a counter's
 *  measurement, or the estimate of a dependent-add chain when no counter was readable), or set
 *  by the caller (pmucal_table_set_core_ratio); and the bounds in core cycles an override
 *  gives. Host only: libc and jansson. */
#include "host/include/pmucal/table.h"
#include "host/libpmucal_priv.h"

#include <jansson.h>
#include <math.h>

/* A ratio member: a finite number in (0, PMUCAL_MAX_CORE_PER_TSC]; anything else (null,
 * absent, another type, out of range) reads as not given. Informative members are read
 * leniently, so that no writer's spelling of "unknown" rejects a table. */
static double ratio_of(json_t *o, const char *key)
{
        json_t *v = json_object_get(o, key);
        double  r;

        if (!json_is_number(v))
                return 0;
        r = json_number_value(v);
        return isfinite(r) && r > 0 && r <= PMUCAL_MAX_CORE_PER_TSC ? r : 0;
}

static const char *str_of(struct pmucal__ctx *c, json_t *o, const char *key)
{
        json_t *v = json_object_get(o, key);

        return json_is_string(v) ? pmucal__pool_strdup(c->pool, json_string_value(v)) : NULL;
}

void pmucal__load_core_clock(struct pmucal__ctx *c, json_t *root, struct pmucal_table *t)
{
        json_t *cc = json_object_get(json_object_get(root, "method"), "core_clock");
        json_t *est;
        double  r;

        if (t->cycles_unit == PMUCAL_UNIT_CORE && t->core_hz && t->tsc_hz) {
                t->has_core_ratio    = true;
                t->core_per_tsc      = (double)t->core_hz / (double)t->tsc_hz;
                t->core_ratio_source = t->clock;
        }
        if (!json_is_object(cc))
                return;
        if ((r = ratio_of(cc, "core_per_tsc")) > 0) {
                t->has_core_ratio    = true;
                t->core_per_tsc      = r;
                t->core_per_tsc_min  = ratio_of(cc, "core_per_tsc_min");
                t->core_per_tsc_max  = ratio_of(cc, "core_per_tsc_max");
                t->core_ratio_source = str_of(c, cc, "source");
                if (!t->core_ratio_source)
                        t->core_ratio_source = t->clock;
                return;
        }
        est = json_object_get(cc, "estimate");
        if (t->has_core_ratio || !json_is_object(est) || (r = ratio_of(est, "core_per_tsc")) <= 0)
                return;
        t->has_core_ratio       = true;
        t->core_ratio_estimated = true;
        t->core_per_tsc         = r;
        t->core_per_tsc_min     = ratio_of(est, "core_per_tsc_min");
        t->core_per_tsc_max     = ratio_of(est, "core_per_tsc_max");
        t->core_ratio_source    = str_of(c, est, "method");
        if (!t->core_ratio_source)
                t->core_ratio_source = "estimate";
}

enum pmucal_err pmucal_table_set_core_ratio(struct pmucal_table *t, double core_per_tsc)
{
        if (!t)
                return PMUCAL_E_ARG;
        if (!isfinite(core_per_tsc) || core_per_tsc <= 0 || core_per_tsc > PMUCAL_MAX_CORE_PER_TSC)
                return PMUCAL_E_RANGE;
        if (!t->tsc_hz)
                return PMUCAL_E_NO_RATIO;
        t->has_core_ratio       = true;
        t->core_per_tsc         = core_per_tsc;
        t->core_per_tsc_min     = core_per_tsc;
        t->core_per_tsc_max     = core_per_tsc;
        t->core_ratio_source    = PMUCAL_CORE_RATIO_OVERRIDE;
        t->core_ratio_estimated = false;
        t->core_ratio_override  = true;
        return PMUCAL_OK;
}

struct pmucal__clocks pmucal__table_clocks(const struct pmucal_table *t)
{
        return (struct pmucal__clocks){ .cycles_unit   = t->cycles_unit,
                                        .core_measured = t->has_core_ratio,
                                        .tsc_hz        = t->tsc_hz,
                                        .core_hz       = t->core_hz,
                                        .core_per_tsc  = t->has_core_ratio ? t->core_per_tsc : 0 };
}
