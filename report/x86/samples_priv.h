/** @file
 * Private to report/x86/samples.c (grouping, histogram, reports) and report/x86/samples_check.c
 * (validation verdicts): the sample filter and the permille ratio both use. Not part of the
 * samples.h API; nothing else includes it.
 */
#ifndef PMUCAL_REPORT_SAMPLES_PRIV_H
#define PMUCAL_REPORT_SAMPLES_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "report/x86/samples.h"

/* True when @p p passes the REP_SF_* @p flags. */
static inline bool passes(const struct psample *p, unsigned flags)
{
        if ((flags & REP_SF_LOADS_ONLY) && !p->is_load)
                return false;
        if ((flags & REP_SF_MISSES_ONLY) && !(p->l1_miss_known && p->l1_miss))
                return false;
        return true;
}

/* @p part of @p whole in thousandths, rounded; 0 when @p whole is 0. */
static inline uint32_t permille(uint64_t part, uint64_t whole)
{
        return whole ? (uint32_t)((part * 1000 + whole / 2) / whole) : 0;
}

#endif /* PMUCAL_REPORT_SAMPLES_PRIV_H */
