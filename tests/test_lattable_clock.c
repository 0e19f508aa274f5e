/** @file The clock in latency-table.json: a curve timed in TSC ticks is written in TSC ticks,
 * core cycles and ns; without a core clock the core figures are null with the reason and the
 * core rate is null (never the TSC's); with a measured ratio the core figures are the ticks
 * times each level's own ratio. Also the confidence intervals of p50 and of each capacity.
 * Read back with jansson (the new members) and with libpmucal (a reader of schema 1.0). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
/* jansson's json_null() and the report writer's json_null() share a name; this file uses only
 * jansson's json_is_null() test, so jansson's constructor is renamed out of the way. */
#define json_null jansson_json_null
#include <jansson.h>
#undef json_null

#include "host/include/pmucal/table.h"
#include "report/lattable.h"

static struct lat_point pts[64];

/* L1 4 ticks to 32 KiB, L2 14 to 1 MiB, DRAM 100, in TSC milli-ticks with a +/- 2 % interval;
 * @p ppm_lo for the points up to 1 MiB, @p ppm_hi beyond (a clock that differs between
 * cache-bound and DRAM-bound windows), 0 = no core clock. */
static void make_curve(struct lat_curve *c, uint32_t ppm_lo, uint32_t ppm_hi)
{
        size_t n = 0;

        for (unsigned k = 0; k < 45; k++) {
                double   ws  = exp2(12 + k / 4.0);
                double   lat = ws <= 32768 ? 4 : ws <= 1048576 ? 14 : 100;
                uint64_t m   = (uint64_t)(lat * 1000);
                pts[n++] = (struct lat_point){ .ws_bytes = (uint64_t)ws, .n_windows = 11,
                                               .min_mcyc = m * 97 / 100, .p10_mcyc = m * 98 / 100,
                                               .p50_mcyc = m, .p90_mcyc = m * 103 / 100,
                                               .p50_lo_mcyc = m * 98 / 100,
                                               .p50_hi_mcyc = m * 102 / 100,
                                               .core_ppm = ws <= 1048576 ? ppm_lo : ppm_hi };
        }
        *c = (struct lat_curve){ .pts = pts, .n = n, .clock = LAT_CLOCK_TSC,
                                 .tsc_hz = 2000000000ull };
        if (ppm_lo) {
                c->core_ppm    = ppm_lo;
                c->core_ppm_lo = ppm_lo < ppm_hi ? ppm_lo : ppm_hi;
                c->core_ppm_hi = ppm_lo < ppm_hi ? ppm_hi : ppm_lo;
                c->core_hz     = c->tsc_hz / 1000000 * ppm_lo;
                c->core_source = "perf_event cycles";
        } else {
                c->core_why = "CPUID.06H:ECX[0] clear: no APERF/MPERF; PMU: none";
        }
}

/* method.clock's name for figures in reference-timer ticks (NULL: "tsc"; "cntvct" on AArch64). */
static const char *table_timer;

static json_t *table_of(struct lat_curve *c, struct lat_levels *l, char **text)
{
        struct lat_table_meta m = { .kernel = "pointer-chase", .n_windows = 11,
                                    .max_windows = 44, .ci_permille = 10, .n_settled = 40,
                                    .tsc_hz = c->tsc_hz, .vendor = "AuthenticAMD",
                                    .timer_name = table_timer };
        struct rep_buf        b = { 0 };
        json_error_t          e;
        json_t               *j;

        assert_int_equal(lv_detect(c, NULL, l), ST_OK);
        assert_int_equal(l->n, 3);
        assert_int_equal(rep_lat_json(&b, &m, c, l, NULL, 0), ST_OK);
        j = json_loads(b.p, 0, &e);
        if (!j)
                fail_msg("%s at %d: %s", e.text, e.line, b.p);
        *text = b.p;
        return j;
}

static double num(json_t *o, const char *path)
{
        char   key[64];
        json_t *v = o;

        snprintf(key, sizeof(key), "%s", path);
        for (char *s = key, *dot; v && s; s = dot ? dot + 1 : NULL) {
                if ((dot = strchr(s, '.')))
                        *dot = '\0';
                v = json_is_array(v) ? json_array_get(v, (size_t)atoi(s)) : json_object_get(v, s);
        }
        if (!json_is_number(v))
                fail_msg("%s: not a number", path);
        return json_number_value(v);
}

