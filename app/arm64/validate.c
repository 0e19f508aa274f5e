/** @file
 * The AArch64 counting suite and overflow-sampling run (see app/arm64/validate.h): the shared
 * suite of app/pmu_validate.c and app/pmu_sample_run.c through pmu/pmu.h, with the PMUv3's
 * own part as their architecture hooks: the level filters, SW_INCR, a programmed but
 * disabled counter, the cycle counter against the generic timer, and overflow sampling on
 * the cycle counter through the PMU interrupt. The event counters are driven through
 * pmu/pmu.h as the shared checks drive them; what pmu.h does not name (the cycle counter
 * PMCCNTR_EL0, PMSWINC_EL0, every counter PMCR_EL0.N claims beyond pmu.h's PMU_MAX_GP) goes
 * through the driver, pmu/arm64/pmu_arm64.h.
 */
#include "lib/base.h"

#include "app/arm64/validate.h"
#include "app/pmu_validate.h"
#include "bench/kernel_branch.h"
#include "bench/kernel_skid.h"
#include "boot/arm64/idreg.h"
#include "boot/cpu.h"
#include "boot/plat.h"
#include "pmu/arm64/pmu_arm64.h"
#include "pmu/events.h"
#include "pmu/pmu.h"
#include "report/rep.h"

#define LOOP_LONG  110000u
#define LOOP_SHORT 10000u
#define N_SW_INCR  1000u
#define N_COUNTERS_INCR 10u
#define CYCLES_LOOP_ITERS 5000000u
/* QEMU's PMCCNTR_EL0 counts virtual nanoseconds at ARM_CPU_FREQ = 1 GHz (target/arm
 * helper.c cycles_get_count); the generic timer ticks at CNTFRQ from the same clock. */
#define QEMU_CPU_HZ 1000000000ull
#define SKID_ITERS  2000u
#define PMI_PERIOD  10007u
#define SKID_BINS   8
#define SKID_SAMPLES_KEPT 1024
/* Overflow sampling runs on the cycle counter: QEMU (7.2 and later, target/arm
 * pmevcntr_op_finish) arms an event counter's overflow timer for -(count + 1) events, which
 * brings the counter to all-ones, not past it, so an event-counter overflow is only noticed
 * at the next PMU register access; PMCCNTR_EL0's timer is armed for -count and fires on the
 * overflowing cycle. Under -icount shift=0 a cycle is an instruction. */
#define SAMPLE_BIT (1u << PMU_ARM64_CYCLE)

/* Events the checks use, by perf name; their codes come from pmu/events/arm-common.json. */
struct ev_ref {
        const char *name;
        const struct pmu_event_desc *desc;
        uint16_t    code;
        bool        ok;      /* in the table and PMCEID says implemented */
        const char *why;
};

struct loop_check {
        const char *name, *event;
        unsigned    per_iter;   /* events per loop iteration */
        unsigned    flags;
        uint64_t    expected_if_excluded; /* when the filter excludes the level it runs at */
        const char *truth;
};

/* The loop runs at the harness's level (EL1, or EL2 where PMU_EL1 takes EL2 in through
 * PMEVTYPER.NSH): counting it gives per_iter x 100000, EL0 only gives 0. */
/* insts-loop and branches-loop are the shared suite's rows (app/pmu_validate.c). */
static const struct loop_check loop_checks[] = {
        { "el-filter-el1-only", "INST_RETIRED", BENCH_LOOP_INSNS_PER_ITER, PMU_OS, 0,
          "PMEVTYPER.U set (EL0 excluded): the loop at the harness's level still counts" },
        { "el-filter-el0-only", "INST_RETIRED", 0, PMU_USR, 0,
          "EL0 only (PMEVTYPER.P set, NSH clear): the loop at the harness's level must count "
          "nothing" },
};

static const struct pmu_event_table *table;

/* What the PMUv3 part of the suite found out and needs across its hooks. */
struct arm64_suite {
        const struct arm64_cpu_info *ci;
        bool                         qemu;
        bool                         counts_insts; /* INST_RETIRED counted a loop */
        bool                         icount;       /* ... under QEMU: -icount */
};

static struct ev_ref find_event(const char *name)
{
        struct ev_ref r = { .name = name };
        const struct pmu_event_desc *d = table ? pmu_event_find(table, name) : NULL;
        if (!d) {
                r.why = "not in the arm-common event table";
                return r;
        }
        r.desc = d;
        r.code = d->code;
        r.ok   = pmu_event_usable(d, &r.why) == ST_OK;
        return r;
}

