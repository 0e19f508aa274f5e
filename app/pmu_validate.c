/** @file The PMU counting validation suite (see validate.h). */
#include "app/pmu_validate.h"

#include "bench/kernel_branch.h"
#include "bench/kernel_chase.h"
#include "bench/kernel_pmu.h"
#include "bench/ownpt.h"
#include "boot/cpu.h"
#include "boot/plat.h"
#include "lib/stats.h"
#include "report/json.h"
#include "pmu/clock.h"

#define LOOP_SHORT  10000ull  /* iterations; the difference carries the truth */
#define LOOP_LONG   110000ull
#define PATTERN_LEN (1u << 20) /* bytes of random pattern */
#define LOOP_CYCLES 10000000ull /* iterations for cycles vs TSC: ~10^7 cycles */
#define MAX_REPS    15

const struct val_check val_checks[] = {
        { .name = "insts-loop", .alias = "insts", .kernel = "bench_loop, 110000 - 10000 iterations",
          .truth = TRUTH_LOOP_INSNS, .tol_ppm = 0, .tol_abs = 0,
          .rationale = "retired instructions are architecturally exact; the fixed cost of "
                       "start/stop cancels between the two lengths (kvm-unit-tests x86/pmu.c)" },
        { .name = "branches-loop", .alias = "branches", .kernel = "bench_loop, 110000 - 10000 iterations",
          .truth = TRUTH_LOOP_BRANCHES, .tol_ppm = 0, .tol_abs = 0,
          .rationale = "retired branches are exact, one jnz per iteration; overhead cancels" },
        { .name = "br-misses-random", .alias = "br-misses",
          .kernel = "bench_branch_pattern, 2^20 random bytes minus 2^20 zero bytes",
          .truth = TRUTH_MISPREDICT, .tol_ppm = 100000, .tol_abs = 0,
          .rationale = "a fair random bit is mispredicted half the time whatever the predictor; "
                       "binomial noise at 2^20 is 0.1%, the rest of the 10% covers predictor "
                       "warm-up and partial learning of the generator" },
        { .name = "fixed0-vs-gp", .alias = "insts", .fixed_event = "INST_RETIRED.ANY",
          .kernel = "bench_loop 110000, counted on fixed counter 0 and a general counter at once",
          .truth = TRUTH_FIXED_EQ_GP, .tol_ppm = 0, .tol_abs = 0,
          .rationale = "both count retired instructions and start and stop with the same "
                       "GLOBAL_CTRL write, so they must agree exactly; the expectation is the "
                       "general counter, and at least the 220000 instructions the loop retires" },
        { .name = "fixed1-vs-gp", .alias = "cycles", .fixed_event = "CPU_CLK_UNHALTED.THREAD",
          .kernel = "bench_loop 110000, counted on fixed counter 1 and a general counter at once",
          .truth = TRUTH_FIXED_EQ_GP, .tol_ppm = 1000, .tol_abs = 64,
          .rationale = "both count unhalted core cycles from the same GLOBAL_CTRL write; the "
                       "enable reaches the two counters a few cycles apart, hence 64 cycles "
                       "plus 0.1%; the expectation is at least one cycle per iteration" },
        { .name = "cycles-vs-tsc", .alias = "cycles", .truth = TRUTH_CYCLES_TSC,
          .kernel = "bench_loop 10^7, TSC and APERF/MPERF read just outside the counted region",
          .tol_ppm = 20000, .tol_abs = 0,
          .rationale = "TSC x dAPERF/dMPERF is the core-cycle count of the span; the stamps sit "
                       "a few thousand cycles outside the counted region (<0.1% of 10^7), and "
                       "MPERF ticks at the TSC rate only nominally (AMD: at P0), so 2%" },
        { .name = "l1d-misses-chase", .alias = "l1d-misses", .truth = TRUTH_CHASE_MISSES, .level = 1,
          .kernel = "bench_chase, random chain over 8x L1D, 2N - N loads",
          .tol_ppm = 50000, .tol_abs = 0,
          .rationale = "a random cycle 8x the cache leaves no line in it between two visits "
                       "(LRU: none; random replacement: e^-8 = 0.03%) and defeats the "
                       "prefetchers; 5% covers page-walk and stray loads the event may count" },
        { .name = "l2-misses-chase", .alias = "l2-misses", .truth = TRUTH_CHASE_MISSES, .level = 2,
          .kernel = "bench_chase, random chain over 8x L2, 2N - N loads",
          .tol_ppm = 50000, .tol_abs = 0,
          .rationale = "as l1d: 8x the L2 leaves no line to hit; 5% for page walks and "
                       "prefetches the event may include" },
        { .name = "llc-misses-chase", .alias = "llc-misses", .truth = TRUTH_CHASE_MISSES, .level = 0,
          .kernel = "bench_chase, random chain over 8x the last-level cache, 2N - N loads",
          .tol_ppm = 50000, .tol_abs = 0,
          .rationale = "as l1d at the last level: every load goes to DRAM; 5% for page-walk "
                       "fills and prefetches that some LLC-miss events include" },
        { .name = "dtlb-misses-pagechase", .alias = "dtlb-misses", .truth = TRUTH_PAGE_CHASE,
          .kernel = "bench_chase, one pointer per 4 KiB page, 16x the last-level dTLB, 2N - N",
          .tol_ppm = 50000, .tol_abs = 0,
          .rationale = "random page order over 16x the STLB reach misses it on every load and "
                       "defeats TLB prefetch; 5% for walks the event counts differently "
                       "(completed vs started)" },
};
const size_t val_n_checks = ARRAY_SIZE(val_checks);

