/** @file The latency sweep runner (see measure.h). */
#include "bench/measure.h"
#include "bench/measure_priv.h"

#include "lib/log.h"
#include "lib/stats.h"
#include "bench/kernel_chase.h"

#define LINE_BYTES          64u
#define CLOCK_CALIB_US      5000u  /* five clean 1 ms stalls */
#define ATTEMPTS_PER_KEPT   6u     /* windows tried per window kept, at most */
#define SLACK_TICKS         1024u  /* timer jitter the consistency check tolerates */
#define REFINE_ROUNDS       6u
#define MIN_FALLBACK_BYTES  (4 * MiB)
#define WINDOW_TARGET_US    400u   /* a window's N + 2N runs, at most about this long */
#define MIN_ITERS           16u    /* 512 loads per N run at least */
#define CI_PERMILLE         10u    /* a point's median known within +/- 1 % (95 % confidence) */
#define MAX_WINDOWS_FACTOR  4u     /* ... or at most 4 x repetitions windows kept */
#define OUTLIER_PERMILLE    50u    /* a point 5 % off both neighbours is measured again */
#define OUTLIER_TRIES       2u     /* at most twice more; the median of the tries is kept */

/* A jump worth refining: 8% and a quarter cycle. */
static const struct bench_refine_cfg refine_rule = {
        .jump_permille = 80,
        .jump_min_mcyc = 250,
        .line_bytes    = LINE_BYTES,
};

static const char *const page_names[] = {
        [PLAT_PAGE_4K] = "4k",
        [PLAT_PAGE_2M] = "2m",
        [PLAT_PAGE_1G] = "1g",
};


static uint64_t page_bytes(enum plat_page_kind k)
{
        return k == PLAT_PAGE_1G ? GiB : k == PLAT_PAGE_2M ? 2 * MiB : 4 * KiB;
}

/* Warm-up lap on the chain at *p: the whole working set, at most warm_max_loads. Working
 * sets beyond twice the largest cache cannot be warmed, so they are not. */
static void warm(struct sweep *s, void **p, uint64_t ws)
{
        uint64_t n = ws / LINE_BYTES;

        if (s->no_warm_bytes && ws > s->no_warm_bytes)
                return;
        if (n > s->prof->warm_max_loads)
                n = s->prof->warm_max_loads;
        *p = bench_chase(*p, n / BENCH_CHASE_UNROLL + 1);
}

/* Windows under the caller's own page tables start with an empty TLB. */
static void set_refill(struct sweep *s, uint64_t ws)
{
        if (s->info->remapped)
                s->info->guard.hooks.refill_iters =
                        bench_refill_iters(ws, page_bytes(s->info->page_used));
}

/* Whether the windows kept so far settle the point's median (the adaptive stop). */
static bool settled(struct sweep *s, size_t kept)
{
        struct lat_point pt;

        memcpy(s->scratch, s->lat, kept * sizeof(*s->lat));
        return bench_point_stats(s->scratch, kept, &pt) == ST_OK &&
               bench_point_settled(&pt, s->info->ci_permille);
}

/* Windows on the chain at *p: `repetitions` kept ones, then (@p adaptive) more until the
 * median is known within ci_permille or max_windows are kept; latencies into s->lat, the core
 * source's deltas of the kept windows into s->core_sum / ref_sum. Whatever disturbed a dropped
 * window (an interrupt, another task's time slice) may have evicted the working set, so the
 * next window starts after a fresh warm-up lap. */
static status_t run_windows(struct sweep *s, void **p, uint64_t ws, uint64_t iters, bool adaptive,
                            size_t *n_kept, uint32_t *n_dropped, int64_t *ovh)
{
        struct bench_window w;
        uint64_t            n_loads = iters * BENCH_CHASE_UNROLL;
        size_t              kept = 0, want = s->info->repetitions;
        size_t              attempts = (size_t)want * ATTEMPTS_PER_KEPT + s->lat_cap;
        uint32_t            dropped = 0;
        status_t            st;

        s->core_sum = s->ref_sum = 0;
        for (size_t a = 0; a < attempts && kept < s->lat_cap; a++) {
                if (kept >= want && (!adaptive || settled(s, kept)))
                        break;
                if ((st = bench_chase_window(p, iters, &s->info->clock, &s->info->guard, &w)) !=
                    ST_OK)
                        return st;
                enum bench_disturb why = bench_window_check(&w, SLACK_TICKS);
                if (why != BENCH_WIN_OK) {
                        s->info->n_dropped_by[why]++;
                        s->info->n_disturbed++;
                        dropped++;
                        warm(s, p, ws);
                        continue;
                }
                if ((st = bench_window_latency(&w, n_loads, &s->lat[kept])) != ST_OK)
                        return st;
                if (bench_window_core_ppm(&w)) {
                        s->core_sum += w.core_d;
                        s->ref_sum += w.ref_d;
                }
                if (ovh)
                        ovh[kept] = bench_window_overhead_mcyc(&w);
                kept++;
        }
        *n_kept    = kept;
        *n_dropped = dropped;
        return ST_OK;
}

