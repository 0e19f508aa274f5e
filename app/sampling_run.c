/** @file
 * The sampling phase on real hardware: IBS op sampling over the chase at each working set
 * and a page-stride chase, IBS fetch sampling and LBR over the fixed-cost block kernel, PEBS
 * load latency over the chase. Each run arms a session (app/sampling_{ibs,pebs,lbr}.c), runs
 * a kernel with interrupts enabled so the PMI arrives, disarms, decodes and checks. A
 * mechanism the probe rules out SKIPs every check with its reason before anything is
 * allocated.
 */
#include "app/sampling_run.h"

#include "bench/kernel_block.h"
#include "bench/kernel_chase.h"
#include "boot/x86/msr.h"
#include "lib/fmt.h"

/* ---- constants -------------------------------------------------------------------------- */

#define IBS_OP_PERIOD       4096u    /* dispatched ops (or cycles) per sample */
#define IBS_FETCH_PERIOD    1024u    /* fetches per sample, randomised in [3:0] */
#define PEBS_PERIOD         2003u    /* loads above the threshold per record (prime) */
/* MSR_PEBS_LD_LAT_THRESHOLD: loads slower than this count; 3 is the minimum the register
 * takes, the shortest detectable latency being 4 cycles, so every load is eligible.
 * [SDM-3B] "Load Latency Performance Monitoring Facility" */
#define PEBS_LDLAT_CYCLES   3u
#define LBR_PERIOD          100003u  /* cycles per PMI */
#define BLOCK_ITERS         (1u << 20)
/* The chase's loop per iteration: 32 loads, dec, jnz; dec+jnz may fuse into one op. Ops per
 * iteration are taken as 33.5 (x2 = 67) with a 5 % tolerance, which covers both. */
#define CHASE_OPS_X2        67u
#define COUNT_TOL_PERMILLE  50u

/* ---- private helpers -------------------------------------------------------------------- */

static void ibs_pmi(const struct plat_pmi_frame *f, void *ctx)
{
        (void)f;
        smp_ibs_on_pmi(ctx);
}

static void pebs_pmi(const struct plat_pmi_frame *f, void *ctx)
{
        (void)f;
        smp_pebs_on_pmi(ctx);
}

static void lbr_pmi(const struct plat_pmi_frame *f, void *ctx)
{
        (void)f;
        smp_lbr_on_pmi(ctx);
}

static void skip_ws(struct smp_log *lg, const char *mech, const struct smp_ws *w, const char *why)
{
        static const char *const checks[] = { "addresses", "physical", "latency", "data-source" };
        char name[48];

        for (size_t i = 0; i < ARRAY_SIZE(checks); i++) {
                fmt_snprintf(name, sizeof(name), "%s %s", checks[i], w->name);
                smp_log_skip(lg, mech, name, why);
        }
}

static void permille_verdict(struct rep_verdict *v, uint64_t good, uint64_t all, uint32_t min)
{
        uint32_t pm = all ? (uint32_t)(good * 1000 / all) : 0;

        *v = (struct rep_verdict){ .v = all == 0 ? REP_V_SKIP : pm >= min ? REP_V_PASS : REP_V_FAIL,
                                   .measured = pm, .expected = 1000, .lo = min, .hi = 1000,
                                   .unit = "permille" };
}

/* Page-stride chase: every load on its own 4 KiB page over SMP_TLB_CHASE_BYTES. With 4 KiB
 * pages that is 16384 pages, more than any second-level DTLB holds (Zen 4: 3072, Golden
 * Cove: 2048), so every load should miss it; if the platform backed the buffer with 2 MiB
 * pages, 32 pages fit every STLB and no load should miss. */
static void tlb_expect(const struct smp_chase *ch, bool *miss, enum psample_pgsz *pg)
{
        *pg = psample_pgsz_from_plat(ch->got);
        *miss = ch->got == PLAT_PAGE_4K;
}

