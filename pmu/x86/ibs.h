/** @file
 * AMD Instruction-Based Sampling, the pure part: capability detection from the decoded CPUID
 * (struct cpu_info.amd), encoders for IbsFetchCtl / IbsOpCtl, the IBS_CTL LVT-offset and
 * extended-APIC LVT words, and family-aware decoders that turn a raw MSR snapshot taken in
 * the interrupt handler into named fields and into a struct psample. No MSR is touched here:
 * the runtime reads the registers listed in struct pmu_ibs_op_regs / pmu_ibs_fetch_regs in
 * its handler and passes the values in. Layouts: pmu/x86/msr_ibs.h.
 */
#ifndef PMUCAL_IBS_H
#define PMUCAL_IBS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/status.h"
#include "boot/x86/cpuid.h"
#include "pmu/x86/msr_ibs.h"
#include "pmu/x86/quirks.h"
#include "pmu/psample.h"

/** What this CPU's IBS can do, and the family/model the decoders key their quirks on. */
struct pmu_ibs_info {
        bool     present;         /* CPUID.80000001H:ECX[10] */
        uint32_t caps;            /* IBS_CAPS_*; IBS_CAPS_DEFAULT when the leaf is absent */
        uint32_t family, model;
        unsigned quirks;          /* PMU_IBS_Q_* from the quirk table pmu/x86/quirks.c */
};

/* Errata and family rules the decoders apply (one row each in ibs.c's table). */

/** The raw registers of one op sample, read by the handler after IbsOpCtl[IbsOpVal]. */
struct pmu_ibs_op_regs {
        uint64_t op_ctl, op_rip, op_data, op_data2, op_data3;
        uint64_t dc_linad, dc_physad;
        uint64_t br_target;       /* only with IBS_CAPS_BRNTRGT, else 0 */
        uint64_t op_data4;        /* only with IBS_CAPS_OPDATA4, else 0 */
};

