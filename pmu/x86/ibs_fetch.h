/** @file
 * IBS fetch sampling, one module from the control register to the decoded sample: the
 * IbsFetchCtl encoder and period arithmetic, the session's fetch side (arm, the PMI's register
 * reads and re-arm, disarm) and the family-aware decoder of a raw snapshot of the fetch
 * registers. The shared part (detection, the session, IBS_CTL) is pmu/x86/ibs.h.
 */
#ifndef PMUCAL_PMU_X86_IBS_FETCH_H
#define PMUCAL_PMU_X86_IBS_FETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/x86/ibs.h"

/** The raw registers of one fetch sample, read after IbsFetchCtl[IbsFetchVal]. */
struct pmu_ibs_fetch_regs {
        uint64_t fetch_ctl, fetch_linad, fetch_physad;
        uint64_t fetch_ctl_extd;  /* only with IBS_CAPS_FETCHCTLEXTD, else 0 */
};

/** A decoded fetch sample. */
struct pmu_ibs_fetch {
        bool     valid, complete;          /* IbsFetchVal, IbsFetchComp */
        uint16_t max_cnt, cnt;
        uint16_t lat_cycles;               /* IbsFetchLat */
        bool     ic_miss_known, ic_miss;
        bool     phy_addr_valid;
        uint64_t linad, physad;
        uint32_t l1tlb_page_kib;           /* 4, 16, 2048, 1048576; 0 unknown */
        bool     l1tlb_miss, l2tlb_miss;
        bool     rand_en, l2_miss, l3_miss_only, oc_miss, l3_miss;
        bool     itlb_refill_lat_known;
        uint16_t itlb_refill_lat_cycles;   /* IbsFetchCtlExtd */
        bool     drop;                     /* erratum 1197: RIP 0, discard */
};

/** IbsFetchCtl for a fetch period of @p period fetches (multiple of 16, 16..0xffff0), enabled,
 *  optionally with RandEn (hardware randomises period bits [3:0]) and L3MissOnly (ZEN4).
 *  ST_BAD_ARG for a bad period, ST_UNSUPPORTED when fetch sampling or L3MissOnly is absent. */
status_t pmu_ibs_fetch_ctl_encode(const struct pmu_ibs_info *ibs, uint64_t period,
                                  bool randomize, bool l3_miss_only, uint64_t *out);

/** The period (fetches) an IbsFetchCtl value was programmed with. */
uint64_t pmu_ibs_fetch_ctl_period(uint64_t fetch_ctl);
/** Twice the mean fetches per sample of IbsFetchCtl @p fetch_ctl: 2 x period, less 15 with
 *  IbsRandEn (IbsFetchCnt[3:0] start random, uniform in 0 .. 15, at each enable). */
uint64_t pmu_ibs_fetch_mean_period_x2(uint64_t fetch_ctl);

/** The writes that disable fetch sampling given the current IbsFetchCtl, in order: on Fam10h
 *  (erratum 420) first without MaxCnt, then without En. Returns the count (1-2). */
unsigned pmu_ibs_fetch_disable_seq(const struct pmu_ibs_info *ibs, uint64_t fetch_ctl,
                                   uint64_t out[2]);

/** Decode a fetch sample. */
status_t pmu_ibs_fetch_decode(const struct pmu_ibs_info *ibs,
                              const struct pmu_ibs_fetch_regs *r, struct pmu_ibs_fetch *out);

/** Start fetch sampling of session @p s with control value @p fetch_ctl (Val and Cnt are
 *  cleared): a new run (no sample taken, nothing counted), then IbsFetchCtl is written; on a
 *  fault the fetch side is disarmed again. Op sampling, armed or not, is left as it is.
 *  ST_BAD_ARG for NULL or 0. */
status_t pmu_ibs_fetch_arm(struct pmu_ibs_session *s, uint64_t fetch_ctl);
/** The PMI's fetch side: when IbsFetchVal is set, read the sample's registers into
 *  s->fetches (counted as dropped when the buffer is full) and re-arm. False when there was
 *  no fetch sample. */
bool pmu_ibs_fetch_take(struct pmu_ibs_session *s);
/** Stop fetch sampling (the family's disable sequence). The first write that faulted, else
 *  ST_OK; ST_OK when not armed. */
status_t pmu_ibs_fetch_disarm(struct pmu_ibs_session *s);

#endif