/* @p p: the plan in core cycles for this run (smp_plan_core_cycles). */
static void dcache_report(struct smp_ctx *c, const struct smp_plan *p, const char *mech,
                          const struct smp_ws *w, const struct psample *s, size_t n,
                          uint64_t period)
{
        char title[160];
        struct rep_site *work = plat_alloc((n ? n : 1) * sizeof(*work));
        struct rep_dcache_in in = { .title = title, .s = s, .n = n, .buckets = p->buckets,
                                    .n_buckets = p->n_buckets, .period = period,
                                    .top_n = 10, .work = work, .n_work = n };

        if (!work)
                return;
        fmt_snprintf(title, sizeof(title), "%s, chase over %llu KiB (%s); buckets: %s", mech,
                     (unsigned long long)(w->bytes / KiB), w->name, p->lat_note);
        rep_samples_dcache_report(&in, &c->report);
        rep_buf_printf(&c->report, "\n");
        plat_free(work);
}

/* ---- AMD IBS ---------------------------------------------------------------------------- */

static size_t ibs_decode(const struct smp_ibs *s, struct psample *ps)
{
        struct pmu_ibs_op op;
        size_t k = 0;

        for (size_t i = 0; i < s->n_op; i++)
                if (pmu_ibs_op_decode(&s->info, &s->ops[i], &op) == ST_OK &&
                    pmu_ibs_op_to_psample(&s->info, &op, &ps[k]) == ST_OK)
                        k++;
        return k;
}

static void ibs_counts(struct smp_ctx *c, struct smp_ibs *s, uint64_t iters, bool ops)
{
        struct rep_verdict v;
        uint64_t want = iters * CHASE_OPS_X2 / 2;

        if (!ops) {
                smp_log_skip(&c->log, SMP_MECH_IBS_OP, "sample-count", "op sampling counts cycles "
                             "(CPUID 0x8000001B OpCnt clear): no known event total");
                smp_log_skip(&c->log, SMP_MECH_IBS_OP, "op-count", "no dispatched-op counting");
                return;
        }
        if (rep_check_sample_count(s->n_op + s->n_dropped, want, IBS_OP_PERIOD,
                                   COUNT_TOL_PERMILLE, &v) == ST_OK)
                smp_log_check(&c->log, SMP_MECH_IBS_OP, "sample-count", &v);
        /* Ops IBS counted: a full period per sample plus what was counted after the last. */
        if (rep_check_sample_count((s->n_op + s->n_dropped) * IBS_OP_PERIOD + s->op_tail, want, 1,
                                   COUNT_TOL_PERMILLE, &v) == ST_OK)
                smp_log_check(&c->log, SMP_MECH_IBS_OP, "op-count", &v);
}

