/** @file
 * State shared by the NUMA phase's files: the nodes, the processor measuring from each, the
 * buffers placed on each, the matrix (app/numa.c) and the loaded-latency curves and bandwidth
 * matrix (app/numa_loaded.c), both measured by one chase (app/numa_chase.c). app/ only.
 */
#ifndef PMUCAL_APP_NUMA_PRIV_H
#define PMUCAL_APP_NUMA_PRIV_H

#include "app/numa_mem.h"
#include "app/run.h"
#include "bench/chase_job.h"
#include "report/loaded.h"
#include "report/numa.h"

#define JOB_TIMEOUT_US   (120u * 1000 * 1000)

struct numa_run {
        unsigned           n_nodes;
        uint32_t           pd[NUMA_MAX_NODES];
        int                cpu[NUMA_MAX_NODES];     /* processor index measuring from node i */
        struct numa_place  place[NUMA_MAX_NODES];
        void              *chain[NUMA_MAX_NODES];
        uint64_t           ws;
        enum plat_page_kind page;      /* the chase and load buffers' pages: the latency
                                        * sweep's DRAM page size */
        const struct acpi_slit *slit;  /* SRAT's SLIT, or the platform's node distances */
        uint32_t           windows;
        uint32_t           window_us;  /* a chase window's target length */
        struct numa_matrix m;
        struct numa_classes cls;
        struct bench_clock clock;
        struct bench_guard guard;
        uint64_t           n_windows, n_loads;  /* every chase so far (app_numa_chase), for the
                                                 * cost lines make bench reads */
        unsigned           n_disturbed;         /* cells and points left out: every window
                                                 * disturbed (ST_DISTURBED) */
        /* loaded latency (app/numa_loaded.c) */
        struct numa_place   load_place[NUMA_MAX_NODES];   /* the loaders' buffer per node */
        struct loaded_curve curve[NUMA_MAX_NODES + 1];
        size_t              n_curves;
        struct bw_matrix    bw;
};


/** Run @p job on processor @p cpu (directly on the BSP) and turn its windows into a cell's
 *  p10/p50/p90 in ps. */
status_t app_numa_chase(struct numa_run *s, unsigned cpu, void *chain, struct bench_chase_job *job,
                    uint64_t *p10_ps, uint64_t *p50_ps, uint64_t *p90_ps);

/** Loaded-latency curves (per node, then every node) and the bandwidth matrix, with the
 *  processors parked and the chase buffers placed; prints and checks its part. */
void app_numa_loaded(struct numa_run *s, struct run *r, bool emulated);
/** Free the loaders' buffers. */
void app_numa_loaded_free(struct numa_run *s);

#endif
