/** @file The real suites end to end on the virtual PMU: the counting validation suite
 *  (app/pmu_validate.c) on Skylake-SP, Ice Lake-SP, Sapphire Rapids, Zen 2, Zen 4 and Zen 5,
 *  overflow sampling, and the pmu phase around them (app/x86/pmu.c).
 *  Faithful, every check that can run on the part PASSes; with one fault switched on, the
 *  check that fault concerns FAILs and no other verdict changes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/pmu_validate.h"
#include "app/latency_clock.h"
#include "app/run.h"
#include "bench/kernel_branch.h"
#include "boot/x86/msr.h"
#include "bench/kernel_skid.h"
#include "pmu/sample.h"
#include "pmu/x86/msr_amd.h"
#include "pmu/x86/msr_arch.h"
#include "report/inventory.h"
#include "tests/vpmu/vpmu.h"

#define MAX_V 32

static const struct vpmu_part *const parts[] = { &vpmu_skx, &vpmu_icx, &vpmu_spr,
                                                 &vpmu_zen2, &vpmu_zen4, &vpmu_zen5 };
#define N_PARTS (sizeof(parts) / sizeof(parts[0]))

struct verdicts {
        unsigned n;
        char     name[MAX_V][48];
        char     v[MAX_V];   /* 'P' 'F' 'S' */
};

/* Collect "<VERDICT>: <prefix>: <check> ..." lines of @p prefix from @p text. */
static void parse(const char *text, const char *prefix, struct verdicts *out)
{
        char want[64];

        memset(out, 0, sizeof(*out));
        snprintf(want, sizeof(want), ": %s: ", prefix);
        for (const char *ln = text; ln && *ln; ln = strchr(ln, '\n') ? strchr(ln, '\n') + 1 : NULL) {
                const char *p = strstr(ln, want), *nl = strchr(ln, '\n');
                char        v = ln[0];

                if (!p || (nl && p > nl) || (v != 'P' && v != 'F' && v != 'S') || out->n == MAX_V)
                        continue;
                p += strlen(want);
                size_t k = strcspn(p, " :\n");
                if (k >= sizeof(out->name[0]))
                        k = sizeof(out->name[0]) - 1;
                memcpy(out->name[out->n], p, k);
                out->v[out->n++] = v;
        }
}

/* Collect the checks of a pmu-validation document: the console collapses repeated SKIPs into
 * one line with a count, so the names and verdicts are read where they stay whole. */
static void parse_json(const char *doc, struct verdicts *out)
{
        memset(out, 0, sizeof(*out));
        for (const char *p = doc; p && (p = strstr(p, "\"check\": \"")) && out->n < MAX_V;) {
                p += strlen("\"check\": \"");
                size_t      k = strcspn(p, "\"");
                const char *v = strstr(p, "\"verdict\": \"");

                if (!v)
                        break;
                if (k >= sizeof(out->name[0]))
                        k = sizeof(out->name[0]) - 1;
                memcpy(out->name[out->n], p, k);
                out->v[out->n++] = v[strlen("\"verdict\": \"")];
        }
}

static char verdict_of(const struct verdicts *v, const char *name)
{
        for (unsigned i = 0; i < v->n; i++)
                if (!strcmp(v->name[i], name))
                        return v->v[i];
        return '?';
}

/* What a test builds (the report lines, the suite's document, the files a phase kept) lives
 * here, not on its stack: a failed assertion leaves the test by a long jump, past the frees at
 * its end, and free_built (each test's teardown, which cmocka runs after a failure too) frees
 * what it left. */
static struct rep_buf out, json;
static struct run     phase_run;

static void free_built_now(void)
{
        rep_reset();
        rep_buf_free(&out);
        rep_buf_free(&json);
        for (size_t f = 0; f < phase_run.n_files; f++)
                rep_buf_free(&phase_run.files[f].data);
        phase_run.n_files = 0;
}

static int free_built(void **unused)
{
        (void)unused;
        free_built_now();
        return 0;
}

