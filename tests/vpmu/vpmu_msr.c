/** @file
 * The virtual PMU's MSR space (core counters, global control/status, the PEBS/LBR/IBS
 * registers through their files, poked MSRs, the write log), the MSR accessors of boot/x86/msr.h
 * on the model, and its TSC (pmu_clock_tsc_read wrapped at link time). See vpmu.h.
 */
#include "tests/vpmu/vpmu_priv.h"

#include "boot/x86/msr.h"

/* ---- the TSC ------------------------------------------------------------------------------ */

/* The instant the counters were last brought up to: a TSC read and the cycles the model
 * counts up to it are of the same moment (a second rdtsc here would put the host time between
 * the two reads, a preemption included, into the TSC but not the counters). */
uint64_t vpmu_tsc(void)
{
        if (!vp.p)
                return vp_tsc() + (uint64_t)vp.tsc_adj;
        vp_accrue(&vp_harness_step);
        return vp_tsc_model();
}

uint64_t vpmu_tsc_per_ms(void)
{
        return vp_tsc_per_ms();
}

uint64_t __wrap_pmu_clock_tsc_read(void);

/* The harness's TSC (pmu/x86/clock.c, -Wl,--wrap=pmu_clock_tsc_read) is the model's; a stall
 * armed for the instant after it strikes before the harness goes on. */
uint64_t __wrap_pmu_clock_tsc_read(void)
{
        uint64_t t = vpmu_tsc();

        vp_stall_point(VPMU_AT_TSC_READ, &vp_harness_step);
        return t;
}

/* ---- MSR space ------------------------------------------------------------------------------ */

static int in(uint32_t msr, uint32_t base, unsigned n, unsigned stride)
{
        if (msr < base || (msr - base) % stride || (msr - base) / stride >= n)
                return -1;
        return (int)((msr - base) / stride);
}

static bool fw_writes(void)
{
        return !vp_amd() && vp.p->pdcm && (vp.p->perf_caps & VP_CAP_FW_WRITE);
}

/* Core-counter registers; *v read, or NULL for "does it exist". */
static uint64_t *core_reg(uint32_t msr)
{
        int i;

        if (vp_amd()) {
                unsigned legacy = vp.p->ext_core ? 4 : 4;

                if ((i = in(msr, VP_K7_EVNTSEL0, legacy, 1)) >= 0)
                        return &vp.sel[i];   /* the legacy MSRs alias counters 0-3 [APM-2] */
                if ((i = in(msr, VP_K7_PERFCTR0, legacy, 1)) >= 0)
                        return &vp.ctr[i];
                if (vp.p->ext_core && (i = in(msr, VP_F15H_PERF_CTL0, vp_n_gp(), 2)) >= 0)
                        return &vp.sel[i];
                if (vp.p->ext_core && (i = in(msr, VP_F15H_PERF_CTR0, vp_n_gp(), 2)) >= 0)
                        return &vp.ctr[i];
                if (vp_has_global() && msr == VP_AMD_GLOBAL_STATUS)
                        return &vp.gstatus;
                if (vp_has_global() && msr == VP_AMD_GLOBAL_CTL)
                        return &vp.gctl;
                return NULL;
        }
        if ((i = in(msr, VP_IA32_PMC0, vp.p->n_gp, 1)) >= 0)
                return &vp.ctr[i];
        if (fw_writes() && (i = in(msr, VP_IA32_A_PMC0, vp.p->n_gp, 1)) >= 0)
                return &vp.ctr[i];
        if ((i = in(msr, VP_IA32_PERFEVTSEL0, vp.p->n_gp, 1)) >= 0)
                return &vp.sel[i];
        if (vp.p->version < 2)
                return NULL;
        if ((i = in(msr, VP_IA32_FIXED_CTR0, vp.p->n_fixed, 1)) >= 0)
                return &vp.fctr[i];
        if (msr == VP_IA32_FIXED_CTR_CTRL)
                return &vp.fctl;
        if (msr == VP_IA32_PERF_GLOBAL_STATUS)
                return &vp.gstatus;
        if (msr == VP_IA32_PERF_GLOBAL_CTRL)
                return &vp.gctl;
        return NULL;
}

