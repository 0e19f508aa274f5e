/** @file
 * Arm PMUv3 driver (see pmu_arm64.h). [ARM-ARM] D11 "The Performance Monitors Extension",
 * D23.5 register descriptions.
 *
 * Event counter n is reached through its own PMEVCNTR<n>_EL0 and PMEVTYPER<n>_EL0, never
 * through PMSELR_EL0 + PMXEVCNTR_EL0: an interrupt between the select and the access (the
 * sampling handler reads counters) would retarget the access. Linux does the same
 * (arch/arm64/include/asm/arm_pmuv3.h, read_pmevcntrn/write_pmevtypern, a switch over n
 * because the register is named in the instruction).
 *
 * At EL2 (UEFI at EL2) the harness's own code runs at EL2: PMEVTYPER.NSH / PMCCFILTR.NSH
 * must be set for it to be counted (kvm-unit-tests arm/pmu.c adds BIT(27) to its filters
 * when current_level() is EL2), and MDCR_EL2 decides which counters PMCR_EL0.E enables
 * (those below HPMN) and whether EL2 may count at all (HPMD, HCCD): pmu_arm64_init gives
 * every counter to PMCR_EL0.E and lets EL2 count, pmu_arm64_restore puts MDCR_EL2 back.
 */
#include "lib/base.h"

#include "boot/arm64/sysreg.h"
#include "pmu/arm64/pmu_arm64.h"
#include "pmu/arm64/pmuv3.h"

/* Everything the driver may change, as the firmware left it. */
struct pmu_saved {
        bool     valid;
        uint64_t pmcr, cntenset, intenset, ovsset, selr, userenr, ccfiltr, ccntr;
        uint64_t mdcr_el2;      /* at EL2 only */
        uint64_t evtyper[PMU_MAX_EVENT_COUNTERS], evcntr[PMU_MAX_EVENT_COUNTERS];
};

static struct pmu_arm64_caps caps = { .reason = "pmu_arm64_init not called" };
static struct pmu_saved      saved;

static uint64_t counter_mask(unsigned idx)
{
        unsigned w = pmu_arm64_width(idx);
        return w >= 64 ? ~0ull : BIT_ULL(w) - 1;
}

/* The 31 event counters by name: m(0) .. m(30). */
#define PMEVN_ALL(m)                                                                    \
        m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7) m(8) m(9) m(10) m(11) m(12) m(13) m(14)  \
        m(15) m(16) m(17) m(18) m(19) m(20) m(21) m(22) m(23) m(24) m(25) m(26) m(27)    \
        m(28) m(29) m(30)

static uint64_t evcntr_read(unsigned n)
{
        switch (n) {
#define CASE(k) case k: return SYSREG_READ(pmevcntr##k##_el0);
        PMEVN_ALL(CASE)
#undef CASE
        }
        return 0;
}

static void evcntr_write(unsigned n, uint64_t v)
{
        switch (n) {
#define CASE(k) case k: SYSREG_WRITE(pmevcntr##k##_el0, v); break;
        PMEVN_ALL(CASE)
#undef CASE
        }
}

static uint64_t evtyper_read(unsigned n)
{
        switch (n) {
#define CASE(k) case k: return SYSREG_READ(pmevtyper##k##_el0);
        PMEVN_ALL(CASE)
#undef CASE
        }
        return 0;
}

static void evtyper_write(unsigned n, uint64_t v)
{
        switch (n) {
#define CASE(k) case k: SYSREG_WRITE(pmevtyper##k##_el0, v); break;
        PMEVN_ALL(CASE)
#undef CASE
        }
}

static void write_evtyper(unsigned idx, uint64_t v)
{
        if (idx == PMU_ARM64_CYCLE)
                SYSREG_WRITE(pmccfiltr_el0, v);
        else
                evtyper_write(idx, v);
        isb();
}

/* The event number field: 16 bits from PMUv3p1 (FEAT_PMUv3p1), 10 bits before, where an
 * event 0x4000 and up would alias event (n & 0x3ff). [ARM-ARM] D23.5.9 PMEVTYPER<n>_EL0
 * evtCount; Linux ARMV8_PMU_EVTYPE_EVENT and armv8pmu_event_is_64bit's PMUv3p1 checks. */