/* Repetitions of each check, whose median the suite judges, as the firmware's phase runs it:
 * cycles-vs-tsc's stamps lie a few lines of the harness outside its counted region, and a
 * repetition in which the host slowed those lines (an interrupt or a switch, which the thread's
 * CPU clock counts as its own: vpmu_stats n_harness_slow) is out-voted by the two it left alone,
 * as test_vpmu_stalls judges it. */
#define REPS 3

static void validate(const struct vpmu_part *p, const struct vpmu_faults *f, struct verdicts *v)
{
        struct cpu_info ci;

        vpmu_init(p, f);
        vpmu_cpu_info(&ci);
        rep_reset();
        rep_add_sink(rep_buf_sink(&out));
        assert_int_equal(val_run(&ci, REPS, &json), ST_OK);
        rep_reset();
        parse_json(json.p, v);
        if (getenv("VPMU_VERBOSE"))
                print_message("%s\n", out.p);
        rep_buf_free(&out);
        rep_buf_free(&json);
}

static struct verdicts faithful[N_PARTS];

/* Faithful: every check PASSes, except the fixed-counter ones on AMD, which SKIP. */
static void test_validate_faithful(void **unused)
{
        for (size_t i = 0; i < N_PARTS; i++) {
                validate(parts[i], NULL, &faithful[i]);
                assert_int_equal(faithful[i].n, val_n_checks);
                for (size_t c = 0; c < val_n_checks; c++) {
                        const char *name = val_checks[c].name;
                        char        want = parts[i]->amd && val_checks[c].fixed_event ? 'S' : 'P';
                        char        got = verdict_of(&faithful[i], name);

                        if (got != want)
                                fail_msg("%s: %s is %c, want %c", parts[i]->name, name, got, want);
                }
        }
}

/* One fault per check, each on a part that can run the check: that verdict FAILs and no
 * other changes. */
static void test_validate_faults(void **unused)
{
        static const struct {
                const char        *check;
                size_t             part;
                struct vpmu_faults f;
        } cases[] = {
                { "insts-loop", 0, { .count_kind = VE_INSNS, .count_ppm = 50 } },
                { "branches-loop", 3, { .count_kind = VE_BRANCHES, .count_ppm = -100 } },
                { "br-misses-random", 4, { .count_kind = VE_BR_MISP, .count_ppm = -200000 } },
                { "fixed0-vs-gp", 1, { .dead_fixed = 1u << 0 } },
                { "fixed1-vs-gp", 2, { .dead_fixed = 1u << 1 } },
                { "cycles-vs-tsc", 5, { .count_kind = VE_CYCLES, .count_ppm = 100000 } },
                { "l1d-misses-chase", 0, { .count_kind = VE_L1D_MISS, .count_ppm = -100000 } },
                { "l2-misses-chase", 4, { .count_kind = VE_L2_MISS, .count_ppm = 100000 } },
                { "llc-misses-chase", 3, { .count_kind = VE_LLC_MISS, .count_ppm = -300000 } },
                { "dtlb-misses-pagechase", 1, { .count_kind = VE_DTLB_MISS, .count_ppm = -100000 } },
        };
        struct verdicts v;

        assert_int_equal(sizeof(cases) / sizeof(cases[0]), val_n_checks);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const struct verdicts *base = &faithful[cases[i].part];

                validate(parts[cases[i].part], &cases[i].f, &v);
                for (size_t c = 0; c < val_n_checks; c++) {
                        const char *name = val_checks[c].name;
                        char want = !strcmp(name, cases[i].check) ? 'F' : verdict_of(base, name);

                        if (verdict_of(&v, name) != want)
                                fail_msg("%s with the %s fault: %s is %c, want %c",
                                         parts[cases[i].part]->name, cases[i].check, name,
                                         verdict_of(&v, name), want);
                }
        }
}

/* A counter the PMU claims (CPUID.0AH: GP counter 0) whose event select refuses to be
 * enabled: every check that runs on it is a FAIL naming the programming, not a SKIP; the
 * checks the fixed counters and the other GP counters decide alone are unaffected. */
