/** @file
 * The PEBS load-latency pipeline of the sampling phase: probe (pmu/x86/pebs_session.c) ->
 * plan (DS area, buffers, the period and threshold) -> run (arm, chase each working set with
 * interrupts enabled, disarm) -> decode (pmu/x86/pebs.c, to portable samples) -> check
 * (addresses, physical, latency, data source per working set; the sample count; records
 * that carry their data; the page-stride chase's STLB misses) -> report (the data-cache report). A probe that rules
 * PEBS out SKIPs every check with its reason before anything is allocated.
 */
#include "app/x86/sampling.h"
#include "boot/cpu.h"

#include "bench/kernel_chase.h"
#include "lib/fmt.h"
#include "pmu/clock.h"
#include "pmu/x86/pebs_session.h"

#define PEBS_PERIOD         2003u    /* loads above the threshold per record (prime) */
/* MSR_PEBS_LD_LAT_THRESHOLD: loads slower than this count; 3 is the minimum the register
 * takes, the shortest detectable latency being 4 cycles, so every load is eligible.
 * [SDM-3B] "Load Latency Performance Monitoring Facility" */
#define PEBS_LDLAT_CYCLES   3u

static void pebs_pmi(const struct cpu_pmi_frame *f, void *ctx)
{
        (void)f;
        pmu_pebs_session_on_pmi(ctx);
}

static size_t pebs_decode(const struct pmu_pebs_session *s, struct pmu_pebs_record *rec, struct psample *ps)
{
        size_t n = 0, k = 0;

        pmu_pebs_decode_buffer(&s->fmt, s->raw, s->raw_len, rec, SAMP_SAMPLES_MAX, &n);
        for (size_t i = 0; i < n; i++)
                if (pmu_pebs_to_psample(&s->fmt, &rec[i], &ps[k]) == ST_OK)
                        k++;
        return k;
}

/* Keep in @p ps the samples that carry the load's data (linear address and a latency): a
 * load-latency record without them is a fault of its own, judged by records-with-data, not
 * by the per-working-set checks. Adds to @p n_all and @p n_data. */
static size_t keep_with_data(struct psample *ps, size_t n, uint64_t *n_all, uint64_t *n_data)
{
        size_t k = 0;

        for (size_t i = 0; i < n; i++)
                if (ps[i].is_load && ps[i].data_la_valid && ps[i].lat_valid && ps[i].lat_cycles)
                        ps[k++] = ps[i];
        *n_all += n;
        *n_data += k;
        return k;
}

/* Every chase record is a load above the threshold: all of them must carry their data. */
static void log_with_data(struct samp_ctx *c, uint64_t n_data, uint64_t n_all)
{
        struct rep_verdict v;

        samp_permille_verdict(&v, n_data, n_all, 990);
        fmt_snprintf(v.why, sizeof(v.why), "%llu of %llu chase records carry the load's "
                     "address and latency", (unsigned long long)n_data,
                     (unsigned long long)n_all);
        samp_log_check(&c->log, SAMP_MECH_PEBS, "records-with-data", &v);
}

static void pebs_runs(struct samp_ctx *c, struct pmu_pebs_session *s, struct pmu_pebs_record *rec,
                      struct psample *ps)
{
        const uint64_t iters = (uint64_t)SAMP_SAMPLES_TARGET * PEBS_PERIOD / BENCH_CHASE_UNROLL;
        struct bench_chase_buf ch;
        struct pmu_clock_ratio rt;
        struct samp_plan pc;
        struct rep_verdict v;
        uint64_t n_all = 0, n_data = 0;
        bool counted = false;
        uint32_t q16;
        size_t n;
        status_t st;

