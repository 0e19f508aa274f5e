/** @file The fixed-cost block kernel (see kernel_block.h). */
#include "bench/kernel_block.h"

/* System V ABI: n in %rdi. The labels are hidden so that -fpic code reaches them without a
 * GOT entry. bench_block_start is bench_block_run's first byte under a name no call uses, so
 * that a link which redirects the calls (ld --wrap) leaves it on the kernel. */
__asm__(".text\n"
        ".p2align 6\n"
        ".globl bench_block_run\n"
        ".hidden bench_block_run\n"
        ".type bench_block_run, @function\n"
        ".globl bench_block_start\n"
        ".hidden bench_block_start\n"
        "bench_block_start:\n"
        "bench_block_run:\n\t"
        "test %rdi, %rdi\n\t"
        "jz 2f\n\t"
        "mov $3, %eax\n\t"
        ".p2align 4\n"
        ".globl bench_block_top\n"
        ".hidden bench_block_top\n"
        "bench_block_top:\n\t"
        ".rept 16\n\t"
        "imul %rax, %rax\n\t"
        ".endr\n\t"
        "dec %rdi\n"
        ".globl bench_block_jcc\n"
        ".hidden bench_block_jcc\n"
        "bench_block_jcc:\n\t"
        "jnz bench_block_top\n"
        "2:\n\t"
        "ret\n"
        ".globl bench_block_end\n"
        ".hidden bench_block_end\n"
        "bench_block_end:\n"
        ".size bench_block_run, . - bench_block_run\n");

_Static_assert(BENCH_BLOCK_IMULS == 16, "the .rept count in bench_block_run");
