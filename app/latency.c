/** @file
 * The latency phase: maps the run's config onto a pointer-chase sweep (bench/measure.h), runs
 * it on the BSP with the inventory's CPU description and TSC rate, detects the levels
 * (analysis/levels.h), keeps them in the run for the phases after it, and adds
 * latency-table.json and latency-curve.csv to the results. The console gets the method, the
 * levels table and the ASCII plot. A flat curve (QEMU TCG models no caches) is a result, not a
 * failure: the table says no_hierarchy and the console says so. The checks are about what the
 * phase itself can get wrong: points left out, a table that does not read back, levels that
 * are not ordered.
 */
#include "app/run.h"

#include "app/latency_check.h"
#include "app/latency_clock.h"
#include "app/latency_pages.h"
#include "app/latency_sets.h"
#include "app/cpus.h"
#include "bench/clock_chain.h"
#include "bench/measure.h"
#include "lib/fmt.h"
#include "report/inventory.h"
#include "report/json.h"
#include "report/json_check.h"
#include "report/lattable.h"
#include "report/lattable_numa.h"
#include "analysis/levels.h"

#ifndef PMUCAL_VERSION
#define PMUCAL_VERSION "unknown"
#endif

#define TABLE_FILE     LAT_TABLE_FILE
#define CURVE_FILE     LAT_CURVE_FILE
#define CLOCK_CALIB_US 5000u
#define SEED           0x706d7563616cull /* "pmucal", the same chains as pmucal-host */

/* What each profile asks of the sweep (config latency_pages = auto; 4k or 2m override the
 * page). 2 MiB pages for the full plan: its DRAM points lie far beyond the reach of a
 * 4 KiB-page TLB, and page walks are not what the table is about. The quick plan ends at
 * 4 MiB, inside the L2 TLB reach of 4 KiB pages on current cores. */
static const struct {
        bool                valid;
        enum bench_profile  sweep;
        enum plat_page_kind page;
} plans[] = {
        [CONFIG_PROFILE_QUICK]    = { true, BENCH_PROFILE_QUICK, PLAT_PAGE_4K },
        [CONFIG_PROFILE_FULL]     = { true, BENCH_PROFILE_FULL, PLAT_PAGE_2M },
        /* sampling buckets sampled latencies up to DRAM: it needs the full plan's range */
        [CONFIG_PROFILE_SAMPLING] = { true, BENCH_PROFILE_FULL, PLAT_PAGE_2M },
};

/* One place that owns everything the phase allocates. */
struct lat_run {
        struct bench_sweep_cfg  cfg;
        struct bench_sweep_info info;
        struct bench_clock      clock;
        struct lat_curve        curve;
        struct lat_levels       lv;
        struct lat_table_meta   meta;
        struct lat_pages        pages;  /* own mapping of the buffer (latency_pages) */
        struct lat_clock_pmu    pmu_clock; /* the PMU core-cycle source, where it serves */
        const struct cpu_info  *cpu;
        char                    date[24];
        char                    core_why[192];  /* no core clock: why, the platform's word too */
        char                    buffer_why[160]; /* the sweep buffer was reduced: why */
        uint32_t                chain_ppm[2];    /* add chain before and after the sweep; 0 =
                                                  * not measured */
};

/* ---- the phase ------------------------------------------------------------------------- */

/* The prefetcher states in the words of the table schema (docs/latency-table.md). */
static const char *prefetch_word(enum prefetch_state st)
{
        switch (st) {
        case PREFETCH_DISABLED: return "off";
        case PREFETCH_LEFT_ON: return "on";
        case PREFETCH_FAILED: return "failed";
        case PREFETCH_UNSUPPORTED: return "unchanged";
        }
        return "unknown";
}

/* The sweep's clock: TSC stamps, with APERF/MPERF (bench_clock_init) or the PMU's core cycles
 * (lat_clock_pmu_begin) as the core source read around every window; the TSC rate is the
 * inventory's (CPUID 15H, or three 50 ms runs against the firmware timer), which is better
 * than the sweep's own five 1 ms stalls. The core rate is rescaled with it. */
