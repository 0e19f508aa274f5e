/** @file The skid kernel (see kernel_skid.h). */
#include "bench/kernel_skid.h"

_Static_assert(BENCH_SKID_BODY_NOPS == 4096, "the .fill count below");

/* SysV: iters in %rdi. "test; jz" runs once per call; each iteration is 4096 NOPs, dec, jnz. */
__asm__(".text\n\t"
        ".globl bench_skid_loop\n\t"
        ".hidden bench_skid_loop\n\t"
        ".type bench_skid_loop, @function\n\t"
        ".balign 64\n"
        "bench_skid_loop:\n\t"
        "test %rdi, %rdi\n\t"
        "jz 2f\n\t"
        ".balign 64\n\t"
        ".globl bench_skid_body\n\t"
        ".hidden bench_skid_body\n"
        "bench_skid_body:\n\t"
        ".fill 4096, 1, 0x90\n\t"
        "dec %rdi\n\t"
        "jnz bench_skid_body\n"
        "2:\n\t"
        "ret\n\t"
        ".size bench_skid_loop, . - bench_skid_loop\n");
