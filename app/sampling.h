/** @file
 * The sampling phase's internals (app/sampling*.c): one session per mechanism, each a small
 * state machine over MSR snapshots, and the log of validation verdicts that becomes
 * sampling-validation.json. A session's probe decides from CPUID (struct cpu_info) and
 * rdmsr_safe whether the mechanism can run and says why not; arm / on_pmi / disarm program
 * it through wrmsr_safe and take samples in the PMI. The handlers use the *_safe accessors
 * (not plain RDMSR) so that host tests drive them with the register model tests/fake_msr.c;
 * that costs a few cycles per sample, which the benchmark's interrupt cost includes.
 * Handler bodies never print or allocate: buffers are given at arm time. Portable.
 */
#ifndef PMUCAL_APP_SAMPLING_H
#define PMUCAL_APP_SAMPLING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"
#include "boot/x86/cpuid.h"
#include "pmu/x86/ibs.h"
#include "pmu/x86/lbr.h"
#include "pmu/x86/pebs.h"
#include "pmu/pmu.h"
#include "report/rep.h"
#include "report/levels.h"
#include "report/samples.h"

#define SMP_MAX_CHECKS  96
#define SMP_MAX_FIGURES 32
#define SMP_WHY_BYTES   160

/* ---- the verdict log: sampling-validation.json ------------------------------------------ */

/** One validation check as printed and saved. */
struct smp_check {
        const char        *mech;      /* "ibs-op", "ibs-fetch", "pebs", "lbr" (static) */
        char               name[48];  /* "addresses ws=32K" */
        struct rep_verdict v;
};

/** One measured figure (samples taken, decode rate, interrupt cost). */
struct smp_figure {
        const char *mech;
        char        name[48];
        uint64_t    value;
        const char *unit;             /* static */
};

/** Everything the phase checked; written as sampling-validation.json. */
struct smp_log {
        struct smp_check  checks[SMP_MAX_CHECKS];
        size_t            n_checks, n_lost; /* n_lost: checks that did not fit */
        struct smp_figure figs[SMP_MAX_FIGURES];
        size_t            n_figs;
        const char       *levels_source;    /* "latency phase" or "fixed fallback ..." */
};

/** Record @p v under @p mech / @p name and print it as a PASS/FAIL/SKIP line with measured
 *  vs expected (through rep_check / rep_skip, so it counts in the summary). */
void smp_log_check(struct smp_log *lg, const char *mech, const char *name,
                   const struct rep_verdict *v);
/** Record and print a SKIP of @p mech / @p name with the reason @p why. */
void smp_log_skip(struct smp_log *lg, const char *mech, const char *name, const char *why);
/** Record a figure (printed as INFO). */
void smp_log_figure(struct smp_log *lg, const char *mech, const char *name, uint64_t value,
                    const char *unit);
/** Write @p lg as schema pmucal.sampling-validation/1 into @p out (appended). */
status_t smp_json_write(const struct smp_log *lg, struct rep_buf *out);

/* ---- the plan: working sets and latency buckets from the latency table ------------------ */

/** One working set of the chase, inside one level of the expected-latency table. */
struct smp_ws {
        char               name[8];      /* the level's name: "L1", "L2", "DRAM" */
        uint64_t           bytes;        /* working set */
        enum psample_level level;        /* what the data source should say */
        uint32_t           lat_lo, lat_hi; /* accepted miss latency, cycles (tolerance in) */
        uint32_t           p50_cycles;   /* the chase latency of the level */
};

/** Working sets and buckets for every level. */
struct smp_plan {
        struct smp_ws         ws[LAT_MAX_LEVELS];
        size_t                n;
        struct rep_lat_bucket buckets[LAT_MAX_LEVELS];
        size_t                n_buckets;
        bool                  fallback;   /* no latency table: fixed levels */
        bool                  tsc_cycles; /* cycles above are TSC ticks (table clock
                                             LAT_CLOCK_TSC), not the core cycles IBS and
                                             PEBS report: convert with smp_plan_core_cycles */
        uint64_t              clock_hz;   /* rate of the table's cycles; 0 = unknown */
        char                  lat_note[96]; /* how the ranges were made core cycles */
};

