/** @file
 * The AMD IBS session (see pmu/x86/ibs_session.h): probe, arm, the PMI body, disarm.
 * [APM-2] "Instruction-Based Sampling"; [PPR-19h-01h] MSRC001_103x; Linux
 * arch/x86/events/amd/ibs.c for the re-arm and disable rules.
 */
#include "pmu/x86/ibs_session.h"

#include "boot/x86/apic.h"
#include "boot/x86/msr.h"
#include "lib/base.h"
#include "lib/fmt.h"

/* ---- private helpers -------------------------------------------------------------------- */

static bool has_cap(const struct pmu_ibs_session *s, uint64_t cap)
{
        return (s->info.caps & cap) != 0;
}

static void rd(struct pmu_ibs_session *s, uint32_t msr, uint64_t *v)
{
        if (rdmsr_safe(msr, v) != ST_OK)
                s->n_errors++;
}

static void wr(struct pmu_ibs_session *s, uint32_t msr, uint64_t v)
{
        if (wrmsr_safe(msr, v) != ST_OK)
                s->n_errors++;
}

/* Op side: IbsOpVal set -> read the sample, then re-arm (Linux perf_ibs_handle_irq). */
static bool take_op(struct pmu_ibs_session *s)
{
        struct pmu_ibs_op_regs r = { 0 };

        rd(s, MSR_AMD64_IBSOPCTL, &r.op_ctl);
        if (!(r.op_ctl & IBSOPCTL_OP_VAL))
                return false;
        rd(s, MSR_AMD64_IBSOPRIP, &r.op_rip);
        rd(s, MSR_AMD64_IBSOPDATA, &r.op_data);
        rd(s, MSR_AMD64_IBSOPDATA2, &r.op_data2);
        rd(s, MSR_AMD64_IBSOPDATA3, &r.op_data3);
        rd(s, MSR_AMD64_IBSDCLINAD, &r.dc_linad);
        rd(s, MSR_AMD64_IBSDCPHYSAD, &r.dc_physad);
        if (has_cap(s, IBS_CAPS_BRNTRGT))
                rd(s, MSR_AMD64_IBSBRTARGET, &r.br_target);
        if (has_cap(s, IBS_CAPS_OPDATA4))
                rd(s, MSR_AMD64_IBSOPDATA4, &r.op_data4);
        if (s->ops && s->n_op < s->op_cap)
                s->ops[s->n_op++] = r;
        else
                s->n_dropped++;
        uint64_t rearm = pmu_ibs_op_ctl_rearm(&s->info, s->op_ctl, r.op_ctl);
        s->op_carried += pmu_ibs_op_ctl_carried(rearm);
        wr(s, MSR_AMD64_IBSOPCTL, rearm);
        return true;
}

/* Fetch side. Re-arming writes the armed value (Val and Cnt clear); where the fetch counter
 * does not reset on a write, En is toggled first (Linux ibs.c fetch_count_reset_broken). */
static bool take_fetch(struct pmu_ibs_session *s)
{
        struct pmu_ibs_fetch_regs r = { 0 };

        rd(s, MSR_AMD64_IBSFETCHCTL, &r.fetch_ctl);
        if (!(r.fetch_ctl & IBSFETCHCTL_VAL))
                return false;
        rd(s, MSR_AMD64_IBSFETCHLINAD, &r.fetch_linad);
        rd(s, MSR_AMD64_IBSFETCHPHYSAD, &r.fetch_physad);
        if (has_cap(s, IBS_CAPS_FETCHCTLEXTD))
                rd(s, MSR_AMD64_ICIBSEXTDCTL, &r.fetch_ctl_extd);
        if (s->fetches && s->n_fetch < s->fetch_cap)
                s->fetches[s->n_fetch++] = r;
        else
                s->n_dropped++;
        if (s->info.quirks & PMU_IBS_Q_FETCH_CNT_RESET)
                wr(s, MSR_AMD64_IBSFETCHCTL, s->fetch_ctl & ~IBSFETCHCTL_EN);
        wr(s, MSR_AMD64_IBSFETCHCTL, s->fetch_ctl);
        return true;
}

/* ---- public functions ------------------------------------------------------------------- */

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
        s->op_ctl = op_ctl & ~(IBSOPCTL_OP_VAL | IBSOPCTL_CURCNT);
        s->fetch_ctl = fetch_ctl & ~(IBSFETCHCTL_VAL | IBSFETCHCTL_CNT);
        s->n_op = s->n_fetch = 0;
        s->op_tail = 0;
        s->op_carried = 0;
        s->n_pmi = s->n_spurious = s->n_dropped = s->n_errors = 0;
        if (s->op_ctl && (st = wrmsr_safe(MSR_AMD64_IBSOPCTL, s->op_ctl)) != ST_OK)
                return st;
        if (s->fetch_ctl && (st = wrmsr_safe(MSR_AMD64_IBSFETCHCTL, s->fetch_ctl)) != ST_OK) {
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
                any |= take_op(s);
        if (s->fetch_ctl)
                any |= take_fetch(s);
        if (!any)
                s->n_spurious++;
}

status_t pmu_ibs_session_disarm(struct pmu_ibs_session *s)
{
        uint64_t seq[2], cur = 0;
        status_t first = ST_OK, st;
        unsigned n;

        if (!s)
                return ST_BAD_ARG;
        if (s->op_ctl) {
                if (rdmsr_safe(MSR_AMD64_IBSOPCTL, &cur) == ST_OK)
                        s->op_tail = (cur & IBSOPCTL_OP_VAL) ? 0
                                                            : pmu_ibs_op_ctl_count(&s->info, cur);
                n = pmu_ibs_disable_seq(&s->info, cur ? cur : s->op_ctl, true, seq);
                for (unsigned i = 0; i < n; i++)
                        if ((st = wrmsr_safe(MSR_AMD64_IBSOPCTL, seq[i])) != ST_OK && !first)
                                first = st;
                s->op_ctl = 0;
        }
        if (s->fetch_ctl) {
                if (rdmsr_safe(MSR_AMD64_IBSFETCHCTL, &cur) != ST_OK)
                        cur = s->fetch_ctl;
                n = pmu_ibs_disable_seq(&s->info, cur, false, seq);
                for (unsigned i = 0; i < n; i++)
                        if ((st = wrmsr_safe(MSR_AMD64_IBSFETCHCTL, seq[i])) != ST_OK && !first)
                                first = st;
                s->fetch_ctl = 0;
        }
        return first;
}
