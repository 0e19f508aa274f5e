/** @file
 * libpmucal, TLB part: read a pmucal TLB table (schema "pmucal.tlb/1", docs/tlb-table.md),
 * either the tlb-table.json document or the "tlb" member of a latency table, and classify the
 * latency a sampled access lost to a TLB miss (the added cycles over an L1 TLB hit, e.g. an
 * IBS op's TLB-refill latency) as an L1 TLB hit, a second-level TLB hit or a page walk, for a
 * side (dtlb/itlb) and page size. Host library (libc and jansson).
 *
 *     struct pmucal_tlb *t; char err[256];
 *     if (pmucal_tlb_load("tlb-table.json", &t, err, sizeof(err)) != PMUCAL_OK) ...
 *     const struct pmucal_tlb_class *k = pmucal_tlb_classify(t, "dtlb", 4096, 23.0);
 *     // k->name == "walk"
 *
 * Another major version is rejected (PMUCAL_E_VERSION); a malformed section is rejected with
 * the JSON path of the field (PMUCAL_E_SCHEMA: "t.json: curves[0].classes[1].added_mcyc: ...").
 */
#ifndef PMUCAL_TLB_H
#define PMUCAL_TLB_H

#include <stddef.h>
#include <stdint.h>

#include "host/include/pmucal/table.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PMUCAL_TLB_SCHEMA_PREFIX "pmucal.tlb/"
#define PMUCAL_TLB_MAJOR         1
#define PMUCAL_TLB_MAX_CLASSES   8

/** One plateau of a curve: what a miss class costs and where its bucket ends. */
struct pmucal_tlb_class {
        char     name[16];          /* "l1_hit", "l2_hit", "walk", "miss" */
        double   lat_cycles;        /* median latency per access, data access included */
        double   added_cycles;      /* over an L1 TLB hit */
        int      has_upper;         /* 0 for the last class */
        double   upper_added_cycles;/* bucket bound (inclusive) */
        uint64_t first_pages, last_pages;
};

struct pmucal_tlb_curve {
        char                    side[8];   /* "dtlb", "itlb" */
        uint64_t                page_bytes;
        char                    pte[8];    /* "near", "line", "page" */
        size_t                  n_levels;
        uint64_t                level_entries[PMUCAL_TLB_MAX_CLASSES];
        size_t                  n_classes;
        struct pmucal_tlb_class classes[PMUCAL_TLB_MAX_CLASSES];
};

struct pmucal_tlb {
        char                     schema[32];
        size_t                   n_curves;
        struct pmucal_tlb_curve *curves;
};

/** Load the TLB table in @p path (a pmucal.tlb document or a latency table with a "tlb"
 *  member). *@p out is a new table (pmucal_tlb_free) or NULL with a message in @p err. */
enum pmucal_err pmucal_tlb_load(const char *path, struct pmucal_tlb **out, char *err,
                                size_t errlen);

/** As pmucal_tlb_load from @p len bytes at @p buf; @p name names it in messages. */
enum pmucal_err pmucal_tlb_load_buf(const char *buf, size_t len, const char *name,
                                    struct pmucal_tlb **out, char *err, size_t errlen);

/** Free a TLB table (NULL is ignored). */
void pmucal_tlb_free(struct pmucal_tlb *t);

/** The curve for @p side and @p page_bytes used for classification (the "near" PTE layout,
 *  whose levels stand for the TLB capacities); NULL when there is none. */
const struct pmucal_tlb_curve *pmucal_tlb_curve(const struct pmucal_tlb *t, const char *side,
                                                uint64_t page_bytes);

/** The class an added latency of @p added_cycles belongs to in that curve: the first whose
 *  upper bound is >= it, else the last. NULL for no such curve, no classes or NaN/negative. */
const struct pmucal_tlb_class *pmucal_tlb_classify(const struct pmucal_tlb *t, const char *side,
                                                   uint64_t page_bytes, double added_cycles);

#ifdef __cplusplus
}
#endif

#endif