static void test_validate_unprogrammable(void **unused)
{
        const struct vpmu_faults f = { .refuse_gp = 1u << 0 };
        struct cpu_info ci;
        struct verdicts v;
        unsigned        n_fail = 0;

        vpmu_init(&vpmu_skx, &f);
        vpmu_cpu_info(&ci);
        rep_reset();
        rep_add_sink(rep_buf_sink(&out));
        assert_int_equal(val_run(&ci, 1, &json), ST_OK);
        rep_reset();
        parse_json(json.p, &v);
        for (size_t c = 0; c < val_n_checks; c++) {
                char got = verdict_of(&v, val_checks[c].name);

                if (got == 'S')
                        fail_msg("%s SKIPs on a counter the PMU claims", val_checks[c].name);
                n_fail += got == 'F';
        }
        assert_true(n_fail >= 1);
        assert_non_null(strstr(out.p, "programming the counters failed"));
        assert_null(strstr(out.p, "SKIP: "));
        rep_buf_free(&out);
        rep_buf_free(&json);
}

/* ---- overflow sampling (app/pmu_sample_run.c) ---------------------------------------------- */

void __real_bench_loop(uint64_t n);
void __real_bench_branch_pattern(const uint8_t *pat, uint64_t n);
void __real_bench_skid_loop(uint64_t iters);

static void sampling(const struct vpmu_part *p, const struct vpmu_faults *f, struct verdicts *v)
{
        const struct pmu_sym syms[] = {
                { (uint64_t)(uintptr_t)__real_bench_loop, "bench_loop" },
                { (uint64_t)(uintptr_t)__real_bench_branch_pattern, "bench_branch_pattern" },
                { (uint64_t)(uintptr_t)__real_bench_skid_loop, "bench_skid_loop" },
                { (uint64_t)(uintptr_t)bench_skid_body, "bench_skid_body" },
        };
        struct val_sample_figures fig;
        struct cpu_info           ci;

        vpmu_init(p, f);
        vpmu_cpu_info(&ci);
        assert_int_equal(pmu_init(&ci), ST_OK);
        rep_reset();
        rep_add_sink(rep_buf_sink(&out));
        assert_int_equal(val_sample_run(syms, sizeof(syms) / sizeof(syms[0]), 0, &fig), ST_OK);
        rep_reset();
        parse(out.p, "sampling", v);
        if (getenv("VPMU_VERBOSE"))
                print_message("%s\n", out.p);
        rep_buf_free(&out);
}

static const char *const sampling_checks[] = { "pmi-route", "pmi-count", "skid-in-kernel",
                                               "caliper-scale", "top-functions" };
#define N_SAMPLING_CHECKS (sizeof(sampling_checks) / sizeof(sampling_checks[0]))
static struct verdicts sampling_faithful[N_PARTS];

static void test_sampling_faithful(void **unused)
{
        for (size_t i = 0; i < N_PARTS; i++) {
                sampling(parts[i], NULL, &sampling_faithful[i]);
                for (size_t c = 0; c < N_SAMPLING_CHECKS; c++)
                        if (verdict_of(&sampling_faithful[i], sampling_checks[c]) != 'P')
                                fail_msg("%s: %s is %c", parts[i]->name, sampling_checks[c],
                                         verdict_of(&sampling_faithful[i], sampling_checks[c]));
        }
}

/* Lost PMIs show in the PMI count, the scale estimate (samples x period) and the skid check
 * (its samples must be there): that case names all three. */
static void test_sampling_faults(void **unused)
{
        static const struct {
                const char        *fail[3];
                size_t             part;
                struct vpmu_faults f;
        } cases[] = {
                { { "pmi-route" }, 0, { .route_dead = true } },
                { { "pmi-count" }, 1, { .spurious_pmi_every = 20 } },
                { { "skid-in-kernel" }, 2, { .skid_extra_bytes = 4096 } },
                { { "pmi-count", "caliper-scale", "skid-in-kernel" }, 4, { .lose_pmi_every = 10 } },
        };
        struct verdicts v;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                sampling(parts[cases[i].part], &cases[i].f, &v);
                for (size_t c = 0; c < N_SAMPLING_CHECKS; c++) {
                        const char *name = sampling_checks[c];
                        bool        bad = false;

                        for (size_t k = 0; k < 3; k++)
                                bad |= cases[i].fail[k] && !strcmp(name, cases[i].fail[k]);
                        char want = bad ? 'F' : verdict_of(&sampling_faithful[cases[i].part], name);

                        if (verdict_of(&v, name) != want)
                                fail_msg("%s, fault for %s: %s is %c, want %c",
                                         parts[cases[i].part]->name, cases[i].fail[0], name,
                                         verdict_of(&v, name), want);
                }
        }
}

