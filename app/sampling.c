/** @file
 * The sampling phase: AMD IBS (op and fetch), Intel PEBS load latency and LBR with cycle
 * counts, each validated against kernels whose addresses, latencies and branch costs the
 * harness knows (app/sampling_run.c). Every mechanism the CPU lacks prints one SKIP line per
 * check with the reason, so the list of checks is the same on every machine; the verdicts
 * go to sampling-validation.json and the DTrace-/Caliper-style reports to
 * sampling-report.txt. Session state machines: app/sampling_{ibs,pebs,lbr}.c.
 */
#include "app/run.h"
#include "app/sampling.h"
#include "app/sampling_run.h"

#include "lib/fmt.h"
#include "report/inventory.h"

/* ---- check lists: the same names whether a mechanism runs or SKIPs ---------------------- */

static void skip_per_ws(struct smp_log *lg, const char *mech, const char *check,
                        const struct smp_plan *p, const char *why)
{
        char name[48];

        for (size_t i = 0; i < p->n; i++) {
                fmt_snprintf(name, sizeof(name), "%s %s", check, p->ws[i].name);
                smp_log_skip(lg, mech, name, why);
        }
}

void smp_skip_mech(struct smp_log *lg, const char *mech, const struct smp_plan *p,
                   const char *why)
{
        if (!strcmp(mech, SMP_MECH_IBS_OP) || !strcmp(mech, SMP_MECH_PEBS)) {
                skip_per_ws(lg, mech, "addresses", p, why);
                skip_per_ws(lg, mech, "physical", p, why);
                skip_per_ws(lg, mech, "latency", p, why);
                skip_per_ws(lg, mech, "data-source", p, why);
                smp_log_skip(lg, mech, "tlb page-stride", why);
                smp_log_skip(lg, mech, "sample-count", why);
                if (!strcmp(mech, SMP_MECH_IBS_OP))
                        smp_log_skip(lg, mech, "op-count", why);
        } else if (!strcmp(mech, SMP_MECH_IBS_FETCH)) {
                smp_log_skip(lg, mech, "fetch-addresses", why);
                smp_log_skip(lg, mech, "fetch-count", why);
        } else if (!strcmp(mech, SMP_MECH_LBR)) {
                smp_log_skip(lg, mech, "block-cost", why);
                smp_log_skip(lg, mech, "symbols", why);
                smp_log_skip(lg, mech, "sample-count", why);
        }
}

/* ---- the phase -------------------------------------------------------------------------- */

static void print_plan(const struct smp_plan *p)
{
        const char *unit = p->tsc_cycles ? "TSC ticks" : "cycles";

        if (p->tsc_cycles)
                rep_info("plan: the latency table is in TSC ticks (%llu Hz; no core-cycle clock "
                         "in the sweep): each run converts it with its measured core:TSC ratio",
                         (unsigned long long)p->clock_hz);
        for (size_t i = 0; i < p->n; i++)
                rep_info("plan: %-4s working set %llu KiB, chase latency %u %s, sampled miss "
                         "latency accepted %u..%u %s", p->ws[i].name,
                         (unsigned long long)(p->ws[i].bytes / KiB), p->ws[i].p50_cycles, unit,
                         p->ws[i].lat_lo, p->ws[i].lat_hi, unit);
}

status_t phase_sampling(struct run *r)
{
        struct smp_ctx *c;
        struct rep_buf  json = { 0 };
        status_t        st;

        if (!(c = plat_alloc(sizeof(*c))))
                return rep_err(ST_NO_MEM, "sampling: %zu bytes of state", sizeof(*c));
        c->cpu = r->inv && r->inv->cpu_st == ST_OK ? &r->inv->cpu : NULL;
        c->tsc_hz = r->inv ? r->inv->tsc_hz : 0;
        smp_plan_build(r->levels, &c->plan);
        c->log.levels_source = c->plan.fallback
                                       ? "fixed fallback (no latency table from the latency phase)"
                                       : "latency phase";
        rep_info("expected latencies: %s", c->log.levels_source);
        print_plan(&c->plan);

        if (!c->cpu) {
                static const char *const all[] = { SMP_MECH_IBS_OP, SMP_MECH_IBS_FETCH,
                                                   SMP_MECH_PEBS, SMP_MECH_LBR };
                for (size_t i = 0; i < ARRAY_SIZE(all); i++)
                        smp_skip_mech(&c->log, all[i], &c->plan, "no CPU inventory");
        } else {
                /* Detection of each mechanism is CPUID first, so under QEMU TCG (no IBS, no DS,
                 * no PMU) nothing below allocates, programs or waits. */
                pmu_init(c->cpu);
                smp_run_ibs(c);
                smp_run_pebs(c);
                smp_run_lbr(c);
        }

        if (c->report.len)
                run_add_file(r, "sampling-report.txt", &c->report);
        if ((st = smp_json_write(&c->log, &json)) != ST_OK) {
                rep_buf_free(&json);
                rep_err(st, "building sampling-validation.json");
        } else {
                run_add_file(r, "sampling-validation.json", &json);
        }
        rep_buf_free(&c->report);
        plat_free(c);
        return ST_OK;
}
