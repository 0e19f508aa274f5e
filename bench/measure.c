/** @file The latency sweep runner (see measure.h): set-up, the buffer, the clock summary.
 *  Calls measure_points.c (the points) and measure_on.c (the CPU work); neither calls back. */
#include "bench/measure.h"
#include "bench/measure_priv.h"

#include "lib/log.h"
#include "lib/stats.h"
#include "bench/kernel_chase.h"

static const char *const page_names[] = {
        [PLAT_PAGE_4K] = "4k",
        [PLAT_PAGE_2M] = "2m",
        [PLAT_PAGE_1G] = "1g",
};

/* run_on's local default: the job runs here, on the calling CPU. */
static status_t run_here(void *ctx, void (*fn)(void *arg), void *arg)
{
        (void)ctx;
        fn(arg);
        return ST_OK;
}

/* The curve's core clock: the median and range of the points' ratios. */
static void curve_clock(const struct bench_clock *clk, struct lat_curve *c)
{
        uint64_t *r = plat_alloc((c->n ? c->n : 1) * sizeof(*r));
        size_t    n = 0;

        c->core_source = clk->core.name;
        c->core_why    = clk->core.name ? NULL : clk->core.why_none;
        c->timer       = clk->timer;
        for (size_t i = 0; r && i < c->n; i++)
                if (c->pts[i].core_ppm)
                        r[n++] = c->pts[i].core_ppm;
        if (n) {
                lib_sort_u64(r, n);
                c->core_ppm    = (uint32_t)r[(n - 1) / 2];
                c->core_ppm_lo = (uint32_t)r[0];
                c->core_ppm_hi = (uint32_t)r[n - 1];
                c->core_hz = (uint64_t)(((unsigned __int128)c->tsc_hz * c->core_ppm + 500000u) /
                                        1000000u);
        } else if (clk->core.name) {
                c->core_why = "the core clock source gave no usable ratio in any window";
        }
        plat_free(r);
}

/* The sweep's settings: repetitions and window caps, the guard and the clock, and the largest
 * working set the memory and the profile allow. */
static void sweep_setup(const struct bench_sweep_cfg *cfg, const struct cpu_info *cpu,
                        struct sweep *s, struct bench_sweep_info *info)
{
        struct plat_mem_summary mem = { 0 };
        uint64_t                cap_bytes;

        *info = (struct bench_sweep_info){ 0 };
        s->run_on     = cfg->run_on ? cfg->run_on : run_here;
        s->run_on_ctx = cfg->run_on ? cfg->run_on_ctx : NULL;
        info->repetitions   = cfg->repetitions < BENCH_MIN_REPETITIONS ? BENCH_MIN_REPETITIONS
                                                                       : cfg->repetitions;
        info->loads_per_run = s->prof->iters_per_run * BENCH_CHASE_UNROLL;
        info->ci_permille   = cfg->ci_permille ? cfg->ci_permille : CI_PERMILLE;
        info->max_windows   = cfg->max_windows ? cfg->max_windows
                                               : info->repetitions * MAX_WINDOWS_FACTOR;
        if (info->max_windows < info->repetitions)
                info->max_windows = info->repetitions;

        bench_guard_init(&info->guard, cpu);
        info->guard.steal_count = cfg->steal_count;
        info->guard.steal_ctx   = cfg->steal_ctx;
        if (cfg->clock)
                info->clock = *cfg->clock;
        else
                bench_clock_init(&info->clock, cpu, CLOCK_CALIB_US, &info->guard);

        cap_bytes = s->prof->max_bytes_cap;
        if (plat_mem_map(&mem, NULL, 0, NULL) != ST_OK)
                mem.conventional_bytes = 0;
        /* asked for (sweep_max_mib): also beyond four times the largest cache */
        info->max_bytes  = bench_plan_max_bytes(cpu, cfg->max_bytes, mem.conventional_bytes / 2,
                                                cap_bytes);
        s->no_warm_bytes = bench_plan_max_bytes(cpu, 0, 0, 0) / 2; /* 4x largest / 2 */

}

/* One buffer for the whole sweep (halving the range when the memory is not there), mapped with
 * the page size asked for where the caller can remap it; each point lays its chain over a
 * prefix of it. */