static void choose_clock(struct lat_run *lr, const struct inventory *inv)
{
        struct bench_clock *clk = &lr->clock;

        const struct plat_info *pi = plat_info();

        bench_clock_init(clk, &inv->cpu, CLOCK_CALIB_US, NULL);
        /* What the platform counts for this thread (hosted: perf's cycles) before the PMU is
         * programmed behind its back; the firmware has none and drives the PMU itself. */
        if (!clk->core.name && pi->core_cycles)
                clk->core = (struct bench_core_src){ .name = pi->core_cycles_name,
                                                     .read = pi->core_cycles };
        else if (!clk->core.name && pi->core_cycles_why) {
                fmt_snprintf(lr->core_why, sizeof(lr->core_why), "%s; %s",
                             clk->core.why_none ? clk->core.why_none : "no APERF/MPERF",
                             pi->core_cycles_why);
                clk->core.why_none = lr->core_why;
        }
        lat_clock_pmu_begin(&lr->pmu_clock, clk, &inv->cpu);
        if (inv->tsc_hz && clk->tsc_hz) {
                clk->core_hz = (uint64_t)((unsigned __int128)clk->core_hz * inv->tsc_hz / clk->tsc_hz);
                clk->tsc_hz  = inv->tsc_hz;
        }
        lr->cfg.clock = clk;
}

static void fill_meta(struct lat_run *lr, const struct inventory *inv)
{
        struct lat_table_meta *m = &lr->meta;
        struct plat_time       t;

        rep_lat_meta_from_cpu(m, &inv->cpu);
        m->microcode_valid = inv->microcode_st == ST_OK;
        m->microcode       = inv->microcode;
        m->tsc_hz          = inv->tsc_hz;
        if (inv->smbios && inv->smbios->has_system) {
                m->smbios_manufacturer = inv->smbios->sys_manufacturer;
                m->smbios_product      = inv->smbios->sys_product;
        }
        m->n_nodes          = inventory_n_nodes(inv);
        m->kernel           = "pointer-chase";
        m->layout           = bench_layout_name(lr->cfg.layout);
        m->page_bytes       = lr->info.page_used == PLAT_PAGE_1G   ? GiB
                              : lr->info.page_used == PLAT_PAGE_2M ? 2 * MiB
                                                                   : 4 * KiB;
        m->page_tables      = lat_pages_tables_name(&lr->info);
        m->n_windows        = lr->info.repetitions;
        m->max_windows      = lr->info.max_windows;
        m->passes           = lr->info.passes;
        m->ci_permille      = lr->info.ci_permille;
        m->n_settled        = lr->info.n_settled;
        m->n_remeasured     = lr->info.n_remeasured;
        m->loads_per_window = lr->info.loads_per_run;
        if (lr->info.planned_bytes > lr->info.max_bytes) {
                m->buffer_planned_bytes = lr->info.planned_bytes;
                m->buffer_bytes         = lr->info.max_bytes;
                m->buffer_why           = lr->buffer_why;
        }
        m->clock            = lr->curve.clock;
        m->timer_name       = lr->info.clock.timer && !strcmp(lr->info.clock.timer, "CNTVCT_EL0")
                              ? "cntvct" : NULL;
        m->prefetchers      = prefetch_word(lr->info.prefetch.state);
        m->pmucal_version   = PMUCAL_VERSION;
        m->platform         = plat_info()->name;
        if (plat_wallclock(&t) == ST_OK) {
                m->date_zone = rep_lat_date_utc(&t, lr->date, sizeof(lr->date));
                m->date      = m->date_zone ? lr->date : NULL;
        }
}

/* Why the sweep buffer is smaller than planned (allocations failed, so it was halved until
 * one succeeded): a limit on the address space (hosted: ulimit -v) below what the plan
 * needs, or no free block that large. */
