/** @file
 * The pmu phase on AArch64: one counting suite and one overflow-sampling run, the shared ones
 * of x86-64 through pmu/pmu.h on the PMUv3 (pmu/arm64/pmu_common.c) with its own checks as
 * their architecture part (app/arm64/validate.c; pmu-validation.json), everything the driver
 * changed put back, and what the harness would do with SPE and BRBE where the CPU has
 * neither. The x86-64 counterpart is app/x86/pmu.c.
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

static void spe_brbe(const struct arm64_cpu_info *ci)
{
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
        static const struct cpu_info no_cpu; /* the inventory could not describe it */
        status_t st = pmu_arm64_init(&ci, &regs);
        if (st != ST_OK) {
                rep_skip(REP_SKIP_PMU, "%s", pmu_arm64_get_caps()->reason);
        } else {
                struct rep_buf json = { 0 };
                unsigned       reps = r->cfg.repetitions < MAX_REPS_PMU ? r->cfg.repetitions
                                                                        : MAX_REPS_PMU;
                if (val_arm64_suite(&ci, r->inv && r->inv->cpu_st == ST_OK ? &r->inv->cpu
                                                                          : &no_cpu,
                                   under_qemu(r), reps, pmu_harness_syms, pmu_harness_n_syms,
                                   plat_info()->image_base, &json) == ST_OK)
                        run_add_file(r, "pmu-validation.json", &json);
                rep_buf_free(&json);
        }
        pmu_arm64_restore();
        rep_push("sampling");
        spe_brbe(&ci);
        rep_pop();
        return st == ST_OK ? ST_OK : ST_UNSUPPORTED;
}
