/** @file Unit tests for libpmucal's API (host/include/pmucal/: pmucal.h, table.h, tlb.h): the version, one error
 *  convention for both classifiers, the caller's unit converted only with a measured
 *  core:TSC ratio, "beyond the last level", batch classification, TLB classes that can be
 *  told apart, and no fixed-size arrays that cut a table short. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/include/pmucal/table.h"
#include "host/include/pmucal/tlb.h"

/* A latency table: clock, core_hz, ns ("null" or an object), flags and an extra member. */
static struct pmucal_table *table(const char *clock, const char *core_hz, bool ns,
                                  const char *flags, const char *extra)
{
        static char          doc[8192];
        struct pmucal_table *t;
        char                 err[512];

        snprintf(doc, sizeof(doc),
                 "{\"schema\": \"pmucal.latency-table/1.1\",%s\n"
                 " \"machine\": {\"vendor\": null, \"family\": 25, \"model\": 17, \"stepping\": 1,\n"
                 "   \"brand\": null, \"microcode\": null, \"core_hz\": %s, \"tsc_hz\": 2000000000,\n"
                 "   \"smbios_manufacturer\": null, \"smbios_product\": null, \"nodes\": null},\n"
                 " \"method\": {\"kernel\": null, \"layout\": null, \"page_bytes\": null, \"windows\": 11,\n"
                 "   \"clock\": \"%s\", \"prefetchers\": null, \"pmucal_version\": null},\n"
                 " \"levels\": [\n"
                 "  {\"name\": \"L1\", \"capacity_bytes\": 32768, \"cpuid_capacity_bytes\": null,\n"
                 "   \"cpuid_level\": null, \"agreement\": \"no-cpuid\",\n"
                 "   \"cycles\": {\"min\": 4, \"p10\": 4, \"p50\": 4, \"p90\": 5}, \"ns\": %s},\n"
                 "  {\"name\": \"L2\", \"capacity_bytes\": 1048576, \"cpuid_capacity_bytes\": null,\n"
                 "   \"cpuid_level\": null, \"agreement\": \"no-cpuid\",\n"
                 "   \"cycles\": {\"min\": 12, \"p10\": 13, \"p50\": 14, \"p90\": 16}, \"ns\": %s},\n"
                 "  {\"name\": \"L3\", \"capacity_bytes\": null, \"cpuid_capacity_bytes\": null,\n"
                 "   \"cpuid_level\": null, \"agreement\": \"no-cpuid\",\n"
                 "   \"cycles\": {\"min\": 40, \"p10\": 42, \"p50\": 45, \"p90\": 50}, \"ns\": %s}],\n"
                 " \"bucket_upper_bounds\": {\"cycles\": [8, 25], \"ns\": %s},\n"
                 " \"flags\": [%s]}\n",
                 extra, core_hz, clock,
                 ns ? "{\"min\": 2, \"p10\": 2, \"p50\": 2, \"p90\": 2.5}" : "null",
                 ns ? "{\"min\": 6, \"p10\": 6.5, \"p50\": 7, \"p90\": 8}" : "null",
                 ns ? "{\"min\": 20, \"p10\": 21, \"p50\": 22.5, \"p90\": 25}" : "null",
                 ns ? "[4, 12.5]" : "null", flags);
        if (pmucal_table_load_buf(doc, strlen(doc), "t.json", &t, err, sizeof(err)) != PMUCAL_OK)
                fail_msg("%s\n%s", err, doc);
        return t;
}

