/** @file
 * libpmucal, the run's other measurement files: c2c.json (`pmucal.c2c/1`, docs/numa.md: the
 * cache-to-cache classes as the c2c phase or `pmucal-host --c2c` measured them) and
 * numa-matrix.json (`pmucal.numa/1`: the node matrix and its loaded-latency curves), read by
 * the one version rule (docs/versioning.md) as the latency table is: any minor of major 1,
 * members this reader does not know ignored, enum values it does not know (a class's topology
 * or kind, a curve's "loaded") read as PMUCAL_UNKNOWN and counted in n_unknown, the first in
 * unknown_first. Library 1.3.
 *
 *     struct pmucal_c2c_file *c;
 *     if (pmucal_c2c_file_load("c2c.json", &c, err, sizeof(err)) == PMUCAL_OK)
 *             for (size_t i = 0; i < c->n_classes; i++) ... c->classes[i].p50_tsc ...
 *     pmucal_c2c_file_free(c);
 *
 * Figures carry their clock in their name (`_tsc`: TSC ticks, `_ns`: nanoseconds); the TSC
 * figures are read from the unit-named members (`p50_tsc_ticks`, c2c 1.3 on) where a file has
 * them, from the 1.x names (`p50_tsc`) in older files; NAN where the file has null or leaves
 * the figure out. PMUCAL_E_KIND for another document (a latency
 * table, say), so a caller can try another loader.
 */
#ifndef PMUCAL_LIB_FILES_H
#define PMUCAL_LIB_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmucal.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmucal_c2c_file_class {
        char     topology[24];  /* "smt" ... "other-package", or PMUCAL_UNKNOWN */
        char     kind[16];      /* "hit", "hitm", "write", "atomic", "pingpong", or PMUCAL_UNKNOWN */
        unsigned n_pairs;
        double   p50_tsc, min_tsc, max_tsc, p50_ns;
};

struct pmucal_c2c_file {
        unsigned                      major, minor;
        bool                          emulated;
        uint64_t                      tsc_hz;      /* 0 = unknown */
        size_t                        n_classes;
        struct pmucal_c2c_file_class *classes;
        size_t                        n_pairs;     /* measured pairs listed */
        size_t                        n_unknown;
        char                          unknown_first[160];
};

struct pmucal_numa_file {
        unsigned  major, minor;
        bool      emulated;
        uint64_t  tsc_hz;      /* 0 = unknown */
        unsigned  n_nodes;
        uint32_t *node_pd;     /* proximity domain of node i */
        double   *p50_ns;      /* n_nodes x n_nodes, CPU node rows; NAN: not measured */
        size_t    n_curves;    /* loaded-latency curves of a known "loaded" */
        size_t    n_unknown;
        char      unknown_first[160];
        /* Library 1.4, appended: each cell's p10 and p90 ns, as p50_ns (NAN: not measured or
         * not given), the spread pmucal-table diff weighs a change against. */
        double   *p10_ns, *p90_ns;
};

PMUCAL_API enum pmucal_err pmucal_c2c_file_load(const char *path, struct pmucal_c2c_file **out,
                                                char *err, size_t errlen);
PMUCAL_API enum pmucal_err pmucal_c2c_file_load_buf(const char *buf, size_t len, const char *name,
                                                    struct pmucal_c2c_file **out, char *err,
                                                    size_t errlen);
PMUCAL_API void pmucal_c2c_file_free(struct pmucal_c2c_file *c);

PMUCAL_API enum pmucal_err pmucal_numa_file_load(const char *path, struct pmucal_numa_file **out,
                                                 char *err, size_t errlen);
PMUCAL_API enum pmucal_err pmucal_numa_file_load_buf(const char *buf, size_t len,
                                                     const char *name,
                                                     struct pmucal_numa_file **out, char *err,
                                                     size_t errlen);
PMUCAL_API void pmucal_numa_file_free(struct pmucal_numa_file *n);

#ifdef __cplusplus
}
#endif

#endif
