/** @file
 * The latency sweep runner: allocates the measurement buffer once (page size as asked, what
 * the platform really gave is recorded), switches the prefetchers off where documented and
 * allowed, measures every planned working set with the pointer-chase kernel (chain, warm-up
 * lap, windows until `repetitions` undisturbed ones are kept, in interleaved passes over the
 * points, more where a median is not yet known within the target), refines where the latency
 * jumps, restores the prefetchers and returns a struct lat_curve for analysis/levels.h.
 * Runs on the calling processor; the caller pins it (hosted) or runs it on the BSP.
 */
#ifndef PMUCAL_BENCH_MEASURE_H
#define PMUCAL_BENCH_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/plat.h"
#include "boot/cpu_info.h"
#include "bench/latency.h"
#include "bench/chain.h"
#include "boot/prefetch.h"
#include "bench/sweep.h"
#include "bench/window.h"

#define BENCH_MIN_REPETITIONS 11u
#define BENCH_REFILL_LOADS_PER_PAGE 8u
#define BENCH_REFILL_MAX_PAGES      4096u /* above the 4 KiB L2 TLBs of current cores (3072) */

/** Make the windows see [@p buf, @p buf + @p bytes) mapped with @p want pages where the
 *  platform gave @p got (the firmware run: the harness's own page tables). ST_OK: @p *hooks
 *  switch to that mapping in every window. Anything else: the platform's mapping is kept and
 *  the sweep goes on; the callee says why. Never called while a window is open. */
typedef status_t (*bench_remap_fn)(void *ctx, void *buf, uint64_t bytes,
                                   enum plat_page_kind want, enum plat_page_kind got,
                                   struct bench_window_hooks *hooks);

/** What to run. */
struct bench_sweep_cfg {
        enum bench_profile  profile;
        enum bench_layout   layout;
        enum plat_page_kind page;
        uint32_t            repetitions;     /* windows kept per point at least; raised to >= 11 */
        uint32_t            ci_permille;     /* more windows until the p50's 95 % interval is
                                                within +/- this (per mille); 0 = 10 (1 %) */
        uint32_t            max_windows;     /* ... but at most this many kept; 0 = 4 x
                                                repetitions */
        uint64_t            max_bytes;       /* config sweep_max_mib in bytes; 0 = auto */
        bool                prefetchers_off; /* config prefetchers = off */
        uint64_t            seed;
        const struct bench_clock *clock;     /* NULL: bench_clock_init (TSC, APERF/MPERF as
                                                the core source where readable); else
                                                complete, e.g. with a PMU core-cycle source */
        bench_steal_count_fn steal_count;    /* platform's count of CPU steals; NULL = none */
        void                *steal_ctx;
        bench_remap_fn       remap;          /* called once after allocation when the page
                                                size obtained is not @c page; NULL = never */
        void                *remap_ctx;
        /* Where the windows run: NULL = the calling CPU; else run_on(run_on_ctx, fn, arg) runs
         * fn(arg) on the chosen CPU and returns when it finished (ST_OK) or gave up. What
         * runs there is only what touches the CPU (a point's chain, warm-up and windows, the
         * prefetcher MSR); planning, allocation and logging stay on the caller, so the chosen
         * CPU needs no platform services (an AP under UEFI may call none). */
        status_t           (*run_on)(void *ctx, void (*fn)(void *arg), void *arg);
        void                *run_on_ctx;
};

/** How it was run: the method section of the table and the benchmark figures. */
struct bench_sweep_info {
        struct bench_clock    clock;
        struct bench_guard    guard;
        struct prefetch_info prefetch;
        enum plat_page_kind   page_got;       /* page size the platform backed it with */
        enum plat_page_kind   page_used;      /* page size the windows saw: page_got, or the
                                                 one asked where remapped */
        bool                  remapped;       /* cfg->remap succeeded: its hooks ran in every
                                                 window */
        uint64_t              max_bytes;      /* largest working set measured */
        uint64_t              planned_bytes;  /* ... as planned: more than max_bytes when the
                                                 buffer could not be had and was halved */
        uint32_t              repetitions;    /* windows kept per point at least */
        uint32_t              ci_permille;    /* adaptive target: p50 within +/- this */
        uint32_t              max_windows;    /* ... windows kept per point at most */
        uint32_t              passes;         /* interleaved passes over the points: each
                                                 pass takes a share of every point's windows */
        size_t                n_settled;      /* points whose p50 met the target */
        size_t                n_remeasured;   /* outlier points measured again */
        uint32_t              loads_per_run;  /* N at most; shortened per point so that a
                                                 window stays under ~0.4 ms (DRAM points) */
        size_t                n_planned, n_refined;
        uint32_t              n_disturbed;    /* windows dropped over the whole sweep */
        uint32_t              n_dropped_by[BENCH_WIN__COUNT]; /* ... by reason ([0] unused) */
        int64_t               overhead_mcyc;  /* p50 of 2 t_N - t_2N at the smallest point:
                                                 timer + loop cost the N/2N difference removes */
        int64_t               residual_mcyc;  /* smallest point: min per-load latency from (N, 2N)
                                                 minus that from (2N, 4N), i.e. what is left */
};

/** Run the sweep. @p out->pts is allocated here (free with bench_sweep_free). On error nothing
 *  is allocated and the prefetchers are as they were. */
status_t bench_sweep_run(const struct bench_sweep_cfg *cfg, const struct cpu_info *cpu,
                         struct lat_curve *out, struct bench_sweep_info *info);

/** Free what bench_sweep_run allocated in @p c; NULL and empty curves are fine. */
void bench_sweep_free(struct lat_curve *c);

/** Pure: untimed iterations that refill the TLB after a page-table switch for a working set
 *  of @p ws_bytes mapped by @p page_bytes pages: 8 loads per page (a random chain then touches
 *  each page with probability 1 - e^-8), for at most BENCH_REFILL_MAX_PAGES pages (beyond any
 *  L2 TLB the misses are steady state anyway) and at most one lap; at least 1. */
uint64_t bench_refill_iters(uint64_t ws_bytes, uint64_t page_bytes);

/** "4k", "2m", "1g"; never NULL. */
const char *bench_page_name(enum plat_page_kind k);

#endif
