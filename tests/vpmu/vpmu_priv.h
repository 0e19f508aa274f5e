/** @file
 * Internal state of the virtual PMU, shared by tests/vpmu/vpmu_*.c. One instance: the model
 * is one logical CPU.
 */
#ifndef PMUCAL_VPMU_PRIV_H
#define PMUCAL_VPMU_PRIV_H

#include "tests/vpmu/vpmu.h"
#include "tests/vpmu/vpmu_regs.h"

#define VP_MAX_GP    8
#define VP_MAX_FIXED 4
#define VP_MAX_LBR   64
#define VP_MAX_POKE  64
#define VP_LOG_MAX   4096
#define VP_VEC_GP    13 /* [SDM-3A] #GP */

struct vp_state {
        const struct vpmu_part *p;
        struct vpmu_faults      f;
        struct vpmu_stats       stats;
        /* core counters: Intel GP / AMD; fixed (Intel) */
        uint64_t ctr[VP_MAX_GP], sel[VP_MAX_GP], frac[VP_MAX_GP];
        uint64_t fctr[VP_MAX_FIXED], ffrac[VP_MAX_FIXED], fctl;
        uint64_t gctl, gstatus;
        uint64_t misc_enable, debugctl;
        uint64_t tsc_last;         /* host TSC the model last counted up to */
        int64_t  tsc_adj;          /* the model's TSC less the host's (vpmu_tsc) */
        bool     stall_armed;      /* the stall or descheduling fault has yet to strike */
        /* PEBS */
        uint64_t ds_area, pebs_enable, data_cfg, ldlat;
        uint32_t pebs_armed;       /* GP counters whose next qualifying event records */
        /* LBR */
        uint64_t lbr_from[VP_MAX_LBR], lbr_to[VP_MAX_LBR], lbr_info[VP_MAX_LBR];
        uint64_t lbr_tos, lbr_select, lbr_ctl, lbr_depth;
        bool     lbr_frozen;
        /* IBS */
        uint64_t ibs_fetch_ctl, ibs_fetch_linad, ibs_fetch_physad, ibs_fetch_extd;
        uint64_t ibs_op_ctl, ibs_op_rip, ibs_op_data, ibs_op_data2, ibs_op_data3, ibs_op_data4;
        uint64_t ibs_dc_linad, ibs_dc_physad, ibs_br_target, ibs_ctl;
        uint64_t ibs_op_cnt, ibs_fetch_cnt;
        uint64_t n_ibs_loads;     /* load samples tagged (the no-data faults' clock) */
        uint64_t ibs_op_frac, ibs_fetch_frac; /* the IBS count faults' carry (ppm) */
        uint64_t n_ibs_fetches;   /* fetch samples taken (the fetch faults' clock) */
        uint64_t n_pebs_split;    /* records at the fault level (the split fault's clock) */
        uint64_t n_pebs_src;      /* records at the fault level (the source fault's clock) */
        uint64_t n_tlb_loads;     /* load samples of IBS or PEBS (the TLB fault's clock) */
        bool     ibs_op_tag;       /* the next op is tagged */
        /* APIC */
        uint32_t lvt_pmc, eilvt[4];
        cpu_pmi_fn pmi_fn;
        void       *pmi_ctx;
        bool        in_pmi;
        uint64_t    skid_max;
        uint64_t    rng;
        /* anything a test poked */
        struct { uint32_t msr; uint64_t val; } poke[VP_MAX_POKE];
        unsigned n_poke;
        struct { uint32_t msr; uint64_t val; } log[VP_LOG_MAX];
        size_t   n_log;
        unsigned last_vector;
};

extern struct vp_state vp;

/* vpmu_clock.c */
/** The host's TSC. */
uint64_t vp_tsc(void);
/** Host TSC ticks per millisecond (measured once against CLOCK_MONOTONIC). */
uint64_t vp_tsc_per_ms(void);
uint64_t vp_ticks_of_us(uint64_t us);
/** The model's TSC at the instant the counters were last brought up to. */
uint64_t vp_tsc_model(void);
/** Start the clock (vpmu_init): the model has counted up to now. */
void     vp_clock_start(void);
/** Host ticks the test thread executed since the model last counted, and the model has
 *  counted up to now: the ticks in which it did not run are measured into vp.stats and the
 *  model's TSC skips them. */
uint64_t vp_clock_ran(void);
/** The host time since the model last counted is not the program's: the model's TSC skips
 *  it (see vpmu_tsc). */
void     vp_clock_skip(void);
/** The test thread executes for @p us of its CPU time (a stall of the core). */
void     vp_spin_us(uint64_t us);
/** The test thread sleeps @p us (the host takes the CPU away); returns the TSC ticks of CPU
 *  time the sleep's system call took the thread. */
