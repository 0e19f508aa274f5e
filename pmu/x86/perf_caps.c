/** @file IA32_PERF_CAPABILITIES read on its own (see perf_caps.h). */
#include "pmu/x86/perf_caps.h"

#include "boot/x86/msr.h"
#include "pmu/x86/msr_arch.h"

status_t pmu_perf_caps_read(const struct cpu_info *cpu, uint64_t *raw)
{
        *raw = 0;
        if (!cpu->intel.pdcm)
                return ST_UNSUPPORTED;
        return rdmsr_safe(MSR_IA32_PERF_CAPABILITIES, raw);
}
