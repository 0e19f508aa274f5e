/** @file
 * The clocks of pmu/clock.h on AArch64: the generic timer's CNTVCT_EL0 stands for the TSC
 * (the shared suite's "TSC" figures are then generic-timer ticks at CNTFRQ_EL0); there is no
 * APERF/MPERF, so the suite's cycles-vs-tsc check SKIPs with the reason (its PMUv3 part's
 * cycles-vs-timer checks the cycle counter against the generic timer instead). The core:TSC
 * ratio of a run (pmu_clock_ratio_*) serves the x86-64 sampling phase only and is not built
 * here.
 */
#include "pmu/clock.h"

#include "boot/arm64/sysreg.h"

uint64_t pmu_clock_tsc_read(void)
{
        return cntvct_ordered();
}

status_t pmu_clock_aperf_probe(const struct cpu_info *ci, const char **reason)
{
        (void)ci;
        if (reason)
                *reason = "no APERF/MPERF on AArch64 (the suite's cycles-vs-timer checks "
                          "the cycle counter against the generic timer)";
        return ST_UNSUPPORTED;
}

status_t pmu_clock_aperf_read(uint64_t *aperf, uint64_t *mperf)
{
        *aperf = *mperf = 0;
        return ST_UNSUPPORTED;
}
