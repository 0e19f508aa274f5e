/** @file
 * A loop whose one basic block has a known, fixed cost, for LBR cycle-count and IBS op/fetch
 * validation: each iteration is 16 dependent `imul %rax, %rax` (3 cycles of latency each on
 * every Intel core since Nehalem and every AMD Zen, [SDM-Opt] / AMD SOG instruction tables:
 * 48 cycles) followed by `dec; jnz` back to the top. Written as top-level asm so that the
 * labels below are the kernel's own symbols: the taken branch is from bench_block_jcc to
 * bench_block_top, and every instruction of the kernel lies in [bench_block_start,
 * bench_block_end), bench_block_run's extent (its .size). Ranges take bench_block_start, not
 * the function's address: a link that wraps the function (ld --wrap, the host tests' models)
 * makes &bench_block_run the wrapper's, wherever that lies.
 */
#ifndef PMUCAL_KERNEL_BLOCK_H
#define PMUCAL_KERNEL_BLOCK_H

#include <stdint.h>

/** Dependent multiplies per iteration, and their nominal cost in core cycles. */
#define BENCH_BLOCK_IMULS          16
#define BENCH_BLOCK_NOMINAL_CYCLES (3 * BENCH_BLOCK_IMULS)
/** Instructions and branches per iteration: the multiplies, dec and jnz. */
#define BENCH_BLOCK_INSNS_PER_ITER    (BENCH_BLOCK_IMULS + 2)
#define BENCH_BLOCK_BRANCHES_PER_ITER 1

/** Run the loop @p n times (n = 0 runs nothing). */
void bench_block_run(uint64_t n);

/* The kernel's symbols (addresses only; not callable). */
extern const char bench_block_start[]; /* the kernel's first byte (bench_block_run's) */
extern const char bench_block_top[];  /* loop head: target of the back branch */
extern const char bench_block_jcc[];  /* the jnz: source of the back branch */
extern const char bench_block_end[];  /* one past the kernel's last byte */

#endif
