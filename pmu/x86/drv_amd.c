/** @file
 * AMD core performance counters. [APM-2] "Performance Monitoring Counters". Legacy: four
 * PerfEvtSel/PerfCtr pairs at 0xC0010000/0xC0010004. PerfCtrExtCore (CPUID.80000001H:ECX[23]):
 * six interleaved PERF_CTL/PERF_CTR pairs from 0xC0010200, stride 2. PerfMonV2
 * (CPUID.80000022H:EAX[0]): count from EBX[3:0], PerfCntrGlobalCtl/Status/StatusClr, and a
 * counter counts only when both PERF_CTL.En and its GlobalCtl bit are set. 48-bit counters,
 * written at full width.
 */
#include "boot/plat.h"
#include "pmu/x86/pmu_priv.h"
#include "boot/x86/msr.h"
#include "pmu/x86/msr_amd.h"

#define ZEN_FIRST_FAMILY 0x17 /* every Zen core has PerfCtrExtCore */

static const char no_ext[] = "CPUID.80000001H:ECX[23] PerfCtrExtCore clear on a Zen-era or "
                             "virtual CPU: no usable core PMU (QEMU TCG reports this)";
static const char ctl0_gp[] = "PERF_CTL0 raised #GP although CPUID lists it";

static uint32_t ctl_msr(const struct pmu_caps *c, unsigned n)
{
        return c->evtsel_base + c->msr_stride * n;
}

static uint32_t ctr_msr(const struct pmu_caps *c, unsigned n)
{
        return c->ctr_base + c->msr_stride * n;
}

static status_t probe(struct pmu_caps *c, const struct cpu_info *ci)
{
        const struct cpu_pmu_amd *a = &ci->amd;
        uint64_t                  v;

        if (a->perfctr_core) {
                c->kind        = PMU_AMD_CORE_EXT;
                c->n_gp        = AMD64_NUM_COUNTERS_CORE;
                if (a->perfmon_v2 && a->n_core)
                        c->n_gp = a->n_core > PMU_MAX_GP ? PMU_MAX_GP : a->n_core;
                c->evtsel_base = MSR_F15H_PERF_CTL;
                c->ctr_base    = MSR_F15H_PERF_CTR;
                c->msr_stride  = 2;
        } else if (ci->family >= ZEN_FIRST_FAMILY || ci->hypervisor) {
                c->reason = no_ext;
                return ST_UNSUPPORTED;
        } else {
                c->kind        = PMU_AMD_LEGACY;
                c->n_gp        = AMD64_NUM_COUNTERS;
                c->evtsel_base = MSR_K7_EVNTSEL0;
                c->ctr_base    = MSR_K7_PERFCTR0;
                c->msr_stride  = 1;
        }
        c->ctr_write_base    = c->ctr_base;
        c->gp_width          = AMD64_COUNTER_WIDTH;
        c->full_width_writes = true;
        c->version           = 1;
        if (rdmsr_safe(ctl_msr(c, 0), &v) != ST_OK) {
                c->reason = ctl0_gp;
                return ST_UNSUPPORTED;
        }
        if (a->perfctr_core && a->perfmon_v2 &&
            rdmsr_safe(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, &v) == ST_OK) {
                c->version    = 2;
                c->has_global = true;
        }
        return ST_OK;
}

static uint64_t gp_mask(const struct pmu_caps *c)
{
        return BIT_ULL(c->n_gp) - 1;
}

static status_t write_ctr(struct pmu_state *st, struct pmu_slot s, uint64_t val)
{
        return wrmsr_safe(ctr_msr(&st->caps, s.idx), val & pmu_width_mask(st->caps.gp_width));
}

static status_t program(struct pmu_state *st, struct pmu_slot s, const struct pmu_event_desc *ev,
                        unsigned flags, uint64_t start)
{
        const struct pmu_caps *c = &st->caps;
        status_t               r;

        /* Without PerfMonV2 the En bit is the only enable, so start() sets it. */
        uint64_t sel = pmu_evtsel_encode(ev, flags | PMU_LAYOUT_AMD | (c->has_global ? PMU_EN : 0));
        if (!sel)
                return ST_BAD_ARG;
        if ((r = wrmsr_safe(ctl_msr(c, s.idx), 0)) != ST_OK)
                return r;
        st->programmed &= ~(1u << s.idx);
        if ((r = write_ctr(st, s, start)) != ST_OK)
                return r;
        if ((r = wrmsr_safe(ctl_msr(c, s.idx), sel)) != ST_OK)
                return r;
        st->evtsel[s.idx] = sel;
        st->start[s.idx]  = start & pmu_width_mask(c->gp_width);
        st->programmed |= 1u << s.idx;
        return ST_OK;
}

