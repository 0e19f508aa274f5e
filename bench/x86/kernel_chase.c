/** @file The unrolled pointer-chase kernel and its timed window (see kernel_chase.h). */
#include "bench/kernel_chase.h"

#include "boot/cpu.h"
#include "boot/plat.h"
#include "boot/x86/msr.h"

void *bench_chase(void *p, uint64_t iters)
{
        if (!iters)
                return p; /* dec/jnz would run 2^64 times */
        /* 32 dependent loads per iteration: the loop's dec/jnz retire in the shadow of the
         * loads, so the per-load cost is the load-to-use latency. Written in asm so that the
         * compiler can neither reorder nor fold the chain. */
        __asm__ volatile("1:\n\t"
                         ".rept 32\n\t"
                         "mov (%0), %0\n\t"
                         ".endr\n\t"
                         "dec %1\n\t"
                         "jnz 1b"
                         : "+r"(p), "+r"(iters)
                         :
                         : "memory", "cc");
        return p;
}

_Static_assert(BENCH_CHASE_UNROLL == 32, "the .rept count in bench_chase()");

static inline uint64_t stamp(const struct bench_clock *clk)
{
        return clk->stamp ? clk->stamp(clk->ctx) : rdtsc_ordered();
}

status_t bench_chase_window(void **p, uint64_t iters, const struct bench_clock *clk,
                            const struct bench_guard *guard, struct bench_window *out)
{
        uint64_t saved, t0, t1, t2, t3, c0 = 0, r0 = 0, c1 = 0, r1 = 0;
        bool     core = clk && clk->core.read;
        void    *q;

        if (!p || !*p || !iters || !clk || !guard || !out)
                return ST_BAD_ARG;
        *out = (struct bench_window){ 0 };

        out->smi_before   = bench_guard_smi(guard);
        out->steal_before = bench_guard_steal(guard);
        out->irq_masked = cpu_irq_disable(&saved);
        if (core && clk->core.read(clk->core.ctx, &c0, &r0) != ST_OK)
                core = false; /* the window still measures; it has no core:TSC ratio */

        q = *p;
        if (guard->hooks.enter) {
                status_t st = guard->hooks.enter(guard->hooks.ctx);
                if (st != ST_OK) {
                        cpu_irq_restore(saved);
                        return st;
                }
                /* the translations the switch flushed */
                q = bench_chase(q, guard->hooks.refill_iters ? guard->hooks.refill_iters : iters);
        }
        t0 = stamp(clk);
        q  = bench_chase(q, iters);
        t1 = stamp(clk);
        t2 = stamp(clk);
        q  = bench_chase(q, 2 * iters);
        t3 = stamp(clk);
        if (guard->hooks.enter && guard->hooks.leave)
                guard->hooks.leave(guard->hooks.ctx);

        if (core && clk->core.read(clk->core.ctx, &c1, &r1) == ST_OK && r1 > r0 && c1 > c0) {
                out->core_d = c1 - c0;
                out->ref_d  = r1 - r0;
        }
        cpu_irq_restore(saved);
        out->smi_after   = bench_guard_smi(guard);
        out->steal_after = bench_guard_steal(guard);

        out->t_n  = t1 - t0;
        out->t_2n = t3 - t2;
        *p        = q;
        return ST_OK;
}
