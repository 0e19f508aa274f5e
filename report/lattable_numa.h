/** @file
 * The remote-memory and cache-to-cache sections of latency-table.json (schema 1.3, documented
 * field by field in docs/latency-table.md): "numa" (the node-to-node latency matrix and the
 * remote-DRAM levels by SLIT distance class, "DRAM-local", "DRAM-remote-1hop", ..., with
 * latency percentiles, bucket bounds and the node pairs each covers), "c2c" (cache-to-cache
 * classes HIT/HITM/write per topology class with percentiles, and the per-pair matrix),
 * "loaded_latency" and "bandwidth_matrix" (the loaded-latency curves, as numa-matrix.json has
 * them). Each is a struct lat_json_section that rep_lat_json() appends, so the core writer
 * (report/lattable.c) is untouched and old readers ignore the members. Pure functions over
 * what the NUMA and C2C phases measured (app/numa.c, app/c2c.c) or pmucal-host --c2c.
 *
 *     struct lat_json_section sec[LAT_REMOTE_MAX_SECTIONS];
 *     size_t n = rep_lat_remote_sections(numa_in, c2c_in, sec);   // either may be NULL
 *     rep_lat_json(&b, &meta, &curve, &levels, sec, n);
 */
#ifndef PMUCAL_LATTABLE_NUMA_H
#define PMUCAL_LATTABLE_NUMA_H

#include "report/c2c.h"
#include "report/lattable.h"
#include "report/loaded.h"
#include "report/numa.h"

/** The minor version of the latency table that carries these sections. */
#define LAT_REMOTE_SINCE_MINOR 3u

#define LAT_REMOTE_MAX_SECTIONS 4u

/** What the NUMA phase measured, as the table needs it (pointers into the phase's state,
 *  which must outlive the writer call). */
struct lat_numa_in {
        const struct numa_matrix  *m;
        const struct numa_classes *cls;
        const uint32_t            *pd;          /* proximity domain of node i; NULL: i */
        uint64_t                   ws_bytes;    /* buffer per node */
        uint32_t                   windows;     /* windows kept per cell */
        uint64_t                   tsc_hz;      /* the matrix's clock; 0: no _tsc figures */
        bool                       emulated;    /* QEMU TCG: the matrix is flat */
        /* loaded latency (NULL / 0: not measured) */
        const struct loaded_curve *curve;
        size_t                     n_curves;
        const struct bw_matrix    *bw;
};

/** What the cache-to-cache measurement gave. */
struct lat_c2c_in {
        const struct c2c_result *res;
        size_t                   n;
        unsigned                 lines, rounds;
        unsigned                 n_cpus;         /* processors taking part */
        const char              *pair_plan;      /* "every pair", "sample per class" */
        const char              *topology_source;/* "each CPU's own CPUID", "linux sysfs" */
        uint64_t                 tsc_hz;         /* 0: no ns figures */
        bool                     emulated;
};

/** One remote-DRAM level: the cells of a distance class pooled. Latencies in ps. */
struct lat_dram_level {
        unsigned cls;
        uint8_t  distance;
        unsigned n_cells;                 /* measured cells */
        uint64_t min_ps, p10_ps, p50_ps, p90_ps;
        bool     has_upper;               /* false for the slowest measured level */
        uint64_t upper_ps;                /* bucket bound to the next slower level */
        bool     overlap;                 /* p10..p90 overlaps the next level's */
};

/** Pool the cells of each class of @p c in @p m (the rule of the cache levels: min = the
 *  smallest cell p10, p10 = 10th percentile of the cells' p10, p50 = median of their p50,
 *  p90 = 90th percentile of their p90) and set the bounds between measured levels ordered
 *  by p50: the geometric mean of p90(k) and p10(k+1), of the medians where they overlap,
 *  never below p50(k). @p out has c->n_classes entries, in class order. */
void rep_lat_dram_levels(const struct numa_matrix *m, const struct numa_classes *c,
                     struct lat_dram_level *out);

/** The kinds the table's c2c section carries: hit, hitm, write (the latency buckets a reader
 *  classifies against); c2c.json has the atomic and ping-pong figures too. */
#define LAT_C2C_KINDS BENCH_C2C_ATOMIC

/** Per topology class and kind, the pairs pooled like the levels (in TSC ticks x 1000). */
struct lat_c2c_class {
        unsigned n_pairs;
        uint64_t min, p10, p50, p90;
};

void rep_lat_c2c_classes(const struct c2c_result *r, size_t n,
                     struct lat_c2c_class out[C2C__COUNT][BENCH_C2C__COUNT]);

/** Fill @p out (LAT_REMOTE_MAX_SECTIONS entries) with the sections there is data for;
 *  returns how many. @p numa without a matrix and @p c2c without results add nothing. */
size_t rep_lat_remote_sections(const struct lat_numa_in *numa, const struct lat_c2c_in *c2c,
                           struct lat_json_section *out);

/** The section writers themselves (ctx: a struct lat_numa_in or lat_c2c_in). */
void rep_lat_numa_json(struct json_w *w, void *ctx);
void rep_lat_loaded_json(struct json_w *w, void *ctx);
void rep_lat_c2c_json(struct json_w *w, void *ctx);

/** The remote-DRAM levels as console text (one line per level, ns). */
status_t rep_lat_dram_levels_text(struct rep_buf *b, const struct lat_numa_in *numa);

#endif
