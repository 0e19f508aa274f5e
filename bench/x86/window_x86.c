/** @file
 * The x86-64 clock and guard probes of the measurement windows (see bench/window.h): TSC
 * stamps, APERF/MPERF as the core source where CPUID says they exist, Intel's SMI count.
 */
#include "bench/window.h"

#include "boot/cpu.h"
#include "boot/plat.h"
#include "boot/x86/coreclk.h"
#include "boot/x86/msr.h"

#define CALIB_ROUNDS     5
#define CALIB_MAX_ROUNDS 20

static status_t aperf_mperf(void *ctx, uint64_t *core, uint64_t *ref)
{
        (void)ctx;
        return x86_aperf_mperf_read(core, ref);
}

void bench_clock_init(struct bench_clock *clk, const struct cpu_info *cpu, uint32_t calib_us,
                      const struct bench_guard *g)
{
        uint64_t a0 = 0, m0 = 0, a1 = 0, m1 = 0, best = UINT64_MAX;
        uint32_t us = calib_us / CALIB_ROUNDS ? calib_us / CALIB_ROUNDS : 1;
        unsigned clean = 0;

        *clk = (struct bench_clock){ .kind = LAT_CLOCK_TSC, .timer = "TSC" };
        if (!cpu || !cpu->aperfmperf)
                clk->core.why_none = "CPUID.06H:ECX[0] clear: no APERF/MPERF";
        else if (aperf_mperf(NULL, &a0, &m0) != ST_OK)
                clk->core.why_none = "APERF/MPERF do not read back";
        else
                clk->core = (struct bench_core_src){ .name = "APERF/MPERF", .read = aperf_mperf };

        /* Shortest clean stall: being descheduled (hosted) only ever lengthens one, since the
         * stall runs on its own timer from the moment it starts. */
        for (unsigned i = 0; i < CALIB_MAX_ROUNDS && clean < CALIB_ROUNDS; i++) {
                uint64_t s0 = bench_guard_steal(g);
                uint64_t t0 = rdtsc_ordered();
                plat_stall_us(us);
                uint64_t t1 = rdtsc_ordered();
                if (bench_guard_steal(g) != s0 && i + 1 < CALIB_MAX_ROUNDS)
                        continue;
                clean++;
                if (t1 - t0 < best)
                        best = t1 - t0;
        }
        clk->tsc_hz = best * 1000000ull / us;
        if (clk->core.name && aperf_mperf(NULL, &a1, &m1) == ST_OK && m1 > m0 && a1 > a0)
                clk->core_hz = (uint64_t)((unsigned __int128)clk->tsc_hz * (a1 - a0) / (m1 - m0));
}

void bench_guard_init(struct bench_guard *g, const struct cpu_info *cpu)
{
        uint64_t v, saved;

        *g = (struct bench_guard){ 0 };
        if (x86_smi_count_exists(cpu) && x86_smi_count_read(&v) == ST_OK)
                g->smi_count_ok = true;
        g->irq_maskable = cpu_irq_disable(&saved);
        cpu_irq_restore(saved);
}

uint64_t bench_guard_smi(const struct bench_guard *g)
{
        uint64_t v = 0;

        if (g && g->smi_count_ok && x86_smi_count_read(&v) != ST_OK)
                v = 0;
        return v;
}

uint64_t bench_timer_now(void)
{
        return rdtsc_ordered();
}
