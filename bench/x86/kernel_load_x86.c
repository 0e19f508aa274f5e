/** @file The load generator's clock on x86-64 (see bench/kernel_load.h): the TSC, read in
 *  order with the loads before it; the loop is bench/kernel_load.c. */
#include "bench/kernel_load.h"

#include "boot/x86/msr.h"

uint64_t bench_load_now(void)
{
        return rdtsc_ordered();
}

const char *bench_load_clock_name(void)
{
        return "tsc";
}