static bool report(const char *name, uint64_t measured, uint64_t expected, uint64_t tol,
                   const char *truth)
{
        uint64_t d = measured > expected ? measured - expected : expected - measured;
        return rep_check(d <= tol, "%s measured=%llu expected=%llu tolerance=%llu (%s)", name,
                         (unsigned long long)measured, (unsigned long long)expected,
                         (unsigned long long)tol, truth);
}

/* Event counter n through pmu/pmu.h (general counter n is event counter n). */
static struct pmu_slot gp(unsigned n)
{
        return (struct pmu_slot){ .fixed = false, .idx = (uint8_t)n };
}

/* Count @p e on counter 0 at the levels in @p flags (PMU_USR = EL0, PMU_OS = the harness's
 * level) around bench_loop(n), in a window. */
static uint64_t count_loop(const struct ev_ref *e, unsigned flags, uint64_t n)
{
        uint64_t saved, v = 0;

        pmu_reset();
        pmu_program(gp(0), e->desc, flags, 0);
        cpu_irq_disable(&saved);
        pmu_start(BIT_ULL(0));
        bench_loop(n);
        pmu_stop(BIT_ULL(0));
        cpu_irq_restore(saved);
        pmu_read(gp(0), &v);
        return v;
}

static void aliases(void)
{
        rep_push("aliases");
        for (size_t i = 0; i < pmu_n_aliases; i++) {
                const struct pmu_event_desc *d;
                const char *why = NULL;
                if (pmu_alias_resolve(table, pmu_alias_names[i], &d, &why) != ST_OK)
                        rep_skip(REP_SKIP_FEATURE, "%s: %s", pmu_alias_names[i], why);
                else if (!pmu_arm64_event_implemented(d->code))
                        rep_skip(REP_SKIP_FEATURE, "%s: %s (0x%04x) not implemented on this "
                                 "CPU (PMCEID0/1)", pmu_alias_names[i], d->name, d->code);
                else
                        rep_info("%s -> %s (0x%04x)", pmu_alias_names[i], d->name, d->code);
        }
        rep_pop();
}

/* A check that needs INST_RETIRED when it reads 0 over a loop: QEMU (detected by the caller)
 * counts retired instructions only under -icount, so there nothing can be decided; on any
 * other machine an implemented INST_RETIRED that reads 0 is a broken counter. */
static void insts_dead(const char *check, bool qemu)
{
        if (qemu)
                rep_skip(REP_SKIP_ENV, "%s: INST_RETIRED reads 0 over a loop (QEMU counts "
                         "retired instructions only when -icount is given)", check);
        else
                rep_check(false, "%s: INST_RETIRED, implemented by PMCEID0_EL0, read 0 over "
                          "%u iterations of a 2-instruction loop", check, LOOP_SHORT);
}

static void loops(bool counts_insts, bool qemu)
{
        struct ev_ref insts = find_event("INST_RETIRED");

        for (size_t i = 0; i < ARRAY_SIZE(loop_checks); i++) {
                const struct loop_check *c = &loop_checks[i];
                struct ev_ref            e = find_event(c->event);
                if (!e.ok) {
                        rep_skip(REP_SKIP_FEATURE, "%s: %s: %s", c->name, c->event, e.why);
                        continue;
                }
                if (e.code == insts.code && !counts_insts) {
                        insts_dead(c->name, qemu);
                        continue;
                }
                uint64_t a = count_loop(&e, c->flags, LOOP_LONG);
                uint64_t b = count_loop(&e, c->flags, LOOP_SHORT);
                if (c->per_iter == 0)
                        report(c->name, a, c->expected_if_excluded, 0, c->truth);
                else
                        report(c->name, a - b, (uint64_t)c->per_iter * (LOOP_LONG - LOOP_SHORT),
                               0, c->truth);
        }
}

/* Every event counter PMCR_EL0.N claims is programmed with SW_INCR and must count each
 * write to PMSWINC_EL0 that names it: a counter the PMU claims but that does not count is a
 * FAIL, not a gap. */
