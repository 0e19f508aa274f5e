/** @file Every tolerance of the counting suite and of overflow sampling at its edge, on the
 *  virtual PMU: a fault just outside the tolerance FAILs and one just inside PASSes, the
 *  tolerance being the one the check's rationale gives (app/pmu_validate.c, app/pmu_sample_run.c).
 *  The suite also runs with the repetitions hardware runs (11 and more): a fault in some of
 *  them must be outvoted by the median, and in most of them must not be.
 *
 *  Where the model cannot place a fault exactly at an edge (the skid histogram, the Caliper
 *  estimate, the PMI route's self-test), the link wraps the function the verdict reads
 *  (-Wl,--wrap: tests/unittests.cfg) and hands the verdict a value at the edge: these test the
 *  decision, the model tests elsewhere the measurement. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "app/pmu_validate.h"
#include "bench/kernel_branch.h"
#include "bench/kernel_skid.h"
#include "bench/kernel_tlb.h"
#include "boot/cpu.h"
#include "pmu/clock.h"
#include "pmu/sample.h"
#include "tests/fake_plat.h"
#include "tests/vpmu/vpmu.h"

/* ---- link-time wraps: pass-through unless a test arms them ------------------------------- */

status_t __real_pmu_reset(void);
status_t __real_pmu_skid_hist(const struct pmu_sample *s, size_t n, uint64_t known_rip,
                              uint32_t bucket_bytes, struct pmu_skid_hist *out);
status_t __real_pmu_caliper_estimate(uint64_t n_samples, uint64_t period, uint64_t true_total,
                                     uint64_t *estimate, int64_t *error_ppm);
status_t __real_cpu_pmi_enable(cpu_pmi_fn fn, void *ctx, int ext_lvt_offset);
status_t __real_cpu_pmi_selftest(uint64_t *tsc_round_trip);
status_t __real_pmu_clock_aperf_read(uint64_t *aperf, uint64_t *mperf);

/* The privileged reads of the page chase's window, on the fake MMU (tests/fake_plat.c). */
uint64_t __wrap_bench_cr3_read(void);
uint64_t __wrap_bench_cr4_read(void);
void     __wrap_bench_tlb_flush_all(void);

uint64_t __wrap_bench_cr3_read(void)
{
        return fake_plat_cr3();
}

uint64_t __wrap_bench_cr4_read(void)
{
        return BENCH_CR4_PGE;
}

void __wrap_bench_tlb_flush_all(void)
{
}

/* APERF/MPERF frozen: every read returns the same pair. */
static bool aperf_frozen;

status_t __wrap_pmu_clock_aperf_read(uint64_t *aperf, uint64_t *mperf)
{
        status_t st = __real_pmu_clock_aperf_read(aperf, mperf);

        if (aperf_frozen)
                *aperf = *mperf = 1000;
        return st;
}

/* The fault of each repetition of the first check (insts-loop): pmu_reset starts each one. */
static struct {
        bool                      on;
        unsigned                  n_calls;
        const struct vpmu_faults *per_rep[16];
} reps_plan;

status_t __wrap_pmu_reset(void)
{
        if (reps_plan.on) {
                unsigned k = reps_plan.n_calls++;

                vpmu_set_faults(k < 16 ? reps_plan.per_rep[k] : NULL);
        }
        return __real_pmu_reset();
}

/* Samples outside the kernel and samples in all, as the skid histogram reports them. */
static struct {
        bool     on;
        int      n_delta;           /* added to h.n */
        uint32_t n_before, n_beyond; /* replace the model's (0 on a faithful run) */
} skid_plan;

status_t __wrap_pmu_skid_hist(const struct pmu_sample *s, size_t n, uint64_t known_rip,
                              uint32_t bucket_bytes, struct pmu_skid_hist *out)
{
        status_t st = __real_pmu_skid_hist(s, n, known_rip, bucket_bytes, out);

        if (st == ST_OK && skid_plan.on) {
                out->n = (uint32_t)((int)out->n + skid_plan.n_delta);
                out->n_before = skid_plan.n_before;
                out->n_beyond = skid_plan.n_beyond;
        }
        return st;
}

/* The samples the top-functions report names no function for: a tenth of them plus this
 * (the verdict's tolerance is a tenth). */
static struct {
        bool on;
        int  off;
} top_plan;

