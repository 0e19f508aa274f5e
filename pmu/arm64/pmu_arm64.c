/** @file
 * Arm PMUv3 driver (see pmu_arm64.h). [ARM-ARM] D11 "The Performance Monitors Extension",
 * D23.5 register descriptions.
 */
#include "lib/base.h"

#include "boot/arm64/sysreg.h"
#include "pmu/arm64/pmu_arm64.h"
#include "pmu/arm64/pmuv3.h"

/* Everything the driver may change, as the firmware left it. */
struct pmu_saved {
        bool     valid;
        uint64_t pmcr, cntenset, intenset, ovsset, selr, userenr, ccfiltr, ccntr;
        uint64_t evtyper[PMU_MAX_EVENT_COUNTERS], evcntr[PMU_MAX_EVENT_COUNTERS];
};

static struct pmu_arm64_caps caps = { .reason = "pmu_arm64_init not called" };
static struct pmu_saved      saved;

static uint64_t counter_mask(unsigned idx)
{
        unsigned w = pmu_arm64_width(idx);
        return w >= 64 ? ~0ull : BIT_ULL(w) - 1;
}

static void select_counter(unsigned idx)
{
        SYSREG_WRITE(pmselr_el0, idx);
        isb();
}

static void write_evtyper(unsigned idx, uint64_t v)
{
        if (idx == PMU_ARM64_CYCLE) {
                SYSREG_WRITE(pmccfiltr_el0, v);
        } else {
                select_counter(idx);
                SYSREG_WRITE(pmxevtyper_el0, v);
        }
        isb();
}

static bool valid_idx(unsigned idx)
{
        return idx == PMU_ARM64_CYCLE || idx < caps.n_counters;
}

unsigned pmu_arm64_width(unsigned idx)
{
        return idx == PMU_ARM64_CYCLE ? 64 : caps.counter_bits;
}

const struct pmu_arm64_caps *pmu_arm64_get_caps(void)
{
        return &caps;
}

bool pmu_arm64_event_implemented(uint16_t ev)
{
        if ((ev >= 0x40 && ev < 0x4000) || ev >= 0x4040)
                return true;
        return arm64_pmceid_has(caps.pmceid0, caps.pmceid1, ev);
}

static void save_state(void)
{
        saved.pmcr     = SYSREG_READ(pmcr_el0);
        saved.cntenset = SYSREG_READ(pmcntenset_el0);
        saved.intenset = SYSREG_READ(pmintenset_el1);
        saved.ovsset   = SYSREG_READ(pmovsset_el0);
        saved.selr     = SYSREG_READ(pmselr_el0);
        saved.userenr  = SYSREG_READ(pmuserenr_el0);
        saved.ccfiltr  = SYSREG_READ(pmccfiltr_el0);
        saved.ccntr    = SYSREG_READ(pmccntr_el0);
        for (unsigned i = 0; i < caps.n_counters; i++) {
                select_counter(i);
                saved.evtyper[i] = SYSREG_READ(pmxevtyper_el0);
                saved.evcntr[i]  = SYSREG_READ(pmxevcntr_el0);
        }
        saved.valid = true;
}

status_t pmu_arm64_init(const struct arm64_cpu_info *ci, const struct arm64_id_regs *r)
{
        memset(&caps, 0, sizeof(caps));
        if (!ci || !r) {
                caps.reason = "no CPU description";
                return ST_BAD_ARG;
        }
        caps.pmuver = ci->pmuver;
        caps.el     = (uint8_t)(SYSREG_READ(CurrentEL) >> 2 & 3);
        if (ci->pmuver == PMUVER_NONE) {
                caps.reason = "ID_AA64DFR0_EL1.PMUVer = 0: no PMUv3";
                return ST_UNSUPPORTED;
        }
        if (ci->pmuver == PMUVER_IMPDEF) {
                caps.reason = "ID_AA64DFR0_EL1.PMUVer = 0xF: IMPLEMENTATION DEFINED PMU, not PMUv3";
                return ST_UNSUPPORTED;
        }
        if (!ci->pmu) {
                caps.reason = "PMUv3 registers could not be read at this exception level";
                return ST_UNSUPPORTED;
        }
        if (caps.el != 1) {
                caps.reason = "not running at EL1";
                return ST_UNSUPPORTED;
        }
        caps.n_counters   = ci->n_counters;
        caps.counter_bits = ci->counters_64bit ? 64 : 32;
        caps.pmceid0      = r->pmceid0;
        caps.pmceid1      = r->pmceid1;
        caps.available    = true;
        caps.reason       = NULL;
        save_state();
        pmu_arm64_reset();
        return ST_OK;
}

