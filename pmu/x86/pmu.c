/** @file Core PMU detection and the one interface over the drivers (see pmu.h). */
#include "pmu/pmu.h"

#include "boot/plat.h"
#include "pmu/x86/pmu_priv.h"
#include "pmu/x86/quirks.h"

/* Architectural event index of Branch Misses Retired. [SDM-3B]; Linux
 * ARCH_PERFMON_BRANCH_MISSES_RETIRED */
#define ARCH_BIT_BR_MISSES 6

static struct pmu_state            state;
static struct pmu_saved            saved; /* survives pmu_init: one save per restore */
static const struct pmu_driver    *drv;
static const char                  not_init[] = "pmu_init not called";

/* The core-PMU rows of the quirk table (pmu/x86/quirks.c). */
static void apply_quirks(struct pmu_caps *c)
{
        c->quirks = pmu_quirks_lookup(PMU_QUIRK_CORE, c->vendor, c->family, c->model,
                                      &c->quirk_ref);
}

status_t pmu_init(const struct cpu_info *ci)
{
        status_t st;

        memset(&state, 0, sizeof(state));
        drv = NULL;
        if (!ci) {
                state.caps.reason = "no CPU description";
                return ST_BAD_ARG;
        }
        state.caps.vendor = ci->vendor;
        state.caps.family = ci->family;
        state.caps.model  = ci->model;
        switch (ci->vendor) {
        case VEN_INTEL:
                drv = &pmu_drv_intel;
                break;
        case VEN_AMD:
        case VEN_HYGON:
                drv = &pmu_drv_amd;
                break;
        default:
                state.caps.reason = "vendor has no supported core PMU driver";
                return ST_UNSUPPORTED;
        }
        if ((st = drv->probe(&state.caps, ci)) != ST_OK) {
                state.caps.available = false;
                if (!state.caps.reason)
                        state.caps.reason = "PMU probe failed";
                drv = NULL;
                return st;
        }
        state.caps.available = true;
        state.caps.reason    = NULL;
        state.caps.events    = pmu_events_for(ci->vendor, ci->family, ci->model);
        apply_quirks(&state.caps);
        if (saved.valid && (saved.vendor != ci->vendor || saved.signature != ci->signature))
                saved.valid = false; /* another CPU (host tests): its values do not apply */
        if (!saved.valid && drv->save(&state, &saved) == ST_OK) {
                saved.valid     = true;
                saved.vendor    = ci->vendor;
                saved.signature = ci->signature;
        }
        return drv->reset(&state);
}

const struct pmu_caps *pmu_get_caps(void)
{
        if (!drv && !state.caps.reason)
                state.caps.reason = not_init;
        return &state.caps;
}

bool pmu_available(void)
{
        return drv && state.caps.available;
}

bool pmu_has_fixed(unsigned n)
{
        return pmu_available() && n < PMU_MAX_FIXED && (state.caps.fixed_mask & (1u << n));
}

bool pmu_has_full_width_writes(void)
{
        return pmu_available() && state.caps.full_width_writes;
}

bool pmu_has_global_ctrl(void)
{
        return pmu_available() && state.caps.has_global;
}

bool pmu_has_quirk(uint32_t q)
{
        return pmu_available() && (state.caps.quirks & q);
}

unsigned pmu_n_gp(void)
{
        return pmu_available() ? state.caps.n_gp : 0;
}

status_t pmu_event_usable(const struct pmu_event_desc *ev, const char **reason)
{
        const char *dummy;

        if (!reason)
                reason = &dummy;
        *reason = "";
        if (!ev)
                return ST_BAD_ARG;
        if (!pmu_available()) {
                *reason = pmu_get_caps()->reason;
                return ST_UNSUPPORTED;
        }
        if (ev->fixed >= 0 && !pmu_has_fixed((unsigned)ev->fixed)) {
                *reason = "this CPU has no such fixed counter";
                return ST_UNSUPPORTED;
        }
        if (ev->arch_bit >= 0 && (state.caps.arch_unavailable & (1u << ev->arch_bit))) {
                *reason = "CPUID.0AH:EBX marks this architectural event unavailable";
                return ST_UNSUPPORTED;
        }
        if (ev->arch_bit == ARCH_BIT_BR_MISSES && pmu_has_quirk(PMU_Q_BR_MISS_RETIRED_BROKEN)) {
                *reason = state.caps.quirk_ref;
                return ST_UNSUPPORTED;
        }
        return ST_OK;
}

