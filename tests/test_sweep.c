/** @file Unit tests for bench/sweep.c (planning, refinement, statistics) and the pure parts
 *  of bench/window.c (window checks and latency arithmetic). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "boot/plat.h"
#include "bench/sweep.h"
#include "bench/window.h"

#define CAP 2048

static int cmp_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
        return x < y ? -1 : x > y;
}

/* ---- plan ---- */

static const struct {
        uint64_t min, max;
        uint32_t steps, line;
} plans[] = {
        /* min        max                 steps line */
        { 4096,       128ull << 20,       4,    64 },
        { 4096,       4ull << 20,         4,    64 },
        { 4096,       4096,               4,    64 },   /* one point */
        { 4096,       5000,               4,    64 },   /* max not on the grid */
        { 4096,       1ull << 30,         8,    64 },
        { 4096,       64ull << 20,        5,    128 },
        { 100,        1000000,            6,    64 },   /* min rounded to a line */
        { 64,         2048,               16,   64 },   /* steps finer than lines allow */
};

static void test_plan_properties(void **state)
{
        static uint64_t ws[CAP];
        (void)state;

        for (size_t c = 0; c < sizeof(plans) / sizeof(plans[0]); c++) {
                size_t   n = 0;
                uint64_t line = plans[c].line, max_r = plans[c].max / line * line;

                assert_int_equal(bench_plan_sweep(plans[c].min, plans[c].max, plans[c].steps,
                                                  plans[c].line, ws, CAP, &n), ST_OK);
                assert_true(n >= 1);
                assert_int_equal(ws[n - 1], max_r);                 /* ends at max */
                assert_true(ws[0] >= line && ws[0] <= plans[c].min + line); /* starts at min */
                for (size_t i = 0; i < n; i++) {
                        assert_int_equal(ws[i] % line, 0);         /* whole lines */
                        assert_true(ws[i] <= max_r);               /* bounds */
                        if (i)
                                assert_true(ws[i] > ws[i - 1]);    /* strictly increasing */
                }
                /* >= steps per octave: every octave [x, 2x) fully inside the range holds at
                 * least `steps` points, unless line rounding can merge neighbours. */
                for (uint64_t x = ws[0]; 2 * x <= max_r; x *= 2) {
                        size_t k = 0;
                        for (size_t i = 0; i < n; i++)
                                k += ws[i] >= x && ws[i] < 2 * x;
                        if (x / line >= 2 * plans[c].steps)
                                assert_true(k >= plans[c].steps);
                }
                /* Consecutive ratio at most 2^(1/steps) + one line of rounding. */
                uint32_t r = bench_root2_fixed(plans[c].steps);
                for (size_t i = 1; i < n; i++)
                        assert_true(ws[i] * 65536 <= ws[i - 1] * r + 2 * line * 65536);
        }
}

static void test_plan_errors(void **state)
{
        uint64_t ws[8];
        size_t   n = 99;
        (void)state;

        assert_int_equal(bench_plan_sweep(4096, 1 << 20, 4, 64, ws, 8, &n), ST_NO_SPACE);
        assert_int_equal(n, 8);
        assert_int_equal(bench_plan_sweep(4096, 1 << 20, 4, 64, ws, 8, NULL), ST_BAD_ARG);
        assert_int_equal(bench_plan_sweep(8192, 4096, 4, 64, ws, 8, &n), ST_BAD_ARG);
        assert_int_equal(bench_plan_sweep(4096, 8192, 0, 64, ws, 8, &n), ST_BAD_ARG);
        assert_int_equal(bench_plan_sweep(0, 8192, 4, 64, ws, 8, &n), ST_BAD_ARG);
        assert_int_equal(bench_plan_sweep(4096, 8192, 4, 64, NULL, 8, &n), ST_BAD_ARG);
}

static void test_root2(void **state)
{
        static const struct { uint32_t steps, lo, hi; } cases[] = {
                { 1, 131072, 131072 }, { 2, 92681, 92682 }, { 4, 77935, 77936 },
                { 8, 71468, 71469 },   { 16, 68438, 68439 },
        };
        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                uint32_t r = bench_root2_fixed(cases[i].steps);
                assert_in_range(r, cases[i].lo, cases[i].hi);
        }
}

