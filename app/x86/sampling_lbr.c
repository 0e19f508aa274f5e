/** @file
 * The LBR pipeline of the sampling phase: probe (pmu/x86/lbr_session.c) -> plan (stack
 * buffers, the block kernel's cost by the TSC) -> run (arm, the block kernel with interrupts
 * enabled, disarm) -> decode (pmu/x86/lbr.c: stacks into basic blocks) -> check (block cost,
 * symbols, sample count) -> report (Caliper-style cycles per block, interrupt cost).
 */
#include "app/x86/sampling.h"
#include "boot/cpu.h"

#include "bench/kernel_block.h"
#include "lib/fmt.h"
#include "pmu/clock.h"
#include "pmu/x86/lbr_session.h"

#define LBR_PERIOD          100003u  /* cycles per PMI */
#define BLOCK_ITERS         (1u << 20)

static void lbr_pmi(const struct cpu_pmi_frame *f, void *ctx)
{
        (void)f;
        pmu_lbr_session_on_pmi(ctx);
}

/* ---- report ----------------------------------------------------- */

static const char *sym_name(const struct rep_sym *syms, size_t n, uint64_t a)
{
        for (size_t i = n; i-- > 0;)
                if (syms[i].addr <= a && a - syms[i].addr < syms[i].bytes)
                        return syms[i].name;
        return "?";
}

status_t samp_lbr_block_report(const struct lbr_block_stat *st, size_t n_st,
                               const struct rep_sym *syms, size_t n_syms, struct rep_buf *out)
{
        if ((!st && n_st) || (!syms && n_syms) || !out)
                return ST_BAD_ARG;
        rep_buf_printf(out, "cycles: cycles per basic block from LBR cycle counts (Caliper "
                       "\"Cycles Per Block\")\n"
                       "  function           block start         block end            samples"
                       "  cycles/block    min    max\n");
        for (size_t i = 0; i < n_st; i++) {
                uint64_t m = pmu_lbr_block_mean_mcyc(&st[i]);

                rep_buf_printf(out, "  %-18s 0x%016llx  0x%016llx  %8u  %8llu.%03llu  %5u  %5u\n",
                               sym_name(syms, n_syms, st[i].start),
                               (unsigned long long)st[i].start, (unsigned long long)st[i].end,
                               st[i].n, (unsigned long long)(m / 1000),
                               (unsigned long long)(m % 1000), st[i].min_cycles,
                               st[i].max_cycles);
        }
        return out->oom ? ST_NO_MEM : ST_OK;
}

/* The block's cost by the TSC: core cycles per iteration in milli-cycles, from TSC ticks
 * scaled by the core:TSC ratio the cycles counter shows over the same run (TSC = core clock
 * assumed when the counter cannot be read). @p ratio_q16 gets that ratio. */
static uint64_t block_cost_tsc(const struct pmu_lbr_session *s, uint64_t *ratio_q16)
{
        const struct pmu_slot ctr = { .fixed = false, .idx = 0 };
        uint64_t t0, t1, cyc = 0;
        bool ok = pmu_program(ctr, s->ev, PMU_OS, 0) == ST_OK &&
                  pmu_start(pmu_slot_bit(ctr)) == ST_OK;

        t0 = pmu_clock_tsc_read();
        bench_block_run(BLOCK_ITERS);
        t1 = pmu_clock_tsc_read();
        pmu_stop(pmu_slot_bit(ctr));
        ok = ok && pmu_read(ctr, &cyc) == ST_OK && cyc && t1 > t0;
        *ratio_q16 = ok ? (cyc << 16) / (t1 - t0) : 1u << 16;
        return (t1 - t0) * 1000 * *ratio_q16 / 65536 / BLOCK_ITERS;
}

