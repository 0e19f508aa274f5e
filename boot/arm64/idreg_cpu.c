/** @file
 * Reading the identification registers of the calling CPU, the probes of the fault
 * self-test, and the generic timer's count (see idreg.h).
 */
#include "lib/base.h"

#include "boot/arm64/idreg.h"
#include "boot/arm64/sysreg.h"
#include "boot/arm64/trap.h"

#define SYS_PMCEID0_EL0 S3_3_C9_C12_6
#define SYS_PMCEID1_EL0 S3_3_C9_C12_7

/* CSSELR_EL1: Level [3:1] = level - 1, InD [0] = instruction cache. [ARM-ARM] D23.2.41 */
static uint64_t read_ccsidr(unsigned level, bool inst)
{
        SYSREG_WRITE(csselr_el1, (uint64_t)(level - 1) << 1 | inst);
        isb();
        return SYSREG_READ(ccsidr_el1);
}

void arm64_id_collect(struct arm64_id_regs *r)
{
        memset(r, 0, sizeof(*r));
        r->midr   = SYSREG_READ(midr_el1);
        r->mpidr  = SYSREG_READ(mpidr_el1);
        r->revidr = SYSREG_READ(revidr_el1);
        r->pfr0   = SYSREG_READ(SYS_ID_AA64PFR0_EL1);
        r->dfr0   = SYSREG_READ(SYS_ID_AA64DFR0_EL1);
        r->isar0  = SYSREG_READ(SYS_ID_AA64ISAR0_EL1);
        r->mmfr0  = SYSREG_READ(SYS_ID_AA64MMFR0_EL1);
        r->mmfr2  = SYSREG_READ(SYS_ID_AA64MMFR2_EL1);
        r->ctr    = SYSREG_READ(ctr_el0);
        r->clidr  = SYSREG_READ(clidr_el1);
        r->cntfrq = SYSREG_READ(cntfrq_el0);

        uint64_t csselr = SYSREG_READ(csselr_el1);
        for (unsigned lv = 1; lv <= ARM64_CACHE_LEVELS; lv++) {
                unsigned ctype = r->clidr >> (3 * (lv - 1)) & 7;
                if (ctype == 0 || ctype > 4)
                        break;
                if (ctype != 1)
                        r->ccsidr[lv - 1][0] = read_ccsidr(lv, false);
                if (ctype == 1 || ctype == 3)
                        r->ccsidr[lv - 1][1] = read_ccsidr(lv, true);
        }
        SYSREG_WRITE(csselr_el1, csselr);
        isb();

        unsigned pmuver = r->dfr0 >> 8 & 0xf;
        if (pmuver == PMUVER_NONE || pmuver == PMUVER_IMPDEF)
                return;
        r->has_pmu_regs = SYSREG_READ_SAFE(pmcr_el0, &r->pmcr) == ST_OK &&
                          SYSREG_READ_SAFE(SYS_PMCEID0_EL0, &r->pmceid0) == ST_OK &&
                          SYSREG_READ_SAFE(SYS_PMCEID1_EL0, &r->pmceid1) == ST_OK;
        if (pmuver >= PMUVER_V3P4)
                r->has_pmmir = SYSREG_READ_SAFE(SYS_PMMIR_EL1, &r->pmmir) == ST_OK;
}

status_t arm64_sysreg_probe(enum arm64_probe_reg reg, uint64_t *out)
{
        switch (reg) {
        case ARM64_REG_MIDR:
                return SYSREG_READ_SAFE(midr_el1, out);
        case ARM64_REG_PMSIDR:
                return SYSREG_READ_SAFE(SYS_PMSIDR_EL1, out);
        case ARM64_REG_BRBIDR0:
                return SYSREG_READ_SAFE(SYS_BRBIDR0_EL1, out);
        }
        *out = 0;
        return ST_BAD_ARG;
}

uint64_t arm64_midr(void)
{
        return SYSREG_READ(midr_el1);
}

uint64_t arm64_timer_ticks(void)
{
        isb(); /* CNTVCT_EL0 reads may be taken early without it [ARM-ARM] D12.1.2 */
        return SYSREG_READ(cntvct_el0);
}
