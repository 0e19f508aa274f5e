/** @file
 * The pointer chase of kernel_chase.h in AArch64: 32 dependent "ldr x0, [x0]" per iteration,
 * so that the loop's subs/b.ne retire in the shadow of the loads and the per-load cost is
 * the load-to-use latency. Per iteration: 32 loads, 34 instructions, 1 branch. Its timed
 * window (kernel_chase_window.inc) is stamped with the generic timer's CNTVCT_EL0.
 */
#include "bench/kernel_chase.h"

#include "boot/arm64/sysreg.h"

_Static_assert(BENCH_CHASE_UNROLL == 32, "the .rept count in bench_chase()");

void *bench_chase(void *p, uint64_t iters)
{
        if (!iters)
                return p; /* subs/b.ne would run 2^64 times */
        __asm__ volatile("1:\n\t"
                         ".rept 32\n\t"
                         "ldr %0, [%0]\n\t"
                         ".endr\n\t"
                         "subs %1, %1, #1\n\t"
                         "b.ne 1b"
                         : "+r"(p), "+r"(iters)
                         :
                         : "memory", "cc");
        return p;
}

/* The window's timestamp (kernel_chase_window.inc): CNTVCT_EL0 unless the clock names another. */
static inline uint64_t stamp(const struct bench_clock *clk)
{
        return clk->stamp ? clk->stamp(clk->ctx) : cntvct_ordered();
}

#include "bench/kernel_chase_window.inc"