static void counters_count(const struct ev_ref *sw)
{
        unsigned n = pmu_arm64_get_caps()->n_counters, bad = 0, first_bad = 0;
        uint64_t got = 0;
        uint32_t all = n >= 31 ? 0x7fffffffu : (1u << n) - 1;

        if (!sw->ok) {
                rep_skip(REP_SKIP_FEATURE, "counters-count: SW_INCR: %s", sw->why);
                return;
        }
        pmu_arm64_reset();
        for (unsigned i = 0; i < n; i++)
                if (pmu_arm64_program(i, sw->code, PMU_EL0 | PMU_EL1, 0) != ST_OK && !bad++)
                        first_bad = i;
        pmu_arm64_start(all);
        for (unsigned k = 0; k < N_COUNTERS_INCR; k++)
                pmu_arm64_sw_incr(all);
        pmu_arm64_stop(all);
        for (unsigned i = 0; i < n; i++) {
                uint64_t v = pmu_arm64_read(i);
                if (v != N_COUNTERS_INCR && !bad++) {
                        first_bad = i;
                        got = v;
                }
        }
        rep_check(n > 0 && bad == 0, "counters-count: %u of the %u event counters PMCR_EL0.N "
                  "claims counted %u SW_INCR writes (counter %u read %llu)", n - bad, n,
                  N_COUNTERS_INCR, first_bad, (unsigned long long)got);
}

static void sw_incr_and_disabled(bool counts_insts, bool qemu)
{
        struct ev_ref sw = find_event("SW_INCR"), insts = find_event("INST_RETIRED");
        uint64_t      saved;

        if (!sw.ok) {
                rep_skip(REP_SKIP_FEATURE, "sw-incr: SW_INCR: %s", sw.why);
        } else {
                uint64_t v = 0;
                pmu_reset();
                pmu_program(gp(1), sw.desc, PMU_USR | PMU_OS, 0);
                pmu_start(BIT_ULL(1));
                for (unsigned i = 0; i < N_SW_INCR; i++)
                        pmu_arm64_sw_incr(1u << 1); /* PMSWINC_EL0: the PMUv3's own */
                pmu_stop(BIT_ULL(1));
                pmu_read(gp(1), &v);
                report("sw-incr", v, N_SW_INCR, 0, "1000 writes to PMSWINC_EL0 for counter 1");
        }
        counters_count(&sw);
        if (!insts.ok) {
                rep_skip(REP_SKIP_FEATURE, "counter-disabled: INST_RETIRED: %s", insts.why);
                return;
        }
        if (pmu_arm64_get_caps()->n_counters < 3) {
                rep_skip(REP_SKIP_FEATURE, "counter-disabled: needs 3 event counters, "
                         "PMCR_EL0.N is %u", pmu_arm64_get_caps()->n_counters);
                return;
        }
        if (!counts_insts) {
                insts_dead("counter-disabled", qemu);
                return;
        }
        uint64_t on = 0, off = 0;
        pmu_reset();
        pmu_program(gp(0), insts.desc, PMU_USR | PMU_OS, 0);
        pmu_program(gp(2), insts.desc, PMU_USR | PMU_OS, 0);
        cpu_irq_disable(&saved);
        pmu_start(BIT_ULL(0)); /* counter 2 programmed, never enabled */
        bench_loop(LOOP_LONG);
        pmu_stop(BIT_ULL(0));
        cpu_irq_restore(saved);
        pmu_read(gp(0), &on);
        pmu_read(gp(2), &off);
        report("counter-disabled", off, 0, 0,
               "counter 2 programmed like counter 0 but left out of PMCNTENSET");
        rep_check(on >= 2ull * LOOP_LONG, "counter-disabled: its enabled twin counted %llu "
                  "(>= %u)", (unsigned long long)on, 2 * LOOP_LONG);
}

/* QEMU's cycle counter and generic timer both follow its virtual clock (target/arm
 * helper.c cycles_get_count, gt_get_countervalue: qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL)).
 * Under -icount that clock is the instruction count, one per ns, and every figure below is
 * exact. Without it the clock is the host's: whatever the host spends between two reads
 * counts, and the PMU's overflow interrupt comes from a host timer. The harness knows which
 * by measurement: QEMU implements INST_RETIRED (PMCEID0_EL0 bit 8) and counts it only under
 * -icount, so "QEMU and INST_RETIRED counted a loop" is -icount (val_arm64_suite). */
