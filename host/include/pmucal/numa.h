/** @file
 * libpmucal, remote-memory and cache-to-cache part: read the sections a 1.3 latency table
 * adds ("numa", "loaded_latency", "c2c"; docs/latency-table.md) and sort a sampled load
 * latency into the buckets they define together with the table's levels: L1, L2, L3 from
 * the levels, then DRAM split by where the memory is ("DRAM-local", "DRAM-remote-1hop", ...),
 * and the cache-to-cache buckets ("c2c-<topology>-<kind>", e.g. "c2c-other-package-hitm").
 * Host library (libc and jansson); it reads the levels through struct pmucal_table
 * (host/include/pmucal/table.h) and the new members through its own loader.
 *
 *     struct pmucal_table *t; struct pmucal_numa *n; struct pmucal_match m;
 *     pmucal_table_load(path, &t, err, sizeof(err));
 *     pmucal_numa_load(path, &n, err, sizeof(err));          // a table without the sections
 *                                                           // loads with has_numa/has_c2c false
 *     pmucal_numa_classify(t, n, 182.0, PMUCAL_UNIT_NS, &m);  // m.bucket "DRAM-remote-1hop"
 *     pmucal_numa_classify_source_ns(t, n, "c2c-remote-hitm", 182.0, &m);
 *     // m.bucket "c2c-other-package-hitm", m.fit PMUCAL_FITS (or FASTER / SLOWER)
 *
 * A latency alone cannot tell a HITM from a DRAM access of the same cost: classification by
 * latency uses the levels and the DRAM levels only; the C2C buckets come with a data source
 * (pmucal_source_perf_data_src and pmucal_source_ibs in <pmucal/source.h> map PEBS and IBS
 * encodings to the names below), or from pmucal_numa_candidates_ns, which lists every bucket
 * a latency fits.
 *
 * By latency: the cache levels by the table's bucket bounds, exactly as
 * pmucal_table_classify (the last level too when it is a cache or "flat", up to its
 * ceiling); then the DRAM levels by their bounds, nearest first. Without DRAM levels a
 * latency above the table's last level is that level (DRAM), or PMUCAL_BUCKET_BEYOND above
 * a cache's ceiling (pmucal_table_classify's PMUCAL_LEVEL_BEYOND).
 *
 * Sources (case-sensitive):
 *   a level name ("L1".."L9", "DRAM", "flat", or any name of the table's levels)
 *   "lfb"                  a hit in a line fill buffer / miss address buffer: a load that
 *                          found a miss to its line in flight and waited for the rest of it;
 *                          bucket "LFB", range 0 up to the slowest memory bucket, no median
 *                          (p50_ns NaN)
 *   "dram", "dram-local", "DRAM-local"     local DRAM
 *   "DRAM-remote-<k>hop", "dram-remote-<k>hop"  (k 1..99)
 *   "dram-remote"          remote DRAM, distance unknown (IBS, PEBS): the remote level the
 *                          latency fits best
 *   "c2c-<topology>-<kind>" topology "smt", "same-module", "same-cluster", "same-l3",
 *                           "other-l3", "same-package", "other-package", or
 *                          "local" (any but other-package), "remote" (= other-package),
 *                          "any"; kind "hit", "hitm", "write" or "any"; the best fit among them
 * Anything else is PMUCAL_E_UNKNOWN_SOURCE. A known source the table has no bucket for ("L3"
 * on a two-level table, "DRAM-remote-2hop" with one remote distance, "c2c-smt-hit" when no
 * SMT pair was measured) is PMUCAL_E_NO_BUCKET.
 *
 * The one fallback rule: a source whose section the table lacks (DRAM sources on a table
 * without measured DRAM levels, "numa"; C2C sources without measured C2C classes, "c2c") is
 * sorted by its latency alone, as pmucal_numa_classify_ns does: "dram-local" on a table
 * without "numa" is its DRAM level for a DRAM latency. Check has_numa / has_c2c to tell.
 *
 * Fit ranges (all in ns): a cache level's range is its bucket of the table (previous bound,
 * upper bound]; a DRAM level's is [p10 / 1.5, p90 x 1.5 x L], where L (>= 1) is the largest
 * p90 under load over the idle p50 of the loaded-latency curves (1 without curves: what a
 * loaded system adds); a C2C bucket's is [p10 / 1.5, p90 x 1.5]. The factor 1.5 is the
 * spread a single sampled load has beyond the spread of window averages the table holds.
 */
