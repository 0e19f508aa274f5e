/** @file Level detection (analysis/levels.c) at its thresholds, each from both sides: the window
 *  spread and the point noise that make a curve NOISY (p90/p10 above 1.25, point-to-point
 *  noise above 9 %), the jump that separates two levels (a factor of 1.3), and the fewest
 *  points a detection needs. The curves are exact: 4 points per octave from 4 KiB, the
 *  latency a step function of the working set, the spread and zigzag given. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "boot/x86/cpuid.h"
#include "analysis/levels.h"

static struct lat_point pts[LAT_MAX_POINTS];

/* @p n points from 4 KiB, 4 per octave: @p base_cyc up to @p step_kib (0: none), @p factor
 * times it beyond; every point's p90/p10 is @p spread (p10 = p50 / sqrt(spread)); odd points
 * are @p zigzag higher and even points as much lower (1: none). */
static void curve(struct lat_curve *c, size_t n, double base_cyc, double step_kib, double factor,
                  double spread, double zigzag)
{
        memset(c, 0, sizeof(*c));
        c->pts = pts;
        c->n = n;
        c->clock = LAT_CLOCK_PMU_CYCLES;
        c->core_hz = 3000000000ull;
        c->tsc_hz = 3000000000ull;
        for (size_t i = 0; i < n; i++) {
                double kib = 4.0 * pow(2.0, (double)i / 4);
                double cyc = base_cyc * (step_kib > 0 && kib > step_kib ? factor : 1.0);

                cyc *= i % 2 ? zigzag : 1.0 / zigzag;
                uint64_t p50 = (uint64_t)llround(cyc * 1000);
                pts[i] = (struct lat_point){
                        .ws_bytes = (uint64_t)llround(kib * 1024), .n_windows = 11,
                        .min_mcyc = (uint64_t)llround(p50 / sqrt(spread)),
                        .p10_mcyc = (uint64_t)llround(p50 / sqrt(spread)), .p50_mcyc = p50,
                        .p90_mcyc = (uint64_t)llround(p50 * sqrt(spread)) };
        }
}

static uint64_t detect(const struct lat_curve *c, struct lat_levels *l)
{
        assert_int_equal(lv_detect(c, NULL, l), ST_OK);
        return l->flags;
}

/* NOISY: the median window spread p90/p10 above 1.25 (log2 82/256), or the point noise above
 * 9 % (32/256 of an octave); either alone is enough. */
static void test_noisy_edges(void **unused)
{
        struct lat_curve  c;
        struct lat_levels l;

        (void)unused;
        curve(&c, 40, 200, 0, 1, 1.20, 1);
        assert_false(detect(&c, &l) & LAT_F_NOISY);
        curve(&c, 40, 200, 0, 1, 1.30, 1);
        assert_true(detect(&c, &l) & LAT_F_NOISY);
        /* a zigzag of +-1.5 %: second differences of 6 %, a noise of 3.6 % */
        curve(&c, 40, 200, 0, 1, 1.05, 1.015);
        assert_false(detect(&c, &l) & LAT_F_NOISY);
        /* +-5 %: 12 % noise */
        curve(&c, 40, 200, 0, 1, 1.05, 1.05);
        assert_true(detect(&c, &l) & LAT_F_NOISY);
}

/* Two plateaus are two levels when the latency between them rises by a factor of 1.3 or more
 * (and 4 x the noise); less is one level (a TLB or a shared-cache slope, not a cache). */
static void test_jump_edges(void **unused)
{
        struct lat_curve  c;
        struct lat_levels l;

        (void)unused;
        curve(&c, 48, 100, 256, 1.40, 1.05, 1);
        detect(&c, &l);
        assert_int_equal(l.n, 2);
        curve(&c, 48, 100, 256, 1.34, 1.05, 1);
        detect(&c, &l);
        assert_int_equal(l.n, 2);
        curve(&c, 48, 100, 256, 1.25, 1.05, 1);
        detect(&c, &l);
        assert_int_equal(l.n, 1);
        assert_true(l.flags & LAT_F_NO_HIERARCHY);
}

/* A plateau's edge is the median of its last (first) three points, not its last (first)
 * point alone: a cache whose last three working sets before the step already read 5 % slow
 * (the first misses of the next level; the two nearest the step are rising points, the third
 * is the plateau's last) still sits 1.35 below the next level, two levels; a one-point edge
 * would see 1.35 / 1.05 = 1.29, under the 1.3 jump, and merge them. */
static void test_edge_points(void **unused)
{
        struct lat_curve  c;
        struct lat_levels l;

        (void)unused;
        curve(&c, 48, 100, 256, 1.35, 1.05, 1);
        for (size_t i = 22; i <= 24; i++) { /* 181, 215 and 256 KiB: the step is past 256 */
                pts[i].min_mcyc = pts[i].min_mcyc * 105 / 100;
                pts[i].p10_mcyc = pts[i].p10_mcyc * 105 / 100;
                pts[i].p50_mcyc = pts[i].p50_mcyc * 105 / 100;
                pts[i].p90_mcyc = pts[i].p90_mcyc * 105 / 100;
        }
        detect(&c, &l);
        assert_int_equal(l.n, 2);
        assert_int_equal(l.lv[0].lat_mcyc.p50, 100000);
        assert_int_equal(l.lv[1].lat_mcyc.p50, 135000);
}

/* A curve that ends rising (the sweep stopped inside a step): its last point is a level of
 * its own when it rose by the jump factor of 1.3 from the plateau before it, and the curve is
 * flagged TAIL_RISING; a rise of 1.25 is the plateau's own slope. Two points step up: the
 * median-of-3 smoothing keeps the last one at the step. */
