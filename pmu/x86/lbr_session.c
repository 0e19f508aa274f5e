/** @file
 * The Intel LBR session (see pmu/x86/lbr_session.h): LBR (legacy or
 * Architectural) records every branch at CPL 0, a cycles counter on general counter 0 raises
 * the PMI, DEBUGCTL.FREEZE_LBRS_ON_PMI keeps the stack still while the handler reads it, and
 * the handler unfreezes it. [SDM-3B] "Last Branch Recording", "Architectural Last Branch
 * Records", "LBR Freeze on PMI"; Linux arch/x86/events/intel/lbr.c.
 */
#include "pmu/x86/lbr_session.h"

#include "boot/x86/msr.h"
#include "pmu/x86/msr_arch.h"
#include "lib/base.h"
#include "lib/fmt.h"

/* ---- constants -------------------------------------------------------------------------- */

/* Legacy LBR stack depth per family-6 model: Linux lbr.c intel_pmu_lbr_init_* as called from
 * intel/core.c intel_pmu_init. Only the depth is here; the format comes from
 * IA32_PERF_CAPABILITIES[5:0]. Parts with Architectural LBR take it from CPUID 0x1C. */
struct lbr_model {
        uint32_t    model_lo, model_hi;
        unsigned    depth;
        uint32_t    from, to;   /* MSR of entry 0 */
        const char *ref;
};

