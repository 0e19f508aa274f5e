/** @file
 * The pmu phase on AArch64: the PMUv3 described and validated on a counting PMU
 * (app/arm64/validate.c), then the shared counting suite of x86-64 (app/pmu_validate.c)
 * through pmu/pmu.h on the same PMU (pmu/arm64/pmu_common.c: its known-count checks decided,
 * the others SKIPping with the reason, pmu-validation.json), everything the driver changed put
 * back, and what the harness would do with SPE and BRBE where the CPU has neither. The x86-64
 * counterpart is app/x86/pmu.c.
 */
#include "app/run.h"

#include "app/arm64/validate.h"
#include "app/pmu_validate.h"
#include "pmu/sample.h"
#include "boot/arm64/idreg.h"
#include "pmu/arm64/pmu_arm64.h"
#include "report/inventory.h"
#include "boot/smbios.h"

/* QEMU's SMBIOS says so (type 1 manufacturer); its cycle counter then runs at 1 GHz of
 * virtual time, which the cycles check uses as its truth. */
static bool under_qemu(const struct run *r)
{
        const struct smbios_info *s = r->inv ? r->inv->smbios : NULL;
        return s && !strcmp(s->sys_manufacturer, "QEMU");
}

#define MAX_REPS_PMU 15

/* The shared suite, under its own name so that its lines read apart from the PMUv3 suite's. */
static void common_suite(struct run *r)
{
        struct rep_buf json = { 0 };
        unsigned       reps = r->cfg.repetitions < MAX_REPS_PMU ? r->cfg.repetitions
                                                                : MAX_REPS_PMU;

        rep_push("common");
        if (pmu_validate_run(&r->inv->cpu, reps, &json) == ST_OK)
                run_add_file(r, "pmu-validation.json", &json);
        rep_buf_free(&json);
        struct pmu_sample_figures fig = { 0 };
        pmu_sample_run(pmu_harness_syms, pmu_harness_n_syms, plat_info()->image_base, &fig);
        pmu_restore();
        rep_pop();
}

static void spe_brbe(const struct arm64_cpu_info *ci)
{
        rep_push("sampling");
        if (!ci->spe)
                rep_skip(REP_SKIP_FEATURE, "spe: ID_AA64DFR0_EL1.PMSVer = 0, no Statistical "
                         "Profiling Extension "
                         "(the sampler of load latency and data address the harness would "
                         "check against its latency table, as it does with IBS and PEBS)");
        else
                rep_skip(REP_SKIP_FEATURE, "spe: SPE v%u present, but its buffer programming is "
                         "not implemented yet", ci->spe);
        if (!ci->brbe)
                rep_skip(REP_SKIP_FEATURE, "brbe: ID_AA64DFR0_EL1.BRBE = 0, no Branch Record "
                         "Buffer Extension "
                         "(the branch records with cycle counts the harness would check "
                         "against its block kernel, as it does with LBR)");
        else
                rep_skip(REP_SKIP_FEATURE, "brbe: BRBE present, but its record decoding is not "
                         "implemented yet");
        rep_pop();
}

status_t phase_pmu(struct run *r)
{
        struct arm64_id_regs  regs;
        struct arm64_cpu_info ci;

        arm64_id_collect(&regs);
        if (arm64_decode(&regs, &ci) != ST_OK) {
                rep_skip(REP_SKIP_ENV, "the ID registers could not be decoded");
                return ST_UNSUPPORTED;
        }
        status_t st = pmu_arm64_init(&ci, &regs);
        if (st != ST_OK)
                rep_skip(REP_SKIP_PMU, "%s", pmu_arm64_get_caps()->reason);
        else
                arm64_validate(&ci, under_qemu(r));
        pmu_arm64_restore();
        if (st == ST_OK && r->inv && r->inv->cpu_st == ST_OK)
                common_suite(r);
        spe_brbe(&ci);
        return st == ST_OK ? ST_OK : ST_UNSUPPORTED;
}
