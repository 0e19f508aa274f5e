/** @file The IBS/PEBS/LBR sampling phase (app/sampling*.c) end to end on the virtual PMU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/run.h"
#include "report/inventory.h"
#include "tests/vpmu/vpmu.h"

static void phase(const struct vpmu_part *p, const struct vpmu_faults *f, struct rep_buf *out)
{
        static struct inventory inv;
        static struct run       r;

        memset(&inv, 0, sizeof(inv));
        memset(&r, 0, sizeof(r));
        vpmu_init(p, f);
        vpmu_cpu_info(&inv.cpu);
        inv.cpu_st = ST_OK;
        inv.tsc_hz = 3000000000ull;
        r.inv = &inv;
        rep_reset();
        rep_add_sink(rep_buf_sink(out));
        assert_int_equal(phase_sampling(&r), ST_OK);
        rep_reset();
        for (size_t i = 0; i < r.n_files; i++) /* the run owns the files the phase kept */
                rep_buf_free(&r.files[i].data);
}

#define MAX_V 96

struct verdicts {
        unsigned n;
        char     name[MAX_V][48];
        char     v[MAX_V];
};

/* "<V>: <mech>: <check ...>: ..." -> name "<mech>: <check ...>". */
static void parse(const char *text, struct verdicts *out)
{
        memset(out, 0, sizeof(*out));
        for (const char *ln = text; ln && *ln; ln = strchr(ln, '\n') ? strchr(ln, '\n') + 1 : NULL) {
                char v = ln[0];

                if ((v != 'P' && v != 'F' && v != 'S') || ln[4] != ':' || out->n == MAX_V)
                        continue;
                const char *p = ln + 6, *c1 = strchr(p, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
                if (!c2 || c2 - p >= 48)
                        continue;
                memcpy(out->name[out->n], p, (size_t)(c2 - p));
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

/* On the model every IBS and PEBS check that the mechanism can answer PASSes; what SKIPs does
 * so for a reason of the hardware (IBS reports no latency for an L1 hit; PEBS gives no
 * physical address). LBR's block-cost and sample-count compare LBR cycles with the TSC over
 * runs whose emulated PMI handlers cost far more than real ones: not judged here. */
static bool judged(const char *name)
{
        return strncmp(name, "lbr: block-cost", 15) && strncmp(name, "lbr: sample-count", 17);
}

/* @p other: the mechanisms of the other vendor, which SKIP whole. */
static void check_faithful(const struct verdicts *v, const char *part, const char *const *other)
{
        for (unsigned i = 0; i < v->n; i++) {
                const char *n = v->name[i];
                bool ok_skip = strstr(n, "latency L1") || !strncmp(n, "pebs: physical", 14);

                for (size_t k = 0; other[k]; k++)
                        ok_skip |= !strncmp(n, other[k], strlen(other[k]));

                if (!judged(n) || v->v[i] == 'P' || (v->v[i] == 'S' && ok_skip))
                        continue;
                fail_msg("%s: %s is %c", part, n, v->v[i]);
        }
}

static void run(const struct vpmu_part *p, const struct vpmu_faults *f, struct verdicts *v)
{
        struct rep_buf out = { 0 };

        phase(p, f, &out);
        if (getenv("VPMU_VERBOSE"))
                fprintf(stderr, "==== %s\n%s\n", p->name, out.p);
        parse(out.p, v);
        rep_buf_free(&out);
}

static struct verdicts zen4, spr;

static void test_phase_faithful(void **unused)
{
        run(&vpmu_zen4, NULL, &zen4);
        check_faithful(&zen4, "Zen 4", (const char *const[]){ "pebs:", "lbr:", NULL });
        assert_int_equal(verdict_of(&zen4, "ibs-op: latency DRAM"), 'P');
        run(&vpmu_spr, NULL, &spr);
        check_faithful(&spr, "Sapphire Rapids", (const char *const[]){ "ibs-", NULL });
        assert_int_equal(verdict_of(&spr, "pebs: data-source DRAM"), 'P');
        assert_int_equal(verdict_of(&spr, "lbr: symbols"), 'P');
}

/* One fault, one verdict: IBS latencies of DRAM loads in the wrong bucket, physical addresses
 * of L2 loads wrong, the data source of L3 loads wrong. */
static void test_phase_faults(void **unused)
{
        static const struct { const char *check; struct vpmu_faults f; } cases[] = {
                { "ibs-op: latency DRAM", { .ibs_lat_scale_pct = 300, .ibs_fault_level = VL_DRAM + 1 } },
                { "ibs-op: physical L2", { .ibs_phys_xor = 1ull << 40, .ibs_fault_level = VL_L2 + 1 } },
                { "ibs-op: data-source DRAM", { .ibs_wrong_src = true, .ibs_fault_level = VL_DRAM + 1 } },
        };
        struct verdicts v;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                run(&vpmu_zen4, &cases[i].f, &v);
                for (unsigned k = 0; k < zen4.n; k++) {
                        const char *n = zen4.name[k];
                        char want = !strcmp(n, cases[i].check) ? 'F' : zen4.v[k];

                        if (judged(n) && verdict_of(&v, n) != want)
                                fail_msg("fault for %s: %s is %c, want %c", cases[i].check, n,
                                         verdict_of(&v, n), want);
                }
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_phase_faithful),
                cmocka_unit_test(test_phase_faults),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