static void test_no_core_clock(void **state)
{
        struct lat_curve  c;
        struct lat_levels l;
        char             *text, err[256];
        json_t           *j, *lv0;
        (void)state;

        make_curve(&c, 0, 0);
        j   = table_of(&c, &l, &text);
        lv0 = json_array_get(json_object_get(j, "levels"), 0);
        assert_string_equal(json_string_value(json_object_get(j, "schema")),
                            LAT_TABLE_SCHEMA);
        /* the core rate is unknown, not the TSC's */
        assert_true(json_is_null(json_object_get(json_object_get(j, "machine"), "core_hz")));
        assert_true(num(j, "machine.tsc_hz") == 2e9);
        json_t *cc = json_object_get(json_object_get(j, "method"), "core_clock");
        assert_true(json_is_null(json_object_get(cc, "source")));
        assert_true(json_is_null(json_object_get(cc, "core_per_tsc")));
        assert_string_equal(json_string_value(json_object_get(cc, "reason")), c.core_why);
        assert_string_equal(json_string_value(json_object_get(json_object_get(j, "method"),
                                                              "clock")), "tsc");
        /* every level: ticks and ns, core null; bounds likewise */
        for (size_t k = 0; k < 3; k++) {
                json_t *v = json_array_get(json_object_get(j, "levels"), k);
                assert_true(json_is_null(json_object_get(v, "core_cycles")));
                assert_true(json_is_null(json_object_get(v, "core_per_tsc")));
                assert_true(json_is_object(json_object_get(v, "tsc_ticks")));
        }
        assert_true(fabs(num(lv0, "tsc_ticks.p50") - 4.0) < 1e-9);
        assert_true(fabs(num(lv0, "ns.p50") - 2.0) < 1e-9); /* 4 ticks at 2 GHz */
        assert_true(fabs(num(lv0, "tsc_ticks.p50_lo") - 3.92) < 1e-9);
        assert_true(fabs(num(lv0, "tsc_ticks.p50_hi") - 4.08) < 1e-9);
        json_t *bo = json_object_get(j, "bucket_upper_bounds");
        assert_true(json_is_null(json_object_get(bo, "core_cycles")));
        assert_int_equal(json_array_size(json_object_get(bo, "tsc_ticks")), 2);
        assert_true(l.flags & LAT_F_NO_CORE_HZ);
        /* capacities with their intervals around them */
        for (size_t k = 0; k < 2; k++) {
                json_t *v = json_array_get(json_object_get(j, "levels"), k);
                json_t *iv = json_object_get(v, "capacity_interval_bytes");
                double  cap = num(v, "capacity_bytes");
                assert_int_equal(json_array_size(iv), 2);
                assert_true(json_number_value(json_array_get(iv, 0)) <= cap);
                assert_true(json_number_value(json_array_get(iv, 1)) >= cap);
                assert_true(json_number_value(json_array_get(iv, 1)) <
                            4 * json_number_value(json_array_get(iv, 0)));
        }
        assert_true(json_is_null(json_object_get(json_array_get(json_object_get(j, "levels"), 2),
                                                 "capacity_interval_bytes")));
        /* a schema 1.0 reader: `cycles` in the clock method.clock names (TSC ticks), ns too */
        struct pmucal_table *t;
        if (pmucal_table_load_buf(text, strlen(text), "no-core", &t, err, sizeof(err)) != PMUCAL_OK)
                fail_msg("%s", err);
        assert_string_equal(t->clock, "tsc");
        assert_int_equal(t->core_hz, 0);
        assert_true(fabs(t->levels[0].cycles.p50 - 4.0) < 1e-9);
        assert_true(t->levels[0].has_ns);
        pmucal_table_free(t);
        json_decref(j);
        free(text);
}

/* No counter, but an add-chain estimate (pmucal-host): written as method.core_clock.estimate
 * (1.5), read back by libpmucal as an estimated ratio that core cycles convert with. */
