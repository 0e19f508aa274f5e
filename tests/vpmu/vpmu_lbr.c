/** @file
 * The virtual PMU's Last Branch Records: legacy stacks (TOS, FROM/TO blocks at the part's
 * addresses, LBR_INFO for formats 5/7, cycles in TO[63:48] for format 6) and Architectural
 * LBR (IA32_LBR_CTL/DEPTH, entry 0 newest, INFO with CYC_CNT_VALID and branch type), filled
 * from the workload's taken branches, frozen on PMI when DEBUGCTL asks. [SDM-3B] "Last
 * Branch Recording", "LBR Stack", "Architectural Last Branch Records"; Linux
 * arch/x86/events/intel/lbr.c.
 */
#include "tests/vpmu/vpmu_priv.h"

#include <string.h>

static unsigned fmt(void)
{
        return VP_CAP_LBR_FMT(vp.p->perf_caps);
}

static bool has_info(void)
{
        return vp.p->arch_lbr || fmt() == 5 || fmt() == 7;
}

/* Arch LBR depth the CPU offers: CPUID.1CH:EAX[7:0] bit n = 8(n+1) entries. */
static bool depth_ok(uint64_t d)
{
        return d && d <= 64 && d % 8 == 0 && (vp.p->lbr_1c_eax & (1u << (d / 8 - 1)));
}

static int slot(uint32_t msr, uint32_t base)
{
        unsigned n = vp.p->arch_lbr ? 32 : vp.p->lbr_depth;

        if (vp.p->arch_lbr && vp.lbr_depth)
                n = (unsigned)vp.lbr_depth;
        if (vp.p->arch_lbr) /* every MSR up to the deepest offered depth exists */
                n = 8 * (32 - (unsigned)__builtin_clz(vp.p->lbr_1c_eax & 0xff));
        return msr >= base && msr < base + n ? (int)(msr - base) : -1;
}

bool vp_lbr_rd(uint32_t msr, uint64_t *v)
{
        int i;

        if (vp.p->arch_lbr) {
                if (msr == VP_IA32_LBR_CTL)
                        return *v = vp.lbr_ctl, true;
                if (msr == VP_IA32_LBR_DEPTH)
                        return *v = vp.lbr_depth, true;
                if ((i = slot(msr, VP_IA32_LBR_FROM0)) >= 0)
                        return *v = vp.lbr_from[i], true;
                if ((i = slot(msr, VP_IA32_LBR_TO0)) >= 0)
                        return *v = vp.lbr_to[i], true;
                if ((i = slot(msr, VP_IA32_LBR_INFO0)) >= 0)
                        return *v = vp.lbr_info[i], true;
                return false;
        }
        if (!vp.p->lbr_depth)
                return false;
        if (msr == VP_MSR_LBR_TOS)
                return *v = vp.lbr_tos, true;
        if (msr == VP_MSR_LBR_SELECT)
                return *v = vp.lbr_select, true;
        if ((i = slot(msr, vp.p->lbr_from)) >= 0)
                return *v = vp.lbr_from[i], true;
        if ((i = slot(msr, vp.p->lbr_to)) >= 0)
                return *v = vp.lbr_to[i], true;
        if (has_info() && (i = slot(msr, VP_LBR_INFO0)) >= 0)
                return *v = vp.lbr_info[i], true;
        return false;
}

int vp_lbr_wr(uint32_t msr, uint64_t v)
{
        int i;

        if (vp.p->arch_lbr) {
                if (msr == VP_IA32_LBR_CTL) {
                        /* CPL bits need CPUID.1CH:EBX[0], branch filters EBX[1], call-stack
                         * EBX[2]; anything else is reserved: #GP [SDM-3B] IA32_LBR_CTL */
                        uint64_t ok = VP_LBR_CTL_EN;
                        if (vp.p->lbr_1c_ebx & 1)
                                ok |= VP_LBR_CTL_OS | VP_LBR_CTL_USR;
                        if (vp.p->lbr_1c_ebx & 2)
                                ok |= VP_LBR_CTL_FILTERS;
                        if (vp.p->lbr_1c_ebx & 4)
                                ok |= VP_LBR_CTL_CALL_STACK;
                        if (v & ~ok)
                                return -1;
                        vp.lbr_ctl = v;
                        return 1;
                }
                if (msr == VP_IA32_LBR_DEPTH) {
                        if (!depth_ok(v))
                                return -1;
                        vp.lbr_depth = v; /* writing the depth clears the stack */
                        memset(vp.lbr_from, 0, sizeof(vp.lbr_from));
                        memset(vp.lbr_to, 0, sizeof(vp.lbr_to));
                        memset(vp.lbr_info, 0, sizeof(vp.lbr_info));
                        return 1;
                }
                if ((i = slot(msr, VP_IA32_LBR_FROM0)) >= 0)
                        return vp.lbr_from[i] = v, 1;
                if ((i = slot(msr, VP_IA32_LBR_TO0)) >= 0)
                        return vp.lbr_to[i] = v, 1;
                if ((i = slot(msr, VP_IA32_LBR_INFO0)) >= 0)
                        return vp.lbr_info[i] = v, 1;
                return 0;
        }
        if (!vp.p->lbr_depth)
                return 0;
        if (msr == VP_MSR_LBR_SELECT)
                return vp.lbr_select = v & 0x3ff, 1;
        if (msr == VP_MSR_LBR_TOS)
                return -1; /* read only */
        if ((i = slot(msr, vp.p->lbr_from)) >= 0)
                return vp.lbr_from[i] = v, 1;
        if ((i = slot(msr, vp.p->lbr_to)) >= 0)
                return vp.lbr_to[i] = v, 1;
        if (has_info() && (i = slot(msr, VP_LBR_INFO0)) >= 0)
                return vp.lbr_info[i] = v, 1;
        return 0;
}

