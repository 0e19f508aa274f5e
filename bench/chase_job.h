/** @file
 * A self-contained chase measurement that any processor can run, handed over through the MP
 * mailbox (boot/mp.h) as a function and a pointer: windows of the pointer-chase kernel
 * (bench/kernel_chase.h) on a chain the caller laid, until the number of undisturbed windows
 * asked for is kept, with the window length sized once so that a window stays near a target
 * duration. It prints nothing, allocates nothing and calls no firmware service, so it may run
 * on an application processor; the results are in the job for the caller to read after the
 * mailbox says it is done. The latency matrix and the loaded-latency curves use it.
 */
#ifndef PMUCAL_BENCH_CHASE_JOB_H
#define PMUCAL_BENCH_CHASE_JOB_H

#include "bench/window.h"
#include "lib/base.h"
#include "lib/status.h"

#define BENCH_JOB_MAX_WINDOWS 64u

struct bench_chase_job {
        /* set by the caller */
        void                     *start;       /* a line of the chain */
        const struct bench_clock *clock;       /* complete: TSC only on an AP (no scale hook) */
        const struct bench_guard *guard;
        uint32_t                  want;        /* windows to keep, <= BENCH_JOB_MAX_WINDOWS */
        uint32_t                  target_us;   /* a window's N + 2N runs, about this long */

        /* results */
        status_t st;                           /* ST_DISTURBED: every window was disturbed */
        uint32_t n_kept, n_dropped;
        uint64_t iters;                        /* per N run, as sized */
        uint64_t lat_mcyc[BENCH_JOB_MAX_WINDOWS]; /* kept windows, per load, clock x 1000 */
};

/** Run @p job (a struct bench_chase_job *) on the calling processor. */
void bench_chase_job_run(void *job);

#endif
