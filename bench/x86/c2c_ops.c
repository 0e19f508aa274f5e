/** @file The x86 operations of the cache-to-cache kernels (see bench/c2c.h): CLFLUSH
 *  and the timed laps, bracketed by LFENCE-ordered RDTSC. [SDM-2A] CLFLUSH, [SDM-2B] RDTSC,
 *  MFENCE ("serializes all store instructions issued before it": the store has been made
 *  globally visible, so the line is owned, before the load after it). */
#include "bench/c2c.h"

#include "boot/x86/msr.h"

uint64_t bench_c2c_clock(void)
{
        return rdtsc_ordered();
}

const char *bench_c2c_clock_name(void)
{
        return "tsc";
}

void bench_c2c_flush_line(const void *p)
{
        __asm__ volatile("clflush (%0)" : : "r"(p) : "memory");
}

uint64_t bench_c2c_chase_timed(void *p, size_t n)
{
        uint64_t t0 = rdtsc_ordered();

        __asm__ volatile("1:\n\t"
                         "mov (%0), %0\n\t"
                         "dec %1\n\t"
                         "jnz 1b"
                         : "+r"(p), "+r"(n)
                         :
                         : "memory", "cc");
        return rdtsc_ordered() - t0;
}

uint64_t bench_c2c_rmw_timed(void *p, size_t n)
{
        uint64_t t0 = rdtsc_ordered();

        /* The locked add takes the line for writing; the load of the next pointer then hits
         * the line just owned, so each step costs one transfer. */
        __asm__ volatile("1:\n\t"
                         "lock addq $1, 8(%0)\n\t"
                         "mov (%0), %0\n\t"
                         "dec %1\n\t"
                         "jnz 1b"
                         : "+r"(p), "+r"(n)
                         :
                         : "memory", "cc");
        return rdtsc_ordered() - t0;
}

uint64_t bench_c2c_store_timed(void *p, size_t n)
{
        uint64_t t0 = rdtsc_ordered();

        /* The store takes the line for writing; MFENCE waits until it is globally visible
         * (the read-for-ownership done), then the next pointer is loaded from the line just
         * owned. */
        __asm__ volatile("1:\n\t"
                         "movq $1, 8(%0)\n\t"
                         "mfence\n\t"
                         "mov (%0), %0\n\t"
                         "dec %1\n\t"
                         "jnz 1b"
                         : "+r"(p), "+r"(n)
                         :
                         : "memory", "cc");
        return rdtsc_ordered() - t0;
}
