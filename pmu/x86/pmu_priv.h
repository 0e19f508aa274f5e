/** @file
 * Internal: the driver interface behind pmu/x86/pmu.c, implemented by pmu/x86/drv_intel.c and
 * pmu/x86/drv_amd.c. Only pmu.c calls these; everything else uses pmu.h.
 */
#ifndef PMUCAL_PMU_PRIV_H
#define PMUCAL_PMU_PRIV_H

#include "pmu/pmu.h"

/** Software copies of what the drivers last wrote, so start/stop need no read-back. */
struct pmu_state {
        struct pmu_caps caps;
        uint64_t        evtsel[PMU_MAX_GP];   /* as written, without EN on v1/legacy */
        uint64_t        start[PMU_MAX_GP];    /* initial values (AMD legacy overflow) */
        uint32_t        programmed;           /* bit n: GP n has been programmed */
        uint64_t        fixed_ctrl;           /* IA32_FIXED_CTR_CTRL */
        uint64_t        global_ctrl;          /* enabled counters, counter-mask layout */
};

/** The counter MSRs as found before pmucal touched them (pmu_init saves, pmu_restore puts
 *  them back). */
struct pmu_saved {
        bool            valid;
        enum cpu_vendor vendor;    /* of the CPU saved from */
        uint32_t        signature;
        uint64_t        global_ctrl;
        uint64_t evtsel[PMU_MAX_GP], ctr[PMU_MAX_GP];
        uint64_t fixed_ctrl, fixed[PMU_MAX_FIXED];
};

struct pmu_driver {
        const char *name;
        /** Fill caps from @p ci and probing; ST_UNSUPPORTED with caps->reason if no PMU. */
        status_t (*probe)(struct pmu_caps *caps, const struct cpu_info *ci);
        status_t (*program)(struct pmu_state *st, struct pmu_slot s,
                            const struct pmu_event_desc *ev, unsigned flags, uint64_t start);
        status_t (*start)(struct pmu_state *st, uint64_t mask);
        status_t (*stop)(struct pmu_state *st, uint64_t mask);
        status_t (*read)(struct pmu_state *st, struct pmu_slot s, uint64_t *out);
        status_t (*write)(struct pmu_state *st, struct pmu_slot s, uint64_t val);
        status_t (*ovf_status)(struct pmu_state *st, uint64_t *out);
        status_t (*ovf_clear)(struct pmu_state *st, uint64_t mask);
        status_t (*reset)(struct pmu_state *st);
        /** Read every counter MSR reset() and program() write into @p sv. */
        status_t (*save)(struct pmu_state *st, struct pmu_saved *sv);
        /** Write @p sv back, the global enable last. */
        status_t (*restore)(struct pmu_state *st, const struct pmu_saved *sv);
};

extern const struct pmu_driver pmu_drv_intel;
extern const struct pmu_driver pmu_drv_amd;

#endif
