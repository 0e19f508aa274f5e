/** @file
 * The clocks a PMU measurement is scaled by: the TSC, APERF/MPERF, and the core:TSC ratio
 * over a run (APERF/MPERF where CPUID.06H:ECX[0] offers them, else the PMU's cycles event on
 * general counter 0). The phases above time and scale with these instead of reading MSRs or
 * the TSC themselves. [SDM-3B] "IA32_APERF", "IA32_MPERF"; [APM-2] "MPERF". Per architecture:
 * pmu/x86/clock.c; pmu/arm64/clock.c, where the "TSC" is the generic timer (CNTVCT_EL0),
 * there is no APERF/MPERF and the ratio comes from the cycle counter PMCCNTR_EL0.
 */
#ifndef PMUCAL_PMU_CLOCK_H
#define PMUCAL_PMU_CLOCK_H

#include <stdint.h>

#include "lib/status.h"
#include "boot/cpu_info.h"
#include "pmu/pmu.h"

/** The TSC, serialised on both sides (LFENCE; RDTSC; LFENCE). */
uint64_t pmu_clock_tsc_read(void);

/** Whether APERF/MPERF can be read on the CPU @p ci describes: ST_OK, or ST_UNSUPPORTED with
 *  *reason (static text) when CPUID.06H:ECX[0] is clear or the MSRs do not read back. */
status_t pmu_clock_aperf_probe(const struct cpu_info *ci, const char **reason);
/** Read APERF and MPERF (rdmsr_safe); the status of the first read that failed. */
status_t pmu_clock_aperf_read(uint64_t *aperf, uint64_t *mperf);

/** The core:TSC ratio over a run. */
struct pmu_clock_ratio {
        const char     *how;        /* "APERF/MPERF", "PMU cycles", NULL = none */
        uint64_t        a0, m0, t0; /* APERF, MPERF or counter, TSC at the start */
        struct pmu_slot slot;
};

/** Start measuring the core:TSC ratio on this CPU (@p cpu from the inventory, may be NULL).
 *  MPERF counts at the TSC rate on Intel and at P0 on AMD, which is the TSC rate of every
 *  Zen part. The PMU fallback takes general counter 0 (PEBS keeps counter 1). */
void pmu_clock_ratio_begin(struct pmu_clock_ratio *r, const struct cpu_info *cpu);
/** Stop; returns core cycles per TSC tick in Q16 and sets r->how; 0 (and how NULL) when
 *  unknown or outside 1/8 .. 8, which is taken as a failed measurement. */
uint32_t pmu_clock_ratio_end(struct pmu_clock_ratio *r);

#endif
