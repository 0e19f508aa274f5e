/** @file
 * The load generator of the loaded-latency curves and the bandwidth matrix: one processor
 * reads its slice of a buffer line by line (one 8-byte load per 64-byte line, in address
 * order, so the hardware prefetchers stream it as a bandwidth test would), with a delay loop
 * of @c delay empty iterations after each line to set the injection rate, until the TSC
 * passes a deadline. It counts the bytes whose lines it touched and the TSC span it ran, so
 * the caller turns them into GB/s. Runs on any processor (no allocation, no printing, no
 * firmware call), handed over through the MP mailbox like bench/chase_job.h.
 */
#ifndef PMUCAL_BENCH_KERNEL_LOAD_H
#define PMUCAL_BENCH_KERNEL_LOAD_H

#include "lib/base.h"
#include "lib/status.h"

struct bench_load {
        /* set by the caller */
        const void *buf;              /* the slice this processor reads */
        size_t      bytes;            /* a multiple of 64 */
        uint32_t    delay;            /* empty iterations after each line: 0 = full rate */
        uint64_t    deadline_tsc;     /* stop once the TSC passes it */

        /* written by the loader */
        volatile uint32_t started;    /* set when the first lap begins */
        uint64_t          bytes_read; /* lines touched x 64 */
        uint64_t          t_start, t_end;
        uint64_t          sink;       /* keeps the loads alive */
};

/** Run @p load (a struct bench_load *) on the calling processor until its deadline. */
void bench_load_run(void *load);

/** The clock now, the one deadline_tsc and t_start/t_end are in (for the caller's deadlines
 *  and spans): the TSC on x86-64, CNTVCT_EL0 on AArch64 (the inventory's tsc_hz is its
 *  rate on both). */
uint64_t bench_load_now(void);
/** Its name in the results' method.clock: "tsc", "cntvct". */
const char *bench_load_clock_name(void);

#endif
