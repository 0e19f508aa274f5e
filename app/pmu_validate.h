/** @file
 * The counting validation suite: which counters to believe. A const table of checks
 * {name, event, kernel, how the truth is known, tolerance and why}; a pure verdict function
 * that prints `PASS|FAIL <check> measured=<m> expected=<e> tolerance=<t>` through rep_check
 * (SKIP with the reason through rep_skip) and the pmu-validation.json writer; and the
 * run-time driver that measures each check with interrupts off, several times.
 */
#ifndef PMUCAL_VALIDATE_H
#define PMUCAL_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

#include "boot/plat.h"
#include "bench/chase_buf.h"
#include "report/rep.h"
#include "pmu/pmu.h"
#include "pmu/sample.h"

/** How a check's expected count is known. */
enum val_truth {
        TRUTH_LOOP_INSNS,     /* bench_loop, two lengths: 2 instructions per iteration */
        TRUTH_LOOP_BRANCHES,  /* bench_loop, two lengths: 1 branch per iteration */
        TRUTH_MISPREDICT,     /* random pattern minus always-taken: 1/2 per byte */
        TRUTH_FIXED_EQ_GP,    /* a fixed counter against its general-counter twin */
        TRUTH_CHASE_MISSES,   /* random chase, 8x the cache level: one miss per load */
        TRUTH_PAGE_CHASE,     /* one line per 4 KiB page, 16x the last-level dTLB */
        TRUTH_CYCLES_TSC,     /* core cycles = TSC x dAPERF / dMPERF over the same span */
};

struct val_check {
        const char    *name;       /* "insts-loop" */
        const char    *alias;      /* portable alias counted on a general counter */
        const char    *fixed_event;/* TRUTH_FIXED_EQ_GP: perf name of the fixed event */
        const char    *kernel;     /* what runs */
        enum val_truth truth;
        uint8_t        level;      /* TRUTH_CHASE_MISSES: cache level, 0 = the last level */
        uint32_t       tol_ppm;    /* tolerance, parts per million of expected */
        uint64_t       tol_abs;    /* plus an absolute tolerance */
        const char    *rationale;  /* why that tolerance */
};

extern const struct val_check val_checks[];
extern const size_t           val_n_checks;

/** Outcome of one check. */
struct val_result {
        const struct val_check *check;
        status_t                st;        /* ST_OK: measured; else skipped or broken */
        const char             *reason;    /* skip or error reason (static text) */
        enum rep_skip_kind      skip;      /* why skipped (report/rep.h) */
        bool                    broken;    /* the PMU offers the counter but programming or
                                            * reading it failed: a FAIL, not a SKIP */
        uint64_t                measured, expected;
        unsigned                n_runs;
};

/** Tolerance of @p c at @p expected: tol_abs + expected * tol_ppm / 1e6. */
uint64_t val_check_tolerance(const struct val_check *c, uint64_t expected);

/** True when |measured - expected| <= tolerance. */
bool val_check_pass(const struct val_check *c, uint64_t measured, uint64_t expected);

/** Print one line per result (rep_check / rep_skip) and return the number of failures. */
unsigned val_report(const struct val_result *r, size_t n);

/** Write the results as JSON ("pmucal.pmu-validation/1") into @p out. */
status_t val_json(const struct val_result *r, size_t n, const struct pmu_caps *caps,
                  struct rep_buf *out);

/** Run the whole suite on this CPU (@p ci describes it): pmu_init, each check @p reps times
 *  with interrupts off (median kept), the report lines, and pmu-validation.json into
 *  @p json (caller-owned; hand it to run_add_file). Without a PMU every check SKIPs with the
 *  reason. ST_OK unless the JSON could not be built (a failing check is not an error). */
status_t val_run(const struct cpu_info *ci, unsigned reps, struct rep_buf *json);

/** An architecture's own part of the one counting suite and the one overflow-sampling run
 *  (AArch64: the PMUv3's level filters, SW_INCR, the cycle counter against the generic timer
 *  and cycle-counter sampling, app/arm64/validate.c); x86-64 has none. Each hook may be
 *  NULL and runs under the suite's own prefix. */
struct val_suite_arch {
        /** After the shared checks were measured, before they are reported: may turn a
         *  result the platform cannot decide into a SKIP with the reason. */
        void (*review)(void *ctx, struct val_result *r, size_t n);
        /** The architecture's counting checks, reported after the shared ones. */
        void (*checks)(void *ctx);
        /** The architecture's sampling checks, after the PMI route self-test. */
        void (*sampling)(void *ctx);
        void *ctx;
};

/** val_run with @p arch's part of the suite (NULL: none). */
status_t val_run_arch(const struct cpu_info *ci, unsigned reps,
                      const struct val_suite_arch *arch, struct rep_buf *json);

/* ---- memory kernels of the suite (app/pmu_validate_mem.c) ---- */

