/** @file
 * The load generator's clock on AArch64 (see bench/kernel_load.h; the loop is
 * bench/kernel_load.c): the generic timer's CNTVCT_EL0, ordered with DSB/ISB against the
 * loads before it, whose rate CNTFRQ_EL0 is the inventory's tsc_hz on AArch64. [ARM-ARM] D12
 * "The Generic Timer in AArch64 state".
 */
#include "bench/kernel_load.h"

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