static void ibs_op_runs(struct smp_ctx *c, struct smp_ibs *s, struct psample *ps)
{
        struct pmu_ibs_op_opts opts = { .count = (s->info.caps & IBS_CAPS_OPCNT)
                                                         ? PMU_IBS_COUNT_DISPATCHED_OPS
                                                         : PMU_IBS_COUNT_CYCLES };
        /* Loop iterations (32 loads each) for about SMP_SAMPLES_TARGET samples. */
        uint64_t ctl, iters = (uint64_t)SMP_SAMPLES_TARGET * IBS_OP_PERIOD * 2 / CHASE_OPS_X2;
        struct smp_chase ch;
        struct smp_ratio rt;
        struct smp_plan pc;
        struct rep_verdict v;
        uint32_t q16;
        size_t n;
        status_t st;

        if ((st = pmu_ibs_op_ctl_encode(&s->info, IBS_OP_PERIOD, &opts, &ctl)) != ST_OK) {
                smp_skip_mech(&c->log, SMP_MECH_IBS_OP, &c->plan, "op sampling cannot be encoded");
                return;
        }
        for (size_t i = 0; i < c->plan.n; i++) {
                const struct smp_ws *w = &c->plan.ws[i];

                if ((st = smp_chase_setup(&ch, w->bytes, 64)) != ST_OK) {
                        skip_ws(&c->log, SMP_MECH_IBS_OP, w, status_str(st));
                        continue;
                }
                bench_chase(ch.start, ch.n_lines / BENCH_CHASE_UNROLL + 1);
                smp_ratio_begin(&rt, c->cpu);
                if ((st = smp_ibs_arm(s, ctl, 0)) == ST_OK) {
                        bench_chase(ch.start, iters);
                        smp_ibs_disarm(s);
                }
                q16 = smp_ratio_end(&rt);
                smp_plan_core_cycles(&c->plan, q16, rt.how, &pc);
                n = st == ST_OK ? ibs_decode(s, ps) : 0;
                if (i == 0)
                        ibs_counts(c, s, iters, opts.count == PMU_IBS_COUNT_DISPATCHED_OPS);
                n = smp_filter_chase(ps, n);
                smp_check_ws(c, SMP_MECH_IBS_OP, &pc.ws[i], &ch, ps, n, pc.lat_note);
                dcache_report(c, &pc, SMP_MECH_IBS_OP, &pc.ws[i], ps, n, IBS_OP_PERIOD);
                smp_chase_free(&ch);
        }
        if ((st = smp_chase_setup(&ch, SMP_TLB_CHASE_BYTES, 4096)) != ST_OK) {
                smp_log_skip(&c->log, SMP_MECH_IBS_OP, "tlb page-stride", status_str(st));
                return;
        }
        bool miss;
        enum psample_pgsz pg;
        tlb_expect(&ch, &miss, &pg);
        if (smp_ibs_arm(s, ctl, 0) == ST_OK) {
                bench_chase(ch.start, 2 * ch.n_lines / BENCH_CHASE_UNROLL);
                smp_ibs_disarm(s);
        }
        n = smp_filter_chase(ps, ibs_decode(s, ps));
        if (rep_check_tlb(ps, n, miss, pg, 700, &v) == ST_OK)
                smp_log_check(&c->log, SMP_MECH_IBS_OP, "tlb page-stride", &v);
        smp_chase_free(&ch);
}

static void ibs_fetch_run(struct smp_ctx *c, struct smp_ibs *s)
{
        const uint64_t lo = (uint64_t)(uintptr_t)bench_block_run;
        const uint64_t hi = (uint64_t)(uintptr_t)bench_block_end;
        /* 32-byte fetch windows one iteration spans (top .. end of the jnz). */
        const uint64_t top = (uint64_t)(uintptr_t)bench_block_top;
        const uint64_t windows = ((uint64_t)(uintptr_t)bench_block_jcc + 1) / 32 - top / 32 + 1;
        uint64_t ctl, n_in = 0, n_ok = 0, n_icmiss = 0, n_l2tlb = 0, sum_lat = 0;
        struct pmu_ibs_fetch f;
        struct rep_verdict v;

        if (!(s->info.caps & IBS_CAPS_FETCHSAM) ||
            pmu_ibs_fetch_ctl_encode(&s->info, IBS_FETCH_PERIOD, true, false, &ctl) != ST_OK ||
            !(s->fetches = plat_alloc(SMP_SAMPLES_MAX * sizeof(*s->fetches)))) {
                smp_skip_mech(&c->log, SMP_MECH_IBS_FETCH, &c->plan,
                              "fetch sampling not offered (CPUID 0x8000001B FetchSam) or no memory");
                return;
        }
        s->fetch_cap = SMP_SAMPLES_MAX;
        if (smp_ibs_arm(s, 0, ctl) == ST_OK) {
                bench_block_run(BLOCK_ITERS);
                smp_ibs_disarm(s);
        }
        for (size_t i = 0; i < s->n_fetch; i++) {
                if (pmu_ibs_fetch_decode(&s->info, &s->fetches[i], &f) != ST_OK || !f.valid ||
                    f.drop)
                        continue;
                n_ok++;
                n_in += f.linad >= lo && f.linad < hi;
                n_icmiss += f.ic_miss;
                n_l2tlb += f.l2tlb_miss;
                sum_lat += f.lat_cycles;
        }
        permille_verdict(&v, n_in, n_ok, 950);
        fmt_snprintf(v.why, sizeof(v.why), "%llu of %llu fetch addresses inside bench_block_run "
                     "[0x%llx, 0x%llx)", (unsigned long long)n_in, (unsigned long long)n_ok,
                     (unsigned long long)lo, (unsigned long long)hi);
        smp_log_check(&c->log, SMP_MECH_IBS_FETCH, "fetch-addresses", &v);
        /* Assumption, stated: one fetch per 32-byte window of the loop per iteration; the
         * tolerance is wide because an op-cache hit may skip instruction-cache fetches. */
        if (rep_check_sample_count(s->n_fetch + s->n_dropped, BLOCK_ITERS * windows,
                                   IBS_FETCH_PERIOD, 500, &v) == ST_OK)
                smp_log_check(&c->log, SMP_MECH_IBS_FETCH, "fetch-count", &v);
        rep_buf_printf(&c->report, "ibs-fetch: block kernel, %u iterations, period %u\n"
                       "  fetch samples %llu  in kernel %llu  IC misses %llu  L2 ITLB misses %llu"
                       "  mean fetch latency %llu cycles\n\n", BLOCK_ITERS, IBS_FETCH_PERIOD,
                       (unsigned long long)n_ok, (unsigned long long)n_in,
                       (unsigned long long)n_icmiss, (unsigned long long)n_l2tlb,
                       (unsigned long long)(n_ok ? sum_lat / n_ok : 0));
}