static void test_version(void **state)
{
        char want[32];
        (void)state;
        assert_int_equal(pmucal_version(), PMUCAL_VERSION_NUMBER);
        assert_int_equal(pmucal_version() / 10000, PMUCAL_VERSION_MAJOR);
        snprintf(want, sizeof(want), "%d.%d.%d", PMUCAL_VERSION_MAJOR, PMUCAL_VERSION_MINOR,
                 PMUCAL_VERSION_PATCH);
        assert_string_equal(pmucal_version_string(), want);
        for (int e = PMUCAL_OK; e <= PMUCAL_E_NO_CURVE; e++)
                assert_string_not_equal(pmucal_strerror((enum pmucal_err)e), "unknown error");
        assert_string_equal(pmucal_unit_name(PMUCAL_UNIT_CORE), "core");
        unsigned mj = 9, mn = 9;
        assert_int_equal(pmucal_schema_version("pmucal.tlb/1.2", "pmucal.tlb/", &mj, &mn), PMUCAL_OK);
        assert_int_equal(mj, 1);
        assert_int_equal(mn, 2);
        assert_int_equal(pmucal_schema_version("pmucal.tlb/3", "pmucal.tlb/", &mj, &mn), PMUCAL_OK);
        assert_int_equal(mn, 0);
        assert_int_equal(pmucal_schema_version("pmucal.tlb/1.", "pmucal.tlb/", NULL, NULL),
                         PMUCAL_E_VERSION);
        assert_int_equal(pmucal_schema_version("pmucal.tlb/1234567890", "pmucal.tlb/", NULL, NULL),
                         PMUCAL_E_VERSION);
        assert_int_equal(pmucal_schema_version("pmucal.inventory/1", "pmucal.tlb/", NULL, NULL),
                         PMUCAL_E_KIND);
        assert_int_equal(pmucal_schema_version(NULL, "pmucal.tlb/", NULL, NULL), PMUCAL_E_ARG);
        assert_string_equal(pmucal_unit_name((enum pmucal_unit)9), "?");
}

static int lvl(const struct pmucal_table *t, double v, enum pmucal_unit u, enum pmucal_err want)
{
        int k = -99;
        assert_int_equal(pmucal_table_classify(t, v, u, &k), want);
        return k;
}

/* A "tsc" table: TSC ticks and the table's own unit compare directly, core cycles have no
 * measured ratio (core_hz is only a copy of the TSC rate), ns use the ns figures. */
static void test_units_tsc_table(void **state)
{
        struct pmucal_table *t = table("tsc", "2000000000", true, "", "");
        double               v;
        (void)state;

        assert_int_equal(t->cycles_unit, PMUCAL_UNIT_TSC);
        assert_false(t->has_core_ratio);
        assert_int_equal(lvl(t, 8, PMUCAL_UNIT_TABLE, PMUCAL_OK), 0);
        assert_int_equal(lvl(t, 8.01, PMUCAL_UNIT_TSC, PMUCAL_OK), 1);
        assert_int_equal(lvl(t, 1200, PMUCAL_UNIT_TSC, PMUCAL_OK), 2); /* no no_dram flag: no ceiling */
        assert_int_equal(lvl(t, 5, PMUCAL_UNIT_CORE, PMUCAL_E_NO_RATIO), -99);
        assert_int_equal(lvl(t, 4, PMUCAL_UNIT_NS, PMUCAL_OK), 0);
        assert_int_equal(lvl(t, 4.1, PMUCAL_UNIT_NS, PMUCAL_OK), 1);
        assert_int_equal(pmucal_table_convert(t, 10, PMUCAL_UNIT_TSC, PMUCAL_UNIT_NS, &v), PMUCAL_OK);
        assert_true(fabs(v - 5.0) < 1e-9);
        assert_int_equal(pmucal_table_convert(t, 10, PMUCAL_UNIT_CORE, PMUCAL_UNIT_TSC, &v),
                         PMUCAL_E_NO_RATIO);
        assert_int_equal(lvl(t, 5, (enum pmucal_unit)7, PMUCAL_E_ARG), -99);
        pmucal_table_free(t);

        /* No ns figures and no core clock: ns still converts with the TSC rate. */
        t = table("tsc", "null", false, "", "");
        assert_int_equal(lvl(t, 4.1, PMUCAL_UNIT_NS, PMUCAL_OK), 1); /* 8.2 ticks */
        pmucal_table_free(t);
}