/** Largest working set the phase allocates. */
#define SMP_WS_MAX_BYTES (256ull * MiB)

/** Build the plan from @p l (NULL, or a table without a hierarchy: the fixed fallback of
 *  L1 16K/5, L2 256K/14, L3 4M/45, DRAM 128M/250 cycles). Latency tolerance: the level's
 *  bucket (between the neighbouring bounds) widened by a quarter on each side. */
void smp_plan_build(const struct lat_levels *l, struct smp_plan *out);

/** @p in with every latency (p50, accepted range, bucket bounds) in core cycles, into @p out
 *  (may not alias @p in), and out->lat_note saying how. A plan already in core cycles is
 *  copied. A TSC-tick plan is scaled by @p core_per_tsc_q16 (core cycles per TSC tick, Q16,
 *  measured over the sampled run by @p ratio_src, e.g. "APERF/MPERF"); when that is 0
 *  (unknown) the accepted ranges are widened to half the low and twice the high bound, which
 *  covers core:TSC ratios of 0.5 .. 2, and the note says so. */
void smp_plan_core_cycles(const struct smp_plan *in, uint32_t core_per_tsc_q16,
                          const char *ratio_src, struct smp_plan *out);

/** Append the cycles-per-block report (Caliper "Cycles Per Bundle", from LBR) of @p st to
 *  @p out, naming blocks by @p syms (ascending addr). */
status_t smp_lbr_block_report(const struct lbr_block_stat *st, size_t n_st,
                              const struct rep_sym *syms, size_t n_syms, struct rep_buf *out);

/* ---- AMD IBS ---------------------------------------------------------------------------- */

/** An IBS session: op and/or fetch sampling through the extended LVT entry IBS_CTL names. */
struct smp_ibs {
        struct pmu_ibs_info        info;
        struct pmu_ibs_lvt         lvt;        /* from IBS_CTL at probe time */
        uint64_t                   op_ctl, fetch_ctl; /* as armed; 0 = that side is off */
        struct pmu_ibs_op_regs    *ops;        /* caller's buffers */
        size_t                     op_cap, n_op;
        struct pmu_ibs_fetch_regs *fetches;
        size_t                     fetch_cap, n_fetch;
        uint64_t                   op_tail;    /* ops/cycles counted after the last sample */
        uint64_t                   n_pmi, n_spurious, n_dropped, n_errors;
        char                       why[SMP_WHY_BYTES];
};

/** Decide whether IBS can run on the CPU @p cpu describes: CPUID, then IBS_CTL. ST_UNSUPPORTED
 *  with @p s->why when it cannot (no IBS; Fam10h needs northbridge PCI config 0x1CC, which the
 *  harness cannot reach; the firmware left LvtOffsetVal clear). */
status_t smp_ibs_probe(const struct cpu_info *cpu, struct smp_ibs *s);
/** Start sampling with control values @p op_ctl / @p fetch_ctl (0 = leave that side off). */
status_t smp_ibs_arm(struct smp_ibs *s, uint64_t op_ctl, uint64_t fetch_ctl);
/** The PMI body: for each side with its Val bit set, read the sample registers, store them
 *  (counted as dropped when the buffer is full) and re-arm. No Val bit set: spurious. */
void smp_ibs_on_pmi(struct smp_ibs *s);
/** Stop both sides (the family's disable sequence) and note the ops counted since the last
 *  sample in @p s->op_tail. */
status_t smp_ibs_disarm(struct smp_ibs *s);

/* ---- Intel PEBS load latency ------------------------------------------------------------ */

/** A PEBS load-latency session on general counter 0 with the harness's own DS area. */
struct smp_pebs {
        struct pmu_pebs_fmt          fmt;
        unsigned                     pmu_version;
        const struct pmu_event_desc *ev;          /* MEM_TRANS_RETIRED.LOAD_LATENCY_GT_* */
        struct pmu_ds_area          *ds;          /* caller-allocated, page aligned */
        uint8_t                     *buf;         /* PEBS buffer (DS base .. maximum) */
        size_t                       buf_bytes;
        uint32_t                     rec_bytes;
        uint8_t                     *raw;         /* drained records, caller-allocated */
        size_t                       raw_cap, raw_len;
        uint64_t                     period;
        uint32_t                     ldlat_cycles;
        uint64_t                     saved_ds_area, saved_pebs_enable;
        uint64_t                     n_pmi, n_spurious, n_dropped, n_errors, n_records;
        char                         why[SMP_WHY_BYTES];
};

