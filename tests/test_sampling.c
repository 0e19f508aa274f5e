/** @file
 * Host tests of the sampling phase's own parts (app/x86/sampling_{plan,log,lbr}.c): the plan from
 * the latency table and its core-cycle conversion, the LBR block report, the JSON read back,
 * and the physical-address check against page walks. The sessions have their own tests
 * (tests/test_{ibs,pebs,lbr}_session.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <jansson.h>

#include "app/x86/sampling.h"
#include "bench/kernel_block.h"

/* ---- plan, report, JSON ----------------------------------------------------------------- */

/* A CPU with L1D 48 KiB (and an L1I), L2 2 MiB, L3 32 MiB. */
static void cpu_with_caches(struct cpu_info *ci)
{
        static const struct cpu_cache c[] = {
                { .level = 1, .type = CACHE_DATA, .size_bytes = 48 * KiB },
                { .level = 1, .type = CACHE_INST, .size_bytes = 32 * KiB },
                { .level = 2, .type = CACHE_UNIFIED, .size_bytes = 2 * MiB },
                { .level = 3, .type = CACHE_UNIFIED, .size_bytes = 32 * MiB },
        };
        memset(ci, 0, sizeof(*ci));
        memcpy(ci->caches, c, sizeof(c));
        ci->n_caches = 4;
}

/* Without a table that shows a hierarchy, the levels and working sets come from CPUID and no
 * latency is expected: each level says why; without CPUID caches no working set either. */
static void test_plan_thin_table(void **unused)
{
        static struct cpu_info ci;
        struct lat_levels flat = { .n = 1, .flags = LAT_F_NO_HIERARCHY };
        struct samp_plan p, pc;

        cpu_with_caches(&ci);
        samp_plan_build(NULL, &ci, &p);
        assert_true(p.fallback);
        assert_int_equal(p.n, 4);
        assert_int_equal(p.n_buckets, 0);
        static const char *names[] = { "L1", "L2", "L3", "DRAM" };
        static const uint64_t bytes[] = { 24 * KiB, 1048 * KiB, 17 * MiB, 64 * MiB };
        for (size_t i = 0; i < 4; i++) {
                assert_string_equal(p.ws[i].name, names[i]);
                assert_int_equal(p.ws[i].bytes, bytes[i]);
                assert_null(p.ws[i].ws_why);
                assert_non_null(strstr(p.ws[i].lat_why, "no latency table"));
                assert_int_equal(p.ws[i].lat_hi, 0);
        }
        assert_int_equal(p.ws[3].level, PS_LVL_LOCAL_DRAM);
        assert_int_equal(p.ws[2].level, PS_LVL_L3);
        samp_plan_core_cycles(&p, 3u << 16, "APERF/MPERF", &pc);
        assert_int_equal(pc.ws[1].lat_hi, 0);
        assert_non_null(strstr(pc.lat_note, "no expected latency"));

        samp_plan_build(&flat, &ci, &p);              /* one flat level (QEMU TCG) */
        assert_true(p.fallback);
        assert_non_null(strstr(p.ws[0].lat_why, "no cache hierarchy"));
        flat.flags = 0;
        samp_plan_build(&flat, &ci, &p);
        assert_non_null(strstr(p.ws[0].lat_why, "fewer than two levels"));

        samp_plan_build(NULL, NULL, &p);              /* nothing to go by */
        assert_int_equal(p.n, 4);
        for (size_t i = 0; i < 4; i++)
                assert_non_null(strstr(p.ws[i].ws_why, "no CPUID cache sizes"));
        ci.caches[0].size_bytes = 256 * MiB;         /* an L1 no allocation exceeds */
        ci.n_caches = 1;
        samp_plan_build(NULL, &ci, &p);
        assert_int_equal(p.n, 2);
        assert_non_null(strstr(p.ws[1].ws_why, "fits the last-level cache"));
}

