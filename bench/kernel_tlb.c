/** @file Timed dTLB chase and iTLB jump-chain kernels (see kernel_tlb.h), the same on every
 * architecture; the timer is bench_timer_now() (bench/window.h) and the translation-table
 * control registers are per architecture (bench/x86/tlb_ctl.c, bench/arm64/tlb_ctl.c). */
#include "bench/kernel_tlb.h"
#include "lib/stats.h"

#include "boot/cpu.h"
#include "boot/plat.h"
#include "bench/window.h"

#define WARM_LAPS 2
/* A window is kept when its 2L run took 2x its L run within 1/8: an interrupt, an SMI or a
 * preempted vCPU lands in one of the two runs and breaks the ratio. Disturbed windows are
 * retried, up to this many attempts per window wanted. */
#define CONSISTENT_SHIFT 3
#define ATTEMPTS_PER_WINDOW 4

/* The chase: a chain of dependent loads; the asm keeps the compiler from seeing through it. */
static __attribute__((noinline)) void *chase(void *p, uint64_t n)
{
        while (n--) {
                p = *(void *const *)p;
                __asm__ volatile("" : "+r"(p));
        }
        return p;
}

static __attribute__((noinline)) void call_chain(void (*entry)(void), uint64_t laps)
{
        while (laps--) {
                entry();
                __asm__ volatile("" ::: "memory");
        }
}

static uint64_t absdiff(uint64_t x, uint64_t y)
{
        return x > y ? x - y : y - x;
}

static bool consistent(uint64_t t0, uint64_t t1, uint64_t t2)
{
        uint64_t a = t1 - t0, b = t2 - t1;

        if (t1 <= t0 || t2 <= t1 || b <= a)
                return false;
        return absdiff(b, 2 * a) <= (2 * a) >> CONSISTENT_SHIFT;
}

static uint64_t stamp(const struct bench_tlb_run *run)
{
        return run->stamp ? run->stamp(run->stamp_ctx) : bench_timer_now();
}

static bool run_ok(const struct bench_tlb_run *run)
{
        return run && run->n_windows >= BENCH_TLB_MIN_WINDOWS &&
               run->n_windows <= BENCH_TLB_MAX_WINDOWS;
}

static uint64_t laps_for(const struct bench_tlb_run *run, uint32_t n_pages)
{
        uint64_t l = (run->min_accesses + n_pages - 1) / n_pages;

        return l ? l : 1;
}

static status_t summarise(uint64_t *v, size_t n, uint32_t n_pages, struct tlb_point *out)
{
        if (!n)
                return ST_DISTURBED;
        lib_sort_u64(v, n);
        out->n_pages   = n_pages;
        out->n_windows = (uint32_t)n;
        out->min_mcyc  = v[0];
        out->p10_mcyc  = lib_pct_nearest_rank(v, n, 10);
        out->p50_mcyc  = lib_pct_nearest_rank(v, n, 50);
        out->p90_mcyc  = lib_pct_nearest_rank(v, n, 90);
        return ST_OK;
}

/* Close the chain through base + off[i] and time it; per-load medians etc. into @out. */
static status_t time_chain(uint8_t *base, const uint64_t *off, uint32_t n,
                           const struct bench_tlb_run *run, struct tlb_point *out)
{
        uint64_t v[BENCH_TLB_MAX_WINDOWS];
        uint64_t laps = laps_for(run, n), loads = laps * n;
        size_t   k    = 0;
        void    *p    = base + off[0];

        for (uint32_t i = 0; i < n; i++)
                *(void **)(base + off[i]) = base + off[i + 1 == n ? 0 : i + 1];
        p = chase(p, WARM_LAPS * (uint64_t)n);
        for (uint32_t w = 0; w < run->n_windows * ATTEMPTS_PER_WINDOW && k < run->n_windows;
             w++) {
                uint64_t saved, t0, t1, t2;
                bool     masked = cpu_irq_disable(&saved);

                (void)masked;
                t0 = stamp(run);
                p  = chase(p, loads);
                t1 = stamp(run);
                p  = chase(p, 2 * loads);
                t2 = stamp(run);
                cpu_irq_restore(saved);
                if (consistent(t0, t1, t2))
                        v[k++] = ((t2 - t1) - (t1 - t0)) * 1000 / loads;
        }
        __asm__ volatile("" ::"r"(p));
        return summarise(v, k, n, out);
}

