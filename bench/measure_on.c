/** @file The latency sweep's CPU work (see bench/measure_priv.h): a visit of a point (its
 *  chain laid and warmed, then windows), the N/2N overhead figures and the prefetcher switch,
 *  each handed as one job to the sweep's run_on, which runs it on the CPU the config chose or,
 *  by default, on the caller's. The leaf of the sweep: it calls nothing in measure.c or
 *  measure_points.c. */
#include "bench/measure_priv.h"

#include "lib/stats.h"
#include "bench/kernel_chase.h"

#define ATTEMPTS_PER_KEPT   6u     /* windows tried per window kept, at most */
#define SLACK_TICKS         1024u  /* timer jitter the consistency check tolerates */
#define WINDOW_TARGET_US    400u   /* a window's N + 2N runs, at most about this long */
#define MIN_ITERS           16u    /* 512 loads per N run at least */

enum job_kind { JOB_VISIT, JOB_OVERHEAD, JOB_PREFETCH_OFF, JOB_PREFETCH_RESTORE };

/* One piece of CPU work for the sweep's run_on: what it needs and what it returns. */
struct job {
        enum job_kind           kind;
        struct sweep           *s;
        uint64_t                ws;
        struct pstore          *ps;
        size_t                  want, extra;
        const struct lat_point *base;
        const struct cpu_info  *cpu;
        status_t                st;
};

uint64_t bench_page_bytes(enum plat_page_kind k)
{
        return k == PLAT_PAGE_1G ? GiB : k == PLAT_PAGE_2M ? 2 * MiB : 4 * KiB;
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

/* Warm-up: every line of the working set read once, in address order, at most warm_max_loads
 * lines. The chain covers every line of [0, ws) whatever its layout, so this leaves the same
 * lines (and pages) in the caches as a lap of the chain would, at streaming speed instead of
 * one dependent miss at a time: with three passes over the points, the warm-up laps took 86 %
 * of a hosted full sweep. Working sets beyond twice the largest cache cannot be warmed, so
 * they are not. */
static void warm(struct sweep *s, uint64_t ws)
{
        const volatile uint8_t *b = s->cb.buf;
        uint64_t                n = ws / LINE_BYTES;

        if (s->no_warm_bytes && ws > s->no_warm_bytes)
                return;
        if (n > s->prof->warm_max_loads)
                n = s->prof->warm_max_loads;
        for (uint64_t i = 0; i < n; i++)
                (void)b[i * LINE_BYTES];
}

/* The chain of working set @p ws laid, warmed, and (windows under the caller's own page
 * tables start with an empty TLB) the refill set for it. */
static status_t chain_ready(struct sweep *s, uint64_t ws, void **p)
{
        struct bench_chain_cfg cc = { .layout = s->cfg->layout, .line_bytes = LINE_BYTES,
                                      .seed = s->cfg->seed ^ ws };
        status_t st;

        if ((st = bench_chase_buf_lay(&s->cb, ws, &cc)) != ST_OK)
                return st;
        *p = s->cb.start;
        warm(s, ws);
        if (s->info->remapped)
                s->info->guard.hooks.refill_iters =
                        bench_refill_iters(ws, bench_page_bytes(s->info->page_used));
        return ST_OK;
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

/* One visit of working set @p ws: its chain laid and warmed, then windows as run_windows. */
static status_t visit(struct sweep *s, uint64_t ws, struct pstore *ps, size_t want,
                      size_t extra)
{
        void    *p;
        status_t st;

        if ((st = chain_ready(s, ws, &p)) != ST_OK)
                return st;
        if (!ps->iters)
                ps->iters = window_iters(s, &p);
        return run_windows(s, &p, ws, ps, want, extra, NULL);
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
static void overhead(struct sweep *s, uint64_t ws, const struct lat_point *base)
{
        int64_t          ovh[64];
        struct lat_point twice;
        struct pstore    ps = { .lat = s->lat, .iters = s->prof->iters_per_run };
        void            *p;

        if (chain_ready(s, ws, &p) != ST_OK)
                return;
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

/* The job, on the CPU run_on chose. */
static void job_run(void *arg)
{
        struct job   *j = arg;
        struct sweep *s = j->s;

        switch (j->kind) {
        case JOB_VISIT:
                j->st = visit(s, j->ws, j->ps, j->want, j->extra);
                break;
        case JOB_OVERHEAD:
                overhead(s, j->ws, j->base);
                j->st = ST_OK;
                break;
        case JOB_PREFETCH_OFF:
                prefetch_disable(j->cpu, s->cfg->prefetchers_off, &s->info->prefetch);
                j->st = ST_OK;
                break;
        case JOB_PREFETCH_RESTORE:
                j->st = prefetch_restore(&s->info->prefetch);
                break;
        }
}

/* The one path to the CPU: run_on's status when it could not run the job (ST_TIMEOUT when
 * it said ST_OK without running it), else the job's. */
static status_t on_cpu(struct job *j)
{
        status_t st;

        j->st = ST_TIMEOUT;
        if ((st = j->s->run_on(j->s->run_on_ctx, job_run, j)) != ST_OK)
                return st;
        return j->st;
}

status_t bench_sweep_visit(struct sweep *s, uint64_t ws, struct pstore *ps, size_t want,
                           size_t extra)
{
        struct job j = { .kind = JOB_VISIT, .s = s, .ws = ws, .ps = ps, .want = want,
                         .extra = extra };

        return on_cpu(&j);
}

void bench_sweep_overhead(struct sweep *s, uint64_t ws, const struct lat_point *base)
{
        struct job j = { .kind = JOB_OVERHEAD, .s = s, .ws = ws, .base = base };

        (void)on_cpu(&j);
}

void bench_sweep_prefetch_off(struct sweep *s, const struct cpu_info *cpu)
{
        struct job j = { .kind = JOB_PREFETCH_OFF, .s = s, .cpu = cpu };

        if (on_cpu(&j) != ST_OK)
                s->info->prefetch.state = PREFETCH_UNSUPPORTED;
}

status_t bench_sweep_prefetch_restore(struct sweep *s)
{
        struct job j = { .kind = JOB_PREFETCH_RESTORE, .s = s };

        return on_cpu(&j);
}
