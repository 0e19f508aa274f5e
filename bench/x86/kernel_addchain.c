/** @file The dependent-add chain on x86-64 (see bench/clock_chain.h): ADD r64, r64 with the
 *  addend in a register (an immediate add can be folded by the renamer of some cores, which
 *  then runs the chain faster than one add a cycle). */
#include "bench/clock_chain.h"

_Static_assert(BENCH_ADD_CHAIN_ADDS_PER_ROUND == 100, "the .rept count in bench_add_chain()");

void bench_add_chain(uint64_t rounds)
{
        uint64_t x = 0, one = 1;

        if (!rounds)
                return;
        __asm__ volatile("1:\n\t.rept 100\n\tadd %2, %0\n\t.endr\n\tdec %1\n\tjnz 1b"
                         : "+r"(x), "+r"(rounds)
                         : "r"(one)
                         : "cc");
}