/* Iterations per N run for this working set: the profile's N, shortened so that a window
 * (N + 2N loads) stays near WINDOW_TARGET_US. Short windows are rarely hit by an interrupt
 * or a time slice where those cannot be masked (hosted), and DRAM points finish quickly. */
static uint64_t window_iters(struct sweep *s, void **p)
{
        struct bench_window w;
        uint64_t            iters = s->prof->iters_per_run, target, per_iter;

        if (!s->info->clock.tsc_hz ||
            bench_chase_window(p, MIN_ITERS, &s->info->clock, &s->info->guard, &w) != ST_OK ||
            w.t_2n <= w.t_n)
                return iters;
        per_iter = (w.t_2n - w.t_n) / MIN_ITERS;
        target   = s->info->clock.tsc_hz / 1000000 * WINDOW_TARGET_US / 3;
        if (per_iter && target / per_iter < iters)
                iters = target / per_iter;
        return iters < MIN_ITERS ? MIN_ITERS : iters;
}

status_t bench_sweep_point_here(struct sweep *s, uint64_t ws, struct lat_point *pt)
{
        struct bench_chain_cfg cc = { .layout = s->cfg->layout, .line_bytes = LINE_BYTES,
                                      .seed = s->cfg->seed ^ ws };
        uint32_t n_dropped;
        size_t   n_kept;
        void    *p;
        status_t st;

        if ((st = bench_chain_build(s->buf, ws, &cc, &p)) != ST_OK)
                return st;
        warm(s, &p, ws);
        set_refill(s, ws);

        *pt = (struct lat_point){ .ws_bytes = ws, .n_measured = 1 };
        if ((st = run_windows(s, &p, ws, window_iters(s, &p), true, &n_kept, &n_dropped, NULL)) !=
            ST_OK)
                return st;
        pt->n_disturbed = n_dropped;
        if (!n_kept)
                return ST_DISTURBED; /* every window disturbed */
        if (s->ref_sum) {
                uint64_t ppm = (uint64_t)(((unsigned __int128)s->core_sum * 1000000u +
                                           s->ref_sum / 2) / s->ref_sum);
                uint64_t max = s->info->clock.core.ppm_max ? s->info->clock.core.ppm_max
                                                           : BENCH_CORE_PPM_MAX;
                pt->core_ppm = ppm >= BENCH_CORE_PPM_MIN && ppm <= max ? (uint32_t)ppm : 0;
        }
        return bench_point_stats(s->lat, n_kept, pt);
}

/* Median of the signed @p v[0..n), n > 0, sorted in place by the one unsigned sort: flipping
 * the sign bit maps int64_t onto uint64_t in the same order. */
static int64_t median_i64(int64_t *v, size_t n)
{
        uint64_t *u = (uint64_t *)v;

        for (size_t i = 0; i < n; i++)
                u[i] ^= 1ull << 63;
        lib_sort_u64(u, n);
        return (int64_t)(u[n / 2] ^ (1ull << 63));
}

