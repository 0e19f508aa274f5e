/** @file Chase windows on whichever processor runs the job (see chase_job.h). */
#include "bench/chase_job.h"

#include "bench/kernel_chase.h"

#define MIN_ITERS   16u
#define MAX_ITERS   (1u << 20)
#define SLACK_TICKS 1024u
#define TRIES_PER_KEPT 4u

/* Iterations per N run so that N + 2N runs last about target_us. */
static uint64_t size_iters(struct bench_chase_job *j, void **p)
{
        struct bench_window w;
        uint64_t            per_iter, target, iters;

        if (!j->clock->tsc_hz ||
            bench_chase_window(p, MIN_ITERS, j->clock, j->guard, &w) != ST_OK || w.t_2n <= w.t_n)
                return MIN_ITERS;
        per_iter = (w.t_2n - w.t_n) / MIN_ITERS;
        target   = j->clock->tsc_hz / 1000000 * j->target_us / 3;
        iters    = per_iter ? target / per_iter : MAX_ITERS;
        return iters < MIN_ITERS ? MIN_ITERS : iters > MAX_ITERS ? MAX_ITERS : iters;
}

void bench_chase_job_run(void *arg)
{
        struct bench_chase_job *j = arg;
        struct bench_window     w;
        void                   *p = j->start;
        uint32_t                want = j->want < BENCH_JOB_MAX_WINDOWS ? j->want
                                                                       : BENCH_JOB_MAX_WINDOWS;

        j->n_kept = j->n_dropped = 0;
        if (!p || !j->clock || !j->guard || !want) {
                j->st = ST_BAD_ARG;
                return;
        }
        j->iters = size_iters(j, &p);
        for (uint32_t a = 0; a < want * TRIES_PER_KEPT && j->n_kept < want; a++) {
                if ((j->st = bench_chase_window(&p, j->iters, j->clock, j->guard, &w)) != ST_OK)
                        return;
                if (bench_window_check(&w, SLACK_TICKS) != BENCH_WIN_OK) {
                        j->n_dropped++;
                        continue;
                }
                if (bench_window_latency(&w, j->iters * BENCH_CHASE_UNROLL,
                                         &j->lat_mcyc[j->n_kept]) == ST_OK)
                        j->n_kept++;
        }
        j->st = j->n_kept ? ST_OK : ST_DISTURBED;
}
