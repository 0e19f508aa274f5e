/** @file Unit tests for libpmucal's figures and bucket bounds by unit (host/libpmucal_units.c):
 *  a 1.2 table gives every level in TSC ticks, core cycles and ns with its own core:TSC
 *  ratio, and a latency in one of those units is classified with that unit's own bounds, not
 *  with the cycle bounds converted at the table's overall ratio; where a unit is missing the
 *  classifier falls back to that ratio. `--dump-cases DIR` writes the documents (units-NN.json,
 *  DIR/cases-units.tsv) for the Python reader's agreement test. */
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
#include "tests/table_cases.h"

/* Core clock 3 GHz, TSC 2 GHz: overall ratio 1.5, but L2's own ratio is 1.0 and DRAM's 1.2.
 * The core bounds take the ratio of the level below them (6 = 4 x 1.5, 30 = 30 x 1.0). */
static const char base[] =
        "{\"schema\": \"pmucal.latency-table/1.2\",\n"
        " \"machine\": {\"vendor\": null, \"family\": 6, \"model\": 143, \"stepping\": 0,\n"
        "   \"brand\": null, \"microcode\": null, \"core_hz\": 3000000000, \"tsc_hz\": 2000000000,\n"
        "   \"smbios_manufacturer\": null, \"smbios_product\": null, \"nodes\": null},\n"
        " \"method\": {\"kernel\": null, \"layout\": null, \"page_bytes\": null, \"windows\": 11,\n"
        "   \"clock\": \"pmu-core-cycles\", \"prefetchers\": null, \"pmucal_version\": null},\n"
        " \"levels\": [\n"
        "  {\"name\": \"L1\", \"capacity_bytes\": 32768, \"cpuid_capacity_bytes\": null,\n"
        "   \"cpuid_level\": null, \"agreement\": \"no-cpuid\",\n"
        "   \"tsc_ticks\": {\"min\": 2, \"p10\": 2, \"p50\": 2, \"p90\": 2.2, \"p50_lo\": 1.98, \"p50_hi\": 2.02},\n"
        "   \"core_cycles\": {\"min\": 3, \"p10\": 3, \"p50\": 3, \"p90\": 3.3, \"p50_lo\": 2.97, \"p50_hi\": 3.03},\n"
        "   \"ns\": {\"min\": 1, \"p10\": 1, \"p50\": 1, \"p90\": 1.1, \"p50_lo\": 0.99, \"p50_hi\": 1.01},\n"
        "   \"cycles\": {\"min\": 3, \"p10\": 3, \"p50\": 3, \"p90\": 3.3, \"p50_lo\": 2.97, \"p50_hi\": 3.03},\n"
        "   \"core_per_tsc\": 1.5},\n"
        "  {\"name\": \"L2\", \"capacity_bytes\": 1048576, \"cpuid_capacity_bytes\": null,\n"
        "   \"cpuid_level\": null, \"agreement\": \"no-cpuid\",\n"
        "   \"tsc_ticks\": {\"min\": 6, \"p10\": 6.5, \"p50\": 7, \"p90\": 8, \"p50_lo\": null, \"p50_hi\": null},\n"
        "   \"core_cycles\": {\"min\": 6, \"p10\": 6.5, \"p50\": 7, \"p90\": 8},\n"
        "   \"ns\": {\"min\": 3, \"p10\": 3.25, \"p50\": 3.5, \"p90\": 4},\n"
        "   \"cycles\": {\"min\": 6, \"p10\": 6.5, \"p50\": 7, \"p90\": 8},\n"
        "   \"core_per_tsc\": 1.0},\n"
        "  {\"name\": \"DRAM\", \"capacity_bytes\": null, \"cpuid_capacity_bytes\": null,\n"
        "   \"cpuid_level\": null, \"agreement\": \"no-cpuid\",\n"
        "   \"tsc_ticks\": {\"min\": 90, \"p10\": 95, \"p50\": 100, \"p90\": 110},\n"
        "   \"core_cycles\": {\"min\": 108, \"p10\": 114, \"p50\": 120, \"p90\": 132},\n"
        "   \"ns\": {\"min\": 45, \"p10\": 47.5, \"p50\": 50, \"p90\": 55},\n"
        "   \"cycles\": {\"min\": 108, \"p10\": 114, \"p50\": 120, \"p90\": 132},\n"
        "   \"core_per_tsc\": 1.2}],\n"
        " \"bucket_upper_bounds\": {\"tsc_ticks\": [4, 30], \"core_cycles\": [6, 30],\n"
        "   \"ns\": [2, 15], \"cycles\": [6, 30]},\n"
        " \"flags\": []}\n";

