/** @file
 * IBS op sampling, one module from the control register to the portable sample: the IbsOpCtl
 * encoder and the period arithmetic of its counter, the session's op side (arm, the PMI's
 * register reads and re-arm, disarm with the family's disable sequence) and the family-aware
 * decoder that turns a raw snapshot of the op registers into named fields and into a struct
 * psample. The shared part (detection, the session, IBS_CTL) is pmu/x86/ibs.h.
 */
#ifndef PMUCAL_PMU_X86_IBS_OP_H
#define PMUCAL_PMU_X86_IBS_OP_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/x86/ibs.h"

/** The raw registers of one op sample, read by the handler after IbsOpCtl[IbsOpVal]. */
struct pmu_ibs_op_regs {
        uint64_t op_ctl, op_rip, op_data, op_data2, op_data3;
        uint64_t dc_linad, dc_physad;
        uint64_t br_target;       /* only with IBS_CAPS_BRNTRGT, else 0 */
        uint64_t op_data4;        /* only with IBS_CAPS_OPDATA4, else 0 */
};

/** A decoded op sample: every field the seeds and the PPR/BKDG define. */
struct pmu_ibs_op {
        bool     valid;                    /* IbsOpVal */
        uint64_t rip;
        bool     rip_valid;                /* !IbsRipInvalid (where the CPU reports it) */
        uint16_t comp_to_ret_cycles, tag_to_ret_cycles;
        bool     op_return, brn_taken, brn_misp, brn_ret, brn_fuse, microcode;
        bool     brn_resync, misp_return;  /* Fam10h only */
        uint64_t br_target;
        bool     br_target_valid;
        /* IbsOpData2 */
        bool     data_src_valid;           /* load op, and not erratum 1293 */
        uint8_t  data_src;                 /* NbIbsReqSrc / DataSrc incl. Zen 4 bits [4:3] */
        bool     rmt_node;
        bool     cache_hit_st_valid, cache_hit_st_o; /* true: O state, false: M state */
        /* IbsOpData3 */
        bool     ld_op, st_op;
        bool     dc_l1tlb_miss, dc_l2tlb_miss;
        bool     dc_l1tlb_hit_2m, dc_l1tlb_hit_1g, dc_l2tlb_hit_2m, dc_l2tlb_hit_1g;
        enum psample_pgsz dc_pgsz;         /* from the hit bits; unknown after an L2 miss */
        bool     dc_miss, dc_mis_acc, dc_wc_mem_acc, dc_uc_mem_acc, dc_locked_op;
        bool     dc_miss_no_mab_alloc;     /* Fam10h: IbsDcMabHit */
        bool     dc_ld_bnk_con, dc_st_bnk_con, dc_st_to_ld_fwd, dc_st_to_ld_can; /* Fam10h */
        bool     l2_miss_known, l2_miss;   /* Fam17h+ */
        bool     sw_pf;
        uint8_t  op_mem_width_bytes;       /* 0 = not reported */
        uint8_t  dc_miss_open_mem_reqs;
        uint16_t dc_miss_lat_cycles;
        bool     tlb_refill_lat_known;
        uint16_t tlb_refill_lat_cycles;    /* Fam17h+: L1 DTLB refill */
        uint64_t dc_linad, dc_physad;
        bool     dc_lin_addr_valid, dc_phy_addr_valid;
        bool     ld_resync;                /* IbsOpData4 */
};

/** How the op sampling period counts. */
enum pmu_ibs_op_count { PMU_IBS_COUNT_CYCLES = 0, PMU_IBS_COUNT_DISPATCHED_OPS };

/** Op-sampling options beyond the period. */
struct pmu_ibs_op_opts {
        enum pmu_ibs_op_count count;
        bool     l3_miss_only;             /* IBS_CAPS_ZEN4 */
        uint32_t ldlat_cycles;             /* 0 = off; else 128..2048 step 128 (OPLDLAT) */
};

/** IbsOpCtl for a period of @p period cycles or dispatched ops (multiple of 16, from 16 to
 *  0xffff0, or to 0x7fffff0 with OpCntExt), enabled. ST_BAD_ARG for a bad period or
 *  threshold; ST_UNSUPPORTED when the CPU lacks a feature @p opts asks for. */