static status_t fault(void)
{
        vp.last_vector = vp.f.fault_vector ? vp.f.fault_vector : VP_VEC_GP;
        vp.stats.n_faults++;
        return ST_FAULT;
}

static bool other_rd(uint32_t msr, uint64_t *v)
{
        static uint64_t zero;

        switch (msr) {
        case VP_IA32_APERF:
                *v = vpmu_tsc() * VPMU_CORE_PER_TSC; /* actual core clock */
                return true;
        case VP_IA32_MPERF:
                *v = vpmu_tsc(); /* the reference clock ticks at the TSC rate */
                return true;
        }
        if (!vp_amd()) {
                if (msr == VP_IA32_PERF_CAPABILITIES && vp.p->pdcm)
                        return *v = vp.p->perf_caps, true;
                if (msr == VP_IA32_MISC_ENABLE)
                        return *v = vp.misc_enable, true;
                if (msr == VP_IA32_DEBUGCTL)
                        return *v = vp.debugctl, true;
                if (vp.p->version >= 2 && (msr == VP_IA32_PERF_GLOBAL_OVF_CTRL ||
                                           (vp.p->version >= 4 && msr == VP_IA32_PERF_GLOBAL_STATUS_SET)))
                        return *v = zero, true;
                if (vp_pebs_rd(msr, v) || vp_lbr_rd(msr, v))
                        return true;
        } else {
                if (vp_has_global() && msr == VP_AMD_GLOBAL_STATUS_CLR)
                        return *v = 0, true;
                if (vp_ibs_rd(msr, v))
                        return true;
        }
        for (unsigned i = 0; i < vp.n_poke; i++)
                if (vp.poke[i].msr == msr)
                        return *v = vp.poke[i].val, true;
        return false;
}

static int core_wr(uint32_t msr, uint64_t v)
{
        uint64_t *r = core_reg(msr);
        int       i;

        if (!r)
                return 0;
        if (vp_amd()) {
                if (msr == VP_AMD_GLOBAL_STATUS)
                        return -1; /* read only [APM-2] */
                if (r >= vp.ctr && r < vp.ctr + VP_MAX_GP) {
                        *r = v & vp_width_mask(48);
                        return 1;
                }
                *r = v;
                return 1;
        }
        if (msr == VP_IA32_PERF_GLOBAL_STATUS)
                return -1;
        if ((i = in(msr, VP_IA32_A_PMC0, vp.p->n_gp, 1)) >= 0 && fw_writes()) {
                if (v & ~vp_width_mask(vp.p->gp_width))
                        return -1; /* [SDM-3B] full-width write beyond the width: #GP */
                vp.ctr[i] = (v + (uint64_t)vp.f.gp_write_skew) & vp_width_mask(vp.p->gp_width);
                return 1;
        }
        if ((i = in(msr, VP_IA32_PMC0, vp.p->n_gp, 1)) >= 0) {
                vp.ctr[i] = ((uint64_t)(int64_t)(int32_t)(uint32_t)v +
                             (uint64_t)vp.f.gp_write_skew) & vp_width_mask(vp.p->gp_width);
                return 1;
        }
        if ((i = in(msr, VP_IA32_FIXED_CTR0, vp.p->n_fixed, 1)) >= 0) {
                vp.fctr[i] = v & vp_width_mask(vp.p->fixed_width);
                return 1;
        }
        if ((i = in(msr, VP_IA32_PERFEVTSEL0, vp.p->n_gp, 1)) >= 0) {
                /* Adaptive_Record exists only with PEBS baseline; reserved bits #GP. */
                if ((v & VP_EVTSEL_ADAPTIVE) && !(vp.p->perf_caps & VP_CAP_PEBS_BASELINE))
                        return -1;
                if (v >> 35)
                        return -1;
                if ((vp.f.refuse_gp & (1u << i)) && (v & VP_EVTSEL_EN))
                        return -1;
                vp.sel[i] = v;
                return 1;
        }
        *r = v;
        return 1;
}