static void test_max_bytes(void **state)
{
        struct cpu_info cpu = { 0 };
        (void)state;

        cpu.caches[0] = (struct cpu_cache){ .level = 1, .type = CACHE_DATA, .size_bytes = 32 * KiB };
        cpu.caches[1] = (struct cpu_cache){ .level = 1, .type = CACHE_INST, .size_bytes = 64 * MiB };
        cpu.caches[2] = (struct cpu_cache){ .level = 2, .type = CACHE_UNIFIED, .size_bytes = 1 * MiB };
        cpu.caches[3] = (struct cpu_cache){ .level = 3, .type = CACHE_UNIFIED, .size_bytes = 32 * MiB };
        cpu.n_caches  = 4;
        assert_int_equal(bench_plan_max_bytes(&cpu, 0, 0, 0), 128 * MiB);          /* 4 x L3 */
        assert_int_equal(bench_plan_max_bytes(&cpu, 0, 100 * MiB, 0), 100 * MiB);  /* memory */
        assert_int_equal(bench_plan_max_bytes(&cpu, 8 * MiB, 100 * MiB, 0), 8 * MiB); /* config */
        assert_int_equal(bench_plan_max_bytes(&cpu, 0, 100 * MiB, 4 * MiB), 4 * MiB); /* profile */
        assert_int_equal(bench_plan_max_bytes(&cpu, 0, 5000, 0), 4 * KiB);          /* floor */
        assert_int_equal(bench_plan_max_bytes(&cpu, 3 * MiB + 100, 0, 0), 3 * MiB);  /* 4K round */
        /* the config may ask for more than 4 x L3, up to the memory and the profile's cap */
        assert_int_equal(bench_plan_max_bytes(&cpu, 512 * MiB, 0, 0), 512 * MiB);
        assert_int_equal(bench_plan_max_bytes(&cpu, 512 * MiB, 300 * MiB, 0), 300 * MiB);
        assert_int_equal(bench_plan_max_bytes(&cpu, 512 * MiB, 0, 4 * MiB), 4 * MiB);
        assert_int_equal(bench_plan_max_bytes(NULL, 0, 0, 0), 64 * MiB);             /* no CPUID */
}

/* ---- refinement ---- */

/* A synthetic curve: 4 cycles up to cap1, 14 up to cap2, 50 beyond; +-2% window spread. */
static struct lat_point synth(uint64_t ws, uint64_t cap1, uint64_t cap2)
{
        uint64_t v = ws <= cap1 ? 4000 : ws <= cap2 ? 14000 : 50000;

        return (struct lat_point){ .ws_bytes = ws, .n_windows = 11, .min_mcyc = v - v / 40,
                                   .p10_mcyc = v - v / 50, .p50_mcyc = v, .p90_mcyc = v + v / 50 };
}

/* Points from a list of (ws, p50) with a tight spread. */
static void fill(struct lat_point *pts, const uint64_t (*v)[2], size_t n)
{
        for (size_t i = 0; i < n; i++)
                pts[i] = (struct lat_point){ .ws_bytes = v[i][0], .p10_mcyc = v[i][1] - 10,
                                             .p50_mcyc = v[i][1], .p90_mcyc = v[i][1] + 10 };
}