static void test_estimated_core_clock(void **state)
{
        struct lat_curve     c;
        struct lat_levels    l;
        struct pmucal_table *t;
        char                *text, err[256];
        json_t              *j;
        double               v;
        (void)state;

        make_curve(&c, 0, 0);
        c.est_ppm    = 1421000;
        c.est_ppm_lo = 1420000;
        c.est_ppm_hi = 1422000;
        c.est_method = "dependent-add chain";
        j            = table_of(&c, &l, &text);
        assert_true(json_is_null(json_object_get(json_object_get(json_object_get(j, "method"),
                                                                  "core_clock"), "core_per_tsc")));
        assert_true(fabs(num(j, "method.core_clock.estimate.core_per_tsc") - 1.421) < 1e-9);
        assert_true(fabs(num(j, "method.core_clock.estimate.core_per_tsc_min") - 1.42) < 1e-9);
        assert_true(fabs(num(j, "method.core_clock.estimate.core_per_tsc_max") - 1.422) < 1e-9);
        /* the levels' core figures stay null: they are the counters' */
        assert_true(json_is_null(json_object_get(json_array_get(json_object_get(j, "levels"), 0),
                                                 "core_cycles")));
        if (pmucal_table_load_buf(text, strlen(text), "est", &t, err, sizeof(err)) != PMUCAL_OK)
                fail_msg("%s", err);
        assert_true(t->has_core_ratio && t->core_ratio_estimated);
        assert_string_equal(t->core_ratio_source, "dependent-add chain");
        assert_true(fabs(t->core_per_tsc - 1.421) < 1e-9);
        assert_int_equal(pmucal_table_convert(t, 4.0, PMUCAL_UNIT_TSC, PMUCAL_UNIT_CORE, &v), PMUCAL_OK);
        assert_true(fabs(v - 4 * 1.421) < 1e-9);
        pmucal_table_free(t);
        json_decref(j);
        free(text);
        /* a counter's ratio wins: no estimate is written beside it */
        make_curve(&c, 1500000, 1500000);
        c.est_ppm = 1421000;
        j         = table_of(&c, &l, &text);
        assert_null(json_object_get(json_object_get(json_object_get(j, "method"), "core_clock"),
                                    "estimate"));
        json_decref(j);
        free(text);
}

static void test_measured_core_clock(void **state)
{
        struct lat_curve  c;
        struct lat_levels l;
        char             *text, err[256];
        json_t           *j;
        (void)state;

        /* 1.5 core cycles per tick in the caches, 1.25 in the DRAM windows */
        make_curve(&c, 1500000, 1250000);
        j = table_of(&c, &l, &text);
        assert_true(num(j, "machine.core_hz") == 3e9);
        assert_true(fabs(num(j, "method.core_clock.core_per_tsc") - 1.5) < 1e-9);
        assert_true(fabs(num(j, "method.core_clock.core_per_tsc_min") - 1.25) < 1e-9);
        assert_string_equal(json_string_value(json_object_get(
                                    json_object_get(json_object_get(j, "method"), "core_clock"),
                                    "source")), "perf_event cycles");
        assert_true(json_is_null(json_object_get(
                json_object_get(json_object_get(j, "method"), "core_clock"), "reason")));
        json_t *lv = json_object_get(j, "levels");
        /* each level with its own ratio */
        assert_true(fabs(num(lv, "0.core_cycles.p50") - 6.0) < 1e-9);
        assert_true(fabs(num(lv, "1.core_cycles.p50") - 21.0) < 1e-9);
        assert_true(fabs(num(lv, "2.core_cycles.p50") - 125.0) < 1e-9);
        assert_true(fabs(num(lv, "2.core_per_tsc") - 1.25) < 1e-9);
        assert_true(fabs(num(lv, "0.tsc_ticks.p50") - 4.0) < 1e-9);
        assert_true(fabs(num(lv, "2.ns.p50") - 50.0) < 1e-9); /* ns from the TSC */
        assert_true(fabs(num(lv, "0.core_cycles.p50_hi") - 6.12) < 1e-9);
        assert_int_equal(json_array_size(json_object_get(
                                 json_object_get(j, "bucket_upper_bounds"), "core_cycles")), 2);
        assert_false(l.flags & LAT_F_NO_CORE_HZ);
        /* a schema 1.0 reader gets core cycles in `cycles`, and says so by the clock */
        struct pmucal_table *t;
        if (pmucal_table_load_buf(text, strlen(text), "core", &t, err, sizeof(err)) != PMUCAL_OK)
                fail_msg("%s", err);
        assert_string_equal(t->clock, "pmu-core-cycles");
        assert_int_equal(t->core_hz, 3000000000ull);
        assert_true(fabs(t->levels[1].cycles.p50 - 21.0) < 1e-9);
        pmucal_table_free(t);
        json_decref(j);
        free(text);
}

