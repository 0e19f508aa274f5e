/* Cache-to-cache analysis: topology classes, the choice of pairs, percentiles per pair,
 * summaries per class, and the JSON and text writers . */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/tsc_ticks_check.h"

#include "report/c2c.h"

/* 2 packages x 2 L3 domains x 4 cores x 2 threads = 32 CPUs. */
static unsigned make_topology(struct c2c_cpu *cpu)
{
        unsigned n = 0;
        for (unsigned p = 0; p < 2; p++)
                for (unsigned l3 = 0; l3 < 2; l3++)
                        for (unsigned core = 0; core < 4; core++)
                                for (unsigned t = 0; t < 2; t++, n++)
                                        cpu[n] = (struct c2c_cpu){
                                                .apic_id = n, .package = p,
                                                .core = p * 8 + l3 * 4 + core, .thread = t,
                                                .l3_domain = p * 2 + l3 };
        return n;
}

static void test_c2c_classes(void **state)
{
        struct c2c_cpu cpu[32];
        (void)state;

        make_topology(cpu);
        assert_int_equal(c2c_pair_class(&cpu[0], &cpu[1]), C2C_SMT);
        assert_int_equal(c2c_pair_class(&cpu[0], &cpu[2]), C2C_SAME_L3);
        assert_int_equal(c2c_pair_class(&cpu[0], &cpu[8]), C2C_OTHER_L3);
        assert_int_equal(c2c_pair_class(&cpu[0], &cpu[16]), C2C_OTHER_PKG);
        assert_string_equal(c2c_class_name(C2C_OTHER_PKG), "other-package");
        assert_string_equal(c2c_class_name(C2C__COUNT), "unknown");
}

/* Modules (x86 cores sharing an L2), clusters (Arm PPTT) and packages without a described L3:
 * a hybrid part's E-cores of one module are same-module, an E-core and a P-core of the same
 * L3 stay same-l3; QEMU's PPTT (no caches) gives same-cluster / same-package / other-package. */
static void test_c2c_groups(void **state)
{
        /* one package, L3 domain 0: P-cores 0, 1 (no module); E-cores 2-5 in module 8, 6 in 9 */
        const struct c2c_cpu h[] = {
                { .core = 0 }, { .core = 1 },
                { .core = 2, .group = C2C_GROUP_MODULE, .cluster = 8 },
                { .core = 3, .group = C2C_GROUP_MODULE, .cluster = 8 },
                { .core = 4, .group = C2C_GROUP_MODULE, .cluster = 9 },
        };
        /* QEMU -smp 8,sockets=2,clusters=2,cores=2: no L3 described */
        const struct c2c_cpu q[] = {
                { .package = 36, .core = 0, .group = C2C_GROUP_CLUSTER, .cluster = 56, .no_l3 = true },
                { .package = 36, .core = 1, .group = C2C_GROUP_CLUSTER, .cluster = 56, .no_l3 = true },
                { .package = 36, .core = 2, .group = C2C_GROUP_CLUSTER, .cluster = 116, .no_l3 = true },
                { .package = 176, .core = 4, .group = C2C_GROUP_CLUSTER, .cluster = 196, .no_l3 = true },
        };
        (void)state;

        assert_int_equal(c2c_pair_class(&h[2], &h[3]), C2C_SAME_MODULE);
        assert_int_equal(c2c_pair_class(&h[2], &h[4]), C2C_SAME_L3);
        assert_int_equal(c2c_pair_class(&h[0], &h[2]), C2C_SAME_L3);
        assert_int_equal(c2c_pair_class(&h[0], &h[1]), C2C_SAME_L3);
        assert_int_equal(c2c_pair_class(&q[0], &q[1]), C2C_SAME_CLUSTER);
        assert_int_equal(c2c_pair_class(&q[0], &q[2]), C2C_SAME_PKG);
        assert_int_equal(c2c_pair_class(&q[0], &q[3]), C2C_OTHER_PKG);
        assert_string_equal(c2c_class_name(C2C_SAME_MODULE), "same-module");
        assert_string_equal(c2c_class_name(C2C_SAME_CLUSTER), "same-cluster");
        assert_string_equal(c2c_class_name(C2C_SAME_PKG), "same-package");
        assert_true(c2c_class_may_share_l2(C2C_SAME_MODULE));
        assert_false(c2c_class_may_share_l2(C2C_SAME_L3));
        assert_false(c2c_class_may_share_l2(C2C_OTHER_PKG));
}