/* Overhead figures at the smallest working set: what N/2N removes and what it leaves. */
void bench_sweep_overhead_here(struct sweep *s, uint64_t ws, const struct lat_point *base)
{
        struct bench_chain_cfg cc = { .layout = s->cfg->layout, .line_bytes = LINE_BYTES,
                                      .seed = s->cfg->seed ^ ws };
        int64_t          ovh[64];
        struct lat_point twice;
        uint32_t         dropped;
        size_t           kept;
        void            *p;

        if (bench_chain_build(s->buf, ws, &cc, &p) != ST_OK)
                return;
        warm(s, &p, ws);
        set_refill(s, ws);
        if (s->info->repetitions > ARRAY_SIZE(ovh))
                return; /* run_windows keeps `repetitions` figures when not adaptive */
        if (run_windows(s, &p, ws, s->prof->iters_per_run, false, &kept, &dropped, ovh) != ST_OK ||
            !kept)
                return;
        s->info->overhead_mcyc = median_i64(ovh, kept);
        if (run_windows(s, &p, ws, 2ull * s->prof->iters_per_run, false, &kept, &dropped, NULL) !=
            ST_OK ||
            !kept || bench_point_stats(s->lat, kept, &twice) != ST_OK)
                return;
        /* min, not p50: the least disturbed window of each, so noise does not pass for it */
        s->info->residual_mcyc = (int64_t)base->min_mcyc - (int64_t)twice.min_mcyc;
}

/* Measure @p ws and insert it into the curve. A point whose every window was disturbed is
 * left out (and said so), not made up. */
static status_t add_point(struct sweep *s, struct lat_curve *c, size_t cap, uint64_t ws)
{
        struct lat_point pt;
        status_t         st = bench_sweep_point(s, ws, &pt);

        if (st == ST_DISTURBED) {
                log_warn("working set %llu bytes: all %zu windows disturbed, point left out",
                         (unsigned long long)ws, s->lat_cap);
                return ST_OK;
        }
        if (st == ST_OK)
                st = bench_curve_insert(c->pts, &c->n, cap, &pt);
        if (st == ST_OK && c->n == 1 && !s->overhead_done) {
                s->overhead_done = true;
                bench_sweep_overhead(s, ws, &pt);
        }
        return st;
}

/* Measure each outlier point again (bench_point_outlier) up to OUTLIER_TRIES times and keep
 * the try whose p50 is the median of the tries: a window series a neighbour's time slice
 * shifted is not kept for being first, nor replaced for disagreeing with its neighbours. */
static status_t remeasure_outliers(struct sweep *s, struct lat_curve *c)
{
        for (size_t i = 1; i + 1 < c->n; i++) {
                struct lat_point tries[1 + OUTLIER_TRIES];
                size_t           n = 1;
                status_t         st;

                if (!bench_point_outlier(c->pts, c->n, i, OUTLIER_PERMILLE))
                        continue;
                tries[0] = c->pts[i];
                for (unsigned t = 0; t < OUTLIER_TRIES; t++) {
                        st = bench_sweep_point(s, c->pts[i].ws_bytes, &tries[n]);
                        if (st == ST_DISTURBED)
                                continue;
                        if (st != ST_OK)
                                return st;
                        n++;
                }
                s->info->n_remeasured++;
                /* the median of n <= 3 tries by p50 */
                size_t k = 0;
                if (n == 3) {
                        uint64_t a = tries[0].p50_mcyc, b = tries[1].p50_mcyc,
                                 d = tries[2].p50_mcyc;
                        k = (a <= b) == (b <= d) ? 1 : (b <= a) == (a <= d) ? 0 : 2;
                } else if (n == 2) {
                        k = 1; /* the fresh one: the first was flagged */
                }
                c->pts[i]            = tries[k];
                c->pts[i].n_measured = (uint32_t)n;
        }
        return ST_OK;
}

/* The curve's core clock: the median and range of the points' ratios. */
static void curve_clock(const struct bench_clock *clk, struct lat_curve *c)
{
        uint64_t *r = plat_alloc((c->n ? c->n : 1) * sizeof(*r));
        size_t    n = 0;

        c->core_source = clk->core.name;
        c->core_why    = clk->core.name ? NULL : clk->core.why_none;
        c->timer       = clk->timer;
        for (size_t i = 0; r && i < c->n; i++)
                if (c->pts[i].core_ppm)
                        r[n++] = c->pts[i].core_ppm;
        if (n) {
                lib_sort_u64(r, n);
                c->core_ppm    = (uint32_t)r[(n - 1) / 2];
                c->core_ppm_lo = (uint32_t)r[0];
                c->core_ppm_hi = (uint32_t)r[n - 1];
                c->core_hz = (uint64_t)(((unsigned __int128)c->tsc_hz * c->core_ppm + 500000u) /
                                        1000000u);
        } else if (clk->core.name) {
                c->core_why = "the core clock source gave no usable ratio in any window";
        }
        plat_free(r);
}

