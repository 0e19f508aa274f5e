/** @file Core clock sources and inventory registers (see coreclk.h). */
#include "boot/x86/coreclk.h"

#include "boot/x86/msr.h"
#include "boot/x86/msr_misc.h"

status_t x86_aperf_mperf_read(uint64_t *aperf, uint64_t *mperf)
{
        status_t st;

        if ((st = rdmsr_safe(MSR_IA32_APERF, aperf)) != ST_OK)
                return st;
        return rdmsr_safe(MSR_IA32_MPERF, mperf);
}

bool x86_smi_count_exists(const struct cpu_info *cpu)
{
        return cpu && cpu->vendor == VEN_INTEL;
}

status_t x86_smi_count_read(uint64_t *count)
{
        return rdmsr_safe(MSR_SMI_COUNT, count);
}

status_t x86_ucode_rev_read(const struct cpu_info *cpu, uint64_t *rev)
{
        uint64_t v = 0;
        status_t st;

        *rev = 0;
        if (cpu->vendor == VEN_INTEL) {
                /* Intel wants 0 written and CPUID(1) executed before the read. [SDM-3A]
                 * "Microcode Update Facilities". */
                struct cpuid_regs r;
                wrmsr_safe(MSR_IA32_UCODE_REV, 0);
                cpuid_raw(1, 0, &r);
                st   = rdmsr_safe(MSR_IA32_UCODE_REV, &v);
                *rev = v >> UCODE_REV_INTEL_SHIFT;
                return st;
        }
        if (cpu->vendor == VEN_AMD || cpu->vendor == VEN_HYGON) {
                st   = rdmsr_safe(MSR_IA32_UCODE_REV, &v);
                *rev = v & UCODE_REV_AMD_MASK;
                return st;
        }
        return ST_UNSUPPORTED;
}

status_t x86_platform_info_read(const struct cpu_info *cpu, uint64_t *raw)
{
        *raw = 0;
        if (cpu->vendor != VEN_INTEL)
                return ST_UNSUPPORTED;
        return rdmsr_safe(MSR_PLATFORM_INFO, raw);
}

uint64_t x86_platform_info_nominal_hz(uint64_t raw)
{
        return ((raw & PLATFORM_INFO_MAX_NONTURBO_MASK) >> PLATFORM_INFO_MAX_NONTURBO_SHIFT) *
               100000000ull;
}