static void test_refine_locates_steps(void **state)
{
        static uint64_t         ws[CAP];
        static struct lat_point pts[CAP];
        const uint64_t          caps[][2] = { { 32 * KiB, 1 * MiB }, { 48 * KiB, 1280 * KiB },
                                              { 40 * KiB + 64, 3 * MiB - 4096 } };
        struct bench_refine_cfg rule = { .jump_permille = 80, .jump_min_mcyc = 250,
                                         .fine_steps_per_octave = 16, .line_bytes = 64 };
        (void)state;

        for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
                size_t n_ws, n = 0, n_measured;
                assert_int_equal(bench_plan_sweep(4096, 16 * MiB, 4, 64, ws, CAP, &n_ws), ST_OK);
                for (size_t i = 0; i < n_ws; i++) {
                        struct lat_point p = synth(ws[i], caps[c][0], caps[c][1]);
                        assert_int_equal(bench_curve_insert(pts, &n, CAP, &p), ST_OK);
                }
                n_measured = n;
                for (int round = 0; round < 20; round++) {
                        uint64_t add[16];
                        size_t   k = bench_plan_refine(pts, n, &rule, add, 16);
                        if (!k)
                                break;
                        for (size_t i = 0; i < k; i++) {
                                struct lat_point p = synth(add[i], caps[c][0], caps[c][1]);
                                assert_true(i == 0 || add[i] > add[i - 1]);
                                assert_int_equal(add[i] % 64, 0);
                                assert_int_equal(bench_curve_insert(pts, &n, CAP, &p), ST_OK);
                        }
                }
                assert_true(n > n_measured); /* it did insert points */
                /* Each capacity is now bracketed within one fine step (1/16 octave). */
                for (size_t i = 0; i + 1 < n; i++) {
                        if (pts[i + 1].p50_mcyc == pts[i].p50_mcyc)
                                continue;
                        uint64_t lo = pts[i].ws_bytes, hi = pts[i + 1].ws_bytes;
                        assert_true(lo <= caps[c][0] || lo <= caps[c][1]);
                        assert_true(hi * 65536 <= lo * (uint64_t)bench_root2_fixed(16) + 64 * 65536);
                }
        }
}

static void test_refine_leaves_flat_and_small_alone(void **state)
{
        struct lat_point pts[32];
        uint64_t         add[8];
        struct bench_refine_cfg rule = { .jump_permille = 80, .jump_min_mcyc = 250,
                                         .fine_steps_per_octave = 16, .line_bytes = 64 };
        (void)state;

        for (size_t i = 0; i < 32; i++)     /* flat with +-3% noise and a slow slope: no jump */
                pts[i] = (struct lat_point){ .ws_bytes = 4096 + i * 4096,
                                             .p10_mcyc = 9500, .p50_mcyc = 10000 + (i % 2) * 300 + i * 10,
                                             .p90_mcyc = 11000 };
        assert_int_equal(bench_plan_refine(pts, 32, &rule, add, 8), 0);

        static const uint64_t drop[][2] = { { 4096, 50000 }, { 8192, 5000 } };
        static const uint64_t apart[][2] = { { 6400, 1000 }, { 6464, 9000 } };
        static const uint64_t spike[][2] = { { 4096, 4000 }, { 8192, 40000 }, { 16384, 4100 } };
        static const uint64_t lasting[][2] = { { 4096, 4000 }, { 8192, 40000 }, { 16384, 39000 } };
        static const uint64_t three[][2] = { { 4096, 1000 }, { 16384, 2000 }, { 65536, 20000 } };
        struct lat_point      p[3];

        fill(p, drop, 2);                   /* a drop in latency is not a capacity */
        assert_int_equal(bench_plan_refine(p, 2, &rule, add, 8), 0);
        fill(p, apart, 2);                  /* neighbours a line apart cannot be split */
        rule.fine_steps_per_octave = 4096;
        assert_int_equal(bench_plan_refine(p, 2, &rule, add, 8), 0);
        rule.fine_steps_per_octave = 16;
        fill(p, spike, 3);                  /* a one-point spike is noise */
        assert_int_equal(bench_plan_refine(p, 3, &rule, add, 8), 0);
        fill(p, lasting, 3);                /* the same rise, lasting, is refined */
        assert_int_equal(bench_plan_refine(p, 3, &rule, add, 8), 1);
        assert_int_equal(add[0], 5824);     /* sqrt(4096 * 8192) = 5792.6 -> line 5824 */
        fill(p, lasting, 3);                /* overlapping windows: not a jump */
        p[1].p10_mcyc = 3000;
        assert_int_equal(bench_plan_refine(p, 3, &rule, add, 8), 0);
        assert_int_equal(bench_plan_refine(NULL, 2, &rule, add, 8), 0);
        assert_int_equal(bench_plan_refine(p, 1, &rule, add, 8), 0);
        fill(p, three, 3);                  /* the cap is honoured, the biggest jump wins */
        assert_int_equal(bench_plan_refine(p, 3, &rule, add, 1), 1);
        assert_int_equal(add[0], 32768);
}

