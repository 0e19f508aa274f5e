/** @file
 * TLB analysis: from a TLB curve (latency per access against the number of pages touched,
 * bench/tlb.h) find the plateaus, the entries of each TLB level (where the curve steps up) and
 * the latency each miss class adds (L1 TLB hit, second-level TLB hit, page walk), then
 * cross-check the entries against CPUID's TLB descriptors (struct cpu_info.tlbs) and flag, not
 * hide, any disagreement. The writers (console report, the "tlb" JSON section, tlb-curve.csv)
 * are report/tlbdetect_out.h's.
 *
 * Method: the curve (p50 minus the control's p50 when a control was measured) is cut into
 * constant pieces by least squares with a penalty per piece equal to the square of the
 * smallest step that counts (max of an absolute floor and 4x the point-to-point noise);
 * neighbours closer than that, or than a fraction of the lower one's latency, merge (a walk
 * that grows slowly as its PTEs leave the cache stays one class); pieces shorter than
 * min_points or climbing from end to end are transitions, not levels. A level's entry count is the last N before the
 * curve crosses halfway to the next plateau. Integer arithmetic only.
 */
#ifndef PMUCAL_TLBDETECT_H
#define PMUCAL_TLBDETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/tlb.h"
#include "lib/status.h"
#include "boot/cpu_info.h"

#define TLBDET_MAX_POINTS   256
#define TLBDET_MAX_PLATEAUS 8

/** What a plateau stands for. */
enum tlb_class {
        TLB_CLASS_L1_HIT = 0, /* first-level TLB hit */
        TLB_CLASS_L2_HIT,     /* first-level miss, second-level hit */
        TLB_CLASS_WALK,       /* page walk (every plateau past the second level) */
        TLB_CLASS_MISS,       /* first-level miss, second level not told apart */
        TLB_CLASS__COUNT
};

enum tlb_verdict {
        TLB_NO_CPUID = 0, /* CPUID describes no TLB at this level for this side/page size */
        TLB_AGREE,        /* within one sweep step of CPUID */
        TLB_DISAGREE,
};

/* struct tlb_result.flags */
#define TLBDET_F_STILL_RISING  BIT_ULL(0) /* the curve ends inside a step: sweep too short */
#define TLBDET_F_EXTRA_LEVEL   BIT_ULL(1) /* more steps than CPUID has levels */
#define TLBDET_F_MISSING_LEVEL BIT_ULL(2) /* CPUID level within the sweep without a step */
#define TLBDET_F_DISAGREE      BIT_ULL(3) /* some level's entries disagree with CPUID */
#define TLBDET_F_NON_MONOTONIC BIT_ULL(4) /* a plateau lies below the one before it */
#define TLBDET_F_NOT_CHECKED   BIT_ULL(5) /* no cross-check done (no cpu_info) */

/** A run of points at one latency. */
struct tlb_plateau {
        uint32_t       first_n, last_n; /* N range (pages) */
        uint32_t       n_points;
        uint64_t       lat_mcyc;        /* median p50 of its points, per access */
        uint64_t       added_mcyc;      /* over the first plateau (control-corrected) */
        enum tlb_class cls;
};

/** A TLB level: the step from plateau i to plateau i+1. */
struct tlb_level {
        uint32_t         entries;       /* last N before the step */
        uint32_t         next_n;        /* first N past it: the true count is in [entries, next_n) */
        uint32_t         cpuid_entries; /* 0 = none */
        const char      *cpuid_source;  /* from struct cpu_tlb.source; may be NULL */
        enum tlb_verdict verdict;
};

/** What tlbdet_detect found in one curve. */
struct tlb_result {
        enum tlb_side       side;
        enum tlb_pte_layout pte;
        uint64_t            page_bytes;
        uint32_t            n_points;
        uint32_t            max_n;
        bool                uses_control;
        uint64_t            noise_mcyc; /* point-to-point noise estimate */
        uint64_t            step_mcyc;  /* smallest step counted */
        uint32_t            passes;     /* the curve's passes (struct tlb_curve); 0: unrecorded */
        struct tlb_plateau  plat[TLBDET_MAX_PLATEAUS];
        size_t              n_plat;
        struct tlb_level    lvl[TLBDET_MAX_PLATEAUS - 1];
        size_t              n_lvl;      /* min(n_plat - 1, max_levels) */
        uint32_t            flags;      /* TLBDET_F_* */
};

/** Tuning; NULL means the defaults (tlbdet_default_params). */
struct tlbdet_params {
        uint32_t min_points;    /* points a plateau needs (3) */
        uint64_t min_step_mcyc; /* absolute floor of a step (1500 = 1.5 cycles) */
        uint32_t min_step_pct;  /* and at least this % of the lower plateau's latency (25) */
        uint32_t noise_mult;    /* and this many times the noise (4) */
        uint32_t max_levels;    /* TLB levels at most (2: L1 and L2/STLB on every x86 so far);
                                 * plateaus past the last are the walk growing as its PTEs
                                 * leave the caches, reported as walk, not as levels */
};

/** The defaults. */
struct tlbdet_params tlbdet_default_params(void);

/** Find plateaus and levels in @p c (2 .. TLBDET_MAX_POINTS points, ascending n_pages) into
 *  @p out. Classes are provisional until tlbdet_crosscheck. ST_BAD_ARG for NULL, too few or too
 *  many points, or N not ascending; ST_BAD_DATA when a point has no windows. */
status_t tlbdet_detect(const struct tlb_curve *c, const struct tlbdet_params *p,
                    struct tlb_result *out);

/** Compare @p r's levels with @p cpu's TLB descriptors for the same side and page size (NULL
 *  @p cpu: TLBDET_F_NOT_CHECKED), set verdicts and flags, and settle the classes (a lone
 *  second plateau is a second-level hit when CPUID's second level is beyond the sweep, a walk
 *  otherwise). @p c is the curve @p r came from (for the sweep steps). */
status_t tlbdet_crosscheck(struct tlb_result *r, const struct tlb_curve *c,
                        const struct cpu_info *cpu);

/** Added latency of class @p cls in @p r (first plateau of that class) in @p *mcyc;
 *  ST_NOT_FOUND when the curve has no such plateau. */
status_t tlbdet_class_cost(const struct tlb_result *r, enum tlb_class cls, uint64_t *mcyc);

#endif
