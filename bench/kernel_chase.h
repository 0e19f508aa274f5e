/** @file
 * The pointer-chase kernel: an unrolled chain of dependent loads (`p = *(void **)p`,
 * BENCH_CHASE_UNROLL per loop iteration), and one measurement window around it. A window
 * times N loads and then 2N loads with the cycle source of a struct bench_clock; the
 * difference is the cost of N loads with the loop and timer overhead removed. Windows run
 * inside cpu_irq_disable()/cpu_irq_restore() and are checked by the guard (bench/window.h).
 */
#ifndef PMUCAL_BENCH_KERNEL_CHASE_H
#define PMUCAL_BENCH_KERNEL_CHASE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/status.h"
#include "bench/window.h"

/** Dependent loads per loop iteration of bench_chase(). */
#define BENCH_CHASE_UNROLL 32u
/** Instructions and branches per iteration: the loads, then dec and jnz. */
#define BENCH_CHASE_INSNS_PER_ITER    (BENCH_CHASE_UNROLL + 2)
#define BENCH_CHASE_BRANCHES_PER_ITER 1u

/** Follow the chain from @p p for @p iters * BENCH_CHASE_UNROLL loads (@p iters > 0);
 *  returns the address where it stopped, so that the next run continues the lap. */
void *bench_chase(void *p, uint64_t iters);

/** Time one window on the chain at *@p p: @p iters iterations, then 2 * @p iters, each
 *  bracketed by @p clk's stamp; guard checks around the whole window. With guard->hooks.enter
 *  set, the hooks run just inside the masked region, and an untimed run of hooks.refill_iters
 *  (0: @p iters) refills the TLB the switch emptied before the timed runs. Updates *@p p. */
status_t bench_chase_window(void **p, uint64_t iters, const struct bench_clock *clk,
                            const struct bench_guard *guard, struct bench_window *out);

#endif