/* ---- statistics ---- */

static void test_point_stats_oracle(void **state)
{
        static const size_t sizes[] = { 1, 2, 10, 11, 12, 33, 100 };
        uint64_t            v[100], sorted[100];
        struct lat_point    pt;
        (void)state;

        srand(7);
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
                size_t n = sizes[s];
                for (size_t i = 0; i < n; i++)
                        v[i] = sorted[i] = (uint64_t)(rand() % 100000);
                qsort(sorted, n, sizeof(*sorted), cmp_u64);
                assert_int_equal(bench_point_stats(v, n, &pt), ST_OK);
                assert_int_equal(pt.n_windows, n);
                assert_int_equal(pt.min_mcyc, sorted[0]);
                /* nearest rank: the smallest value with at least p% of values <= it */
                const unsigned pc[3]  = { 10, 50, 90 };
                const uint64_t got[3] = { pt.p10_mcyc, pt.p50_mcyc, pt.p90_mcyc };
                for (int k = 0; k < 3; k++) {
                        size_t le = 0;
                        for (size_t i = 0; i < n; i++)
                                le += sorted[i] <= got[k];
                        assert_true(le * 100 >= pc[k] * n);
                        size_t lt = 0;
                        for (size_t i = 0; i < n; i++)
                                lt += sorted[i] < got[k];
                        assert_true(lt * 100 < pc[k] * n);
                }
                assert_true(pt.min_mcyc <= pt.p10_mcyc && pt.p10_mcyc <= pt.p50_mcyc &&
                            pt.p50_mcyc <= pt.p90_mcyc);
                /* the median's interval: sample values around p50 */
                assert_true(pt.p50_lo_mcyc <= pt.p50_mcyc && pt.p50_mcyc <= pt.p50_hi_mcyc);
                if (n >= 33)
                        assert_true(pt.p50_lo_mcyc > sorted[0] && pt.p50_hi_mcyc < sorted[n - 1]);
        }
        assert_int_equal(bench_point_stats(v, 0, &pt), ST_BAD_ARG);
        assert_int_equal(bench_point_stats(NULL, 3, &pt), ST_BAD_ARG);
}

/* The adaptive stop: a median known within +/- permille. */
static void test_point_settled(void **state)
{
        static const struct {
                uint64_t lo, p50, hi;
                uint32_t permille;
                bool     want;
        } cases[] = {
                { 990, 1000, 1010, 10, true },   /* +/- 1 %: exactly the target */
                { 989, 1000, 1010, 10, false },  /* 2.1 % wide */
                { 950, 1000, 1050, 50, true },
                { 1000, 1000, 1000, 0, true },   /* no spread at all */
                { 0, 0, 0, 10, false },          /* nothing measured */
                { 1010, 1000, 990, 10, false },  /* an inverted interval is not a result */
        };
        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct lat_point pt = { .p50_lo_mcyc = cases[i].lo, .p50_mcyc = cases[i].p50,
                                        .p50_hi_mcyc = cases[i].hi };
                assert_int_equal(bench_point_settled(&pt, cases[i].permille), cases[i].want);
        }
        assert_false(bench_point_settled(NULL, 10));
}

/* Outliers: a spike or a dip off both neighbours beyond the margin and its own interval; a
 * step (monotone) never is, nor are the ends. */
