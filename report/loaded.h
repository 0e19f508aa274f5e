/** @file
 * Loaded latency and the bandwidth matrix, as data and as output: the curve MLC's
 * --loaded_latency made familiar (the chase's latency on one processor against the read
 * bandwidth the other processors achieve at several injection rates, idle to full), one per
 * node and one with every node loaded, and the matrix of read bandwidth from the processors
 * of node i to memory on node j. JSON members, a text table and an ASCII plot of each curve.
 * Pure: the figures come from app/numa_loaded.c (bench/kernel_load.h generates the load).
 */
#ifndef PMUCAL_LOADED_H
#define PMUCAL_LOADED_H

#include "report/json.h"
#include "report/numa.h"
#include "report/rep.h"

#define LOADED_MAX_POINTS 8u
#define LOADED_IDLE       UINT32_MAX   /* delay of the point measured without load */

struct loaded_point {
        uint32_t delay;          /* empty iterations per line read; LOADED_IDLE: no load */
        unsigned n_loaders;      /* processors streaming */
        uint64_t bw_mb_s;        /* read bandwidth they achieved, 10^6 bytes per second */
        uint64_t p10_ps, p50_ps, p90_ps;
        bool     measured;
};

struct loaded_curve {
        int      node;           /* node index; -1: every node loaded */
        uint32_t chaser_apic;    /* APIC ID of the processor that chased */
        unsigned n_points;
        struct loaded_point pt[LOADED_MAX_POINTS];
};

struct bw_matrix {
        unsigned n_nodes;
        bool     measured[NUMA_MAX_NODES][NUMA_MAX_NODES];
        uint64_t mb_s[NUMA_MAX_NODES][NUMA_MAX_NODES];   /* node i's processors reading node j */
        unsigned n_readers[NUMA_MAX_NODES];
};

/** Write "loaded_latency" (the curves) and "bandwidth_matrix" into the object open in @p w;
 *  @p pd_of_node (NULL: index) names the nodes. */
void loaded_json(struct json_w *w, const struct loaded_curve *c, size_t n,
                 const struct bw_matrix *bw, const uint32_t *pd_of_node);

/** Each curve as a table and an ASCII plot (latency up, bandwidth across), then the
 *  bandwidth matrix. */
status_t loaded_text(struct rep_buf *b, const struct loaded_curve *c, size_t n,
                     const struct bw_matrix *bw);

/** The ASCII plot of one curve, @p rows x @p cols characters of plot area (points marked
 *  with their index 0-9 in order of rising load). */
status_t loaded_plot(struct rep_buf *b, const struct loaded_curve *c, unsigned rows,
                     unsigned cols);

#endif