status_t __real_pmu_sample_top(const struct pmu_sample *s, size_t n, const struct pmu_sym *syms,
                               size_t n_syms, struct pmu_func_count *out, size_t cap,
                               size_t *n_out, uint64_t *n_unknown);
status_t __wrap_pmu_sample_top(const struct pmu_sample *s, size_t n, const struct pmu_sym *syms,
                               size_t n_syms, struct pmu_func_count *out, size_t cap,
                               size_t *n_out, uint64_t *n_unknown);

status_t __wrap_pmu_sample_top(const struct pmu_sample *s, size_t n, const struct pmu_sym *syms,
                               size_t n_syms, struct pmu_func_count *out, size_t cap,
                               size_t *n_out, uint64_t *n_unknown)
{
        status_t st = __real_pmu_sample_top(s, n, syms, n_syms, out, cap, n_out, n_unknown);

        if (st == ST_OK && top_plan.on && n_unknown)
                *n_unknown = (uint64_t)((int64_t)(n / 10) + top_plan.off);
        return st;
}

/* Caliper's estimate: the true total plus this (the verdict's tolerance is one period). */
static struct {
        bool    on;
        int64_t off;
} caliper_plan;

status_t __wrap_pmu_caliper_estimate(uint64_t n_samples, uint64_t period, uint64_t true_total,
                                     uint64_t *estimate, int64_t *error_ppm)
{
        status_t st = __real_pmu_caliper_estimate(n_samples, period, true_total, estimate,
                                                  error_ppm);

        if (st == ST_OK && caliper_plan.on)
                *estimate = (uint64_t)((int64_t)true_total + caliper_plan.off);
        return st;
}

/* The PMI route's self-test: the handler the route was given, called once more than the
 * self-NMI calls it (a route that delivers twice), or a status the test chooses. */
static struct {
        cpu_pmi_fn fn;
        void      *ctx;
        bool       twice;
        status_t   st;   /* ST_OK: the model's own */
} route_plan;

status_t __wrap_cpu_pmi_enable(cpu_pmi_fn fn, void *ctx, int ext_lvt_offset)
{
        route_plan.fn = fn;
        route_plan.ctx = ctx;
        return __real_cpu_pmi_enable(fn, ctx, ext_lvt_offset);
}

status_t __wrap_cpu_pmi_selftest(uint64_t *tsc_round_trip)
{
        status_t                   st = __real_cpu_pmi_selftest(tsc_round_trip);
        const struct cpu_pmi_frame f = { 0 };

        if (route_plan.twice && route_plan.fn)
                route_plan.fn(&f, route_plan.ctx);
        return route_plan.st != ST_OK ? route_plan.st : st;
}

/* ---- the counting suite --------------------------------------------------------------------- */

/* What the harness's own page tables are built for: the model's CPUID has no leaf 0x80000008
 * (36 bits then) and no Page1GB, while this process's buffers and stack lie up to 2^47, mapped
 * one to one by the fake platform with 1 GiB pages (as tests/test_pmu_chase.c describes it). */
#define OWN_TABLES_PHYS_BITS 48

static json_t *validate(const struct vpmu_part *p, const struct vpmu_faults *f, unsigned reps)
{
        struct rep_buf  out = { 0 }, json = { 0 };
        struct cpu_info ci;
        json_error_t    err;

        vpmu_init(p, f);
        vpmu_cpu_info(&ci);
        ci.phys_addr_bits = OWN_TABLES_PHYS_BITS;
        ci.pdpe1gb = true;
        rep_reset();
        rep_add_sink(rep_buf_sink(&out));
        assert_int_equal(val_run(&ci, reps, &json), ST_OK);
        rep_reset();
        if (getenv("VPMU_VERBOSE"))
                print_message("%s\n", out.p);
        json_t *doc = json_loadb(json.p, json.len, 0, &err);
        if (!doc)
                fail_msg("pmu-validation.json: %s", err.text);
        rep_buf_free(&out);
        rep_buf_free(&json);
        return doc;
}

static json_t *check_of(json_t *doc, const char *name)
{
        json_t *c;
        size_t  i;

        json_array_foreach(json_object_get(doc, "checks"), i, c)
                if (!strcmp(json_string_value(json_object_get(c, "check")), name))
                        return c;
        fail_msg("no check %s", name);
        return NULL;
}