#ifndef PMUCAL_LIB_NUMA_H
#define PMUCAL_LIB_NUMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "table.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PMUCAL_NUMA_MAX_NODES   16
#define PMUCAL_NUMA_MAX_LEVELS  8
#define PMUCAL_C2C_MAX_CLASSES  12   /* 4 topology classes x 3 kinds */
#define PMUCAL_LOADED_MAX_CURVES 17
#define PMUCAL_LOADED_MAX_POINTS 16
#define PMUCAL_FIT_SLACK        1.5  /* see the fit ranges above */
#define PMUCAL_BUCKET_BEYOND    "beyond" /* above the last cache level's ceiling */

struct pmucal_dram_level {
        char               name[32];      /* "DRAM-local", "DRAM-remote-1hop", ... */
        unsigned           cls, slit_distance, n_cells;
        bool               measured;      /* n_cells > 0: ns valid */
        struct pmucal_stat ns;
        bool               has_upper;
        double             upper_ns;
        size_t             n_pairs;
};

struct pmucal_c2c_class {
        char               topology[16];  /* "smt", "same-module", "same-cluster", "same-l3",
                                           * "other-l3", "same-package", "other-package" */
        char               kind[8];       /* "hit", "hitm", "write" */
        unsigned           n_pairs;
        struct pmucal_stat tsc;
        bool               has_ns;
        struct pmucal_stat ns;
};

struct pmucal_loaded_point {
        bool   measured, idle;
        double gb_s, p10_ns, p50_ns, p90_ns;
};

struct pmucal_loaded_curve {
        bool                       all_nodes;
        unsigned                   node;          /* proximity domain (not all_nodes) */
        size_t                     n_points;
        struct pmucal_loaded_point pt[PMUCAL_LOADED_MAX_POINTS];
};

/** A loaded-latency curve with all its points (library 1.4; pmucal_numa_curve). */
struct pmucal_curve {
        bool                              all_nodes;
        unsigned                          node;      /* proximity domain (not all_nodes) */
        size_t                            n_points;
        const struct pmucal_loaded_point *pt;        /* n_points; owned by the pmucal_numa */
};

