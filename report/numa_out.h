/** @file
 * The NUMA latency matrix as JSON and as console text (report/numa.h holds the analysis):
 * the MLC-style grid of p50 latencies (CPU node rows, memory node columns) with every SLIT or
 * HMAT DISAGREE marked in its cell, the distance classes with their latencies, and the
 * remote-DRAM level name of each class ("DRAM-local", "DRAM-remote-1hop", ...: the class
 * rank, see report/numa.h). Latencies are kept in ps; TSC ticks are derived with the TSC
 * frequency the caller measured (0: ticks not given).
 */
#ifndef PMUCAL_NUMA_OUT_H
#define PMUCAL_NUMA_OUT_H

#include "report/json.h"
#include "report/numa.h"
#include "report/rep.h"

/** Level name of distance class @p cls into @p buf: "DRAM-local" for class 0,
 *  "DRAM-remote-<k>hop" for class k. Returns @p buf. */
const char *numa_level_name(unsigned cls, char *buf, size_t n);

/** Write the members "matrix" (rows of cells) and "classes" into the object open in @p w.
 *  @p pd_of_node (NULL: the node index) names each node's proximity domain. */
void numa_json(struct json_w *w, const struct numa_matrix *m, const struct numa_classes *c,
               const uint32_t *pd_of_node, uint64_t tsc_hz);

/** The grid and the class table as text. */
status_t numa_text(struct rep_buf *b, const struct numa_matrix *m, const struct numa_classes *c,
                   uint64_t tsc_hz);

/** Count the checked cells: *@p n_agree / *@p n_disagree for SLIT and HMAT. */
void numa_verdict_counts(const struct numa_matrix *m, unsigned *slit_agree,
                         unsigned *slit_disagree, unsigned *hmat_agree, unsigned *hmat_disagree);

#endif
