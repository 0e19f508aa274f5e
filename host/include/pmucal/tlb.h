/** @file
 * libpmucal, TLB tables: read a pmucal TLB table (schema "pmucal.tlb/1",
 * docs/tlb-table.md), either the tlb-table.json document or the "tlb" member of a latency
 * table, and classify the latency a sampled access lost to a TLB miss (the added cycles over
 * an L1 TLB hit, e.g. an IBS op's TLB-refill latency) as an L1 TLB hit, a second-level TLB
 * hit or a page walk, for a side (dTLB/iTLB) and page size. Conventions (errors, ownership,
 * threads): <pmucal/pmucal.h>.
 *
 *     struct pmucal_tlb *t; const struct pmucal_tlb_class *k; char err[256];
 *     if (pmucal_tlb_load("tlb-table.json", &t, err, sizeof(err)) != PMUCAL_OK) ...
 *     if (pmucal_tlb_classify(t, PMUCAL_TLB_DTLB, 4096, 23.0, PMUCAL_UNIT_TSC, &k) == PMUCAL_OK)
 *             puts(k->label);   // "walk"
 *
 * Units: TLB figures are TSC ticks (every writer times the TLB windows with the TSC; schema 1.2
 * says so in its clock object). They convert to core cycles with a measured core:TSC ratio,
 * from the table's clock object (1.2) or, for the tlb member of a latency table, from that
 * table's measured core clock; to ns with the TSC rate from the same places. Without them the
 * classifier returns PMUCAL_E_NO_RATIO.
 */
#ifndef PMUCAL_TLB_H
#define PMUCAL_TLB_H

#include "pmucal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PMUCAL_TLB_SCHEMA_PREFIX "pmucal.tlb/"
#define PMUCAL_TLB_MAJOR         1

enum pmucal_tlb_side { PMUCAL_TLB_DTLB = 0, PMUCAL_TLB_ITLB };
enum pmucal_tlb_pte { PMUCAL_TLB_PTE_NEAR = 0, PMUCAL_TLB_PTE_LINE, PMUCAL_TLB_PTE_PAGE };

/** What a class of TLB-miss latency is. */
enum pmucal_tlb_kind {
        PMUCAL_TLB_L1_HIT = 0, /* "l1_hit" */
        PMUCAL_TLB_L2_HIT,     /* "l2_hit": a second-level TLB hit */
        PMUCAL_TLB_WALK,       /* "walk": a page walk; a curve may have several, each a step
                                  further as the walk's PTEs leave the caches */
        PMUCAL_TLB_MISS,       /* "miss": one step only and no CPUID to tell which */
};

/** One plateau of a curve: what a miss class costs and where its bucket ends. */
struct pmucal_tlb_class {
        enum pmucal_tlb_kind kind;
        unsigned             ordinal;   /* 1 for the first class of its kind in the curve, 2
                                           for the second walk, ... */
        const char          *name;      /* the kind as in the file: "l1_hit", ..., "walk" */
        const char          *label;     /* unique in the curve: the name, or "walk2", "walk3",
                                           ... for the second and later walks */
        double               lat_cycles;         /* median latency per access, data included */
        double               added_cycles;       /* over an L1 TLB hit */
        bool                 has_upper;          /* false for the last class */
        double               upper_added_cycles; /* bucket bound (inclusive) */
        uint64_t             first_pages, last_pages;
};

struct pmucal_tlb_curve {
        enum pmucal_tlb_side     side;
        const char              *side_name;   /* "dtlb", "itlb" */
        uint64_t                 page_bytes;
        enum pmucal_tlb_pte      pte;
        const char              *pte_name;    /* "near", "line", "page" */
        size_t                   n_levels;
        const uint64_t          *level_entries;
        size_t                   n_classes;
        struct pmucal_tlb_class *classes;     /* cheapest first */
};

/** What a run says of its own spread for one curve (library 1.1). Informative members, read
 *  where the file gives them as positive integers and not checked further; 0 = not given. */
