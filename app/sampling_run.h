/** @file
 * The sampling phase's runs on real hardware (app/sampling_run.c) and the chase helpers they
 * share (app/sampling_chase.c): one context per phase, the mechanism names, and the checks
 * common to IBS and PEBS (addresses, physical addresses, latency, data source per working
 * set). Portable; internal to app/.
 */
#ifndef PMUCAL_APP_SAMPLING_RUN_H
#define PMUCAL_APP_SAMPLING_RUN_H

#include "app/sampling.h"

#define SMP_MECH_IBS_OP    "ibs-op"
#define SMP_MECH_IBS_FETCH "ibs-fetch"
#define SMP_MECH_PEBS      "pebs"
#define SMP_MECH_LBR       "lbr"

/* Sampled loads of the chase are those whose IP lies in the first bytes of bench_chase():
 * 32 three-byte loads plus the loop and the prologue fit well inside. */
#define SMP_CHASE_CODE_BYTES 192u
/* Samples kept per working set, and the TLB chase's buffer (page stride). */
#define SMP_SAMPLES_MAX      4096u
#define SMP_SAMPLES_TARGET   2000u
#define SMP_TLB_CHASE_BYTES  (64ull * MiB)

/** The phase's state (plat_alloc'd: too big for the stack). */
struct smp_ctx {
        const struct cpu_info *cpu;
        uint64_t               tsc_hz;   /* 0 = unknown */
        struct smp_plan        plan;
        struct smp_log         log;
        struct rep_buf         report;   /* sampling-report.txt */
};

/** A chase over a buffer of the harness's own: the chain, the lines it visits (ascending)
 *  and the page kind the platform backed it with. */
struct smp_chase {
        void               *buf;
        uint64_t            bytes;
        enum plat_page_kind got;
        void               *start;
        uint64_t           *lines;
        size_t              n_lines;
        uint32_t            line_bytes;
};

/** Allocate @p bytes, lay a random chain with one pointer per @p line_bytes, walk one lap to
 *  list the lines it visits. */
status_t smp_chase_setup(struct smp_chase *c, uint64_t bytes, uint32_t line_bytes);
/** Free what smp_chase_setup allocated. */
void smp_chase_free(struct smp_chase *c);

/** Keep in @p s (compacting, order kept) only the samples whose IP is a chase load;
 *  returns how many are left. */
size_t smp_filter_chase(struct psample *s, size_t n);

/** The four per-working-set checks (addresses, physical, latency, data-source) of @p s
 *  (@p n chase samples) for working set @p w (latencies in core cycles, smp_plan_core_cycles),
 *  logged in @p x->log under @p mech; @p lat_note (how the range became core cycles) ends the
 *  latency line. Physical addresses are compared with a software walk of the live CR3 (ring
 *  0 only: samples exist only in the firmware run). */
void smp_check_ws(struct smp_ctx *x, const char *mech, const struct smp_ws *w,
                  const struct smp_chase *c, const struct psample *s, size_t n,
                  const char *lat_note);

/** The core:TSC ratio over a sampled run: APERF/MPERF where CPUID.06H:ECX[0] offers them,
 *  else the PMU's cycles event on general counter 1 (counter 0 is PEBS's or LBR's trigger). */
struct smp_ratio {
        const char     *how;        /* "APERF/MPERF", "PMU cycles", NULL = none */
        uint64_t        a0, m0, t0; /* APERF, MPERF or counter, TSC at the start */
        struct pmu_slot slot;
};

/** Start measuring the core:TSC ratio on this CPU (@p cpu from the inventory). */
void smp_ratio_begin(struct smp_ratio *r, const struct cpu_info *cpu);
/** Stop; returns core cycles per TSC tick in Q16 (0 = unknown) and sets r->how. */
uint32_t smp_ratio_end(struct smp_ratio *r);

/** Print every check of @p mech as a SKIP with @p why. */
void smp_skip_mech(struct smp_log *lg, const char *mech, const struct smp_plan *p,
                   const char *why);

/** Run and validate each mechanism (each SKIPs with its reason when absent). */
void smp_run_ibs(struct smp_ctx *c);
void smp_run_pebs(struct smp_ctx *c);
void smp_run_lbr(struct smp_ctx *c);

#endif
