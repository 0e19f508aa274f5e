/* Cache-to-cache analysis: topology classes, the choice of pairs, percentiles per pair,
 * summaries per class, and the JSON and text writers . */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

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
                assert_int_equal(per[c], 4);
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
                cmocka_unit_test(test_c2c_pairs_all_and_sampled),
                cmocka_unit_test(test_c2c_results_and_summary),
                cmocka_unit_test(test_c2c_json_and_text),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