struct pmucal_tlb_spread {
        double          noise_cycles;     /* noise_mcyc / 1000: the curve's point-to-point
                                             noise (about one sigma of a point), TSC ticks */
        double          step_cycles;      /* step_mcyc / 1000: the smallest step the run's
                                             detector counts as a change of plateau */
        const uint64_t *level_next_pages; /* n_levels entries: levels[].next_pages, the first N
                                             past the level's crossing (the true entry count
                                             lies in [entries, next_pages)) */
};

struct pmucal_tlb {
        const char              *schema;      /* as written */
        unsigned                 major, minor;
        const char              *clock;       /* the clock of the figures: "tsc" */
        bool                     clock_stated;/* the document has a clock object (1.2) */
        enum pmucal_unit         cycles_unit; /* PMUCAL_UNIT_TSC */
        bool                     has_core_ratio; /* a measured core:TSC ratio is known */
        double                   core_per_tsc;
        uint64_t                 tsc_hz, core_hz; /* 0 = unknown */
        size_t                   n_curves;
        struct pmucal_tlb_curve *curves;
        /* 1.1: spread[i] is what curves[i]'s run says of its spread (n_curves entries) */
        const struct pmucal_tlb_spread *spread;
};

/** Load the TLB table in @p path (a pmucal.tlb document, or a latency table with a "tlb"
 *  member; at most 16 MiB). *@p out is a new table (pmucal_tlb_free) or NULL with a message
 *  in @p err. A latency table without a tlb member is PMUCAL_E_KIND. */
PMUCAL_API enum pmucal_err pmucal_tlb_load(const char *path, struct pmucal_tlb **out, char *err,
                                           size_t errlen);

/** As pmucal_tlb_load from @p len bytes at @p buf; @p name names it in messages. */
PMUCAL_API enum pmucal_err pmucal_tlb_load_buf(const char *buf, size_t len, const char *name,
                                               struct pmucal_tlb **out, char *err,
                                               size_t errlen);

/** Free a TLB table (NULL is ignored). */
PMUCAL_API void pmucal_tlb_free(struct pmucal_tlb *t);

/** The curve for @p side and @p page_bytes used for classification (the "near" PTE layout,
 *  whose levels stand for the TLB capacities): PMUCAL_E_NO_CURVE when there is none. */
PMUCAL_API enum pmucal_err pmucal_tlb_find_curve(const struct pmucal_tlb *t,
                                                 enum pmucal_tlb_side side, uint64_t page_bytes,
                                                 const struct pmucal_tlb_curve **curve);

/** The class an added latency @p added (in @p unit) belongs to in that curve: the first whose
 *  inclusive upper bound is >= it, else the last (a walk has no ceiling). PMUCAL_E_RANGE for
 *  NaN, infinite or negative, PMUCAL_E_NO_CURVE, PMUCAL_E_NO_RATIO as the latency classifier. */
PMUCAL_API enum pmucal_err pmucal_tlb_classify(const struct pmucal_tlb *t,
                                               enum pmucal_tlb_side side, uint64_t page_bytes,
                                               double added, enum pmucal_unit unit,
                                               const struct pmucal_tlb_class **cls);

/** pmucal_tlb_classify for @p n latencies: @p classes[i] is an index into the curve's
 *  classes, or PMUCAL_LEVEL_INVALID (-2; counted in *@p n_invalid when not NULL). Fails as a
 *  whole only for PMUCAL_E_ARG, PMUCAL_E_NO_CURVE and PMUCAL_E_NO_RATIO. */
PMUCAL_API enum pmucal_err pmucal_tlb_classify_batch(const struct pmucal_tlb *t,
                                                     enum pmucal_tlb_side side,
                                                     uint64_t page_bytes, const double *added,
                                                     size_t n, enum pmucal_unit unit,
                                                     int *classes, size_t *n_invalid);

/** "dtlb" / "itlb" to the enum; PMUCAL_E_ARG for anything else. */
PMUCAL_API enum pmucal_err pmucal_tlb_side_parse(const char *s, enum pmucal_tlb_side *side);

#ifdef __cplusplus
}
#endif

#endif