static status_t wr(uint32_t msr, uint64_t v)
{
        int h = core_wr(msr, v);

        if (!h && !vp_amd()) {
                if (msr == VP_IA32_PERF_CAPABILITIES)
                        h = vp.p->pdcm ? -1 : 0;
                else if (vp.p->version >= 2 && msr == VP_IA32_PERF_GLOBAL_OVF_CTRL) {
                        vp.gstatus &= ~v;
                        if (v & VP_STATUS_LBR_FRZ)
                                vp.lbr_frozen = false;
                        h = 1;
                } else if (vp.p->version >= 4 && msr == VP_IA32_PERF_GLOBAL_STATUS_SET) {
                        vp.gstatus |= v; /* [SDM-3B] "... Version 4": software sets bits */
                        h = 1;
                } else if (msr == VP_IA32_MISC_ENABLE) {
                        vp.misc_enable = v;
                        h = 1;
                } else if (msr == VP_IA32_DEBUGCTL) {
                        vp.debugctl = v;
                        if (vp.p->version < 4 && !vp.p->arch_lbr && (v & VP_DEBUGCTL_LBR))
                                vp.lbr_frozen = false;
                        h = 1;
                } else if (!(h = vp_pebs_wr(msr, v))) {
                        h = vp_lbr_wr(msr, v);
                }
        } else if (!h) {
                if (vp_has_global() && msr == VP_AMD_GLOBAL_STATUS_CLR) {
                        vp.gstatus &= ~v;
                        h = 1;
                } else {
                        h = vp_ibs_wr(msr, v);
                }
        }
        if (!h)
                for (unsigned i = 0; i < vp.n_poke; i++)
                        if (vp.poke[i].msr == msr) {
                                vp.poke[i].val = v;
                                h = 1;
                        }
        if (h <= 0)
                return fault();
        vp.stats.n_writes++;
        if (vp.n_log < VP_LOG_MAX) {
                vp.log[vp.n_log].msr = msr;
                vp.log[vp.n_log++].val = v;
        }
        return ST_OK;
}

/* ---- boot/x86/msr.h on the model --------------------------------------------------------- */

status_t rdmsr_safe(uint32_t msr, uint64_t *out)
{
        uint64_t *r;

        *out = 0;
        if (!vp.p)
                return fault();
        vp_accrue(&vp_harness_step);
        if (vp.in_pmi)
                vp_harness_cost(VP_MSR_INSNS, 0, VP_MSR_CYCLES);
        if ((r = core_reg(msr))) {
                *out = *r;
                return ST_OK;
        }
        return other_rd(msr, out) ? ST_OK : fault();
}

status_t wrmsr_safe(uint32_t msr, uint64_t val)
{
        if (!vp.p)
                return fault();
        vp_accrue(&vp_harness_step);
        if (vp.in_pmi)
                vp_harness_cost(VP_MSR_INSNS, 0, VP_MSR_CYCLES);
        return wr(msr, val);
}

status_t rdpmc_safe(uint32_t ecx, uint64_t *out)
{
        *out = 0;
        if (!vp.p)
                return fault();
        vp_accrue(&vp_harness_step);
        if (vp.in_pmi)
                vp_harness_cost(VP_MSR_INSNS, 0, VP_MSR_CYCLES);
        if (!vp_amd() && (ecx & (1u << 30))) { /* [SDM-2B] RDPMC: ECX[30] fixed */
                unsigned j = ecx & ~(1u << 30);
                if (vp.p->version < 2 || j >= vp.p->n_fixed)
                        return fault();
                *out = vp.fctr[j];
                return ST_OK;
        }
        if (ecx >= vp_n_gp())
                return fault();
        *out = vp.ctr[ecx];
        return ST_OK;
}

unsigned msr_last_fault_vector(void)
{
        return vp.last_vector;
}

/* ---- public: MSR inspection --------------------------------------------------------------- */

uint64_t vpmu_peek(uint32_t msr)
{
        uint64_t *r, v = 0;

        if (!vp.p)
                return 0;
        if ((r = core_reg(msr)))
                return *r;
        return other_rd(msr, &v) ? v : 0;
}

void vpmu_poke(uint32_t msr, uint64_t val)
{
        for (unsigned i = 0; i < vp.n_poke; i++)
                if (vp.poke[i].msr == msr) {
                        vp.poke[i].val = val;
                        return;
                }
        if (vp.n_poke < VP_MAX_POKE) {
                vp.poke[vp.n_poke].msr = msr;
                vp.poke[vp.n_poke++].val = val;
        }
}