/* The passes' filter: a window that was not concurrent is left out; one faster than the
 * reader's own hit (floor 20 ticks) is left out for a class that shares no L2 and kept for
 * one that may (SMT); under an emulator both are counted and kept. The pass medians and the
 * class's spread over them. */
static void test_c2c_pass_filter(void **state)
{
        const uint64_t rounds[6] = { 50000, 5000, 52000, 54000, 6000, 51000 };
        const bool     conc[6]   = { true, true, false, true, true, true };
        uint64_t       acc[32];
        size_t         n = 0;
        (void)state;

        struct c2c_result r = { .cls = C2C_SAME_L3, .known_class = true, .floor_milli = 20000 };
        c2c_result_pass(&r, BENCH_C2C_HITM, rounds, conc, 6, acc, &n);
        assert_int_equal(n, 3);                              /* 50, 54, 51 */
        assert_int_equal(r.n_rounds[BENCH_C2C_HITM], 6);
        assert_int_equal(r.n_not_concurrent[BENCH_C2C_HITM], 1);
        assert_int_equal(r.n_below_floor[BENCH_C2C_HITM], 2);
        assert_int_equal(r.pass_p50_milli[BENCH_C2C_HITM][0], 51000);
        /* a second pass, all kept, median 80 */
        const uint64_t slow[3] = { 80000, 81000, 79000 };
        c2c_result_pass(&r, BENCH_C2C_HITM, slow, NULL, 3, acc, &n);
        assert_int_equal(n, 6);
        assert_int_equal(r.n_passes[BENCH_C2C_HITM], 2);
        assert_int_equal(r.pass_p50_milli[BENCH_C2C_HITM][1], 80000);
        c2c_result_set(&r, BENCH_C2C_HITM, acc, n);
        assert_true(r.measured[BENCH_C2C_HITM]);
        assert_int_equal(r.p10_milli[BENCH_C2C_HITM], 50000);
        static struct c2c_class_summary s[C2C__COUNT][BENCH_C2C__COUNT];
        c2c_summarise(&r, 1, s);
        assert_int_equal(s[C2C_SAME_L3][BENCH_C2C_HITM].n_passes, 2);
        assert_int_equal(s[C2C_SAME_L3][BENCH_C2C_HITM].spread_milli, 29000);
        assert_int_equal(s[C2C_SAME_L3][BENCH_C2C_HITM].n_below_floor, 2);
        assert_int_equal(s[C2C_SAME_L3][BENCH_C2C_HITM].n_not_concurrent, 1);

        /* SMT may share the L2: the fast rounds stay */
        struct c2c_result t = { .cls = C2C_SMT, .known_class = true, .floor_milli = 20000 };
        n = 0;
        c2c_result_pass(&t, BENCH_C2C_HIT, rounds, conc, 6, acc, &n);
        assert_int_equal(n, 5);
        assert_int_equal(t.n_below_floor[BENCH_C2C_HIT], 0);

        /* every round below the floor: the kind is not measured, and JSON says why */
        struct c2c_result u = { .cls = C2C_OTHER_PKG, .known_class = true, .floor_milli = 90000,
                                .prefetchers = "off" };
        n = 0;
        c2c_result_pass(&u, BENCH_C2C_HITM, rounds, NULL, 6, acc, &n);
        c2c_result_set(&u, BENCH_C2C_HITM, acc, n);
        assert_false(u.measured[BENCH_C2C_HITM]);
        struct rep_buf b = { 0 };
        struct json_w  w;
        json_init(&w, &b);
        json_obj_begin(&w, NULL);
        c2c_json(&w, &u, 1, 0);
        json_obj_end(&w);
        assert_int_equal(json_finish(&w), ST_OK);
        assert_non_null(strstr(b.p, "\"n_below_floor\": 6"));
        assert_non_null(strstr(b.p, "\"prefetchers\": \"off\""));
        rep_buf_free(&b);

        /* emulated: counted, kept */
        struct c2c_result e = { .cls = C2C_SAME_L3, .known_class = true, .floor_milli = 20000,
                                .keep_all = true };
        n = 0;
        c2c_result_pass(&e, BENCH_C2C_HITM, rounds, conc, 6, acc, &n);
        assert_int_equal(n, 6);
        assert_int_equal(e.n_not_concurrent[BENCH_C2C_HITM], 1);
        assert_int_equal(e.n_below_floor[BENCH_C2C_HITM], 2);
}

