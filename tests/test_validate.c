/** @file Tests for pmu/validate.c: tolerances and verdicts, the report lines, the JSON, and
 *  the run-time driver on a CPU without a PMU (everything SKIPs) and on the register model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "../pmu/msr_arch.h"
#include "../pmu/validate.h"
#include "fake_msr.h"
#include "fake_plat.h"

static struct rep_buf out;

/* fake_plat_reset() is called once only: resetting after a file was written leaves a stale
 * pointer in tests/fake_plat.c that the next new file frees again (reported to the lead). */
static int setup(void **unused)
{
        fake_plat_fail_writes(ST_OK);
        rep_reset();
        memset(&out, 0, sizeof(out));
        rep_add_sink(rep_buf_sink(&out));
        return 0;
}

static int teardown(void **unused)
{
        rep_reset();
        rep_buf_free(&out);
        fake_plat_fail_writes(ST_OK);
        return 0;
}

static void test_tolerance(void **unused)
{
        static const struct pmu_check exact = { .name = "x", .tol_ppm = 0, .tol_abs = 0 };
        static const struct pmu_check pct10 = { .name = "y", .tol_ppm = 100000, .tol_abs = 2 };

        assert_true(pmu_check_pass(&exact, 200000, 200000));
        assert_false(pmu_check_pass(&exact, 200001, 200000));
        assert_false(pmu_check_pass(&exact, 199999, 200000));
        assert_int_equal(pmu_check_tolerance(&pct10, 1000), 102);
        assert_true(pmu_check_pass(&pct10, 1102, 1000));
        assert_false(pmu_check_pass(&pct10, 1103, 1000));
        assert_true(pmu_check_pass(&pct10, 898, 1000));
        assert_false(pmu_check_pass(&pct10, 897, 1000));
        assert_true(pmu_check_tolerance(&pct10, UINT64_MAX / 2) > UINT64_MAX / 40); /* no overflow */
        for (size_t i = 0; i < pmu_n_checks; i++) {
                assert_non_null(pmu_checks[i].rationale);
                assert_true(strlen(pmu_checks[i].rationale) > 20);
                for (size_t j = i + 1; j < pmu_n_checks; j++)
                        assert_string_not_equal(pmu_checks[i].name, pmu_checks[j].name);
        }
}

static void test_report_lines(void **unused)
{
        const struct pmu_result r[] = {
                { .check = &pmu_checks[0], .st = ST_OK, .measured = 200000, .expected = 200000 },
                { .check = &pmu_checks[1], .st = ST_OK, .measured = 100003, .expected = 100000 },
                { .check = &pmu_checks[2], .st = ST_UNSUPPORTED, .reason = "no PMU here" },
        };

        assert_int_equal(pmu_validate_report(r, 3), 1);
        assert_non_null(strstr(out.p, "PASS: insts-loop measured=200000 expected=200000 tolerance=0"));
        assert_non_null(strstr(out.p, "FAIL: branches-loop measured=100003 expected=100000 tolerance=0"));
        assert_non_null(strstr(out.p, "SKIP: br-misses-random no PMU here"));
        struct rep_counts c = rep_get_counts();
        assert_int_equal(c.n_pass, 1);
        assert_int_equal(c.n_fail, 1);
        assert_int_equal(c.n_skip, 1);
}

static json_t *load_results(const char *path)
{
        size_t      len;
        const char *text = fake_plat_get_file(path, &len);
        assert_non_null(text);
        json_error_t err;
        json_t *doc = json_loadb(text, len, 0, &err);
        if (!doc)
                fail_msg("bad JSON: %s", err.text);
        assert_string_equal(json_string_value(json_object_get(doc, "schema")), "pmucal.pmu-validation/1");
        assert_int_equal(json_array_size(json_object_get(doc, "checks")), pmu_n_checks);
        return doc;
}