/* Each case replaces the first occurrence of `from` in base with `to`. */
static const struct {
        const char     *name, *from, *to;
        enum pmucal_err want;
        const char     *msg;
} cases[] = {
        { "valid", "", "", PMUCAL_OK, NULL },
        { "no core clock", "\"core_cycles\": [6, 30]", "\"core_cycles\": null", PMUCAL_OK, NULL },
        { "no tsc bounds", "\"tsc_ticks\": [4, 30]", "\"tsc_ticks\": null", PMUCAL_OK, NULL },
        { "ceiling", "\"flags\": []", "\"flags\": [\"no_dram\"]", PMUCAL_OK, NULL },
        { "tsc figures missing", "\"tsc_ticks\": {\"min\": 6, \"p10\": 6.5, \"p50\": 7, \"p90\": 8, "
          "\"p50_lo\": null, \"p50_hi\": null},", "", PMUCAL_E_SCHEMA,
          "bucket_upper_bounds.tsc_ticks: tsc_ticks bounds but not every level has tsc_ticks" },
        { "tsc bounds count", "[4, 30]", "[4]", PMUCAL_E_SCHEMA,
          "bucket_upper_bounds.tsc_ticks: 1 bounds for 3 levels (want 2)" },
        { "core bound below median", "\"core_cycles\": [6, 30]", "\"core_cycles\": [6, 6.5]",
          PMUCAL_E_SCHEMA, "bucket_upper_bounds.core_cycles[1]: 6.5 is below the median of L2 (7)" },
        { "core bound below previous", "\"core_cycles\": [6, 30]", "\"core_cycles\": [9, 8]",
          PMUCAL_E_SCHEMA, "bucket_upper_bounds.core_cycles[1]: 8 is below the previous bound (9)" },
        { "core bound not number", "\"core_cycles\": [6, 30]", "\"core_cycles\": [6, \"30\"]",
          PMUCAL_E_SCHEMA, "bucket_upper_bounds.core_cycles[1]: expected a number, got a string" },
        { "tsc figures descending", "\"min\": 90, \"p10\": 95", "\"min\": 90, \"p10\": 85",
          PMUCAL_E_SCHEMA, "levels[2].tsc_ticks.p10: 85 is below min (90)" },
        { "core figures not object", "\"core_cycles\": {\"min\": 6,", "\"core_cycles\": 6, \"x\": {\"min\": 6,",
          PMUCAL_E_SCHEMA, "levels[1].core_cycles: expected an object, got an integer" },
        { "interval not number", "\"p50_lo\": 1.98", "\"p50_lo\": \"1.98\"", PMUCAL_E_SCHEMA,
          "levels[0].tsc_ticks.p50_lo: expected a number, got a string" },
        { "interval negative", "\"p50_hi\": 3.03}", "\"p50_hi\": -3}", PMUCAL_E_SCHEMA,
          "levels[0].core_cycles.p50_hi: -3 out of range" },
};

static char *make_doc(size_t i, size_t *len)
{
        char *d = table_case_doc(base, cases[i].from, cases[i].to, len);

        assert_non_null(d);
        return d;
}