static void cycles_vs_timer(const struct arm64_cpu_info *ci, bool qemu, bool icount)
{
        uint64_t saved;

        if (!ci->cntfrq_hz) {
                rep_skip(REP_SKIP_ENV, "cycles-vs-timer: CNTFRQ_EL0 is 0");
                return;
        }
        pmu_arm64_reset();
        pmu_arm64_program(PMU_ARM64_CYCLE, 0, PMU_EL0 | PMU_EL1, 0);
        cpu_irq_disable(&saved);
        uint64_t t0 = arm64_timer_ticks();
        pmu_arm64_start(1u << PMU_ARM64_CYCLE);
        bench_loop(CYCLES_LOOP_ITERS);
        pmu_arm64_stop(1u << PMU_ARM64_CYCLE);
        uint64_t t1 = arm64_timer_ticks();
        cpu_irq_restore(saved);
        uint64_t cycles = pmu_arm64_read(PMU_ARM64_CYCLE), ticks = t1 - t0;
        uint64_t hz = ticks ? cycles * ci->cntfrq_hz / ticks : 0;
        if (!qemu) {
                rep_info("cycles-vs-timer: %llu cycles in %llu timer ticks: core clock %llu MHz "
                         "(no independent truth on hardware)", (unsigned long long)cycles,
                         (unsigned long long)ticks, (unsigned long long)(hz / 1000000));
                return;
        }
        /* Two timer reads bracket the counted span: one tick of quantization at each end,
         * plus the start/stop instructions. */
        uint64_t per_tick = QEMU_CPU_HZ / ci->cntfrq_hz;
        if (icount) {
                report("cycles-vs-timer", cycles, ticks * per_tick, 2 * per_tick + 64,
                       "QEMU -icount: PMCCNTR_EL0 at 1 GHz of virtual time, the generic timer "
                       "at CNTFRQ");
                return;
        }
        /* Without -icount the same clock runs on host time: the counted span lies inside
         * the timed one, so the cycles can be fewer than the ticks say (by whatever the host
         * spent outside the span) but never more than them and one tick at each end. */
        uint64_t bound = (ticks + 2) * per_tick;
        rep_check(cycles <= bound, "cycles-vs-timer: %llu cycles counted inside a span of %llu "
                  "timer ticks, at most %llu (QEMU without -icount: both clocks follow host "
                  "time; the span outside the counter is the host's, so only this bound holds)",
                  (unsigned long long)cycles, (unsigned long long)ticks,
                  (unsigned long long)bound);
        rep_info("cycles-vs-timer: %llu of %llu ns of the timed span counted (%llu MHz)",
                 (unsigned long long)cycles, (unsigned long long)(ticks * per_tick),
                 (unsigned long long)(hz / 1000000));
}

/* ---- overflow sampling ------------------------------------------------------------------ */

struct sampler {
        uint64_t  period;
        uint32_t  n_pmi, n_in_kernel, n_spurious;
        uint32_t  hist[SKID_BINS]; /* events from the overflow to the handler's first read,
                                    * relative to the smallest seen; last bin = or more */
        uint64_t  v_min, v_max;
        uint64_t  v[SKID_SAMPLES_KEPT];
        uintptr_t lo, hi;          /* the kernel's code */
};

/* The counter holds what it counted since it overflowed: the skid plus the (constant)
 * instructions of the vector and dispatch before this read. Subtract the period from what it
 * holds, so that those events stay counted and the next PMI comes `period` events after
 * this one. */
static void on_pmi(const struct cpu_pmi_frame *f, void *ctx)
{
        struct sampler *s = ctx;
        uint64_t        v = pmu_arm64_read(PMU_ARM64_CYCLE);

        if (!(pmu_arm64_ovf_status() & SAMPLE_BIT)) {
                s->n_spurious++;
                return;
        }
        /* Read again right before the write: only the cycles between those two are lost. */
        pmu_arm64_write(PMU_ARM64_CYCLE, pmu_arm64_read(PMU_ARM64_CYCLE) - s->period);
        pmu_arm64_ovf_clear(SAMPLE_BIT);
        if (s->n_pmi < SKID_SAMPLES_KEPT)
                s->v[s->n_pmi] = v;
        s->n_pmi++;
        if (v < s->v_min)
                s->v_min = v;
        if (v > s->v_max)
                s->v_max = v;
        if (f->rip >= s->lo && f->rip < s->hi)
                s->n_in_kernel++;
}