/** The raw registers of one fetch sample, read after IbsFetchCtl[IbsFetchVal]. */
struct pmu_ibs_fetch_regs {
        uint64_t fetch_ctl, fetch_linad, fetch_physad;
        uint64_t fetch_ctl_extd;  /* only with IBS_CAPS_FETCHCTLEXTD, else 0 */
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

/** How the op sampling period counts. */
enum pmu_ibs_op_count { PMU_IBS_COUNT_CYCLES = 0, PMU_IBS_COUNT_DISPATCHED_OPS };

/** Op-sampling options beyond the period. */
struct pmu_ibs_op_opts {
        enum pmu_ibs_op_count count;
        bool     l3_miss_only;             /* IBS_CAPS_ZEN4 */
        uint32_t ldlat_cycles;             /* 0 = off; else 128..2048 step 128 (OPLDLAT) */
};

/** The IBS_CTL register: which extended LVT entry IBS interrupts through. */
struct pmu_ibs_lvt {
        unsigned offset;                   /* 0..15 */
        bool     valid;                    /* LvtOffsetVal */
};

/** Fill @p out from decoded CPUID. ST_UNSUPPORTED when the CPU is not AMD/Hygon or has no
 *  IBS (then @p out->present is false). Applies the errata table by family/model. */
status_t pmu_ibs_detect(const struct cpu_info *cpu, struct pmu_ibs_info *out);

/** IbsFetchCtl for a fetch period of @p period fetches (multiple of 16, 16..0xffff0), enabled,
 *  optionally with RandEn (hardware randomises period bits [3:0]) and L3MissOnly (ZEN4).
 *  ST_BAD_ARG for a bad period, ST_UNSUPPORTED when fetch sampling or L3MissOnly is absent. */
status_t pmu_ibs_fetch_ctl_encode(const struct pmu_ibs_info *ibs, uint64_t period,
                                  bool randomize, bool l3_miss_only, uint64_t *out);

/** IbsOpCtl for a period of @p period cycles or dispatched ops (multiple of 16, from 16 to
 *  0xffff0, or to 0x7fffff0 with OpCntExt), enabled. ST_BAD_ARG for a bad period or
 *  threshold; ST_UNSUPPORTED when the CPU lacks a feature @p opts asks for. */
status_t pmu_ibs_op_ctl_encode(const struct pmu_ibs_info *ibs, uint64_t period,
                               const struct pmu_ibs_op_opts *opts, uint64_t *out);

/** The period (cycles or ops) an IbsOpCtl value was programmed with (MaxCnt << 4). */
uint64_t pmu_ibs_op_ctl_period(const struct pmu_ibs_info *ibs, uint64_t op_ctl);
/** The period (fetches) an IbsFetchCtl value was programmed with. */
uint64_t pmu_ibs_fetch_ctl_period(uint64_t fetch_ctl);
/** Ops/cycles counted since the last arm, from an IbsOpCtl read in the handler: the full
 *  period when IbsOpVal is set, else IbsOpCurCnt without its random low 7 bits (a multiple
 *  of 128) where readable (RdWrOpCnt), else 0. */
uint64_t pmu_ibs_op_ctl_count(const struct pmu_ibs_info *ibs, uint64_t op_ctl);

/** The IbsOpCtl value that re-arms sampling after a sample: @p armed with Val cleared and,
 *  in dispatched-op mode with RdWrOpCnt, the random CurCnt bits of @p read kept (ibs.c). */
uint64_t pmu_ibs_op_ctl_rearm(const struct pmu_ibs_info *ibs, uint64_t armed, uint64_t read);

/** Ops a re-arm value @p op_ctl starts its period with: the carried random CurCnt[6:0]
 *  (0 .. 127), so that the period it samples after is the programmed one less these. */
uint64_t pmu_ibs_op_ctl_carried(uint64_t op_ctl);
/** Twice the mean ops (or cycles) per sample of IbsOpCtl @p op_ctl as re-armed by the
 *  session: 2 x period, less 127 (twice the mean of the random CurCnt[6:0], uniform in
 *  0 .. 127) where the re-arm carries them (pmu_ibs_op_ctl_rearm). Twice, to stay integer. */
uint64_t pmu_ibs_op_mean_period_x2(const struct pmu_ibs_info *ibs, uint64_t op_ctl);
/** Twice the mean fetches per sample of IbsFetchCtl @p fetch_ctl: 2 x period, less 15 with
 *  IbsRandEn (IbsFetchCnt[3:0] start random, uniform in 0 .. 15, at each enable). */
uint64_t pmu_ibs_fetch_mean_period_x2(uint64_t fetch_ctl);

/** The writes that disable op or fetch sampling given the current control value, in order:
 *  on Fam10h (erratum 420) first without MaxCnt, then without En. Returns the count (1-2). */
unsigned pmu_ibs_disable_seq(const struct pmu_ibs_info *ibs, uint64_t ctl, bool is_op,
                             uint64_t out[2]);

/** Decode IBS_CTL (MSRC001_103A). */
void pmu_ibs_ctl_decode(uint64_t ibs_ctl, struct pmu_ibs_lvt *out);

/** The 32-bit extended-APIC LVT entry word: vector, message type (APIC_EILVT_MSG_*), mask.
 *  ST_BAD_ARG for a message type the entry cannot hold. */
status_t pmu_ibs_eilvt_encode(uint8_t vector, unsigned msg_type, bool masked, uint32_t *out);
/** xAPIC MMIO offset of extended LVT entry @p offset (0x500 + 0x10 * offset). */
uint32_t pmu_ibs_eilvt_reg(unsigned offset);

/** Decode an op sample. ST_BAD_ARG for NULL; @p out->valid mirrors IbsOpVal. */
status_t pmu_ibs_op_decode(const struct pmu_ibs_info *ibs, const struct pmu_ibs_op_regs *r,
                           struct pmu_ibs_op *out);
/** Decode a fetch sample. */
status_t pmu_ibs_fetch_decode(const struct pmu_ibs_info *ibs,
                              const struct pmu_ibs_fetch_regs *r, struct pmu_ibs_fetch *out);

/** The memory level of a decoded op, following Linux ibs.c perf_ibs_get_mem_lvl. */
enum psample_level pmu_ibs_op_level(const struct pmu_ibs_info *ibs, const struct pmu_ibs_op *op,
                                    bool *remote);

/** Convert a decoded op into the common sample. ST_UNSUPPORTED when the op is not valid. */
status_t pmu_ibs_op_to_psample(const struct pmu_ibs_info *ibs, const struct pmu_ibs_op *op,
                               struct psample *out);

#endif