static void test_plan(void **unused)
{
        struct samp_plan p;
        struct lat_levels l = { .n = 3 };

        static const char *names[] = { "L1", "L2", "DRAM" };
        for (size_t i = 0; i < 3; i++) {
                strcpy(l.lv[i].name, names[i]);
                l.lv[i].lat_mcyc.p50 = (uint64_t[]){ 4000, 12000, 200000 }[i];
                l.lv[i].ws_lo_bytes = (uint64_t[]){ 4096, 64 * 1024, 64ull << 20 }[i];
                l.lv[i].ws_hi_bytes = (uint64_t[]){ 32768, 1 << 20, 512ull << 20 }[i];
        }
        l.bound_mcyc[0] = 8000;
        l.bound_mcyc[1] = 100000;
        samp_plan_build(&l, NULL, &p);
        assert_false(p.fallback);
        assert_int_equal(p.n, 3);
        assert_int_equal(p.ws[0].bytes, 16384);            /* middle of 4K..32K, page multiple */
        assert_int_equal(p.ws[2].bytes, 128ull << 20);      /* twice the last plateau start */
        assert_int_equal(p.ws[2].lat_hi, 400 + 100);
        assert_int_equal(p.ws[1].level, PS_LVL_L2);
        assert_int_equal(p.n_buckets, 3);
        assert_int_equal(p.buckets[0].upper_cycles, 8);
        assert_null(p.ws[1].lat_why);
        l.flags = LAT_F_NO_HIERARCHY;
        samp_plan_build(&l, NULL, &p);
        assert_true(p.fallback);
}

static void test_block_report(void **unused)
{
        const struct lbr_block_stat st[] = {
                { .start = 0x1010, .end = 0x1050, .n = 4, .sum_cycles = 194, .min_cycles = 48,
                  .max_cycles = 50 },
        };
        const struct rep_sym syms[] = { { 0x1000, 0x100, "bench_block_run" } };
        struct rep_buf b = { 0 };

        assert_int_equal(samp_lbr_block_report(st, 1, syms, 1, &b), ST_OK);
        assert_non_null(strstr(b.p, "bench_block_run"));
        assert_non_null(strstr(b.p, "48.500"));
        assert_int_equal(samp_lbr_block_report(NULL, 1, syms, 1, &b), ST_BAD_ARG);
        rep_buf_free(&b);
}

static void test_json_read_back(void **unused)
{
        static struct samp_log lg;
        struct rep_verdict v = { .v = REP_V_FAIL, .measured = 7, .expected = 10, .lo = 9,
                                 .hi = 11, .unit = "samples" };
        struct rep_buf b = { 0 };
        json_error_t err;

        memset(&lg, 0, sizeof(lg));
        lg.levels_source = "CPUID caches (no latency expected)";
        strcpy(v.why, "7 samples for 100 events / period 10 \"quoted\"");
        samp_log_check(&lg, "pebs", "sample-count", &v);
        samp_log_skip(&lg, REP_SKIP_FEATURE, "ibs-op", "addresses L1",
                      "CPUID.80000001H:ECX[10] IBS is clear");
        samp_log_figure(&lg, "lbr", "interrupt cost per sample", 1234, "TSC ticks");
        for (int i = 0; i < SAMP_MAX_CHECKS + 3; i++)
                samp_log_skip(&lg, REP_SKIP_ENV, "lbr", "symbols", "x");
        assert_int_equal(lg.n_lost, 5);
        assert_int_equal(samp_json_write(&lg, &b), ST_OK);

        json_t *root = json_loadb(b.p, b.len, 0, &err);
        assert_non_null(root);
        assert_string_equal(json_string_value(json_object_get(root, "schema")),
                            "pmucal.sampling-validation/1");
        json_t *sum = json_object_get(root, "summary");
        assert_int_equal(json_integer_value(json_object_get(sum, "fail")), 1);
        assert_int_equal(json_integer_value(json_object_get(sum, "skip")), SAMP_MAX_CHECKS - 1);
        assert_int_equal(json_integer_value(json_object_get(sum, "lost")), 5);
        json_t *checks = json_object_get(root, "checks");
        assert_int_equal(json_array_size(checks), SAMP_MAX_CHECKS);
        json_t *c0 = json_array_get(checks, 0);
        assert_string_equal(json_string_value(json_object_get(c0, "verdict")), "FAIL");
        assert_int_equal(json_integer_value(json_object_get(c0, "measured")), 7);
        assert_int_equal(json_integer_value(json_object_get(c0, "lo")), 9);
        assert_non_null(strstr(json_string_value(json_object_get(c0, "detail")), "\"quoted\""));
        json_t *c1 = json_array_get(checks, 1);
        assert_null(json_object_get(c1, "measured"));   /* SKIP: no numbers */
        assert_string_equal(json_string_value(json_object_get(c1, "mechanism")), "ibs-op");
        json_t *f = json_array_get(json_object_get(root, "figures"), 0);
        assert_int_equal(json_integer_value(json_object_get(f, "value")), 1234);
        json_decref(root);
        rep_buf_free(&b);
}

