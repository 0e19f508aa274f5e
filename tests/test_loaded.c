/* Loaded-latency curves and the bandwidth matrix as output: the table, the ASCII plot (each
 * point where its bandwidth and latency put it), JSON with idle as a null delay. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "report/loaded.h"

static void make(struct loaded_curve *c, struct bw_matrix *bw)
{
        static const uint32_t delay[4] = { LOADED_IDLE, 256, 16, 0 };
        static const uint64_t mbs[4]   = { 0, 10000, 40000, 80000 };
        static const uint64_t ps[4]    = { 90000, 92000, 110000, 200000 };

        *c = (struct loaded_curve){ .node = 1, .chaser_apic = 8, .n_points = 4 };
        for (unsigned k = 0; k < 4; k++)
                c->pt[k] = (struct loaded_point){ .delay = delay[k], .n_loaders = k ? 7 : 0,
                                                  .bw_mb_s = mbs[k], .p10_ps = ps[k] - 1000,
                                                  .p50_ps = ps[k], .p90_ps = ps[k] + 5000,
                                                  .measured = true };
        *bw = (struct bw_matrix){ .n_nodes = 2, .n_readers = { 8, 8 } };
        bw->measured[0][0] = bw->measured[0][1] = true;
        bw->mb_s[0][0] = 81234;
        bw->mb_s[0][1] = 40100;
}

static void test_plot(void **state)
{
        struct loaded_curve c;
        struct bw_matrix    bw;
        struct rep_buf      b = { 0 };
        (void)state;

        make(&c, &bw);
        assert_int_equal(loaded_plot(&b, &c, 5, 9), ST_OK);
        /* top row: 200 ns at 80 GB/s (last column); bottom row: idle, 92 ns at 10 GB/s and
         * 110 ns at 40 GB/s (a fifth of the way up rounds down) */
        assert_non_null(strstr(b.p, "    200.0 |        3\n"));
        assert_non_null(strstr(b.p, "     90.0 |01  2    \n")); /* 110 ns rounds down */
        assert_non_null(strstr(b.p, "80.0 GB/s"));
        rep_buf_free(&b);
        assert_int_equal(loaded_plot(&b, &c, 1, 9), ST_BAD_ARG);
        rep_buf_free(&b);
}

static void test_text_json(void **state)
{
        struct loaded_curve c;
        struct bw_matrix    bw;
        struct rep_buf      b = { 0 };
        struct json_w       w;
        (void)state;

        make(&c, &bw);
        assert_int_equal(loaded_text(&b, &c, 1, &bw), ST_OK);
        assert_non_null(strstr(b.p, "loaded: node 1 loaded, chase on APIC ID 8"));
        assert_non_null(strstr(b.p, "loaded:  0     idle       0       0.0      89.0      90.0"));
        assert_non_null(strstr(b.p, "bandwidth:    0     81.2     40.1"));
        assert_non_null(strstr(b.p, "bandwidth:    1        -        -"));
        rep_buf_free(&b);

        json_init(&w, &b);
        json_obj_begin(&w, NULL);
        uint32_t pd[2] = { 0, 3 };
        loaded_json(&w, &c, 1, &bw, pd);
        json_obj_end(&w);
        assert_int_equal(json_finish(&w), ST_OK);
        assert_non_null(strstr(b.p, "\"delay\": null"));
        assert_non_null(strstr(b.p, "\"node\": 3"));
        assert_non_null(strstr(b.p, "\"bandwidth_gb_s\": 80.000"));
        assert_non_null(strstr(b.p, "\"p50_ns\": 200.000"));
        assert_non_null(strstr(b.p, "\"gb_s\": 81.234"));
        assert_non_null(strstr(b.p, "\"gb_s\": null"));
        rep_buf_free(&b);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_plot),
                cmocka_unit_test(test_text_json),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