static char verdict(json_t *doc, const char *name)
{
        return json_string_value(json_object_get(check_of(doc, name), "verdict"))[0];
}

/* (measured - expected) / expected of @p name, in ppm. */
static int64_t offset_ppm(json_t *doc, const char *name)
{
        json_t *c = check_of(doc, name);
        int64_t m = json_integer_value(json_object_get(c, "measured"));
        int64_t e = json_integer_value(json_object_get(c, "expected"));

        assert_true(e > 0);
        return (m - e) * 1000000 / e;
}

static const struct val_check *table_row(const char *name)
{
        for (size_t i = 0; i < val_n_checks; i++)
                if (!strcmp(val_checks[i].name, name))
                        return &val_checks[i];
        fail_msg("no check %s in the table", name);
        return NULL;
}

/* The tolerance each check's rationale argues for, in ppm of the expectation; the table must
 * carry it. cycles-vs-tsc: MPERF ticks at the TSC rate only nominally, 2 %; the misses of a
 * chase 8x the cache (16x the dTLB reach): page walks and prefetches the event may count,
 * 5 %; a fair random branch: half mispredicted, binomial noise 0.1 % at 2^20 and the
 * predictor's warm-up, 10 %. */
static const struct {
        const char  *check;
        const struct vpmu_part *part;
        enum vpmu_ev kind;
        int32_t      tol_ppm;
} edges[] = {
        { "cycles-vs-tsc", &vpmu_icx, VE_CYCLES, 20000 },
        { "l1d-misses-chase", &vpmu_skx, VE_L1D_MISS, 50000 },
        { "l2-misses-chase", &vpmu_zen4, VE_L2_MISS, 50000 },
        { "llc-misses-chase", &vpmu_zen2, VE_LLC_MISS, 50000 },
        { "dtlb-misses-pagechase", &vpmu_spr, VE_DTLB_MISS, 50000 },
        { "br-misses-random", &vpmu_zen5, VE_BR_MISP, 100000 },
};

/* Faithful, the check sits well inside its tolerance (a tenth of it); a count off by 1.25x the
 * tolerance FAILs and one off by 0.75x PASSes, either way. */
static void test_tolerance_edges(void **unused)
{
        (void)unused;
        for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
                const char *name = edges[i].check;
                int32_t     tol = edges[i].tol_ppm;
                json_t     *doc = validate(edges[i].part, NULL, 1);
                int64_t     off = offset_ppm(doc, name);

                assert_int_equal(table_row(name)->tol_ppm, (uint32_t)tol);
                assert_int_equal(table_row(name)->tol_abs, 0);
                if (verdict(doc, name) != 'P' || off > tol / 10 || off < -tol / 10)
                        fail_msg("%s faithful on %s: %c, %lld ppm off (tolerance %d)", name,
                                 edges[i].part->name, verdict(doc, name), (long long)off, tol);
                json_decref(doc);
                for (int sign = -1; sign <= 1; sign += 2)
                        for (int outside = 0; outside <= 1; outside++) {
                                struct vpmu_faults f = { .count_kind = edges[i].kind };
                                f.count_ppm = sign * (outside ? tol + tol / 4 : tol - tol / 4);
                                doc = validate(edges[i].part, &f, 1);
                                char want = outside ? 'F' : 'P';
                                if (verdict(doc, name) != want)
                                        fail_msg("%s on %s, count off by %d ppm: %c, want %c "
                                                 "(%lld ppm off)", name, edges[i].part->name,
                                                 f.count_ppm, verdict(doc, name), want,
                                                 (long long)offset_ppm(doc, name));
                                json_decref(doc);
                        }
        }
}

/* Exact checks: a few events more or fewer FAIL. The loop's difference is 100000 iterations
 * of 2 instructions and 1 branch; 50 ppm of it is 10 instructions, or 5 branches. */
static void test_exact_edges(void **unused)
{
        const struct vpmu_faults insts = { .count_kind = VE_INSNS, .count_ppm = 50 };
        const struct vpmu_faults branches = { .count_kind = VE_BRANCHES, .count_ppm = -50 };
        json_t *doc;

        (void)unused;
        doc = validate(&vpmu_icx, &insts, 1);
        assert_int_equal(verdict(doc, "insts-loop"), 'F');
        assert_int_equal(verdict(doc, "branches-loop"), 'P');
        json_decref(doc);
        doc = validate(&vpmu_zen4, &branches, 1);
        assert_int_equal(verdict(doc, "branches-loop"), 'F');
        assert_int_equal(verdict(doc, "insts-loop"), 'P');
        json_decref(doc);
}

