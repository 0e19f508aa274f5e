/** @file Level detection (report/levels.c) at its thresholds, each from both sides: the window
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
#include "report/levels.h"

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
        assert_int_equal(rep_levels_detect(c, NULL, l), ST_OK);
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
                assert_int_equal(rep_levels_detect(&c, &ci, &l), ST_OK);
                assert_true(l.n >= 1);
                if (l.lv[0].agreement != cases[i].want)
                        fail_msg("CPUID %llu KiB, found %llu bytes: %s, want %s",
                                 (unsigned long long)cases[i].kib,
                                 (unsigned long long)l.lv[0].capacity_bytes,
                                 lat_agree_name(l.lv[0].agreement), lat_agree_name(cases[i].want));
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_noisy_edges),
                cmocka_unit_test(test_jump_edges),
                cmocka_unit_test(test_few_points),
                cmocka_unit_test(test_cpuid_agreement),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
