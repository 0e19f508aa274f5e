/** @file What IBS op and fetch sampling share: detection and IBS_CTL's LVT entry (see ibs.h). */
#include "pmu/x86/ibs.h"

#include "pmu/x86/quirks.h"

status_t pmu_ibs_detect(const struct cpu_info *cpu, struct pmu_ibs_info *out)
{
        if (!cpu || !out)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        if ((cpu->vendor != VEN_AMD && cpu->vendor != VEN_HYGON) || !cpu->amd.ibs)
                return ST_UNSUPPORTED;
        out->present = true;
        out->family = cpu->family;
        out->model = cpu->model;
        /* Linux __get_ibs_caps(): leaf absent or IBSFFV clear -> fetch + op sampling only. */
        if (cpu->max_ext_leaf < CPUID_IBS_FEATURES || !(cpu->amd.ibs_caps & IBS_CAPS_AVAIL))
                out->caps = (uint32_t)IBS_CAPS_DEFAULT;
        else
                out->caps = cpu->amd.ibs_caps;
        out->quirks = pmu_quirks_lookup(PMU_QUIRK_IBS, cpu->vendor, cpu->family, cpu->model,
                                        NULL);
        return ST_OK;
}

void pmu_ibs_ctl_decode(uint64_t ibs_ctl, struct pmu_ibs_lvt *out)
{
        out->offset = (unsigned)(ibs_ctl & IBSCTL_LVT_OFFSET);
        out->valid = (ibs_ctl & IBSCTL_LVT_OFFSET_VALID) != 0;
}

status_t pmu_ibs_eilvt_encode(uint8_t vector, unsigned msg_type, bool masked, uint32_t *out)
{
        if (!out)
                return ST_BAD_ARG;
        *out = 0;
        if (msg_type != APIC_EILVT_MSG_FIX && msg_type != APIC_EILVT_MSG_SMI &&
            msg_type != APIC_EILVT_MSG_NMI && msg_type != APIC_EILVT_MSG_EXT)
                return ST_BAD_ARG;
        *out = (uint32_t)(vector | (msg_type << APIC_EILVT_MSG_SHIFT) |
                          (masked ? APIC_EILVT_MASKED : 0));
        return ST_OK;
}

uint32_t pmu_ibs_eilvt_reg(unsigned offset)
{
        return APIC_EILVT0 + APIC_EILVT_STRIDE * offset;
}