static const struct lbr_model lbr_models[] = {
        /* models      depth  FROM / TO of entry 0             reference (Linux lbr.c) */
        { 0x0f, 0x0f,  4, MSR_LBR_CORE_FROM, MSR_LBR_CORE_TO, "Core 2: intel_pmu_lbr_init_core" },
        { 0x17, 0x17,  4, MSR_LBR_CORE_FROM, MSR_LBR_CORE_TO, "Penryn: intel_pmu_lbr_init_core" },
        { 0x1a, 0x1a, 16, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Nehalem: intel_pmu_lbr_init_nhm" },
        { 0x1e, 0x1f, 16, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Nehalem: intel_pmu_lbr_init_nhm" },
        { 0x2e, 0x2e, 16, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Nehalem-EX: intel_pmu_lbr_init_nhm" },
        { 0x25, 0x25, 16, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Westmere: intel_pmu_lbr_init_nhm" },
        { 0x2c, 0x2c, 16, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Westmere: intel_pmu_lbr_init_nhm" },
        { 0x2f, 0x2f, 16, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Westmere-EX: intel_pmu_lbr_init_nhm" },
        { 0x2a, 0x2a, 16, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Sandy Bridge: intel_pmu_lbr_init_snb" },
        { 0x2d, 0x2d, 16, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Sandy Bridge-EP: intel_pmu_lbr_init_snb" },
        { 0x3a, 0x3a, 16, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Ivy Bridge: intel_pmu_lbr_init_snb" },
        { 0x3e, 0x3e, 16, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Ivy Bridge-EP: intel_pmu_lbr_init_snb" },
        { 0x3c, 0x3c, 16, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Haswell: intel_pmu_lbr_init_hsw" },
        { 0x3f, 0x3f, 16, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Haswell-X: intel_pmu_lbr_init_hsw" },
        { 0x45, 0x46, 16, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Haswell: intel_pmu_lbr_init_hsw" },
        { 0x3d, 0x3d, 16, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Broadwell: intel_pmu_lbr_init_hsw" },
        { 0x47, 0x47, 16, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Broadwell: intel_pmu_lbr_init_hsw" },
        { 0x4f, 0x4f, 16, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Broadwell-X: intel_pmu_lbr_init_hsw" },
        { 0x56, 0x56, 16, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Broadwell-D: intel_pmu_lbr_init_hsw" },
        { 0x4e, 0x4e, 32, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Skylake: intel_pmu_lbr_init_skl" },
        { 0x5e, 0x5e, 32, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Skylake: intel_pmu_lbr_init_skl" },
        { 0x55, 0x55, 32, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Skylake-X: intel_pmu_lbr_init_skl" },
        { 0x8e, 0x8e, 32, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Kaby Lake: intel_pmu_lbr_init_skl" },
        { 0x9e, 0x9e, 32, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Kaby/Coffee Lake: intel_pmu_lbr_init_skl" },
        { 0xa5, 0xa6, 32, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Comet Lake: intel_pmu_lbr_init_skl" },
        { 0x66, 0x66, 32, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Cannon Lake: intel_pmu_lbr_init_skl" },
        { 0x7d, 0x7e, 32, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Ice Lake: intel_pmu_lbr_init_skl" },
        { 0x6a, 0x6a, 32, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Ice Lake-X: intel_pmu_lbr_init_skl" },
        { 0x6c, 0x6c, 32, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Ice Lake-D: intel_pmu_lbr_init_skl" },
        { 0x8c, 0x8d, 32, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Tiger Lake: intel_pmu_lbr_init_skl" },
        { 0xa7, 0xa7, 32, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Rocket Lake: intel_pmu_lbr_init_skl" },
        { 0x37, 0x37,  8, MSR_LBR_CORE_FROM, MSR_LBR_CORE_TO, "Silvermont: intel_pmu_lbr_init_slm" },
        { 0x4d, 0x4d,  8, MSR_LBR_CORE_FROM, MSR_LBR_CORE_TO, "Silvermont: intel_pmu_lbr_init_slm" },
        { 0x4a, 0x4a,  8, MSR_LBR_CORE_FROM, MSR_LBR_CORE_TO, "Silvermont-MID: intel_pmu_lbr_init_slm" },
        { 0x4c, 0x4c,  8, MSR_LBR_CORE_FROM, MSR_LBR_CORE_TO, "Airmont: intel_pmu_lbr_init_slm" },
        { 0x5a, 0x5a,  8, MSR_LBR_CORE_FROM, MSR_LBR_CORE_TO, "Airmont-MID: intel_pmu_lbr_init_slm" },
        { 0x5c, 0x5c, 32, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Goldmont: intel_pmu_lbr_init_skl (glm)" },
        { 0x5f, 0x5f, 32, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Goldmont-D: intel_pmu_lbr_init_skl (glm)" },
        { 0x7a, 0x7a, 32, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Goldmont Plus: intel_pmu_lbr_init_skl (glm)" },
        { 0x86, 0x86, 32, MSR_LBR_NHM_FROM,  MSR_LBR_NHM_TO,  "Tremont-D: intel_pmu_lbr_init_skl" },
};

/* ---- private helpers -------------------------------------------------------------------- */

static const struct pmu_slot ctr0 = { .fixed = false, .idx = 0 };

static void rd(struct pmu_lbr_session *s, uint32_t msr, uint64_t *v)
{
        if (rdmsr_safe(msr, v) != ST_OK)
                s->n_errors++;
}

static const struct lbr_model *model_row(uint32_t model)
{
        for (size_t i = 0; i < ARRAY_SIZE(lbr_models); i++)
                if (model >= lbr_models[i].model_lo && model <= lbr_models[i].model_hi)
                        return &lbr_models[i];
        return NULL;
}

/* Where entry 0 of each array lives: Arch LBR has its own MSR block; legacy stacks at the
 * model row's FROM/TO (0x680/0x6c0 from Nehalem, 0x40/0x60 on Core 2 and Silvermont/Airmont,
 * Linux lbr.c). LBR_INFO exists from format 5. */
static void set_bases(struct pmu_lbr_session *s, const struct lbr_model *row)
{
        if (s->fmt.arch) {
                s->from_base = MSR_ARCH_LBR_FROM_0;
                s->to_base = MSR_ARCH_LBR_TO_0;
                s->info_base = MSR_ARCH_LBR_INFO_0;
                return;
        }
        s->from_base = row->from;
        s->to_base = row->to;
        s->info_base = s->fmt.legacy_fmt == LBR_FORMAT_INFO ||
                       s->fmt.legacy_fmt == LBR_FORMAT_INFO2 ? MSR_LBR_INFO_0 : 0;
}

/* After a PMI with FREEZE_LBRS_ON_PMI: perfmon v4+ sets GLOBAL_STATUS.LBR_FRZ, cleared through
 * GLOBAL_STATUS_RESET; before v4 the freeze cleared DEBUGCTL.LBR, which is set again.
 * [SDM-3B] "LBR Freeze on PMI" / "Freezing LBR and Performance Counters on PMI". */
static void unfreeze(struct pmu_lbr_session *s)
{
        if (s->pmu_version >= 4 || s->fmt.arch) {
                if (pmu_ovf_clear(GLOBAL_STATUS_LBRS_FROZEN) != ST_OK)
                        s->n_errors++;
                return;
        }
        if (wrmsr_safe(MSR_IA32_DEBUGCTLMSR,
                       pmu_lbr_debugctl_value(&s->fmt, s->saved_debugctl, false)) != ST_OK)
                s->n_errors++;
}

/* ---- public functions ------------------------------------------------------------------- */

unsigned pmu_lbr_model_depth(uint32_t model)
{
        const struct lbr_model *row = model_row(model);

        return row ? row->depth : 0;
}

status_t pmu_lbr_session_probe(const struct cpu_info *cpu, struct pmu_lbr_session *s)
{
        const struct pmu_caps *caps = pmu_get_caps();
        const char *reason = NULL;
        uint64_t v;

        if (!cpu || !s)
                return ST_BAD_ARG;
        memset(s, 0, sizeof(*s));
        if (cpu->vendor != VEN_INTEL) {
                /* AMD LbrExtV2 (CPUID 0x80000022) records no cycle counts. */
                fmt_snprintf(s->why, sizeof(s->why), "not an Intel CPU (no LBR cycle counts)");
                return ST_UNSUPPORTED;
        }
        if (!caps->available) {
                fmt_snprintf(s->why, sizeof(s->why), "no core PMU for the PMI trigger: %s",
                             caps->reason ? caps->reason : "unknown");
                return ST_UNSUPPORTED;
        }
        const struct lbr_model *row = NULL;

        if (cpu->intel.arch_lbr) {
                /* ECX as CPUID gives it: [0] mispredict, [1] cycles, [2] branch type */
                if (pmu_lbr_fmt_arch(cpu->intel.arch_lbr_depth_mask, cpu->intel.arch_lbr_ecx, 0,
                                     &s->fmt) != ST_OK) {
                        fmt_snprintf(s->why, sizeof(s->why), "Architectural LBR offers no depth "
                                     "(CPUID.1CH:EAX[7:0] = 0)");
                        return ST_UNSUPPORTED;
                }
        } else {
                unsigned depth;

                row   = model_row(cpu->model);
                depth = row ? row->depth : 0;

                if (!caps->has_perf_caps) {
                        fmt_snprintf(s->why, sizeof(s->why), "no IA32_PERF_CAPABILITIES: LBR "
                                     "format unknown");
                        return ST_UNSUPPORTED;
                }
                if (cpu->family != 6 || depth == 0) {
                        fmt_snprintf(s->why, sizeof(s->why), "LBR stack depth of family 0x%x "
                                     "model 0x%x not in the model table", cpu->family, cpu->model);
                        return ST_UNSUPPORTED;
                }
                if (pmu_lbr_fmt_legacy(caps->perf_caps, depth, &s->fmt) != ST_OK) {
                        fmt_snprintf(s->why, sizeof(s->why), "LBR format %llu not known",
                                     (unsigned long long)(caps->perf_caps & PERF_CAP_LBR_FMT));
                        return ST_UNSUPPORTED;
                }
        }
        set_bases(s, row);
        if (!s->fmt.has_cycles)
                reason = s->fmt.arch ? "Architectural LBR without timed LBR (CPUID.1CH:ECX[1])"
                                     : "LBR format has no cycle counts (needs format 5, 6 or 7)";
        if (!reason && s->fmt.depth > PMU_LBR_MAX_DEPTH)
                reason = "LBR stack deeper than the harness reads";
        if (reason) {
                fmt_snprintf(s->why, sizeof(s->why), "%s", reason);
                return ST_UNSUPPORTED;
        }
        if (rdmsr_safe(s->from_base, &v) != ST_OK || rdmsr_safe(s->to_base, &v) != ST_OK ||
            (s->info_base && rdmsr_safe(s->info_base, &v) != ST_OK) ||
            (!s->fmt.arch && rdmsr_safe(MSR_LBR_TOS, &v) != ST_OK)) {
                fmt_snprintf(s->why, sizeof(s->why), "LBR MSR 0x%x faults on read", s->from_base);
                return ST_UNSUPPORTED;
        }
        s->pmu_version = caps->version;
        s->cpuid_1c_ebx = cpu->intel.arch_lbr_ebx;
        if (pmu_alias_event("cycles", &s->ev, &reason) != ST_OK) {
                fmt_snprintf(s->why, sizeof(s->why), "no cycles event for the trigger: %s",
                             reason ? reason : "unknown");
                return ST_UNSUPPORTED;
        }
        return ST_OK;
}

status_t pmu_lbr_session_arm(struct pmu_lbr_session *s, uint64_t period)
{
        const unsigned flags = PMU_LBR_F_KERNEL | PMU_LBR_F_ALL_BRANCHES;
        status_t st;

        if (!s || !s->ev || !period || !s->stacks || !s->stack_n)
                return ST_BAD_ARG;
        s->period = period;
        s->n_stacks = 0;
        s->n_pmi = s->n_spurious = s->n_dropped = s->n_errors = 0;
        rdmsr_safe(MSR_IA32_DEBUGCTLMSR, &s->saved_debugctl);
        if (s->fmt.arch) {
                rdmsr_safe(MSR_ARCH_LBR_CTL, &s->saved_ctl);
                rdmsr_safe(MSR_ARCH_LBR_DEPTH, &s->saved_depth);
                /* Writing the depth clears every entry. [SDM-3B] IA32_LBR_DEPTH */
                if ((st = wrmsr_safe(MSR_ARCH_LBR_DEPTH, s->fmt.depth)) != ST_OK ||
                    (st = wrmsr_safe(MSR_ARCH_LBR_CTL,
                                     pmu_lbr_arch_ctl_value(flags, s->cpuid_1c_ebx))) != ST_OK)
                        goto undo;
        } else {
                rdmsr_safe(MSR_LBR_SELECT, &s->saved_select);
                if ((st = wrmsr_safe(MSR_LBR_SELECT, pmu_lbr_select_value(flags))) != ST_OK)
                        goto undo;
        }
        if ((st = wrmsr_safe(MSR_IA32_DEBUGCTLMSR,
                             pmu_lbr_debugctl_value(&s->fmt, s->saved_debugctl, false))) != ST_OK)
                goto undo;
        if ((st = pmu_program(ctr0, s->ev, PMU_OS | PMU_INT, -period)) != ST_OK)
                goto undo;
        pmu_ovf_clear(pmu_slot_bit(ctr0) | GLOBAL_STATUS_LBRS_FROZEN);
        if ((st = pmu_start(pmu_slot_bit(ctr0))) != ST_OK)
                goto undo;
        return ST_OK;
undo:
        pmu_lbr_session_disarm(s);
        return st;
}

void pmu_lbr_session_on_pmi(struct pmu_lbr_session *s)
{
        uint64_t status = 0, tos = 0, from[PMU_LBR_MAX_DEPTH], to[PMU_LBR_MAX_DEPTH];
        uint64_t info[PMU_LBR_MAX_DEPTH];
        unsigned d, n = 0;

        if (!s || !s->stacks)
                return;
        s->n_pmi++;
        if (pmu_ovf_status(&status) != ST_OK)
                s->n_errors++;
        if (!(status & pmu_slot_bit(ctr0))) {
                s->n_spurious++;
                unfreeze(s);
                return;
        }
        d = s->fmt.depth;
        if (!s->fmt.arch)
                rd(s, MSR_LBR_TOS, &tos);
        for (unsigned i = 0; i < d; i++) {
                rd(s, s->from_base + i, &from[i]);
                rd(s, s->to_base + i, &to[i]);
                info[i] = 0;
                if (s->info_base)
                        rd(s, s->info_base + i, &info[i]);
        }
        if (s->n_stacks < s->stack_cap) {
                struct lbr_entry *e = &s->stacks[s->n_stacks * d];

                if (pmu_lbr_stack(&s->fmt, from, to, s->info_base ? info : NULL, tos, e, &n) ==
                    ST_OK)
                        s->stack_n[s->n_stacks++] = n;
                else
                        s->n_errors++;
        } else {
                s->n_dropped++;
        }
        /* Reload keeping what the counter took since it overflowed: the skid, the vector and
         * the stack reads above (two or three MSRs per entry, some hundred cycles each), so
         * that the next PMI comes a period after this one rather than a period after the
         * reload, and the samples count the run's cycles whatever the handler costs. */
        uint64_t since = 0;
        if (pmu_read(ctr0, &since) != ST_OK)
                s->n_errors++;
        if (pmu_write(ctr0, since - s->period) != ST_OK)
                s->n_errors++;
        if (pmu_ovf_clear(pmu_slot_bit(ctr0)) != ST_OK)
                s->n_errors++;
        unfreeze(s);
}

status_t pmu_lbr_session_disarm(struct pmu_lbr_session *s)
{
        status_t first = ST_OK, st;

        if (!s)
                return ST_BAD_ARG;
        if ((st = pmu_stop(pmu_slot_bit(ctr0))) != ST_OK)
                first = st;
        if ((st = wrmsr_safe(MSR_IA32_DEBUGCTLMSR, s->saved_debugctl)) != ST_OK && !first)
                first = st;
        if (s->fmt.arch) {
                st = wrmsr_safe(MSR_ARCH_LBR_CTL, s->saved_ctl);
                if (s->saved_depth) /* 0 is not a depth: the read failed */
                        wrmsr_safe(MSR_ARCH_LBR_DEPTH, s->saved_depth);
        } else {
                st = wrmsr_safe(MSR_LBR_SELECT, s->saved_select);
        }
        if (st != ST_OK && !first)
                first = st;
        pmu_ovf_clear(pmu_slot_bit(ctr0) | GLOBAL_STATUS_LBRS_FROZEN);
        return first;
}