uint64_t vp_sleep_us(uint64_t us);

/* vpmu_core.c */
uint64_t vp_rand(void);
uint64_t vp_width_mask(unsigned bits);
bool     vp_amd(void);
/** Number of core (GP / AMD) counters of the part. */
unsigned vp_n_gp(void);
/** The part has global control/status (Intel v2+, AMD PerfMonV2). */
bool     vp_has_global(void);
/** Count the time the test thread executed since the model last ran as cycles of step @p s
 *  (see vpmu_core.c). */
void     vp_accrue(const struct vpmu_step *s);
/** The stall and descheduling faults strike here if vp.f.stall_at is @p at (once an arming),
 *  the span counted as step @p s's. */
void     vp_stall_point(enum vpmu_stall_at at, const struct vpmu_step *s);
/** The step the harness itself runs as (MSR accesses, PMIs outside a workload). */
extern const struct vpmu_step vp_harness_step;

/* Charge the harness's own code (see VP_PMI_ENTRY_INSNS ... in vpmu.h). */
void vp_harness_cost(uint64_t insns, uint64_t branches, uint64_t cycles);
/** What counter c counts (GP 0-7 at c, fixed j at VP_MAX_GP + j), VE__COUNT when it does not
 *  count: derived again only when the registers it depends on change. */
#define VP_N_CTR (VP_MAX_GP + VP_MAX_FIXED)
const uint8_t *vp_active_events(void);
/** Counter c never counts (a dead-counter fault). */
bool     vp_ctr_dead(unsigned c);
/** Events until counter c wraps (1 .. 2^width). */
uint64_t vp_ctr_room(unsigned c);
/** Add @p n events of @p ev to counter c through the count fault; it must not wrap. */
void     vp_ctr_add(unsigned c, enum vpmu_ev ev, uint64_t n);
/** The per-op events of @p op (the rest zero). */
void     vp_op_counts(const struct vpmu_op *op, uint64_t cnt[VE__COUNT]);
/** Retire one op: PEBS records armed for it, its counts, IBS. */
void     vp_retire_op(const struct vpmu_op *op, const struct vpmu_step *s);

/* vpmu_runs.c */
/** Retire the ops of step @p s (n[VE_OPS] of them through op_at). */
void     vp_retire_ops(const struct vpmu_step *s);

/* vpmu_pmi.c */
/** Raise a PMI through the LVT PMC entry (or the extended entry @p eilvt >= 0), with the
 *  interrupted RIP @p rip. Honors the LVT mask, lost-PMI faults; sets the mask on delivery. */
void vp_pmi(uint64_t rip, int eilvt);
/** Interrupted RIP of a PMI raised during step @p s (skid distribution and faults). */
uint64_t vp_pmi_rip(const struct vpmu_step *s);

/* vpmu_pebs.c */
bool vp_pebs_rd(uint32_t msr, uint64_t *v);
int  vp_pebs_wr(uint32_t msr, uint64_t v);       /* 1 handled, 0 not mine, -1 #GP */
/** Counter @p n of a PEBS event overflowed: the next qualifying event writes a record. */
void vp_pebs_overflow(unsigned n);
/** A qualifying event of GP counter @p n happened at @p op (NULL: no memory info). */
void vp_pebs_event(unsigned n, const struct vpmu_op *op, const struct vpmu_step *s);
uint16_t vp_load_latency(const struct vpmu_op *op);

/* vpmu_lbr.c */
bool vp_lbr_rd(uint32_t msr, uint64_t *v);
int  vp_lbr_wr(uint32_t msr, uint64_t v);
bool vp_lbr_recording(void);
void vp_lbr_push(const struct vpmu_branch *b);
void vp_lbr_freeze(void);

/* vpmu_ibs.c */
bool vp_ibs_rd(uint32_t msr, uint64_t *v);
int  vp_ibs_wr(uint32_t msr, uint64_t v);
bool vp_ibs_op_on(void);
/** Count @p n IBS op-counter units (ops or cycles); @p op is the op retiring (NULL: none). */
void vp_ibs_op_count(uint64_t n, const struct vpmu_op *op, const struct vpmu_step *s);
void vp_ibs_fetch_count(uint64_t n, const struct vpmu_step *s);
/* Instruction fetches of a step (the IBS fetch counter's event). */
uint64_t vp_fetches(const struct vpmu_step *s);
/** Ops that can retire before one makes IBS act (sets or takes the tag); UINT64_MAX when
 *  retiring ops does nothing to IBS. */
uint64_t vp_ibs_op_room(void);

#endif