        for (size_t i = 0; i < c->plan.n; i++) {
                const struct samp_ws *w = &c->plan.ws[i];

                if (w->ws_why) {
                        samp_skip_ws(&c->log, REP_SKIP_ENV, SAMP_MECH_PEBS, w, w->ws_why);
                        continue;
                }
                if ((st = bench_chase_buf_create(&ch, &SAMP_CHASE_CFG(w->bytes, 64))) != ST_OK) {
                        samp_skip_ws(&c->log, REP_SKIP_ENV, SAMP_MECH_PEBS, w, status_str(st));
                        continue;
                }
                bench_chase(ch.start, ch.n_lines / BENCH_CHASE_UNROLL + 1);
                pmu_clock_ratio_begin(&rt, c->cpu);
                if ((st = pmu_pebs_session_arm(s, PEBS_PERIOD, PEBS_LDLAT_CYCLES)) == ST_OK) {
                        bench_chase(ch.start, iters);
                        pmu_pebs_session_disarm(s);
                }
                q16 = pmu_clock_ratio_end(&rt);
                samp_plan_core_cycles(&c->plan, q16, rt.how, &pc);
                n = st == ST_OK ? pebs_decode(s, rec, ps) : 0;
                /* Every chase load takes longer than the threshold: one record per period. */
                if (!counted && rep_check_sample_count(s->n_records, iters * BENCH_CHASE_UNROLL,
                                                       PEBS_PERIOD, SAMP_COUNT_TOL_PERMILLE,
                                                       &v) == ST_OK)
                        samp_log_check(&c->log, SAMP_MECH_PEBS, "sample-count", &v);
                counted = true;
                n = keep_with_data(ps, samp_filter_chase(ps, n), &n_all, &n_data);
                samp_check_ws(c, SAMP_MECH_PEBS, &pc.ws[i], &ch, ps, n, pc.lat_note);
                samp_dcache_report(c, &pc, SAMP_MECH_PEBS, &pc.ws[i], ps, n, PEBS_PERIOD);
                bench_chase_buf_destroy(&ch);
        }
        if (!counted) /* the same check names whatever was sampled */
                samp_log_skip(&c->log, REP_SKIP_ENV, SAMP_MECH_PEBS, "sample-count", "no working "
                              "set ran");
        log_with_data(c, n_data, n_all);
        if ((st = bench_chase_buf_create(&ch, &SAMP_CHASE_CFG(SAMP_TLB_CHASE_BYTES, 4096))) !=
            ST_OK) {
                samp_log_skip(&c->log, REP_SKIP_ENV, SAMP_MECH_PEBS, "tlb "
                              "page-stride", status_str(st));
                return;
        }
        bool miss;
        enum psample_pgsz pg;
        samp_tlb_expect(&ch, &miss, &pg);
        if (pmu_pebs_session_arm(s, PEBS_PERIOD / 8, PEBS_LDLAT_CYCLES) == ST_OK) {
                bench_chase(ch.start, 2 * ch.n_lines / BENCH_CHASE_UNROLL);
                pmu_pebs_session_disarm(s);
        }
        n = samp_filter_chase(ps, pebs_decode(s, rec, ps));
        /* PEBS reports no page size: only the STLB-miss bit is compared. */
        if (rep_check_tlb(ps, n, miss, PS_PG_UNKNOWN, 700, &v) == ST_OK)
                samp_log_check(&c->log, SAMP_MECH_PEBS, "tlb page-stride", &v);
        bench_chase_buf_destroy(&ch);
}

void samp_pebs_run(struct samp_ctx *c)
{
        struct pmu_pebs_session *s = plat_alloc(sizeof(*s));
        struct pmu_pebs_record *rec = NULL;
        struct psample *ps = NULL;
        enum plat_page_kind got;
        void *ds = NULL, *buf = NULL;
        const size_t buf_bytes = 64 * KiB;
        status_t st;

        if (!s || pmu_pebs_session_probe(c->cpu, s) != ST_OK) {
                samp_skip_mech(&c->log, s ? samp_absent_kind() : REP_SKIP_ENV, SAMP_MECH_PEBS,
                                &c->plan, s ? s->why : "no memory");
                plat_free(s);
                return;
        }
        rep_info("pebs: record format %u%s, %u bytes per record, event %s", s->fmt.caps.pebs_fmt,
                 s->fmt.caps.baseline ? " (adaptive)" : "", s->rec_bytes, s->ev->name);
        if ((st = cpu_pmi_enable(pebs_pmi, s, -1)) != ST_OK) {
                char why[96];
                fmt_snprintf(why, sizeof(why), "routing the PMI: %s", status_str(st));
                samp_skip_mech(&c->log, REP_SKIP_FEATURE, SAMP_MECH_PEBS, &c->plan, why);
                plat_free(s);
                return;
        }
        s->raw_cap = (size_t)SAMP_SAMPLES_MAX * s->rec_bytes;
        s->raw = plat_alloc(s->raw_cap);
        rec = plat_alloc(SAMP_SAMPLES_MAX * sizeof(*rec));
        ps = plat_alloc(SAMP_SAMPLES_MAX * sizeof(*ps));
        if (plat_alloc_pages(4 * KiB, PLAT_PAGE_4K, &ds, &got) == ST_OK &&
            plat_alloc_pages(buf_bytes, PLAT_PAGE_4K, &buf, &got) == ST_OK && s->raw && rec && ps) {
                s->ds = ds;
                s->buf = buf;
                s->buf_bytes = buf_bytes;
                pebs_runs(c, s, rec, ps);
        } else {
                samp_skip_mech(&c->log, REP_SKIP_ENV, SAMP_MECH_PEBS, &c->plan, "no memory for the "
                               "DS area");
        }
        cpu_pmi_disable();
        samp_log_figure(&c->log, SAMP_MECH_PEBS, "PMIs taken", s->n_pmi, "interrupts");
        if (ds)
                plat_free_pages(ds, 4 * KiB);
        if (buf)
                plat_free_pages(buf, buf_bytes);
        plat_free(s->raw);
        plat_free(rec);
        plat_free(ps);
        plat_free(s);
}
