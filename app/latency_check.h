/** @file
 * The latency phase's verdicts on what it produced (app/latency_check.c): points and windows
 * the sweep kept, the table and curve files as written, the levels' order. They are about
 * what the phase itself can get wrong, never about the machine's figures; each takes the
 * phase's results as arguments so that a test can put a value at its edge.
 */
#ifndef PMUCAL_APP_LATENCY_CHECK_H
#define PMUCAL_APP_LATENCY_CHECK_H

#include "bench/measure.h"
#include "analysis/levels.h"
#include "report/rep.h"

#define LAT_TABLE_FILE "latency-table.json"
#define LAT_CURVE_FILE "latency-curve.csv"

/** Points left out as all-disturbed (at most 10 % of the attempts, each point with one window
 *  or more) and points that kept all their windows (90 % or more where interrupts are masked).
 *  On bare metal (@p cpu says no hypervisor) these are checks, else INFO or WARN. */
void lat_check_sweep(const struct lat_curve *c, const struct bench_sweep_info *in,
                     const struct cpu_info *cpu);

/** @p json reads back with the table's schema and as many levels as @p l has; @p csv has the
 *  header and one line per point of @p c. */
void lat_check_files(const struct lat_curve *c, const struct lat_levels *l,
                     const struct rep_buf *json, const struct rep_buf *csv);

/** Latency and capacity increase level by level, each bound lies in [its level's median, the
 *  next level's median), and only the last level (DRAM) has no capacity. */
void lat_check_levels(const struct lat_levels *l);

#endif
