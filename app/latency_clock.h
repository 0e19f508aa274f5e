/** @file
 * The core clock of the firmware's latency sweep. bench_clock_init takes APERF/MPERF where
 * CPUID and the MSRs offer them; where they do not, the PMU's core-cycle counter serves:
 * Intel's fixed counter 1 (CPU_CLK_UNHALTED.THREAD), else general counter 0 counting the
 * cycles event (AMD's core cycles), read with the TSC around every window. On AArch64
 * (app/arm64/latency_clock.c) the PMU's cycle counter PMCCNTR_EL0 with the generic timer.
 * Where neither is readable (QEMU TCG has no PMU and no APERF) the clock keeps the reasons, and the table's
 * core figures are null. Portable: the PMU module does the register work.
 */
#ifndef PMUCAL_APP_LATENCY_CLOCK_H
#define PMUCAL_APP_LATENCY_CLOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/window.h"
#include "boot/cpu_info.h"
#include "pmu/pmu.h"

/** A PMU core-cycle source while it runs; zero it before use. */
struct lat_clock_pmu {
        struct pmu_slot slot;
        bool            running;
        char            why[320]; /* the reasons no core clock could be read */
};

/** Where @p clk has no core source, try the PMU (pmu_init on this CPU) and install it in
 *  clk->core; else set clk->core.why_none to the reasons (kept in @p p). */
void lat_clock_pmu_begin(struct lat_clock_pmu *p, struct bench_clock *clk,
                         const struct cpu_info *cpu);

/** Stop the counter lat_clock_pmu_begin started and give the counter MSRs back as pmu_init
 *  found them (nothing when it started none). */
void lat_clock_pmu_end(struct lat_clock_pmu *p);

#endif
