/** @file The dependent-add chain on AArch64 (see bench/clock_chain.h): ADD Xd, Xd, Xm. */
#include "bench/clock_chain.h"

_Static_assert(BENCH_ADD_CHAIN_ADDS_PER_ROUND == 100, "the .rept count in bench_add_chain()");

void bench_add_chain(uint64_t rounds)
{
        uint64_t x = 0, one = 1;

        if (!rounds)
                return;
        __asm__ volatile("1:\n\t.rept 100\n\tadd %0, %0, %2\n\t.endr\n\tsubs %1, %1, #1\n\tb.ne 1b"
                         : "+r"(x), "+r"(rounds)
                         : "r"(one)
                         : "cc");
}
