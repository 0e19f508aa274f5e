/** @file TSC, APERF/MPERF and the core:TSC ratio of a run (see pmu/clock.h). */
#include "pmu/clock.h"

#include "boot/x86/coreclk.h"
#include "boot/x86/msr.h"
#include "lib/base.h"

/* Ratios outside 1/8 .. 8 are taken as a failed measurement. */
#define RATIO_MIN_Q16 (1u << 13)
#define RATIO_MAX_Q16 (8u << 16)

static const char ratio_aperf[] = "APERF/MPERF";
static const char ratio_pmu[]   = "PMU cycles";

uint64_t pmu_clock_tsc_read(void)
{
        return rdtsc_ordered();
}

status_t pmu_clock_aperf_read(uint64_t *aperf, uint64_t *mperf)
{
        return x86_aperf_mperf_read(aperf, mperf);
}

status_t pmu_clock_aperf_probe(const struct cpu_info *ci, const char **reason)
{
        uint64_t a, m;

        if (!ci || !ci->aperfmperf) {
                *reason = "CPUID.06H:ECX[0] clear: no APERF/MPERF to scale the TSC to core "
                          "cycles";
                return ST_UNSUPPORTED;
        }
        if (pmu_clock_aperf_read(&a, &m) != ST_OK) {
                *reason = "APERF/MPERF do not read back";
                return ST_UNSUPPORTED;
        }
        return ST_OK;
}

void pmu_clock_ratio_begin(struct pmu_clock_ratio *r, const struct cpu_info *cpu)
{
        const struct pmu_event_desc *ev;
        const char *why;

        memset(r, 0, sizeof(*r));
        r->slot = (struct pmu_slot){ .fixed = false, .idx = 0 }; /* PEBS has counter 1 */
        if (cpu && cpu->aperfmperf && pmu_clock_aperf_read(&r->a0, &r->m0) == ST_OK)
                r->how = ratio_aperf;
        else if (pmu_available() && pmu_n_gp() >= 2 &&
                 pmu_alias_event("cycles", &ev, &why) == ST_OK &&
                 pmu_program(r->slot, ev, PMU_OS, 0) == ST_OK &&
                 pmu_start(pmu_slot_bit(r->slot)) == ST_OK)
                r->how = ratio_pmu;
        r->t0 = rdtsc_ordered();
}

uint32_t pmu_clock_ratio_end(struct pmu_clock_ratio *r)
{
        uint64_t t1 = rdtsc_ordered(), a1 = 0, m1 = 0, num = 0, den = 0, q16;

        if (r->how == ratio_aperf && pmu_clock_aperf_read(&a1, &m1) == ST_OK) {
                num = a1 - r->a0;
                den = m1 - r->m0;
        } else if (r->how == ratio_pmu) {
                pmu_stop(pmu_slot_bit(r->slot));
                if (pmu_read(r->slot, &num) == ST_OK)
                        den = t1 - r->t0;
        }
        q16 = den ? (uint64_t)(((unsigned __int128)num << 16) / den) : 0;
        if (q16 < RATIO_MIN_Q16 || q16 > RATIO_MAX_Q16) {
                r->how = NULL;
                return 0;
        }
        return (uint32_t)q16;
}