status_t pmu_alias_event(const char *alias, const struct pmu_event_desc **out,
                         const char **reason)
{
        const char *dummy;
        status_t    st;

        if (!reason)
                reason = &dummy;
        if (!out || !alias)
                return ST_BAD_ARG;
        *out = NULL;
        if (!pmu_available()) {
                *reason = pmu_get_caps()->reason;
                return ST_UNSUPPORTED;
        }
        if ((st = pmu_alias_resolve(state.caps.events, alias, out, reason)) != ST_OK)
                return st;
        if ((st = pmu_event_usable(*out, reason)) != ST_OK)
                *out = NULL;
        return st;
}

uint64_t pmu_slot_bit(struct pmu_slot s)
{
        return s.fixed ? BIT_ULL(PMU_FIXED_BIT + (s.idx & 31)) : BIT_ULL(s.idx & 31);
}

unsigned pmu_slot_width(struct pmu_slot s)
{
        return s.fixed ? state.caps.fixed_width : state.caps.gp_width;
}

uint32_t pmu_rdpmc_index(struct pmu_slot s)
{
        /* [SDM-2B] RDPMC: ECX[30] selects the fixed counters. AMD: ECX = counter number
         * for the legacy and extended core counters [APM-3] RDPMC. */
        return s.fixed ? (uint32_t)(1u << 30) | s.idx : s.idx;
}

static bool slot_ok(struct pmu_slot s)
{
        return s.fixed ? pmu_has_fixed(s.idx) : s.idx < state.caps.n_gp;
}

status_t pmu_reset(void)
{
        if (!pmu_available())
                return ST_UNSUPPORTED;
        return drv->reset(&state);
}

status_t pmu_restore(void)
{
        status_t st;

        if (!saved.valid)
                return ST_OK;
        if (!pmu_available())
                return ST_UNSUPPORTED;
        st          = drv->restore(&state, &saved);
        saved.valid = false;
        return st;
}

status_t pmu_program(struct pmu_slot s, const struct pmu_event_desc *ev, unsigned flags,
                     uint64_t start)
{
        if (!pmu_available())
                return ST_UNSUPPORTED;
        if (!ev || !slot_ok(s))
                return ST_BAD_ARG;
        if (s.fixed != (ev->fixed >= 0) || (s.fixed && ev->fixed != s.idx))
                return ST_BAD_ARG;
        /* perf's "Counter": e.g. MEM_TRANS_RETIRED.LOAD_LATENCY on Sapphire Rapids counts on
         * general counters 1-7 only; on counter 0 it would count nothing. */
        if (!s.fixed && ev->gp_mask && !(ev->gp_mask & (1u << s.idx)))
                return ST_UNSUPPORTED;
        return drv->program(&state, s, ev, flags & (PMU_USR | PMU_OS | PMU_INT | PMU_ADAPTIVE),
                            start);
}

static uint64_t valid_mask(void)
{
        uint64_t m = (state.caps.n_gp >= 32) ? 0xffffffffull : (BIT_ULL(state.caps.n_gp) - 1);

        return m | ((uint64_t)state.caps.fixed_mask << PMU_FIXED_BIT);
}

status_t pmu_start(uint64_t mask)
{
        if (!pmu_available())
                return ST_UNSUPPORTED;
        if (mask & ~valid_mask())
                return ST_BAD_ARG;
        return drv->start(&state, mask);
}

status_t pmu_stop(uint64_t mask)
{
        if (!pmu_available())
                return ST_UNSUPPORTED;
        if (mask & ~valid_mask())
                return ST_BAD_ARG;
        return drv->stop(&state, mask);
}

status_t pmu_read(struct pmu_slot s, uint64_t *out)
{
        if (!out)
                return ST_BAD_ARG;
        *out = 0;
        if (!pmu_available())
                return ST_UNSUPPORTED;
        if (!slot_ok(s))
                return ST_BAD_ARG;
        return drv->read(&state, s, out);
}

status_t pmu_write(struct pmu_slot s, uint64_t val)
{
        if (!pmu_available())
                return ST_UNSUPPORTED;
        if (!slot_ok(s))
                return ST_BAD_ARG;
        return drv->write(&state, s, val);
}

status_t pmu_ovf_status(uint64_t *out)
{
        if (!out)
                return ST_BAD_ARG;
        *out = 0;
        if (!pmu_available())
                return ST_UNSUPPORTED;
        return drv->ovf_status(&state, out);
}

status_t pmu_ovf_clear(uint64_t mask)
{
        if (!pmu_available())
                return ST_UNSUPPORTED;
        return drv->ovf_clear(&state, mask);
}
