/** @file
 * The streaming-read load generator (see bench/kernel_load.h), one loop for every
 * architecture: its deadline and span are read with bench_load_now(), which each architecture
 * gives from its own ordered clock read (bench/x86/kernel_load_x86.c: the TSC;
 * bench/arm64/kernel_load_arm64.c: CNTVCT_EL0).
 */
#include "bench/kernel_load.h"

#define LINE            64u
#define LINES_PER_CHECK 64u   /* the deadline is looked at every 4 KiB */

void bench_load_run(void *arg)
{
        struct bench_load *l = arg;
        const uint8_t     *p = l->buf;
        size_t             n = l->bytes / LINE, i = 0;
        uint64_t           sum = 0, lines = 0, now;

        l->bytes_read = 0;
        l->t_start    = bench_load_now();
        __atomic_store_n(&l->started, 1, __ATOMIC_RELEASE);
        if (!n) {
                l->t_end = l->t_start;
                return;
        }
        do {
                for (unsigned k = 0; k < LINES_PER_CHECK; k++) {
                        sum += *(const volatile uint64_t *)(p + i * LINE);
                        for (uint32_t d = 0; d < l->delay; d++)
                                __asm__ volatile("" ::: "memory");
                        if (++i == n)
                                i = 0;
                }
                lines += LINES_PER_CHECK;
                now = bench_load_now();
        } while (now < l->deadline_tsc);
        l->t_end      = now;
        l->bytes_read = lines * LINE;
        l->sink       = sum;
}