/* ---- public ---- */

/* Follow the chain n loads from its start: it must come back exactly then, not before. */
static bool chain_closed(uint8_t *base, const uint64_t *off, uint32_t n)
{
        void *start = base + off[0], *p = start;

        for (uint32_t i = 0; i < n; i++) {
                p = *(void *const *)p;
                if (p == start)
                        return i + 1 == n;
        }
        return false;
}

status_t bench_dtlb_measure_off(uint8_t *win, uint64_t win_bytes, uint8_t *ctl,
                                uint64_t ctl_bytes, const struct bench_tlb_cfg *cfg,
                                const struct bench_tlb_run *run, uint64_t *off, size_t n_off,
                                struct tlb_point *out)
{
        uint64_t         span;
        struct tlb_point c = { 0 };
        status_t         st;

        if (!win || !out || !off || !run_ok(run) || bench_tlb_span(cfg, &span) != ST_OK ||
            win_bytes < span || n_off != cfg->n_pages ||
            (ctl && ctl_bytes < (uint64_t)cfg->n_pages * BENCH_TLB_LINE_BYTES))
                return ST_BAD_ARG;
        st = bench_tlb_plan(cfg, off, n_off);
        if (st == ST_OK)
                st = time_chain(win, off, cfg->n_pages, run, out);
        if (st == ST_OK && !chain_closed(win, off, cfg->n_pages))
                st = ST_BAD_DATA;
        if (st == ST_OK && ctl) {
                st = bench_tlb_control_plan(cfg, off, n_off);
                if (st == ST_OK)
                        st = time_chain(ctl, off, cfg->n_pages, run, &c);
                out->ctl_p50_mcyc = c.p50_mcyc;
        } else if (st == ST_OK) {
                out->ctl_p50_mcyc = 0;
        }
        return st;
}

status_t bench_dtlb_measure(uint8_t *win, uint64_t win_bytes, uint8_t *ctl, uint64_t ctl_bytes,
                            const struct bench_tlb_cfg *cfg, const struct bench_tlb_run *run,
                            struct tlb_point *out)
{
        uint64_t *off;
        status_t  st;

        if (!cfg || !cfg->n_pages)
                return ST_BAD_ARG;
        if (!(off = plat_alloc((size_t)cfg->n_pages * sizeof(*off))))
                return ST_NO_MEM;
        st = bench_dtlb_measure_off(win, win_bytes, ctl, ctl_bytes, cfg, run, off, cfg->n_pages,
                                    out);
        plat_free(off);
        return st;
}

status_t bench_itlb_measure(void (*entry)(void), uint32_t n_pages,
                            const struct bench_tlb_run *run, struct tlb_point *out)
{
        uint64_t v[BENCH_TLB_MAX_WINDOWS];
        uint64_t laps, jumps;
        size_t   k = 0;

        if (!entry || !n_pages || !out || !run_ok(run))
                return ST_BAD_ARG;
        laps  = laps_for(run, n_pages);
        jumps = laps * n_pages;
        call_chain(entry, WARM_LAPS);
        for (uint32_t w = 0; w < run->n_windows * ATTEMPTS_PER_WINDOW && k < run->n_windows;
             w++) {
                uint64_t saved, t0, t1, t2;
                bool     masked = cpu_irq_disable(&saved);

                (void)masked;
                t0 = stamp(run);
                call_chain(entry, laps);
                t1 = stamp(run);
                call_chain(entry, 2 * laps);
                t2 = stamp(run);
                cpu_irq_restore(saved);
                if (consistent(t0, t1, t2))
                        v[k++] = ((t2 - t1) - (t1 - t0)) * 1000 / jumps;
        }
        out->ctl_p50_mcyc = 0;
        return summarise(v, k, n_pages, out);
}
