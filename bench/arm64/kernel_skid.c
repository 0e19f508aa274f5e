/** @file
 * The skid kernel of kernel_skid.h in AArch64: each iteration is 4096 NOPs, subs, b.ne (one
 * branch per 4098 instructions, as on x86), so an overflow on INST_RETIRED or BR_RETIRED
 * lands at a known place and the distance to the sampled PC is the skid.
 */
#include "bench/kernel_skid.h"

_Static_assert(BENCH_SKID_BODY_NOPS == 4096, "the .rept count below");
_Static_assert(BENCH_SKID_INSNS_PER_ITER == 4098, "NOPs + subs + b.ne");

/* AAPCS64: iters in x0. "cbz" runs once per call. */
__asm__(".text\n\t"
        ".globl bench_skid_loop\n\t"
        ".hidden bench_skid_loop\n\t"
        ".type bench_skid_loop, %function\n\t"
        ".balign 64\n"
        "bench_skid_loop:\n\t"
        "cbz x0, 2f\n\t"
        ".balign 64\n\t"
        ".globl bench_skid_body\n\t"
        ".hidden bench_skid_body\n"
        "bench_skid_body:\n\t"
        ".rept 4096\n\t"
        "nop\n\t"
        ".endr\n\t"
        "subs x0, x0, #1\n\t"
        "b.ne bench_skid_body\n"
        "2:\n\t"
        "ret\n\t"
        ".size bench_skid_loop, . - bench_skid_loop\n");
