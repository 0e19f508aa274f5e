/** @file
 * Internal to analysis/levels*.c: the detection constants, the scratch space of one detection
 * and the plateau stage (levels_plateau.c: logs, noise, rising points, plateaus and their
 * merging) that levels.c's level building calls. Calls go one way, levels.c -> levels_plateau.c.
 */
#ifndef PMUCAL_REPORT_LEVELS_PRIV_H
#define PMUCAL_REPORT_LEVELS_PRIV_H

#include "analysis/levels.h"

/* All logarithms are base 2 in Q8 (256 = one octave = a factor of two). */
#define Q8 256

/* A point is "rising" when log latency grows by more than 0.35 per octave of working set,
 * measured over +-half an octave. Cache transitions rise by 1 or more per octave; shared-cache
 * and TLB slopes by 0.1 to 0.3. */
#define SLOPE_HALF_WINDOW_Q8 128
#define SLOPE_RISING_Q8      90
/* Two adjacent plateaus are separate levels only when the latency rises between their edges
 * by at least a factor of 1.3 (log2 1.3 = 0.38) and by 4 times the point-to-point noise. */
#define JUMP_MIN_Q8          97
#define JUMP_NOISE_FACTOR    4
/* Edge of a plateau: median of this many points at its end. */
#define EDGE_POINTS          3
/* Noisy: median window spread p90/p10 above 1.25, or point noise above 9 %. */
#define NOISY_SPREAD_Q8      82
#define NOISY_NOISE_Q8       32
/* Agreement with CPUID: within one sweep step plus this much rounding slack (1/64 octave). */
#define AGREE_SLACK_Q8       4
#define MIN_POINTS           5

struct lv_plateau {
        size_t first, last;
};

struct lv_work {
        uint32_t       lx[LAT_MAX_POINTS];   /* log2 working set */
        uint32_t       ly[LAT_MAX_POINTS];   /* log2 p50 */
        uint32_t       lq[LAT_MAX_POINTS];   /* log2 p10 (capacity search) */
        uint32_t       sy[LAT_MAX_POINTS];   /* ly, median of 3 */
        bool           rising[LAT_MAX_POINTS];
        uint64_t       tmp[LAT_MAX_POINTS];
        uint32_t       fit[LAT_MAX_POINTS];  /* ly, monotone fit (capacity search) */
        uint32_t       blk_n[LAT_MAX_POINTS];/* points per block of that fit */
        struct lv_plateau pl[LAT_MAX_POINTS];
        size_t         n_pl;
};

/* ---- the plateau stage (levels_plateau.c) ---- */

/** Median of the Q8 values @p v[first..last] (uses w->tmp). */
uint32_t lv_median_range(struct lv_work *w, const uint32_t *v, size_t first, size_t last);
/** Fill w->lx / w->ly / w->lq / w->sy from the @p n points @p p. */
void lv_logs_fill(struct lv_work *w, const struct lat_point *p, size_t n);
/** Window spread and point-to-point noise of the curve into @p out (spread_q8, noise_q8,
 *  the noisy flag). */
void lv_noise_estimate(struct lv_work *w, const struct lat_point *p, size_t n,
                       struct lat_levels *out);
/** Mark w->rising[] for the points where the curve climbs faster than SLOPE_RISING_Q8. */
void lv_rising_mark(struct lv_work *w, size_t n, const struct lat_levels *out);
/** Cut the curve into plateaus (w->pl, w->n_pl) between rising stretches. */
void lv_plateaus_find(struct lv_work *w, size_t n, struct lat_levels *out);
/** Merge adjacent plateaus, the smallest rise first, until every rise is significant, none
 *  lies beyond @p dram_from_bytes and at most @p max_levels remain. */
void lv_plateaus_merge(struct lv_work *w, const struct lat_point *p,
                       const struct lat_levels *out, size_t max_levels, uint64_t dram_from_bytes);

#endif
