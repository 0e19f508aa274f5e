/** @file
 * Level sets per core type and cache domain: which processors share a set of levels, and the
 * latency table's "core_types" section (docs/latency-table.md).
 *
 * Processors are grouped by what decides their cache latencies: the core type of a hybrid
 * part (CPUID 1AH) and the cache geometry each processor's own CPUID reports (the sizes of its
 * data/unified caches by level). With LAT_SETS_DOMAINS every last-level-cache domain is a
 * group of its own even where its geometry is another's. Each group is calibrated once, on one
 * of its processors (the BSP for the BSP's group), and the section says which APIC IDs and
 * domains the set covers: identical domains share one set, calibrated once. Pure: grouping and
 * formatting only; app/latency_sets.c measures.
 */
#ifndef PMUCAL_LATTABLE_SETS_H
#define PMUCAL_LATTABLE_SETS_H

#include "boot/topology.h"
#include "report/json.h"
#include "analysis/levels.h"
#include "report/rep.h"

#define LAT_SETS_MAX_CPUS 256u
#define LAT_SETS_MAX      16u

enum lat_sets_mode {
        LAT_SETS_AUTO,     /* by core type and cache geometry */
        LAT_SETS_DOMAINS,  /* ... and by last-level-cache domain */
};

/** One processor as the grouping sees it. */
struct lat_set_cpu {
        unsigned            idx;     /* the platform's index (for dispatch) */
        bool                is_bsp;
        struct cpu_topology topo;    /* its own description */
};

struct lat_set {
        bool               hybrid;
        uint8_t            core_type;                    /* 0 = not said */
        uint64_t           cache_bytes[TOPO_CACHE_LEVELS];
        unsigned           n_cpus, n_domains;
        uint32_t           apic_ids[LAT_SETS_MAX_CPUS];  /* ascending */
        uint32_t           domains[LAT_SETS_MAX_CPUS];   /* llc_domain values, ascending */
        unsigned           measure_idx;                  /* platform index to measure on */
        uint32_t           measure_apic;
        bool               is_bsp_set;                   /* holds the BSP: its levels are the
                                                            table's top-level ones */
        bool               measured;                     /* lv is valid */
        const char        *why_not;                      /* when not measured */
        struct lat_levels  lv;
};

struct lat_sets {
        enum lat_sets_mode mode;
        unsigned           n_cpus;     /* processors grouped */
        size_t             n;
        struct lat_set     set[LAT_SETS_MAX];
        unsigned           n_left_out; /* processors beyond LAT_SETS_MAX groups */
};

/** Group @p n processors @p cpus into @p out (the BSP's set first, then by first APIC ID). */
status_t rep_lat_sets_group(const struct lat_set_cpu *cpus, size_t n, enum lat_sets_mode mode,
                        struct lat_sets *out);

/** "core", "atom", "other" for a hybrid core type; NULL when not hybrid. */
const char *rep_lat_core_type_name(const struct lat_set *s);

/** Write the "core_types" member of the latency table (@p ctx: a const struct lat_sets *). */
void rep_lat_sets_json(struct json_w *w, void *ctx);

/** One console line per set: what it covers and, where measured, its levels' medians. */
status_t rep_lat_sets_text(struct rep_buf *out, const struct lat_sets *s);

/** Write the "levels" array and "bucket_upper_bounds" object of @p l into the object open
 *  in @p w (report/lattable_json.c; the same members the table's top level has). */
void rep_lat_json_levels(struct json_w *w, const struct lat_levels *l);

#endif
