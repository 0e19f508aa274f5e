/** @file The window guard's arithmetic, the same on every architecture (see window.h); the
 * clock and the guard's probes are per architecture (bench/x86/window_x86.c,
 * bench/arm64/window_arm64.c). */
#include "bench/window.h"

#include "lib/base.h"

/* Inconsistency bound: the 2N run may differ from twice the N run by t_n / 2^SHIFT. */
#define CONSISTENCY_SHIFT 3

static const char *const disturb_names[] = {
        [BENCH_WIN_OK]            = "ok",
        [BENCH_WIN_SMI]           = "SMI count moved",
        [BENCH_WIN_INCONSISTENT]  = "N and 2N runs disagree",
        [BENCH_WIN_NOT_MONOTONIC] = "2N run not longer than N run",
        [BENCH_WIN_STOLEN]        = "CPU taken away (context switch)",
};

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
        w.core_d  = c - sp->core0;
        w.ppm_max = src->ppm_max;
        w.ref_d  = r - sp->ref0;
        return bench_window_core_ppm(&w);
}

uint32_t bench_window_core_ppm(const struct bench_window *w)
{
        unsigned __int128 v;

        if (!w || !w->ref_d || !w->core_d)
                return 0;
        uint64_t max = w->ppm_max ? w->ppm_max : BENCH_CORE_PPM_MAX;
        v = ((unsigned __int128)w->core_d * 1000000u + w->ref_d / 2) / w->ref_d;
        return v < BENCH_CORE_PPM_MIN || v > max ? 0 : (uint32_t)v;
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