static struct pmucal_table *load_case(const char *name)
{
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct pmucal_table *t;
                char                 err[512];
                size_t               len;
                char                *doc;

                if (strcmp(cases[i].name, name))
                        continue;
                doc = make_doc(i, &len);
                if (pmucal_table_load_buf(doc, len, "u.json", &t, err, sizeof(err)) != PMUCAL_OK)
                        fail_msg("%s: %s", name, err);
                free(doc);
                return t;
        }
        fail_msg("no case %s", name);
        return NULL;
}

static int lvl(const struct pmucal_table *t, double v, enum pmucal_unit u)
{
        int             k = -99;
        enum pmucal_err e = pmucal_table_classify(t, v, u, &k);
        return e == PMUCAL_OK ? k : -10 - (int)e;
}

static void test_cases(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct pmucal_table *t = (void *)1;
                char                 err[512];
                size_t               len;
                char                *doc = make_doc(i, &len);
                enum pmucal_err      e   = pmucal_table_load_buf(doc, len, "u.json", &t, err, sizeof(err));

                if (e != cases[i].want || (cases[i].msg && !strstr(err, cases[i].msg)))
                        fail_msg("case \"%s\": got %d \"%s\", want %d \"%s\"", cases[i].name, e, err,
                                 cases[i].want, cases[i].msg ? cases[i].msg : "");
                if (e == PMUCAL_OK)
                        pmucal_table_free(t);
                free(doc);
        }
}

/* The figures by unit as the file gives them. */
static void test_figures(void **state)
{
        struct pmucal_table             *t = load_case("valid");
        const struct pmucal_level_units *u = t->level_units;
        (void)state;

        assert_non_null(u);
        assert_true(u[0].unit[PMUCAL_UNIT_TSC].has);
        assert_true(u[0].unit[PMUCAL_UNIT_TSC].has_interval);
        assert_true(fabs(u[0].unit[PMUCAL_UNIT_TSC].p50_lo - 1.98) < 1e-12);
        assert_true(fabs(u[0].unit[PMUCAL_UNIT_CORE].p50_hi - 3.03) < 1e-12);
        assert_true(u[0].unit[PMUCAL_UNIT_TABLE].has_interval);
        assert_false(u[1].unit[PMUCAL_UNIT_TSC].has_interval); /* null */
        assert_false(u[1].unit[PMUCAL_UNIT_NS].has_interval);  /* absent */
        assert_true(fabs(u[2].unit[PMUCAL_UNIT_CORE].stat.p50 - 120) < 1e-12);
        assert_true(fabs(u[1].unit[PMUCAL_UNIT_CORE].upper - 30) < 1e-12);
        assert_true(u[1].unit[PMUCAL_UNIT_NS].has_upper);
        assert_false(u[2].unit[PMUCAL_UNIT_TSC].has_upper);     /* the last level */
        assert_true(t->levels[1].has_ns && fabs(t->levels[1].upper_ns - 15) < 1e-12);
        pmucal_table_free(t);

        t = load_case("no core clock"); /* bounds null: the figures are not used */
        assert_false(t->level_units[0].unit[PMUCAL_UNIT_CORE].has);
        assert_true(t->level_units[0].unit[PMUCAL_UNIT_TSC].has);
        pmucal_table_free(t);
}

/* TSC ticks against the TSC bounds: 25 ticks is L2 (its bound is 30 ticks), where converting
 * at the overall 1.5 would make it 37.5 core cycles, above the core bound 30 (DRAM). */
