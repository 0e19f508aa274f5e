/** @file libpmucal: the TLB-miss classifier (see host/include/pmucal/tlb.h). Pure functions
 *  of a loaded table: no allocation, no state, safe to call from any number of threads. */
#include <string.h>

#include "host/include/pmucal/tlb.h"
#include "host/libpmucal_priv.h"

enum pmucal_err pmucal_tlb_side_parse(const char *s, enum pmucal_tlb_side *side)
{
        if (!s || !side)
                return PMUCAL_E_ARG;
        if (!strcmp(s, "dtlb"))
                *side = PMUCAL_TLB_DTLB;
        else if (!strcmp(s, "itlb"))
                *side = PMUCAL_TLB_ITLB;
        else
                return PMUCAL_E_ARG;
        return PMUCAL_OK;
}

enum pmucal_err pmucal_tlb_find_curve(const struct pmucal_tlb *t, enum pmucal_tlb_side side,
                                      uint64_t page_bytes, const struct pmucal_tlb_curve **curve)
{
        if (!t || !curve || (side != PMUCAL_TLB_DTLB && side != PMUCAL_TLB_ITLB))
                return PMUCAL_E_ARG;
        for (size_t i = 0; i < t->n_curves; i++)
                if (t->curves[i].side == side && t->curves[i].page_bytes == page_bytes &&
                    t->curves[i].pte == PMUCAL_TLB_PTE_NEAR && t->curves[i].n_classes) {
                        *curve = &t->curves[i];
                        return PMUCAL_OK;
                }
        return PMUCAL_E_NO_CURVE;
}

/* The curve and the factor that turns an input in @p unit into the table's cycles. */
static enum pmucal_err prepare(const struct pmucal_tlb *t, enum pmucal_tlb_side side,
                               uint64_t page_bytes, enum pmucal_unit unit,
                               const struct pmucal_tlb_curve **cv, double *factor)
{
        struct pmucal__clocks c;
        enum pmucal_err       e;

        if ((e = pmucal_tlb_find_curve(t, side, page_bytes, cv)) != PMUCAL_OK)
                return e;
        c = (struct pmucal__clocks){ .cycles_unit   = t->cycles_unit,
                                     .core_measured = t->has_core_ratio,
                                     .core_per_tsc  = t->has_core_ratio ? t->core_per_tsc : 0,
                                     .tsc_hz        = t->tsc_hz,
                                     .core_hz       = t->core_hz };
        return pmucal__convert(&c, 1.0, unit, PMUCAL_UNIT_TABLE, factor);
}

static size_t class_of(const struct pmucal_tlb_curve *cv, double v)
{
        for (size_t k = 0; k + 1 < cv->n_classes; k++)
                if (v <= cv->classes[k].upper_added_cycles)
                        return k;
        return cv->n_classes - 1;
}

enum pmucal_err pmucal_tlb_classify(const struct pmucal_tlb *t, enum pmucal_tlb_side side,
                                    uint64_t page_bytes, double added, enum pmucal_unit unit,
                                    const struct pmucal_tlb_class **cls)
{
        const struct pmucal_tlb_curve *cv;
        double                         f;
        enum pmucal_err                e;

        if (!cls)
                return PMUCAL_E_ARG;
        if ((e = prepare(t, side, page_bytes, unit, &cv, &f)) != PMUCAL_OK)
                return e;
        if (!pmucal__latency_ok(added))
                return PMUCAL_E_RANGE;
        *cls = &cv->classes[class_of(cv, added * f)];
        return PMUCAL_OK;
}

enum pmucal_err pmucal_tlb_classify_batch(const struct pmucal_tlb *t, enum pmucal_tlb_side side,
                                          uint64_t page_bytes, const double *added, size_t n,
                                          enum pmucal_unit unit, int *classes, size_t *n_invalid)
{
        const struct pmucal_tlb_curve *cv;
        double                         f;
        enum pmucal_err                e;
        size_t                         bad = 0;

        if (n && (!added || !classes))
                return PMUCAL_E_ARG;
        if ((e = prepare(t, side, page_bytes, unit, &cv, &f)) != PMUCAL_OK)
                return e;
        for (size_t i = 0; i < n; i++) {
                if (!pmucal__latency_ok(added[i])) {
                        classes[i] = PMUCAL_LEVEL_INVALID;
                        bad++;
                } else {
                        classes[i] = (int)class_of(cv, added[i] * f);
                }
        }
        if (n_invalid)
                *n_invalid = bad;
        return PMUCAL_OK;
}