static void test_point_outlier(void **state)
{
        static const struct {
                uint64_t a, b, c;    /* p50 of three neighbours */
                uint64_t lo, hi;     /* b's interval */
                bool     want;
        } cases[] = {
                { 1000, 1200, 1010, 1180, 1220, true },  /* spike 19 % */
                { 1000, 800, 1010, 790, 810, true },     /* dip 20 % */
                { 1000, 1040, 1010, 1030, 1050, false }, /* 3 %: within the margin */
                { 1000, 1200, 1010, 900, 1300, false },  /* its own interval covers 1010 */
                { 1000, 2000, 4000, 1900, 2100, false }, /* a rise */
                { 4000, 4000, 4000, 3000, 5000, false }, /* flat */
                { 4000, 3000, 2000, 2900, 3100, false }, /* a fall is monotone too */
        };
        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct lat_point pts[3] = {
                        { .p50_mcyc = cases[i].a },
                        { .p50_mcyc = cases[i].b, .p50_lo_mcyc = cases[i].lo,
                          .p50_hi_mcyc = cases[i].hi },
                        { .p50_mcyc = cases[i].c },
                };
                assert_int_equal(bench_point_outlier(pts, 3, 1, 50), cases[i].want);
                assert_false(bench_point_outlier(pts, 3, 0, 50));
                assert_false(bench_point_outlier(pts, 3, 2, 50));
        }
}

static void test_curve_insert(void **state)
{
        struct lat_point pts[3];
        size_t           n = 0;
        const uint64_t   order[] = { 300, 100, 200 };
        (void)state;

        for (size_t i = 0; i < 3; i++) {
                struct lat_point p = { .ws_bytes = order[i], .p50_mcyc = order[i] };
                assert_int_equal(bench_curve_insert(pts, &n, 3, &p), ST_OK);
        }
        assert_int_equal(n, 3);
        assert_true(pts[0].ws_bytes == 100 && pts[1].ws_bytes == 200 && pts[2].ws_bytes == 300);
        struct lat_point dup = { .ws_bytes = 200, .p50_mcyc = 7 };
        assert_int_equal(bench_curve_insert(pts, &n, 3, &dup), ST_OK); /* replaces */
        assert_int_equal(pts[1].p50_mcyc, 7);
        struct lat_point more = { .ws_bytes = 50 };
        assert_int_equal(bench_curve_insert(pts, &n, 3, &more), ST_NO_SPACE);
}

/* ---- window arithmetic ---- */