status_t pmu_ibs_op_ctl_encode(const struct pmu_ibs_info *ibs, uint64_t period,
                               const struct pmu_ibs_op_opts *opts, uint64_t *out);

/** The period (cycles or ops) an IbsOpCtl value was programmed with (MaxCnt << 4). */
uint64_t pmu_ibs_op_ctl_period(const struct pmu_ibs_info *ibs, uint64_t op_ctl);
/** Ops/cycles counted since the last arm, from an IbsOpCtl read in the handler: the full
 *  period when IbsOpVal is set, else IbsOpCurCnt without its random low 7 bits (a multiple
 *  of 128) where readable (RdWrOpCnt), else 0. */
uint64_t pmu_ibs_op_ctl_count(const struct pmu_ibs_info *ibs, uint64_t op_ctl);

/** The IbsOpCtl value that re-arms sampling after a sample: @p armed with Val cleared and,
 *  in dispatched-op mode with RdWrOpCnt, the random CurCnt bits of @p read kept (ibs_op.c). */
uint64_t pmu_ibs_op_ctl_rearm(const struct pmu_ibs_info *ibs, uint64_t armed, uint64_t read);

/** Ops a re-arm value @p op_ctl starts its period with: the carried random CurCnt[6:0]
 *  (0 .. 127), so that the period it samples after is the programmed one less these. */
uint64_t pmu_ibs_op_ctl_carried(uint64_t op_ctl);
/** Twice the mean ops (or cycles) per sample of IbsOpCtl @p op_ctl as re-armed by the
 *  session: 2 x period, less 127 (twice the mean of the random CurCnt[6:0], uniform in
 *  0 .. 127) where the re-arm carries them (pmu_ibs_op_ctl_rearm). Twice, to stay integer. */
uint64_t pmu_ibs_op_mean_period_x2(const struct pmu_ibs_info *ibs, uint64_t op_ctl);
/** The writes that disable op sampling given the current IbsOpCtl, in order: on Fam10h
 *  (erratum 420) first without MaxCnt, then without En. Returns the count (1-2). */
unsigned pmu_ibs_op_disable_seq(const struct pmu_ibs_info *ibs, uint64_t op_ctl,
                                uint64_t out[2]);

/** Decode an op sample. ST_BAD_ARG for NULL; @p out->valid mirrors IbsOpVal. */
status_t pmu_ibs_op_decode(const struct pmu_ibs_info *ibs, const struct pmu_ibs_op_regs *r,
                           struct pmu_ibs_op *out);
/** The memory level of a decoded op, following Linux ibs.c perf_ibs_get_mem_lvl. */
enum psample_level pmu_ibs_op_level(const struct pmu_ibs_info *ibs, const struct pmu_ibs_op *op,
                                    bool *remote);

/** Convert a decoded op into the common sample. ST_UNSUPPORTED when the op is not valid. */
status_t pmu_ibs_op_to_psample(const struct pmu_ibs_info *ibs, const struct pmu_ibs_op *op,
                               struct psample *out);

/** Start op sampling of session @p s with control value @p op_ctl (Val and CurCnt are
 *  cleared): a new run (no sample taken, nothing counted), then IbsOpCtl is written. Fetch
 *  sampling, armed or not, is left as it is. ST_BAD_ARG for NULL or 0. */
status_t pmu_ibs_op_arm(struct pmu_ibs_session *s, uint64_t op_ctl);
/** The PMI's op side: when IbsOpVal is set, read the sample's registers into s->ops (counted
 *  as dropped when the buffer is full) and re-arm. False when there was no op sample. */
bool pmu_ibs_op_take(struct pmu_ibs_session *s);
/** Stop op sampling (the family's disable sequence) and note the ops counted since the last
 *  sample in @p s->op_tail. The first write that faulted, else ST_OK; ST_OK when not armed. */
status_t pmu_ibs_op_disarm(struct pmu_ibs_session *s);

#endif
