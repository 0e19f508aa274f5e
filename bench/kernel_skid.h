/** @file
 * A kernel for measuring sampling skid: a loop whose only branch is the `jnz` closing it, so a
 * counter of retired branches always overflows on that `jnz`, and the next instruction to
 * retire is the first byte of bench_skid_body. The body is BENCH_SKID_BODY_NOPS one-byte NOPs,
 * so the distance from bench_skid_body to the RIP a PMI reports is the skid in instructions
 * (and in bytes). Written as assembly so that the layout is a fact of this file.
 */
#ifndef PMUCAL_KERNEL_SKID_H
#define PMUCAL_KERNEL_SKID_H

#include <stdint.h>

#define BENCH_SKID_BODY_NOPS         4096
#define BENCH_SKID_BRANCHES_PER_ITER 1
#define BENCH_SKID_INSNS_PER_ITER    (BENCH_SKID_BODY_NOPS + 2)

/** Run the loop @p iters times (0 runs nothing). */
void bench_skid_loop(uint64_t iters) __attribute__((visibility("hidden")));

/** First instruction of the loop body (the branch target of the overflowing `jnz`). */
extern const char bench_skid_body[] __attribute__((visibility("hidden")));

#endif
