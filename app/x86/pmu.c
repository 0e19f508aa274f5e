/** @file
 * The pmu phase: detect the core PMU of the CPU the inventory described, print what it has
 * (counters, widths, fixed counters, version, IA32_PERF_CAPABILITIES decoded, which portable
 * aliases this CPU can count and why not), run the counting validation suite (verdict lines
 * and pmu-validation.json), then overflow sampling (PMI route, skid, Caliper scale, a report
 * of the harness's kernels by function). Under QEMU TCG there is no PMU: everything SKIPs
 * with the reason, quickly. Timings go out as INFO lines for tools/bench-pmu.sh.
 */
#include "app/run.h"
#include "lib/fmt.h"

#include "pmu/clock.h"
#include "pmu/sample.h"
#include "app/pmu_validate.h"
#include "report/inventory.h"

#define MAX_REPS_PMU 15

static const char *kind_name(enum pmu_kind k)
{
        switch (k) {
        case PMU_INTEL_ARCH:
                return "Intel architectural perfmon";
        case PMU_AMD_LEGACY:
                return "AMD legacy counters";
        case PMU_AMD_CORE_EXT:
                return "AMD extended core counters";
        default:
                return "none";
        }
}

/* IA32_PERF_CAPABILITIES as pmu_init decoded it (struct pmu_perf_caps_fields). */
static void print_perf_caps(const struct pmu_caps *c)
{
        const struct pmu_perf_caps_fields *f = &c->perf_caps_f;

        if (!c->has_perf_caps) {
                rep_info("caps: IA32_PERF_CAPABILITIES: %s",
                         c->vendor == VEN_INTEL ? "absent (CPUID.01H:ECX[15] PDCM clear)"
                                                : "Intel only");
                return;
        }
        rep_info("caps: IA32_PERF_CAPABILITIES 0x%llx: LBR format %llu, PEBS format %llu%s%s%s%s",
                 (unsigned long long)c->perf_caps, (unsigned long long)f->lbr_fmt,
                 (unsigned long long)f->pebs_fmt, f->freeze_in_smm ? ", freeze in SMM" : "",
                 f->fw_writes ? ", full-width writes" : "",
                 f->pebs_baseline ? ", PEBS baseline" : "",
                 f->perf_metrics ? ", perf metrics" : "");
}

static void print_caps(const struct cpu_info *ci)
{
        const struct pmu_caps *c = pmu_get_caps();
        char                   fm[32];

        if (!c->available) {
                rep_info("caps: %s family/model %s: no usable core PMU: %s",
                         cpu_vendor_name(ci->vendor),
                         fmt_family_model(fm, sizeof(fm), ci->family, ci->model), c->reason);
                return;
        }
        rep_info("caps: %s family/model %s: %s, version %u", cpu_vendor_name(c->vendor),
                 fmt_family_model(fm, sizeof(fm), c->family, c->model), kind_name(c->kind),
                 c->version);
        rep_info("caps: %u general counters x %u bits; %u fixed counters x %u bits (mask 0x%x)",
                 c->n_gp, c->gp_width, c->n_fixed, c->fixed_width, c->fixed_mask);
        rep_info("caps: global control/status: %s; full-width writes: %s; AnyThread: %s",
                 c->has_global ? "yes" : "no", c->full_width_writes ? "yes" : "no",
                 c->anythread_deprecated ? "deprecated" : "available");
        if (c->vendor == VEN_INTEL)
                rep_info("caps: architectural events unavailable (CPUID.0AH:EBX): 0x%x",
                         c->arch_unavailable);
        print_perf_caps(c);
        if (c->quirks)
                rep_info("caps: quirks 0x%x (%s)", c->quirks, c->quirk_ref);
        rep_info("caps: event table %s (%s; %s)", c->events ? c->events->name : "none",
                 c->events ? c->events->source : "-", c->events ? c->events->version : "-");
        for (size_t i = 0; i < pmu_n_aliases; i++) {
                const struct pmu_event_desc *ev;
                const char                  *why = "";
                if (pmu_alias_event(pmu_alias_names[i], &ev, &why) == ST_OK)
                        rep_info("caps: alias %-11s = %s (event 0x%x umask 0x%02x)",
                                 pmu_alias_names[i], ev->name, ev->code, ev->umask);
                else
                        rep_info("caps: alias %-11s cannot be counted: %s", pmu_alias_names[i],
                                 why);
        }
}

static uint64_t ms(uint64_t ticks, uint64_t hz)
{
        return hz ? ticks * 1000 / hz : 0;
}

status_t phase_pmu(struct run *r)
{
        struct val_sample_figures fig;
        struct rep_buf            json = { 0 };
        status_t                  st;

        if (!r->inv) {
                rep_skip(REP_SKIP_ENV, "no inventory: the CPU is not described");
                return ST_UNSUPPORTED;
        }
        const struct cpu_info *ci  = &r->inv->cpu;
        uint64_t               hz  = r->inv->tsc_hz;
        unsigned               rep = r->cfg.repetitions < MAX_REPS_PMU ? r->cfg.repetitions
                                                                        : MAX_REPS_PMU;

        pmu_init(ci);
        print_caps(ci);

        uint64_t t0 = pmu_clock_tsc_read();
        st          = val_run(ci, rep, &json);
        uint64_t t1 = pmu_clock_tsc_read();
        rep_info("suite took %llu ms (%u runs per check)", (unsigned long long)ms(t1 - t0, hz),
                 rep);
        if (st == ST_OK)
                st = run_add_file(r, "pmu-validation.json", &json);
        rep_buf_free(&json);

        t0 = pmu_clock_tsc_read();
        status_t sst = val_sample_run(pmu_harness_syms, pmu_harness_n_syms, plat_info()->image_base, &fig);
        t1 = pmu_clock_tsc_read();
        rep_info("sampling took %llu ms", (unsigned long long)ms(t1 - t0, hz));
        if (fig.selftest_tsc)
                rep_info("self-NMI round trip %llu TSC ticks%s",
                         (unsigned long long)fig.selftest_tsc,
                         ci->hypervisor ? " (virtual machine: not a hardware figure)" : "");
        const char *why = NULL;
        if (fig.pmi_cost_cycles)
                rep_info("PMI round trip %llu TSC ticks per PMI (%llu PMIs)",
                         (unsigned long long)fig.pmi_cost_cycles, (unsigned long long)fig.n_pmi);
        else
                rep_info("PMI round trip not measurable: %s",
                         pmu_sample_supported(pmu_get_caps(), &why) == ST_OK ? "no PMI was taken"
                                                                             : why);
        pmu_restore(); /* what the firmware left in the counter MSRs (saved by pmu_init) */
        if (st != ST_OK)
                return st;
        return sst == ST_NO_MEM ? sst : ST_OK;
}