/* fixed1-vs-gp: the enable reaches the two counters a few cycles apart: 64 cycles plus
 * 0.1 % of the general counter's count; fixed0-vs-gp is exact. */
static void test_fixed_pair_tolerance(void **unused)
{
        const struct val_check *f0 = table_row("fixed0-vs-gp"), *f1 = table_row("fixed1-vs-gp");
        const uint64_t          e = 330000; /* 110000 iterations at 3 cycles */

        (void)unused;
        assert_true(val_check_pass(f0, 220000, 220000));
        assert_false(val_check_pass(f0, 220001, 220000));
        assert_false(val_check_pass(f0, 219999, 220000));
        assert_int_equal(val_check_tolerance(f1, e), 64 + e / 1000);
        assert_true(val_check_pass(f1, e + 64 + e / 1000, e));
        assert_false(val_check_pass(f1, e + 65 + e / 1000, e));
        assert_true(val_check_pass(f1, e - 64 - e / 1000, e));
        assert_false(val_check_pass(f1, e - 65 - e / 1000, e));
}

/* cycles-vs-tsc scales the TSC span by dAPERF/dMPERF: an MPERF that did not advance over
 * 10^7 cycles gives no ratio (never a division by zero), and on a CPU that reports APERF/MPERF
 * that is a broken counter, a FAIL. */
static void test_mperf_stopped(void **unused)
{
        (void)unused;
        aperf_frozen = true;
        json_t *doc = validate(&vpmu_skx, NULL, 1);
        aperf_frozen = false;
        assert_int_equal(verdict(doc, "cycles-vs-tsc"), 'F');
        assert_int_equal(verdict(doc, "insts-loop"), 'P');
        json_decref(doc);
}

/* The dTLB check as firmware runs it: the firmware maps the buffer with 2 MiB pages, so the
 * page chase runs under the harness's own 4 KiB tables (CR3 switched around the counted
 * window): PASS with the CR3 line, and the tolerance still decides (+6 % FAILs). A firmware
 * CR3 that is not restored FAILs the CR3 line. */
static void test_dtlb_own_tables(void **unused)
{
        const struct vpmu_faults more = { .count_kind = VE_DTLB_MISS, .count_ppm = 60000 };
        struct rep_buf           out = { 0 }, json = { 0 };
        struct cpu_info          ci;

        (void)unused;
        fake_plat_set_mmu(PLAT_PAGE_2M, true, true, true);
        json_t *doc = validate(&vpmu_icx, NULL, 1);
        if (verdict(doc, "dtlb-misses-pagechase") != 'P')
                fail_msg("dtlb-misses-pagechase under own tables: %c (%s)",
                         verdict(doc, "dtlb-misses-pagechase"),
                         json_string_value(json_object_get(check_of(doc, "dtlb-misses-pagechase"),
                                                           "reason")));
        json_decref(doc);
        doc = validate(&vpmu_icx, &more, 1);
        assert_int_equal(verdict(doc, "dtlb-misses-pagechase"), 'F');
        json_decref(doc);

        vpmu_init(&vpmu_icx, NULL);
        vpmu_cpu_info(&ci);
        ci.phys_addr_bits = OWN_TABLES_PHYS_BITS;
        ci.pdpe1gb = true;
        rep_reset();
        rep_add_sink(rep_buf_sink(&out));
        assert_int_equal(val_run(&ci, 3, &json), ST_OK);
        rep_flush();
        rep_reset();
        if (!strstr(out.p, "PASS: pmu-validate: dtlb-misses-pagechase: chased under the "
                           "harness's page tables"))
                fail_msg("no own-table PASS line in:\n%s", out.p);
        rep_buf_free(&out);
        rep_buf_free(&json);

        fake_plat_set_mmu(PLAT_PAGE_2M, true, false, true); /* CR3 not restored */
        vpmu_init(&vpmu_icx, NULL);
        rep_reset();
        rep_add_sink(rep_buf_sink(&out));
        assert_int_equal(val_run(&ci, 1, &json), ST_OK);
        rep_flush();
        rep_reset();
        if (!strstr(out.p, "FAIL: pmu-validate: dtlb-misses-pagechase: chased under the "
                           "harness's page tables"))
                fail_msg("no own-table FAIL line in:\n%s", out.p);
        rep_buf_free(&out);
        rep_buf_free(&json);
        fake_plat_set_mmu(PLAT_PAGE_4K, false, false, false);
}

