/** @file Tests for app/pmu_validate.c: tolerances and verdicts, the report lines, the JSON, and
 *  the run-time driver on a CPU without a PMU (everything SKIPs) and on the register model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "bench/ownpt.h"
#include "pmu/x86/msr_arch.h"
#include "app/pmu_validate.h"
#include "tests/fake_msr.h"
#include "tests/fake_plat.h"

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
        static const struct val_check exact = { .name = "x", .tol_ppm = 0, .tol_abs = 0 };
        static const struct val_check pct10 = { .name = "y", .tol_ppm = 100000, .tol_abs = 2 };

        assert_true(val_check_pass(&exact, 200000, 200000));
        assert_false(val_check_pass(&exact, 200001, 200000));
        assert_false(val_check_pass(&exact, 199999, 200000));
        assert_int_equal(val_check_tolerance(&pct10, 1000), 102);
        assert_true(val_check_pass(&pct10, 1102, 1000));
        assert_false(val_check_pass(&pct10, 1103, 1000));
        assert_true(val_check_pass(&pct10, 898, 1000));
        assert_false(val_check_pass(&pct10, 897, 1000));
        assert_true(val_check_tolerance(&pct10, UINT64_MAX / 2) > UINT64_MAX / 40); /* no overflow */
        for (size_t i = 0; i < val_n_checks; i++) {
                assert_non_null(val_checks[i].rationale);
                assert_true(strlen(val_checks[i].rationale) > 20);
                for (size_t j = i + 1; j < val_n_checks; j++)
                        assert_string_not_equal(val_checks[i].name, val_checks[j].name);
        }
}

static void test_report_lines(void **unused)
{
        const struct val_result r[] = {
                { .check = &val_checks[0], .st = ST_OK, .measured = 200000, .expected = 200000 },
                { .check = &val_checks[1], .st = ST_OK, .measured = 100003, .expected = 100000 },
                { .check = &val_checks[2], .st = ST_UNSUPPORTED, .reason = "no PMU here" },
        };

        assert_int_equal(val_report(r, 3), 1);
        rep_flush();
        assert_non_null(strstr(out.p, "PASS: insts-loop measured=200000 expected=200000 tolerance=0"));
        assert_non_null(strstr(out.p, "FAIL: branches-loop measured=100003 expected=100000 tolerance=0"));
        assert_non_null(strstr(out.p, "SKIP: br-misses-random: no PMU here"));
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
        assert_int_equal(json_array_size(json_object_get(doc, "checks")), val_n_checks);
        return doc;
}