static void buffer_why(struct lat_run *lr)
{
        struct plat_mem_summary mem = { 0 };
        char                    a[24];

        if (plat_mem_map(&mem, NULL, 0, NULL) == ST_OK && mem.limit_bytes &&
            mem.limit_bytes < 2 * lr->info.planned_bytes)
                fmt_snprintf(lr->buffer_why, sizeof(lr->buffer_why), "allocation failed under "
                             "the address-space limit (ulimit -v) of %s",
                             fmt_size(a, sizeof(a), mem.limit_bytes));
        else
                fmt_snprintf(lr->buffer_why, sizeof(lr->buffer_why), "no free block that large "
                             "(%s)", plat_info()->name);
}

/* The reference timer's name for the console: "TSC", "CNTVCT_EL0". */
static const char *timer_of(const struct bench_sweep_info *in)
{
        return in->clock.timer ? in->clock.timer : "TSC";
}

/* The core clock check: dependent adds (one core cycle each) timed before and after the
 * sweep. Where no counter read the core clock, their mean is the table's estimated ratio;
 * either way it says whether the core clock held still while the windows ran, i.e. whether
 * this run's tick figures compare with another run's. */
static void print_chain(const struct lat_run *lr)
{
        const struct bench_sweep_info *in = &lr->info;
        uint32_t a = lr->chain_ppm[0], b = lr->chain_ppm[1];
        uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
        char     x[24], y[24], z[24];

        if (!lo) {
                rep_info("clock: core clock check: the dependent-add chain did not run here");
                return;
        }
        uint64_t moved_permille = (uint64_t)(hi - lo) * 1000 / lo;
        rep_info("clock: core clock check (dependent adds, one core cycle each, timed in %s "
                 "ticks; %s): %s core cycles per %s tick before the sweep, %s after (%s GHz): %s",
                 timer_of(in), lr->curve.core_ppm ? "beside the counter's ratio, not in the table"
                                                  : "no counter read the core clock: the table's "
                                                    "method.core_clock.estimate",
                 fmt_fixed(x, sizeof(x), a / 1000, 3), timer_of(in),
                 fmt_fixed(y, sizeof(y), b / 1000, 3),
                 fmt_fixed(z, sizeof(z), (int64_t)(in->clock.tsc_hz / 1000000 * b / 1000000), 3),
                 moved_permille <= 20 ? "steady" : "the core clock moved during the run");
        if (moved_permille > 20)
                rep_info("clock:   by %s %%: tick figures of runs at different core clocks do not "
                         "compare", fmt_fixed(x, sizeof(x), (int64_t)moved_permille, 1));
}

static void print_method(const struct lat_run *lr)
{
        const struct bench_sweep_info *in = &lr->info;
        const struct prefetch_info   *pf = &in->prefetch;
        char                           a[24], b[24], c[24];

        rep_info("plan: %s, %s layout, %u windows per point, up to %s, %zu points planned, "
                 "%zu added where the latency jumps",
                 bench_profile_name(lr->cfg.profile), bench_layout_name(lr->cfg.layout),
                 in->repetitions, fmt_size(a, sizeof(a), in->max_bytes), in->n_planned,
                 in->n_refined);
        if (in->planned_bytes > in->max_bytes)
                rep_warn("plan: the sweep buffer is %s, not the %s planned (%s): levels beyond "
                         "%s are not measured and the table says so (method.buffer_reduced)",
                         fmt_size(a, sizeof(a), in->max_bytes),
                         fmt_size(b, sizeof(b), in->planned_bytes), lr->buffer_why,
                         fmt_size(c, sizeof(c), in->max_bytes));
        if (lr->curve.core_ppm)
                rep_info("clock: windows timed in %s ticks (%llu Hz); core clock from %s: %s "
                         "core cycles per tick (%s..%s over the points)", timer_of(in),
                         (unsigned long long)in->clock.tsc_hz, lr->curve.core_source,
                         fmt_fixed(a, sizeof(a), lr->curve.core_ppm / 1000, 3),
                         fmt_fixed(b, sizeof(b), lr->curve.core_ppm_lo / 1000, 3),
                         fmt_fixed(c, sizeof(c), lr->curve.core_ppm_hi / 1000, 3));
        else
                rep_info("clock: windows timed in %s ticks (%llu Hz); core clock unknown (%s): "
                         "the table's core-cycle figures are null", timer_of(in),
                         (unsigned long long)in->clock.tsc_hz,
                         lr->curve.core_why ? lr->curve.core_why : "no source");
        print_chain(lr);
        rep_info("windows: at least %u per point, more until the median is known within "
                 "+/- %s %% (95 %% confidence), at most %u: %zu of %zu points settled; %zu outlier "
                 "points measured again", in->repetitions,
                 fmt_fixed(a, sizeof(a), in->ci_permille, 1), in->max_windows, in->n_settled,
                 lr->curve.n, in->n_remeasured);
        lat_pages_method(&lr->pages, &lr->cfg, in);
        if (pf->state == PREFETCH_UNSUPPORTED)
                rep_info("prefetchers: no documented control for this CPU (left as found)");
        else
                rep_info("prefetchers: %s (MSR 0x%x was 0x%llx, %s)",
                         prefetch_state_name(pf->state), (unsigned)pf->msr,
                         (unsigned long long)pf->saved, pf->source ? pf->source : "?");
        rep_info("windows: interrupts %s, %u dropped as disturbed; N/2N removed %s ticks of "
                 "the %s per run, left %s per load",
                 in->guard.irq_maskable ? "masked" : "NOT maskable", in->n_disturbed,
                 fmt_fixed(a, sizeof(a), in->overhead_mcyc, 3), timer_of(in),
                 fmt_fixed(b, sizeof(b), in->residual_mcyc, 3));
        for (int d = BENCH_WIN_OK + 1; d < BENCH_WIN__COUNT; d++)
                if (in->n_dropped_by[d])
                        rep_info("windows: %u dropped: %s", in->n_dropped_by[d],
                                 bench_disturb_name((enum bench_disturb)d));
}

