/** @file
 * The streaming-read load generator on AArch64 (see bench/kernel_load.h): the same loop as
 * the x86-64 one, its deadline and span read from the generic timer's CNTVCT_EL0 (ordered
 * with DSB/ISB against the loads before it), whose rate CNTFRQ_EL0 is the inventory's tsc_hz
 * on AArch64. [ARM-ARM] D12 "The Generic Timer in AArch64 state".
 */
#include "bench/kernel_load.h"

#define LINE            64u
#define LINES_PER_CHECK 64u   /* the deadline is looked at every 4 KiB */

static inline uint64_t now_ordered(void)
{
        uint64_t t;

        __asm__ volatile("dsb ish\n\t"
                         "isb\n\t"
                         "mrs %0, cntvct_el0\n\t"
                         "isb" : "=r"(t) : : "memory");
        return t;
}

uint64_t bench_load_now(void)
{
        return now_ordered();
}

const char *bench_load_clock_name(void)
{
        return "cntvct";
}

void bench_load_run(void *arg)
{
        struct bench_load *l = arg;
        const uint8_t     *p = l->buf;
        size_t             n = l->bytes / LINE, i = 0;
        uint64_t           sum = 0, lines = 0, now;

        l->bytes_read = 0;
        l->t_start    = now_ordered();
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
                now = now_ordered();
        } while (now < l->deadline_tsc);
        l->t_end      = now;
        l->bytes_read = lines * LINE;
        l->sink       = sum;
}
