/** @file Clock choice, window guard and per-window arithmetic (see window.h). */
#include "bench/window.h"

#include "boot/cpu.h"
#include "boot/plat.h"
#include "boot/x86/coreclk.h"
#include "boot/x86/msr.h"

/* Inconsistency bound: the 2N run may differ from twice the N run by t_n / 2^SHIFT. */
#define CONSISTENCY_SHIFT 3
#define CALIB_ROUNDS      5
#define CALIB_MAX_ROUNDS  20

static const char *const disturb_names[] = {
        [BENCH_WIN_OK]            = "ok",
        [BENCH_WIN_SMI]           = "SMI count moved",
        [BENCH_WIN_INCONSISTENT]  = "N and 2N runs disagree",
        [BENCH_WIN_NOT_MONOTONIC] = "2N run not longer than N run",
        [BENCH_WIN_STOLEN]        = "CPU taken away (context switch)",
};

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

        *clk = (struct bench_clock){ .kind = LAT_CLOCK_TSC };
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

uint64_t bench_guard_steal(const struct bench_guard *g)
{
        return g && g->steal_count ? g->steal_count(g->steal_ctx) : 0;
}

enum bench_disturb bench_window_check(const struct bench_window *w, uint64_t slack_ticks)
{
        if (w->smi_after != w->smi_before)
                return BENCH_WIN_SMI;
        if (w->steal_after != w->steal_before)
                return BENCH_WIN_STOLEN;
        if (w->t_2n <= w->t_n)
                return BENCH_WIN_NOT_MONOTONIC;

        uint64_t twice = 2 * w->t_n;
        uint64_t diff  = w->t_2n > twice ? w->t_2n - twice : twice - w->t_2n;

        if (diff > (w->t_n >> CONSISTENCY_SHIFT) + slack_ticks)
                return BENCH_WIN_INCONSISTENT;
        return BENCH_WIN_OK;
}

status_t bench_window_latency(const struct bench_window *w, uint64_t n_loads,
                              uint64_t *lat_mcyc)
{
        if (!w || !lat_mcyc || !n_loads || w->t_2n < w->t_n)
                return ST_BAD_ARG;

        unsigned __int128 v = (unsigned __int128)(w->t_2n - w->t_n) * 1000u;

        v /= n_loads;
        *lat_mcyc = v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
        return ST_OK;
}

void bench_core_span_begin(const struct bench_core_src *src, struct bench_core_span *sp)
{
        *sp    = (struct bench_core_span){ 0 };
        sp->ok = src && src->read && src->read(src->ctx, &sp->core0, &sp->ref0) == ST_OK;
}

uint32_t bench_core_span_end(const struct bench_core_src *src, struct bench_core_span *sp)
{
        struct bench_window w = { 0 };
        uint64_t            c, r;

        if (!sp->ok || src->read(src->ctx, &c, &r) != ST_OK || c < sp->core0 || r < sp->ref0)
                return 0;
        w.core_d = c - sp->core0;
        w.ref_d  = r - sp->ref0;
        return bench_window_core_ppm(&w);
}

uint32_t bench_window_core_ppm(const struct bench_window *w)
{
        unsigned __int128 v;

        if (!w || !w->ref_d || !w->core_d)
                return 0;
        v = ((unsigned __int128)w->core_d * 1000000u + w->ref_d / 2) / w->ref_d;
        return v < BENCH_CORE_PPM_MIN || v > BENCH_CORE_PPM_MAX ? 0 : (uint32_t)v;
}

int64_t bench_window_overhead_mcyc(const struct bench_window *w)
{
        return ((int64_t)(2 * w->t_n) - (int64_t)w->t_2n) * 1000;
}

const char *bench_disturb_name(enum bench_disturb d)
{
        if ((unsigned)d >= ARRAY_SIZE(disturb_names))
                return "unknown";
        return disturb_names[d];
}