static status_t set_enable(struct pmu_state *st, uint64_t mask, bool on)
{
        const struct pmu_caps *c = &st->caps;
        status_t               r;

        if (mask & ~gp_mask(c))
                return ST_BAD_ARG;
        if (c->has_global) {
                uint64_t g = on ? st->global_ctrl | mask : st->global_ctrl & ~mask;

                if ((r = wrmsr_safe(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, g)) != ST_OK)
                        return r;
                st->global_ctrl = g;
                return ST_OK;
        }
        for (unsigned n = 0; n < c->n_gp; n++) {
                if (!(mask & BIT_ULL(n)))
                        continue;
                uint64_t sel = st->evtsel[n] | (on ? AMD64_EVENTSEL_ENABLE : 0);
                if ((r = wrmsr_safe(ctl_msr(c, n), sel)) != ST_OK)
                        return r;
        }
        st->global_ctrl = on ? st->global_ctrl | mask : st->global_ctrl & ~mask;
        return ST_OK;
}

static status_t start(struct pmu_state *st, uint64_t mask)
{
        return set_enable(st, mask, true);
}

static status_t stop(struct pmu_state *st, uint64_t mask)
{
        return set_enable(st, mask, false);
}

static status_t read_ctr(struct pmu_state *st, struct pmu_slot s, uint64_t *out)
{
        status_t r = rdmsr_safe(ctr_msr(&st->caps, s.idx), out);

        *out &= pmu_width_mask(st->caps.gp_width);
        return r;
}

/* Without PerfMonV2 there is no status register: a counter started with its top bit set
 * (a negative period) has overflowed once that bit reads clear, as Linux amd/core.c
 * decides. */
static status_t ovf_status(struct pmu_state *st, uint64_t *out)
{
        const struct pmu_caps *c   = &st->caps;
        uint64_t               top = BIT_ULL(c->gp_width - 1);
        status_t               r;

        if (c->has_global)
                return rdmsr_safe(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, out);
        *out = 0;
        for (unsigned n = 0; n < c->n_gp; n++) {
                uint64_t v;

                if (!(st->programmed & (1u << n)) || !(st->start[n] & top))
                        continue;
                if ((r = rdmsr_safe(ctr_msr(c, n), &v)) != ST_OK)
                        return r;
                if (!(v & top))
                        *out |= BIT_ULL(n);
        }
        return ST_OK;
}

static status_t ovf_clear(struct pmu_state *st, uint64_t mask)
{
        mask &= gp_mask(&st->caps);
        if (!st->caps.has_global || !mask)
                return ST_OK; /* legacy: re-arming the counter clears the emulated bit */
        return wrmsr_safe(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, mask);
}

static status_t reset(struct pmu_state *st)
{
        const struct pmu_caps *c = &st->caps;
        status_t               r;

        if (c->has_global && (r = wrmsr_safe(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0)) != ST_OK)
                return r;
        for (unsigned n = 0; n < c->n_gp; n++) {
                if ((r = wrmsr_safe(ctl_msr(c, n), 0)) != ST_OK)
                        return r;
                if ((r = wrmsr_safe(ctr_msr(c, n), 0)) != ST_OK)
                        return r;
        }
        memset(st->evtsel, 0, sizeof(st->evtsel));
        memset(st->start, 0, sizeof(st->start));
        st->programmed  = 0;
        st->global_ctrl = 0;
        return ovf_clear(st, gp_mask(c));
}

static status_t save(struct pmu_state *st, struct pmu_saved *sv)
{
        const struct pmu_caps *c = &st->caps;
        status_t               r;

        memset(sv, 0, sizeof(*sv));
        if (c->has_global &&
            (r = rdmsr_safe(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, &sv->global_ctrl)) != ST_OK)
                return r;
        for (unsigned n = 0; n < c->n_gp; n++)
                if ((r = rdmsr_safe(ctl_msr(c, n), &sv->evtsel[n])) != ST_OK ||
                    (r = rdmsr_safe(ctr_msr(c, n), &sv->ctr[n])) != ST_OK)
                        return r;
        return ST_OK;
}

static status_t restore(struct pmu_state *st, const struct pmu_saved *sv)
{
        const struct pmu_caps *c = &st->caps;
        status_t               r, first = ST_OK;

        if (c->has_global && (r = wrmsr_safe(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0)) != ST_OK)
                return r;
        for (unsigned n = 0; n < c->n_gp; n++)
                if ((r = wrmsr_safe(ctl_msr(c, n), 0)) != ST_OK ||
                    (r = wrmsr_safe(ctr_msr(c, n), sv->ctr[n])) != ST_OK ||
                    (r = wrmsr_safe(ctl_msr(c, n), sv->evtsel[n])) != ST_OK)
                        first = first ? first : r;
        if (c->has_global &&
            (r = wrmsr_safe(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, sv->global_ctrl)) != ST_OK)
                first = first ? first : r;
        return first;
}

const struct pmu_driver pmu_drv_amd = {
        .name       = "amd",
        .probe      = probe,
        .program    = program,
        .start      = start,
        .stop       = stop,
        .read       = read_ctr,
        .write      = write_ctr,
        .ovf_status = ovf_status,
        .ovf_clear  = ovf_clear,
        .reset      = reset,
        .save       = save,
        .restore    = restore,
};