void smp_run_ibs(struct smp_ctx *c)
{
        struct smp_ibs *s = plat_alloc(sizeof(*s));
        struct psample *ps = NULL;
        status_t st;

        if (!s || smp_ibs_probe(c->cpu, s) != ST_OK) {
                const char *why = s ? s->why : "no memory";
                smp_skip_mech(&c->log, SMP_MECH_IBS_OP, &c->plan, why);
                smp_skip_mech(&c->log, SMP_MECH_IBS_FETCH, &c->plan, why);
                plat_free(s);
                return;
        }
        rep_info("ibs: caps 0x%x, interrupt through extended LVT entry %u (IBS_CTL)",
                 s->info.caps, s->lvt.offset);
        if ((st = plat_pmi_enable(ibs_pmi, s, (int)s->lvt.offset)) != ST_OK) {
                char why[96];
                fmt_snprintf(why, sizeof(why), "routing the IBS interrupt: %s", status_str(st));
                smp_skip_mech(&c->log, SMP_MECH_IBS_OP, &c->plan, why);
                smp_skip_mech(&c->log, SMP_MECH_IBS_FETCH, &c->plan, why);
                plat_free(s);
                return;
        }
        s->ops = plat_alloc(SMP_SAMPLES_MAX * sizeof(*s->ops));
        ps = plat_alloc(SMP_SAMPLES_MAX * sizeof(*ps));
        s->op_cap = s->ops ? SMP_SAMPLES_MAX : 0;
        if (!s->ops || !ps)
                smp_skip_mech(&c->log, SMP_MECH_IBS_OP, &c->plan, "no memory for samples");
        else if (!(s->info.caps & IBS_CAPS_OPSAM))
                smp_skip_mech(&c->log, SMP_MECH_IBS_OP, &c->plan, "op sampling not offered");
        else
                ibs_op_runs(c, s, ps);
        ibs_fetch_run(c, s);
        plat_pmi_disable();
        smp_log_figure(&c->log, "ibs", "PMIs taken", s->n_pmi, "interrupts");
        plat_free(s->ops);
        plat_free(s->fetches);
        plat_free(ps);
        plat_free(s);
}

/* ---- Intel PEBS load latency ------------------------------------------------------------ */

static size_t pebs_decode(const struct smp_pebs *s, struct pmu_pebs_record *rec, struct psample *ps)
{
        size_t n = 0, k = 0;

        pmu_pebs_decode_buffer(&s->fmt, s->raw, s->raw_len, rec, SMP_SAMPLES_MAX, &n);
        for (size_t i = 0; i < n; i++)
                if (pmu_pebs_to_psample(&s->fmt, &rec[i], &ps[k]) == ST_OK)
                        k++;
        return k;
}