/** Decide whether PEBS load latency can run: Intel, DS and DTES64 from CPUID, a core PMU
 *  (pmu_init done), PERF_CAPABILITIES' PEBS format, IA32_MISC_ENABLE's PEBS-unavailable bit
 *  clear, a load-latency event in the CPU's event table, a data-source table for the model.
 *  ST_UNSUPPORTED with @p s->why otherwise. */
status_t smp_pebs_probe(const struct cpu_info *cpu, struct smp_pebs *s);
/** Point the DS area at @p s->buf, program counter 0 for the load-latency event with
 *  -@p period and threshold @p ldlat_cycles, enable PEBS and start the counter. */
status_t smp_pebs_arm(struct smp_pebs *s, uint64_t period, uint32_t ldlat_cycles);
/** The PMI body: on GLOBAL_STATUS bit 62 (DS buffer) or the counter's bit, copy the records
 *  base .. index into @p s->raw, reset the index, clear the status bits. */
void smp_pebs_on_pmi(struct smp_pebs *s);
/** Stop the counter, drain what is left, put DS_AREA and PEBS_ENABLE back. */
status_t smp_pebs_disarm(struct smp_pebs *s);
/** Which data-source table model @p model (family 6) uses; false when not in the table. */
bool smp_pebs_model_dse(uint32_t model, enum pmu_pebs_dse_kind *kind, bool *split_latency);
/** The load-latency event of event table @p t, looked up by perf name
 *  (MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4 and its Nehalem and Atom counterparts); NULL when the
 *  table has none (the generic intel-arch table never has: the event is model-specific). */
const struct pmu_event_desc *smp_pebs_ldlat_event(const struct pmu_event_table *t);

/* ---- Intel LBR -------------------------------------------------------------------------- */

#define SMP_LBR_MAX_DEPTH 64

/** An LBR session: the stack read in the PMI of a cycles counter, frozen on PMI. */
struct smp_lbr {
        struct pmu_lbr_fmt fmt;
        unsigned           pmu_version;
        uint32_t           from_base, to_base, info_base; /* MSR numbers of entry 0 */
        const struct pmu_event_desc *ev;                  /* trigger: "cycles" */
        uint64_t           period;
        uint64_t           saved_debugctl, saved_select, saved_ctl;
        struct lbr_entry  *stacks;      /* caller's: stack_cap stacks of fmt.depth entries */
        unsigned          *stack_n;     /* entries in each stack */
        size_t             stack_cap, n_stacks;
        uint64_t           n_pmi, n_spurious, n_dropped, n_errors;
        char               why[SMP_WHY_BYTES];
};

/** Decide whether LBR with cycle counts can run: Architectural LBR from CPUID 0x1C, or legacy
 *  LBR with a format carrying cycles and a stack depth from the model table. ST_UNSUPPORTED
 *  with @p s->why otherwise. Needs pmu_init for the trigger counter. */
status_t smp_lbr_probe(const struct cpu_info *cpu, struct smp_lbr *s);
/** Enable LBR for all branches at CPL 0 with freeze-on-PMI and start counter 0 on cycles with
 *  -@p period. */
status_t smp_lbr_arm(struct smp_lbr *s, uint64_t period);
/** The PMI body: read TOS and FROM/TO/INFO (frozen), store the decoded stack, re-arm the
 *  counter, clear its status and unfreeze the LBRs. */
void smp_lbr_on_pmi(struct smp_lbr *s);
/** Stop the counter and put DEBUGCTL / LBR_SELECT / LBR_CTL back. */
status_t smp_lbr_disarm(struct smp_lbr *s);
/** Legacy LBR stack depth of Intel family-6 model @p model; 0 when not in the table. */
unsigned smp_lbr_model_depth(uint32_t model);

#endif