static void test_tail_edges(void **unused)
{
        static const struct {
                double rise;
                size_t n_levels;
                bool   tail;
        } cases[] = {
                { 1.50, 2, true },
                { 1.35, 2, true },
                { 1.25, 1, false },
        };
        struct lat_curve  c;
        struct lat_levels l;

        (void)unused;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                curve(&c, 40, 100, 0, 1, 1.05, 1);
                for (size_t k = 0; k < 2; k++) { /* the last two points step up */
                        struct lat_point *p = &pts[c.n - 2 + k];
                        double f = cases[i].rise;
                        p->p10_mcyc = p->min_mcyc = (uint64_t)llround(p->p10_mcyc * f);
                        p->p50_mcyc = (uint64_t)llround(p->p50_mcyc * f);
                        p->p90_mcyc = (uint64_t)llround(p->p90_mcyc * f);
                }
                detect(&c, &l);
                if (l.n != cases[i].n_levels || !(l.flags & LAT_F_TAIL_RISING) != !cases[i].tail)
                        fail_msg("rise %.2f: %zu levels, flags %#llx", cases[i].rise, l.n,
                                 (unsigned long long)l.flags);
        }
}

/* Two levels whose window spreads touch (the first's p90 on the second's p10) overlap: the
 * bound between them is the geometric mean of the medians and the curve is flagged OVERLAP;
 * a spread one milli-cycle short of it does not, and the bound is the middle of the gap. */
static void test_overlap_edge(void **unused)
{
        struct lat_curve  c;
        struct lat_levels l;

        (void)unused;
        for (int gap = 0; gap <= 1; gap++) {
                curve(&c, 40, 100, 64, 2, 1.05, 1);
                detect(&c, &l);
                assert_int_equal(l.n, 2);
                assert_false(l.flags & LAT_F_OVERLAP);
                /* put every point's p90 of level 0 on level 1's p10, less the gap */
                uint64_t p10 = l.lv[1].lat_mcyc.p10;
                for (size_t i = l.lv[0].first; i <= l.lv[0].last; i++)
                        pts[i].p90_mcyc = p10 - (uint64_t)gap;
                detect(&c, &l);
                assert_int_equal(l.n, 2);
                assert_int_equal(l.lv[1].lat_mcyc.p10, p10);
                assert_int_equal(l.lv[0].lat_mcyc.p90, p10 - (uint64_t)gap);
                if (gap) {
                        assert_false(l.flags & LAT_F_OVERLAP);
                        assert_true(l.bound_mcyc[0] * l.bound_mcyc[0] <= (p10 - 1) * p10);
                        assert_true((l.bound_mcyc[0] + 1) * (l.bound_mcyc[0] + 1) > (p10 - 1) * p10);
                } else {
                        uint64_t m = l.lv[0].lat_mcyc.p50 * l.lv[1].lat_mcyc.p50;
                        assert_true(l.flags & LAT_F_OVERLAP);
                        assert_true(l.bound_mcyc[0] * l.bound_mcyc[0] <= m);
                        assert_true((l.bound_mcyc[0] + 1) * (l.bound_mcyc[0] + 1) > m);
                }
        }
}

/* Fewer than 5 points: one level, flagged; 5 detect as usual. */
static void test_few_points(void **unused)
{
        struct lat_curve  c;
        struct lat_levels l;

        (void)unused;
        curve(&c, 4, 100, 0, 1, 1.05, 1);
        assert_true(detect(&c, &l) & LAT_F_FEW_POINTS);
        assert_int_equal(l.n, 1);
        curve(&c, 5, 100, 0, 1, 1.05, 1);
        assert_false(detect(&c, &l) & LAT_F_FEW_POINTS);
}

/* Agreement with CPUID: the capacity found within one sweep step (a quarter octave here) and
 * 1/64 octave of rounding of the CPUID size agrees; more is smaller or larger. The step lies
 * between the points at 64 and 76 KiB, so the capacity found is about 70 KiB. */
static void test_cpuid_agreement(void **unused)
{
        static const struct {
                uint64_t       kib;
                enum lat_agree want;
        } cases[] = {
                { 64, LAT_AGREE_OK },      /* 0.13 octave */
                { 56, LAT_AGREE_LARGER },  /* 0.32: past a step and the slack */
                { 48, LAT_AGREE_LARGER },  /* 0.54 */
                { 96, LAT_AGREE_SMALLER }, /* 0.46 */
        };
        struct cpu_info   ci;
        struct lat_curve  c;
        struct lat_levels l;

        (void)unused;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                memset(&ci, 0, sizeof(ci));
                ci.n_caches = 1;
                ci.caches[0] = (struct cpu_cache){ .level = 1, .type = CACHE_DATA,
                                                   .size_bytes = cases[i].kib * 1024 };
                curve(&c, 40, 5, 70, 20, 1.05, 1);
                assert_int_equal(lv_detect(&c, &ci, &l), ST_OK);
                assert_true(l.n >= 1);
                if (l.lv[0].agreement != cases[i].want)
                        fail_msg("CPUID %llu KiB, found %llu bytes: %s, want %s",
                                 (unsigned long long)cases[i].kib,
                                 (unsigned long long)l.lv[0].capacity_bytes,
                                 lv_agree_name(l.lv[0].agreement), lv_agree_name(cases[i].want));
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_noisy_edges),
                cmocka_unit_test(test_jump_edges),
                cmocka_unit_test(test_edge_points),
                cmocka_unit_test(test_tail_edges),
                cmocka_unit_test(test_overlap_edge),
                cmocka_unit_test(test_few_points),
                cmocka_unit_test(test_cpuid_agreement),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