static void test_run_without_pmu_skips_all(void **unused)
{
        struct cpu_info     ci  = { .vendor = VEN_INTEL, .family = 6, .model = 0x55, .hypervisor = true };
        struct fake_msr_cfg cfg = { .layout = FAKE_INTEL, .tcg_like = true };

        fake_msr_setup(&cfg);
        struct rep_buf j = { 0 };
        assert_int_equal(val_run(&ci, 3, &j), ST_OK);
        rep_flush();
        assert_int_equal(fake_plat_put_file("res/pmu-validation.json", j.p, j.len), ST_OK);
        rep_buf_free(&j);
        struct rep_counts c = rep_get_counts();
        assert_int_equal(c.n_skip, val_n_checks);
        assert_int_equal(c.n_pass + c.n_fail, 0);
        /* one reason for every check: one line with the count, the summary counts each */
        char want[64];
        snprintf(want, sizeof(want), "SKIP: pmu-validate: %zu checks: CPUID.0AH", val_n_checks);
        if (!strstr(out.p, want))
                fail_msg("no %s in:\n%s", want, out.p);
        assert_null(strstr(out.p, "SKIP: pmu-validate: insts-loop"));
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
        assert_int_equal(val_run(&ci, 3, &j), ST_OK);
        rep_flush();
        assert_int_equal(fake_plat_put_file("r2/pmu-validation.json", j.p, j.len), ST_OK);
        rep_buf_free(&j);
        assert_non_null(strstr(out.p, "FAIL: pmu-validate: insts-loop measured=0 expected=200000 tolerance=0"));
        assert_non_null(strstr(out.p, "FAIL: pmu-validate: branches-loop measured=0 expected=100000"));
        assert_non_null(strstr(out.p, "br-misses-random measured=0 expected=524288 tolerance=52428"));
        /* Nothing counts on this model: two counters agreeing on 0 is not a PASS. */
        assert_non_null(strstr(out.p, "FAIL: pmu-validate: fixed0-vs-gp measured=0 expected=220000"));
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
        if (!strstr(out.p, "SKIP: pmu-validate: 3 checks: CPUID reports no size"))
                fail_msg("%s", out.p);
        assert_non_null(strstr(out.p, "SKIP: pmu-validate: cycles-vs-tsc: CPUID.06H:ECX[0] clear"));
        assert_non_null(strstr(out.p, "FAIL: pmu-validate: fixed1-vs-gp measured=0 expected=110000"));
        assert_int_equal(val_run(NULL, 1, &j), ST_BAD_ARG);
        assert_int_equal(val_run(&ci, 1, NULL), ST_BAD_ARG);
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
                enum val_truth truth;
                uint8_t        level;
                uint64_t       max, want;
                status_t       st;
        } cases[] = {
                { TRUTH_CHASE_MISSES, 1, VAL_CHASE_MAX_BYTES, 256 * KiB, ST_OK },  /* not the L1I */
                { TRUTH_CHASE_MISSES, 2, VAL_CHASE_MAX_BYTES, 8 * MiB, ST_OK },
                { TRUTH_CHASE_MISSES, 0, VAL_CHASE_MAX_BYTES, 256 * MiB, ST_OK },  /* last level */
                { TRUTH_CHASE_MISSES, 0, 128 * MiB, 0, ST_UNSUPPORTED },          /* too big */
                { TRUTH_CHASE_MISSES, 4, VAL_CHASE_MAX_BYTES, 0, ST_UNSUPPORTED },/* no L4 */
                { TRUTH_PAGE_CHASE, 0, VAL_CHASE_MAX_BYTES, 3072ull * 16 * 4096, ST_OK },
                { TRUTH_LOOP_INSNS, 0, VAL_CHASE_MAX_BYTES, 0, ST_BAD_ARG },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct val_check c = { .name = "t", .truth = cases[i].truth, .level = cases[i].level };
                uint64_t         b = 1;
                const char      *why = NULL;
                assert_int_equal(val_chase_plan(&ci, &c, cases[i].max, &b, &why), cases[i].st);
                assert_int_equal(b, cases[i].want);
                if (cases[i].st == ST_UNSUPPORTED)
                        assert_non_null(why);
        }
        /* The last level is the highest data or unified cache: an instruction cache listed
         * above it (a hypervisor's synthetic leaf 4 may list anything) is not chased. */
        struct cpu_info odd = { .vendor = VEN_INTEL, .n_caches = 3 };
        odd.caches[0] = (struct cpu_cache){ .level = 1, .type = CACHE_DATA, .size_bytes = 48 * KiB };
        odd.caches[1] = (struct cpu_cache){ .level = 2, .type = CACHE_UNIFIED, .size_bytes = 2 * MiB };
        odd.caches[2] = (struct cpu_cache){ .level = 3, .type = CACHE_INST, .size_bytes = 4 * MiB };
        struct val_check llc = { .name = "llc", .truth = TRUTH_CHASE_MISSES, .level = 0 };
        uint64_t lb = 0;
        const char *lwhy = NULL;
        assert_int_equal(val_chase_plan(&odd, &llc, VAL_CHASE_MAX_BYTES, &lb, &lwhy), ST_OK);
        assert_int_equal(lb, 16 * MiB);
        struct cpu_info none = { 0 };
        struct val_check pc = { .name = "p", .truth = TRUTH_PAGE_CHASE };
        uint64_t b; const char *why;
        assert_int_equal(val_chase_plan(&none, &pc, VAL_CHASE_MAX_BYTES, &b, &why), ST_OK);
        assert_int_equal(b, (uint64_t)VAL_PAGE_TLB_DEFAULT * 16 * 4096); /* CPUID silent */
}

/* A chase set up on the host: the N run continues the lap, loads = iters x 32. */
static void test_chase_setup(void **unused)
{
        struct val_chase ch;
        const char      *why = NULL;

        assert_int_equal(val_chase_setup(&ch, NULL, 256 * KiB, false, &why), ST_OK);
        assert_int_equal(ch.iters, 256 * KiB / 64 / 32);
        void *start = ch.cb.start;
        struct val_chase_run r = { &ch, ch.iters };
        val_chase_step(&r); /* one full lap: back where it started */
        assert_ptr_equal(ch.cb.start, start);
        val_chase_free(&ch);
        assert_null(ch.cb.buf);
        assert_int_equal(val_chase_setup(&ch, NULL, 64 * KiB, true, &why), ST_OK); /* fake: 4 KiB pages */
        assert_int_equal(ch.iters, 1);
        assert_null(ch.own); /* the firmware's pages are 4 KiB already: no own tables */
        assert_int_equal(val_chase_enter(&ch), ST_OK); /* and no CR3 switch */
        val_chase_leave(&ch);
        assert_int_equal(ch.n_cr3_bad, 0);
        val_chase_free(&ch);
}