#define VAL_CHASE_MAX_BYTES   (512ull * MiB) /* largest buffer a check allocates */
#define VAL_CHASE_MAX_LOADS   (1ull << 20)   /* loads in the N run (2N in the other) */
#define VAL_CHASE_OVERSIZE    8              /* working set / cache size */
#define VAL_PAGE_OVERSIZE     16             /* pages / last-level dTLB entries */
#define VAL_PAGE_TLB_DEFAULT  4096           /* dTLB entries assumed when CPUID says none */

struct bench_ownpt;

/** A pointer chase prepared for a check: the chase buffer (its chain's start is the current
 *  position) and, for the page chase, the page tables it runs under. */
struct val_chase {
        struct bench_chase_buf cb;
        uint64_t            iters;    /* bench_chase iterations of the N run */
        /* Page chase over a buffer the firmware maps with large pages: the harness's own
         * tables, the buffer identity-mapped by 4 KiB pages (bench/ownpt.h); NULL otherwise. */
        struct bench_ownpt *own;
        uint64_t            n_walked; /* 4 KiB pages of buf the software walker checked */
        uint64_t            saved_cr3;
        bool                flush;    /* CR4.PGE/PCIDE: flush everything after a CR3 switch */
        unsigned            n_cr3_bad;/* windows after which CR3 did not read back */
};

/** Pure: the buffer size for check @p c on @p ci: VAL_CHASE_OVERSIZE x the data or unified
 *  cache of c->level (0: the highest level), or VAL_PAGE_OVERSIZE x the largest 4 KiB
 *  data/unified TLB (x 4 KiB). ST_UNSUPPORTED with *reason when CPUID gives no size or the
 *  buffer would exceed @p max_bytes. */
status_t val_chase_plan(const struct cpu_info *ci, const struct val_check *c, uint64_t max_bytes,
                        uint64_t *bytes, const char **reason);

/** Allocate @p bytes, lay a random chain (64-byte lines, or one pointer per 4 KiB page for
 *  @p per_page) and run one warm-up lap. For @p per_page over a buffer the firmware maps with
 *  2 MiB / 1 GiB pages, also build the harness's own page tables for @p ci with the buffer
 *  mapped by 4 KiB pages and check every page with the software walker (ch->own, ch->n_walked);
 *  the chase then runs between val_chase_enter and val_chase_leave. ST_UNSUPPORTED with
 *  *reason when that is impossible (no memory map: hosted builds). */
status_t val_chase_setup(struct val_chase *ch, const struct cpu_info *ci, uint64_t bytes,
                         bool per_page, const char **reason);

/** Switch CR3 to ch->own (no-op without it) and flush the TLB if global pages or PCIDs could
 *  keep the firmware's translations. Only with interrupts masked, outside the counted region,
 *  paired with val_chase_leave; nothing may allocate or print in between. */
status_t val_chase_enter(struct val_chase *ch);

/** Put the firmware's CR3 back after val_chase_enter, flush, and count a CR3 that does not
 *  read back in ch->n_cr3_bad. */
void val_chase_leave(struct val_chase *ch);

/** Where the PMU cannot count (QEMU TCG), still exercise the dTLB check's page tables: plan
 *  and set up the page chase for @p ci, run one lap under the harness's own tables and print
 *  "4 KiB test mapping ready" (INFO) or a FAIL line when the mapping or the lap is wrong.
 *  Quietly does nothing where no own tables are needed or possible. */
void val_page_chase_selftest(const struct cpu_info *ci);

/** Free what val_chase_setup allocated (safe on a zeroed struct). */
void val_chase_free(struct val_chase *ch);

/** The chase kernel for bench_pmu_measure: @p arg is a struct val_chase_run. */
struct val_chase_run {
        struct val_chase *ch;
        uint64_t          iters;
};
void val_chase_step(void *arg);

/* ---- overflow sampling (app/pmu_sample_run.c) -------------------------------------------- */

/** What one sampling run measured, for the benchmark lines. */
struct val_sample_figures {
        uint64_t n_pmi;
        uint64_t pmi_cost_cycles; /* TSC ticks per PMI: (sampled - plain run) / n_pmi; 0 = n/a */
        uint64_t selftest_tsc;    /* self-NMI round trip through the route, 0 = not run */
};

/** Overflow sampling on this CPU (pmu_init already called): the PMI route self-test (a
 *  self-NMI, which works without a PMU), then the skid run (PMI count, skid histogram,
 *  Caliper estimate) and a report of the harness's kernels by function, named through
 *  @p syms (RVAs; @p image_base is added). Prints PASS/FAIL/SKIP/INFO lines; without a PMU,
 *  an overflow status (pmu_sample_supported) or a PMI route the sampling checks SKIP with the
 *  reason (ST_UNSUPPORTED for the first two). */
status_t val_sample_run(const struct pmu_sym *syms, size_t n_syms, uint64_t image_base,
                        struct val_sample_figures *fig);
/** val_sample_run with @p arch's sampling checks after the route self-test (NULL: none). */
status_t val_sample_run_arch(const struct pmu_sym *syms, size_t n_syms, uint64_t image_base,
                             const struct val_suite_arch *arch, struct val_sample_figures *fig);

#endif