struct pmucal_numa {
        unsigned major, minor;
        /* "numa" */
        bool                     has_numa, emulated;
        unsigned                 n_nodes;
        uint32_t                 node_pd[PMUCAL_NUMA_MAX_NODES];  /* proximity domain of row i */
        double                   p50_ns[PMUCAL_NUMA_MAX_NODES][PMUCAL_NUMA_MAX_NODES]; /* NAN: not measured */
        size_t                   n_dram;
        struct pmucal_dram_level dram[PMUCAL_NUMA_MAX_LEVELS];
        /* "loaded_latency" */
        size_t                     n_curves;
        struct pmucal_loaded_curve curve[PMUCAL_LOADED_MAX_CURVES];
        double                     load_factor;  /* L of the fit ranges; 1 without curves */
        /* "c2c" */
        bool                    has_c2c, c2c_emulated;
        uint64_t                c2c_tsc_hz;      /* 0 = unknown */
        size_t                  n_c2c;
        struct pmucal_c2c_class c2c[PMUCAL_C2C_MAX_CLASSES];
        size_t                  n_c2c_cpus;
        uint32_t               *c2c_apic;        /* n_c2c_cpus APIC IDs */
        double                 *c2c_hitm_tsc;    /* n x n, owner rows; NAN: not measured */
        /* Library 1.3, appended. Every C2C class of the file (c2c[] above holds the first
         * PMUCAL_C2C_MAX_CLASSES of them, n_c2c counts those): use pmucal_numa_c2c_count and
         * pmucal_numa_c2c_class, which see them all. */
        size_t                   n_c2c_all;
        struct pmucal_c2c_class *c2c_all;
        /* What a later minor of the schema added that this reader does not know: an enum
         * value it does not know ("topology", "kind" of a C2C class, "loaded" of a curve) is
         * read as "unknown" (a C2C class of it is no bucket; a loaded-latency curve of it is
         * left out of curve[]) and counted here; unknown_first names the first, path and value as written
         * (cut to fit). Members it does not know are ignored, at any depth. */
        size_t n_unknown;
        char   unknown_first[160];
        /* Library 1.4, appended. Each section whole: the fixed arrays above hold the first
         * PMUCAL_NUMA_MAX_NODES nodes (n_nodes counts those), PMUCAL_NUMA_MAX_LEVELS DRAM
         * levels (n_dram), PMUCAL_LOADED_MAX_CURVES curves (n_curves) of their first
         * PMUCAL_LOADED_MAX_POINTS points, for programs built against 1.3. Read the whole
         * through pmucal_numa_node_count, _node_pd, _matrix_ns, _dram_count, _dram_level,
         * _curve_count and _curve, which see everything the file holds. */
        unsigned                    n_nodes_all;
        uint32_t                   *node_pd_all;   /* n_nodes_all */
        double                     *p50_ns_all;    /* n_nodes_all x n_nodes_all, by CPU node row */
        size_t                      n_dram_all;
        struct pmucal_dram_level   *dram_all;
        size_t                      n_curves_all;
        struct pmucal_curve        *curves_all;
        struct pmucal_loaded_point *points_all;    /* the curves' points, one block */
};


/** How a latency sits in a bucket's fit range. */
enum pmucal_fit {
        PMUCAL_FITS = 0,
        PMUCAL_FASTER,  /* below the range: too fast for that source */
        PMUCAL_SLOWER,  /* above: slower than the source explains (queueing, a page walk) */
};

struct pmucal_match {
        char            bucket[40];     /* "L2", "DRAM-remote-1hop", "c2c-same-l3-hitm" */
        double          p50_ns;         /* the bucket's median */
        double          lo_ns, hi_ns;   /* its fit range (hi may be INFINITY) */
        enum pmucal_fit fit;
};

/** Load the remote sections of the latency table in @p path (any 1.x; a table without them
 *  loads with has_numa and has_c2c false). PMUCAL_E_SCHEMA names the bad field's path. */
PMUCAL_API enum pmucal_err pmucal_numa_load(const char *path, struct pmucal_numa **out, char *err,
                                 size_t errlen);
PMUCAL_API enum pmucal_err pmucal_numa_load_buf(const char *buf, size_t len, const char *name,
                                     struct pmucal_numa **out, char *err, size_t errlen);
PMUCAL_API void pmucal_numa_free(struct pmucal_numa *n);

/** How many C2C classes @p n holds (all of them, beyond PMUCAL_C2C_MAX_CLASSES too); 0 for
 *  NULL. Library 1.3. */
PMUCAL_API size_t pmucal_numa_c2c_count(const struct pmucal_numa *n);

/** C2C class @p i (0 .. pmucal_numa_c2c_count - 1) of @p n, or NULL; it belongs to @p n.
 *  A class whose topology or kind this reader does not know has PMUCAL_UNKNOWN there. */
PMUCAL_API const struct pmucal_c2c_class *pmucal_numa_c2c_class(const struct pmucal_numa *n,
                                                                 size_t i);

/** How many NUMA nodes the matrix of @p n has (all of them, beyond PMUCAL_NUMA_MAX_NODES
 *  too); 0 for NULL or a table without "numa". Library 1.4. */
PMUCAL_API unsigned pmucal_numa_node_count(const struct pmucal_numa *n);

/** The proximity domain of the matrix's row (and column) @p i, or UINT32_MAX when @p i is
 *  not below pmucal_numa_node_count. Library 1.4. */
