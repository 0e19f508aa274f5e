/** @file
 * Level detection: turns a measured latency curve (struct lat_curve, milli-cycles per load
 * against working-set size) into the memory hierarchy it shows: plateaus named L1, L2, L3 ...
 * by order and DRAM for the last one, each with a capacity, a latency distribution, the CPUID
 * cache it corresponds to and whether the two agree, plus the bucket upper bounds a profiler
 * uses to sort a sampled load latency into a level. Pure integer code (no floating point, no
 * globals, no clock): firmware and host give identical bits. The rules are documented in
 * docs/latency-table.md ("Detection").
 */
#ifndef PMUCAL_LEVELS_H
#define PMUCAL_LEVELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/plat.h"
#include "lib/status.h"
#include "boot/cpu_info.h"
#include "bench/latency.h"

/** At most this many levels are reported (caches + DRAM). */
#define LAT_MAX_LEVELS 8
/** Longest curve lv_detect() accepts (4 KiB .. 1 TiB at 4 points per octave is 113). */
#define LAT_MAX_POINTS 512

/** How a detected capacity compares with the CPUID cache it corresponds to. */
enum lat_agree {
        LAT_AGREE_NO_CPUID = 0, /* no CPUID cache to compare with (DRAM, or CPUID has none) */
        LAT_AGREE_OK,           /* within one sweep step */
        LAT_AGREE_SMALLER,      /* detected capacity smaller than CPUID says (VM, partitioning) */
        LAT_AGREE_LARGER,       /* detected capacity larger than CPUID says */
};

/** A latency distribution, in the milli-units or picoseconds the member name says, with the
 *  95 % confidence interval of p50 (p50_lo..p50_hi; both 0 when not known). */
struct lat_stat {
        uint64_t min, p10, p50, p90;
        uint64_t p50_lo, p50_hi;
};

/** One detected level. */
struct lat_level {
        char            name[8];              /* "L1", "L2", "L3", "L4", "DRAM"; "flat" alone */
        uint64_t        capacity_bytes;       /* where half the loads miss (see Detection);
                                                 0 for the last level (no upper end measured) */
        uint64_t        capacity_lo_bytes;    /* the interval the half-way crossing may lie in */
        uint64_t        capacity_hi_bytes;    /* given the points' confidence intervals */
        uint64_t        cpuid_capacity_bytes; /* 0 = no corresponding CPUID cache */
        uint8_t         cpuid_level;          /* level of that CPUID cache, 0 = none */
        enum lat_agree  agreement;
        struct lat_stat lat_mcyc;             /* over the plateau's points, milli-units of the
                                                 curve's clock */
        struct lat_stat lat_tick;             /* the same in TSC milli-ticks (levels.has_ticks) */
        struct lat_stat lat_core;             /* ... in core milli-cycles (levels.has_core) */
        struct lat_stat lat_ps;               /* ... in picoseconds (levels.has_ps) */
        uint32_t        core_ppm;             /* core:TSC ratio of the plateau, per 10^6; 0 =
                                                 unknown */
        size_t          first, last;          /* plateau point index range in the curve, inclusive */
        uint64_t        ws_lo_bytes, ws_hi_bytes; /* working sets of points first and last */
};

/* Flags of struct lat_levels. */
#define LAT_F_NO_HIERARCHY  BIT_ULL(0) /* one level only: a flat curve (QEMU TCG has no caches) */
#define LAT_F_NOISY         BIT_ULL(1) /* window spread or point-to-point noise is large */
#define LAT_F_CPUID_DIFFERS BIT_ULL(2) /* some level disagrees with its CPUID cache */
#define LAT_F_NO_DRAM       BIT_ULL(3) /* sweep ended inside the largest CPUID cache */
#define LAT_F_TAIL_RISING   BIT_ULL(4) /* latency still rising at the largest working set */
#define LAT_F_OVERLAP       BIT_ULL(5) /* two adjacent levels' p10..p90 spreads overlap */
#define LAT_F_NO_CORE_HZ    BIT_ULL(6) /* no core clock readable: no core-cycle figures */
#define LAT_F_FEW_POINTS    BIT_ULL(7) /* too few points to detect anything but one level */

/** The detected hierarchy. bound_mcyc[i] is the upper bound of level i (a latency
 *  <= bound_mcyc[i] and > bound_mcyc[i-1] belongs to level i); the last level has none. */
struct lat_levels {
        struct lat_level lv[LAT_MAX_LEVELS];
        size_t           n;
        uint64_t         bound_mcyc[LAT_MAX_LEVELS - 1]; /* n - 1 valid entries */
        uint64_t         bound_tick[LAT_MAX_LEVELS - 1]; /* the same in TSC milli-ticks, */
        uint64_t         bound_core[LAT_MAX_LEVELS - 1]; /* core milli-cycles */
        uint64_t         bound_ps[LAT_MAX_LEVELS - 1];   /* and picoseconds */
        bool             has_ticks, has_core, has_ps;    /* which of those are known */
        uint64_t         flags;                          /* LAT_F_* */
        uint32_t         noise_q8;   /* point-to-point noise of log2(p50), Q8 (256 = 1 octave) */
        uint32_t         spread_q8;  /* median log2(p90 / p10) of the points, Q8 */
        enum lat_clock   clock;      /* the curve's clock: LAT_CLOCK_TSC means the *_mcyc
                                        figures are TSC ticks, not core cycles */
        uint64_t         clock_hz;   /* rate of that clock (tsc_hz or core_hz; 0 = unknown) */
};

/** Detect the levels of @p c (points in ascending ws_bytes, p50 > 0). @p cpu may be NULL (no
 *  cross-check; no limit on the number of levels). Writes @p out completely. ST_BAD_ARG for
 *  NULL, an empty, unsorted or too long (> LAT_MAX_POINTS) curve. */
status_t lv_detect(const struct lat_curve *c, const struct cpu_info *cpu,
                           struct lat_levels *out);

/** Index of the level a latency of @p mcyc milli-cycles belongs to (by bound_mcyc). */
size_t lv_classify(const struct lat_levels *l, uint64_t mcyc);

/** "agrees", "smaller", "larger", "no-cpuid"; never NULL. */
const char *lv_agree_name(enum lat_agree a);

/** Name of flag bit @p bit (a single LAT_F_* value): "no_hierarchy", ...; NULL if unknown. */
const char *lv_flag_name(uint64_t bit);

#endif
