/** @file
 * The counted region for the PMU validation suite: program counters, run a kernel between
 * start and stop, read the counts. Interrupt masking is the caller's (val_run).
 */
#ifndef PMUCAL_KERNEL_PMU_H
#define PMUCAL_KERNEL_PMU_H

#include <stddef.h>
#include <stdint.h>

#include "pmu/pmu.h"

/** Count @p n events (@p ev[i] on @p slots[i], CPL 0 and 3) around @p fn(@p arg); the counts
 *  go to @p counts[i] (caller-owned, @p n entries). All counters start and stop together. */
status_t bench_pmu_measure(const struct pmu_event_desc *const *ev, const struct pmu_slot *slots,
                           size_t n, void (*fn)(void *arg), void *arg, uint64_t *counts);

#endif