static status_t sweep_buffer(const struct bench_sweep_cfg *cfg, struct sweep *s,
                             struct bench_sweep_info *info)
{
        struct bench_chase_buf_cfg bc = { .page = cfg->page, .no_chain = true };
        status_t                   st;

        info->planned_bytes = info->max_bytes;
        for (;;) {
                bc.bytes = (info->max_bytes + bench_page_bytes(cfg->page) - 1) /
                           bench_page_bytes(cfg->page) * bench_page_bytes(cfg->page);
                st = bench_chase_buf_create(&s->cb, &bc);
                if (st != ST_NO_MEM || info->max_bytes <= MIN_FALLBACK_BYTES)
                        break;
                info->max_bytes /= 2;
        }
        if (st != ST_OK)
                return log_err(st, "allocating %llu bytes for the sweep",
                               (unsigned long long)bc.bytes);
        info->page_got = s->cb.page_got;
        /* Asked and obtained differ (the firmware's identity map decides): the caller may map
         * the buffer as asked in tables of its own, switched inside each window. */
        info->page_used = info->page_got;
        if (cfg->remap && info->page_got != cfg->page) {
                if (cfg->remap(cfg->remap_ctx, s->cb.buf, s->cb.bytes, cfg->page, info->page_got,
                               &info->guard.hooks) == ST_OK && info->guard.hooks.enter) {
                        info->page_used = cfg->page;
                        info->remapped  = true;
                } else {
                        info->guard.hooks = (struct bench_window_hooks){ 0 };
                }
        }
        return ST_OK;
}

status_t bench_sweep_run(const struct bench_sweep_cfg *cfg, const struct cpu_info *cpu,
                         struct lat_curve *out, struct bench_sweep_info *info)
{
        struct sweep s = { .cfg = cfg, .info = info };
        size_t       cap;
        status_t     st;

        if (!cfg || !out || !info || !(s.prof = bench_profile_desc(cfg->profile)) ||
            (unsigned)cfg->layout >= BENCH_LAYOUT__COUNT || (unsigned)cfg->page > PLAT_PAGE_1G)
                return ST_BAD_ARG;
        *out = (struct lat_curve){ 0 };
        sweep_setup(cfg, cpu, &s, info);
        if ((st = sweep_buffer(cfg, &s, info)) != ST_OK)
                return st;
        cap       = 64u * 16u + s.prof->max_refine_points; /* 16 octaves of up to 64 steps */
        s.lat_cap = info->max_windows;
        out->pts  = plat_alloc(cap * sizeof(*out->pts));
        s.lat     = plat_alloc(s.lat_cap * sizeof(*s.lat));
        s.scratch = plat_alloc(s.lat_cap * sizeof(*s.scratch));
        if (!out->pts || !s.lat || !s.scratch) {
                st = ST_NO_MEM;
                goto done;
        }
        bench_sweep_prefetch_off(&s, cpu);
        st = bench_sweep_points(&s, out, cap);
        if (st == ST_OK && !out->n)
                st = ST_DISTURBED; /* every point disturbed throughout */
        if (bench_sweep_prefetch_restore(&s) != ST_OK)
                log_warn("could not restore MSR 0x%x to 0x%llx", (unsigned)info->prefetch.msr,
                         (unsigned long long)info->prefetch.saved);

        for (size_t i = 0; i < out->n; i++)
                info->n_settled += bench_point_settled(&out->pts[i], info->ci_permille);
        out->clock  = LAT_CLOCK_TSC; /* windows are timed in TSC ticks */
        out->tsc_hz = info->clock.tsc_hz;
        curve_clock(&info->clock, out);
done:
        plat_free(s.lat);
        plat_free(s.scratch);
        bench_chase_buf_destroy(&s.cb);
        if (st != ST_OK) {
                bench_sweep_free(out);
                if (st == ST_DISTURBED) /* not a fault: the caller says what was left out */
                        return st;
                return log_err(st, "sweep (%s, %s layout)", s.prof->name,
                               bench_layout_name(cfg->layout));
        }
        return ST_OK;
}

void bench_sweep_free(struct lat_curve *c)
{
        if (!c)
                return;
        plat_free(c->pts);
        c->pts = NULL;
        c->n   = 0;
}

const char *bench_page_name(enum plat_page_kind k)
{
        return (unsigned)k < ARRAY_SIZE(page_names) ? page_names[k] : "unknown";
}
