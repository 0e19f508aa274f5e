/** @file Tests for pmu/sample.c: PMI bookkeeping driven by the register model, the skid
 *  histogram, the Caliper estimate and the top-functions report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmu/x86/msr_arch.h"
#include "app/pmu_validate.h"
#include "pmu/sample.h"
#include "report/rep.h"
#include "tests/fake_msr.h"

static unsigned n_unmask;
static void unmask(void *ctx)
{
        (*(unsigned *)ctx)++;
}

static void init_intel(void)
{
        struct cpu_info ci = { .vendor = VEN_INTEL, .family = 6, .model = 0x7e };
        ci.intel = (struct cpu_pmu_intel){ .version = 4, .n_gp = 4, .gp_width = 48, .ebx_len = 7,
                                           .n_fixed = 3, .fixed_width = 48, .pdcm = true };
        struct fake_msr_cfg cfg = { .layout = FAKE_INTEL, .version = 4, .n_gp = 4, .gp_width = 48,
                                    .n_fixed = 3, .fixed_width = 48, .pdcm = true,
                                    .perf_caps = PERF_CAP_FW_WRITES };
        fake_msr_setup(&cfg);
        assert_int_equal(pmu_init(&ci), ST_OK);
}

/* Run @p total events one by one; whenever the model raises a PMI, deliver it. */
static void run_events(struct pmu_sampler *s, uint16_t code, uint64_t total, uint64_t rip)
{
        unsigned seen = fake_msr_n_pmi();
        for (uint64_t i = 0; i < total; i++) {
                fake_msr_inject(code, 0, 1);
                if (fake_msr_n_pmi() != seen) {
                        seen = fake_msr_n_pmi();
                        fake_msr_inject(code, 0, 2); /* skid: two more events before the PMI */
                        i += 2;
                        struct pmu_frame f = { .rip = rip + (i % 3), .rsp = 0x1000 };
                        pmu_sample_on_pmi(s, &f);
                }
        }
}

static void test_pmi_bookkeeping(void **unused)
{
        struct pmu_sample  buf[64];
        struct pmu_sampler s = { .slot = { .idx = 2 }, .period = 100, .flags = PMU_OS, .buf = buf,
                                 .cap = 64, .unmask = unmask, .unmask_ctx = &n_unmask };
        uint64_t           st;

        init_intel();
        n_unmask = 0;
        s.ev = pmu_event_find(pmu_get_caps()->events, "INST_RETIRED.ANY_P");
        assert_non_null(s.ev);
        assert_int_equal(pmu_sample_arm(&s), ST_OK);
        assert_int_equal(fake_msr_peek(0x188), 0x5200c0); /* EN | INT | OS | 0xc0 */
        assert_int_equal(fake_msr_peek(0xc3), 0xffffffffff9cull);
        run_events(&s, 0xc0, 1000, 0x401000);
        assert_true(pmu_sample_pmi_count_ok(s.n_pmi, 1000, 100));
        assert_int_equal(s.n, s.n_pmi);
        assert_int_equal(s.n_spurious, 0);
        assert_int_equal(s.n_errors, 0);
        assert_int_equal(n_unmask, s.n_pmi);
        for (size_t i = 0; i < s.n; i++) {
                assert_int_equal(buf[i].status & BIT_ULL(2), BIT_ULL(2));
                assert_int_equal(buf[i].counter, 2); /* two events of skid past the wrap */
                assert_true(buf[i].rip >= 0x401000 && buf[i].rip < 0x401003);
        }
        assert_int_equal(pmu_ovf_status(&st), ST_OK);
        assert_int_equal(st & BIT_ULL(2), 0); /* acked */
        /* A PMI with nothing of ours in the status is spurious, and still unmasks. */
        struct pmu_frame f = { .rip = 1 };
        uint64_t before = s.n;
        pmu_sample_on_pmi(&s, &f);
        assert_int_equal(s.n_spurious, 1);
        assert_int_equal(s.n, before);
        assert_int_equal(n_unmask, s.n_pmi);
        assert_int_equal(pmu_sample_disarm(&s), ST_OK);
        assert_int_equal(fake_msr_peek(MSR_CORE_PERF_GLOBAL_CTRL) & BIT_ULL(2), 0);
}