static void test_window(void **state)
{
        static const struct {
                struct bench_window w;
                uint64_t            n_loads;
                enum bench_disturb  check;
                status_t            st;
                uint64_t            lat;
                uint32_t            ppm;
        } cases[] = {
                /* clean: 1000 loads cost 4000 ticks, 100 ticks of overhead each run */
                { { .t_n = 4100, .t_2n = 8100 }, 1000, BENCH_WIN_OK, ST_OK, 4000, 0 },
                /* a core source read 3:2 over the window: the figure stays in TSC ticks and
                 * the window's ratio is 1.5 core cycles per tick */
                { { .t_n = 4100, .t_2n = 8100, .core_d = 3000, .ref_d = 2000 }, 1000,
                  BENCH_WIN_OK, ST_OK, 4000, 1500000 },
                /* a ratio outside 1/8 .. 8 is a failed reading, not a clock */
                { { .t_n = 4100, .t_2n = 8100, .core_d = 9000, .ref_d = 1000 }, 1000,
                  BENCH_WIN_OK, ST_OK, 4000, 0 },
                { { .t_n = 4100, .t_2n = 8100, .core_d = 100, .ref_d = 1000 }, 1000,
                  BENCH_WIN_OK, ST_OK, 4000, 0 },
                { { .t_n = 4100, .t_2n = 8100, .core_d = 1000, .ref_d = 0 }, 1000,
                  BENCH_WIN_OK, ST_OK, 4000, 0 },
                /* SMI during the window */
                { { .t_n = 4100, .t_2n = 8100, .smi_before = 5, .smi_after = 6 }, 1000,
                  BENCH_WIN_SMI, ST_OK, 4000, 0 },
                /* the platform took the CPU away (hosted context switch) */
                { { .t_n = 4100, .t_2n = 8100, .steal_before = 3, .steal_after = 4 }, 1000,
                  BENCH_WIN_STOLEN, ST_OK, 4000, 0 },
                /* an interrupt in the 2N run */
                { { .t_n = 4100, .t_2n = 20000 }, 1000, BENCH_WIN_INCONSISTENT, ST_OK, 15900, 0 },
                /* an interrupt in the N run: 2N not longer */
                { { .t_n = 9000, .t_2n = 8100 }, 1000, BENCH_WIN_NOT_MONOTONIC, ST_BAD_ARG, 0, 0 },
                /* zero loads */
                { { .t_n = 4100, .t_2n = 8100 }, 0, BENCH_WIN_OK, ST_BAD_ARG, 0, 0 },
                /* huge counts do not overflow */
                { { .t_n = 1ull << 40, .t_2n = (1ull << 41), .core_d = 1ull << 40,
                    .ref_d = 1ull << 40 }, 1ull << 30, BENCH_WIN_OK, ST_OK, 1024000, 1000000 },
        };
        (void)state;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                uint64_t lat = 0;
                assert_int_equal(bench_window_check(&cases[i].w, 64), cases[i].check);
                assert_int_equal(bench_window_latency(&cases[i].w, cases[i].n_loads, &lat),
                                 cases[i].st);
                if (cases[i].st == ST_OK)
                        assert_int_equal(lat, cases[i].lat);
                assert_int_equal(bench_window_core_ppm(&cases[i].w), cases[i].ppm);
        }
        /* a generic timer 16x slower than the core (QEMU: 1 GHz cycles, 62.5 MHz timer): a
         * failed reading against a TSC, a ratio where the source allows it */
        struct bench_window g = { .t_n = 4100, .t_2n = 8100, .core_d = 16000, .ref_d = 1000 };
        assert_int_equal(bench_window_core_ppm(&g), 0);
        g.ppm_max = BENCH_CORE_PPM_MAX_TIMER;
        assert_int_equal(bench_window_core_ppm(&g), 16000000);
        g.core_d = 2000000;
        assert_int_equal(bench_window_core_ppm(&g), 0); /* 2000 per tick: past 1024 */
        struct bench_window w = { .t_n = 4100, .t_2n = 8100 };
        assert_int_equal(bench_window_overhead_mcyc(&w), 100000);
        assert_int_equal(bench_window_latency(NULL, 10, &(uint64_t){ 0 }), ST_BAD_ARG);
        assert_string_equal(bench_disturb_name(BENCH_WIN_SMI), "SMI count moved");
        assert_string_equal(bench_disturb_name((enum bench_disturb)99), "unknown");
}

static void test_profiles(void **state)
{
        (void)state;
        for (int p = 0; p < BENCH_PROFILE__COUNT; p++) {
                const struct bench_profile_desc *d = bench_profile_desc(p);
                assert_non_null(d);
                assert_true(d->steps_per_octave >= 4);
                assert_true(d->fine_steps_per_octave >= d->steps_per_octave);
                assert_true(d->iters_per_run > 0 && d->min_bytes >= 4096);
        }
        assert_null(bench_profile_desc(BENCH_PROFILE__COUNT));
        assert_string_equal(bench_profile_name(BENCH_PROFILE_QUICK), "quick");
        assert_true(bench_profile_desc(BENCH_PROFILE_QUICK)->iters_per_run <
                    bench_profile_desc(BENCH_PROFILE_FULL)->iters_per_run);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_plan_properties),
                cmocka_unit_test(test_plan_errors),
                cmocka_unit_test(test_root2),
                cmocka_unit_test(test_max_bytes),
                cmocka_unit_test(test_refine_locates_steps),
                cmocka_unit_test(test_refine_leaves_flat_and_small_alone),
                cmocka_unit_test(test_point_stats_oracle),
                cmocka_unit_test(test_point_settled),
                cmocka_unit_test(test_point_outlier),
                cmocka_unit_test(test_curve_insert),
                cmocka_unit_test(test_window),
                cmocka_unit_test(test_profiles),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