static void sampling(bool qemu, bool icount)
{
        struct ev_ref  cyc = find_event("CPU_CYCLES");
        struct sampler s   = { .period = PMI_PERIOD };
        uint64_t       saved;
        status_t       st;

        if (!cyc.ok) {
                rep_skip(REP_SKIP_FEATURE, "overflow sampling: CPU_CYCLES as the truth counter: "
                         "%s", cyc.why);
                return;
        }
        if ((st = cpu_pmi_enable(on_pmi, &s, -1)) != ST_OK) {
                /* ST_NOT_FOUND on AArch64: the MADT says there is no PMU interrupt
                 * (boot/arm64/pmi.c); no INTID is guessed. */
                if (st == ST_NOT_FOUND)
                        rep_skip(REP_SKIP_FEATURE, "overflow sampling: the MADT's GICC entry for "
                                 "this processor gives no PMU interrupt (Performance Interrupt "
                                 "GSIV 0): nothing to sample with");
                else
                        rep_skip(REP_SKIP_ENV, "overflow sampling: no PMI route: %s",
                                 status_str(st));
                return;
        }
        /* the route itself: the shared run's pmi-route check, just before */
        s.n_pmi = s.n_in_kernel = s.n_spurious = 0;
        s.v_min = ~0ull;
        s.v_max = 0;
        s.lo    = (uintptr_t)bench_skid_body;
        s.hi    = s.lo + 4ull * BENCH_SKID_INSNS_PER_ITER;

        pmu_arm64_reset();
        pmu_arm64_program(PMU_ARM64_CYCLE, 0, PMU_EL0 | PMU_EL1 | PMU_ARM64_INT,
                          -(uint64_t)s.period);
        pmu_arm64_program(0, cyc.code, PMU_EL0 | PMU_EL1, 0);
        cpu_irq_disable(&saved);
        pmu_arm64_start(SAMPLE_BIT | 1u);
        bench_skid_loop(SKID_ITERS);
        pmu_arm64_stop(SAMPLE_BIT | 1u);
        cpu_irq_restore(saved);
        cpu_pmi_disable();
        uint64_t total = pmu_arm64_read(0);
        /* What the sampled counter still holds past its last reload: it sits at
         * -(period - residual). */
        uint64_t residual = pmu_arm64_read(PMU_ARM64_CYCLE) + s.period;
        uint64_t seen     = (uint64_t)s.n_pmi * s.period + residual;
        rep_info("sampled counter: %u x %llu + %llu = %llu cycles, truth %llu: %lld lost, "
                 "%lld per PMI in the reload", s.n_pmi, (unsigned long long)s.period,
                 (unsigned long long)residual, (unsigned long long)seen,
                 (unsigned long long)total, (long long)(total - seen),
                 s.n_pmi ? (long long)(total - seen) / s.n_pmi : 0);

        uint64_t want = total / s.period;
        if (qemu && !icount) {
                /* QEMU without -icount: the overflow interrupt is raised by a host timer, so
                 * how many arrive and at which PC is the host's doing. What the mechanism
                 * still bounds: a PMI needs an overflow, and each reload keeps what was
                 * counted, so there are never more PMIs than periods in the total, + 1. */
                rep_check(s.n_pmi <= want + 1, "pmi-count: %u PMIs, at most %llu (CPU_CYCLES "
                          "%llu / period 10007, + 1: no PMI without an overflow)", s.n_pmi,
                          (unsigned long long)(want + 1), (unsigned long long)total);
                rep_skip(REP_SKIP_ENV, "pmi-count, caliper-scale, skid-in-kernel: QEMU without "
                         "-icount raises the overflow interrupt from a host timer, so the "
                         "number of PMIs and the PCs they sample are the host's, not the "
                         "counter's (%u PMIs, %u in the kernel)", s.n_pmi, s.n_in_kernel);
        } else {
                /* Tolerance: one PMI of rounding, plus 1 % for the cycles each reload loses
                 * between the handler's read and its write of the counter (17 per PMI under
                 * QEMU; a profiler's scale misses them the same way). */
                report("pmi-count", s.n_pmi, want, 1 + want / 100,
                       "PMIs on PMCCNTR_EL0 = CPU_CYCLES of the run (counter 0) / period 10007, "
                       "+-1 and 1 % for the reload");
                rep_check(s.n_pmi > 0 && s.n_in_kernel == s.n_pmi,
                          "skid-in-kernel: %u of %u sampled PCs inside bench_skid_body",
                          s.n_in_kernel, s.n_pmi);
                report("caliper-scale", (uint64_t)s.n_pmi * s.period, total,
                       s.period + total / 100, "samples x period against the counted total, "
                       "one period and 1 % for the reload");
        }
        size_t kept = s.n_pmi < SKID_SAMPLES_KEPT ? s.n_pmi : SKID_SAMPLES_KEPT;
        for (size_t i = 0; i < kept; i++) {
                uint64_t d = s.v[i] - s.v_min;
                s.hist[d < SKID_BINS ? d : SKID_BINS - 1]++;
        }
        rep_info("skid histogram: cycles from the overflow to the handler's first read, "
                 "%llu + [0 1 2 3 4 5 6 7+]: %u %u %u %u %u %u %u %u; spurious %u",
                 (unsigned long long)(s.n_pmi ? s.v_min : 0), s.hist[0], s.hist[1], s.hist[2],
                 s.hist[3], s.hist[4], s.hist[5], s.hist[6], s.hist[7], s.n_spurious);
        if (icount && s.n_pmi)
                report("skid-deterministic", s.v_max - s.v_min, 0, 0,
                       "under -icount QEMU raises the PMI at the overflowing instruction: "
                       "every sample the same distance");
}