/* The reader's own-hit chain: 4 x L1D, within half the L2, else the transfer chain (L1). */
static void test_c2c_floor_bytes(void **state)
{
        const char *name;
        (void)state;

        assert_int_equal(c2c_floor_bytes(48 << 10, 2 << 20, 256 << 10, 16384, &name), 192 << 10);
        assert_string_equal(name, "own L2 hit");
        assert_int_equal(c2c_floor_bytes(32 << 10, 256 << 10, 256 << 10, 16384, &name), 128 << 10);
        assert_int_equal(c2c_floor_bytes(64 << 10, 1 << 20, 256 << 10, 16384, &name), 256 << 10);
        assert_int_equal(c2c_floor_bytes(0, 1 << 20, 256 << 10, 16384, &name), 16384);
        assert_string_equal(name, "own L1 hit");
        assert_int_equal(c2c_floor_bytes(48 << 10, 128 << 10, 256 << 10, 16384, &name), 16384);
}

static void test_c2c_pairs_all_and_sampled(void **state)
{
        static struct c2c_pair p[600];
        struct c2c_cpu         cpu[32];
        size_t                 n;
        unsigned               per[C2C__COUNT] = { 0 };
        (void)state;

        unsigned ncpu = make_topology(cpu);
        assert_int_equal(c2c_pairs_plan(cpu, 16, 16, 4, p, 600, &n), ST_OK);
        assert_int_equal(n, 16 * 15 / 2);
        assert_int_equal(c2c_pairs_plan(cpu, 16, 16, 4, p, 100, &n), ST_NO_MEM);

        assert_int_equal(c2c_pairs_plan(cpu, ncpu, 16, 4, p, 600, &n), ST_OK);
        assert_int_equal(n, 16);
        for (size_t i = 0; i < n; i++) {
                assert_true(p[i].a < p[i].b);
                assert_int_equal(p[i].cls, c2c_pair_class(&cpu[p[i].a], &cpu[p[i].b]));
                per[p[i].cls]++;
                for (size_t k = 0; k < i; k++)
                        assert_false(p[k].a == p[i].a && p[k].b == p[i].b);
        }
        for (unsigned c = 0; c < C2C__COUNT; c++)
                assert_int_equal(per[c], c == C2C_SMT || c == C2C_SAME_L3 || c == C2C_OTHER_L3 ||
                                                 c == C2C_OTHER_PKG ? 4 : 0);
        /* the same machine gives the same pairs */
        struct c2c_pair q[600];
        size_t          m;
        assert_int_equal(c2c_pairs_plan(cpu, ncpu, 16, 4, q, 600, &m), ST_OK);
        assert_int_equal(m, n);
        assert_memory_equal(p, q, n * sizeof(*p));
        assert_int_equal(c2c_pairs_plan(NULL, ncpu, 16, 4, q, 600, &m), ST_BAD_ARG);
}

static void make_results(struct c2c_result *r, struct c2c_cpu *cpu)
{
        /* four pairs: two SMT (HITM 40 and 60 ticks), one other-package (HITM 300), one of
         * unknown topology */
        static const struct { unsigned a, b; uint64_t hitm; bool known; } p[] = {
                { 0, 1, 40, true }, { 2, 3, 60, true }, { 0, 16, 300, true }, { 4, 5, 50, false },
        };
        uint64_t v[10];

        for (unsigned i = 0; i < 4; i++) {
                r[i] = (struct c2c_result){ .owner_cpu = p[i].a, .reader_cpu = p[i].b,
                                            .owner_apic = cpu[p[i].a].apic_id,
                                            .reader_apic = cpu[p[i].b].apic_id,
                                            .cls = c2c_pair_class(&cpu[p[i].a], &cpu[p[i].b]),
                                            .known_class = p[i].known };
                for (unsigned k = 0; k < 10; k++)
                        v[k] = (p[i].hitm + (9 - k)) * 1000; /* unsorted on purpose */
                c2c_result_set(&r[i], BENCH_C2C_HITM, v, 10);
        }
}

