/** @file
 * Kernels with exactly known instruction and branch counts, for counter validation. Inline
 * asm fixes the instruction stream, so the per-iteration counts below are facts of this file,
 * not of the compiler. Fixed entry/exit overhead is cancelled by running two lengths and
 * subtracting (kvm-unit-tests x86/pmu.c does the same).
 */
#ifndef PMUCAL_KERNEL_BRANCH_H
#define PMUCAL_KERNEL_BRANCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* bench_loop: "1: dec; jnz 1b" */
#define BENCH_LOOP_INSNS_PER_ITER    2
#define BENCH_LOOP_BRANCHES_PER_ITER 1
/* bench_branch_pattern: x86-64 movzbl, inc, test, jz, [nop], dec, jnz; AArch64 ldrb, add,
 * cbz, [nop], subs, b.ne. The nop runs for a byte that is not 0 (the branch over it not
 * taken). One load (the byte) per iteration. */
#define BENCH_PATTERN_BRANCHES_PER_ITER 2
#define BENCH_PATTERN_LOADS_PER_ITER    1
#if defined(__aarch64__)
#define BENCH_PATTERN_INSNS_ZERO_BYTE   5
#define BENCH_PATTERN_INSNS_OTHER_BYTE  6
#else
#define BENCH_PATTERN_INSNS_ZERO_BYTE   6
#define BENCH_PATTERN_INSNS_OTHER_BYTE  7
#endif

/** Run the counted loop @p n times (n = 0 runs nothing). */
void bench_loop(uint64_t n);

/** One conditional branch per byte of @p pat: taken when the byte is 0. @p n bytes. */
void bench_branch_pattern(const uint8_t *pat, uint64_t n);

/** Fill @p pat: all zero (always taken) or, if @p random, bytes 0/1 from a 64-bit LCG seeded
 *  with @p seed (top bit of each step, which has full period). */
void bench_pattern_fill(uint8_t *pat, size_t n, bool random, uint64_t seed);

#endif
