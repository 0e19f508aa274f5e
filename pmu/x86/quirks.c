/** @file The x86 PMU quirk table (see pmu/x86/quirks.h). */
#include "pmu/x86/quirks.h"

#include "lib/base.h"

/** One CPU erratum or quirk; every row cites where it is written. */
struct pmu_quirk {
        enum pmu_quirk_scope scope;
        enum cpu_vendor      vendor;     /* VEN_UNKNOWN: any */
        uint32_t             family;
        uint32_t             model_lo, model_hi;
        uint32_t             flags;
        const char          *reference;
};

static const struct pmu_quirk pmu_quirks[] = {
        /* scope          vendor       fam   models       flags, reference */

        /* Nehalem: the architectural Branch Misses Retired event (CPUID.0AH:EBX[6]) does not
         * count correctly; Linux intel_nehalem_quirk() substitutes a model event. */
        { PMU_QUIRK_CORE, VEN_INTEL,   6,    0x1a, 0x1a,  PMU_Q_BR_MISS_RETIRED_BROKEN,
          "Intel erratum AAJ80 (Linux intel_nehalem_quirk)" },
        { PMU_QUIRK_CORE, VEN_INTEL,   6,    0x1e, 0x1f,  PMU_Q_BR_MISS_RETIRED_BROKEN,
          "Intel erratum AAJ80 (Linux intel_nehalem_quirk)" },
        { PMU_QUIRK_CORE, VEN_INTEL,   6,    0x2e, 0x2e,  PMU_Q_BR_MISS_RETIRED_BROKEN,
          "Intel erratum AAJ80 (Linux intel_nehalem_quirk)" },

        /* AMD IBS: errata and family rules the decoders and the session key on. */
        { PMU_QUIRK_IBS,  VEN_UNKNOWN, 0x10, 0x00, 0xff,
          PMU_IBS_Q_FAM10H_DISABLE_SEQ | PMU_IBS_Q_NB_LAYOUT,
          "Fam10h rev guide 41322 erratum 420; [BKDG-10h] NbIbsReqSrc" },
        { PMU_QUIRK_IBS,  VEN_UNKNOWN, 0x12, 0x00, 0xff,  PMU_IBS_Q_NB_LAYOUT,
          "[BKDG-12h] IbsOpData2/3" },
        { PMU_QUIRK_IBS,  VEN_UNKNOWN, 0x14, 0x00, 0xff,  PMU_IBS_Q_NB_LAYOUT,
          "[BKDG-14h] IbsOpData2/3" },
        { PMU_QUIRK_IBS,  VEN_UNKNOWN, 0x15, 0x00, 0xff,  PMU_IBS_Q_NB_LAYOUT,
          "[BKDG-15h] IbsOpData2/3" },
        { PMU_QUIRK_IBS,  VEN_UNKNOWN, 0x16, 0x00, 0xff,
          PMU_IBS_Q_NB_LAYOUT | PMU_IBS_Q_FETCH_CNT_RESET,
          "[BKDG-16h]; Linux ibs.c fetch_count_reset_broken" },
        { PMU_QUIRK_IBS,  VEN_UNKNOWN, 0x17, 0x00, 0xff,  PMU_IBS_Q_FETCH_CNT_RESET,
          "Linux ibs.c fetch_count_reset_broken" },
        { PMU_QUIRK_IBS,  VEN_UNKNOWN, 0x18, 0x00, 0xff,  PMU_IBS_Q_FETCH_CNT_RESET,
          "Linux ibs.c fetch_count_reset_broken" },
        { PMU_QUIRK_IBS,  VEN_UNKNOWN, 0x19, 0x00, 0x0f,
          PMU_IBS_Q_IGNORE_IC_MISS | PMU_IBS_Q_FETCH_PGSZ_1347 | PMU_IBS_Q_OPDATA2_1293 |
                  PMU_IBS_Q_CACHE_HIT_ST_BAD | PMU_IBS_Q_FETCH_ZERO_RIP_1197,
          "Fam19h rev guide errata 1197, 1238, 1293, 1347; Linux ibs.c" },
        { PMU_QUIRK_IBS,  VEN_UNKNOWN, 0x19, 0x20, 0x5f,  PMU_IBS_Q_CACHE_HIT_ST_BAD,
          "Linux ibs.c perf_ibs_cache_hit_st_valid" },
        /* Zen 5: the op load-latency filter may capture samples below the threshold unless
         * L3MissOnly is set too; Linux perf_ibs_init sets it on these models only. */
        { PMU_QUIRK_IBS,  VEN_UNKNOWN, 0x1a, 0x00, 0x0f,  PMU_IBS_Q_LDLAT_L3MISS_1606,
          "Fam1Ah models 00h-0Fh rev guide erratum 1606; Linux ibs.c perf_ibs_init" },
};

uint32_t pmu_quirks_lookup(enum pmu_quirk_scope scope, enum cpu_vendor vendor, uint32_t family,
                           uint32_t model, const char **first_ref)
{
        uint32_t flags = 0;

        if (first_ref)
                *first_ref = NULL;
        for (size_t i = 0; i < ARRAY_SIZE(pmu_quirks); i++) {
                const struct pmu_quirk *q = &pmu_quirks[i];

                if (q->scope != scope || (q->vendor != VEN_UNKNOWN && q->vendor != vendor) ||
                    q->family != family || model < q->model_lo || model > q->model_hi)
                        continue;
                flags |= q->flags;
                if (first_ref && !*first_ref)
                        *first_ref = q->reference;
        }
        return flags;
}