static void test_run_without_pmu_skips_all(void **unused)
{
        struct cpu_info     ci  = { .vendor = VEN_INTEL, .family = 6, .model = 0x55, .hypervisor = true };
        struct fake_msr_cfg cfg = { .layout = FAKE_INTEL, .tcg_like = true };

        fake_msr_setup(&cfg);
        struct rep_buf j = { 0 };
        assert_int_equal(pmu_validate_run(&ci, 3, &j), ST_OK);
        assert_int_equal(fake_plat_put_file("res/pmu-validation.json", j.p, j.len), ST_OK);
        rep_buf_free(&j);
        struct rep_counts c = rep_get_counts();
        assert_int_equal(c.n_skip, pmu_n_checks);
        assert_int_equal(c.n_pass + c.n_fail, 0);
        assert_non_null(strstr(out.p, "SKIP: pmu-validate: insts-loop CPUID.0AH"));
        assert_int_equal(fake_msr_n_writes(), 0);
        json_t *doc = load_results("res/pmu-validation.json");
        assert_false(json_is_true(json_object_get(doc, "pmu_available")));
        json_t *first = json_array_get(json_object_get(doc, "checks"), 0);
        assert_string_equal(json_string_value(json_object_get(first, "verdict")), "SKIP");
        assert_non_null(strstr(json_string_value(json_object_get(first, "reason")), "CPUID.0AH"));
        json_decref(doc);
}

/* On the register model nothing is injected, so counters read 0: the counting checks FAIL
 * with expected > 0 and fixed-vs-GP agrees (0 = 0). This proves the plumbing, not a CPU. */
static void test_run_on_model(void **unused)
{
        struct cpu_info ci = { .vendor = VEN_INTEL, .family = 6, .model = 0x7e };
        ci.intel = (struct cpu_pmu_intel){ .version = 4, .n_gp = 4, .gp_width = 48, .ebx_len = 7,
                                           .n_fixed = 3, .fixed_width = 48, .pdcm = true };
        struct fake_msr_cfg cfg = { .layout = FAKE_INTEL, .version = 4, .n_gp = 4, .gp_width = 48,
                                    .n_fixed = 3, .fixed_width = 48, .pdcm = true,
                                    .perf_caps = PERF_CAP_FW_WRITES };

        fake_msr_setup(&cfg);
        struct rep_buf j = { 0 };
        assert_int_equal(pmu_validate_run(&ci, 3, &j), ST_OK);
        assert_int_equal(fake_plat_put_file("r2/pmu-validation.json", j.p, j.len), ST_OK);
        rep_buf_free(&j);
        assert_non_null(strstr(out.p, "FAIL: pmu-validate: insts-loop measured=0 expected=200000 tolerance=0"));
        assert_non_null(strstr(out.p, "FAIL: pmu-validate: branches-loop measured=0 expected=100000"));
        assert_non_null(strstr(out.p, "br-misses-random measured=0 expected=524288 tolerance=52428"));
        assert_non_null(strstr(out.p, "PASS: pmu-validate: fixed0-vs-gp measured=0 expected=0"));
        assert_int_equal(fake_msr_peek(MSR_CORE_PERF_GLOBAL_CTRL), 0); /* left stopped */
        json_t *doc = load_results("r2/pmu-validation.json");
        assert_true(json_is_true(json_object_get(doc, "pmu_available")));
        assert_string_equal(json_string_value(json_object_get(doc, "event_table")), "intel-icelake");
        json_t *c0 = json_array_get(json_object_get(doc, "checks"), 0);
        assert_string_equal(json_string_value(json_object_get(c0, "verdict")), "FAIL");
        assert_int_equal(json_integer_value(json_object_get(c0, "expected")), 200000);
        assert_int_equal(json_integer_value(json_object_get(c0, "runs")), 3);
        json_decref(doc);

        /* The new checks on the model: no cache sizes in this cpu_info, no APERF/MPERF. */
        assert_non_null(strstr(out.p, "SKIP: pmu-validate: l1d-misses-chase CPUID reports no size"));
        assert_non_null(strstr(out.p, "SKIP: pmu-validate: cycles-vs-tsc CPUID.06H:ECX[0] clear"));
        assert_non_null(strstr(out.p, "PASS: pmu-validate: fixed1-vs-gp measured=0 expected=0 tolerance=64"));
        assert_int_equal(pmu_validate_run(NULL, 1, &j), ST_BAD_ARG);
        assert_int_equal(pmu_validate_run(&ci, 1, NULL), ST_BAD_ARG);
}