/* A table whose clock measured the core (APERF/MPERF): core cycles compare directly, TSC
 * ticks convert with core_hz / tsc_hz (3 GHz / 2 GHz). */
static void test_units_core_table(void **state)
{
        struct pmucal_table *t = table("tsc-aperf-mperf", "3000000000", false, "", "");
        double               v;
        (void)state;

        assert_int_equal(t->cycles_unit, PMUCAL_UNIT_CORE);
        assert_true(t->has_core_ratio);
        assert_true(fabs(t->core_per_tsc - 1.5) < 1e-12);
        assert_int_equal(lvl(t, 8, PMUCAL_UNIT_CORE, PMUCAL_OK), 0);
        assert_int_equal(lvl(t, 6, PMUCAL_UNIT_TSC, PMUCAL_OK), 1); /* 9 core cycles */
        assert_int_equal(lvl(t, 5.3, PMUCAL_UNIT_TSC, PMUCAL_OK), 0);
        assert_int_equal(pmucal_table_convert(t, 10, PMUCAL_UNIT_TSC, PMUCAL_UNIT_CORE, &v), PMUCAL_OK);
        assert_true(fabs(v - 15.0) < 1e-9);
        assert_int_equal(pmucal_table_convert(t, 30, PMUCAL_UNIT_TABLE, PMUCAL_UNIT_NS, &v), PMUCAL_OK);
        assert_true(fabs(v - 10.0) < 1e-9);
        pmucal_table_free(t);

        /* A clock this library does not know: only the table's own unit. */
        t = table("future-clock", "3000000000", false, "", "");
        assert_int_equal(t->cycles_unit, PMUCAL_UNIT_TABLE);
        assert_int_equal(lvl(t, 8, PMUCAL_UNIT_TABLE, PMUCAL_OK), 0);
        assert_int_equal(lvl(t, 8, PMUCAL_UNIT_TSC, PMUCAL_E_NO_RATIO), -99);
        pmucal_table_free(t);
}

/* Beyond the last level: a table that ends in a cache (no_dram) or has no hierarchy has a
 * ceiling of 1.3 x the last p90; a table that ends in DRAM has none. */
static void test_beyond(void **state)
{
        struct pmucal_table *t = table("tsc", "2000000000", true, "\"no_dram\"", "");
        (void)state;

        assert_true(t->levels[2].has_ceiling);
        assert_true(fabs(t->levels[2].ceiling_cycles - 65) < 1e-9);
        assert_int_equal(lvl(t, 65, PMUCAL_UNIT_TABLE, PMUCAL_OK), 2);
        assert_int_equal(lvl(t, 1200, PMUCAL_UNIT_TABLE, PMUCAL_OK), PMUCAL_LEVEL_BEYOND);
        assert_int_equal(lvl(t, 32.6, PMUCAL_UNIT_NS, PMUCAL_OK), PMUCAL_LEVEL_BEYOND);
        assert_int_equal(lvl(t, 32.4, PMUCAL_UNIT_NS, PMUCAL_OK), 2);
        pmucal_table_free(t);
        /* A sweep buffer smaller than planned (schema 1.5): the last level may not be DRAM */
        t = table("tsc", "2000000000", true, "\"buffer_reduced\"", "");
        assert_true(t->levels[2].has_ceiling);
        assert_int_equal(lvl(t, 1200, PMUCAL_UNIT_TABLE, PMUCAL_OK), PMUCAL_LEVEL_BEYOND);
        pmucal_table_free(t);
        t = table("tsc", "2000000000", true, "\"noisy\"", "");
        assert_false(t->levels[2].has_ceiling);
        assert_int_equal(lvl(t, 1e9, PMUCAL_UNIT_TABLE, PMUCAL_OK), 2);
        pmucal_table_free(t);
}

