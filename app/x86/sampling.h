/** @file
 * The sampling phase (app/sampling*.c): AMD IBS op and fetch sampling, Intel PEBS load
 * latency and LBR with cycle counts, each validated against kernels whose addresses,
 * latencies and branch costs the harness knows. One pipeline per mechanism, each readable
 * top to bottom in its own file: probe -> plan -> run -> decode -> check -> report
 * (app/sampling_{ibs_op,ibs_fetch,pebs,lbr}.c); the sessions that program the hardware are
 * pmu/x86/{ibs,pebs,lbr}_session.c, the statistics report/samples*.c. Shared below them: the verdict log
 * and its JSON (app/x86/sampling_log.c), the plan of working sets (app/x86/sampling_plan.c), and the
 * chase, the skip lists and the per-working-set checks (app/x86/sampling_common.c). The phase
 * itself (app/x86/sampling.c) calls the pipelines and nothing calls back up. Portable.
 */
#ifndef PMUCAL_APP_SAMPLING_H
#define PMUCAL_APP_SAMPLING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"
#include "boot/plat.h"
#include "bench/chase_buf.h"
#include "boot/x86/cpuid.h"
#include "pmu/pmu.h"
#include "pmu/x86/ibs_session.h"
#include "pmu/x86/lbr.h"
#include "report/rep.h"
#include "analysis/levels.h"
#include "report/x86/samples.h"

#define SAMP_MAX_CHECKS  96
#define SAMP_MAX_FIGURES 32

/* ---- the verdict log: sampling-validation.json ------------------------------------------ */

/** One validation check as printed and saved. */
struct samp_check {
        const char        *mech;      /* "ibs-op", "ibs-fetch", "pebs", "lbr" (static) */
        char               name[48];  /* "addresses ws=32K" */
        struct rep_verdict v;
};

/** One measured figure (samples taken, decode rate, interrupt cost). */
struct samp_figure {
        const char *mech;
        char        name[48];
        uint64_t    value;
        const char *unit;             /* static */
};

/** Everything the phase checked; written as sampling-validation.json. */
struct samp_log {
        struct samp_check  checks[SAMP_MAX_CHECKS];
        size_t            n_checks, n_lost; /* n_lost: checks that did not fit */
        struct samp_figure figs[SAMP_MAX_FIGURES];
        size_t            n_figs;
        const char       *levels_source;    /* "latency phase" or "CPUID caches ..." */
};

/** Record @p v under @p mech / @p name and print it as a PASS/FAIL/SKIP line with measured
 *  vs expected (through rep_check / rep_skip, so it counts in the summary). */
void samp_log_check(struct samp_log *lg, const char *mech, const char *name,
                    const struct rep_verdict *v);
/** Record and print a SKIP of @p mech / @p name with the reason @p why. */
void samp_log_skip(struct samp_log *lg, enum rep_skip_kind kind, const char *mech,
                   const char *name, const char *why);
/** Record a figure (printed as INFO). */
void samp_log_figure(struct samp_log *lg, const char *mech, const char *name, uint64_t value,
                     const char *unit);
/** Write @p lg as schema pmucal.sampling-validation/1 into @p out (appended). */
status_t samp_json_write(const struct samp_log *lg, struct rep_buf *out);

/* ---- the plan: working sets and latency buckets from the latency table ------------------ */

/** One working set of the chase, inside one level of the expected-latency table. */
struct samp_ws {
        char               name[8];      /* the level's name: "L1", "L2", "DRAM" */
        uint64_t           bytes;        /* working set */
        enum psample_level level;        /* what the data source should say */
        uint32_t           lat_lo, lat_hi; /* accepted miss latency, cycles (tolerance in) */
        uint32_t           p50_cycles;   /* the chase latency of the level */
        const char        *lat_why;      /* non-NULL: no expected latency (the latency
                                            checks SKIP with this reason; static) */
        const char        *ws_why;       /* non-NULL: no working set (every check of the
                                            level SKIPs with this reason; static) */
};