/* The latency phase's clock reaches the plan: lv_detect carries it. */
static void test_levels_carry_clock(void **unused)
{
        struct lat_point pts[3] = {
                { .ws_bytes = 4096, .p50_mcyc = 4000 }, { .ws_bytes = 8192, .p50_mcyc = 4000 },
                { .ws_bytes = 16384, .p50_mcyc = 4100 },
        };
        struct lat_curve c = { .pts = pts, .n = 3, .clock = LAT_CLOCK_TSC,
                               .core_hz = 2000000000, .tsc_hz = 2000000000 };
        struct lat_levels l;

        for (size_t i = 0; i < 3; i++)
                pts[i].p10_mcyc = pts[i].p90_mcyc = pts[i].min_mcyc = pts[i].p50_mcyc;
        assert_int_equal(lv_detect(&c, NULL, &l), ST_OK);
        assert_int_equal(l.clock, LAT_CLOCK_TSC);
        assert_int_equal(l.clock_hz, 2000000000);
        c.clock = LAT_CLOCK_TSC_APERF;
        c.core_hz = 3100000000ull;
        assert_int_equal(lv_detect(&c, NULL, &l), ST_OK);
        assert_int_equal(l.clock, LAT_CLOCK_TSC_APERF);
        assert_int_equal(l.clock_hz, 3100000000ull);
}

/* Expected latencies become core cycles: scaled by the measured ratio, widened when unknown,
 * untouched when the table already is in core cycles. */
static void test_plan_core_cycles(void **unused)
{
        static const struct {
                enum lat_clock clock;
                uint32_t       q16;      /* core cycles per TSC tick */
                uint32_t       p50_l2, lo_l2, hi_l2, bound0;
                const char    *note;
        } cases[] = {
                /* TSC table: L2 p50 12, range [8 - 2, 100 + 25] = [6, 125], bound 8 */
                { LAT_CLOCK_TSC,        0,                  12, 3,  250, 8,  "widened" },
                { LAT_CLOCK_TSC,        3u << 15,           18, 9,  188, 12, "x1.500" },
                { LAT_CLOCK_TSC,        1u << 15,           6,  3,  63,  4,  "x0.500 core:TSC (APERF" },
                { LAT_CLOCK_TSC_APERF,  3u << 15,           12, 6,  125, 8,  "core cycles" },
                { LAT_CLOCK_PMU_CYCLES, 0,                  12, 6,  125, 8,  "core cycles" },
        };
        static const char *names[] = { "L1", "L2", "DRAM" };
        struct lat_levels l = { .n = 3 };
        struct samp_plan p, pc;

        for (size_t i = 0; i < 3; i++) {
                strcpy(l.lv[i].name, names[i]);
                l.lv[i].lat_mcyc.p50 = (uint64_t[]){ 4000, 12000, 200000 }[i];
                l.lv[i].ws_lo_bytes = (uint64_t[]){ 4096, 64 * 1024, 64ull << 20 }[i];
                l.lv[i].ws_hi_bytes = (uint64_t[]){ 32768, 1 << 20, 512ull << 20 }[i];
        }
        l.bound_mcyc[0] = 8000;
        l.bound_mcyc[1] = 100000;
        for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
                l.clock = cases[k].clock;
                l.clock_hz = 2100000000;
                samp_plan_build(&l, NULL, &p);
                assert_int_equal(p.tsc_cycles, cases[k].clock == LAT_CLOCK_TSC);
                assert_int_equal(p.clock_hz, 2100000000);
                assert_int_equal(p.ws[1].lat_lo, 6);
                assert_int_equal(p.ws[1].lat_hi, 125);
                samp_plan_core_cycles(&p, cases[k].q16, "APERF/MPERF", &pc);
                assert_int_equal(pc.ws[1].p50_cycles, cases[k].p50_l2);
                assert_int_equal(pc.ws[1].lat_lo, cases[k].lo_l2);
                assert_int_equal(pc.ws[1].lat_hi, cases[k].hi_l2);
                assert_int_equal(pc.buckets[0].upper_cycles, cases[k].bound0);
                assert_int_equal(pc.buckets[2].upper_cycles, UINT32_MAX - 1); /* open bound */
                assert_ptr_equal(pc.buckets[1].name, pc.ws[1].name);
                assert_int_equal(pc.n_buckets, 3);
                assert_int_equal(pc.ws[2].bytes, p.ws[2].bytes);
                if (!strstr(pc.lat_note, cases[k].note))
                        fail_msg("case %zu: note \"%s\" lacks \"%s\"", k, pc.lat_note,
                                 cases[k].note);
        }
        samp_plan_build(NULL, NULL, &p);             /* no table: nothing to convert */
        assert_false(p.tsc_cycles);
        samp_plan_core_cycles(&p, 0, NULL, &pc);
        assert_int_equal(pc.ws[1].lat_hi, 0);
        assert_non_null(strstr(pc.lat_note, "no latency table"));
}