static status_t sweep_points(struct sweep *s, struct lat_curve *c, size_t cap)
{
        struct bench_refine_cfg rule = refine_rule;
        uint64_t               *ws = plat_alloc(cap * sizeof(*ws));
        size_t                  n_ws, budget = s->prof->max_refine_points;
        status_t                st;

        if (!ws)
                return ST_NO_MEM;
        st = bench_plan_sweep(s->prof->min_bytes, s->info->max_bytes, s->prof->steps_per_octave,
                              LINE_BYTES, ws, cap, &n_ws);
        s->info->n_planned = n_ws;
        for (size_t i = 0; st == ST_OK && i < n_ws; i++)
                st = add_point(s, c, cap, ws[i]);

        rule.fine_steps_per_octave = s->prof->fine_steps_per_octave;
        for (unsigned round = 0; st == ST_OK && round < REFINE_ROUNDS && budget; round++) {
                size_t n_new = bench_plan_refine(c->pts, c->n, &rule, ws, budget);
                if (!n_new)
                        break;
                for (size_t i = 0; st == ST_OK && i < n_new; i++)
                        st = add_point(s, c, cap, ws[i]);
                budget -= n_new;
                s->info->n_refined += n_new;
        }
        if (st == ST_OK)
                st = remeasure_outliers(s, c);
        plat_free(ws);
        return st;
}

/* The sweep's settings: repetitions and window caps, the guard and the clock, and the largest
 * working set the memory and the profile allow. */
static void sweep_setup(const struct bench_sweep_cfg *cfg, const struct cpu_info *cpu,
                        struct sweep *s, struct bench_sweep_info *info)
{
        struct plat_mem_summary mem = { 0 };
        uint64_t                cap_bytes;

        *info = (struct bench_sweep_info){ 0 };
        info->repetitions   = cfg->repetitions < BENCH_MIN_REPETITIONS ? BENCH_MIN_REPETITIONS
                                                                       : cfg->repetitions;
        info->loads_per_run = s->prof->iters_per_run * BENCH_CHASE_UNROLL;
        info->ci_permille   = cfg->ci_permille ? cfg->ci_permille : CI_PERMILLE;
        info->max_windows   = cfg->max_windows ? cfg->max_windows
                                               : info->repetitions * MAX_WINDOWS_FACTOR;
        if (info->max_windows < info->repetitions)
                info->max_windows = info->repetitions;

        bench_guard_init(&info->guard, cpu);
        info->guard.steal_count = cfg->steal_count;
        info->guard.steal_ctx   = cfg->steal_ctx;
        if (cfg->clock)
                info->clock = *cfg->clock;
        else
                bench_clock_init(&info->clock, cpu, CLOCK_CALIB_US, &info->guard);

        cap_bytes = s->prof->max_bytes_cap;
        if (cfg->max_bytes && (!cap_bytes || cfg->max_bytes < cap_bytes))
                cap_bytes = cfg->max_bytes;
        if (plat_mem_map(&mem, NULL, 0, NULL) != ST_OK)
                mem.conventional_bytes = 0;
        info->max_bytes = bench_plan_max_bytes(cpu, mem.conventional_bytes / 2, cap_bytes);
        s->no_warm_bytes = bench_plan_max_bytes(cpu, 0, 0) / 2; /* 4x largest / 2 */

}

/* One buffer for the whole sweep (halving the range when the memory is not there), mapped with
 * the page size asked for where the caller can remap it. */
static status_t sweep_buffer(const struct bench_sweep_cfg *cfg, struct sweep *s,
                             struct bench_sweep_info *info, uint64_t *buf_bytes_out)
{
        uint64_t buf_bytes;
        status_t st;