PMUCAL_API uint32_t pmucal_numa_node_pd(const struct pmucal_numa *n, unsigned i);

/** The median latency, in ns, of the CPUs of node row @p from reading the memory of node
 *  column @p to; NAN when that cell was not measured or is outside the matrix. Library 1.4. */
PMUCAL_API double pmucal_numa_matrix_ns(const struct pmucal_numa *n, unsigned from, unsigned to);

/** How many DRAM levels @p n has (all of them); 0 for NULL. Library 1.4. */
PMUCAL_API size_t pmucal_numa_dram_count(const struct pmucal_numa *n);

/** DRAM level @p i (0 .. pmucal_numa_dram_count - 1), nearest first, or NULL; it belongs to
 *  @p n. Library 1.4. */
PMUCAL_API const struct pmucal_dram_level *pmucal_numa_dram_level(const struct pmucal_numa *n,
                                                                  size_t i);

/** How many loaded-latency curves @p n has (all of them; a curve of a "loaded" value this
 *  reader does not know is left out); 0 for NULL. Library 1.4. */
PMUCAL_API size_t pmucal_numa_curve_count(const struct pmucal_numa *n);

/** Loaded-latency curve @p i with all its points, or NULL; it belongs to @p n. Library 1.4. */
PMUCAL_API const struct pmucal_curve *pmucal_numa_curve(const struct pmucal_numa *n, size_t i);

/** The bucket of a latency of @p ns nanoseconds by latency alone (see above). PMUCAL_E_ARG
 *  for NULL, PMUCAL_E_RANGE for NaN, infinite or negative, PMUCAL_E_NO_RATIO when @p t has
 *  neither ns figures nor a TSC rate to convert its cycles. */
PMUCAL_API enum pmucal_err pmucal_numa_classify_ns(const struct pmucal_table *t,
                                                   const struct pmucal_numa *n, double ns,
                                                   struct pmucal_match *out);

/** The bucket of data source @p source (see the list above) and how @p ns fits it.
 *  PMUCAL_E_UNKNOWN_SOURCE for a name not in the list, PMUCAL_E_NO_BUCKET for a source the
 *  table has no bucket for, PMUCAL_E_RANGE, PMUCAL_E_NO_RATIO as above; checked in that
 *  order after PMUCAL_E_ARG (NULL). */
PMUCAL_API enum pmucal_err pmucal_numa_classify_source_ns(const struct pmucal_table *t,
                                               const struct pmucal_numa *n, const char *source,
                                               double ns, struct pmucal_match *out);

/** As the _ns functions (library 1.2) for a latency in @p unit (TSC ticks, core cycles, ns, or
 *  PMUCAL_UNIT_TABLE: the table's own clock, its method.clock), converted to ns as
 *  pmucal_table_convert does; PMUCAL_E_NO_RATIO when the table cannot (core cycles without a
 *  core:TSC ratio: see pmucal_table_set_core_ratio). They replace 1.1's
 *  pmucal_numa_classify_cycles and pmucal_numa_classify_source_cycles, which took the unit
 *  from the table (docs/libpmucal.md, "Compatibility"). */
PMUCAL_API enum pmucal_err pmucal_numa_classify(const struct pmucal_table *t,
                                                const struct pmucal_numa *n, double latency,
                                                enum pmucal_unit unit, struct pmucal_match *out);
PMUCAL_API enum pmucal_err pmucal_numa_classify_source(const struct pmucal_table *t,
                                                       const struct pmucal_numa *n,
                                                       const char *source, double latency,
                                                       enum pmucal_unit unit,
                                                       struct pmucal_match *out);

/** Every bucket (levels, DRAM levels, C2C) whose fit range holds @p ns, fastest median
 *  first; writes at most @p max and returns how many fit (0 on bad arguments). */
PMUCAL_API size_t pmucal_numa_candidates_ns(const struct pmucal_table *t,
                                            const struct pmucal_numa *n, double ns,
                                            struct pmucal_match *out, size_t max);

#ifdef __cplusplus
}
#endif

#endif
