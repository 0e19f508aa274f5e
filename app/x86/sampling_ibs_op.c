/** @file
 * The IBS op pipeline of the sampling phase: plan (the control value for the period and
 * count mode) -> run (arm op sampling, chase each working set with interrupts enabled,
 * disarm) -> decode (to portable samples) -> check (addresses, physical,
 * latency, data source per working set; sample and op counts; the page-stride chase's TLB
 * misses) -> report (the data-cache report). Control value, arming and decoding are one module,
 * pmu/x86/ibs_op.c; the session is opened by the phase (app/x86/sampling.c), which shares it
 * with the fetch pipeline.
 */
#include "app/x86/sampling.h"

#include "bench/kernel_chase.h"
#include "lib/fmt.h"
#include "pmu/clock.h"

#define IBS_OP_PERIOD       4096u    /* dispatched ops (or cycles) per sample */
/* The chase's loop per iteration: 32 loads, dec, jnz; dec+jnz fuse into one op from Zen 3 on
 * (Zen 2 fuses only CMP/TEST with a Jcc: [SOG-17h], [SOG-19h] "Branch Fusion"). Ops per
 * iteration are taken as 33.5 (x2 = 67): either part is 1.5 % from it, inside the 5 %
 * tolerance with the rest of it for the ops the PMI handler dispatches after its re-arm. */
#define CHASE_OPS_X2        67u

static size_t ibs_decode(const struct pmu_ibs_session *s, struct psample *ps)
{
        struct pmu_ibs_op op;
        size_t k = 0;

        for (size_t i = 0; i < s->n_op; i++)
                if (pmu_ibs_op_decode(&s->info, &s->ops[i], &op) == ST_OK &&
                    pmu_ibs_op_to_psample(&s->info, &op, &ps[k]) == ST_OK)
                        k++;
        return k;
}

/* Ops of the chase that are loads carrying their linear address, of all the chase's op
 * samples: a sample without data is a fault to judge (a lost LdOp or DcLinAddrValid), not a
 * gap that leaves the per-level checks SKIPping. IBS tags ops uniformly, so loads are 32 of
 * the 34 ops of an iteration (33 where dec and jnz fuse): at least 941 permille, less 20 for
 * the sampling's spread (3 sigma of a binomial over ~2000 samples is 16). */
#define IBS_DATA_MIN_PERMILLE 921u

static void count_with_data(const struct psample *ps, size_t n, uint64_t *n_all,
                            uint64_t *n_data)
{
        for (size_t i = 0; i < n; i++)
                *n_data += ps[i].is_load && ps[i].data_la_valid;
        *n_all += n;
}

static void log_with_data(struct samp_ctx *c, uint64_t n_data, uint64_t n_all)
{
        struct rep_verdict v;

        if (!n_all) {
                samp_log_skip(&c->log, REP_SKIP_ENV, SAMP_MECH_IBS_OP, "records-with-data",
                              "no op sample in the chase");
                return;
        }
        samp_permille_verdict(&v, n_data, n_all, IBS_DATA_MIN_PERMILLE);
        fmt_snprintf(v.why, sizeof(v.why), "%llu of %llu chase op samples are loads with their "
                     "linear address (32 of 33-34 ops are loads)", (unsigned long long)n_data,
                     (unsigned long long)n_all);
        samp_log_check(&c->log, SAMP_MECH_IBS_OP, "records-with-data", &v);
}

static void ibs_counts(struct samp_ctx *c, struct pmu_ibs_session *s, uint64_t ctl,
                       uint64_t iters, bool ops)
{
        struct rep_verdict v;
        uint64_t want = iters * CHASE_OPS_X2 / 2, n = s->n_op + s->n_dropped;

        if (!ops) {
                samp_log_skip(&c->log, REP_SKIP_FEATURE, SAMP_MECH_IBS_OP, "sample-count", "op "
                              "sampling counts cycles "
                              "(CPUID 0x8000001B OpCnt clear): no known event total");
                samp_log_skip(&c->log, REP_SKIP_FEATURE, SAMP_MECH_IBS_OP, "op-count", "no "
                              "dispatched-op counting");
                return;
        }
        /* A sample every period less the random CurCnt[6:0] each re-arm carries (63.5 on
         * average): both sides twice, to stay integer. */
        if (rep_check_sample_count(n, 2 * want, pmu_ibs_op_mean_period_x2(&s->info, ctl),
                                   SAMP_COUNT_TOL_PERMILLE, &v) == ST_OK)
                samp_log_check(&c->log, SAMP_MECH_IBS_OP, "sample-count", &v);
        /* Ops IBS counted: a period per sample less what each re-arm carried into the next,
         * plus what was counted after the last. */
        if (rep_check_sample_count(n * IBS_OP_PERIOD - s->op_carried + s->op_tail, want, 1,
                                   SAMP_COUNT_TOL_PERMILLE, &v) == ST_OK)
                samp_log_check(&c->log, SAMP_MECH_IBS_OP, "op-count", &v);
}