static uint64_t event_field_mask(void)
{
        return caps.pmuver >= PMUVER_V3P1 && caps.pmuver != PMUVER_IMPDEF ? 0xffffull
                                                                          : 0x3ffull;
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
        if (ev & ~event_field_mask())
                return false;
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
                saved.evtyper[i] = evtyper_read(i);
                saved.evcntr[i]  = evcntr_read(i);
        }
        if (caps.el == 2)
                saved.mdcr_el2 = SYSREG_READ(mdcr_el2);
        saved.valid = true;
}

/* At EL2: every event counter below HPMN (so PMCR_EL0.E starts and stops them all, as at
 * EL1), counting allowed at EL2 (HPMD and HCCD clear), no traps of our own accesses.
 * [ARM-ARM] D23.2 MDCR_EL2; field names as Linux arch/arm64/include/asm/kvm_arm.h. */
static void take_el2_counters(void)
{
        uint64_t m = saved.mdcr_el2 & ~(MDCR_EL2_HPMD | MDCR_EL2_HCCD);
        if (caps.n_counters) /* HPMN = 0 is only defined with FEAT_HPMN0 */
                m = (m & ~MDCR_EL2_HPMN_MASK) | caps.n_counters;
        SYSREG_WRITE(mdcr_el2, m);
        isb();
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
        if (caps.el != 1 && caps.el != 2) {
                caps.reason = "not running at EL1 or EL2";
                return ST_UNSUPPORTED;
        }
        caps.n_counters   = ci->n_counters;
        caps.counter_bits = ci->counters_64bit ? 64 : 32;
        caps.pmceid0      = r->pmceid0;
        caps.pmceid1      = r->pmceid1;
        caps.available    = true;
        caps.reason       = NULL;
        save_state();
        if (caps.el == 2)
                take_el2_counters();
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
 * EL0, NSH includes EL2. PMU_EL1 is the kernel level, the one the harness's code runs at:
 * at EL2 it includes EL2 too, as kvm-unit-tests arm/pmu.c does when it runs there.
 * [ARM-ARM] D23.5.9 Table "Filtering". */
static uint64_t el_filter(unsigned flags)
{
        uint64_t f = 0;
        if (!(flags & PMU_EL1))
                f |= PMEVTYPER_P;
        if (!(flags & PMU_EL0))
                f |= PMEVTYPER_U;
        if ((flags & PMU_EL2) || ((flags & PMU_EL1) && caps.el == 2))
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
        if (idx != PMU_ARM64_CYCLE && (ev & ~event_field_mask()))
                return ST_BAD_ARG; /* would alias another event in a 10-bit field */
        uint64_t type = el_filter(flags);
        if (idx != PMU_ARM64_CYCLE)
                type |= ev & event_field_mask();
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
        return evcntr_read(idx) & counter_mask(idx);
}

void pmu_arm64_write(unsigned idx, uint64_t val)
{
        if (idx == PMU_ARM64_CYCLE)
                SYSREG_WRITE(pmccntr_el0, val);
        else
                evcntr_write(idx, val & counter_mask(idx));
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
        /* The increment is only certain to be seen by a later read or disable after a
         * context synchronization. [ARM-ARM] D11.3 "Synchronization of changes to the
         * Performance Monitors registers"; Linux pairs PMSWINC writes with isb(). */
        isb();
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
                evtyper_write(i, saved.evtyper[i]);
                evcntr_write(i, saved.evcntr[i]);
        }
        SYSREG_WRITE(pmccfiltr_el0, saved.ccfiltr);
        SYSREG_WRITE(pmccntr_el0, saved.ccntr);
        SYSREG_WRITE(pmselr_el0, saved.selr);
        SYSREG_WRITE(pmuserenr_el0, saved.userenr);
        SYSREG_WRITE(pmovsset_el0, saved.ovsset & all);
        SYSREG_WRITE(pmintenset_el1, saved.intenset & all);
        SYSREG_WRITE(pmcntenset_el0, saved.cntenset & all);
        if (caps.el == 2)
                SYSREG_WRITE(mdcr_el2, saved.mdcr_el2);
        isb();
        saved.valid = false;
}
