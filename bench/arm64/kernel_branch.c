/** @file
 * The known-count loops of kernel_branch.h in AArch64: "subs; b.ne" is 2 instructions and 1
 * branch per iteration, like x86's "dec; jnz", so BENCH_LOOP_INSNS_PER_ITER and
 * BENCH_LOOP_BRANCHES_PER_ITER hold on both. bench_pattern_fill is portable C and stays with
 * the x86 bodies until the pattern filler gets a file of its own.
 */
#include "bench/kernel_branch.h"

void bench_loop(uint64_t n)
{
        if (!n)
                return;
        __asm__ volatile("1:\n\t"
                         "subs %0, %0, #1\n\t"
                         "b.ne 1b"
                         : "+r"(n)
                         :
                         : "cc");
}

/* Per iteration: ldrb, add, cbz, [nop], subs, b.ne: 2 branches, the cbz taken or not as
 * the pattern byte says. */
void bench_branch_pattern(const uint8_t *pat, uint64_t n)
{
        uint32_t t;

        if (!n)
                return;
        __asm__ volatile("1:\n\t"
                         "ldrb %w[t], [%[p]]\n\t"
                         "add %[p], %[p], #1\n\t"
                         "cbz %w[t], 2f\n\t"
                         "nop\n"
                         "2:\n\t"
                         "subs %[n], %[n], #1\n\t"
                         "b.ne 1b"
                         : [p] "+r"(pat), [n] "+r"(n), [t] "=&r"(t)
                         :
                         : "cc", "memory");
}
