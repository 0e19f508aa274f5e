/** @file
 * Intel architectural performance monitoring, versions 1 to 5. [SDM-3B] "Architectural
 * Performance Monitoring". v1: general counters only, IA32_PERFEVTSELx.EN is the enable.
 * v2+: fixed counters and IA32_PERF_GLOBAL_CTRL / STATUS / OVF_CTRL (renamed STATUS_RESET in
 * v4, same MSR); a counter counts when EN (or its fixed-control field) and its GLOBAL_CTRL
 * bit are both set. v5: fixed counters enumerated by CPUID.0AH:ECX as well as EDX[4:0].
 */
#include "boot/plat.h"
#include "pmu/x86/pmu_priv.h"
#include "boot/x86/msr.h"
#include "pmu/x86/msr_arch.h"

static const char no_version[] = "CPUID.0AH:EAX[7:0] = 0: no architectural performance "
                                 "monitoring (QEMU TCG and PMU-less guests report this)";
static const char no_counters[] = "CPUID.0AH reports no general-purpose counters or width 0";
static const char pmc0_gp[]     = "IA32_PMC0 (0xc1) raised #GP although CPUID.0AH lists it";

static status_t probe(struct pmu_caps *c, const struct cpu_info *ci)
{
        const struct cpu_pmu_intel *in = &ci->intel;
        uint64_t                    v;

        c->kind    = PMU_INTEL_ARCH;
        c->version = in->version;
        if (in->version == 0) {
                c->reason = no_version;
                return ST_UNSUPPORTED;
        }
        c->n_gp     = in->n_gp > INTEL_PMC_MAX_GENERIC ? INTEL_PMC_MAX_GENERIC : in->n_gp;
        c->gp_width = in->gp_width > 64 ? 64 : in->gp_width;
        if (c->n_gp == 0 || c->gp_width == 0) {
                c->reason = no_counters;
                return ST_UNSUPPORTED;
        }
        /* EBX bit set = event NOT available; bits at or past the EBX length are not
         * enumerated, so treat them as unavailable too. [SDM-3B] CPUID.0AH */
        c->arch_unavailable = in->events_unavailable;
        if (in->ebx_len < 32)
                c->arch_unavailable |= ~((1u << in->ebx_len) - 1);
        c->anythread_deprecated = in->anythread_deprecated;

        if (in->version >= 2) {
                unsigned n = in->n_fixed > PMU_MAX_FIXED ? PMU_MAX_FIXED : in->n_fixed;

                /* v5: fixed counter i exists if ECX[i] or EDX[4:0] > i. [SDM-3B] */
                c->fixed_mask  = ((1u << n) - 1) | (in->version >= 5 ? in->fixed_mask : 0);
                c->fixed_mask &= (1u << PMU_MAX_FIXED) - 1;
                c->n_fixed     = 0;
                for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
                        if (c->fixed_mask & (1u << i))
                                c->n_fixed = (uint8_t)(i + 1);
                c->fixed_width = in->fixed_width > 64 ? 64 : in->fixed_width;
                if (c->fixed_width == 0) {
                        c->fixed_mask = 0;
                        c->n_fixed    = 0;
                }
        }

        c->evtsel_base    = MSR_ARCH_PERFMON_EVENTSEL0;
        c->ctr_base       = MSR_ARCH_PERFMON_PERFCTR0;
        c->ctr_write_base = MSR_ARCH_PERFMON_PERFCTR0;
        c->msr_stride     = 1;

        if (rdmsr_safe(MSR_ARCH_PERFMON_PERFCTR0, &v) != ST_OK) {
                c->reason = pmc0_gp;
                return ST_UNSUPPORTED;
        }
        /* IA32_PERF_CAPABILITIES exists only with CPUID.01H:ECX[15] PDCM. */
        if (in->pdcm && rdmsr_safe(MSR_IA32_PERF_CAPABILITIES, &v) == ST_OK) {
                c->has_perf_caps = true;
                c->perf_caps     = v;
                c->perf_caps_f   = (struct pmu_perf_caps_fields){
                        .lbr_fmt       = (uint8_t)(v & PERF_CAP_LBR_FMT),
                        .pebs_fmt      = (uint8_t)((v & PERF_CAP_PEBS_FORMAT) >> 8),
                        .freeze_in_smm = (v & PERF_CAP_FREEZE_IN_SMM) != 0,
                        .fw_writes     = (v & PERF_CAP_FW_WRITES) != 0,
                        .pebs_baseline = (v & PERF_CAP_PEBS_BASELINE) != 0,
                        .perf_metrics  = (v & PERF_CAP_PERF_METRICS) != 0,
                };
        }
        if (c->has_perf_caps && (c->perf_caps & PERF_CAP_FW_WRITES) &&
            rdmsr_safe(MSR_IA32_PMC0, &v) == ST_OK) {
                c->full_width_writes = true;
                c->ctr_write_base    = MSR_IA32_PMC0;
        }
        if (in->version >= 2 && rdmsr_safe(MSR_CORE_PERF_GLOBAL_CTRL, &v) == ST_OK)
                c->has_global = true;
        if (!c->has_global) {
                c->fixed_mask = 0;
                c->n_fixed    = 0;
        }
        return ST_OK;
}