/* Buffer sizes for the memory checks: 8x the cache level, 16x the largest 4 KiB dTLB. */
static void test_chase_plan(void **unused)
{
        struct cpu_info ci = { .vendor = VEN_AMD, .n_caches = 4, .n_tlbs = 3 };
        ci.caches[0] = (struct cpu_cache){ .level = 1, .type = CACHE_DATA, .size_bytes = 32 * KiB };
        ci.caches[1] = (struct cpu_cache){ .level = 1, .type = CACHE_INST, .size_bytes = 64 * KiB };
        ci.caches[2] = (struct cpu_cache){ .level = 2, .type = CACHE_UNIFIED, .size_bytes = 1 * MiB };
        ci.caches[3] = (struct cpu_cache){ .level = 3, .type = CACHE_UNIFIED, .size_bytes = 32 * MiB };
        ci.tlbs[0] = (struct cpu_tlb){ .level = 1, .type = TLB_DATA, .page_sizes = TLB_PG_4K, .entries = 72 };
        ci.tlbs[1] = (struct cpu_tlb){ .level = 2, .type = TLB_DATA, .page_sizes = TLB_PG_4K | TLB_PG_2M, .entries = 3072 };
        ci.tlbs[2] = (struct cpu_tlb){ .level = 2, .type = TLB_INST, .page_sizes = TLB_PG_4K, .entries = 4096 };
        static const struct {
                enum pmu_truth truth;
                uint8_t        level;
                uint64_t       max, want;
                status_t       st;
        } cases[] = {
                { TRUTH_CHASE_MISSES, 1, PMU_CHASE_MAX_BYTES, 256 * KiB, ST_OK },  /* not the L1I */
                { TRUTH_CHASE_MISSES, 2, PMU_CHASE_MAX_BYTES, 8 * MiB, ST_OK },
                { TRUTH_CHASE_MISSES, 0, PMU_CHASE_MAX_BYTES, 256 * MiB, ST_OK },  /* last level */
                { TRUTH_CHASE_MISSES, 0, 128 * MiB, 0, ST_UNSUPPORTED },          /* too big */
                { TRUTH_CHASE_MISSES, 4, PMU_CHASE_MAX_BYTES, 0, ST_UNSUPPORTED },/* no L4 */
                { TRUTH_PAGE_CHASE, 0, PMU_CHASE_MAX_BYTES, 3072ull * 16 * 4096, ST_OK },
                { TRUTH_LOOP_INSNS, 0, PMU_CHASE_MAX_BYTES, 0, ST_BAD_ARG },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct pmu_check c = { .name = "t", .truth = cases[i].truth, .level = cases[i].level };
                uint64_t         b = 1;
                const char      *why = NULL;
                assert_int_equal(pmu_chase_plan(&ci, &c, cases[i].max, &b, &why), cases[i].st);
                assert_int_equal(b, cases[i].want);
                if (cases[i].st == ST_UNSUPPORTED)
                        assert_non_null(why);
        }
        struct cpu_info none = { 0 };
        struct pmu_check pc = { .name = "p", .truth = TRUTH_PAGE_CHASE };
        uint64_t b; const char *why;
        assert_int_equal(pmu_chase_plan(&none, &pc, PMU_CHASE_MAX_BYTES, &b, &why), ST_OK);
        assert_int_equal(b, (uint64_t)PMU_PAGE_TLB_DEFAULT * 16 * 4096); /* CPUID silent */
}

/* A chase set up on the host: the N run continues the lap, loads = iters x 32. */
static void test_chase_setup(void **unused)
{
        struct pmu_chase ch;
        const char      *why = NULL;

        assert_int_equal(pmu_chase_setup(&ch, 256 * KiB, false, &why), ST_OK);
        assert_int_equal(ch.iters, 256 * KiB / 64 / 32);
        void *start = ch.p;
        struct pmu_chase_run r = { &ch, ch.iters };
        pmu_chase_step(&r); /* one full lap: back where it started */
        assert_ptr_equal(ch.p, start);
        pmu_chase_free(&ch);
        assert_null(ch.buf);
        assert_int_equal(pmu_chase_setup(&ch, 64 * KiB, true, &why), ST_OK); /* fake: 4 KiB pages */
        assert_int_equal(ch.iters, 1);
        pmu_chase_free(&ch);
}

int main(void)
{
        fake_plat_reset();
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_tolerance, setup, teardown),
                cmocka_unit_test_setup_teardown(test_report_lines, setup, teardown),
                cmocka_unit_test_setup_teardown(test_run_without_pmu_skips_all, setup, teardown),
                cmocka_unit_test_setup_teardown(test_run_on_model, setup, teardown),
                cmocka_unit_test_setup_teardown(test_chase_plan, setup, teardown),
                cmocka_unit_test_setup_teardown(test_chase_setup, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
