/** @file Deliberate faults of RDMSR and RDPMC (see pmu/x86/fault_probe.h). */
#include "pmu/x86/fault_probe.h"

#include "boot/x86/msr.h"

status_t pmu_fault_probe_msr(uint64_t *val, unsigned *vector)
{
        status_t st = rdmsr_safe(PMU_FAULT_PROBE_MSR, val);

        *vector = st == ST_FAULT ? msr_last_fault_vector() : 0;
        return st;
}

status_t pmu_fault_probe_rdpmc(uint64_t *val, unsigned *vector)
{
        status_t st = rdpmc_safe(PMU_FAULT_PROBE_RDPMC, val);

        *vector = st == ST_FAULT ? msr_last_fault_vector() : 0;
        return st;
}