/* One error convention: both classifiers return PMUCAL_E_RANGE for NaN, infinite and
 * negative latencies, PMUCAL_E_ARG for NULL; batches mark those and go on. */
static void test_errors_and_batch(void **state)
{
        static const double lat[] = { 1, 9, -1, NAN, 30, INFINITY, 1e6, 0 };
        struct pmucal_table *t = table("tsc", "2000000000", true, "\"no_dram\"", "");
        int                  lv[8], k;
        size_t               bad = 99;
        (void)state;

        assert_int_equal(lvl(t, -0.5, PMUCAL_UNIT_TABLE, PMUCAL_E_RANGE), -99);
        assert_int_equal(lvl(t, NAN, PMUCAL_UNIT_NS, PMUCAL_E_RANGE), -99);
        assert_int_equal(pmucal_table_classify(t, 1, PMUCAL_UNIT_TABLE, NULL), PMUCAL_E_ARG);
        assert_int_equal(pmucal_table_classify_batch(t, lat, 8, PMUCAL_UNIT_TSC, lv, &bad), PMUCAL_OK);
        assert_int_equal(bad, 3);
        const int want[] = { 0, 1, PMUCAL_LEVEL_INVALID, PMUCAL_LEVEL_INVALID, 2,
                             PMUCAL_LEVEL_INVALID, PMUCAL_LEVEL_BEYOND, 0 };
        for (int i = 0; i < 8; i++) {
                assert_int_equal(lv[i], want[i]);
                if (want[i] != PMUCAL_LEVEL_INVALID) { /* the batch agrees with the single call */
                        assert_int_equal(pmucal_table_classify(t, lat[i], PMUCAL_UNIT_TSC, &k), PMUCAL_OK);
                        assert_int_equal(k, lv[i]);
                }
        }
        assert_int_equal(pmucal_table_classify_batch(t, lat, 8, PMUCAL_UNIT_CORE, lv, NULL),
                         PMUCAL_E_NO_RATIO);
        assert_int_equal(pmucal_table_classify_batch(t, NULL, 8, PMUCAL_UNIT_TSC, lv, NULL), PMUCAL_E_ARG);
        assert_int_equal(pmucal_table_classify_batch(t, NULL, 0, PMUCAL_UNIT_TSC, NULL, NULL), PMUCAL_OK);
        pmucal_table_free(t);
}

/* Nothing is cut: 40 flags (the old limit was 16), long strings, and the optional
 * method members the old structure dropped. */
static void test_no_truncation(void **state)
{
        char                 flags[1024] = "", extra[200];
        struct pmucal_table *t;
        (void)state;

        for (int i = 0; i < 40; i++)
                snprintf(flags + strlen(flags), sizeof(flags) - strlen(flags), "%s\"flag_%02d\"",
                         i ? "," : "", i);
        snprintf(extra, sizeof(extra), " \"x\": \"%0100d\",", 0);
        t = table("tsc", "2000000000", true, flags, extra);
        assert_int_equal(t->n_flags, 40);
        assert_string_equal(t->flags[39], "flag_39");
        assert_true(pmucal_table_has_flag(t, "flag_39"));
        assert_int_equal(t->major, 1);
        assert_int_equal(t->minor, 1);
        assert_string_equal(t->schema, "pmucal.latency-table/1.1");
        pmucal_table_free(t);
}

#define CLS(name, lat, added, upper, first, last)                                                \
        "{\"class\":\"" name "\",\"lat_mcyc\":" #lat ",\"added_mcyc\":" #added                    \
        ",\"upper_added_mcyc\":" #upper ",\"first_pages\":" #first ",\"last_pages\":" #last "}"
#define WALKS                                                                                    \
        "[" CLS("l1_hit", 3000, 0, 3000, 4, 64) "," CLS("l2_hit", 9000, 6000, 16000, 76, 2048) "," \
        CLS("walk", 29000, 26000, 32000, 3444, 8192) "," CLS("walk", 40000, 37000, 45000, 9000,   \
        16000) "," CLS("walk", 60000, 57000, null, 17000, 32768) "]"