/* ---- no PASS that cannot fail -------------------------------------------------------------- */

/* fixed0/1-vs-gp have a floor: two counters that both count nothing do not agree. */
static void test_fixed_pair_floor(void **unused)
{
        const struct vpmu_faults f = { .count_kind = VE_INSNS, .count_ppm = -1000000 };
        struct verdicts          v;

        validate(&vpmu_icx, &f, &v);
        assert_int_equal(verdict_of(&v, "insts-loop"), 'F');
        assert_int_equal(verdict_of(&v, "fixed0-vs-gp"), 'F');
        assert_int_equal(verdict_of(&v, "fixed1-vs-gp"), 'P');
}

/* skid-in-kernel needs its samples: with every PMI lost there is nothing in the kernel. */
static void test_skid_needs_samples(void **unused)
{
        const struct vpmu_faults f = { .lose_pmi_every = 1 };
        struct verdicts          v;

        sampling(&vpmu_skx, &f, &v);
        assert_int_equal(verdict_of(&v, "pmi-count"), 'F');
        assert_int_equal(verdict_of(&v, "skid-in-kernel"), 'F');
}

/* The fault-recovery self-test checks the vector that came back: #GP for a missing MSR, #GP or
 * #UD for RDPMC of a counter no CPU has, and says how many of the faults it raised it saw. */
/* The pmu phase as the firmware runs it (app/x86/pmu.c): the capabilities it prints are the
 * part's, the suite's document is kept, no check FAILs on a faithful part, and the counter
 * MSRs hold the firmware's values again at the end (a value left in counter 0 by the
 * "firmware" is there afterwards). */
static void test_phase_pmu(void **unused)
{
        static struct inventory inv;
        struct run             *r = &phase_run;
        (void)unused;

        for (size_t i = 0; i < N_PARTS; i++) {
                const struct vpmu_part *p = parts[i];
                const uint32_t          ctr0 = p->amd ? MSR_F15H_PERF_CTR : MSR_ARCH_PERFMON_PERFCTR0;
                char                    want[96];
                bool                    kept = false;

                memset(&inv, 0, sizeof(inv));
                memset(r, 0, sizeof(*r));
                pmu_restore(); /* the tests before left a saved state (one save per restore) */
                vpmu_init(p, NULL);
                vpmu_cpu_info(&inv.cpu);
                inv.tsc_hz = 3000000000ull;
                r->inv = &inv;
                r->cfg.repetitions = 1;
                assert_int_equal(wrmsr_safe(ctr0, 0x1234), ST_OK); /* the firmware's value */
                rep_reset();
                rep_add_sink(rep_buf_sink(&out));
                assert_int_equal(phase_pmu(r), ST_OK);
                rep_flush();
                rep_reset();
                /* what the part's CPUID says: AMD 6 extended counters (PerfMonV2: its count)
                 * of 48 bits [APM-2]; Intel CPUID.0AH */
                unsigned n_gp = !p->amd ? p->n_gp
                                : p->perfmon_v2 && p->amd_n_core ? p->amd_n_core
                                : p->ext_core ? 6 : 4;
                snprintf(want, sizeof(want), "caps: %u general counters x %u bits", n_gp,
                         p->amd ? 48 : p->gp_width);
                if (!strstr(out.p, want))
                        fail_msg("%s: no \"%s\" in:\n%s", p->name, want, out.p);
                assert_non_null(strstr(out.p, p->amd ? "AMD extended core counters"
                                                     : "Intel architectural perfmon"));
                assert_non_null(strstr(out.p, "caps: event table "));
                assert_non_null(strstr(out.p, "suite took "));
                assert_non_null(strstr(out.p, "PMI round trip "));
                const char *failed = strstr(out.p, "FAIL:");
                if (failed) /* the first FAIL line: the whole report outgrows cmocka's message */
                        fail_msg("%s: a check FAILed: %.*s", p->name,
                                 (int)strcspn(failed, "\n"), failed);
                for (size_t f = 0; f < r->n_files; f++)
                        kept |= !strcmp(r->files[f].name, "pmu-validation.json");
                assert_true(kept);
                if (vpmu_peek(ctr0) != 0x1234)
                        fail_msg("%s: counter 0 holds 0x%llx after the phase, want 0x1234", p->name,
                                 (unsigned long long)vpmu_peek(ctr0));
                free_built_now();
        }
}

