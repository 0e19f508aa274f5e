/** @file LFENCE made dispatch-serializing on AMD (see lfence.h). */
#include "boot/x86/lfence.h"

#include "boot/x86/msr.h"
#include "boot/x86/msr_misc.h"

status_t x86_lfence_serialize(const struct cpu_info *ci, struct x86_lfence *s)
{
        uint64_t v = 0, back = 0;

        *s = (struct x86_lfence){ .how = LFENCE_ARCH };
        if (!ci || (ci->vendor != VEN_AMD && ci->vendor != VEN_HYGON))
                return ST_OK;
        if (ci->amd.lfence_serializing) {
                s->how = LFENCE_CPUID;
                return ST_OK;
        }
        s->how = LFENCE_NOT_SERIALIZING;
        if ((s->st = rdmsr_safe(MSR_AMD64_DE_CFG, &v)) != ST_OK)
                return s->st;
        s->saved = v;
        if (v & DE_CFG_LFENCE_SERIALIZE) {
                s->how = LFENCE_DE_CFG_FOUND;
                return ST_OK;
        }
        if ((s->st = wrmsr_safe(MSR_AMD64_DE_CFG, v | DE_CFG_LFENCE_SERIALIZE)) != ST_OK)
                return s->st;
        /* a hypervisor may accept the write and drop it: read it back */
        if ((s->st = rdmsr_safe(MSR_AMD64_DE_CFG, &back)) != ST_OK)
                return s->st;
        if (!(back & DE_CFG_LFENCE_SERIALIZE)) {
                s->st = ST_UNSUPPORTED;
                return s->st;
        }
        s->how = LFENCE_DE_CFG_SET;
        s->st  = ST_OK;
        return ST_OK;
}

void x86_lfence_restore(struct x86_lfence *s)
{
        if (s->how != LFENCE_DE_CFG_SET || s->restored)
                return;
        s->restored = wrmsr_safe(MSR_AMD64_DE_CFG, s->saved) == ST_OK;
}

const char *x86_lfence_how_text(const struct x86_lfence *s)
{
        switch (s->how) {
        case LFENCE_ARCH:
                return "LFENCE is dispatch-serializing (architectural)";
        case LFENCE_CPUID:
                return "LFENCE is dispatch-serializing (CPUID 0x80000021 EAX[2])";
        case LFENCE_DE_CFG_FOUND:
                return "LFENCE is dispatch-serializing (DE_CFG[1], MSR 0xc0011029, found set)";
        case LFENCE_DE_CFG_SET:
                return "LFENCE made dispatch-serializing: DE_CFG[1] (MSR 0xc0011029) set by "
                       "pmucal as Linux init_amd does, restored at the end of the run";
        case LFENCE_NOT_SERIALIZING:
                return "LFENCE may not be dispatch-serializing: DE_CFG (MSR 0xc0011029) could "
                       "not be read or set; TSC reads may be taken early";
        }
        return "unknown";
}
