/** @file The unrolled pointer-chase kernel and its timed window (see kernel_chase.h). */
#include "bench/kernel_chase.h"

#include "boot/cpu.h"
#include "boot/plat.h"
#include "boot/x86/msr.h"

void *bench_chase(void *p, uint64_t iters)
{
        if (!iters)
                return p; /* dec/jnz would run 2^64 times */
        /* 32 dependent loads per iteration: the loop's dec/jnz retire in the shadow of the
         * loads, so the per-load cost is the load-to-use latency. Written in asm so that the
         * compiler can neither reorder nor fold the chain. */
        __asm__ volatile("1:\n\t"
                         ".rept 32\n\t"
                         "mov (%0), %0\n\t"
                         ".endr\n\t"
                         "dec %1\n\t"
                         "jnz 1b"
                         : "+r"(p), "+r"(iters)
                         :
                         : "memory", "cc");
        return p;
}

_Static_assert(BENCH_CHASE_UNROLL == 32, "the .rept count in bench_chase()");

/* The window's timestamp (kernel_chase_window.inc): the TSC unless the clock names another. */
static inline uint64_t stamp(const struct bench_clock *clk)
{
        return clk->stamp ? clk->stamp(clk->ctx) : rdtsc_ordered();
}

#include "bench/kernel_chase_window.inc"