static void lbr_checks(struct samp_ctx *c, struct pmu_lbr_session *s, uint64_t expected_mcyc,
                       uint64_t run_cycles)
{
        /* The kernel's exact extent, from labels no link redirects (kernel_block.h). */
        const struct rep_sym syms[] = {
                { (uint64_t)(uintptr_t)bench_block_start,
                  (uint64_t)(bench_block_end - bench_block_start), "bench_block_run" },
        };
        struct lbr_block_stat st[64];
        struct lbr_block blk[PMU_LBR_MAX_DEPTH];
        /* Every recorded branch of every stack: the PMIs land while the kernel runs, so a
         * branch outside it is one the check must see, wherever in the stack it is. */
        struct lbr_entry *all = plat_alloc((s->n_stacks ? s->n_stacks : 1) * s->fmt.depth *
                                           sizeof(*all));
        size_t n_st = 0, n_all = 0;
        struct rep_verdict v;
        unsigned nb;

        for (size_t j = 0; j < s->n_stacks; j++) {
                const struct lbr_entry *e = &s->stacks[j * s->fmt.depth];

                if (pmu_lbr_blocks(e, s->stack_n[j], blk, PMU_LBR_MAX_DEPTH, &nb, NULL) == ST_OK)
                        pmu_lbr_block_accumulate(st, &n_st, ARRAY_SIZE(st), blk, nb);
                if (all && s->stack_n[j]) {
                        memcpy(&all[n_all], e, s->stack_n[j] * sizeof(*e));
                        n_all += s->stack_n[j];
                }
        }
        if (rep_check_lbr_block_cost(st, n_st, (uint64_t)(uintptr_t)bench_block_top,
                                     (uint64_t)(uintptr_t)bench_block_jcc, expected_mcyc, 100,
                                     &v) == ST_OK)
                samp_log_check(&c->log, SAMP_MECH_LBR, "block-cost", &v);
        if (!all)
                samp_log_skip(&c->log, REP_SKIP_ENV, SAMP_MECH_LBR, "symbols", "no memory for the "
                              "stacks");
        else if (rep_check_lbr_symbols(all, n_all, syms, ARRAY_SIZE(syms), &v) == ST_OK)
                samp_log_check(&c->log, SAMP_MECH_LBR, "symbols", &v);
        if (rep_check_sample_count(s->n_stacks + s->n_dropped, run_cycles, s->period,
                                   SAMP_COUNT_TOL_PERMILLE * 2, &v) == ST_OK)
                samp_log_check(&c->log, SAMP_MECH_LBR, "sample-count", &v);
        samp_lbr_block_report(st, n_st, syms, ARRAY_SIZE(syms), &c->report);
        plat_free(all);
}

void samp_lbr_run(struct samp_ctx *c)
{
        struct pmu_lbr_session *s = plat_alloc(sizeof(*s));
        uint64_t ratio_q16, expected_mcyc, t0, t1, t2;
        status_t st;

        if (!s || pmu_lbr_session_probe(c->cpu, s) != ST_OK) {
                samp_skip_mech(&c->log, s ? samp_absent_kind() : REP_SKIP_ENV, SAMP_MECH_LBR,
                                &c->plan, s ? s->why : "no memory");
                plat_free(s);
                return;
        }
        rep_info("lbr: %s, depth %u", s->fmt.arch ? "Architectural LBR" : "legacy LBR",
                 s->fmt.depth);
        if ((st = cpu_pmi_enable(lbr_pmi, s, -1)) != ST_OK) {
                char why[96];
                fmt_snprintf(why, sizeof(why), "routing the PMI: %s", status_str(st));
                samp_skip_mech(&c->log, REP_SKIP_ENV, SAMP_MECH_LBR, &c->plan, why);
                plat_free(s);
                return;
        }
        s->stack_cap = 4 * BLOCK_ITERS * BENCH_BLOCK_NOMINAL_CYCLES / LBR_PERIOD + 64;
        s->stacks = plat_alloc(s->stack_cap * s->fmt.depth * sizeof(*s->stacks));
        s->stack_n = plat_alloc(s->stack_cap * sizeof(*s->stack_n));
        expected_mcyc = block_cost_tsc(s, &ratio_q16);
        rep_info("lbr: block cost by TSC %llu.%03llu core cycles (core:TSC %llu/65536; nominal %u)",
                 (unsigned long long)(expected_mcyc / 1000),
                 (unsigned long long)(expected_mcyc % 1000), (unsigned long long)ratio_q16,
                 BENCH_BLOCK_NOMINAL_CYCLES);
        t0 = pmu_clock_tsc_read();
        bench_block_run(BLOCK_ITERS);
        t1 = pmu_clock_tsc_read();
        if (s->stacks && s->stack_n && pmu_lbr_session_arm(s, LBR_PERIOD) == ST_OK) {
                bench_block_run(BLOCK_ITERS);
                t2 = pmu_clock_tsc_read();
                pmu_lbr_session_disarm(s);
                lbr_checks(c, s, expected_mcyc, (t2 - t1) * ratio_q16 / 65536);
                if (s->n_pmi && t2 - t1 > t1 - t0)
                        samp_log_figure(&c->log, SAMP_MECH_LBR, "interrupt cost per sample",
                                        ((t2 - t1) - (t1 - t0)) / s->n_pmi, "TSC ticks");
                if (c->tsc_hz && t2 > t1)
                        samp_log_figure(&c->log, SAMP_MECH_LBR, "samples per second",
                                        s->n_stacks * c->tsc_hz / (t2 - t1), "samples/s");
        } else {
                samp_skip_mech(&c->log, REP_SKIP_ENV, SAMP_MECH_LBR, &c->plan, "arming LBR failed "
                               "or no memory");
        }
        cpu_pmi_disable();
        plat_free(s->stacks);
        plat_free(s->stack_n);
        plat_free(s);
}