/* The CPU the own-tables tests build for; MAXPHYADDR from this host's CPUID: the table pages
 * come from its heap. */
static struct cpu_info own_tables_cpu(void)
{
        return (struct cpu_info){ .pdpe1gb = true, .max_ext_leaf = 0x80000008,
                                  .phys_addr_bits = 48 };
}

/* The own page tables of the dTLB check (bench/x86/ownpt.c) over the fake memory map
 * ([0, 640 KiB) and [1 MiB, 2 GiB) RAM, a 4 KiB MMIO page at 0xfec00000, holes below 4 GiB
 * uncached): the "fine" buffer is carved out of whatever range holds it and mapped by 4 KiB
 * pages; everything else keeps the largest page that fits. Only addresses are mapped and
 * walked, so the buffer need not exist on the host. */
static void test_own_tables(void **unused)
{
        static const struct {
                uint64_t fine, bytes; /* the 4 KiB-mapped buffer */
                uint64_t va, size;    /* a probe and the page size expected there */
                status_t st;
        } cases[] = {
                /* inside [1 MiB, 2 GiB): the range is split in two */
                { 1 * GiB + 12 * KiB, 64 * KiB, 1 * GiB + 12 * KiB, 4 * KiB, ST_OK },
                { 1 * GiB + 12 * KiB, 64 * KiB, 1 * GiB, 4 * KiB, ST_OK },            /* cut before */
                { 1 * GiB + 12 * KiB, 64 * KiB, 1 * GiB - 4 * KiB, 2 * MiB, ST_OK },
                { 1 * GiB + 12 * KiB, 64 * KiB, 1 * GiB + 76 * KiB, 4 * KiB, ST_OK }, /* cut after */
                { 1 * GiB + 12 * KiB, 64 * KiB, 1 * GiB + 2 * MiB, 2 * MiB, ST_OK },
                { 1 * GiB + 12 * KiB, 64 * KiB, 2 * GiB - 1, 2 * MiB, ST_OK },
                /* 2 MiB-aligned, 2 MiB long: the 2 MiB page that was there becomes 512 */
                { 512 * MiB, 2 * MiB, 512 * MiB + 2 * MiB - 1, 4 * KiB, ST_OK },
                { 512 * MiB, 2 * MiB, 512 * MiB + 2 * MiB, 2 * MiB, ST_OK },
                { 512 * MiB, 2 * MiB, 512 * MiB - 1, 2 * MiB, ST_OK },
                /* across the end of [0, 640 KiB) into the hole: both ranges are cut */
                { 632 * KiB, 16 * KiB, 636 * KiB, 4 * KiB, ST_OK },
                { 632 * KiB, 16 * KiB, 644 * KiB, 4 * KiB, ST_OK },
                /* covering the whole MMIO range and a page of the holes either side */
                { 0xfebff000ull, 12 * KiB, 0xfec00000ull, 4 * KiB, ST_OK },
                /* misaligned buffers are refused */
                { 1 * GiB + 100, 64 * KiB, 0, 0, ST_BAD_ARG },
                { 1 * GiB, 64 * KiB + 1, 0, 0, ST_BAD_ARG },
        };
        struct cpu_info ci = own_tables_cpu();

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct bench_ownpt o;
                uint64_t           pa = 0, sz = 0, fl = 0, n = 0;
                const void        *fine = (const void *)(uintptr_t)cases[i].fine;

                assert_int_equal(bench_ownpt_build(&o, &ci, fine, cases[i].bytes), cases[i].st);
                if (cases[i].st != ST_OK) {
                        bench_ownpt_free(&o);
                        continue;
                }
                assert_int_equal(o.n_map, 3);
                assert_true(o.pt.cfg.phys_bits >= 36 && o.pt.cfg.phys_bits <= 52);
                assert_int_equal(bench_ownpt_check_4k(&o, fine, cases[i].bytes, &n), ST_OK);
                assert_int_equal(n, cases[i].bytes / (4 * KiB));
                assert_int_equal(bench_pt_walk(&o.pt, cases[i].va, &pa, &sz, &fl), ST_OK);
                assert_int_equal(pa, cases[i].va);
                assert_int_equal(sz, cases[i].size);
                assert_true(fl & BENCH_PT_WRITE);
                /* the rest of the map is untouched: a 1 GiB page at 0 would overlap the
                 * hole, so 2 MiB from 2 MiB on; the MMIO page stays uncached unless fine */
                assert_int_equal(bench_pt_walk(&o.pt, 4 * MiB, &pa, &sz, NULL), ST_OK);
                assert_int_equal(sz, 2 * MiB);
                if (cases[i].fine != 0xfebff000ull) {
                        assert_int_equal(bench_pt_walk(&o.pt, 0xfec00000ull, &pa, &sz, &fl), ST_OK);
                        assert_true(fl & BENCH_PT_PCD);
                }
                bench_ownpt_free(&o);
                assert_int_equal(o.n_chunks, 0);
        }
}