static void test_buffer_full_drops(void **unused)
{
        struct pmu_sample  buf[2];
        struct pmu_sampler s = { .slot = { .idx = 0 }, .period = 10, .flags = PMU_OS, .buf = buf,
                                 .cap = 2 };

        init_intel();
        s.ev = pmu_event_find(pmu_get_caps()->events, "INST_RETIRED.ANY_P");
        assert_int_equal(pmu_sample_arm(&s), ST_OK);
        run_events(&s, 0xc0, 60, 0x2000);
        assert_int_equal(s.n, 2);
        assert_int_equal(s.n_dropped, s.n_pmi - 2);
        assert_true(s.n_dropped >= 2);

        struct pmu_sampler bad = s;
        bad.period = 0;
        assert_int_equal(pmu_sample_arm(&bad), ST_BAD_ARG);
        bad.period = 1ull << 48; /* wider than the counter */
        assert_int_equal(pmu_sample_arm(&bad), ST_BAD_ARG);
        assert_int_equal(pmu_sample_arm(NULL), ST_BAD_ARG);
        pmu_sample_on_pmi(NULL, NULL); /* must not crash */
}

static void test_pmi_count_tolerance(void **unused)
{
        static const struct { uint64_t pmi, total, period; bool ok; } cases[] = {
                { 10, 1000, 100, true }, { 9, 1000, 100, true }, { 11, 1000, 100, true },
                { 8, 1000, 100, false }, { 12, 1000, 100, false }, { 0, 50, 100, true },
                { 2, 50, 100, false },   { 1, 1000, 0, false },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                assert_int_equal(pmu_sample_pmi_count_ok(cases[i].pmi, cases[i].total, cases[i].period),
                                 cases[i].ok);
}

static void test_skid_hist(void **unused)
{
        const struct pmu_sample s[] = { { .rip = 0x1000 }, { .rip = 0x1003 }, { .rip = 0x1004 },
                                        { .rip = 0x0fff }, { .rip = 0x1000 + 4 * 16 }, { .rip = 0x1007 } };
        struct pmu_skid_hist    h;

        assert_int_equal(pmu_skid_hist(s, 6, 0x1000, 4, &h), ST_OK);
        assert_int_equal(h.n, 6);
        assert_int_equal(h.bucket[0], 2);
        assert_int_equal(h.bucket[1], 2);
        assert_int_equal(h.n_before, 1);
        assert_int_equal(h.n_beyond, 1);
        assert_int_equal(h.max_bytes, 64);
        assert_int_equal(pmu_skid_hist(s, 0, 0x1000, 4, &h), ST_OK);
        assert_int_equal(h.n, 0);
        assert_int_equal(pmu_skid_hist(s, 6, 0x1000, 0, &h), ST_BAD_ARG);
        assert_int_equal(pmu_skid_hist(NULL, 1, 0x1000, 4, &h), ST_BAD_ARG);
        assert_int_equal(pmu_skid_hist(s, 1, 0x1000, 4, NULL), ST_BAD_ARG);
}

static void test_caliper(void **unused)
{
        static const struct { uint64_t n, period, total, est; int64_t ppm; status_t st; } cases[] = {
                { 100, 1000, 100000, 100000, 0, ST_OK },
                { 99, 1000, 100000, 99000, -10000, ST_OK },
                { 101, 1000, 100500, 101000, 4975, ST_OK },
                { 0, 1000, 500, 0, -1000000, ST_OK },
                { 1, 1000, 0, 0, 0, ST_BAD_ARG },
                { UINT64_MAX / 2, 3, 1000, 0, 0, ST_BAD_ARG },
                { 1ull << 40, 1ull << 20, 1ull << 59, 1ull << 60, 1000000, ST_OK }, /* large */
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                uint64_t est = 0;
                int64_t  ppm = 0;
                assert_int_equal(pmu_caliper_estimate(cases[i].n, cases[i].period, cases[i].total, &est, &ppm),
                                 cases[i].st);
                if (cases[i].st != ST_OK)
                        continue;
                assert_int_equal(est, cases[i].est);
                assert_int_equal(ppm, cases[i].ppm);
        }
        uint64_t e;
        assert_int_equal(pmu_caliper_estimate(1, 1, 1, &e, NULL), ST_BAD_ARG);
}

static void test_top_functions(void **unused)
{
        const struct pmu_sym syms[] = { { 0x3000, "bench_chase" }, { 0x1000, "main" },
                                        { 0x2000, "bench_loop" }, { 0x4000, "tail" } };
        struct pmu_sample s[12];
        const uint64_t rips[] = { 0x3001, 0x3fff, 0x3100, 0x2000, 0x2010, 0x1005,
                                  0x0500, 0x3002, 0x4000, 0x2001, 0x3003, 0x3004 };
        struct pmu_func_count top[3];
        size_t k;
        uint64_t unknown;

        for (size_t i = 0; i < 12; i++)
                s[i] = (struct pmu_sample){ .rip = rips[i] };
        assert_int_equal(pmu_sample_top(s, 12, syms, 4, top, 3, &k, &unknown), ST_OK);
        assert_int_equal(k, 3);
        assert_string_equal(top[0].name, "bench_chase");
        assert_int_equal(top[0].n, 6);
        assert_string_equal(top[1].name, "bench_loop");
        assert_int_equal(top[1].n, 3);
        assert_string_equal(top[2].name, "main"); /* tie with tail: lower address first */
        assert_int_equal(top[2].n, 1);
        assert_int_equal(unknown, 1);
        assert_int_equal(pmu_sample_top(s, 12, syms, 4, top, 1, &k, NULL), ST_OK);
        assert_int_equal(k, 1);
        assert_string_equal(top[0].name, "bench_chase");
        assert_int_equal(pmu_sample_top(s, 0, syms, 4, top, 3, &k, &unknown), ST_OK);
        assert_int_equal(k, 0);
        assert_int_equal(pmu_sample_top(s, 12, NULL, 4, top, 3, &k, &unknown), ST_BAD_ARG);
        assert_int_equal(pmu_sample_top(s, 12, syms, 4, top, 3, NULL, &unknown), ST_BAD_ARG);

        struct rep_buf b = { 0 };
        rep_reset();
        rep_add_sink(rep_buf_sink(&b));
        assert_int_equal(pmu_sample_top(s, 12, syms, 4, top, 3, &k, &unknown), ST_OK);
        pmu_sample_print_top(top, k, 12);
        assert_non_null(strstr(b.p, "50.0%  bench_chase"));
        rep_reset();
        rep_buf_free(&b);
}

static struct rep_buf out;

/* The run-time driver on the fake platform: no PMI route there, so the route self-test and
 * every sampling check SKIP with a reason; without a PMU the run says why and nothing is
 * written to the model. */
static void test_sample_run_skips(void **unused)
{
        struct val_sample_figures fig = { .n_pmi = 9 };
        struct cpu_info           none = { .vendor = VEN_INTEL, .family = 6, .model = 0x55 };
        struct fake_msr_cfg       tcg  = { .layout = FAKE_INTEL, .tcg_like = true };

        rep_reset();
        memset(&out, 0, sizeof(out));
        rep_add_sink(rep_buf_sink(&out));
        fake_msr_setup(&tcg);
        assert_int_not_equal(pmu_init(&none), ST_OK);
        assert_int_equal(val_sample_run(NULL, 0, 0, &fig), ST_UNSUPPORTED);
        rep_flush(); /* a SKIP line is held until the next line */
        assert_int_equal(fig.n_pmi, 0);
        assert_non_null(strstr(out.p, "SKIP: sampling: pmi-route: unsupported"));
        assert_non_null(strstr(out.p, "SKIP: sampling: overflow sampling: CPUID.0AH"));
        assert_int_equal(fake_msr_n_writes(), 0);

        init_intel(); /* a PMU, but still no route on the fake platform */
        assert_int_equal(val_sample_run(NULL, 0, 0, &fig), ST_OK);
        rep_flush();
        assert_non_null(strstr(out.p, "SKIP: sampling: skid: no PMI route: unsupported"));
        assert_non_null(strstr(out.p, "SKIP: sampling: top-functions: no symbol table"));
        assert_int_equal(fig.pmi_cost_cycles, 0);
        assert_int_equal(val_sample_run(NULL, 0, 0, NULL), ST_BAD_ARG);
        rep_reset();
        rep_buf_free(&out);
}

/* Intel architectural perfmon version 1 (Core Solo/Duo era) has no IA32_PERF_GLOBAL_STATUS.
 * On the model: a counter armed for sampling overflows and raises PMIs, but the handler cannot
 * tell them from foreign NMIs (every one spurious, the counter never re-armed), which is why
 * pmu_sample_supported refuses v1 and val_sample_run SKIPs with that reason before touching
 * a counter. v2 and later, AMD legacy (overflow from the counter's top bit) and AMD
 * PerfMonV2 are fine. */
static void test_v1_has_no_overflow_status(void **unused)
{
        static const struct {
                enum fake_pmu_layout layout;
                enum cpu_vendor      vendor;
                unsigned             version, fam, model;
                uint32_t             ext_ecx; /* AMD: CPUID 0x80000001 ECX[23] PerfCtrExtCore */
                status_t             want;
                const char          *why;
        } cases[] = {
                { FAKE_INTEL, VEN_INTEL, 1, 6, 0x0e, 0, ST_UNSUPPORTED, "version 1 has no IA32_PERF_GLOBAL_STATUS" },
                { FAKE_INTEL, VEN_INTEL, 2, 6, 0x0f, 0, ST_OK, NULL },
                { FAKE_INTEL, VEN_INTEL, 4, 6, 0x7e, 0, ST_OK, NULL },
                { FAKE_AMD_LEGACY, VEN_AMD, 0, 0x10, 0x02, 0, ST_OK, NULL },
        };
        const char *why = "x";

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct cpu_info     ci  = { .vendor = cases[i].vendor, .family = cases[i].fam,
                                            .model = cases[i].model };
                struct fake_msr_cfg cfg = { .layout = cases[i].layout, .version = cases[i].version,
                                            .n_gp = cases[i].vendor == VEN_INTEL ? 2 : 4,
                                            .gp_width = cases[i].vendor == VEN_INTEL ? 40 : 48,
                                            .n_fixed = cases[i].version >= 2 ? 3 : 0,
                                            .fixed_width = cases[i].version >= 2 ? 40 : 0 };
                ci.intel = (struct cpu_pmu_intel){ .version = (uint8_t)cases[i].version,
                                                   .n_gp = 2, .gp_width = 40, .ebx_len = 7,
                                                   .n_fixed = cfg.n_fixed,
                                                   .fixed_width = (uint8_t)cfg.fixed_width };
                fake_msr_setup(&cfg);
                assert_int_equal(pmu_init(&ci), ST_OK);
                assert_int_equal(pmu_sample_supported(pmu_get_caps(), &why), cases[i].want);
                if (cases[i].why)
                        assert_non_null(strstr(why, cases[i].why));
                else
                        assert_null(why);
        }
        assert_int_equal(pmu_sample_supported(NULL, &why), ST_BAD_ARG);

        /* Why: arm a sampler on the v1 model and let it overflow. */
        struct cpu_info v1 = { .vendor = VEN_INTEL, .family = 6, .model = 0x0e };
        v1.intel = (struct cpu_pmu_intel){ .version = 1, .n_gp = 2, .gp_width = 40, .ebx_len = 7 };
        struct fake_msr_cfg cfg = { .layout = FAKE_INTEL, .version = 1, .n_gp = 2, .gp_width = 40 };
        fake_msr_setup(&cfg);
        assert_int_equal(pmu_init(&v1), ST_OK);
        struct pmu_sample  buf[16];
        struct pmu_sampler s = { .slot = { .idx = 0 }, .period = 100, .flags = PMU_OS, .buf = buf,
                                 .cap = 16 };
        s.ev = pmu_event_find(pmu_get_caps()->events, "INST_RETIRED.ANY_P");
        assert_non_null(s.ev);
        assert_int_equal(pmu_sample_arm(&s), ST_OK); /* arming works: EN | INT on v1 */
        run_events(&s, 0xc0, 1000, 0x401000);
        assert_true(s.n_pmi >= 1);
        assert_int_equal(s.n_spurious, s.n_pmi); /* every PMI taken for a foreign NMI */
        assert_int_equal(s.n, 0);
        assert_int_equal(s.n_errors, s.n_pmi);   /* no status register to read */
        assert_false(pmu_sample_pmi_count_ok(s.n_pmi, 1000, 100)); /* a FAIL saying nothing */
        pmu_sample_disarm(&s);

        /* So the run SKIPs with the reason and programs nothing. */
        rep_reset();
        memset(&out, 0, sizeof(out));
        rep_add_sink(rep_buf_sink(&out));
        fake_msr_setup(&cfg);
        assert_int_equal(pmu_init(&v1), ST_OK);
        fake_msr_clear_log();
        struct val_sample_figures fig;
        assert_int_equal(val_sample_run(NULL, 0, 0, &fig), ST_UNSUPPORTED);
        rep_flush();
        assert_non_null(strstr(out.p, "SKIP: sampling: overflow sampling: Intel architectural "
                                      "perfmon version 1 has no IA32_PERF_GLOBAL_STATUS"));
        assert_null(strstr(out.p, "skid"));
        assert_int_equal(fake_msr_n_writes(), 0);
        assert_int_equal(fig.n_pmi, 0);
        rep_reset();
        rep_buf_free(&out);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pmi_bookkeeping), cmocka_unit_test(test_buffer_full_drops),
                cmocka_unit_test(test_pmi_count_tolerance), cmocka_unit_test(test_skid_hist),
                cmocka_unit_test(test_caliper),         cmocka_unit_test(test_top_functions),
                cmocka_unit_test(test_sample_run_skips),
                cmocka_unit_test(test_v1_has_no_overflow_status),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
