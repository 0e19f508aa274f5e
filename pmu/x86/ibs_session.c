/** @file
 * The AMD IBS session (see pmu/x86/ibs_session.h): probe, the PMI dispatched to the armed
 * sides, both sides armed or stopped at once. [APM-2] "Instruction-Based Sampling";
 * [PPR-19h-01h] MSRC001_103x.
 */
#include "pmu/x86/ibs_session.h"

#include "boot/x86/apic.h"
#include "lib/base.h"
#include "lib/fmt.h"

status_t pmu_ibs_session_probe(const struct cpu_info *cpu, struct pmu_ibs_session *s)
{
        uint64_t ctl = 0;
        status_t st;

        if (!cpu || !s)
                return ST_BAD_ARG;
        memset(s, 0, sizeof(*s));
        if ((st = pmu_ibs_detect(cpu, &s->info)) != ST_OK) {
                fmt_snprintf(s->why, sizeof(s->why), "%s",
                             cpu->vendor != VEN_AMD && cpu->vendor != VEN_HYGON
                                     ? "not an AMD/Hygon CPU"
                                     : "CPUID.80000001H:ECX[10] IBS is clear");
                return ST_UNSUPPORTED;
        }
        /* IBS_CTL is read-only to software on every family ([PPR-19h-01h] MSRC001_103A); the
         * firmware sets it, except on Fam10h, where the OS writes the offset into northbridge
         * function 3 register 0x1CC of every node (Linux ibs.c setup_ibs_ctl). */
        if (rdmsr_safe(MSR_AMD64_IBSCTL, &ctl) != ST_OK) {
                fmt_snprintf(s->why, sizeof(s->why), "IBS_CTL (MSRC001_103A) faults on read");
                return ST_UNSUPPORTED;
        }
        pmu_ibs_ctl_decode(ctl, &s->lvt);
        if (!s->lvt.valid) {
                if (cpu->family == 0x10)
                        fmt_snprintf(s->why, sizeof(s->why),
                                     "Fam10h: IBS_CTL.LvtOffsetVal is clear and the offset is "
                                     "set through northbridge PCI config F3x%x, which the "
                                     "harness cannot reach (no PCI config access)",
                                     IBS_NB_PCI_IBSCTL_REG);
                else
                        fmt_snprintf(s->why, sizeof(s->why),
                                     "firmware left IBS_CTL.LvtOffsetVal clear (IBS_CTL=0x%llx): "
                                     "no extended LVT entry is assigned to IBS, and only the "
                                     "firmware may assign one on family 0x%x",
                                     (unsigned long long)ctl, cpu->family);
                return ST_UNSUPPORTED;
        }
        if (s->lvt.offset >= APIC_EILVT_NR_MAX) {
                fmt_snprintf(s->why, sizeof(s->why), "IBS_CTL names extended LVT entry %u; "
                             "the APIC has at most %u", s->lvt.offset, APIC_EILVT_NR_MAX);
                return ST_UNSUPPORTED;
        }
        return ST_OK;
}

status_t pmu_ibs_session_arm(struct pmu_ibs_session *s, uint64_t op_ctl, uint64_t fetch_ctl)
{
        status_t st;

        if (!s || (!op_ctl && !fetch_ctl))
                return ST_BAD_ARG;
        s->op_ctl = s->fetch_ctl = 0;
        if (op_ctl && (st = pmu_ibs_op_arm(s, op_ctl)) != ST_OK)
                return st;
        if (fetch_ctl && (st = pmu_ibs_fetch_arm(s, fetch_ctl)) != ST_OK) {
                pmu_ibs_session_disarm(s);
                return st;
        }
        return ST_OK;
}

void pmu_ibs_session_on_pmi(struct pmu_ibs_session *s)
{
        bool any = false;

        if (!s)
                return;
        s->n_pmi++;
        if (s->op_ctl)
                any |= pmu_ibs_op_take(s);
        if (s->fetch_ctl)
                any |= pmu_ibs_fetch_take(s);
        if (!any)
                s->n_spurious++;
}

status_t pmu_ibs_session_disarm(struct pmu_ibs_session *s)
{
        status_t op, fetch;

        if (!s)
                return ST_BAD_ARG;
        op = pmu_ibs_op_disarm(s);
        fetch = pmu_ibs_fetch_disarm(s);
        return op != ST_OK ? op : fetch;
}