/** Working sets and buckets for every level. */
struct samp_plan {
        struct samp_ws         ws[LAT_MAX_LEVELS];
        size_t                n;
        struct rep_lat_bucket buckets[LAT_MAX_LEVELS];
        size_t                n_buckets;
        bool                  fallback;   /* no usable latency table: levels and working
                                             sets from CPUID, no latencies, no buckets */
        bool                  tsc_cycles; /* cycles above are TSC ticks (table clock
                                             LAT_CLOCK_TSC), not the core cycles IBS and
                                             PEBS report: convert with samp_plan_core_cycles */
        uint64_t              clock_hz;   /* rate of the table's cycles; 0 = unknown */
        char                  lat_note[96]; /* how the ranges were made core cycles */
};

/** Largest working set the phase allocates. */
#define SAMP_WS_MAX_BYTES (256ull * MiB)

/** Build the plan from the measured table @p l: a working set in each plateau, the accepted
 *  latency the level's bucket (between the neighbouring bounds) widened by a quarter on each
 *  side. When @p l is NULL or shows no hierarchy (fewer than two levels, or flat), the levels
 *  and working sets come from the CPUID caches of @p cpu (may be NULL) and no latency is
 *  expected: each ws's lat_why (and without CPUID caches its ws_why) says why, and the
 *  checks that need it SKIP with that reason. */
void samp_plan_build(const struct lat_levels *l, const struct cpu_info *cpu,
                     struct samp_plan *out);

/** @p in with every latency (p50, accepted range, bucket bounds) in core cycles, into @p out
 *  (may not alias @p in), and out->lat_note saying how. A plan already in core cycles is
 *  copied. A TSC-tick plan is scaled by @p core_per_tsc_q16 (core cycles per TSC tick, Q16,
 *  measured over the sampled run by @p ratio_src, e.g. "APERF/MPERF"); when that is 0
 *  (unknown) the accepted ranges are widened to half the low and twice the high bound, which
 *  covers core:TSC ratios of 0.5 .. 2, and the note says so. */
void samp_plan_core_cycles(const struct samp_plan *in, uint32_t core_per_tsc_q16,
                           const char *ratio_src, struct samp_plan *out);

/* ---- shared by the pipelines (app/x86/sampling_common.c) ------------------------------------ */

#define SAMP_MECH_IBS_OP    "ibs-op"
#define SAMP_MECH_IBS_FETCH "ibs-fetch"
#define SAMP_MECH_PEBS      "pebs"
#define SAMP_MECH_LBR       "lbr"

/* Sampled loads of the chase are those whose IP lies in the first bytes of bench_chase():
 * 32 three-byte loads plus the loop and the prologue fit well inside. */
#define SAMP_CHASE_CODE_BYTES 192u
/* Samples kept per working set, and the TLB chase's buffer (page stride). */
#define SAMP_SAMPLES_MAX      4096u
#define SAMP_SAMPLES_TARGET   2000u
#define SAMP_TLB_CHASE_BYTES  (64ull * MiB)
/* Sample counts within 5 % of the expected. */
#define SAMP_COUNT_TOL_PERMILLE 50u

/** The phase's state (plat_alloc'd: too big for the stack). */
struct samp_ctx {
        const struct cpu_info *cpu;
        uint64_t               tsc_hz;   /* 0 = unknown */
        struct samp_plan        plan;
        struct samp_log         log;
        struct rep_buf         report;   /* sampling-report.txt */
};

/** The chase samples are checked against: a buffer of the harness's own, 4 KiB pages asked,
 *  a random chain with one pointer per @p line bytes, the lines it visits listed (a
 *  struct bench_chase_buf_cfg for bench_chase_buf_create). */
