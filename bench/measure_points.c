/** @file The latency sweep's points (see measure_priv.h): each working set's windows, taken
 *  in interleaved passes over the planned points so that a busy moment of a shared machine
 *  (another task's time slice, a neighbour thrashing the last-level cache) falls on a share
 *  of every point's windows instead of on all windows of a run of neighbouring points; more
 *  windows, in further interleaved rounds, only for the points whose median is not yet known
 *  within the target; refinement where the latency jumps; outliers measured again. */
#include "bench/measure_priv.h"

#include "lib/log.h"
#include "lib/stats.h"
#include "bench/kernel_chase.h"

#define ATTEMPTS_PER_KEPT   6u     /* windows tried per window kept, at most */
#define SLACK_TICKS         1024u  /* timer jitter the consistency check tolerates */
#define REFINE_ROUNDS       6u
#define WINDOW_TARGET_US    400u   /* a window's N + 2N runs, at most about this long */
#define MIN_ITERS           16u    /* 512 loads per N run at least */
#define OUTLIER_PERMILLE    50u    /* a point 5 % off both neighbours is measured again */
#define OUTLIER_TRIES       2u     /* at most twice more; the median of the tries is kept */

/* A jump worth refining: 8% and a quarter cycle. */
static const struct bench_refine_cfg refine_rule = {
        .jump_permille = 80,
        .jump_min_mcyc = 250,
        .line_bytes    = LINE_BYTES,
};

/* Warm-up: every line of the working set read once, in address order, at most warm_max_loads
 * lines. The chain covers every line of [0, ws) whatever its layout, so this leaves the same
 * lines (and pages) in the caches as a lap of the chain would, at streaming speed instead of
 * one dependent miss at a time: with three passes over the points, the warm-up laps took 86 %
 * of a hosted full sweep. Working sets beyond twice the largest cache cannot be warmed, so
 * they are not. */
static void warm(struct sweep *s, uint64_t ws)
{
        const volatile uint8_t *b = s->buf;
        uint64_t                n = ws / LINE_BYTES;

        if (s->no_warm_bytes && ws > s->no_warm_bytes)
                return;
        if (n > s->prof->warm_max_loads)
                n = s->prof->warm_max_loads;
        for (uint64_t i = 0; i < n; i++)
                (void)b[i * LINE_BYTES];
}

/* Windows under the caller's own page tables start with an empty TLB. */
static void set_refill(struct sweep *s, uint64_t ws)
{
        if (s->info->remapped)
                s->info->guard.hooks.refill_iters =
                        bench_refill_iters(ws, bench_page_bytes(s->info->page_used));
}

/* Whether the windows kept so far settle the point's median (the adaptive stop). */
static bool settled(struct sweep *s, const struct pstore *ps)
{
        struct lat_point pt;

        memcpy(s->scratch, ps->lat, ps->n * sizeof(*ps->lat));
        return bench_point_stats(s->scratch, ps->n, &pt) == ST_OK &&
               bench_point_settled(&pt, s->info->ci_permille);
}

/* Windows on the chain at *p until @p ps holds @p want kept ones (or s->lat_cap), trying at
 * most ATTEMPTS_PER_KEPT per missing one plus @p extra. Whatever disturbed a dropped window
 * (an interrupt, another task's time slice) may have evicted the working set, so the next
 * window starts after a fresh warm-up lap. @p ovh (optional) gets each kept window's
 * overhead. */
