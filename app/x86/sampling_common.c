/** @file
 * What the sampling pipelines share (see app/x86/sampling.h): the chase over a known buffer that
 * IBS and PEBS samples are validated against, the per-working-set checks, the skip lists
 * (the same check names whether a mechanism runs or SKIPs), and the data-cache report.
 */
#include "app/x86/sampling.h"

#include "bench/kernel_chase.h"
#include "bench/kernel_tlb.h"
#include "bench/x86/pagetable.h"
#include "bench/x86/ptlive.h"
#include "lib/fmt.h"
#include "lib/stats.h"

/* ---- private helpers -------------------------------------------------------------------- */

/* Walk the live page tables (CR3, 4-level) for every sample's data linear address into @p w.
 * ST_UNSUPPORTED with @p why when they cannot be walked. Ring 0 only: samples exist only in
 * the firmware run, where the PMI is routed. */
static status_t walk_samples(const struct cpu_info *cpu, const struct psample *s, size_t n,
                             struct rep_walk *w, const char **why)
{
        struct bench_pt pt;

        if (bench_ptlive_attach(&pt, cpu, why) != ST_OK)
                return ST_UNSUPPORTED;
        for (size_t i = 0; i < n; i++) {
                w[i] = (struct rep_walk){ .st = ST_NOT_FOUND };
                if (s[i].data_la_valid && s[i].data_pa_valid)
                        w[i].st = bench_pt_walk(&pt, s[i].data_la, &w[i].pa, &w[i].page_bytes,
                                                NULL);
        }
        return ST_OK;
}

/* ---- the chase and its checks ----------------------------------------------------------- */

size_t samp_filter_chase(struct psample *s, size_t n)
{
        uint64_t lo = (uint64_t)(uintptr_t)bench_chase;
        size_t k = 0;

        for (size_t i = 0; i < n; i++)
                if (s[i].ip_valid && s[i].ip >= lo && s[i].ip - lo < SAMP_CHASE_CODE_BYTES)
                        s[k++] = s[i];
        return k;
}

void samp_check_ws(struct samp_ctx *x, const char *mech, const struct samp_ws *w,
                   const struct bench_chase_buf *c, const struct psample *s, size_t n,
                   const char *lat_note)
{
        struct samp_log *lg = &x->log;
        struct rep_verdict v;
        struct rep_walk *walk;
        const char *why = "no memory for the page walks";
        size_t n_pa = 0, len;
        char name[48];

        fmt_snprintf(name, sizeof(name), "addresses %s", w->name);
        if (rep_check_addrs_in_chain(s, n, (uint64_t)(uintptr_t)c->buf, c->bytes, c->lines,
                                     c->n_lines, c->line_bytes, &v) == ST_OK)
                samp_log_check(lg, mech, name, &v);

        /* Physical addresses against the page tables the CPU is using, not an assumed
         * identity: a software walk of CR3 for each sampled linear address. */
        fmt_snprintf(name, sizeof(name), "physical %s", w->name);
        for (size_t i = 0; i < n; i++)
                n_pa += s[i].data_la_valid && s[i].data_pa_valid;
        walk = n_pa ? plat_alloc(n * sizeof(*walk)) : NULL;
        if (n_pa == 0)
                samp_log_skip(lg, REP_SKIP_FEATURE, mech, name, "no sample reports both a "
                              "linear and a physical data address");
        else if (!walk || walk_samples(x->cpu, s, n, walk, &why) != ST_OK)
                samp_log_skip(lg, REP_SKIP_ENV, mech, name, why);
        else if (rep_check_phys_walk(s, walk, n, &v) == ST_OK)
                samp_log_check(lg, mech, name, &v);
        plat_free(walk);

        fmt_snprintf(name, sizeof(name), "latency %s", w->name);
        if (w->lat_why)
                samp_log_skip(lg, REP_SKIP_ENV, mech, name, w->lat_why);
        else if (rep_check_latency(s, n, REP_SF_LOADS_ONLY | REP_SF_MISSES_ONLY, w->lat_lo,
                                   w->lat_hi, 500, &v) == ST_OK) {
                len = strlen(v.why);
                if (lat_note && v.v != REP_V_SKIP && len + 3 < sizeof(v.why))
                        fmt_snprintf(v.why + len, sizeof(v.why) - len, "; %s", lat_note);
                /* no sampled miss with a latency: the mechanism reports none for the loads it
                 * took (an L1 hit has no miss latency) */
                v.skip = REP_SKIP_FEATURE;
                samp_log_check(lg, mech, name, &v);
        }

        fmt_snprintf(name, sizeof(name), "data-source %s", w->name);
        if (w->level == PS_LVL_UNKNOWN)
                samp_log_skip(lg, REP_SKIP_ENV, mech, name, "the latency table's level has "
                              "no data-source equivalent");
        else if (rep_check_level(s, n, w->level, 700, &v) == ST_OK)
                samp_log_check(lg, mech, name, &v);
}