/* Before the shared checks are reported: does INST_RETIRED count at all? QEMU counts it only
 * under -icount, where a 0 decides nothing; anywhere else it is a broken counter, which the
 * shared insts-loop then FAILs. */
static void review(void *ctx, struct val_result *r, size_t n)
{
        struct arm64_suite *a     = ctx;
        struct ev_ref       insts = find_event("INST_RETIRED");

        a->counts_insts = insts.ok && count_loop(&insts, PMU_USR | PMU_OS, LOOP_SHORT) > 0;
        a->icount       = a->qemu && a->counts_insts;
        for (size_t i = 0; i < n; i++)
                if (r[i].check->truth == TRUTH_LOOP_INSNS && r[i].st == ST_OK && insts.ok &&
                    !a->counts_insts && a->qemu)
                        r[i] = (struct val_result){
                                .check = r[i].check, .st = ST_UNSUPPORTED, .skip = REP_SKIP_ENV,
                                .reason = "INST_RETIRED reads 0 over a loop (QEMU counts retired "
                                          "instructions only when -icount is given)" };
}

static void checks(void *ctx)
{
        struct arm64_suite *a = ctx;

        loops(a->counts_insts, a->qemu);
        if (a->qemu)
                rep_info("QEMU %s -icount: INST_RETIRED %s", a->icount ? "under" : "without",
                         a->icount ? "counts retired instructions, so every count is exact"
                                   : "does not count (QEMU counts it only when -icount is "
                                     "given), so the clock checks hold only as bounds");
        sw_incr_and_disabled(a->counts_insts, a->qemu);
        cycles_vs_timer(a->ci, a->qemu, a->icount);
}

static void cycle_sampling(void *ctx)
{
        struct arm64_suite *a = ctx;

        sampling(a->qemu, a->icount);
        pmu_arm64_reset();
}

status_t val_arm64_suite(const struct arm64_cpu_info *ci, const struct cpu_info *cpu, bool qemu,
                        unsigned reps, const struct pmu_sym *syms, size_t n_syms,
                        uint64_t image_base, struct rep_buf *json)
{
        const struct pmu_arm64_caps *c    = pmu_arm64_get_caps();
        struct arm64_suite           a    = { .ci = ci, .qemu = qemu };
        struct val_suite_arch        arch = { .review = review, .checks = checks,
                                              .sampling = cycle_sampling, .ctx = &a };
        struct val_sample_figures    fig;
        status_t                     st;

        uint64_t t0 = arm64_timer_ticks();

        table = pmu_events_table("arm-common");
        rep_info("caps: %s, %u event counters of %u bits, cycle counter 64-bit, EL%u",
                 ci->pmu_name, c->n_counters, c->counter_bits, c->el);
        aliases();
        /* pmu_init in the suite takes the PMU again, from the state the firmware left */
        pmu_arm64_restore();
        st = val_run_arch(cpu, reps, &arch, json);
        val_sample_run_arch(syms, n_syms, image_base, &arch, &fig);
        pmu_restore();
        uint64_t t1 = arm64_timer_ticks();
        if (ci->cntfrq_hz)
                rep_info("suite took %llu ms on the generic timer%s",
                         (unsigned long long)((t1 - t0) * 1000 / ci->cntfrq_hz),
                         a.icount ? " (QEMU -icount: virtual time, one instruction per ns)"
                         : qemu   ? " (QEMU without -icount: virtual time follows host time)"
                                  : "");
        return st;
}