/* The repetitions of hardware runs (the firmware's default is 11): each check is measured that
 * many times and its median kept. insts-loop is the first check, so pmu_reset calls 0..10
 * start its repetitions. */
static void test_median_of_repetitions(void **unused)
{
        static const struct vpmu_faults over = { .count_kind = VE_INSNS, .count_ppm = 50 };
        static const struct vpmu_faults under = { .count_kind = VE_INSNS, .count_ppm = -50 };
        static const struct {
                unsigned                  reps;
                unsigned                  first, n;   /* repetitions with the fault */
                const struct vpmu_faults *f;
                char                      want;
        } cases[] = {
                { 11, 10, 1, &over, 'P' },   /* the last one: outvoted */
                { 11, 0, 1, &under, 'P' },   /* the first one, and the smallest */
                { 11, 5, 1, &over, 'P' },    /* the middle one of the run */
                { 11, 6, 5, &over, 'P' },    /* five of eleven too many */
                { 11, 0, 5, &under, 'P' },   /* five of eleven too few */
                { 11, 5, 6, &over, 'F' },    /* six of eleven: the median is faulty */
                { 11, 0, 6, &under, 'F' },
                { 15, 0, 7, &over, 'P' },    /* fifteen: seven outvoted, eight not */
                { 15, 7, 8, &under, 'F' },
        };

        (void)unused;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                memset(&reps_plan, 0, sizeof(reps_plan));
                for (unsigned k = cases[i].first; k < cases[i].first + cases[i].n; k++)
                        reps_plan.per_rep[k] = cases[i].f;
                vpmu_init(&vpmu_skx, NULL);
                reps_plan.on = true;
                json_t *doc = validate(&vpmu_skx, NULL, cases[i].reps);
                reps_plan.on = false;
                json_t *c = check_of(doc, "insts-loop");
                assert_int_equal(json_integer_value(json_object_get(c, "runs")), cases[i].reps);
                if (verdict(doc, "insts-loop") != cases[i].want)
                        fail_msg("%u repetitions, fault in %u from %u: %c, want %c",
                                 cases[i].reps, cases[i].n, cases[i].first,
                                 verdict(doc, "insts-loop"), cases[i].want);
                json_decref(doc);
        }
        /* More than the suite keeps: 15 at most, as the JSON says. */
        json_t *doc = validate(&vpmu_icx, NULL, 40);
        assert_int_equal(json_integer_value(json_object_get(check_of(doc, "insts-loop"), "runs")),
                         15);
        assert_int_equal(verdict(doc, "cycles-vs-tsc"), 'P');
        json_decref(doc);
}

/* ---- overflow sampling ---------------------------------------------------------------------- */

void __real_bench_loop(uint64_t n);
void __real_bench_branch_pattern(const uint8_t *pat, uint64_t n);
void __real_bench_skid_loop(uint64_t iters);

#define MAX_LINES 16

struct lines {
        unsigned n;
        char     name[MAX_LINES][24];
        char     v[MAX_LINES];
};

static void sampling(const struct vpmu_part *p, const struct vpmu_faults *f, size_t n_syms,
                     struct lines *v)
{
        const struct pmu_sym syms[] = {
                { (uint64_t)(uintptr_t)__real_bench_loop, "bench_loop" },
                { (uint64_t)(uintptr_t)__real_bench_branch_pattern, "bench_branch_pattern" },
                { (uint64_t)(uintptr_t)__real_bench_skid_loop, "bench_skid_loop" },
                { (uint64_t)(uintptr_t)bench_skid_body, "bench_skid_body" },
        };
        struct val_sample_figures fig;
        struct rep_buf            out = { 0 };
        struct cpu_info           ci;