        for (;;) {
                buf_bytes = (info->max_bytes + page_bytes(cfg->page) - 1) /
                            page_bytes(cfg->page) * page_bytes(cfg->page);
                st = plat_alloc_pages(buf_bytes, cfg->page, (void **)&s->buf, &info->page_got);
                if (st != ST_NO_MEM || info->max_bytes <= MIN_FALLBACK_BYTES)
                        break;
                info->max_bytes /= 2;
        }
        if (st != ST_OK)
                return log_err(st, "allocating %llu bytes for the sweep",
                               (unsigned long long)buf_bytes);
        /* Asked and obtained differ (the firmware's identity map decides): the caller may map
         * the buffer as asked in tables of its own, switched inside each window. */
        info->page_used = info->page_got;
        if (cfg->remap && info->page_got != cfg->page) {
                if (cfg->remap(cfg->remap_ctx, s->buf, buf_bytes, cfg->page, info->page_got,
                               &info->guard.hooks) == ST_OK && info->guard.hooks.enter) {
                        info->page_used = cfg->page;
                        info->remapped  = true;
                } else {
                        info->guard.hooks = (struct bench_window_hooks){ 0 };
                }
        }

        *buf_bytes_out = buf_bytes;
        return ST_OK;
}

status_t bench_sweep_run(const struct bench_sweep_cfg *cfg, const struct cpu_info *cpu,
                         struct lat_curve *out, struct bench_sweep_info *info)
{
        struct sweep s = { .cfg = cfg, .info = info };
        uint64_t     buf_bytes = 0;
        size_t       cap;
        status_t     st;

        if (!cfg || !out || !info || !(s.prof = bench_profile_desc(cfg->profile)) ||
            (unsigned)cfg->layout >= BENCH_LAYOUT__COUNT || (unsigned)cfg->page > PLAT_PAGE_1G)
                return ST_BAD_ARG;
        *out = (struct lat_curve){ 0 };
        sweep_setup(cfg, cpu, &s, info);
        if ((st = sweep_buffer(cfg, &s, info, &buf_bytes)) != ST_OK)
                return st;
        cap       = 64u * 16u + s.prof->max_refine_points; /* 16 octaves of up to 64 steps */
        s.lat_cap = info->max_windows;
        out->pts  = plat_alloc(cap * sizeof(*out->pts));
        s.lat     = plat_alloc(s.lat_cap * sizeof(*s.lat));
        s.scratch = plat_alloc(s.lat_cap * sizeof(*s.scratch));
        if (!out->pts || !s.lat || !s.scratch) {
                st = ST_NO_MEM;
                goto done;
        }
        bench_sweep_prefetch_off(&s, cpu);
        st = sweep_points(&s, out, cap);
        if (st == ST_OK && !out->n)
                st = ST_DISTURBED; /* every point disturbed throughout */
        if (bench_sweep_prefetch_restore(&s) != ST_OK)
                log_warn("could not restore MSR 0x%x to 0x%llx", (unsigned)info->prefetch.msr,
                         (unsigned long long)info->prefetch.saved);

        for (size_t i = 0; i < out->n; i++)
                info->n_settled += bench_point_settled(&out->pts[i], info->ci_permille);
        out->clock  = LAT_CLOCK_TSC; /* windows are timed in TSC ticks */
        out->tsc_hz = info->clock.tsc_hz;
        curve_clock(&info->clock, out);
done:
        plat_free(s.lat);
        plat_free(s.scratch);
        plat_free_pages(s.buf, buf_bytes);
        if (st != ST_OK) {
                bench_sweep_free(out);
                if (st == ST_DISTURBED) /* not a fault: the caller says what was left out */
                        return st;
                return log_err(st, "sweep (%s, %s layout)", s.prof->name,
                               bench_layout_name(cfg->layout));
        }
        return ST_OK;
}

void bench_sweep_free(struct lat_curve *c)
{
        if (!c)
                return;
        plat_free(c->pts);
        c->pts = NULL;
        c->n   = 0;
}

uint64_t bench_refill_iters(uint64_t ws_bytes, uint64_t page_bytes)
{
        uint64_t pages, loads, lap = ws_bytes / LINE_BYTES;

        if (!page_bytes)
                return 1;
        pages = (ws_bytes + page_bytes - 1) / page_bytes;
        if (pages > BENCH_REFILL_MAX_PAGES)
                pages = BENCH_REFILL_MAX_PAGES;
        loads = pages * BENCH_REFILL_LOADS_PER_PAGE;
        if (loads > lap)
                loads = lap;
        return loads / BENCH_CHASE_UNROLL + 1;
}

const char *bench_page_name(enum plat_page_kind k)
{
        return (unsigned)k < ARRAY_SIZE(page_names) ? page_names[k] : "unknown";
}