uint64_t val_check_tolerance(const struct val_check *c, uint64_t expected)
{
        uint64_t rel = expected <= UINT64_MAX / 1000000 ? expected * c->tol_ppm / 1000000
                                                        : expected / 1000000 * c->tol_ppm;
        return c->tol_abs + rel;
}

bool val_check_pass(const struct val_check *c, uint64_t measured, uint64_t expected)
{
        uint64_t d = measured > expected ? measured - expected : expected - measured;

        return d <= val_check_tolerance(c, expected);
}

unsigned val_report(const struct val_result *r, size_t n)
{
        unsigned n_fail = 0;

        for (size_t i = 0; i < n; i++) {
                const struct val_check *c = r[i].check;

                if (r[i].broken) {
                        rep_check(false, "%s: %s (%s)", c->name, r[i].reason,
                                  status_str(r[i].st));
                        n_fail++;
                        continue;
                }
                if (r[i].st != ST_OK) {
                        rep_skip(r[i].skip, "%s: %s", c->name,
                                 r[i].reason ? r[i].reason : status_str(r[i].st));
                        continue;
                }
                if (!rep_check(val_check_pass(c, r[i].measured, r[i].expected),
                               "%s measured=%llu expected=%llu tolerance=%llu", c->name,
                               (unsigned long long)r[i].measured, (unsigned long long)r[i].expected,
                               (unsigned long long)val_check_tolerance(c, r[i].expected)))
                        n_fail++;
        }
        return n_fail;
}

status_t val_json(const struct val_result *r, size_t n, const struct pmu_caps *caps,
                  struct rep_buf *out)
{
        struct json_w w;

        if (!r && n)
                return ST_BAD_ARG;
        json_init(&w, out);
        json_obj_begin(&w, NULL);
        json_str(&w, "schema", "pmucal.pmu-validation/1");
        json_bool(&w, "pmu_available", caps && caps->available);
        json_str(&w, "pmu_reason", caps && !caps->available ? caps->reason : NULL);
        json_str(&w, "event_table", caps && caps->events ? caps->events->name : NULL);
        json_arr_begin(&w, "checks");
        for (size_t i = 0; i < n; i++) {
                const struct val_check *c = r[i].check;
                bool                    ok = r[i].st == ST_OK;

                json_obj_begin(&w, NULL);
                json_str(&w, "check", c->name);
                json_str(&w, "event", c->fixed_event ? c->fixed_event : c->alias);
                json_str(&w, "kernel", c->kernel);
                json_str(&w, "verdict", r[i].broken ? "FAIL" : !ok ? "SKIP" :
                                        val_check_pass(c, r[i].measured, r[i].expected) ? "PASS" : "FAIL");
                if (ok) {
                        json_u64(&w, "measured", r[i].measured);
                        json_u64(&w, "expected", r[i].expected);
                        json_u64(&w, "tolerance", val_check_tolerance(c, r[i].expected));
                        json_u64(&w, "runs", r[i].n_runs);
                } else {
                        json_str(&w, "reason", r[i].reason);
                }
                json_str(&w, "tolerance_rationale", c->rationale);
                json_obj_end(&w);
        }
        json_arr_end(&w);
        json_obj_end(&w);
        return json_finish(&w);
}

/* ---- the run-time driver ---- */

struct loop_arg {
        uint64_t n;
};

static void run_loop(void *p)
{
        bench_loop(((struct loop_arg *)p)->n);
}