/* The latency sweep's PMU core clock (app/x86/latency_clock.c): fixed counter 1 on Intel, general
 * counter 0 on AMD, counting while the sweep runs; afterwards the counter and its controls
 * hold the firmware's values again. */
static void test_latency_clock_restores(void **unused)
{
        (void)unused;
        for (size_t i = 0; i < N_PARTS; i++) {
                const struct vpmu_part *p = parts[i];
                const uint32_t ctr = p->amd ? MSR_F15H_PERF_CTR : MSR_ARCH_PERFMON_FIXED_CTR1;
                struct lat_clock_pmu lc;
                struct bench_clock   clk;
                struct cpu_info      ci;
                uint64_t             core = 0, ref = 0;

                pmu_restore(); /* a save left by the tests before */
                vpmu_init(p, NULL);
                vpmu_cpu_info(&ci);
                assert_int_equal(wrmsr_safe(ctr, 0x4321), ST_OK); /* the firmware's value */
                memset(&lc, 0, sizeof(lc));
                memset(&clk, 0, sizeof(clk));
                lat_clock_pmu_begin(&lc, &clk, &ci);
                assert_non_null(clk.core.name);
                assert_non_null(strstr(clk.core.name,
                                       p->amd ? "general counter 0" : "fixed counter 1"));
                assert_true(lc.running);
                assert_int_equal(clk.core.read(clk.core.ctx, &core, &ref), ST_OK);
                lat_clock_pmu_end(&lc);
                assert_false(lc.running);
                if (vpmu_peek(ctr) != 0x4321)
                        fail_msg("%s: the core-clock counter holds 0x%llx after the sweep, want "
                                 "0x4321", p->name, (unsigned long long)vpmu_peek(ctr));
        }
}

static void test_selftest_vectors(void **unused)
{
        static const unsigned vec[] = { 0, 14 };

        for (size_t i = 0; i < 2; i++) {
                const struct vpmu_faults f = { .fault_vector = vec[i] };
                struct run               r;
                struct verdicts          v;

                memset(&r, 0, sizeof(r));
                vpmu_init(&vpmu_zen4, &f);
                rep_reset();
                rep_add_sink(rep_buf_sink(&out));
                assert_int_equal(phase_selftest(&r), ST_OK);
                rep_reset();
                parse(out.p, "fault-recovery", &v);
                rep_buf_free(&out);
                assert_int_equal(verdict_of(&v, "rdmsr(0xdeadbeef)"), vec[i] ? 'F' : 'P');
                assert_int_equal(verdict_of(&v, "rdpmc(0x3fff)"), vec[i] ? 'F' : 'P');
                assert_int_equal(verdict_of(&v, "harness"), vec[i] ? 'F' : 'P');
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_validate_faithful, free_built),
                cmocka_unit_test_teardown(test_validate_faults, free_built),
                cmocka_unit_test_teardown(test_validate_unprogrammable, free_built),
                cmocka_unit_test_teardown(test_sampling_faithful, free_built),
                cmocka_unit_test_teardown(test_sampling_faults, free_built),
                cmocka_unit_test_teardown(test_fixed_pair_floor, free_built),
                cmocka_unit_test_teardown(test_skid_needs_samples, free_built),
                cmocka_unit_test_teardown(test_selftest_vectors, free_built),
                cmocka_unit_test_teardown(test_phase_pmu, free_built),
                cmocka_unit_test_teardown(test_latency_clock_restores, free_built),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