/* Verdicts on what the phase produced; each can fail. */
static void check_results(const struct lat_run *lr, const struct rep_buf *json,
                          const struct rep_buf *csv)
{
        lat_check_sweep(&lr->curve, &lr->info, lr->cpu);
        lat_check_files(&lr->curve, &lr->lv, json, csv);
        lat_check_levels(&lr->lv);
}

static void report_levels(const struct lat_run *lr)
{
        const struct lat_levels *l = &lr->lv;
        struct rep_buf           b = { 0 };
        char                     lo[24], hi[24], a[24], bb[24];

        for (size_t k = 0; k < l->n; k++) {
                const struct lat_level *v = &l->lv[k];
                if (v->agreement == LAT_AGREE_SMALLER || v->agreement == LAT_AGREE_LARGER)
                        rep_warn("%s capacity %s is %s than CPUID L%u (%s): flagged "
                                 "cpuid_differs in the table", v->name,
                                 fmt_size(lo, sizeof(lo), v->capacity_bytes),
                                 v->agreement == LAT_AGREE_SMALLER ? "smaller" : "larger",
                                 v->cpuid_level,
                                 fmt_size(hi, sizeof(hi), v->cpuid_capacity_bytes));
        }
        if (lr->cpu->hypervisor && !(l->flags & LAT_F_NO_HIERARCHY))
                rep_info("measured under a hypervisor (%s): these levels are what the guest sees "
                         "(under an emulator such as TCG: the host's caches through its software "
                         "TLB), not necessarily the hardware's", lr->cpu->hv_vendor[0] ?
                         lr->cpu->hv_vendor : "unnamed");
        if (l->flags & LAT_F_NO_HIERARCHY)
                rep_warn("NO CACHE HIERARCHY VISIBLE: latency is flat (p10..p90 %s..%s %s ticks) from "
                         "%s to %s, as under QEMU TCG, which models no caches. "
                         "The table holds this one level, flagged no_hierarchy; a flat curve "
                         "is a result, not a failure.",
                         fmt_fixed(lo, sizeof(lo), (int64_t)l->lv[0].lat_mcyc.p10, 3),
                         fmt_fixed(hi, sizeof(hi), (int64_t)l->lv[0].lat_mcyc.p90, 3),
                         timer_of(&lr->info), fmt_size(a, sizeof(a), lr->curve.pts[0].ws_bytes),
                         fmt_size(bb, sizeof(bb), lr->curve.pts[lr->curve.n - 1].ws_bytes));
        if (rep_lat_levels_text(&b, &lr->curve, l) == ST_OK && rep_lat_plot(&b, &lr->curve, l) ==
            ST_OK && !b.oom)
                rep_printf("\n%s\n", b.p);
        else
                rep_warn("no memory for the levels table and plot");
        rep_buf_free(&b);
}