#define SAMP_CHASE_SEED 0x5eed5a3d1e5ull
#define SAMP_CHASE_CFG(b, line)                                                              \
        ((struct bench_chase_buf_cfg){ .bytes = (b), .page = PLAT_PAGE_4K, .list_lines = true, \
                                       .chain = { .layout     = BENCH_LAYOUT_RANDOM,        \
                                                  .line_bytes = (line),                     \
                                                  .seed       = SAMP_CHASE_SEED } })

/** Keep in @p s (compacting, order kept) only the samples whose IP is a chase load;
 *  returns how many are left. */
size_t samp_filter_chase(struct psample *s, size_t n);

/** The four per-working-set checks (addresses, physical, latency, data-source) of @p s
 *  (@p n chase samples) for working set @p w (latencies in core cycles, samp_plan_core_cycles),
 *  logged in @p x->log under @p mech; @p lat_note (how the range became core cycles) ends the
 *  latency line. Physical addresses are compared with a software walk of the live CR3 (ring
 *  0 only: samples exist only in the firmware run). */
void samp_check_ws(struct samp_ctx *x, const char *mech, const struct samp_ws *w,
                   const struct bench_chase_buf *c, const struct psample *s, size_t n,
                   const char *lat_note);

/** The kind of a SKIP for a sampling mechanism the CPU does not offer: a hardware PMU is
 *  needed where the CPU has none at all (pmu_init found none), else the feature is missing. */
enum rep_skip_kind samp_absent_kind(void);

/** Print every check of @p mech as a SKIP of @p kind with @p why (the same names whether a
 *  mechanism runs or SKIPs). */
void samp_skip_mech(struct samp_log *lg, enum rep_skip_kind kind, const char *mech,
                    const struct samp_plan *p, const char *why);
/** SKIP the four per-working-set checks of @p w. */
void samp_skip_ws(struct samp_log *lg, enum rep_skip_kind kind, const char *mech,
                  const struct samp_ws *w, const char *why);

/** A verdict on @p good of @p all in permille, passing from @p min (SKIP when @p all is 0). */
void samp_permille_verdict(struct rep_verdict *v, uint64_t good, uint64_t all, uint32_t min);

/** What the page-stride chase over @p ch should see: every load missing the STLB with 4 KiB
 *  pages, none with 2 MiB pages. */
void samp_tlb_expect(const struct bench_chase_buf *ch, bool *miss, enum psample_pgsz *pg);

/** Append the data-cache report (DTrace-style) of @p n samples @p s of working set @p w to
 *  the phase's sampling-report.txt; @p p is the plan in core cycles for this run. */
void samp_dcache_report(struct samp_ctx *c, const struct samp_plan *p, const char *mech,
                        const struct samp_ws *w, const struct psample *s, size_t n,
                        uint64_t period);

/* ---- the pipelines, one file each --------------------------------------------------------- */

/** IBS op sampling over the chase at each working set and a page-stride chase
 *  (app/x86/sampling_ibs_op.c), on the armed-by-caller session @p s (PMI routed), with @p ps
 *  room for SAMP_SAMPLES_MAX samples. */
void samp_ibs_op_run(struct samp_ctx *c, struct pmu_ibs_session *s, struct psample *ps);
/** IBS fetch sampling over the block kernel (app/x86/sampling_ibs_fetch.c) on session @p s. */
void samp_ibs_fetch_run(struct samp_ctx *c, struct pmu_ibs_session *s);
/** PEBS load latency over the chase (app/x86/sampling_pebs.c): probe to report. */
void samp_pebs_run(struct samp_ctx *c);
/** LBR over the block kernel (app/x86/sampling_lbr.c): probe to report. */
void samp_lbr_run(struct samp_ctx *c);

/** Append the cycles-per-block report (Caliper "Cycles Per Bundle", from LBR) of @p st to
 *  @p out, naming blocks by @p syms (ascending addr). */
status_t samp_lbr_block_report(const struct lbr_block_stat *st, size_t n_st,
                               const struct rep_sym *syms, size_t n_syms, struct rep_buf *out);

#endif
