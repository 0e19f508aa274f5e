/** @file
 * The NUMA phase's one measurement (see app/numa_priv.h): a processor chases one node's chain
 * through the windows of bench/chase_job.h, and the windows become p10/p50/p90 in ps. The
 * latency matrix (app/numa.c) and the loaded-latency curves (app/numa_loaded.c) both take
 * their points this way.
 */
#include "app/numa_priv.h"

#include "boot/mp.h"
#include "lib/stats.h"

status_t app_numa_chase(struct numa_run *s, unsigned cpu, void *chain,
                        struct bench_chase_job *j, uint64_t *p10_ps, uint64_t *p50_ps,
                        uint64_t *p90_ps)
{
        status_t st;

        *j = (struct bench_chase_job){ .start = chain, .clock = &s->clock, .guard = &s->guard,
                                       .want = s->windows, .target_us = s->window_us };
        if ((st = mp_run(cpu, bench_chase_job_run, j, JOB_TIMEOUT_US)) != ST_OK)
                return st;
        s->n_windows += j->n_kept + j->n_dropped;
        s->n_loads += (uint64_t)(j->n_kept + j->n_dropped) * 3 * j->iters; /* N + 2N per window */
        if (j->st != ST_OK)
                return j->st;
        lib_sort_u64(j->lat_mcyc, j->n_kept);
        /* clock x 1000 per load -> ps: x 10^9 / tsc_hz */
        uint64_t *out[3] = { p10_ps, p50_ps, p90_ps };
        unsigned  pct[3] = { 10, 50, 90 };
        for (unsigned k = 0; k < 3; k++)
                *out[k] = (uint64_t)((unsigned __int128)lib_pct_nearest_rank(j->lat_mcyc,
                                                                             j->n_kept, pct[k]) *
                                     1000000000ull / s->clock.tsc_hz);
        return ST_OK;
}
