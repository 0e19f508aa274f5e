/** @file
 * Sweep planning, pure: which working-set sizes to measure, where to refine, and the
 * reduction of a point's windows to min/p10/p50/p90. No plat_* calls, no clock; the runner
 * (bench/measure.h) does the measuring.
 *
 * The plan is geometric with integer math: steps_per_octave points per doubling (ratio
 * 2^(1/steps_per_octave), computed in 16.16 fixed point), rounded to whole cache lines.
 * "One step" of the located capacity is the refined grid: refinement inserts geometric
 * midpoints where p50 jumps between neighbours until the bracketing pair is at most
 * 2^(1/fine_steps_per_octave) apart (or a line apart).
 */
#ifndef PMUCAL_BENCH_SWEEP_H
#define PMUCAL_BENCH_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"
#include "boot/cpu_info.h"
#include "bench/latency.h"

enum bench_profile { BENCH_PROFILE_QUICK = 0, BENCH_PROFILE_FULL, BENCH_PROFILE__COUNT };

/** Fixed parameters of a profile (const table in sweep.c). */
struct bench_profile_desc {
        const char *name;
        uint64_t    min_bytes;             /* first working set */
        uint64_t    max_bytes_cap;         /* last working set at most (0 = no cap) */
        uint32_t    steps_per_octave;      /* coarse plan, >= 4 */
        uint32_t    fine_steps_per_octave; /* refinement target ("one step") */
        uint32_t    iters_per_run;         /* N = iters * BENCH_CHASE_UNROLL loads */
        uint32_t    max_refine_points;     /* extra points refinement may add in all */
        uint64_t    warm_max_loads;        /* warm-up lap cap before the windows */
};

/** The profile description; NULL for an out-of-range value. */
const struct bench_profile_desc *bench_profile_desc(enum bench_profile p);
/** "quick" / "full" / "unknown". */
const char *bench_profile_name(enum bench_profile p);

/** Largest working set: @p asked_bytes (config sweep_max_mib; 0 = 4x the largest cache in
 *  @p cpu, 16 MiB when CPUID names none), limited by @p avail_bytes (memory the sweep may use;
 *  0 = no limit) and @p cap_bytes (the profile's cap; 0 = none), rounded down to 4 KiB, at
 *  least 4 KiB. */
uint64_t bench_plan_max_bytes(const struct cpu_info *cpu, uint64_t asked_bytes,
                              uint64_t avail_bytes, uint64_t cap_bytes);

/** 2^(1/@p steps) in 16.16 fixed point (65536 < r <= 131072); @p steps >= 1. */
uint32_t bench_root2_fixed(uint32_t steps);

/** Geometric plan from @p min_bytes to @p max_bytes (both included, rounded to @p line_bytes),
 *  @p steps_per_octave per doubling, strictly increasing, into @p ws (capacity @p cap).
 *  ST_NO_SPACE when @p cap is too small (ws then holds the first cap points). */
status_t bench_plan_sweep(uint64_t min_bytes, uint64_t max_bytes, uint32_t steps_per_octave,
                          uint32_t line_bytes, uint64_t *ws, size_t cap, size_t *n);

/** Refinement rule. */
struct bench_refine_cfg {
        uint32_t jump_permille;         /* p50[i+1] > p50[i] * (1000 + this) / 1000 ... */
        uint64_t jump_min_mcyc;         /* ... and p50[i+1] - p50[i] > this */
        uint32_t fine_steps_per_octave; /* stop when hi <= lo * 2^(1/this) */
        uint32_t line_bytes;
};

/** Pure: for the sorted curve @p pts[0..n) propose working sets to measure next, the
 *  geometric midpoints of the largest jumps first; at most @p cap, written to @p out
 *  (ascending). Returns how many. A jump counts when p50 rises by the rule's margins, the
 *  upper point's p10 lies above the lower point's p90, and the point after keeps at least
 *  half of the rise (a one-point spike is noise, not a capacity). */
size_t bench_plan_refine(const struct lat_point *pts, size_t n, const struct bench_refine_cfg *cfg,
                         uint64_t *out, size_t cap);

/** Pure: sort @p lat[0..n) in place and fill min/p10/p50/p90 (nearest rank), the 95 %
 *  confidence interval of p50 (p50_lo/p50_hi, lib_median_ci_ranks) and n_windows of @p pt.
 *  ST_BAD_ARG when @p n is 0. */
status_t bench_point_stats(uint64_t *lat, size_t n, struct lat_point *pt);

/** Pure: whether the median of @p pt is known within +/- @p permille (its 95 % confidence
 *  interval is at most 2 * permille / 1000 of p50 wide). */
bool bench_point_settled(const struct lat_point *pt, uint32_t permille);

/** Pure: whether point @p i of the sorted curve @p pts[0..n) is an outlier worth measuring
 *  again: its p50 is not between its neighbours' (a step is: a rise is monotone) and lies more
 *  than @p permille from the nearer of them and outside its own confidence interval. The
 *  first and last points are never outliers. */
bool bench_point_outlier(const struct lat_point *pts, size_t n, size_t i, uint32_t permille);

/** Pure: insert @p pt into the sorted array @p pts (length *@p n, capacity @p cap) keeping
 *  ws_bytes ascending; a point with an existing ws_bytes replaces it. ST_NO_SPACE if full. */
status_t bench_curve_insert(struct lat_point *pts, size_t *n, size_t cap,
                            const struct lat_point *pt);

#endif