static void pebs_runs(struct smp_ctx *c, struct smp_pebs *s, struct pmu_pebs_record *rec,
                      struct psample *ps)
{
        const uint64_t iters = (uint64_t)SMP_SAMPLES_TARGET * PEBS_PERIOD / BENCH_CHASE_UNROLL;
        struct smp_chase ch;
        struct smp_ratio rt;
        struct smp_plan pc;
        struct rep_verdict v;
        uint32_t q16;
        size_t n;
        status_t st;

        for (size_t i = 0; i < c->plan.n; i++) {
                const struct smp_ws *w = &c->plan.ws[i];

                if ((st = smp_chase_setup(&ch, w->bytes, 64)) != ST_OK) {
                        skip_ws(&c->log, SMP_MECH_PEBS, w, status_str(st));
                        continue;
                }
                bench_chase(ch.start, ch.n_lines / BENCH_CHASE_UNROLL + 1);
                smp_ratio_begin(&rt, c->cpu);
                if ((st = smp_pebs_arm(s, PEBS_PERIOD, PEBS_LDLAT_CYCLES)) == ST_OK) {
                        bench_chase(ch.start, iters);
                        smp_pebs_disarm(s);
                }
                q16 = smp_ratio_end(&rt);
                smp_plan_core_cycles(&c->plan, q16, rt.how, &pc);
                n = st == ST_OK ? pebs_decode(s, rec, ps) : 0;
                /* Every chase load takes longer than the threshold: one record per period. */
                if (i == 0 && rep_check_sample_count(s->n_records, iters * BENCH_CHASE_UNROLL,
                                                     PEBS_PERIOD, COUNT_TOL_PERMILLE, &v) == ST_OK)
                        smp_log_check(&c->log, SMP_MECH_PEBS, "sample-count", &v);
                n = smp_filter_chase(ps, n);
                smp_check_ws(c, SMP_MECH_PEBS, &pc.ws[i], &ch, ps, n, pc.lat_note);
                dcache_report(c, &pc, SMP_MECH_PEBS, &pc.ws[i], ps, n, PEBS_PERIOD);
                smp_chase_free(&ch);
        }
        if ((st = smp_chase_setup(&ch, SMP_TLB_CHASE_BYTES, 4096)) != ST_OK) {
                smp_log_skip(&c->log, SMP_MECH_PEBS, "tlb page-stride", status_str(st));
                return;
        }
        bool miss;
        enum psample_pgsz pg;
        tlb_expect(&ch, &miss, &pg);
        if (smp_pebs_arm(s, PEBS_PERIOD / 8, PEBS_LDLAT_CYCLES) == ST_OK) {
                bench_chase(ch.start, 2 * ch.n_lines / BENCH_CHASE_UNROLL);
                smp_pebs_disarm(s);
        }
        n = smp_filter_chase(ps, pebs_decode(s, rec, ps));
        /* PEBS reports no page size: only the STLB-miss bit is compared. */
        if (rep_check_tlb(ps, n, miss, PS_PG_UNKNOWN, 700, &v) == ST_OK)
                smp_log_check(&c->log, SMP_MECH_PEBS, "tlb page-stride", &v);
        smp_chase_free(&ch);
}

