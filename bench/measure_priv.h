/** @file
 * The latency sweep runner's internals, one module in three files that call one way only:
 * bench/measure.c (set-up, the buffer, the clock summary) calls bench/measure_points.c
 * (measuring the points: interleaved passes over the planned working sets, adaptive windows,
 * refinement, outliers measured again), and both call bench/measure_on.c (the CPU work: a
 * visit of a point, the overhead figures, the prefetchers, each one job for run_on, which
 * is the config's or runs it on the calling CPU). Not for other folders: bench/measure.h is
 * the interface.
 */
#ifndef PMUCAL_BENCH_MEASURE_PRIV_H
#define PMUCAL_BENCH_MEASURE_PRIV_H

#include "bench/measure.h"
#include "bench/chase_buf.h"

#define LINE_BYTES          64u
#define CLOCK_CALIB_US      5000u  /* five clean 1 ms stalls */
#define MIN_FALLBACK_BYTES  (4 * MiB)
#define CI_PERMILLE         10u    /* a point's median known within +/- 1 % (95 % confidence) */
#define MAX_WINDOWS_FACTOR  4u     /* ... or at most 4 x repetitions windows kept */
#define SWEEP_PASSES        5u     /* the planned points are measured in this many passes
                                      * (3 before the warm-up streamed: visits were dear) */

struct sweep {
        const struct bench_sweep_cfg    *cfg;
        const struct bench_profile_desc *prof;
        struct bench_sweep_info         *info;
        struct bench_chase_buf           cb;      /* the sweep's memory; a chain per point */
        uint64_t                        *lat;     /* window latencies of one point */
        uint64_t                        *scratch; /* a sorted copy of them */
        uint64_t                         no_warm_bytes; /* 2 x largest cache; 0 = unknown */
        bool                             overhead_done;
        size_t                           lat_cap;  /* windows kept at most (the cap) */
        uint64_t                         started;  /* bench_timer_now() at the first point */
        uint64_t                         progress_at; /* ... at the last progress line */
        size_t                           visits;   /* point visits so far */
        /* where the CPU work runs: cfg->run_on, or one that runs it on the calling CPU */
        status_t (*run_on)(void *ctx, void (*fn)(void *arg), void *arg);
        void                            *run_on_ctx;
        uint64_t                         set_started; /* ... at the first visit of the set of
                                                       * points being measured */
};

/** One point's windows so far, over the passes (kept on the caller; filled where they run). */
struct pstore {
        uint64_t *lat;               /* kept window latencies (s->lat_cap at most) */
        size_t    n;                 /* kept */
        uint32_t  dropped;           /* disturbed */
        uint64_t  core_sum, ref_sum; /* the core source over the kept windows */
        uint64_t  iters;             /* iterations per N run (0: not yet chosen) */
};

/* bench/measure_points.c: */

/** Measure the planned working sets, refine where the latency jumps, measure outliers again:
 *  the points into @p c (at most @p cap). */
status_t bench_sweep_points(struct sweep *s, struct lat_curve *c, size_t cap);

/* bench/measure_on.c, each through s->run_on: */

/** Bytes of a page of kind @p k. */
uint64_t bench_page_bytes(enum plat_page_kind k);
/** One visit of working set @p ws: its chain laid and warmed, then windows until @p ps holds
 *  @p want kept ones, trying at most a fixed number per missing one plus @p extra. */
status_t bench_sweep_visit(struct sweep *s, uint64_t ws, struct pstore *ps, size_t want,
                           size_t extra);
/** The N/2N overhead figures at the smallest working set into s->info. */
void     bench_sweep_overhead(struct sweep *s, uint64_t ws, const struct lat_point *base);
/** The prefetchers of the CPU the windows run on: turned off as the config asks, and back. */
void     bench_sweep_prefetch_off(struct sweep *s, const struct cpu_info *cpu);
status_t bench_sweep_prefetch_restore(struct sweep *s);

#endif
