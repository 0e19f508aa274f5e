/** @file The PMU core-cycle source of the latency sweep (see latency_clock.h). */
#include "app/latency_clock.h"

#include "lib/fmt.h"
#include "pmu/events.h"
#include "pmu/clock.h"

static status_t read_pmu(void *ctx, uint64_t *core, uint64_t *ref)
{
        const struct lat_clock_pmu *p = ctx;
        status_t                    st = pmu_read(p->slot, core);

        *ref = pmu_clock_tsc_read();
        return st;
}

/* Program @p slot for @p ev and start it. */
static bool start(struct lat_clock_pmu *p, struct pmu_slot slot, const struct pmu_event_desc *ev)
{
        p->slot = slot;
        if (!ev || pmu_program(slot, ev, PMU_OS, 0) != ST_OK || pmu_start(pmu_slot_bit(slot)) !=
            ST_OK)
                return false;
        p->running = true;
        return true;
}

void lat_clock_pmu_begin(struct lat_clock_pmu *p, struct bench_clock *clk,
                         const struct cpu_info *cpu)
{
        const struct pmu_event_desc *ev = NULL;
        const char                  *why = NULL, *name = NULL;

        if (clk->core.name)
                return;
        if (pmu_init(cpu) != ST_OK || !pmu_available()) {
                why = pmu_get_caps()->reason ? pmu_get_caps()->reason : "no usable PMU";
        } else if (pmu_has_fixed(1) &&
                   start(p, (struct pmu_slot){ .fixed = true, .idx = 1 },
                         pmu_event_find(pmu_get_caps()->events, "CPU_CLK_UNHALTED.THREAD"))) {
                name = "PMU fixed counter 1";
        } else if (pmu_alias_event("cycles", &ev, &why) == ST_OK &&
                   start(p, (struct pmu_slot){ .fixed = false, .idx = 0 }, ev)) {
                name = "PMU general counter 0 (cycles)";
        } else if (!why) {
                why = "the PMU's cycles counter did not start";
        }
        if (name) {
                clk->core = (struct bench_core_src){ .name = name, .read = read_pmu, .ctx = p };
                return;
        }
        pmu_restore(); /* the counter MSRs as pmu_init found them (nothing if it saved none) */
        fmt_snprintf(p->why, sizeof(p->why), "%s; PMU: %s",
                     clk->core.why_none ? clk->core.why_none : "no APERF/MPERF", why);
        clk->core.why_none = p->why;
}

void lat_clock_pmu_end(struct lat_clock_pmu *p)
{
        if (p->running) {
                pmu_stop(pmu_slot_bit(p->slot));
                pmu_restore(); /* the counter MSRs as the firmware left them */
        }
        p->running = false;
}
