/** @file Known-count kernels (see kernel_branch.h). */
#include "bench/kernel_branch.h"

void bench_loop(uint64_t n)
{
        if (!n)
                return;
        __asm__ volatile("1:\n\t"
                         "dec %0\n\t"
                         "jnz 1b"
                         : "+r"(n)
                         :
                         : "cc");
}

void bench_branch_pattern(const uint8_t *pat, uint64_t n)
{
        uint32_t t;

        if (!n)
                return;
        __asm__ volatile("1:\n\t"
                         "movzbl (%[p]), %[t]\n\t"
                         "inc %[p]\n\t"
                         "test %[t], %[t]\n\t"
                         "jz 2f\n\t"
                         "nop\n"
                         "2:\n\t"
                         "dec %[n]\n\t"
                         "jnz 1b"
                         : [p] "+r"(pat), [n] "+r"(n), [t] "=&r"(t)
                         :
                         : "cc", "memory");
}
