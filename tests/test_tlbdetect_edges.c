/** @file TLB level detection (analysis/tlbdetect.c) at its thresholds, each from both sides:
 *  the smallest step that counts (1.5 cycles, 25 % of the plateau below, 4 times the noise,
 *  the noise being the median point-to-point change x 21/20), the points and the span a
 *  plateau needs (3 points and half an octave), and a plateau below the one before it. The
 *  curves are exact: pages from 16 at a given density per octave, a step at a given count, a
 *  zigzag for the noise. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "report/tlbdetect_out.h"

static struct tlb_point pts[TLBDET_MAX_POINTS];

struct shape {
        unsigned per_octave;     /* sweep density */
        uint32_t max_n;          /* last page count */
        uint64_t base;           /* L1-hit latency, milli-cycles */
        uint32_t at[3];          /* steps after this many pages (0: none) */
        int64_t  add[3];         /* each adds this */
        int64_t  zigzag;         /* odd points this much higher, even ones lower */
};

static void curve(const struct shape *s, struct tlb_curve *c)
{
        size_t n = 0;

        for (double x = 16; x <= s->max_n && n < TLBDET_MAX_POINTS;
             x *= pow(2.0, 1.0 / s->per_octave), n++) {
                uint32_t N = (uint32_t)llround(x);

                if (n && N <= pts[n - 1].n_pages) /* dense sweeps: one page more at least */
                        N = pts[n - 1].n_pages + 1;
                int64_t  y = (int64_t)s->base + (n % 2 ? s->zigzag : -s->zigzag);

                for (size_t k = 0; k < 3; k++)
                        if (s->at[k] && N > s->at[k])
                                y += s->add[k];
                pts[n] = (struct tlb_point){ .n_pages = N, .n_windows = 11,
                                             .min_mcyc = (uint64_t)y - 10,
                                             .p10_mcyc = (uint64_t)y - 10,
                                             .p50_mcyc = (uint64_t)y,
                                             .p90_mcyc = (uint64_t)y + 10 };
        }
        *c = (struct tlb_curve){ pts, n, TLB_SIDE_DATA, TLB_PTE_NEAR, 4 * KiB, LAT_CLOCK_TSC,
                                 0, 0, 0 };
}

static size_t levels(const struct shape *s, const struct tlbdet_params *p, struct tlb_result *r)
{
        struct tlb_curve c;

        curve(s, &c);
        assert_int_equal(tlbdet_detect(&c, p, r), ST_OK);
        return r->n_lvl;
}

/* The floor: 1.5 cycles over a 2.8-cycle plateau (25 % of it is only 0.7). */
static void test_step_floor(void **unused)
{
        struct shape      s = { 16, 1024, 2800, { 64 }, { 1600 }, 0 };
        struct tlb_result r;

        (void)unused;
        assert_int_equal(levels(&s, NULL, &r), 1);
        assert_int_equal(r.lvl[0].entries, 64);
        s.add[0] = 1400;
        assert_int_equal(levels(&s, NULL, &r), 0);
}

/* Noise: a zigzag of +-400 changes by 800 from point to point, a noise of 840 and a smallest
 * step of 3360: a 3000 step is noise, a 4500 one a level. */
static void test_step_noise(void **unused)
{
        struct shape      s = { 16, 1024, 2800, { 64 }, { 3000 }, 400 };
        struct tlb_result r;

        (void)unused;
        assert_int_equal(levels(&s, NULL, &r), 0);
        assert_int_equal(r.noise_mcyc, 840);
        assert_int_equal(r.step_mcyc, 3360);
        s.add[0] = 4500;
        assert_int_equal(levels(&s, NULL, &r), 1);
}

/* A plateau needs 3 points and half an octave: a shelf of 2 points between two steps is not a
 * level even where it spans half an octave or more; one of 3 points is. */
static void test_plateau_points(void **unused)
{
        /* 16, 23, 32, 45, 64, 91, 128, ...: steps after 64 and after 91 or 128 */
        struct shape      s = { 2, 4096, 3000, { 64, 128 }, { 6000, 30000 }, 0 };
        struct tlb_result r;

        (void)unused;
        assert_int_equal(levels(&s, NULL, &r), 1); /* the shelf 91..128: 2 points */
        s.at[1] = 181;                             /* 91..181: 3 points */
        assert_int_equal(levels(&s, NULL, &r), 2);
        /* one point per octave: 16, 32, 64, 128, 256, ...; a shelf of 2 points spans an
         * octave, and is still too few */
        struct shape o = { 1, 8192, 3000, { 64, 256 }, { 6000, 30000 }, 0 };
        assert_int_equal(levels(&o, NULL, &r), 1);
        o.at[1] = 512;                             /* 128, 256, 512 */
        assert_int_equal(levels(&o, NULL, &r), 2);
}

/* A plateau below the one before it is flagged, however little below (the smallest step
 * that counts made small with the parameters). */
static void test_non_monotonic(void **unused)
{
        struct tlbdet_params p = tlbdet_default_params();
        struct shape         s = { 16, 4096, 3000, { 64, 512 }, { 6000, -800 }, 0 };
        struct tlb_result    r;

        (void)unused;
        p.min_step_mcyc = 500;
        p.min_step_pct = 5;
        levels(&s, &p, &r);
        assert_true(r.n_plat >= 3);
        assert_true(r.flags & TLBDET_F_NON_MONOTONIC);
        s.add[1] = 800;
        levels(&s, &p, &r);
        assert_false(r.flags & TLBDET_F_NON_MONOTONIC);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_step_floor),
                cmocka_unit_test(test_step_noise),
                cmocka_unit_test(test_plateau_points),
                cmocka_unit_test(test_non_monotonic),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