        vpmu_init(p, f);
        vpmu_cpu_info(&ci);
        assert_int_equal(pmu_init(&ci), ST_OK);
        rep_reset();
        rep_add_sink(rep_buf_sink(&out));
        assert_int_equal(val_sample_run(syms, n_syms, 0, &fig), ST_OK);
        rep_flush();
        rep_reset();
        if (getenv("VPMU_VERBOSE"))
                print_message("%s\n", out.p);
        memset(v, 0, sizeof(*v));
        for (const char *ln = out.p; ln && *ln; ln = strchr(ln, '\n') ? strchr(ln, '\n') + 1 : NULL) {
                const char *p2 = strstr(ln, ": sampling: ");
                if (!p2 || (ln[0] != 'P' && ln[0] != 'F' && ln[0] != 'S') || v->n == MAX_LINES ||
                    p2 > strchr(ln, '\n'))
                        continue;
                p2 += strlen(": sampling: ");
                size_t k = strcspn(p2, " :\n");
                k = k < 23 ? k : 23;
                memcpy(v->name[v->n], p2, k);
                v->v[v->n++] = ln[0];
        }
        rep_buf_free(&out);
}

static char line_of(const struct lines *v, const char *name)
{
        for (unsigned i = 0; i < v->n; i++)
                if (!strcmp(v->name[i], name))
                        return v->v[i];
        return '?';
}

/* skid-in-kernel: every sample there (one PMI per period of the run, one may straddle the
 * end) and at most one outside the kernel, before or beyond it. */
static void test_skid_edges(void **unused)
{
        static const struct {
                int      n_delta;
                uint32_t before, beyond;
                char     want;
        } cases[] = {
                { 0, 0, 1, 'P' }, { 0, 1, 0, 'P' }, { 0, 0, 2, 'F' }, { 0, 2, 0, 'F' },
                { 0, 1, 1, 'F' }, { -1, 0, 0, 'P' }, { -2, 0, 0, 'F' },
        };
        struct lines v;

        (void)unused;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                skid_plan.on = true;
                skid_plan.n_delta = cases[i].n_delta;
                skid_plan.n_before = cases[i].before;
                skid_plan.n_beyond = cases[i].beyond;
                sampling(&vpmu_skx, NULL, 4, &v);
                skid_plan.on = false;
                if (line_of(&v, "skid-in-kernel") != cases[i].want)
                        fail_msg("samples %+d, %u before, %u beyond: %c, want %c",
                                 cases[i].n_delta, cases[i].before, cases[i].beyond,
                                 line_of(&v, "skid-in-kernel"), cases[i].want);
                assert_int_equal(line_of(&v, "pmi-count"), 'P');
        }
}

/* caliper-scale: samples x period within one period of the counted total, either side. */
static void test_caliper_edges(void **unused)
{
        const int64_t period = PMU_SKID_PERIOD;
        const struct {
                int64_t off;
                char    want;
        } cases[] = {
                { 0, 'P' }, { period, 'P' }, { -period, 'P' }, { period + 1, 'F' },
                { -period - 1, 'F' }, { 3 * period / 2, 'F' }, { -3 * period / 2, 'F' },
        };
        struct lines v;

        (void)unused;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                caliper_plan.on = true;
                caliper_plan.off = cases[i].off;
                sampling(&vpmu_zen4, NULL, 4, &v);
                caliper_plan.on = false;
                if (line_of(&v, "caliper-scale") != cases[i].want)
                        fail_msg("estimate total %+lld: %c, want %c", (long long)cases[i].off,
                                 line_of(&v, "caliper-scale"), cases[i].want);
        }
        /* The model's own: 4 % more or fewer branches is 8 periods of 200 off. */
        const struct vpmu_faults more = { .count_kind = VE_BRANCHES, .count_ppm = 40000 };
        const struct vpmu_faults fewer = { .count_kind = VE_BRANCHES, .count_ppm = -40000 };
        sampling(&vpmu_icx, &more, 4, &v);
        assert_int_equal(line_of(&v, "caliper-scale"), 'F');
        assert_int_equal(line_of(&v, "pmi-count"), 'F');
        sampling(&vpmu_icx, &fewer, 4, &v);
        assert_int_equal(line_of(&v, "caliper-scale"), 'F');
        assert_int_equal(line_of(&v, "pmi-count"), 'F');
}

