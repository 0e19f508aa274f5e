/** @file
 * Analysis of the NUMA latency matrix: pure functions over arrays, no platform calls, no
 * clock.
 *
 * Distance classes group the node pairs of a SLIT by their relative distance: class 0 is
 * local (the diagonal), class k the k-th distinct remote distance in ascending order, which is
 * what "1 hop", "2 hops" mean on the 2- to 8-socket machines profilers see ([ACPI-6.5] §5.2.17
 * gives distances, not hops: the class number is the rank of the distance, and the table says
 * so). Unreachable pairs (255) belong to no class.
 *
 * The matrix check holds each measured remote/local ratio against SLIT's dist[i][j] / 10 and,
 * where the HMAT gives an access latency, the measured figure against it; every pair gets
 * agree / DISAGREE with both numbers, never a silent pass.
 */
#ifndef PMUCAL_NUMA_H
#define PMUCAL_NUMA_H

#include "boot/acpi.h"
#include "lib/base.h"
#include "lib/status.h"

#define NUMA_MAX_NODES   16u   /* the latency matrix measures at most 16 x 16 nodes */
#define NUMA_MAX_CLASSES 8u    /* local + up to 7 distinct remote distances */
#define NUMA_UNREACHABLE 255u  /* SLIT's "no path" */

/** One distance class: the pairs (i, j) whose SLIT distance is @p distance. */
struct numa_class {
        uint8_t  distance;          /* SLIT value: 10 local, > 10 remote */
        unsigned n_pairs;
        uint8_t  pair_i[NUMA_MAX_NODES * NUMA_MAX_NODES];
        uint8_t  pair_j[NUMA_MAX_NODES * NUMA_MAX_NODES];
};

struct numa_classes {
        unsigned          n_nodes;
        unsigned          n_classes;        /* class 0 is local */
        struct numa_class cls[NUMA_MAX_CLASSES];
        unsigned          n_unreachable;    /* off-diagonal pairs at 255 */
        bool              asymmetric;       /* dist[i][j] != dist[j][i] somewhere */
};

/** Group the pairs of @p n_nodes nodes into distance classes. SLIT is indexed by proximity
 *  domain, not by node position ([ACPI-6.5] §5.2.17; Linux's acpi_numa_slit_init() maps
 *  each locality through pxm_to_node()): the distance from node i to node j is
 *  dist[pd_of_node[i]][pd_of_node[j]] (@p pd_of_node NULL: pd i is node i). A domain the
 *  SLIT does not cover gets Linux's defaults, 10 to itself and 20 (REMOTE_DISTANCE) to
 *  others; so do all pairs when @p slit is NULL (no SLIT). @p n_nodes 0 with a SLIT and no
 *  @p pd_of_node means one node per locality. ST_BAD_ARG for 0 or more than NUMA_MAX_NODES
 *  nodes; ST_UNSUPPORTED for more distinct remote distances than NUMA_MAX_CLASSES - 1 (a
 *  partial grouping would mislead). */
status_t numa_classes_from_slit(const struct acpi_slit *slit, unsigned n_nodes,
                                const uint32_t *pd_of_node, struct numa_classes *out);

/** The SLIT distance from node @p i to node @p j under the mapping of
 *  numa_classes_from_slit(). */
uint8_t numa_slit_distance(const struct acpi_slit *slit, const uint32_t *pd_of_node, unsigned i,
                           unsigned j);

/** Class index of pair (@p i, @p j) in @p c; -1 when unreachable or out of range. */
int numa_class_of(const struct numa_classes *c, unsigned i, unsigned j);

enum numa_verdict { NUMA_NOT_CHECKED = 0, NUMA_AGREE, NUMA_DISAGREE };

/** One cell of the latency matrix: CPU on node i, buffer on node j. Latencies in ps. */
struct numa_cell {
        uint64_t          p10_ps, p50_ps, p90_ps;
        bool              measured;
        /* SLIT: measured p50[i][j] / p50[i][i] against dist[i][j] / 10, both in 1/1000. */
        uint32_t          ratio_milli, slit_ratio_milli;
        enum numa_verdict slit;
        bool              slit_unreachable;  /* SLIT gives 255 for the pair */
        /* HMAT: the access (or read) latency it gives for initiator i, target j. */
        uint64_t          hmat_ps;
        enum numa_verdict hmat;
};

struct numa_matrix {
        unsigned         n_nodes;
        struct numa_cell cell[NUMA_MAX_NODES][NUMA_MAX_NODES];
};

/** Tolerances of the checks, in percent of the reference. */
struct numa_tolerance {
        unsigned slit_pct;   /* measured ratio vs SLIT ratio */
        unsigned hmat_pct;   /* measured p50 vs HMAT latency */
};

/** Fill the SLIT and HMAT verdicts of every measured cell of @p m. The local cell m[i][i]
 *  must be measured for row i's ratios; @p slit / @p hmat may be NULL (not checked). SLIT
 *  distances and HMAT entries are looked up by proximity domain @p pd_of_node[i] (NULL: node
 *  index), as numa_slit_distance() says. A pair SLIT calls unreachable (255) gets no ratio
 *  verdict; its cell's slit_unreachable says so (a buffer there was measured all the same). */
void numa_matrix_check(struct numa_matrix *m, const struct acpi_slit *slit,
                       const struct acpi_hmat *hmat, const uint32_t *pd_of_node,
                       const struct numa_tolerance *tol);

/** Per distance class: the p50 of the class's cell medians and the range of them. */
struct numa_class_latency {
        uint8_t  distance;
        unsigned n_cells;               /* measured cells of the class */
        uint64_t p50_ps, min_ps, max_ps;
};

/** Summarise @p m by the classes of @p c into @p out (c->n_classes entries). */
void numa_class_latencies(const struct numa_matrix *m, const struct numa_classes *c,
                          struct numa_class_latency *out);

#endif
