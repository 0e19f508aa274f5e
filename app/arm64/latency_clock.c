/** @file
 * The core clock of the latency and TLB sweeps on AArch64 (see latency_clock.h): the PMU's
 * cycle counter PMCCNTR_EL0, read with the generic timer's CNTVCT_EL0 around every window,
 * so that the figures, timed in generic-timer ticks, are also core cycles and ns. Where the
 * PMU is absent or unusable the clock keeps the reason and the tables' core figures are
 * null. Under QEMU the cycle counter runs at 1 GHz of virtual time (with -icount: one
 * instruction per ns at shift 0), so its cycles are the emulator's, not a core's.
 */
#include "app/latency_clock.h"

#include "boot/arm64/idreg.h"
#include "boot/arm64/sysreg.h"
#include "lib/fmt.h"
#include "pmu/arm64/pmu_arm64.h"

#define CPU_CYCLES 0x0011 /* common event; the cycle counter counts it by definition */

static status_t read_cycles(void *ctx, uint64_t *core, uint64_t *ref)
{
        (void)ctx;
        *core = pmu_arm64_read(PMU_ARM64_CYCLE);
        *ref  = cntvct_ordered();
        return ST_OK;
}

void lat_clock_pmu_begin(struct lat_clock_pmu *p, struct bench_clock *clk,
                         const struct cpu_info *cpu)
{
        struct arm64_id_regs  regs;
        struct arm64_cpu_info ci;
        const char           *why = NULL;

        (void)cpu;
        if (clk->core.name)
                return;
        arm64_id_collect(&regs);
        if (arm64_decode(&regs, &ci) != ST_OK)
                why = "the ID registers could not be decoded";
        else if (pmu_arm64_init(&ci, &regs) != ST_OK)
                why = pmu_arm64_get_caps()->reason;
        else if (pmu_arm64_program(PMU_ARM64_CYCLE, CPU_CYCLES, PMU_EL0 | PMU_EL1, 0) != ST_OK)
                why = "the cycle counter could not be programmed";
        if (why) {
                pmu_arm64_restore();
                fmt_snprintf(p->why, sizeof(p->why), "PMU: %s", why);
                clk->core.why_none = p->why;
                return;
        }
        pmu_arm64_start(1u << PMU_ARM64_CYCLE);
        p->running = true;
        clk->core  = (struct bench_core_src){ .name = "PMU cycle counter PMCCNTR_EL0 against "
                                                      "the generic timer CNTVCT_EL0",
                                              .read = read_cycles, .ctx = p,
                                              .ppm_max = BENCH_CORE_PPM_MAX_TIMER };
}

void lat_clock_pmu_end(struct lat_clock_pmu *p)
{
        if (p->running) {
                pmu_arm64_stop(1u << PMU_ARM64_CYCLE);
                pmu_arm64_restore();
        }
        p->running = false;
}
