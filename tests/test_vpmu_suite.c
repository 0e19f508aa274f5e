/** @file The real suites end to end on the virtual PMU: the counting validation suite
 *  (app/pmu_validate.c) on Skylake-SP, Ice Lake-SP, Sapphire Rapids, Zen 2, Zen 4 and Zen 5.
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

static char verdict_of(const struct verdicts *v, const char *name)
{
        for (unsigned i = 0; i < v->n; i++)
                if (!strcmp(v->name[i], name))
                        return v->v[i];
        return '?';
}

static void validate(const struct vpmu_part *p, const struct vpmu_faults *f, struct verdicts *v)
{
        struct rep_buf  out = { 0 }, json = { 0 };
        struct cpu_info ci;

        vpmu_init(p, f);
        vpmu_cpu_info(&ci);
        rep_reset();
        rep_add_sink(rep_buf_sink(&out));
        assert_int_equal(pmu_validate_run(&ci, 1, &json), ST_OK);
        rep_reset();
        parse(out.p, "pmu-validate", v);
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
                assert_int_equal(faithful[i].n, pmu_n_checks);
                for (size_t c = 0; c < pmu_n_checks; c++) {
                        const char *name = pmu_checks[c].name;
                        char        want = parts[i]->amd && pmu_checks[c].fixed_event ? 'S' : 'P';
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

        assert_int_equal(sizeof(cases) / sizeof(cases[0]), pmu_n_checks);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const struct verdicts *base = &faithful[cases[i].part];

                validate(parts[cases[i].part], &cases[i].f, &v);
                for (size_t c = 0; c < pmu_n_checks; c++) {
                        const char *name = pmu_checks[c].name;
                        char want = !strcmp(name, cases[i].check) ? 'F' : verdict_of(base, name);

                        if (verdict_of(&v, name) != want)
                                fail_msg("%s with the %s fault: %s is %c, want %c",
                                         parts[cases[i].part]->name, cases[i].check, name,
                                         verdict_of(&v, name), want);
                }
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_validate_faithful),
                cmocka_unit_test(test_validate_faults),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
