/** @file
 * The sampling phase: AMD IBS (op and fetch), Intel PEBS load latency and LBR with cycle
 * counts, each validated against kernels whose addresses, latencies and branch costs the
 * harness knows. The phase builds the plan from the latency table, then runs one pipeline
 * per mechanism (app/sampling_{ibs_op,ibs_fetch,pebs,lbr}.c). Every mechanism the CPU lacks
 * prints one SKIP line per check with the reason, so the list of checks is the same on every
 * machine; the verdicts go to sampling-validation.json and the DTrace-/Caliper-style reports
 * to sampling-report.txt.
 */
#include "app/run.h"
#include "boot/cpu.h"
#include "app/x86/sampling.h"

#include "lib/fmt.h"
#include "pmu/x86/ibs_session.h"
#include "report/inventory.h"

/* ---- IBS: the session both IBS pipelines share ------------------------------------------ */

static void ibs_pmi(const struct cpu_pmi_frame *f, void *ctx)
{
        (void)f;
        pmu_ibs_session_on_pmi(ctx);
}

/* IBS: one session serves the op and the fetch pipelines (one probe, one interrupt route,
 * one PMI count), so the phase opens and closes it around both. */
static void run_ibs(struct samp_ctx *c)
{
        struct pmu_ibs_session *s = plat_alloc(sizeof(*s));
        struct psample *ps = NULL;
        status_t st;

        if (!s || pmu_ibs_session_probe(c->cpu, s) != ST_OK) {
                const char *why = s ? s->why : "no memory";
                samp_skip_mech(&c->log, samp_absent_kind(), SAMP_MECH_IBS_OP, &c->plan, why);
                samp_skip_mech(&c->log, samp_absent_kind(), SAMP_MECH_IBS_FETCH, &c->plan, why);
                plat_free(s);
                return;
        }
        rep_info("ibs: caps 0x%x, interrupt through extended LVT entry %u (IBS_CTL)",
                 s->info.caps, s->lvt.offset);
        if ((st = cpu_pmi_enable(ibs_pmi, s, (int)s->lvt.offset)) != ST_OK) {
                char why[96];
                fmt_snprintf(why, sizeof(why), "routing the IBS interrupt: %s", status_str(st));
                samp_skip_mech(&c->log, REP_SKIP_ENV, SAMP_MECH_IBS_OP, &c->plan, why);
                samp_skip_mech(&c->log, REP_SKIP_ENV, SAMP_MECH_IBS_FETCH, &c->plan, why);
                plat_free(s);
                return;
        }
        s->ops = plat_alloc(SAMP_SAMPLES_MAX * sizeof(*s->ops));
        ps = plat_alloc(SAMP_SAMPLES_MAX * sizeof(*ps));
        s->op_cap = s->ops ? SAMP_SAMPLES_MAX : 0;
        if (!s->ops || !ps)
                samp_skip_mech(&c->log, REP_SKIP_ENV, SAMP_MECH_IBS_OP, &c->plan, "no memory for "
                               "samples");
        else if (!(s->info.caps & IBS_CAPS_OPSAM))
                samp_skip_mech(&c->log, REP_SKIP_FEATURE, SAMP_MECH_IBS_OP, &c->plan, "op sampling "
                               "not offered");
        else
                samp_ibs_op_run(c, s, ps);
        samp_ibs_fetch_run(c, s);
        cpu_pmi_disable();
        samp_log_figure(&c->log, "ibs", "PMIs taken", s->n_pmi, "interrupts");
        plat_free(s->ops);
        plat_free(s->fetches);
        plat_free(ps);
        plat_free(s);
}

/* ---- the phase -------------------------------------------------------------------------- */

static void print_plan(const struct samp_plan *p)
{
        const char *unit = p->tsc_cycles ? "TSC ticks" : "core cycles";

        if (p->tsc_cycles)
                rep_info("plan: the latency table is in TSC ticks (%llu Hz; no core-cycle clock "
                         "in the sweep): each run converts it with its measured core:TSC ratio",
                         (unsigned long long)p->clock_hz);
        for (size_t i = 0; i < p->n; i++) {
                const struct samp_ws *w = &p->ws[i];

                if (w->ws_why)
                        rep_info("plan: %-4s no working set: %s", w->name, w->ws_why);
                else if (w->lat_why)
                        rep_info("plan: %-4s working set %llu KiB, no expected latency: %s",
                                 w->name, (unsigned long long)(w->bytes / KiB), w->lat_why);
                else
                        rep_info("plan: %-4s working set %llu KiB, chase latency %u %s, sampled "
                                 "miss latency accepted %u..%u %s", w->name,
                                 (unsigned long long)(w->bytes / KiB), w->p50_cycles, unit,
                                 w->lat_lo, w->lat_hi, unit);
        }
}

status_t phase_sampling(struct run *r)
{
        struct samp_ctx *c;
        struct rep_buf  json = { 0 };
        status_t        st;

        if (!(c = plat_alloc(sizeof(*c))))
                return rep_err(ST_NO_MEM, "sampling: %zu bytes of state", sizeof(*c));
        c->cpu = r->inv && r->inv->cpu_st == ST_OK ? &r->inv->cpu : NULL;
        c->tsc_hz = r->inv ? r->inv->tsc_hz : 0;
        samp_plan_build(r->levels, c->cpu, &c->plan);
        c->log.levels_source = !c->plan.fallback ? "latency phase"
                               : c->plan.ws[0].ws_why ? "none (no latency table, no CPUID caches)"
                                                      : "CPUID caches (no latency expected)";
        rep_info("expected latencies: %s", c->log.levels_source);
        print_plan(&c->plan);

        if (!c->cpu) {
                static const char *const all[] = { SAMP_MECH_IBS_OP, SAMP_MECH_IBS_FETCH,
                                                   SAMP_MECH_PEBS, SAMP_MECH_LBR };
                for (size_t i = 0; i < ARRAY_SIZE(all); i++)
                        samp_skip_mech(&c->log, REP_SKIP_ENV, all[i], &c->plan, "no CPU inventory");
        } else {
                /* Detection of each mechanism is CPUID first, so under QEMU TCG (no IBS, no DS,
                 * no PMU) nothing below allocates, programs or waits. */
                pmu_init(c->cpu);
                run_ibs(c);
                samp_pebs_run(c);
                samp_lbr_run(c);
                pmu_restore();
        }

        if (c->report.len)
                run_add_file(r, "sampling-report.txt", &c->report);
        if ((st = samp_json_write(&c->log, &json)) != ST_OK) {
                rep_buf_free(&json);
                rep_err(st, "building sampling-validation.json");
        } else {
                run_add_file(r, "sampling-validation.json", &json);
        }
        rep_buf_free(&c->report);
        plat_free(c);
        return ST_OK;
}
