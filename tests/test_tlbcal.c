/** @file The TLB calibration's analysis step (app/tlb_out.c, tlbcal_finish) on curves with
 *  points left out: a point whose every window the timer disturbed is said so (how many, of
 *  how many) and the rest of the curve analysed; a curve left with fewer than two points is
 *  SKIPped with that reason, never an error; the files are built either way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "app/tlb.h"
#include "tests/test_util.h"

static struct rep_buf con;

static int setup(void **unused)
{
        (void)unused;
        rep_reset();
        rep_buf_free(&con);
        rep_add_sink(rep_buf_sink(&con));
        return 0;
}

static int teardown(void **unused)
{
        (void)unused;
        rep_reset();
        rep_buf_free(&con);
        return 0;
}

/* A flat 4 KiB dTLB curve of @p n points (N = 8, 16, ...), @p left_out more left out. */
static struct tlb_curve flat(struct tlb_point *pts, size_t n, uint32_t left_out)
{
        for (size_t i = 0; i < n; i++)
                pts[i] = (struct tlb_point){ .n_pages = 8u << i, .n_windows = 11,
                                             .min_mcyc = 4000, .p10_mcyc = 4000,
                                             .p50_mcyc = 4100, .p90_mcyc = 4200 };
        return (struct tlb_curve){ .pts = pts, .n = n, .side = TLB_SIDE_DATA, .pte = TLB_PTE_NEAR,
                                   .page_bytes = 4096, .clock = LAT_CLOCK_TSC,
                                   .n_left_out = left_out };
}

static const char *text(void)
{
        static char s[65536];
        size_t      n = con.len < sizeof(s) - 1 ? con.len : sizeof(s) - 1;

        memcpy(s, con.p, n);
        s[n] = 0;
        return s;
}

static void test_left_out(void **unused)
{
        struct tlb_point pa[10], pb[1];
        struct tlbcal    t    = { .n = 2, .clock = { .tsc_hz = 2000000000ull } };
        struct rep_buf   json = { 0 }, csv = { 0 };

        (void)unused;
        t.c[0] = flat(pa, 10, 3);
        t.c[1] = flat(pb, 1, 9);
        t.c[1].page_bytes = 2u << 20;
        assert_int_equal(tlbcal_finish(&t, NULL, true, &json, &csv), ST_OK);
        want(text(), "dtlb 4 KiB: 3 of 13 points left out: the timer disagreed with itself in "
                     "every window of 3 tries (an emulated CPU shares its host's cores)");
        want(text(), "dtlb 2 MiB: 9 of 10 points left out");
        want(text(), "SKIP: dtlb 2 MiB: 1 points measured, too few to analyse");
        want_not(text(), "ERROR");
        want_not(text(), "FAIL");
        assert_true(json.len > 0 && csv.len > 0);
        rep_buf_free(&json);
        rep_buf_free(&csv);
}

/* Nothing left out: no such line. */
static void test_none_left_out(void **unused)
{
        struct tlb_point pa[10];
        struct tlbcal    t    = { .n = 1, .clock = { .tsc_hz = 2000000000ull } };
        struct rep_buf   json = { 0 }, csv = { 0 };

        (void)unused;
        t.c[0] = flat(pa, 10, 0);
        assert_int_equal(tlbcal_finish(&t, NULL, false, &json, &csv), ST_OK);
        want_not(text(), "left out");
        want_not(text(), "too few");
        rep_buf_free(&json);
        rep_buf_free(&csv);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_left_out, setup, teardown),
                cmocka_unit_test_setup_teardown(test_none_left_out, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