void smp_run_pebs(struct smp_ctx *c)
{
        struct smp_pebs *s = plat_alloc(sizeof(*s));
        struct pmu_pebs_record *rec = NULL;
        struct psample *ps = NULL;
        enum plat_page_kind got;
        void *ds = NULL, *buf = NULL;
        const size_t buf_bytes = 64 * KiB;
        status_t st;

        if (!s || smp_pebs_probe(c->cpu, s) != ST_OK) {
                smp_skip_mech(&c->log, SMP_MECH_PEBS, &c->plan, s ? s->why : "no memory");
                plat_free(s);
                return;
        }
        rep_info("pebs: record format %u%s, %u bytes per record, event %s", s->fmt.caps.pebs_fmt,
                 s->fmt.caps.baseline ? " (adaptive)" : "", s->rec_bytes, s->ev->name);
        if ((st = plat_pmi_enable(pebs_pmi, s, -1)) != ST_OK) {
                char why[96];
                fmt_snprintf(why, sizeof(why), "routing the PMI: %s", status_str(st));
                smp_skip_mech(&c->log, SMP_MECH_PEBS, &c->plan, why);
                plat_free(s);
                return;
        }
        s->raw_cap = (size_t)SMP_SAMPLES_MAX * s->rec_bytes;
        s->raw = plat_alloc(s->raw_cap);
        rec = plat_alloc(SMP_SAMPLES_MAX * sizeof(*rec));
        ps = plat_alloc(SMP_SAMPLES_MAX * sizeof(*ps));
        if (plat_alloc_pages(4 * KiB, PLAT_PAGE_4K, &ds, &got) == ST_OK &&
            plat_alloc_pages(buf_bytes, PLAT_PAGE_4K, &buf, &got) == ST_OK && s->raw && rec && ps) {
                s->ds = ds;
                s->buf = buf;
                s->buf_bytes = buf_bytes;
                pebs_runs(c, s, rec, ps);
        } else {
                smp_skip_mech(&c->log, SMP_MECH_PEBS, &c->plan, "no memory for the DS area");
        }
        plat_pmi_disable();
        smp_log_figure(&c->log, SMP_MECH_PEBS, "PMIs taken", s->n_pmi, "interrupts");
        if (ds)
                plat_free_pages(ds, 4 * KiB);
        if (buf)
                plat_free_pages(buf, buf_bytes);
        plat_free(s->raw);
        plat_free(rec);
        plat_free(ps);
        plat_free(s);
}

/* ---- Intel LBR -------------------------------------------------------------------------- */

/* The block's cost by the TSC: core cycles per iteration in milli-cycles, from TSC ticks
 * scaled by the core:TSC ratio the cycles counter shows over the same run (TSC = core clock
 * assumed when the counter cannot be read). @p ratio_q16 gets that ratio. */
static uint64_t block_cost_tsc(const struct smp_lbr *s, uint64_t *ratio_q16)
{
        const struct pmu_slot ctr = { .fixed = false, .idx = 0 };
        uint64_t t0, t1, cyc = 0;
        bool ok = pmu_program(ctr, s->ev, PMU_OS, 0) == ST_OK &&
                  pmu_start(pmu_slot_bit(ctr)) == ST_OK;

        t0 = rdtsc_ordered();
        bench_block_run(BLOCK_ITERS);
        t1 = rdtsc_ordered();
        pmu_stop(pmu_slot_bit(ctr));
        ok = ok && pmu_read(ctr, &cyc) == ST_OK && cyc && t1 > t0;
        *ratio_q16 = ok ? (cyc << 16) / (t1 - t0) : 1u << 16;
        return (t1 - t0) * 1000 * *ratio_q16 / 65536 / BLOCK_ITERS;
}

static void lbr_checks(struct smp_ctx *c, struct smp_lbr *s, uint64_t expected_mcyc,
                       uint64_t run_cycles)
{
        const struct rep_sym syms[] = {
                { (uint64_t)(uintptr_t)bench_block_run,
                  (uint64_t)(bench_block_end - (const char *)(uintptr_t)bench_block_run),
                  "bench_block_run" },
        };
        struct lbr_block_stat st[64];
        struct lbr_block blk[SMP_LBR_MAX_DEPTH];
        struct lbr_entry *in_kernel = plat_alloc(s->n_stacks * s->fmt.depth * sizeof(*in_kernel));
        size_t n_st = 0, n_in = 0;
        struct rep_verdict v;
        unsigned nb;

        for (size_t j = 0; j < s->n_stacks; j++) {
                const struct lbr_entry *e = &s->stacks[j * s->fmt.depth];

                if (pmu_lbr_blocks(e, s->stack_n[j], blk, SMP_LBR_MAX_DEPTH, &nb, NULL) == ST_OK)
                        pmu_lbr_block_accumulate(st, &n_st, ARRAY_SIZE(st), blk, nb);
                /* Stacks whose newest branch is the kernel's: the PMI hit the kernel. */
                if (in_kernel && s->stack_n[j] &&
                    e[0].from - syms[0].addr < syms[0].bytes) {
                        memcpy(&in_kernel[n_in], e, s->stack_n[j] * sizeof(*e));
                        n_in += s->stack_n[j];
                }
        }
        if (rep_check_lbr_block_cost(st, n_st, (uint64_t)(uintptr_t)bench_block_top,
                                     (uint64_t)(uintptr_t)bench_block_jcc, expected_mcyc, 100,
                                     &v) == ST_OK)
                smp_log_check(&c->log, SMP_MECH_LBR, "block-cost", &v);
        if (rep_check_lbr_symbols(in_kernel, n_in, syms, ARRAY_SIZE(syms), &v) == ST_OK)
                smp_log_check(&c->log, SMP_MECH_LBR, "symbols", &v);
        if (rep_check_sample_count(s->n_stacks + s->n_dropped, run_cycles, s->period,
                                   COUNT_TOL_PERMILLE * 2, &v) == ST_OK)
                smp_log_check(&c->log, SMP_MECH_LBR, "sample-count", &v);
        smp_lbr_block_report(st, n_st, syms, ARRAY_SIZE(syms), &c->report);
        plat_free(in_kernel);
}