/* Physical addresses are compared with what the page-table walk says, not with the linear
 * address: a non-identity mapping passes, a wrong or unwalkable one fails and is named. */
static void test_phys_walk_compare(void **unused)
{
        static const struct {
                uint64_t    la, pa;        /* as the sample reports them */
                bool        la_ok, pa_ok;
                status_t    walk_st;
                uint64_t    walk_pa;
        } smp[] = {
                [0] = { 0x100040, 0x100040, true, true,  ST_OK,        0x100040 },  /* identity */
                [1] = { 0x400000040ull, 0x7f000040, true, true, ST_OK, 0x7f000040 }, /* remapped */
                [2] = { 0x200080, 0x300080, true, true,  ST_OK,        0x200080 },  /* wrong pa */
                [3] = { 0x500000, 0x500000, true, true,  ST_NOT_FOUND, 0 },         /* unmapped */
                [4] = { 0x600000, 0,        true, false, ST_NOT_FOUND, 0 },         /* no pa */
                /* a walk that stopped at a reserved bit: its pa is no answer, even equal */
                [5] = { 0x700000, 0x700000, true, true,  ST_BAD_DATA,  0x700000 },
        };
        static const struct {
                size_t                first, n;
                enum rep_verdict_kind want;
                int64_t               good, both;
                const char           *why;
        } cases[] = {
                { 0, 2, REP_V_PASS, 2, 2, "2 of 2 physical addresses equal the CR3 walk (1 identity)" },
                { 0, 3, REP_V_FAIL, 2, 3, "first: la 0x200080 pa 0x300080 walk" },
                { 3, 1, REP_V_FAIL, 0, 1, "(1 unwalkable); first: la 0x500000" },
                { 4, 1, REP_V_SKIP, 0, 0, "no sample had both" },
                { 0, 0, REP_V_SKIP, 0, 0, "no sample had both" },
                { 5, 1, REP_V_FAIL, 0, 1, "(1 unwalkable); first: la 0x700000" },
        };
        struct psample s[6];
        struct rep_walk w[6];
        struct rep_verdict v;

        memset(s, 0, sizeof(s));
        for (size_t i = 0; i < 6; i++) {
                s[i].data_la = smp[i].la;
                s[i].data_la_valid = smp[i].la_ok;
                s[i].data_pa = smp[i].pa;
                s[i].data_pa_valid = smp[i].pa_ok;
                w[i] = (struct rep_walk){ .st = smp[i].walk_st, .pa = smp[i].walk_pa,
                                          .page_bytes = 4096 };
        }
        for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
                assert_int_equal(rep_check_phys_walk(s + cases[k].first, w + cases[k].first,
                                                     cases[k].n, &v), ST_OK);
                assert_int_equal(v.v, cases[k].want);
                assert_int_equal(v.measured, cases[k].good);
                assert_int_equal(v.expected, cases[k].both);
                if (!strstr(v.why, cases[k].why))
                        fail_msg("case %zu: \"%s\" lacks \"%s\"", k, v.why, cases[k].why);
        }
        assert_int_equal(rep_check_phys_walk(NULL, w, 1, &v), ST_BAD_ARG);
        assert_int_equal(rep_check_phys_walk(s, NULL, 1, &v), ST_BAD_ARG);
        assert_int_equal(rep_check_phys_walk(s, w, 1, NULL), ST_BAD_ARG);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_plan),
                cmocka_unit_test(test_plan_thin_table),
                cmocka_unit_test(test_block_report),
                cmocka_unit_test(test_json_read_back),
                cmocka_unit_test(test_levels_carry_clock),
                cmocka_unit_test(test_plan_core_cycles),
                cmocka_unit_test(test_phys_walk_compare),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