void pmu_arm64_reset(void)
{
        if (!caps.available)
                return;
        uint64_t all = BIT_ULL(PMU_CYCLE_BIT) | (BIT_ULL(caps.n_counters) - 1);
        SYSREG_WRITE(pmcntenclr_el0, all);
        SYSREG_WRITE(pmintenclr_el1, all);
        SYSREG_WRITE(pmovsclr_el0, all);
        uint64_t pmcr = (SYSREG_READ(pmcr_el0) & ~(PMCR_E | PMCR_D | PMCR_LP)) | PMCR_LC;
        if (caps.counter_bits == 64)
                pmcr |= PMCR_LP;
        SYSREG_WRITE(pmcr_el0, pmcr | PMCR_P | PMCR_C);
        isb();
        for (unsigned i = 0; i < caps.n_counters; i++)
                write_evtyper(i, 0);
        write_evtyper(PMU_ARM64_CYCLE, 0);
}

/* PMEVTYPER filter for the exception levels in flags: the P and U bits exclude EL1 and
 * EL0, NSH includes EL2. [ARM-ARM] D23.5.9 Table "Filtering". */
static uint64_t el_filter(unsigned flags)
{
        uint64_t f = 0;
        if (!(flags & PMU_EL1))
                f |= PMEVTYPER_P;
        if (!(flags & PMU_EL0))
                f |= PMEVTYPER_U;
        if (flags & PMU_EL2)
                f |= PMEVTYPER_NSH;
        return f;
}

status_t pmu_arm64_program(unsigned idx, uint16_t ev, unsigned flags, uint64_t start)
{
        if (!caps.available)
                return ST_UNSUPPORTED;
        if (!valid_idx(idx))
                return ST_BAD_ARG;
        uint64_t bit = BIT_ULL(idx);
        SYSREG_WRITE(pmcntenclr_el0, bit);
        SYSREG_WRITE(pmovsclr_el0, bit);
        if (flags & PMU_ARM64_INT)
                SYSREG_WRITE(pmintenset_el1, bit);
        else
                SYSREG_WRITE(pmintenclr_el1, bit);
        uint64_t type = el_filter(flags);
        if (idx != PMU_ARM64_CYCLE)
                type |= ev & PMEVTYPER_EVTCOUNT;
        write_evtyper(idx, type);
        pmu_arm64_write(idx, start);
        return ST_OK;
}

void pmu_arm64_start(uint32_t mask)
{
        /* PMCR_EL0.E first, the counters' own enable last: counting starts at the
         * PMCNTENSET write whether E was set already or not. The other order counts the
         * read-modify-write of PMCR (3 instructions) when E is still set from an earlier
         * start, which the shared suite's two loop lengths do not cancel. */
        SYSREG_WRITE(pmcr_el0, SYSREG_READ(pmcr_el0) | PMCR_E);
        isb();
        SYSREG_WRITE(pmcntenset_el0, mask);
        isb();
}

void pmu_arm64_stop(uint32_t mask)
{
        SYSREG_WRITE(pmcntenclr_el0, mask);
        isb();
}

uint64_t pmu_arm64_read(unsigned idx)
{
        if (idx == PMU_ARM64_CYCLE)
                return SYSREG_READ(pmccntr_el0);
        select_counter(idx);
        return SYSREG_READ(pmxevcntr_el0) & counter_mask(idx);
}

void pmu_arm64_write(unsigned idx, uint64_t val)
{
        if (idx == PMU_ARM64_CYCLE) {
                SYSREG_WRITE(pmccntr_el0, val);
        } else {
                select_counter(idx);
                SYSREG_WRITE(pmxevcntr_el0, val & counter_mask(idx));
        }
        isb();
}

uint32_t pmu_arm64_ovf_status(void)
{
        return (uint32_t)SYSREG_READ(pmovsset_el0);
}

void pmu_arm64_ovf_clear(uint32_t mask)
{
        SYSREG_WRITE(pmovsclr_el0, mask);
        isb();
}

void pmu_arm64_sw_incr(uint32_t mask)
{
        SYSREG_WRITE(pmswinc_el0, mask & ~BIT_ULL(PMU_CYCLE_BIT));
}

void pmu_arm64_restore(void)
{
        if (!saved.valid)
                return;
        uint64_t all = BIT_ULL(PMU_CYCLE_BIT) | (BIT_ULL(caps.n_counters) - 1);
        SYSREG_WRITE(pmcntenclr_el0, all);
        SYSREG_WRITE(pmintenclr_el1, all);
        SYSREG_WRITE(pmovsclr_el0, all);
        SYSREG_WRITE(pmcr_el0, saved.pmcr & ~(PMCR_P | PMCR_C));
        isb();
        for (unsigned i = 0; i < caps.n_counters; i++) {
                select_counter(i);
                SYSREG_WRITE(pmxevtyper_el0, saved.evtyper[i]);
                SYSREG_WRITE(pmxevcntr_el0, saved.evcntr[i]);
        }
        SYSREG_WRITE(pmccfiltr_el0, saved.ccfiltr);
        SYSREG_WRITE(pmccntr_el0, saved.ccntr);
        SYSREG_WRITE(pmselr_el0, saved.selr);
        SYSREG_WRITE(pmuserenr_el0, saved.userenr);
        SYSREG_WRITE(pmovsset_el0, saved.ovsset & all);
        SYSREG_WRITE(pmintenset_el1, saved.intenset & all);
        SYSREG_WRITE(pmcntenset_el0, saved.cntenset & all);
        isb();
        saved.valid = false;
}
