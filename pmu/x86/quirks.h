/** @file
 * Every CPU model, erratum and quirk fact the x86 PMU code acts on, in one const table
 * (pmu/x86/quirks.c) with the source of each row. A row names a vendor, a family, a model
 * range and the flags it sets in one scope: the core PMU (PMU_Q_* below, kept in
 * struct pmu_caps.quirks) or IBS (PMU_IBS_Q_* below, kept in struct
 * pmu_ibs_info.quirks). Format facts of one mechanism (PEBS data-source layout, legacy LBR
 * depth per model) stay in that mechanism's own table (pmu/x86/pebs_session.c,
 * pmu/x86/lbr_session.c).
 */
#ifndef PMUCAL_PMU_X86_QUIRKS_H
#define PMUCAL_PMU_X86_QUIRKS_H

#include <stdint.h>

#include "boot/x86/cpuid.h"
#include "lib/base.h"

/* Core PMU quirks (struct pmu_caps.quirks). */
#define PMU_Q_BR_MISS_RETIRED_BROKEN (1u << 0) /* architectural Branch Misses Retired unusable */

/* IBS quirks (struct pmu_ibs_info.quirks). */
#define PMU_IBS_Q_FAM10H_DISABLE_SEQ   BIT_ULL(0) /* erratum 420: clear MaxCnt before En */
#define PMU_IBS_Q_FETCH_CNT_RESET      BIT_ULL(1) /* F16h-18h: toggle FetchEn to reset Cnt */
#define PMU_IBS_Q_IGNORE_IC_MISS       BIT_ULL(2) /* erratum 1238 */
#define PMU_IBS_Q_FETCH_PGSZ_1347      BIT_ULL(3) /* erratum 1347: 4K/16K/2M/1G table */
#define PMU_IBS_Q_OPDATA2_1293         BIT_ULL(4) /* erratum 1293: OpData2 bad on SwPf/NoMab */
#define PMU_IBS_Q_CACHE_HIT_ST_BAD     BIT_ULL(5) /* CacheHitSt invalid */
#define PMU_IBS_Q_FETCH_ZERO_RIP_1197  BIT_ULL(6) /* erratum 1197: drop fetch with RIP 0 */
#define PMU_IBS_Q_NB_LAYOUT            BIT_ULL(7) /* Fam10h-16h NbIbsReqSrc / MabHit layout */
#define PMU_IBS_Q_LDLAT_L3MISS_1606    BIT_ULL(8) /* erratum 1606: LdLat needs L3MissOnly */

/** Which set of flags a quirk row belongs to. */
enum pmu_quirk_scope {
        PMU_QUIRK_CORE = 0, /* core counters: PMU_Q_* */
        PMU_QUIRK_IBS,      /* AMD IBS: PMU_IBS_Q_* */
};

/** The flags of every row of @p scope matching @p vendor / @p family / @p model, OR-ed; a
 *  row whose vendor is VEN_UNKNOWN matches any vendor (IBS rows: AMD and Hygon share the
 *  family numbers). @p first_ref (may be NULL) gets the reference of the first matching row,
 *  or NULL. */
uint32_t pmu_quirks_lookup(enum pmu_quirk_scope scope, enum cpu_vendor vendor, uint32_t family,
                           uint32_t model, const char **first_ref);

#endif