/* ---- skip lists ------------------------------------------------------------------------- */

enum rep_skip_kind samp_absent_kind(void)
{
        return pmu_get_caps()->available ? REP_SKIP_FEATURE : REP_SKIP_PMU;
}

static void skip_per_ws(struct samp_log *lg, enum rep_skip_kind k, const char *mech,
                        const char *check, const struct samp_plan *p, const char *why)
{
        char name[48];

        for (size_t i = 0; i < p->n; i++) {
                fmt_snprintf(name, sizeof(name), "%s %s", check, p->ws[i].name);
                samp_log_skip(lg, k, mech, name, why);
        }
}

void samp_skip_mech(struct samp_log *lg, enum rep_skip_kind k, const char *mech,
                    const struct samp_plan *p, const char *why)
{
        if (!strcmp(mech, SAMP_MECH_IBS_OP) || !strcmp(mech, SAMP_MECH_PEBS)) {
                skip_per_ws(lg, k, mech, "addresses", p, why);
                skip_per_ws(lg, k, mech, "physical", p, why);
                skip_per_ws(lg, k, mech, "latency", p, why);
                skip_per_ws(lg, k, mech, "data-source", p, why);
                samp_log_skip(lg, k, mech, "tlb page-stride", why);
                samp_log_skip(lg, k, mech, "sample-count", why);
                if (!strcmp(mech, SAMP_MECH_IBS_OP))
                        samp_log_skip(lg, k, mech, "op-count", why);
                samp_log_skip(lg, k, mech, "records-with-data", why);
        } else if (!strcmp(mech, SAMP_MECH_IBS_FETCH)) {
                samp_log_skip(lg, k, mech, "fetch-addresses", why);
                samp_log_skip(lg, k, mech, "fetch-count", why);
        } else if (!strcmp(mech, SAMP_MECH_LBR)) {
                samp_log_skip(lg, k, mech, "block-cost", why);
                samp_log_skip(lg, k, mech, "symbols", why);
                samp_log_skip(lg, k, mech, "sample-count", why);
        }
}

void samp_skip_ws(struct samp_log *lg, enum rep_skip_kind k, const char *mech,
                  const struct samp_ws *w, const char *why)
{
        static const char *const checks[] = { "addresses", "physical", "latency", "data-source" };
        char name[48];

        for (size_t i = 0; i < ARRAY_SIZE(checks); i++) {
                fmt_snprintf(name, sizeof(name), "%s %s", checks[i], w->name);
                samp_log_skip(lg, k, mech, name, why);
        }
}

/* ---- verdict and report helpers --------------------------------------------------------- */

void samp_permille_verdict(struct rep_verdict *v, uint64_t good, uint64_t all, uint32_t min)
{
        uint32_t pm = all ? (uint32_t)(good * 1000 / all) : 0;

        *v = (struct rep_verdict){ .v = all == 0 ? REP_V_SKIP : pm >= min ? REP_V_PASS : REP_V_FAIL,
                                   .measured = pm, .expected = 1000, .lo = min, .hi = 1000,
                                   .unit = "permille" };
}

/* Page-stride chase: every load on its own 4 KiB page over SAMP_TLB_CHASE_BYTES. With 4 KiB
 * pages that is 16384 pages, more than any second-level DTLB holds (Zen 4: 3072, Golden
 * Cove: 2048), so every load should miss it; if the platform backed the buffer with 2 MiB
 * pages, 32 pages fit every STLB and no load should miss. */
void samp_tlb_expect(const struct bench_chase_buf *ch, bool *miss, enum psample_pgsz *pg)
{
        *pg = psample_pgsz_from_plat(ch->page_got);
        *miss = ch->page_got == PLAT_PAGE_4K;
}

/* @p p: the plan in core cycles for this run (samp_plan_core_cycles). */
void samp_dcache_report(struct samp_ctx *c, const struct samp_plan *p, const char *mech,
                        const struct samp_ws *w, const struct psample *s, size_t n,
                        uint64_t period)
{
        char title[160];
        struct rep_site *work = plat_alloc((n ? n : 1) * sizeof(*work));
        struct rep_dcache_in in = { .title = title, .s = s, .n = n, .buckets = p->buckets,
                                    .n_buckets = p->n_buckets, .period = period,
                                    .top_n = 10, .work = work, .n_work = n };

        if (!work)
                return;
        if (!p->n_buckets) {
                rep_buf_printf(&c->report, "%s, chase over %llu KiB (%s): no latency buckets: "
                               "%s\n\n", mech, (unsigned long long)(w->bytes / KiB), w->name,
                               p->lat_note);
                plat_free(work);
                return;
        }
        fmt_snprintf(title, sizeof(title), "%s, chase over %llu KiB (%s); buckets: %s", mech,
                     (unsigned long long)(w->bytes / KiB), w->name, p->lat_note);
        rep_samples_dcache_report(&in, &c->report);
        rep_buf_printf(&c->report, "\n");
        plat_free(work);
}