static uint64_t gp_mask(const struct pmu_caps *c)
{
        return c->n_gp >= 32 ? 0xffffffffull : BIT_ULL(c->n_gp) - 1;
}

/* Writes a general counter. Legacy IA32_PMCx takes bits 31:0 and sign-extends them to the
 * counter width, so without full-width writes only values that survive that are exact.
 * [SDM-3B] "Full-Width Writes to Performance Counter Registers" */
static status_t write_gp(const struct pmu_caps *c, unsigned n, uint64_t val)
{
        uint64_t m = pmu_width_mask(c->gp_width);

        val &= m;
        if (c->full_width_writes)
                return wrmsr_safe(c->ctr_write_base + n, val);
        if (((uint64_t)(int64_t)(int32_t)(uint32_t)val & m) != val)
                return ST_UNSUPPORTED;
        return wrmsr_safe(c->ctr_base + n, val & 0xffffffffull);
}

static status_t write_ctr(struct pmu_state *st, struct pmu_slot s, uint64_t val)
{
        if (s.fixed)
                return wrmsr_safe(MSR_ARCH_PERFMON_FIXED_CTR0 + s.idx,
                                  val & pmu_width_mask(st->caps.fixed_width));
        return write_gp(&st->caps, s.idx, val);
}

static status_t program(struct pmu_state *st, struct pmu_slot s, const struct pmu_event_desc *ev,
                        unsigned flags, uint64_t start)
{
        const struct pmu_caps *c = &st->caps;
        status_t               r;

        if (s.fixed) {
                unsigned sh = FIXED_CTR_CTRL_SHIFT(s.idx);

                st->fixed_ctrl &= ~(FIXED_CTR_CTRL_MASK << sh);
                if ((r = wrmsr_safe(MSR_ARCH_PERFMON_FIXED_CTR_CTRL, st->fixed_ctrl)) != ST_OK)
                        return r;
                if ((r = write_ctr(st, s, start)) != ST_OK)
                        return r;
                st->fixed_ctrl |= pmu_fixed_ctrl_encode(flags) << sh;
                return wrmsr_safe(MSR_ARCH_PERFMON_FIXED_CTR_CTRL, st->fixed_ctrl);
        }
        /* On v1 the EN bit is the only enable, so it is set by start(); on v2+ GLOBAL_CTRL
         * gates the counter and EN is set here. */
        uint64_t sel = pmu_evtsel_encode(ev, flags | (c->has_global ? PMU_EN : 0));
        if (!sel)
                return ST_BAD_ARG;
        if ((r = wrmsr_safe(c->evtsel_base + s.idx, 0)) != ST_OK)
                return r;
        st->programmed &= ~(1u << s.idx);
        if ((r = write_gp(c, s.idx, start)) != ST_OK)
                return r;
        if ((r = wrmsr_safe(c->evtsel_base + s.idx, sel)) != ST_OK)
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

        if (c->has_global) {
                uint64_t g = on ? st->global_ctrl | mask : st->global_ctrl & ~mask;

                if ((r = wrmsr_safe(MSR_CORE_PERF_GLOBAL_CTRL, g)) != ST_OK)
                        return r;
                st->global_ctrl = g;
                return ST_OK;
        }
        for (unsigned n = 0; n < c->n_gp; n++) {
                if (!(mask & BIT_ULL(n)))
                        continue;
                uint64_t sel = st->evtsel[n] | (on ? ARCH_PERFMON_EVENTSEL_ENABLE : 0);
                if ((r = wrmsr_safe(c->evtsel_base + n, sel)) != ST_OK)
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
        status_t r;

        if (s.fixed) {
                r    = rdmsr_safe(MSR_ARCH_PERFMON_FIXED_CTR0 + s.idx, out);
                *out &= pmu_width_mask(st->caps.fixed_width);
                return r;
        }
        r    = rdmsr_safe(st->caps.ctr_base + s.idx, out);
        *out &= pmu_width_mask(st->caps.gp_width);
        return r;
}

static status_t ovf_status(struct pmu_state *st, uint64_t *out)
{
        if (!st->caps.has_global)
                return ST_UNSUPPORTED;
        return rdmsr_safe(MSR_CORE_PERF_GLOBAL_STATUS, out);
}

/* Bits of GLOBAL_OVF_CTRL / GLOBAL_STATUS_RESET software may write: the counters, DS buffer
 * overflow and CondChgd; v4 adds ToPA PMI, LBR/counter freeze, ASIF and uncore. [SDM-3B]
 * "... Version 2" and "... Version 4" */
static uint64_t clearable(const struct pmu_caps *c)
{
        uint64_t m = gp_mask(c) | ((uint64_t)c->fixed_mask << PMU_FIXED_BIT) |
                     GLOBAL_STATUS_BUFFER_OVF | GLOBAL_STATUS_COND_CHG;

        if (c->version >= 4)
                m |= GLOBAL_STATUS_TRACE_TOPAPMI | GLOBAL_STATUS_LBRS_FROZEN |
                     GLOBAL_STATUS_COUNTERS_FROZEN | GLOBAL_STATUS_ASIF | GLOBAL_STATUS_UNC_OVF;
        /* v5 (Ice Lake+): bit 48 is the PERF_METRICS overflow, set by fixed counter 3's
         * TOPDOWN.SLOTS; left set it would read as a PMI cause for ever. [SDM-3B] "...
         * Version 5"; Linux GLOBAL_STATUS_PERF_METRICS_OVF_BIT */
        if (c->version >= 5)
                m |= BIT_ULL(GLOBAL_STATUS_PERF_METRICS_OVF_BIT);
        return m;
}

static status_t ovf_clear(struct pmu_state *st, uint64_t mask)
{
        if (!st->caps.has_global)
                return ST_UNSUPPORTED;
        mask &= clearable(&st->caps);
        if (!mask)
                return ST_OK;
        return wrmsr_safe(MSR_CORE_PERF_GLOBAL_OVF_CTRL, mask);
}

static status_t reset(struct pmu_state *st)
{
        const struct pmu_caps *c = &st->caps;
        status_t               r;

        if (c->has_global && (r = wrmsr_safe(MSR_CORE_PERF_GLOBAL_CTRL, 0)) != ST_OK)
                return r;
        for (unsigned n = 0; n < c->n_gp; n++) {
                if ((r = wrmsr_safe(c->evtsel_base + n, 0)) != ST_OK)
                        return r;
                if ((r = write_gp(c, n, 0)) != ST_OK)
                        return r;
        }
        if (c->fixed_mask) {
                if ((r = wrmsr_safe(MSR_ARCH_PERFMON_FIXED_CTR_CTRL, 0)) != ST_OK)
                        return r;
                for (unsigned n = 0; n < PMU_MAX_FIXED; n++)
                        if ((c->fixed_mask & (1u << n)) &&
                            (r = wrmsr_safe(MSR_ARCH_PERFMON_FIXED_CTR0 + n, 0)) != ST_OK)
                                return r;
        }
        memset(st->evtsel, 0, sizeof(st->evtsel));
        memset(st->start, 0, sizeof(st->start));
        st->programmed  = 0;
        st->fixed_ctrl  = 0;
        st->global_ctrl = 0;
        if (c->has_global)
                return ovf_clear(st, clearable(c));
        return ST_OK;
}

static status_t save(struct pmu_state *st, struct pmu_saved *sv)
{
        const struct pmu_caps *c = &st->caps;
        status_t               r;

        memset(sv, 0, sizeof(*sv));
        if (c->has_global && (r = rdmsr_safe(MSR_CORE_PERF_GLOBAL_CTRL, &sv->global_ctrl)) != ST_OK)
                return r;
        for (unsigned n = 0; n < c->n_gp; n++)
                if ((r = rdmsr_safe(c->evtsel_base + n, &sv->evtsel[n])) != ST_OK ||
                    (r = rdmsr_safe(c->ctr_base + n, &sv->ctr[n])) != ST_OK)
                        return r;
        if (c->fixed_mask && (r = rdmsr_safe(MSR_ARCH_PERFMON_FIXED_CTR_CTRL, &sv->fixed_ctrl)) != ST_OK)
                return r;
        for (unsigned n = 0; n < PMU_MAX_FIXED; n++)
                if ((c->fixed_mask & (1u << n)) &&
                    (r = rdmsr_safe(MSR_ARCH_PERFMON_FIXED_CTR0 + n, &sv->fixed[n])) != ST_OK)
                        return r;
        return ST_OK;
}

/* Counters first with everything stopped, then the selects, the global enable last. A value
 * wider than 32 bits comes back exactly only with full-width writes. */
static status_t restore(struct pmu_state *st, const struct pmu_saved *sv)
{
        const struct pmu_caps *c = &st->caps;
        status_t               r, first = ST_OK;

        if (c->has_global && (r = wrmsr_safe(MSR_CORE_PERF_GLOBAL_CTRL, 0)) != ST_OK)
                return r;
        for (unsigned n = 0; n < c->n_gp; n++) {
                if ((r = wrmsr_safe(c->evtsel_base + n, 0)) != ST_OK ||
                    (r = c->full_width_writes ? wrmsr_safe(c->ctr_write_base + n, sv->ctr[n])
                                              : wrmsr_safe(c->ctr_base + n, sv->ctr[n])) != ST_OK ||
                    (r = wrmsr_safe(c->evtsel_base + n, sv->evtsel[n])) != ST_OK)
                        first = first ? first : r;
        }
        for (unsigned n = 0; n < PMU_MAX_FIXED; n++)
                if ((c->fixed_mask & (1u << n)) &&
                    (r = wrmsr_safe(MSR_ARCH_PERFMON_FIXED_CTR0 + n, sv->fixed[n])) != ST_OK)
                        first = first ? first : r;
        if (c->fixed_mask && (r = wrmsr_safe(MSR_ARCH_PERFMON_FIXED_CTR_CTRL, sv->fixed_ctrl)) != ST_OK)
                first = first ? first : r;
        if (c->has_global && (r = wrmsr_safe(MSR_CORE_PERF_GLOBAL_CTRL, sv->global_ctrl)) != ST_OK)
                first = first ? first : r;
        return first;
}

const struct pmu_driver pmu_drv_intel = {
        .name       = "intel-arch",
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