struct pat_arg {
        const uint8_t *pat;
        uint64_t       n;
};

static void run_pattern(void *p)
{
        struct pat_arg *a = p;
        bench_branch_pattern(a->pat, a->n);
}

/* The upper median (element n / 2 of the sorted runs), as the JSON has always reported it;
 * sorted by the one sort of lib/stats.h. */
static uint64_t median(uint64_t *v, unsigned n)
{
        lib_sort_u64(v, n);
        return v[n / 2];
}

/* One measurement of @p c: *measured and *expected. */
static status_t measure_once(const struct val_check *c, const struct pmu_event_desc *ev,
                             const struct pmu_event_desc *fx, const uint8_t *rnd,
                             const uint8_t *zero, struct val_chase *ch, uint64_t *measured,
                             uint64_t *expected)
{
        const struct pmu_slot gp0 = { .fixed = false, .idx = 0 };
        uint64_t              a[2], b[2];
        status_t              st;

        switch (c->truth) {
        case TRUTH_LOOP_INSNS:
        case TRUTH_LOOP_BRANCHES: {
                struct loop_arg s = { LOOP_SHORT }, l = { LOOP_LONG };
                if ((st = bench_pmu_measure(&ev, &gp0, 1, run_loop, &s, a)) != ST_OK ||
                    (st = bench_pmu_measure(&ev, &gp0, 1, run_loop, &l, b)) != ST_OK)
                        return st;
                *measured = b[0] - a[0];
                *expected = (LOOP_LONG - LOOP_SHORT) * (c->truth == TRUTH_LOOP_INSNS
                                                                ? BENCH_LOOP_INSNS_PER_ITER
                                                                : BENCH_LOOP_BRANCHES_PER_ITER);
                return ST_OK;
        }
        case TRUTH_MISPREDICT: {
                struct pat_arg r = { rnd, PATTERN_LEN }, z = { zero, PATTERN_LEN };
                if ((st = bench_pmu_measure(&ev, &gp0, 1, run_pattern, &r, a)) != ST_OK ||
                    (st = bench_pmu_measure(&ev, &gp0, 1, run_pattern, &z, b)) != ST_OK)
                        return st;
                *measured = a[0] > b[0] ? a[0] - b[0] : 0;
                *expected = PATTERN_LEN / 2;
                return ST_OK;
        }
        case TRUTH_FIXED_EQ_GP: {
                const struct pmu_event_desc *evs[2]   = { fx, ev };
                const struct pmu_slot        slots[2] = { { .fixed = true, .idx = (uint8_t)fx->fixed }, gp0 };
                struct loop_arg              l        = { LOOP_LONG };
                /* The loop retires 2 instructions and takes at least 1 cycle per iteration:
                 * the general counter must reach that, else two dead counters would agree
                 * on 0. */
                uint64_t floor = LOOP_LONG * (c->alias && !strcmp(c->alias, "insts")
                                                      ? BENCH_LOOP_INSNS_PER_ITER : 1);
                if ((st = bench_pmu_measure(evs, slots, 2, run_loop, &l, a)) != ST_OK)
                        return st;
                *measured = a[0];
                *expected = a[1] > floor ? a[1] : floor;
                return ST_OK;
        }
        case TRUTH_CHASE_MISSES:
        case TRUTH_PAGE_CHASE: {
                struct val_chase_run s = { ch, ch->iters }, l = { ch, 2 * ch->iters };
                /* With ch->own, CR3 holds the harness's tables (buffer by 4 KiB pages) from
                 * here to val_chase_leave: the switches and flushes sit outside the counted
                 * regions, which bench_pmu_measure opens and closes around the chase only. */
                if ((st = val_chase_enter(ch)) != ST_OK)
                        return st;
                if ((st = bench_pmu_measure(&ev, &gp0, 1, val_chase_step, &s, a)) == ST_OK)
                        st = bench_pmu_measure(&ev, &gp0, 1, val_chase_step, &l, b);
                val_chase_leave(ch);
                if (st != ST_OK)
                        return st;
                *measured = b[0] > a[0] ? b[0] - a[0] : 0;
                *expected = ch->iters * BENCH_CHASE_UNROLL;
                return ST_OK;
        }
        case TRUTH_CYCLES_TSC: {
                struct loop_arg l = { LOOP_CYCLES };
                uint64_t        a0, a1, m0, m1;
                if ((st = pmu_clock_aperf_read(&a0, &m0)) != ST_OK)
                        return st;
                uint64_t t0 = pmu_clock_tsc_read();
                st          = bench_pmu_measure(&ev, &gp0, 1, run_loop, &l, a);
                uint64_t t1 = pmu_clock_tsc_read();
                if (st != ST_OK || (st = pmu_clock_aperf_read(&a1, &m1)) != ST_OK)
                        return st;
                if (m1 <= m0)
                        return ST_BAD_DATA;
                *measured = a[0];
                *expected = (t1 - t0) * (a1 - a0) / (m1 - m0);
                return ST_OK;
        }
        }
        return ST_BAD_ARG;
}

