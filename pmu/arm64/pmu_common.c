/** @file
 * The interface of pmu/pmu.h on the Arm PMUv3 (pmu/arm64/pmu_arm64.h), so that the shared
 * counting validation suite (app/pmu_validate.c) runs on AArch64 through the same code path
 * as on x86-64. Mapping:
 *   - general counter n is event counter n (PMEVCNTR<n>_EL0); there are no fixed counters in
 *     the pmu.h sense (the cycle counter PMCCNTR_EL0 is used directly by the AArch64 suite and
 *     clock), so checks of Intel's fixed counters SKIP;
 *   - a counter mask in the layout of pmu.h (bit n = general counter n) is PMCNTENSET_EL0's
 *     layout for n < 31;
 *   - PMU_USR counts EL0, PMU_OS the harness's level (EL1; at EL2 also EL2, PMEVTYPER.NSH,
 *     see pmu_arm64.h), PMU_INT enables the overflow interrupt;
 *   - events come from Linux perf's arm64 common events (the "arm-common" table of
 *     mapfile.csv) and are usable where PMCEID0/1_EL0 say they are implemented.
 * Counters are 64-bit with FEAT_PMUv3p5, else 32-bit; writes are full width.
 */
#include "lib/base.h"

#include "boot/arm64/idreg.h"
#include "pmu/arm64/pmu_arm64.h"
#include "pmu/pmu.h"

static struct pmu_caps caps = { .reason = "pmu_init not called" };

status_t pmu_init(const struct cpu_info *ci)
{
        struct arm64_id_regs  regs;
        struct arm64_cpu_info a;

        if (!ci)
                return ST_BAD_ARG;
        caps = (struct pmu_caps){ .vendor = ci->vendor, .family = ci->family,
                                  .model = ci->model };
        arm64_id_collect(&regs);
        if (arm64_decode(&regs, &a) != ST_OK) {
                caps.reason = "the ID registers could not be decoded";
                return ST_UNSUPPORTED;
        }
        if (pmu_arm64_init(&a, &regs) != ST_OK) {
                caps.reason = pmu_arm64_get_caps()->reason;
                return ST_UNSUPPORTED;
        }
        const struct pmu_arm64_caps *p = pmu_arm64_get_caps();
        caps.available         = p->n_counters > 0;
        caps.reason            = caps.available ? NULL : "PMCR_EL0.N is 0: no event counters";
        caps.kind              = PMU_ARM_PMUV3;
        caps.version           = p->pmuver;
        caps.n_gp              = p->n_counters > PMU_MAX_GP ? PMU_MAX_GP : p->n_counters;
        caps.gp_width          = p->counter_bits;
        caps.full_width_writes = true;
        caps.has_global        = true; /* PMCR_EL0.E and PMCNTENSET/CLR, PMOVSSET/CLR */
        caps.events            = pmu_events_table("arm-common");
        return caps.available ? ST_OK : ST_UNSUPPORTED;
}

const struct pmu_caps *pmu_get_caps(void)
{
        return &caps;
}

bool pmu_available(void)
{
        return caps.available;
}

bool pmu_has_fixed(unsigned n)
{
        (void)n;
        return false;
}

bool pmu_has_full_width_writes(void)
{
        return caps.available;
}

bool pmu_has_global_ctrl(void)
{
        return caps.available;
}

bool pmu_has_quirk(uint32_t q)
{
        (void)q;
        return false;
}

unsigned pmu_n_gp(void)
{
        return caps.available ? caps.n_gp : 0;
}

status_t pmu_event_usable(const struct pmu_event_desc *ev, const char **reason)
{
        const char *why = NULL;

        if (!caps.available)
                why = caps.reason ? caps.reason : "no usable PMU";
        else if (!ev)
                why = "no such event";
        else if (ev->fixed >= 0)
                why = "a fixed-counter pseudo-event: the PMUv3 has no fixed counters";
        else if (!pmu_arm64_event_implemented(ev->code))
                why = "PMCEID0_EL0/PMCEID1_EL0 say this CPU does not implement it";
        if (reason)
                *reason = why;
        return why ? ST_UNSUPPORTED : ST_OK;
}