static status_t run_windows(struct sweep *s, void **p, uint64_t ws, struct pstore *ps,
                            size_t want, size_t extra, int64_t *ovh)
{
        struct bench_window w;
        uint64_t            n_loads  = ps->iters * BENCH_CHASE_UNROLL;
        size_t              missing  = want > ps->n ? want - ps->n : 0;
        size_t              attempts = missing * ATTEMPTS_PER_KEPT + extra;
        status_t            st;

        for (size_t a = 0; a < attempts && ps->n < s->lat_cap; a++) {
                if (ps->n >= want)
                        break;
                if ((st = bench_chase_window(p, ps->iters, &s->info->clock, &s->info->guard, &w)) !=
                    ST_OK)
                        return st;
                enum bench_disturb why = bench_window_check(&w, SLACK_TICKS);
                if (why != BENCH_WIN_OK) {
                        s->info->n_dropped_by[why]++;
                        s->info->n_disturbed++;
                        ps->dropped++;
                        warm(s, ws);
                        continue;
                }
                if ((st = bench_window_latency(&w, n_loads, &ps->lat[ps->n])) != ST_OK)
                        return st;
                if (bench_window_core_ppm(&w)) {
                        ps->core_sum += w.core_d;
                        ps->ref_sum += w.ref_d;
                }
                if (ovh)
                        ovh[ps->n] = bench_window_overhead_mcyc(&w);
                ps->n++;
        }
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

/* One visit of working set @p ws: its chain built and warmed, then windows as run_windows. */
status_t bench_sweep_visit_here(struct sweep *s, uint64_t ws, struct pstore *ps, size_t want,
                                size_t extra)
{
        struct bench_chain_cfg cc = { .layout = s->cfg->layout, .line_bytes = LINE_BYTES,
                                      .seed = s->cfg->seed ^ ws };
        void    *p;
        status_t st;

        if ((st = bench_chain_build(s->buf, ws, &cc, &p)) != ST_OK)
                return st;
        warm(s, ws);
        set_refill(s, ws);
        if (!ps->iters)
                ps->iters = window_iters(s, &p);
        return run_windows(s, &p, ws, ps, want, extra, NULL);
}

/* The point of a store; ST_DISTURBED when every window was disturbed. */
static status_t point_of(const struct sweep *s, const struct pstore *ps, uint64_t ws,
                         struct lat_point *pt)
{
        *pt = (struct lat_point){ .ws_bytes = ws, .n_measured = 1, .n_disturbed = ps->dropped };
        if (!ps->n)
                return ST_DISTURBED;
        if (ps->ref_sum) {
                uint64_t ppm = (uint64_t)(((unsigned __int128)ps->core_sum * 1000000u +
                                           ps->ref_sum / 2) / ps->ref_sum);
                uint64_t max = s->info->clock.core.ppm_max ? s->info->clock.core.ppm_max
                                                           : BENCH_CORE_PPM_MAX;
                pt->core_ppm = ppm >= BENCH_CORE_PPM_MIN && ppm <= max ? (uint32_t)ppm : 0;
        }
        return bench_point_stats(ps->lat, ps->n, pt);
}

/* Seconds between progress lines: a sweep that runs for minutes (a large sweep_max_mib under
 * an emulator) says where it is instead of looking hung. */
#define PROGRESS_S 30

/* After a visit to working set @p ws (pass @p pass of @p passes, point @p k of @p n): a line
 * when PROGRESS_S have gone by since the last one. */
static void progress(struct sweep *s, uint64_t ws, unsigned pass, unsigned passes, size_t k,
                     size_t n)
{
        uint64_t hz = s->info->clock.tsc_hz, now = bench_timer_now();

        s->visits++;
        if (!hz || now - s->progress_at < PROGRESS_S * hz)
                return;
        s->progress_at = now;
        log_info("still measuring: %llu s so far, %zu point visits; now %llu bytes, point %zu of "
                 "%zu in pass %u of %u (the largest working set planned is %llu bytes; "
                 "sweep_max_mib sets it)",
                 (unsigned long long)((now - s->started) / hz), s->visits,
                 (unsigned long long)ws, k + 1, n, pass, passes,
                 (unsigned long long)s->info->max_bytes);
}

/* Working sets @p ws[0..n) in SWEEP_PASSES interleaved passes (odd passes backwards), each
 * taking its share of the `repetitions` windows of every point (the last pass with the
 * attempts a point measured in one go had: max_windows more, for points many windows of
 * which were disturbed); then, while some points' medians are not known within the target,
 * rounds over those points only, `repetitions` more windows each (at most max_windows). A
 * point whose windows were all disturbed gets *ok false. */
static status_t measure_set(struct sweep *s, const uint64_t *ws, size_t n, struct lat_point *out,
                            bool *ok)
{
        struct pstore *ps  = plat_alloc((n ? n : 1) * sizeof(*ps));
        uint64_t      *lat = plat_alloc((n ? n : 1) * s->lat_cap * sizeof(*lat));
        size_t         reps = s->info->repetitions;
        status_t       st   = ps && lat ? ST_OK : ST_NO_MEM;

        for (size_t i = 0; st == ST_OK && i < n; i++)
                ps[i] = (struct pstore){ .lat = lat + i * s->lat_cap };
        for (unsigned pass = 0; st == ST_OK && pass < SWEEP_PASSES; pass++)
                for (size_t k = 0; st == ST_OK && k < n; k++) {
                        size_t i = pass & 1 ? n - 1 - k : k;
                        st = bench_sweep_visit(s, ws[i], &ps[i],
                                               reps * (pass + 1) / SWEEP_PASSES,
                                               pass + 1 == SWEEP_PASSES ? s->lat_cap : 0);
                        progress(s, ws[i], pass + 1, SWEEP_PASSES, i, n);
                }
        for (size_t round = 1; st == ST_OK && reps * round < s->lat_cap; round++) {
                bool more = false;
                for (size_t i = 0; st == ST_OK && i < n; i++) {
                        if (ps[i].n < reps * round || settled(s, &ps[i]))
                                continue;
                        more = true;
                        st   = bench_sweep_visit(s, ws[i], &ps[i], reps * (round + 1), 0);
                        progress(s, ws[i], SWEEP_PASSES, SWEEP_PASSES, i, n);
                }
                if (!more)
                        break;
        }
        for (size_t i = 0; st == ST_OK && i < n; i++) {
                status_t pst = point_of(s, &ps[i], ws[i], &out[i]);
                ok[i]        = pst == ST_OK;
                if (pst == ST_DISTURBED)
                        log_warn("working set %llu bytes: all %u windows disturbed, point left out",
                                 (unsigned long long)ws[i], ps[i].dropped);
                else if (pst != ST_OK)
                        st = pst;
        }
        plat_free(lat);
        plat_free(ps);
        return st;
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
        struct pstore    ps = { .lat = s->lat, .iters = s->prof->iters_per_run };
        void            *p;

        if (bench_chain_build(s->buf, ws, &cc, &p) != ST_OK)
                return;
        warm(s, ws);
        set_refill(s, ws);
        if (s->info->repetitions > ARRAY_SIZE(ovh))
                return; /* run_windows keeps `repetitions` figures here */
        if (run_windows(s, &p, ws, &ps, s->info->repetitions, s->lat_cap, ovh) != ST_OK || !ps.n)
                return;
        s->info->overhead_mcyc = median_i64(ovh, ps.n);
        ps = (struct pstore){ .lat = s->lat, .iters = 2ull * s->prof->iters_per_run };
        if (run_windows(s, &p, ws, &ps, s->info->repetitions, s->lat_cap, NULL) != ST_OK || !ps.n ||
            bench_point_stats(s->lat, ps.n, &twice) != ST_OK)
                return;
        /* min, not p50: the least disturbed window of each, so noise does not pass for it */
        s->info->residual_mcyc = (int64_t)base->min_mcyc - (int64_t)twice.min_mcyc;
}

/* Measure @p ws[0..n) (measure_set) and insert the points into the curve; a point whose
 * every window was disturbed is left out (and said so), not made up. */
static status_t add_points(struct sweep *s, struct lat_curve *c, size_t cap, const uint64_t *ws,
                           size_t n)
{
        struct lat_point *pts = plat_alloc((n ? n : 1) * sizeof(*pts));
        bool             *ok  = plat_alloc((n ? n : 1) * sizeof(*ok));
        status_t          st  = pts && ok ? measure_set(s, ws, n, pts, ok) : ST_NO_MEM;

        for (size_t i = 0; st == ST_OK && i < n; i++)
                if (ok[i])
                        st = bench_curve_insert(c->pts, &c->n, cap, &pts[i]);
        if (st == ST_OK && c->n && !s->overhead_done) {
                s->overhead_done = true;
                bench_sweep_overhead(s, c->pts[0].ws_bytes, &c->pts[0]);
        }
        plat_free(pts);
        plat_free(ok);
        return st;
}

/* Measure each outlier point again (bench_point_outlier) up to OUTLIER_TRIES times and keep
 * the try whose p50 is the median of the tries: a window series a neighbour's time slice
 * shifted is not kept for being first, nor replaced for disagreeing with its neighbours. */
static status_t remeasure_outliers(struct sweep *s, struct lat_curve *c)
{
        for (size_t i = 1; i + 1 < c->n; i++) {
                struct lat_point tries[1 + OUTLIER_TRIES];
                uint64_t         ws[OUTLIER_TRIES];
                bool             ok[OUTLIER_TRIES];
                size_t           n = 1;
                status_t         st;

                if (!bench_point_outlier(c->pts, c->n, i, OUTLIER_PERMILLE))
                        continue;
                tries[0] = c->pts[i];
                for (unsigned t = 0; t < OUTLIER_TRIES; t++)
                        ws[t] = c->pts[i].ws_bytes;
                /* the tries interleaved too: one busy moment does not make both */
                if ((st = measure_set(s, ws, OUTLIER_TRIES, &tries[1], ok)) != ST_OK)
                        return st;
                for (unsigned t = 0; t < OUTLIER_TRIES; t++)
                        if (ok[t])
                                tries[n++] = tries[1 + t];
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

status_t bench_sweep_points(struct sweep *s, struct lat_curve *c, size_t cap)
{
        struct bench_refine_cfg rule = refine_rule;
        uint64_t               *ws = plat_alloc(cap * sizeof(*ws));
        size_t                  n_ws, budget = s->prof->max_refine_points;
        status_t                st;

        if (!ws)
                return ST_NO_MEM;
        s->info->passes = SWEEP_PASSES;
        st = bench_plan_sweep(s->prof->min_bytes, s->info->max_bytes, s->prof->steps_per_octave,
                              LINE_BYTES, ws, cap, &n_ws);
        s->info->n_planned = n_ws;
        s->started = s->progress_at = bench_timer_now();
        if (st == ST_OK)
                log_info("measuring %zu working sets from %llu to %llu bytes (%llu asked, 0 = "
                         "automatic); a line every %u s while it runs", n_ws,
                         (unsigned long long)s->prof->min_bytes,
                         (unsigned long long)s->info->max_bytes,
                         (unsigned long long)s->cfg->max_bytes, PROGRESS_S);
        if (st == ST_OK)
                st = add_points(s, c, cap, ws, n_ws);

        rule.fine_steps_per_octave = s->prof->fine_steps_per_octave;
        for (unsigned round = 0; st == ST_OK && round < REFINE_ROUNDS && budget; round++) {
                size_t n_new = bench_plan_refine(c->pts, c->n, &rule, ws, budget);
                if (!n_new)
                        break;
                st = add_points(s, c, cap, ws, n_new);
                budget -= n_new;
                s->info->n_refined += n_new;
        }
        if (st == ST_OK)
                st = remeasure_outliers(s, c);
        plat_free(ws);
        return st;
}
