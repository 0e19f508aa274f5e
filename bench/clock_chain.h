/** @file
 * The core clock estimated without a counter: a chain of dependent register adds, one core
 * cycle each on every x86-64 core since K8 / Core 2 and on the Arm cores this runs on (ADD
 * r64, r64 [Agner Fog, "Instruction tables": latency 1]; AArch64 ADD (shifted register):
 * latency 1 in the Neoverse and Cortex-A software optimization guides), timed with the
 * reference timer (TSC; CNTVCT_EL0 on AArch64). It rests on the add's latency, not on a
 * counter: the latency table records it as method.core_clock.estimate, flagged estimated,
 * only where no counter read the core clock.
 */
#ifndef BENCH_CLOCK_CHAIN_H
#define BENCH_CLOCK_CHAIN_H

#include <stdint.h>

#include "lib/status.h"

/** Dependent adds per round of bench_add_chain(); a round is the adds, then the loop's
 *  decrement and conditional branch back. */
#define BENCH_ADD_CHAIN_ADDS_PER_ROUND     100
#define BENCH_ADD_CHAIN_INSNS_PER_ROUND    (BENCH_ADD_CHAIN_ADDS_PER_ROUND + 2)
#define BENCH_ADD_CHAIN_BRANCHES_PER_ROUND 1

/** Run @p rounds x BENCH_ADD_CHAIN_ADDS_PER_ROUND dependent adds (the architecture's kernel, bench/<arch>/kernel_addchain.c). */
void bench_add_chain(uint64_t rounds);

/** Core cycles per reference-timer tick, per 10^6, from the difference of the trimmed mean
 *  times of 501 long and 501 short chains (which removes the timer reads' own cost).
 *  ST_BAD_DATA when the long chains were not slower than the short ones. */
status_t bench_add_chain_ppm(uint32_t *core_per_tick_ppm);

#endif