static void run_check(const struct val_check *c, const struct cpu_info *ci, unsigned reps,
                      const uint8_t *rnd, const uint8_t *zero, struct val_result *res)
{
        const struct pmu_event_desc *ev, *fx = NULL;
        uint64_t                     m[MAX_REPS], e[MAX_REPS], saved;
        struct val_chase             ch = { 0 };
        status_t                     st;

        res->check = c;
        res->skip  = REP_SKIP_FEATURE; /* an event, a fixed counter or APERF/MPERF lacking */
        if ((st = pmu_alias_event(c->alias, &ev, &res->reason)) != ST_OK) {
                res->st = st;
                return;
        }
        if (c->fixed_event) {
                fx = pmu_event_find(pmu_get_caps()->events, c->fixed_event);
                if (!fx) {
                        res->st     = ST_UNSUPPORTED;
                        res->reason = "the event table has no such fixed-counter event";
                        return;
                }
                if ((st = pmu_event_usable(fx, &res->reason)) != ST_OK) {
                        res->st = st;
                        return;
                }
        }
        if (c->truth == TRUTH_MISPREDICT && (!rnd || !zero)) {
                res->st     = ST_NO_MEM;
                res->skip   = REP_SKIP_ENV;
                res->reason = "no memory for the branch pattern";
                return;
        }
        if (c->truth == TRUTH_CYCLES_TSC &&
            (st = pmu_clock_aperf_probe(ci, &res->reason)) != ST_OK) {
                res->st = st;
                return;
        }
        if (c->truth == TRUTH_CHASE_MISSES || c->truth == TRUTH_PAGE_CHASE) {
                uint64_t bytes;
                if ((st = val_chase_plan(ci, c, VAL_CHASE_MAX_BYTES, &bytes, &res->reason)) != ST_OK ||
                    (st = val_chase_setup(&ch, ci, bytes, c->truth == TRUTH_PAGE_CHASE,
                                          &res->reason)) != ST_OK) {
                        res->st   = st;
                        res->skip = REP_SKIP_ENV; /* memory, the platform's page tables */
                        return;
                }
        }
        bool masked = cpu_irq_disable(&saved);
        for (unsigned i = 0; i < reps; i++) {
                if ((st = pmu_reset()) != ST_OK ||
                    (st = measure_once(c, ev, fx, rnd, zero, &ch, &m[i], &e[i])) != ST_OK)
                        break;
        }
        pmu_reset();
        cpu_irq_restore(saved);
        bool     own = ch.own != NULL;
        uint64_t n_walked = ch.n_walked;
        unsigned n_cr3_bad = ch.n_cr3_bad;
        val_chase_free(&ch);
        if (own && (st == ST_OK || n_cr3_bad))
                rep_check(n_cr3_bad == 0, "%s: chased under the harness's page tables, buffer "
                          "mapped by 4 KiB pages (%llu pages walked); firmware CR3 restored "
                          "after every window (%u differed)", c->name,
                          (unsigned long long)n_walked, n_cr3_bad);
        if (st != ST_OK) {
                /* The platform refusing the harness's page tables, or the driver offering no
                 * counter for the check, leave it undecided; a counter the PMU offers that
                 * cannot be programmed or read is broken (an MPERF CPUID reports that does
                 * not advance, too). */
                res->st     = st;
                res->skip   = own ? REP_SKIP_ENV : REP_SKIP_FEATURE;
                res->broken = st != ST_UNSUPPORTED;
                res->reason = own && st == ST_UNSUPPORTED
                                      ? "the platform cannot load the harness's page tables"
                              : st == ST_UNSUPPORTED ? "the driver offers no counter it needs"
                              : st == ST_BAD_DATA    ? "MPERF did not advance over the run"
                                                     : "programming the counters failed";
                return;
        }
        res->st       = ST_OK;
        res->n_runs   = reps;
        res->measured = median(m, reps);
        res->expected = median(e, reps);
        if (!masked && c->tol_ppm == 0)
                rep_info("%s: interrupts could not be masked on this platform", c->name);
}