void samp_ibs_op_run(struct samp_ctx *c, struct pmu_ibs_session *s, struct psample *ps)
{
        struct pmu_ibs_op_opts opts = { .count = (s->info.caps & IBS_CAPS_OPCNT)
                                                         ? PMU_IBS_COUNT_DISPATCHED_OPS
                                                         : PMU_IBS_COUNT_CYCLES };
        /* Loop iterations (32 loads each) for about SAMP_SAMPLES_TARGET samples. */
        uint64_t ctl, iters = (uint64_t)SAMP_SAMPLES_TARGET * IBS_OP_PERIOD * 2 / CHASE_OPS_X2;
        struct bench_chase_buf ch;
        struct pmu_clock_ratio rt;
        struct samp_plan pc;
        struct rep_verdict v;
        uint32_t q16;
        size_t n;
        status_t st;
        bool counted = false;
        uint64_t n_all = 0, n_data = 0;

        if ((st = pmu_ibs_op_ctl_encode(&s->info, IBS_OP_PERIOD, &opts, &ctl)) != ST_OK) {
                samp_skip_mech(&c->log, REP_SKIP_FEATURE, SAMP_MECH_IBS_OP, &c->plan, "op sampling "
                               "cannot be encoded");
                return;
        }
        for (size_t i = 0; i < c->plan.n; i++) {
                const struct samp_ws *w = &c->plan.ws[i];

                if (w->ws_why) {
                        samp_skip_ws(&c->log, REP_SKIP_ENV, SAMP_MECH_IBS_OP, w, w->ws_why);
                        continue;
                }
                if ((st = bench_chase_buf_create(&ch, &SAMP_CHASE_CFG(w->bytes, 64))) != ST_OK) {
                        samp_skip_ws(&c->log, REP_SKIP_ENV, SAMP_MECH_IBS_OP, w, status_str(st));
                        continue;
                }
                bench_chase(ch.start, ch.n_lines / BENCH_CHASE_UNROLL + 1);
                pmu_clock_ratio_begin(&rt, c->cpu);
                if ((st = pmu_ibs_op_arm(s, ctl)) == ST_OK) {
                        bench_chase(ch.start, iters);
                        pmu_ibs_op_disarm(s);
                }
                q16 = pmu_clock_ratio_end(&rt);
                samp_plan_core_cycles(&c->plan, q16, rt.how, &pc);
                n = st == ST_OK ? ibs_decode(s, ps) : 0;
                if (!counted)
                        ibs_counts(c, s, ctl, iters,
                                   opts.count == PMU_IBS_COUNT_DISPATCHED_OPS);
                counted = true;
                n = samp_filter_chase(ps, n);
                count_with_data(ps, n, &n_all, &n_data);
                samp_check_ws(c, SAMP_MECH_IBS_OP, &pc.ws[i], &ch, ps, n, pc.lat_note);
                samp_dcache_report(c, &pc, SAMP_MECH_IBS_OP, &pc.ws[i], ps, n, IBS_OP_PERIOD);
                bench_chase_buf_destroy(&ch);
        }
        if (!counted) { /* the same check names whatever was sampled */
                samp_log_skip(&c->log, REP_SKIP_ENV, SAMP_MECH_IBS_OP, "sample-count", "no working "
                              "set ran");
                samp_log_skip(&c->log, REP_SKIP_ENV, SAMP_MECH_IBS_OP, "op-count", "no working set "
                              "ran");
                samp_log_skip(&c->log, REP_SKIP_ENV, SAMP_MECH_IBS_OP, "records-with-data",
                              "no working set ran");
        } else {
                log_with_data(c, n_data, n_all);
        }
        if ((st = bench_chase_buf_create(&ch, &SAMP_CHASE_CFG(SAMP_TLB_CHASE_BYTES, 4096))) !=
            ST_OK) {
                samp_log_skip(&c->log, REP_SKIP_ENV, SAMP_MECH_IBS_OP, "tlb "
                              "page-stride", status_str(st));
                return;
        }
        bool miss;
        enum psample_pgsz pg;
        samp_tlb_expect(&ch, &miss, &pg);
        if (pmu_ibs_op_arm(s, ctl) == ST_OK) {
                bench_chase(ch.start, 2 * ch.n_lines / BENCH_CHASE_UNROLL);
                pmu_ibs_op_disarm(s);
        }
        n = samp_filter_chase(ps, ibs_decode(s, ps));
        if (rep_check_tlb(ps, n, miss, pg, 700, &v) == ST_OK)
                samp_log_check(&c->log, SAMP_MECH_IBS_OP, "tlb page-stride", &v);
        bench_chase_buf_destroy(&ch);
}