/* What the table carries beyond the levels: the remote-DRAM levels (from the NUMA phase)
 * and the cache-to-cache classes (from the C2C phase), each read back from the document. */
static void report_remote(const struct run *r, const struct rep_buf *json)
{
        static const char *const keys[] = { "numa", "loaded_latency", "c2c" };
        struct rep_buf           b     = { 0 };

        if (r->numa_result && rep_lat_dram_levels_text(&b, r->numa_result) == ST_OK && b.p)
                rep_printf("%s", b.p);
        rep_buf_free(&b);
        for (unsigned k = 0; k < ARRAY_SIZE(keys); k++) {
                bool want = k < 2 ? r->numa_result != NULL : r->c2c_result != NULL;
                struct json_check c = { .has_key = keys[k] };
                json_check(json->p, json->len, &c);
                bool have = c.ok && c.has;
                if (k == 1)
                        want = want && (r->numa_result->n_curves || r->numa_result->bw);
                if (want || have)
                        rep_check(want == have, "%s: section \"%s\" %s (%s)", TABLE_FILE, keys[k],
                                  have ? "present" : "absent",
                                  want ? "its phase measured" : "its phase did not measure");
                else
                        rep_info("%s: no \"%s\" section (its phase did not run or measured "
                                 "nothing)", TABLE_FILE, keys[k]);
        }
}

enum plat_page_kind lat_dram_page(const struct run *r)
{
        bool planned = (unsigned)r->cfg.profile < ARRAY_SIZE(plans) && plans[r->cfg.profile].valid;

        return lat_pages_choose(r->cfg.latency_pages,
                                planned ? plans[r->cfg.profile].page : PLAT_PAGE_2M);
}

/* The sweep's configuration for run @p r: its profile's plan and the config's keys. */
static void sweep_config(struct lat_run *lr, const struct run *r)
{
        bool own = r->cfg.latency_pages != CONFIG_PAGES_AUTO;

        lr->cfg = (struct bench_sweep_cfg){
                .profile         = plans[r->cfg.profile].sweep,
                .layout          = r->cfg.latency_layout < BENCH_LAYOUT__COUNT
                                   ? (enum bench_layout)r->cfg.latency_layout
                                   : BENCH_LAYOUT_RANDOM,
                .page            = lat_pages_choose(r->cfg.latency_pages,
                                                    plans[r->cfg.profile].page),
                .repetitions     = r->cfg.repetitions,
                .max_bytes       = (uint64_t)r->cfg.sweep_max_mib * MiB,
                .prefetchers_off = r->cfg.prefetchers == CONFIG_PREFETCH_OFF,
                .seed            = r->cfg.latency_seed_set ? r->cfg.latency_seed : SEED,
                .steal_count     = plat_info()->steals,
                .remap           = own ? lat_pages_remap : NULL,
                .remap_ctx       = own ? &lr->pages : NULL,
        };
}

/* Run the sweep with the clock chosen for @p inv's CPU; where no counter read the core clock,
 * the dependent-add chain's estimate from before and after it. The runner's status. */
static status_t sweep(struct lat_run *lr, const struct inventory *inv)
{
        uint32_t chain_before = 0, chain_after = 0;
        status_t chain_st, st;

        lr->cpu       = &inv->cpu;
        lr->pages.cpu = &inv->cpu;
        choose_clock(lr, inv);
        chain_st = bench_add_chain_ppm(&chain_before);
        st = bench_sweep_run(&lr->cfg, &inv->cpu, &lr->curve, &lr->info);
        lat_clock_pmu_end(&lr->pmu_clock);
        buffer_why(lr);
        if (st == ST_OK && chain_st == ST_OK && bench_add_chain_ppm(&chain_after) == ST_OK) {
                lr->chain_ppm[0] = chain_before;
                lr->chain_ppm[1] = chain_after;
        }
        /* no counter read the core clock: the add chain's estimate, before and after */
        if (!lr->curve.core_ppm && lr->chain_ppm[0]) {
                uint32_t lo = chain_before < chain_after ? chain_before : chain_after;
                uint32_t hi = chain_before < chain_after ? chain_after : chain_before;
                lr->curve.est_ppm    = (uint32_t)(((uint64_t)lo + hi + 1) / 2);
                lr->curve.est_ppm_lo = lo;
                lr->curve.est_ppm_hi = hi;
                lr->curve.est_method = "dependent-add chain";
        }
        return st;
}