status_t pmu_alias_event(const char *alias, const struct pmu_event_desc **out,
                         const char **reason)
{
        status_t st;

        if (!caps.available) {
                if (reason)
                        *reason = caps.reason ? caps.reason : "no usable PMU";
                return ST_UNSUPPORTED;
        }
        if ((st = pmu_alias_resolve(caps.events, alias, out, reason)) != ST_OK)
                return st;
        return pmu_event_usable(*out, reason);
}

uint64_t pmu_slot_bit(struct pmu_slot s)
{
        return s.fixed ? BIT_ULL(PMU_FIXED_BIT + s.idx) : BIT_ULL(s.idx);
}

unsigned pmu_slot_width(struct pmu_slot s)
{
        return s.fixed ? 0 : caps.gp_width;
}

uint32_t pmu_rdpmc_index(struct pmu_slot s)
{
        return s.idx; /* PMEVCNTR<n>_EL0: the counter's own index */
}

/* A pmu.h counter mask as PMCNTENSET_EL0 bits; ST_BAD_ARG for counters the CPU lacks. */
static status_t hw_mask(uint64_t mask, uint32_t *out)
{
        uint64_t gp = caps.n_gp ? BIT_ULL(caps.n_gp) - 1 : 0;

        if (!caps.available)
                return ST_UNSUPPORTED;
        if (mask & ~gp)
                return ST_BAD_ARG;
        *out = (uint32_t)mask;
        return ST_OK;
}

static status_t gp_slot(struct pmu_slot s)
{
        if (!caps.available)
                return ST_UNSUPPORTED;
        return s.fixed || s.idx >= caps.n_gp ? ST_BAD_ARG : ST_OK;
}

status_t pmu_reset(void)
{
        if (!caps.available)
                return ST_UNSUPPORTED;
        pmu_arm64_reset();
        return ST_OK;
}

status_t pmu_restore(void)
{
        pmu_arm64_restore();
        return ST_OK;
}

status_t pmu_program(struct pmu_slot s, const struct pmu_event_desc *ev, unsigned flags,
                     uint64_t start)
{
        unsigned f = (flags & PMU_USR ? PMU_EL0 : 0) | (flags & PMU_OS ? PMU_EL1 : 0) |
                     (flags & PMU_INT ? PMU_ARM64_INT : 0);
        status_t st;

        if ((st = gp_slot(s)) != ST_OK)
                return st;
        if (!ev)
                return ST_BAD_ARG;
        return pmu_arm64_program(s.idx, ev->code, f, start);
}

status_t pmu_start(uint64_t mask)
{
        uint32_t m;
        status_t st = hw_mask(mask, &m);

        if (st == ST_OK)
                pmu_arm64_start(m);
        return st;
}

status_t pmu_stop(uint64_t mask)
{
        uint32_t m;
        status_t st = hw_mask(mask, &m);

        if (st == ST_OK)
                pmu_arm64_stop(m);
        return st;
}

status_t pmu_read(struct pmu_slot s, uint64_t *out)
{
        status_t st = gp_slot(s);

        *out = st == ST_OK ? pmu_arm64_read(s.idx) : 0;
        return st;
}

status_t pmu_write(struct pmu_slot s, uint64_t val)
{
        status_t st = gp_slot(s);

        if (st == ST_OK)
                pmu_arm64_write(s.idx, val);
        return st;
}

status_t pmu_ovf_status(uint64_t *out)
{
        uint64_t gp = caps.n_gp ? BIT_ULL(caps.n_gp) - 1 : 0;

        if (!caps.available)
                return ST_UNSUPPORTED;
        *out = pmu_arm64_ovf_status() & gp;
        return ST_OK;
}

status_t pmu_ovf_clear(uint64_t mask)
{
        uint32_t m;
        status_t st = hw_mask(mask, &m);

        if (st == ST_OK)
                pmu_arm64_ovf_clear(m);
        return st;
}