static void test_c2c_results_and_summary(void **state)
{
        struct c2c_cpu                  cpu[32];
        struct c2c_result               r[4];
        static struct c2c_class_summary s[C2C__COUNT][BENCH_C2C__COUNT];
        (void)state;

        make_topology(cpu);
        make_results(r, cpu);
        assert_true(r[0].measured[BENCH_C2C_HITM]);
        assert_false(r[0].measured[BENCH_C2C_HIT]);
        assert_int_equal(r[0].p10_milli[BENCH_C2C_HITM], 40000);
        assert_int_equal(r[0].p50_milli[BENCH_C2C_HITM], 44000);
        assert_int_equal(r[0].p90_milli[BENCH_C2C_HITM], 48000);
        c2c_summarise(r, 4, s);
        assert_int_equal(s[C2C_SMT][BENCH_C2C_HITM].n_pairs, 2);
        assert_int_equal(s[C2C_SMT][BENCH_C2C_HITM].min_milli, 44000);
        assert_int_equal(s[C2C_SMT][BENCH_C2C_HITM].max_milli, 64000);
        assert_int_equal(s[C2C_OTHER_PKG][BENCH_C2C_HITM].n_pairs, 1);
        assert_int_equal(s[C2C_SAME_L3][BENCH_C2C_HITM].n_pairs, 0);
        assert_int_equal(s[C2C_SMT][BENCH_C2C_HIT].n_pairs, 0);
}

static void test_c2c_json_and_text(void **state)
{
        struct c2c_cpu    cpu[32];
        struct c2c_result r[4];
        struct rep_buf    b = { 0 };
        struct json_w     w;
        (void)state;

        make_topology(cpu);
        make_results(r, cpu);
        json_init(&w, &b);
        json_obj_begin(&w, NULL);
        c2c_json(&w, r, 4, 2000000000ull);
        json_obj_end(&w);
        assert_int_equal(json_finish(&w), ST_OK);
        /* (jansson's json_null clashes with the writer's; the layout is fixed, so read it
         * as text) */
        assert_non_null(strstr(b.p, "\"topology\": \"smt\""));
        assert_non_null(strstr(b.p, "\"hit\": null"));
        assert_non_null(strstr(b.p, "\"p50_tsc\": 44.000"));
        assert_non_null(strstr(b.p, "\"p50_tsc_ticks\": 44.000"));
        assert_non_null(strstr(b.p, "\"floor_tsc_ticks\""));
        assert_non_null(strstr(b.p, "\"spread_tsc_ticks\""));
        assert_non_null(strstr(b.p, "\"passes_p50_tsc_ticks\""));
        assert_true(tsc_ticks_pairs(b.p) >= 20);        /* every _tsc figure has its twin */
        assert_non_null(strstr(b.p, "\"p50_ns\": 22.000"));           /* 2 GHz */
        assert_non_null(strstr(b.p, "\"topology\": null"));
        assert_non_null(strstr(b.p, "\"topology\": \"other-package\""));
        const char *c = b.p;
        unsigned    n_pairs = 0;
        while ((c = strstr(c, "\"owner_cpu\"")))
                n_pairs++, c++;
        assert_int_equal(n_pairs, 4);
        rep_buf_free(&b);

        assert_int_equal(c2c_text(&b, r, 4, 2000000000ull), ST_OK);
        assert_non_null(strstr(b.p, "smt"));
        assert_non_null(strstr(b.p, "other-package"));
        assert_non_null(strstr(b.p, "22.0"));  /* SMT p50 in ns */
        assert_non_null(strstr(b.p, "owner (rows)"));
        rep_buf_free(&b);
        /* without a TSC frequency: ticks, and ns null in JSON */
        assert_int_equal(c2c_text(&b, r, 4, 0), ST_OK);
        assert_non_null(strstr(b.p, "TSC ticks"));
        rep_buf_free(&b);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_c2c_classes),
                cmocka_unit_test(test_c2c_groups),
                cmocka_unit_test(test_c2c_pass_filter),
                cmocka_unit_test(test_c2c_floor_bytes),
                cmocka_unit_test(test_c2c_pairs_all_and_sampled),
                cmocka_unit_test(test_c2c_results_and_summary),
                cmocka_unit_test(test_c2c_json_and_text),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