#define TLBDOC(clock)                                                                            \
        "{\"schema\":\"pmucal.tlb/1\",\"units\":\"mcyc\"" clock ",\"curves\":[{\"side\":\"dtlb\","  \
        "\"page_bytes\":4096,\"pte\":\"near\",\"levels\":[{\"entries\":64},{\"entries\":2048}],"   \
        "\"classes\":" WALKS "}]}"

static void test_tlb(void **state)
{
        static const double            added[] = { 0, 10, 30, 40, 100, -3 };
        const struct pmucal_tlb_class *k;
        struct pmucal_tlb             *t;
        char                           err[512], doc[4096];
        int                            cls[6];
        size_t                         bad;
        (void)state;

        assert_int_equal(pmucal_tlb_load_buf(TLBDOC(""), strlen(TLBDOC("")), "x", &t, err, sizeof(err)),
                         PMUCAL_OK);
        assert_false(t->clock_stated);
        assert_string_equal(t->clock, "tsc");
        const struct pmucal_tlb_curve *cv = &t->curves[0];
        assert_int_equal(cv->n_classes, 5);
        assert_int_equal(cv->n_levels, 2);
        assert_int_equal(cv->level_entries[1], 2048);
        const char *labels[] = { "l1_hit", "l2_hit", "walk", "walk2", "walk3" };
        for (int i = 0; i < 5; i++)
                assert_string_equal(cv->classes[i].label, labels[i]);
        assert_int_equal(cv->classes[4].kind, PMUCAL_TLB_WALK);
        assert_int_equal(cv->classes[4].ordinal, 3);
        assert_int_equal(cv->classes[1].ordinal, 1);
        assert_int_equal(pmucal_tlb_classify(t, PMUCAL_TLB_DTLB, 4096, 40, PMUCAL_UNIT_TSC, &k), PMUCAL_OK);
        assert_string_equal(k->label, "walk2");
        assert_int_equal(pmucal_tlb_classify(t, PMUCAL_TLB_DTLB, 4096, -1, PMUCAL_UNIT_TSC, &k),
                         PMUCAL_E_RANGE);
        assert_int_equal(pmucal_tlb_classify(t, PMUCAL_TLB_DTLB, 4096, 5, PMUCAL_UNIT_CORE, &k),
                         PMUCAL_E_NO_RATIO);
        assert_int_equal(pmucal_tlb_classify(t, PMUCAL_TLB_DTLB, 4096, 5, PMUCAL_UNIT_NS, &k),
                         PMUCAL_E_NO_RATIO);
        assert_int_equal(pmucal_tlb_classify(t, PMUCAL_TLB_DTLB, 2 << 20, 5, PMUCAL_UNIT_TSC, &k),
                         PMUCAL_E_NO_CURVE);
        assert_int_equal(pmucal_tlb_classify_batch(t, PMUCAL_TLB_DTLB, 4096, added, 6, PMUCAL_UNIT_TSC,
                                                   cls, &bad), PMUCAL_OK);
        const int want[] = { 0, 1, 2, 3, 4, PMUCAL_LEVEL_INVALID };
        assert_memory_equal(cls, want, sizeof(want));
        assert_int_equal(bad, 1);
        pmucal_tlb_free(t);

        /* Inside a latency table whose clock measured the core: its rates convert the TSC
         * figures (core cycles x 2/3, ns x 2). */
        snprintf(doc, sizeof(doc), "{\"schema\":\"pmucal.latency-table/1\",\"method\":{\"clock\":"
                 "\"pmu-core-cycles\"},\"machine\":{\"core_hz\":3000000000,\"tsc_hz\":2000000000},"
                 "\"tlb\":%s}", TLBDOC(""));
        assert_int_equal(pmucal_tlb_load_buf(doc, strlen(doc), "x", &t, err, sizeof(err)), PMUCAL_OK);
        assert_false(t->clock_stated);
        assert_int_equal(t->cycles_unit, PMUCAL_UNIT_TSC);
        assert_true(t->has_core_ratio);
        assert_int_equal(pmucal_tlb_classify(t, PMUCAL_TLB_DTLB, 4096, 45, PMUCAL_UNIT_CORE, &k), PMUCAL_OK);
        assert_string_equal(k->label, "walk"); /* 30 TSC ticks */
        assert_int_equal(pmucal_tlb_classify(t, PMUCAL_TLB_DTLB, 4096, 15, PMUCAL_UNIT_NS, &k), PMUCAL_OK);
        assert_string_equal(k->label, "walk"); /* 30 TSC ticks */
        pmucal_tlb_free(t);

        /* A 1.2 clock object of its own: TSC figures and the calibration's measured ratio. */
        const char *own = TLBDOC(",\"clock\":{\"figures\":\"tsc_ticks\",\"tsc_hz\":2000000000,"
                                 "\"core_hz\":3000000000,\"core_per_tsc\":1.5,\"core_source\":"
                                 "\"perf_event cycles\",\"reason\":null}");
        assert_int_equal(pmucal_tlb_load_buf(own, strlen(own), "x", &t, err, sizeof(err)), PMUCAL_OK);
        assert_true(t->clock_stated);
        assert_true(fabs(t->core_per_tsc - 1.5) < 1e-12);
        assert_int_equal(pmucal_tlb_classify(t, PMUCAL_TLB_DTLB, 4096, 30, PMUCAL_UNIT_TSC, &k), PMUCAL_OK);
        assert_string_equal(k->label, "walk");
        assert_int_equal(pmucal_tlb_classify(t, PMUCAL_TLB_DTLB, 4096, 21, PMUCAL_UNIT_CORE, &k), PMUCAL_OK);
        assert_string_equal(k->label, "l2_hit"); /* 14 TSC ticks */
        pmucal_tlb_free(t);
        /* ... and without a core clock: core cycles are refused, ns still convert. */
        const char *none = TLBDOC(",\"clock\":{\"figures\":\"tsc_ticks\",\"tsc_hz\":2000000000,"
                                  "\"core_hz\":null,\"core_per_tsc\":null,\"core_source\":null,"
                                  "\"reason\":\"no PMU\"}");
        assert_int_equal(pmucal_tlb_load_buf(none, strlen(none), "x", &t, err, sizeof(err)), PMUCAL_OK);
        assert_int_equal(pmucal_tlb_classify(t, PMUCAL_TLB_DTLB, 4096, 30, PMUCAL_UNIT_CORE, &k),
                         PMUCAL_E_NO_RATIO);
        assert_int_equal(pmucal_tlb_classify(t, PMUCAL_TLB_DTLB, 4096, 15, PMUCAL_UNIT_NS, &k), PMUCAL_OK);
        pmucal_tlb_free(t);
        const char *wrong = TLBDOC(",\"clock\":{\"figures\":\"core_cycles\"}");
        assert_int_equal(pmucal_tlb_load_buf(wrong, strlen(wrong), "x", &t, err, sizeof(err)), PMUCAL_E_SCHEMA);
        assert_non_null(strstr(err, "clock.figures: \"core_cycles\" is not \"tsc_ticks\""));
        enum pmucal_tlb_side side;
        assert_int_equal(pmucal_tlb_side_parse("ptlb", &side), PMUCAL_E_ARG);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_version),
                cmocka_unit_test(test_units_tsc_table),
                cmocka_unit_test(test_units_core_table),
                cmocka_unit_test(test_beyond),
                cmocka_unit_test(test_errors_and_batch),
                cmocka_unit_test(test_no_truncation),
                cmocka_unit_test(test_tlb),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
