/** @file
 * libpmucal, data sources (library 1.2): the pmucal source name (<pmucal/numa.h>: "L1",
 * "L2", "L3", "lfb", "dram-local", "dram-remote", "c2c-<topology>-<kind>", ...) of a sample
 * from what the hardware recorded: a PEBS / perf sample's perf_mem_data_src value (Linux
 * include/uapi/linux/perf_event.h), or an AMD IBS op's IbsOpData2 / IbsOpData3 (DataSrc,
 * RmtNode, CacheHitSt; DcMiss, L2Miss, DcMissNoMabAlloc, DcMissLat). Pure functions, no table.
 *
 *     const char *src; double lat;
 *     if (pmucal_source_perf_data_src(sample->data_src, &src) == PMUCAL_OK)
 *             pmucal_numa_classify_source(t, n, src, sample->weight, PMUCAL_UNIT_CORE, &m);
 *     if (pmucal_source_ibs_op(d2, d3, t->family, t->model, PMUCAL_IBS_LAYOUT_AUTO, &src,
 *                              &lat) == PMUCAL_OK && !isnan(lat))
 *             pmucal_numa_classify_source(t, n, src, lat, PMUCAL_UNIT_CORE, &m);
 *
 * An encoding pmucal has no bucket for (I/O, uncached, persistent or CXL memory, a
 * memory-side cache, "not available", a miss whose serving level was not recorded) is
 * PMUCAL_E_UNKNOWN_SOURCE, and *source then says what it was ("I/O", "uncached", ...), for
 * messages. The mapping is docs/libpmucal.md, "Data sources".
 */
#ifndef PMUCAL_SOURCE_H
#define PMUCAL_SOURCE_H

#include "pmucal.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The source of a perf_mem_data_src value (PEBS load latency, perf mem, Arm SPE, IBS through
 *  perf). *@p source is a static string. PMUCAL_E_ARG for NULL. */
PMUCAL_API enum pmucal_err pmucal_source_perf_data_src(uint64_t data_src, const char **source);

/** How IbsOpData2.DataSrc is laid out. */
enum pmucal_ibs_layout {
        PMUCAL_IBS_LAYOUT_AUTO = 0, /* from the CPU: ZEN4 for family 1Ah, and 19h models
                                       10h-1Fh, 60h-7Fh, A0h-AFh; else FAM17H */
        PMUCAL_IBS_LAYOUT_FAM17H,   /* Zen 1-3: DataSrc[2:0] */
        PMUCAL_IBS_LAYOUT_ZEN4,     /* Zen 4, 5 (CPUID IbsCaps bit 11): DataSrc[4:3] in
                                       IbsOpData2[7:6] */
};

/** The source of an IBS op sample from its IbsOpData2 (@p op_data2) and IbsOpData3
 *  (@p op_data3) on a CPU of @p family / @p model (for the layout and erratum 1293), and
 *  its DcMissLat in core cycles (NaN when the op did not miss the data cache or is not a
 *  load; @p dc_miss_lat_cycles may be NULL). *@p source is a static string. PMUCAL_E_ARG for
 *  NULL or a layout outside the enum. */
PMUCAL_API enum pmucal_err pmucal_source_ibs_op(uint64_t op_data2, uint64_t op_data3,
                                                unsigned family, unsigned model,
                                                enum pmucal_ibs_layout layout,
                                                const char **source, double *dc_miss_lat_cycles);

#ifdef __cplusplus
}
#endif

#endif
