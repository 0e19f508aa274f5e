/* The NUMA matrix writers: level names by class, the console grid with DISAGREE marked, the
 * JSON cells (ns and TSC ticks) and classes with the node pairs they cover. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/tsc_ticks_check.h"

#include "report/numa_out.h"

/* Two sockets, SLIT 10/21; local 90 ns, remote 140 ns, one remote cell made to disagree. */
static void make(struct numa_matrix *m, struct numa_classes *c, struct acpi_slit *s)
{
        memset(s, 0, sizeof(*s));
        s->n = 2;
        s->dist[0][0] = s->dist[1][1] = 10;
        s->dist[0][1] = s->dist[1][0] = 21;
        assert_int_equal(numa_classes_from_slit(s, 0, NULL, c), ST_OK);
        memset(m, 0, sizeof(*m));
        m->n_nodes = 2;
        for (unsigned i = 0; i < 2; i++)
                for (unsigned j = 0; j < 2; j++) {
                        uint64_t ps = i == j ? 90000 : (i == 0 ? 189000 : 140000);
                        m->cell[i][j] = (struct numa_cell){ .p10_ps = ps - 1000, .p50_ps = ps,
                                                            .p90_ps = ps + 3000, .measured = true };
                }
        numa_matrix_check(m, s, NULL, NULL, &(struct numa_tolerance){ 10, 10 });
}

static void test_level_names(void **state)
{
        char b[32];
        (void)state;
        assert_string_equal(numa_level_name(0, b, sizeof(b)), "DRAM-local");
        assert_string_equal(numa_level_name(1, b, sizeof(b)), "DRAM-remote-1hop");
        assert_string_equal(numa_level_name(3, b, sizeof(b)), "DRAM-remote-3hop");
}

static void test_text_and_json(void **state)
{
        static struct numa_matrix  m;
        static struct numa_classes c;
        static struct acpi_slit    s;
        struct rep_buf             b = { 0 };
        struct json_w              w;
        unsigned                   sa, sd, ha, hd;
        (void)state;

        make(&m, &c, &s);
        /* 140/90 = 1.556 against 2.1: DISAGREE at 10%; 189/90 = 2.1: agree */
        assert_int_equal(m.cell[1][0].slit, NUMA_DISAGREE);
        assert_int_equal(m.cell[0][1].slit, NUMA_AGREE);
        numa_verdict_counts(&m, &sa, &sd, &ha, &hd);
        assert_int_equal(sa, 3); /* two diagonal cells (ratio 1.0) and (0, 1) */
        assert_int_equal(sd, 1);
        assert_int_equal(ha + hd, 0);

        assert_int_equal(numa_text(&b, &m, &c, 2000000000ull), ST_OK);
        assert_non_null(strstr(b.p, "numa:    1    140.0!     90.0 "));
        assert_non_null(strstr(b.p, "numa:    0     90.0     189.0 "));
        assert_non_null(strstr(b.p, "DRAM-remote-1hop         21     2    140.0    140.0    189.0"));
        rep_buf_free(&b);

        json_init(&w, &b);
        json_obj_begin(&w, NULL);
        uint32_t pd[2] = { 4, 7 };
        numa_json(&w, &m, &c, pd, 2000000000ull);
        json_obj_end(&w);
        assert_int_equal(json_finish(&w), ST_OK);
        assert_non_null(strstr(b.p, "\"p50_ns\": 140.000"));
        assert_non_null(strstr(b.p, "\"p50_tsc\": 280.000"));       /* 2 GHz */
        assert_non_null(strstr(b.p, "\"p50_tsc_ticks\": 280.000")); /* 2 GHz */
        assert_true(tsc_ticks_pairs(b.p) >= 3 * 4 + 3 * 2);   /* 4 cells, 2 classes */
        assert_non_null(strstr(b.p, "\"slit\": \"DISAGREE\""));
        assert_non_null(strstr(b.p, "\"slit_ratio\": 2.100"));
        assert_non_null(strstr(b.p, "\"ratio\": 1.555"));
        assert_non_null(strstr(b.p, "\"hmat\": null"));
        assert_non_null(strstr(b.p, "\"cpu_node\": 7"));            /* proximity domains */
        assert_non_null(strstr(b.p, "\"level\": \"DRAM-remote-1hop\""));
        assert_non_null(strstr(b.p, "\"slit_distance\": 21"));
        rep_buf_free(&b);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_level_names),
                cmocka_unit_test(test_text_and_json),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
