/** @file
 * The latency phase's level sets per core type and cache domain (app/latency_sets.c): which
 * processors are alike, one sweep on one processor of every group the BSP is not in, and the
 * console lines and checks about them.
 */
#ifndef PMUCAL_APP_LATENCY_SETS_H
#define PMUCAL_APP_LATENCY_SETS_H

#include "app/run.h"
#include "bench/measure.h"
#include "report/lattable_sets.h"

/** Group the processors the cpus phase described and measure the groups the BSP is not in,
 *  with @p base (the BSP's sweep settings); @p bsp_levels are the BSP's. NULL when
 *  level_sets = off, no processor was described, or no memory. Free with plat_free. */
struct lat_sets *lat_sets_measure(const struct run *r, const struct bench_sweep_cfg *base,
                                  const struct lat_levels *bsp_levels);

/** Print the sets and the checks about them (nothing for NULL). */
void lat_sets_report(const struct lat_sets *s);

#endif