void val_page_chase_selftest(const struct cpu_info *ci)
{
        const struct val_check *page = NULL;
        struct val_chase        ch;
        const char             *reason = NULL;
        uint64_t                bytes, irq;
        status_t                st;

        for (size_t i = 0; i < val_n_checks; i++)
                if (val_checks[i].truth == TRUTH_PAGE_CHASE)
                        page = &val_checks[i];
        if (!ci || !page || val_chase_plan(ci, page, VAL_CHASE_MAX_BYTES, &bytes, &reason) != ST_OK)
                return;
        st = val_chase_setup(&ch, ci, bytes, true, &reason);
        if (st == ST_BAD_DATA)
                rep_check(false, "%s: 4 KiB test mapping: %s", page->name, reason);
        else if (st != ST_OK)
                rep_info("%s: no 4 KiB test mapping: %s", page->name, reason);
        if (st != ST_OK || !ch.own) { /* !own: the firmware's pages are 4 KiB already */
                val_chase_free(&ch);
                return;
        }
        rep_info("%s: 4 KiB test mapping ready, %llu pages walked (%u table pages)", page->name,
                 (unsigned long long)ch.n_walked, bench_ownpt_n_table_pages(ch.own));
        /* One lap under the harness's tables: every pointer is read through a 4 KiB
         * translation, and a closed cycle comes back to where it started. */
        uint64_t n_ptrs = ch.cb.n_lines, lap = n_ptrs / BENCH_CHASE_UNROLL;
        void    *start = ch.cb.start, *end = NULL;
        if (lap == 0 || n_ptrs % BENCH_CHASE_UNROLL) {
                val_chase_free(&ch);
                return;
        }
        cpu_irq_disable(&irq);
        if ((st = val_chase_enter(&ch)) == ST_OK) {
                end = bench_chase(start, lap);
                val_chase_leave(&ch);
        }
        cpu_irq_restore(irq);
        if (st == ST_OK)
                rep_check(end == start && ch.n_cr3_bad == 0,
                          "%s: one lap of %llu loads under the harness's page tables %s, "
                          "firmware CR3 %s", page->name, (unsigned long long)n_ptrs,
                          end == start ? "closed" : "did not close",
                          ch.n_cr3_bad ? "NOT restored" : "restored");
        val_chase_free(&ch);
}

status_t val_run(const struct cpu_info *ci, unsigned reps, struct rep_buf *json)
{
        return val_run_arch(ci, reps, NULL, json);
}

status_t val_run_arch(const struct cpu_info *ci, unsigned reps,
                      const struct val_suite_arch *arch, struct rep_buf *json)
{
        struct val_result res[ARRAY_SIZE(val_checks)];
        uint8_t          *rnd = NULL, *zero = NULL;
        status_t          st;

        if (!ci || !json)
                return ST_BAD_ARG;
        reps = reps == 0 ? 1 : reps > MAX_REPS ? MAX_REPS : reps;
        memset(res, 0, sizeof(res));
        rep_push("pmu-validate");
        st = pmu_init(ci);
        if (st == ST_OK) {
                rnd  = plat_alloc(PATTERN_LEN);
                zero = plat_alloc(PATTERN_LEN);
                if (rnd && zero) {
                        bench_pattern_fill(rnd, PATTERN_LEN, true, 0x9e3779b97f4a7c15ull);
                        bench_pattern_fill(zero, PATTERN_LEN, false, 0);
                }
        }
        if (st != ST_OK) /* the dTLB check's page tables can still be exercised */
                val_page_chase_selftest(ci);
        for (size_t i = 0; i < val_n_checks; i++) {
                if (st != ST_OK) {
                        res[i] = (struct val_result){ .check = &val_checks[i], .st = ST_UNSUPPORTED,
                                                      .reason = pmu_get_caps()->reason,
                                                      .skip = REP_SKIP_PMU };
                        continue;
                }
                run_check(&val_checks[i], ci, reps, rnd, zero, &res[i]);
        }
        plat_free(rnd);
        plat_free(zero);
        if (st == ST_OK && arch && arch->review)
                arch->review(arch->ctx, res, val_n_checks);
        val_report(res, val_n_checks);
        if (st == ST_OK && arch && arch->checks)
                arch->checks(arch->ctx);
        rep_pop();

        if ((st = val_json(res, val_n_checks, pmu_get_caps(), json)) != ST_OK)
                return rep_err(st, "building pmu-validation.json");
        return ST_OK;
}