/* The walker check refuses a page that is not 4 KiB: one past a 2 MiB-aligned buffer. */
static void test_own_tables_refuse_large_page(void **unused)
{
        struct cpu_info    ci = own_tables_cpu();
        struct bench_ownpt big;
        uint64_t           n_big = 0;
        assert_int_equal(bench_ownpt_build(&big, &ci, (void *)(uintptr_t)(512 * MiB), 2 * MiB), ST_OK);
        assert_int_equal(bench_ownpt_check_4k(&big, (void *)(uintptr_t)(512 * MiB), 2 * MiB + 4 * KiB,
                                              &n_big), ST_BAD_DATA);
        assert_int_equal(n_big, 512);
        bench_ownpt_free(&big);
}

/* A buffer outside every range (the host heap) is mapped too; harness addresses the window
 * would touch translate to themselves only where the map has them. */
static void test_own_tables_heap_buffer(void **unused)
{
        struct cpu_info    ci = own_tables_cpu();
        struct bench_ownpt o;
        void              *buf = NULL;
        uint64_t           n = 0;
        enum plat_page_kind got;
        assert_int_equal(plat_alloc_pages(32 * KiB, PLAT_PAGE_4K, &buf, &got), ST_OK);
        assert_int_equal(bench_ownpt_build(&o, &ci, buf, 32 * KiB), ST_OK);
        assert_int_equal(bench_ownpt_check_4k(&o, buf, 32 * KiB, &n), ST_OK);
        assert_int_equal(n, 8);
        const uintptr_t in_map[] = { 0x1000, 1 * MiB, 2 * GiB - 8, 0xfec00010, (uintptr_t)buf };
        const uintptr_t off_map[] = { 0x1000, 5 * GiB };
        assert_true(bench_ownpt_identity_ok(&o, in_map, ARRAY_SIZE(in_map)));
        assert_false(bench_ownpt_identity_ok(&o, off_map, ARRAY_SIZE(off_map)));
        assert_true(o.pt.n_table_pages > 0 && o.n_chunks == 1);
        /* fake_plat cannot load CR3: the page chase's window reports it instead of running */
        struct val_chase ch = { .cb = { .buf = buf, .bytes = 32 * KiB }, .own = &o };
        assert_int_equal(val_chase_enter(&ch), ST_UNSUPPORTED);
        bench_ownpt_free(&o);
        plat_free_pages(buf, 32 * KiB);
}

/* Where the firmware's pages are 4 KiB already (fake_plat), the QEMU self-test of the own
 * tables has nothing to build and prints nothing. */
static void test_own_tables_selftest_silent(void **unused)
{
        struct cpu_info ci = own_tables_cpu();

        ci.n_tlbs  = 1; /* 64 entries: a 4 MiB chase buffer */
        ci.tlbs[0] = (struct cpu_tlb){ .level = 2, .type = TLB_UNIFIED, .page_sizes = TLB_PG_4K,
                                       .entries = 64 };
        size_t before = out.len;
        val_page_chase_selftest(&ci);
        assert_int_equal(out.len, before);
        val_page_chase_selftest(NULL);
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
                cmocka_unit_test_setup_teardown(test_own_tables, setup, teardown),
                cmocka_unit_test_setup_teardown(test_own_tables_refuse_large_page, setup, teardown),
                cmocka_unit_test_setup_teardown(test_own_tables_heap_buffer, setup, teardown),
                cmocka_unit_test_setup_teardown(test_own_tables_selftest_silent, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