bool vp_lbr_recording(void)
{
        if (vp.p->amd || vp.lbr_frozen)
                return false;
        if (vp.p->arch_lbr)
                return (vp.lbr_ctl & VP_LBR_CTL_EN) && vp.lbr_depth;
        /* Legacy: DEBUGCTL.LBR, and LBR_SELECT must not suppress CPL 0 (bit 0) or
         * conditional branches (bit 2) [SDM-3B] MSR_LBR_SELECT */
        return vp.p->lbr_depth && (vp.debugctl & VP_DEBUGCTL_LBR) && !(vp.lbr_select & 0x5);
}

void vp_lbr_freeze(void)
{
        if (!vp_lbr_recording())
                return;
        /* v4+ and Arch LBR: GLOBAL_STATUS.LBR_FRZ until software clears it; before v4 the
         * freeze clears DEBUGCTL.LBR [SDM-3B] "Freezing LBR and Performance Counters on PMI" */
        vp.lbr_frozen = true;
        if (vp.p->version >= 4 || vp.p->arch_lbr)
                vp.gstatus |= VP_STATUS_LBR_FRZ;
        else
                vp.debugctl &= ~VP_DEBUGCTL_LBR;
}

void vp_lbr_push(const struct vpmu_branch *b)
{
        uint64_t cyc = b->cycles;

        if (!vp_lbr_recording())
                return;
        if (vp.f.lbr_cycles_scale_pct)
                cyc = cyc * vp.f.lbr_cycles_scale_pct / 100;
        if (cyc > 0xffff)
                cyc = 0xffff;
        vp.stats.n_lbr_pushed++;
        if (vp.p->arch_lbr) {
                unsigned d = (unsigned)vp.lbr_depth;
                /* entry 0 is the newest: shift [SDM-3B] Arch LBR */
                memmove(&vp.lbr_from[1], &vp.lbr_from[0], (d - 1) * 8);
                memmove(&vp.lbr_to[1], &vp.lbr_to[0], (d - 1) * 8);
                memmove(&vp.lbr_info[1], &vp.lbr_info[0], (d - 1) * 8);
                vp.lbr_from[0] = b->from;
                vp.lbr_to[0] = b->to;
                vp.lbr_info[0] = 0;
                if (vp.p->lbr_1c_ecx & 2)
                        vp.lbr_info[0] |= VP_LBR_INFO_CYC_VALID | cyc;
                if ((vp.p->lbr_1c_ecx & 1) && b->mispred)
                        vp.lbr_info[0] |= VP_LBR_INFO_MISPRED;
                if (vp.p->lbr_1c_ecx & 4)
                        vp.lbr_info[0] |= 0ull << VP_LBR_INFO_BR_TYPE_SHIFT; /* 0 = JCC */
                return;
        }
        unsigned d = vp.p->lbr_depth, t = (unsigned)(vp.lbr_tos + 1) & (d - 1);
        uint64_t from = b->from & ~VP_LBR_FROM_MISPRED, to = b->to;

        vp.lbr_tos = t;
        switch (fmt()) {
        case 3:
        case 4:
                from = (from & (~0ull >> 1)) | (b->mispred ? VP_LBR_FROM_MISPRED : 0);
                break;
        case 6: /* cycles in TO[63:48], mispredict in FROM[63] (Goldmont) */
                from = (from & (~0ull >> 1)) | (b->mispred ? VP_LBR_FROM_MISPRED : 0);
                to = (to & 0xffffffffffffull) | cyc << 48;
                break;
        }
        vp.lbr_from[t] = from;
        vp.lbr_to[t] = to;
        if (has_info())
                vp.lbr_info[t] = cyc | (b->mispred ? VP_LBR_INFO_MISPRED : 0);
}