void smp_run_lbr(struct smp_ctx *c)
{
        struct smp_lbr *s = plat_alloc(sizeof(*s));
        uint64_t ratio_q16, expected_mcyc, t0, t1, t2;
        status_t st;

        if (!s || smp_lbr_probe(c->cpu, s) != ST_OK) {
                smp_skip_mech(&c->log, SMP_MECH_LBR, &c->plan, s ? s->why : "no memory");
                plat_free(s);
                return;
        }
        rep_info("lbr: %s, depth %u", s->fmt.arch ? "Architectural LBR" : "legacy LBR",
                 s->fmt.depth);
        if ((st = plat_pmi_enable(lbr_pmi, s, -1)) != ST_OK) {
                char why[96];
                fmt_snprintf(why, sizeof(why), "routing the PMI: %s", status_str(st));
                smp_skip_mech(&c->log, SMP_MECH_LBR, &c->plan, why);
                plat_free(s);
                return;
        }
        s->stack_cap = 4 * BLOCK_ITERS * BENCH_BLOCK_NOMINAL_CYCLES / LBR_PERIOD + 64;
        s->stacks = plat_alloc(s->stack_cap * s->fmt.depth * sizeof(*s->stacks));
        s->stack_n = plat_alloc(s->stack_cap * sizeof(*s->stack_n));
        expected_mcyc = block_cost_tsc(s, &ratio_q16);
        rep_info("lbr: block cost by TSC %llu.%03llu cycles (core:TSC %llu/65536; nominal %u)",
                 (unsigned long long)(expected_mcyc / 1000),
                 (unsigned long long)(expected_mcyc % 1000), (unsigned long long)ratio_q16,
                 BENCH_BLOCK_NOMINAL_CYCLES);
        t0 = rdtsc_ordered();
        bench_block_run(BLOCK_ITERS);
        t1 = rdtsc_ordered();
        if (s->stacks && s->stack_n && smp_lbr_arm(s, LBR_PERIOD) == ST_OK) {
                bench_block_run(BLOCK_ITERS);
                t2 = rdtsc_ordered();
                smp_lbr_disarm(s);
                lbr_checks(c, s, expected_mcyc, (t2 - t1) * ratio_q16 / 65536);
                if (s->n_pmi && t2 - t1 > t1 - t0)
                        smp_log_figure(&c->log, SMP_MECH_LBR, "interrupt cost per sample",
                                       ((t2 - t1) - (t1 - t0)) / s->n_pmi, "TSC ticks");
                if (c->tsc_hz && t2 > t1)
                        smp_log_figure(&c->log, SMP_MECH_LBR, "samples per second",
                                       s->n_stacks * c->tsc_hz / (t2 - t1), "samples/s");
        } else {
                smp_skip_mech(&c->log, SMP_MECH_LBR, &c->plan, "arming LBR failed or no memory");
        }
        plat_pmi_disable();
        plat_free(s->stacks);
        plat_free(s->stack_n);
        plat_free(s);
}