static void test_own_bounds(void **state)
{
        struct pmucal_table *t = load_case("valid");
        double               lat[4] = { 3.9, 25, 30, 31 };
        int                  lv[4];
        (void)state;

        assert_int_equal(lvl(t, 4, PMUCAL_UNIT_TSC), 0);
        assert_int_equal(lvl(t, 25, PMUCAL_UNIT_TSC), 1);
        assert_int_equal(lvl(t, 30, PMUCAL_UNIT_TSC), 1);
        assert_int_equal(lvl(t, 30.01, PMUCAL_UNIT_TSC), 2);
        assert_int_equal(lvl(t, 25, PMUCAL_UNIT_CORE), 1);
        assert_int_equal(lvl(t, 31, PMUCAL_UNIT_CORE), 2);
        assert_int_equal(lvl(t, 12, PMUCAL_UNIT_NS), 1);
        assert_int_equal(lvl(t, 15.5, PMUCAL_UNIT_NS), 2);
        assert_int_equal(lvl(t, 31, PMUCAL_UNIT_TABLE), 2);
        assert_int_equal(pmucal_table_classify_batch(t, lat, 4, PMUCAL_UNIT_TSC, lv, NULL), PMUCAL_OK);
        assert_int_equal(lv[0], 0);
        assert_int_equal(lv[1], 1);
        assert_int_equal(lv[2], 1);
        assert_int_equal(lv[3], 2);
        pmucal_table_free(t);
}

/* Where a unit is missing, its bounds are the cycle bounds at the overall ratio; where that
 * ratio is missing too, PMUCAL_E_NO_RATIO. */
static void test_fallback(void **state)
{
        struct pmucal_table *t = load_case("no tsc bounds");
        (void)state;

        assert_int_equal(lvl(t, 25, PMUCAL_UNIT_TSC), 2); /* 30 core / 1.5 = 20 ticks */
        assert_int_equal(lvl(t, 20, PMUCAL_UNIT_TSC), 1);
        assert_int_equal(lvl(t, 3.9, PMUCAL_UNIT_TSC), 0); /* 6 / 1.5 = 4 */
        assert_int_equal(lvl(t, 4.1, PMUCAL_UNIT_TSC), 1);
        pmucal_table_free(t);

        t = load_case("no core clock"); /* core cycles in cycles: identity */
        assert_int_equal(lvl(t, 29, PMUCAL_UNIT_CORE), 1);
        pmucal_table_free(t);
}

/* The last level's ceiling (no_dram) in each unit from its own p90: 1.3 x 110 ticks = 143,
 * not 1.3 x 132 core cycles at 1.5 (114.4 ticks). */
static void test_ceiling(void **state)
{
        struct pmucal_table *t = load_case("ceiling");
        (void)state;

        assert_int_equal(lvl(t, 130, PMUCAL_UNIT_TSC), 2);
        assert_int_equal(lvl(t, 143.5, PMUCAL_UNIT_TSC), PMUCAL_LEVEL_BEYOND);
        assert_int_equal(lvl(t, 171, PMUCAL_UNIT_CORE), 2);
        assert_int_equal(lvl(t, 172, PMUCAL_UNIT_CORE), PMUCAL_LEVEL_BEYOND);
        assert_int_equal(lvl(t, 71, PMUCAL_UNIT_NS), 2);
        assert_int_equal(lvl(t, 72, PMUCAL_UNIT_NS), PMUCAL_LEVEL_BEYOND);
        pmucal_table_free(t);
}

static char *units_case(size_t i, size_t *len, bool *ok, const char **name)
{
        *ok   = cases[i].want == PMUCAL_OK;
        *name = cases[i].name;
        return make_doc(i, len);
}

static int dump_cases(const char *dir)
{
        const struct table_case_set set = { "units", "latency", sizeof(cases) / sizeof(cases[0]),
                                            units_case };
        return table_cases_dump(dir, "cases-units.tsv", &set, 1);
}

int main(int argc, char **argv)
{
        if (argc == 3 && !strcmp(argv[1], "--dump-cases"))
                return dump_cases(argv[2]);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_cases),
                cmocka_unit_test(test_figures),
                cmocka_unit_test(test_own_bounds),
                cmocka_unit_test(test_fallback),
                cmocka_unit_test(test_ceiling),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
