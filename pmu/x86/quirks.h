/** @file
 * Every CPU model, erratum and quirk fact the x86 PMU code acts on, in one const table
 * (pmu/x86/quirks.c) with the source of each row. A row names a vendor, a family, a model
 * range and the flags it sets in one scope: the core PMU (PMU_Q_* of pmu/pmu.h, kept in
 * struct pmu_caps.quirks) or IBS (PMU_IBS_Q_* of pmu/x86/ibs.h, kept in struct
 * pmu_ibs_info.quirks). Format facts of one mechanism (PEBS data-source layout, legacy LBR
 * depth per model) stay in that mechanism's own table (pmu/x86/pebs_session.c,
 * pmu/x86/lbr_session.c).
 */
#ifndef PMUCAL_PMU_X86_QUIRKS_H
#define PMUCAL_PMU_X86_QUIRKS_H

#include <stdint.h>

#include "boot/x86/cpuid.h"

/** Which set of flags a quirk row belongs to. */
enum pmu_quirk_scope {
        PMU_QUIRK_CORE = 0, /* core counters: PMU_Q_* (pmu/pmu.h) */
        PMU_QUIRK_IBS,      /* AMD IBS: PMU_IBS_Q_* (pmu/x86/ibs.h) */
};

/** The flags of every row of @p scope matching @p vendor / @p family / @p model, OR-ed; a
 *  row whose vendor is VEN_UNKNOWN matches any vendor (IBS rows: AMD and Hygon share the
 *  family numbers). @p first_ref (may be NULL) gets the reference of the first matching row,
 *  or NULL. */
uint32_t pmu_quirks_lookup(enum pmu_quirk_scope scope, enum cpu_vendor vendor, uint32_t family,
                           uint32_t model, const char **first_ref);

#endif