/* pmi-route: the self-NMI must reach the handler exactly once, with the route's status OK. */
static void test_route_edges(void **unused)
{
        struct lines v;

        (void)unused;
        memset(&route_plan, 0, sizeof(route_plan));
        sampling(&vpmu_spr, NULL, 4, &v);
        assert_int_equal(line_of(&v, "pmi-route"), 'P');
        route_plan.twice = true;
        sampling(&vpmu_spr, NULL, 4, &v);
        assert_int_equal(line_of(&v, "pmi-route"), 'F');
        route_plan.twice = false;
        route_plan.st = ST_TIMEOUT; /* it arrived, but the route says it timed out */
        sampling(&vpmu_spr, NULL, 4, &v);
        assert_int_equal(line_of(&v, "pmi-route"), 'F');
        const struct vpmu_faults dead = { .route_dead = true };
        sampling(&vpmu_spr, &dead, 4, &v); /* never arrived, and the route times out */
        assert_int_equal(line_of(&v, "pmi-route"), 'F');
        route_plan.st = ST_UNSUPPORTED; /* no self-NMI on this APIC: nothing decided */
        sampling(&vpmu_spr, NULL, 4, &v);
        assert_int_equal(line_of(&v, "pmi-route"), 'S');
        memset(&route_plan, 0, sizeof(route_plan));
}

/* top-functions: samples named by function, at most a tenth unknown; no samples is a FAIL,
 * not a vacuous PASS. */
static void test_top_functions_edges(void **unused)
{
        const struct vpmu_faults lost = { .lose_pmi_every = 1 };
        struct lines             v;

        (void)unused;
        sampling(&vpmu_zen2, &lost, 4, &v);
        assert_int_equal(line_of(&v, "top-functions"), 'F');
        assert_int_equal(line_of(&v, "caliper-scale"), 'F');
        assert_int_equal(line_of(&v, "skid-in-kernel"), 'F');
        /* Without bench_loop's symbol most cycles are unknown (20 million iterations of it
         * against one pass over a 1 MiB pattern and 5000 of the skid loop). */
        sampling(&vpmu_zen2, NULL, 4, &v);
        assert_int_equal(line_of(&v, "top-functions"), 'P');
        sampling(&vpmu_zen2, NULL, 0, &v);
        assert_int_equal(line_of(&v, "top-functions"), 'S');
        /* a tenth of the samples unknown PASSes, one more FAILs */
        top_plan.on = true;
        top_plan.off = 0;
        sampling(&vpmu_zen2, NULL, 4, &v);
        assert_int_equal(line_of(&v, "top-functions"), 'P');
        top_plan.off = 1;
        sampling(&vpmu_zen2, NULL, 4, &v);
        assert_int_equal(line_of(&v, "top-functions"), 'F');
        top_plan.on = false;
}

/* Overflow sampling needs an overflow status to tell a PMI from another NMI: Intel v1 has none,
 * and a v2+ whose GLOBAL_CTRL/STATUS did not probe has none either. */
static void test_sample_supported(void **unused)
{
        struct pmu_caps c = { .available = true, .kind = PMU_INTEL_ARCH, .version = 4 };
        const char     *why;

        (void)unused;
        assert_int_equal(pmu_sample_supported(&c, &why), ST_UNSUPPORTED);
        assert_non_null(strstr(why, "did not probe"));
        c.version = 1;
        assert_int_equal(pmu_sample_supported(&c, &why), ST_UNSUPPORTED);
        assert_non_null(strstr(why, "version 1"));
        c.version = 4;
        c.has_global = true;
        assert_int_equal(pmu_sample_supported(&c, &why), ST_OK);
        c.available = false;
        assert_int_equal(pmu_sample_supported(&c, &why), ST_UNSUPPORTED);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_tolerance_edges),
                cmocka_unit_test(test_exact_edges),
                cmocka_unit_test(test_fixed_pair_tolerance),
                cmocka_unit_test(test_mperf_stopped),
                cmocka_unit_test(test_dtlb_own_tables),
                cmocka_unit_test(test_median_of_repetitions),
                cmocka_unit_test(test_skid_edges),
                cmocka_unit_test(test_caliper_edges),
                cmocka_unit_test(test_route_edges),
                cmocka_unit_test(test_top_functions_edges),
                cmocka_unit_test(test_sample_supported),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
