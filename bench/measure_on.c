/** @file The latency sweep's CPU work on the CPU bench_sweep_cfg.run_on names (see
 *  bench/measure_priv.h): a visit of a point, the overhead figures, the prefetcher switch. */
#include "bench/measure_priv.h"

/* One piece of CPU work for cfg->run_on: a visit, the overhead figures, the prefetchers. */
struct remote_job {
        struct sweep           *s;
        uint64_t                ws;
        struct pstore          *ps;
        size_t                  want, extra;
        const struct lat_point *base;
        const struct cpu_info  *cpu;
        status_t                st;
};

static void job_visit(void *arg)
{
        struct remote_job *j = arg;

        j->st = bench_sweep_visit_here(j->s, j->ws, j->ps, j->want, j->extra);
}

/* A visit of a point on the CPU the config chose (the caller's by default). */
status_t bench_sweep_visit(struct sweep *s, uint64_t ws, struct pstore *ps, size_t want,
                           size_t extra)
{
        struct remote_job j = { .s = s, .ws = ws, .ps = ps, .want = want, .extra = extra,
                                .st = ST_TIMEOUT };
        status_t          st;

        if (!s->cfg->run_on)
                return bench_sweep_visit_here(s, ws, ps, want, extra);
        if ((st = s->cfg->run_on(s->cfg->run_on_ctx, job_visit, &j)) != ST_OK)
                return st;
        return j.st;
}

static void job_overhead(void *arg)
{
        struct remote_job *j = arg;

        bench_sweep_overhead_here(j->s, j->ws, j->base);
}

void bench_sweep_overhead(struct sweep *s, uint64_t ws, const struct lat_point *base)
{
        struct remote_job j = { .s = s, .ws = ws, .base = base };

        if (!s->cfg->run_on)
                bench_sweep_overhead_here(s, ws, base);
        else
                s->cfg->run_on(s->cfg->run_on_ctx, job_overhead, &j);
}

static void job_prefetch_off(void *arg)
{
        struct remote_job *j = arg;

        bench_prefetch_disable(j->cpu, j->s->cfg->prefetchers_off, &j->s->info->prefetch);
}

static void job_prefetch_restore(void *arg)
{
        struct remote_job *j = arg;

        j->st = bench_prefetch_restore(&j->s->info->prefetch);
}

/* The prefetchers of the CPU the windows run on: turned off as the config asks, and back. */
void bench_sweep_prefetch_off(struct sweep *s, const struct cpu_info *cpu)
{
        struct remote_job j = { .s = s, .cpu = cpu };

        if (!s->cfg->run_on)
                bench_prefetch_disable(cpu, s->cfg->prefetchers_off, &s->info->prefetch);
        else if (s->cfg->run_on(s->cfg->run_on_ctx, job_prefetch_off, &j) != ST_OK)
                s->info->prefetch.state = BENCH_PF_UNSUPPORTED;
}

status_t bench_sweep_prefetch_restore(struct sweep *s)
{
        struct remote_job j = { .s = s, .st = ST_TIMEOUT };
        status_t          st;

        if (!s->cfg->run_on)
                return bench_prefetch_restore(&s->info->prefetch);
        if ((st = s->cfg->run_on(s->cfg->run_on_ctx, job_prefetch_restore, &j)) != ST_OK)
                return st;
        return j.st;
}