/* From a finished sweep: the levels, the core sets' latencies, the table and the curve,
 * reported and checked, both files and the levels handed to the run. */
static status_t tabulate(struct run *r, struct lat_run *lr, const struct inventory *inv)
{
        struct rep_buf          json = { 0 }, csv = { 0 };
        struct lat_json_section sec[LAT_REMOTE_MAX_SECTIONS + 1];
        struct lat_sets        *sets = NULL;
        size_t                  n_sec;
        status_t                st;

        if ((st = lv_detect(&lr->curve, &inv->cpu, &lr->lv)) != ST_OK) {
                rep_err(st, "level detection on %zu points", lr->curve.n);
                return st;
        }
        fill_meta(lr, inv);
        sets  = lat_sets_measure(r, &lr->cfg, &lr->lv);
        n_sec = rep_lat_remote_sections(r->numa_result, r->c2c_result, sec);
        if (sets)
                sec[n_sec++] = (struct lat_json_section){ rep_lat_sets_json, sets };
        if ((st = rep_lat_json(&json, &lr->meta, &lr->curve, &lr->lv, sec, n_sec)) != ST_OK ||
            (st = rep_lat_csv(&csv, &lr->curve)) != ST_OK) {
                rep_err(st, "formatting %s and %s", TABLE_FILE, CURVE_FILE);
                goto out;
        }
        report_levels(lr);
        lat_sets_report(sets);
        report_remote(r, &json);
        check_results(lr, &json, &csv);

        if ((r->levels = plat_alloc(sizeof(*r->levels))) != NULL)
                *r->levels = lr->lv;
        else
                rep_warn("no memory to keep the levels for later phases");
        run_add_file(r, TABLE_FILE, &json);
        run_add_file(r, CURVE_FILE, &csv);
out:
        plat_free(sets);
        rep_buf_free(&json);
        rep_buf_free(&csv);
        return st;
}

status_t phase_latency(struct run *r)
{
        const struct inventory *inv = r->inv;
        struct lat_run         *lr;
        status_t                st;

        if (!inv || inv->cpu_st != ST_OK) {
                rep_skip(REP_SKIP_ENV, "no decoded CPU from the inventory phase");
                return ST_UNSUPPORTED;
        }
        if ((unsigned)r->cfg.profile >= ARRAY_SIZE(plans) || !plans[r->cfg.profile].valid) {
                rep_skip(REP_SKIP_ENV, "profile does not calibrate latency");
                return ST_UNSUPPORTED;
        }
        if (!(lr = plat_alloc(sizeof(*lr))))
                return rep_err(ST_NO_MEM, "allocating the latency phase");
        sweep_config(lr, r);
        if ((st = sweep(lr, inv)) != ST_OK) {
                lat_pages_checks(&lr->pages); /* windows may have run under the own tables */
                if (st == ST_DISTURBED) {
                        rep_skip(REP_SKIP_ENV, "every point of the sweep left out: the timer "
                                 "disagreed with "
                                 "itself in every window (%s)",
                                 app_cpus_emulated(r) ? "an emulated CPU shares its host's cores"
                                                      : "interrupts, SMIs or a hypervisor took "
                                                        "time");
                        st = ST_UNSUPPORTED;
                } /* anything else reported by the runner */
        } else {
                print_method(lr);
                lat_pages_checks(&lr->pages);
                st = tabulate(r, lr, inv);
        }
        bench_sweep_free(&lr->curve);
        lat_pages_free(&lr->pages);
        plat_free(lr);
        return st;
}