/* The console says which clock and never calls TSC ticks cycles. */
static void test_console_units(void **state)
{
        struct lat_curve  c;
        struct lat_levels l;
        struct rep_buf    b = { 0 };
        (void)state;

        make_curve(&c, 0, 0);
        assert_int_equal(lv_detect(&c, NULL, &l), ST_OK);
        assert_int_equal(rep_lat_levels_text(&b, &c, &l), ST_OK);
        assert_int_equal(rep_lat_plot(&b, &c, &l), ST_OK);
        assert_non_null(strstr(b.p, "p50 TSC ticks (95% CI)"));
        assert_non_null(strstr(b.p, "core clock unknown (CPUID.06H:ECX[0] clear"));
        assert_non_null(strstr(b.p, "latency per load in TSC ticks (log)"));
        assert_null(strstr(b.p, " cyc "));
        assert_null(strstr(b.p, "cyc\n"));
        assert_null(strstr(b.p, "mcyc"));
        assert_null(strstr(b.p, "cycles (log)"));
        rep_buf_free(&b);
        make_curve(&c, 1500000, 1500000);
        assert_int_equal(lv_detect(&c, NULL, &l), ST_OK);
        assert_int_equal(rep_lat_levels_text(&b, &c, &l), ST_OK);
        assert_non_null(strstr(b.p, "core clock from perf_event cycles: 1.500 core cycles per "
                                    "TSC tick (3.000 GHz)"));
        assert_non_null(strstr(b.p, "    6.000 ")); /* L1 in core cycles */
        rep_buf_free(&b);
}


/* AArch64: the windows timed with the generic timer. Without a core clock method.clock names
 * it ("cntvct"); with the cycle counter at 16 cycles per tick (QEMU: 1 GHz against 62.5 MHz)
 * the ratio, above x86-64's 8, is written as measured and the core figures are 16x the ticks. */
static void test_generic_timer_clock(void **state)
{
        struct lat_curve  c;
        struct lat_levels l;
        char             *text, err[256];
        json_t           *j;
        (void)state;

        table_timer = "cntvct";
        make_curve(&c, 0, 0);
        j = table_of(&c, &l, &text);
        assert_string_equal(json_string_value(json_object_get(json_object_get(j, "method"),
                                                              "clock")), "cntvct");
        struct pmucal_table *t;
        if (pmucal_table_load_buf(text, strlen(text), "cntvct", &t, err, sizeof(err)) != PMUCAL_OK)
                fail_msg("%s", err);
        assert_string_equal(t->clock, "cntvct");
        assert_true(fabs(t->levels[0].cycles.p50 - 4.0) < 1e-9); /* ticks, as the clock says */
        pmucal_table_free(t);
        json_decref(j);
        free(text);

        make_curve(&c, 16000000, 16000000);
        c.core_source = "PMU cycle counter PMCCNTR_EL0 against the generic timer CNTVCT_EL0";
        j = table_of(&c, &l, &text);
        json_t *m = json_object_get(j, "method");
        assert_string_equal(json_string_value(json_object_get(m, "clock")), "pmu-core-cycles");
        assert_true(fabs(num(m, "core_clock.core_per_tsc") - 16.0) < 1e-9);
        json_t *lv0 = json_array_get(json_object_get(j, "levels"), 0);
        assert_true(fabs(num(lv0, "core_cycles.p50") - 64.0) < 1e-9);
        assert_true(fabs(num(lv0, "tsc_ticks.p50") - 4.0) < 1e-9);
        json_decref(j);
        free(text);
        table_timer = NULL;
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_no_core_clock),
                cmocka_unit_test(test_estimated_core_clock),
                cmocka_unit_test(test_measured_core_clock),
                cmocka_unit_test(test_generic_timer_clock),
                cmocka_unit_test(test_console_units),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
