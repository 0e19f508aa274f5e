/** @file The latency sweep's points (see measure_priv.h): each working set's windows, taken
 *  in interleaved passes over the planned points so that a busy moment of a shared machine
 *  (another task's time slice, a neighbour thrashing the last-level cache) falls on a share
 *  of every point's windows instead of on all windows of a run of neighbouring points; more
 *  windows, in further interleaved rounds, only for the points whose median is not yet known
 *  within the target; refinement where the latency jumps; outliers measured again. The
 *  visits themselves are bench/measure_on.c's, which calls nothing here. */
#include "bench/measure_priv.h"

#include "lib/fmt.h"
#include "lib/log.h"
#include "lib/stats.h"

#define REFINE_ROUNDS       6u
#define OUTLIER_PERMILLE    50u    /* a point 5 % off both neighbours is measured again */
#define OUTLIER_TRIES       2u     /* at most twice more; the median of the tries is kept */

/* A jump worth refining: 8% and a quarter cycle. */
static const struct bench_refine_cfg refine_rule = {
        .jump_permille = 80,
        .jump_min_mcyc = 250,
        .line_bytes    = LINE_BYTES,
};

/* Whether the windows kept so far settle the point's median (the adaptive stop). */
static bool settled(struct sweep *s, const struct pstore *ps)
{
        struct lat_point pt;

        memcpy(s->scratch, ps->lat, ps->n * sizeof(*ps->lat));
        return bench_point_stats(s->scratch, ps->n, &pt) == ST_OK &&
               bench_point_settled(&pt, s->info->ci_permille);
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
 * when PROGRESS_S have gone by since the last one, with the time the passes over this set of
 * points still take at the rate so far (odd passes run forwards, even ones backwards; the
 * rounds after them, for points not yet settled, are not foreseen). */
static void progress(struct sweep *s, uint64_t ws, unsigned pass, unsigned passes, size_t k,
                     size_t n)
{
        uint64_t hz = s->info->clock.tsc_hz, now = bench_timer_now();
        uint64_t done = (uint64_t)(pass - 1) * n + (pass & 1 ? k + 1 : n - k);
        uint64_t all  = (uint64_t)passes * n, set_s;
        char     left[48] = "passes done, settling the last points";

        s->visits++;
        if (!hz || now - s->progress_at < PROGRESS_S * hz)
                return;
        s->progress_at = now;
        set_s          = (now - s->set_started) / hz;
        if (done < all)
                fmt_snprintf(left, sizeof(left), "about %llu s left",
                             (unsigned long long)(set_s * (all - done) / done));
        log_info("progress: point %zu of %zu (%llu bytes), pass %u of %u: %llu s so far, %s "
                 "(%zu point visits; the largest working set planned is %llu bytes; "
                 "sweep_max_mib sets it)", k + 1, n, (unsigned long long)ws, pass, passes,
                 (unsigned long long)((now - s->started) / hz), left, s->visits,
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
        s->set_started = bench_timer_now();
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
