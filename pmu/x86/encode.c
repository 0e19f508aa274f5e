/** @file Event-select encoding (see encode.h). Pure. */
#include "pmu/x86/encode.h"

#include "pmu/x86/msr_amd.h"
#include "pmu/x86/msr_arch.h"

uint64_t pmu_counter_delta(uint64_t before, uint64_t after, unsigned width_bits)
{
        uint64_t m = pmu_width_mask(width_bits);

        return ((after & m) - (before & m)) & m;
}

/* Bits common to both layouts: the low 32 bits of PERFEVTSEL and PERF_CTL agree.
 * [SDM-3B] IA32_PERFEVTSELx; [APM-2] PerfEvtSeln */
static uint64_t low_bits(const struct pmu_event_desc *ev, unsigned flags)
{
        uint64_t v = (uint64_t)(ev->code & 0xff) |
                     ((uint64_t)ev->umask << ARCH_PERFMON_EVENTSEL_UMASK_SHIFT) |
                     ((uint64_t)ev->cmask << ARCH_PERFMON_EVENTSEL_CMASK_SHIFT);

        if (flags & PMU_USR)
                v |= ARCH_PERFMON_EVENTSEL_USR;
        if (flags & PMU_OS)
                v |= ARCH_PERFMON_EVENTSEL_OS;
        if (ev->edge)
                v |= ARCH_PERFMON_EVENTSEL_EDGE;
        if (flags & PMU_INT)
                v |= ARCH_PERFMON_EVENTSEL_INT;
        if (flags & PMU_EN)
                v |= ARCH_PERFMON_EVENTSEL_ENABLE;
        if (ev->inv)
                v |= ARCH_PERFMON_EVENTSEL_INV;
        return v;
}

uint64_t pmu_evtsel_encode(const struct pmu_event_desc *ev, unsigned flags)
{
        uint64_t v;

        if (!ev || ev->fixed >= 0)
                return 0;
        if (flags & PMU_LAYOUT_AMD) {
                if (ev->code > 0xfff || (flags & (PMU_ANY | PMU_ADAPTIVE)))
                        return 0;
                v = low_bits(ev, flags);
                v |= ((uint64_t)(ev->code >> 8) << AMD64_EVENTSEL_EVENT_HI_SHIFT) &
                     AMD64_EVENTSEL_EVENT_HI;
                if (flags & PMU_HOST_ONLY)
                        v |= AMD64_EVENTSEL_HOSTONLY;
                if (flags & PMU_GUEST_ONLY)
                        v |= AMD64_EVENTSEL_GUESTONLY;
                return v;
        }
        if (ev->code > 0xff || (flags & (PMU_HOST_ONLY | PMU_GUEST_ONLY)))
                return 0;
        v = low_bits(ev, flags);
        if (flags & PMU_ADAPTIVE)
                v |= ARCH_PERFMON_EVENTSEL_ADAPTIVE;
        if (flags & PMU_ANY)
                v |= ARCH_PERFMON_EVENTSEL_ANY;
        return v;
}

uint64_t pmu_fixed_ctrl_encode(unsigned flags)
{
        uint64_t v = 0;

        if (flags & PMU_OS)
                v |= FIXED_CTR_CTRL_OS;
        if (flags & PMU_USR)
                v |= FIXED_CTR_CTRL_USR;
        if (flags & PMU_ANY)
                v |= FIXED_CTR_CTRL_ANY;
        if (flags & PMU_INT)
                v |= FIXED_CTR_CTRL_PMI;
        return v;
}
