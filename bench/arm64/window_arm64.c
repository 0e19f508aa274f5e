/** @file
 * The AArch64 clock and guard probes of the measurement windows (see bench/window.h): the
 * generic timer's CNTVCT_EL0 as the reference clock, at the rate CNTFRQ_EL0 states (the
 * architecture makes firmware program it; nothing to calibrate against a stall); no core
 * source at this layer (the caller installs the PMU's cycle counter PMCCNTR_EL0); no SMI
 * count (the architecture has none: firmware at EL3 runs unseen, as SMM does, and the N/2N
 * check is what catches it).
 */
#include "bench/window.h"

#include "boot/arm64/sysreg.h"
#include "boot/cpu.h"

void bench_clock_init(struct bench_clock *clk, const struct cpu_info *cpu, uint32_t calib_us,
                      const struct bench_guard *g)
{
        (void)cpu;
        (void)calib_us;
        (void)g;
        *clk = (struct bench_clock){
                .kind   = LAT_CLOCK_TSC,
                .timer  = "CNTVCT_EL0",
                .tsc_hz = SYSREG_READ(cntfrq_el0) & 0xffffffffu, /* [31:0]; upper bits RES0 */
                .core   = { .why_none = "no core clock in the generic timer (the PMU's cycle "
                                        "counter is the core source)" },
        };
}

void bench_guard_init(struct bench_guard *g, const struct cpu_info *cpu)
{
        uint64_t saved;

        (void)cpu;
        *g              = (struct bench_guard){ 0 };
        g->irq_maskable = cpu_irq_disable(&saved);
        cpu_irq_restore(saved);
}

uint64_t bench_guard_smi(const struct bench_guard *g)
{
        (void)g;
        return 0;
}

uint64_t bench_timer_now(void)
{
        return cntvct_ordered();
}
