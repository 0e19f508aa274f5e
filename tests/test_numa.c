/* Distance classes from SLIT matrices and the latency-matrix checks against SLIT and HMAT. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/numa.h"
#include "tests/acpi_fixture.h"

static void slit_fill(struct acpi_slit *s, unsigned n, const uint8_t *d)
{
        memset(s, 0, sizeof(*s));
        s->n = n;
        for (unsigned i = 0; i < n; i++)
                for (unsigned j = 0; j < n; j++)
                        s->dist[i][j] = d[i * n + j];
}

/* Two sockets with two nodes each (sub-NUMA clustering): 10 local, 11 the other cluster of
 * the socket, 21 the other socket. */
static const uint8_t snc4[] = {
        10, 11, 21, 21,
        11, 10, 21, 21,
        21, 21, 10, 11,
        21, 21, 11, 10,
};

static void test_classes_symmetric(void **state)
{
        struct acpi_slit    s;
        struct numa_classes c;
        (void)state;

        slit_fill(&s, 4, snc4);
        assert_int_equal(numa_classes_from_slit(&s, 0, NULL, &c), ST_OK);
        assert_int_equal(c.n_nodes, 4);
        assert_int_equal(c.n_classes, 3);
        assert_int_equal(c.cls[0].distance, 10);
        assert_int_equal(c.cls[0].n_pairs, 4);
        assert_int_equal(c.cls[1].distance, 11);
        assert_int_equal(c.cls[1].n_pairs, 4);
        assert_int_equal(c.cls[2].distance, 21);
        assert_int_equal(c.cls[2].n_pairs, 8);
        assert_false(c.asymmetric);
        assert_int_equal(c.n_unreachable, 0);
        assert_int_equal(numa_class_of(&c, 0, 0), 0);
        assert_int_equal(numa_class_of(&c, 2, 3), 1);
        assert_int_equal(numa_class_of(&c, 3, 0), 2);
        assert_int_equal(numa_class_of(&c, 4, 0), -1);
}

static void test_classes_asymmetric_unreachable(void **state)
{
        static const uint8_t d[] = {
                10, 20, 255,
                30, 10, 20,
                255, 20, 10,
        };
        struct acpi_slit     s;
        struct numa_classes  c;
        (void)state;

        slit_fill(&s, 3, d);
        assert_int_equal(numa_classes_from_slit(&s, 0, NULL, &c), ST_OK);
        assert_true(c.asymmetric);
        assert_int_equal(c.n_unreachable, 2);
        assert_int_equal(c.n_classes, 3); /* 10, 20, 30 */
        assert_int_equal(c.cls[1].distance, 20);
        assert_int_equal(c.cls[1].n_pairs, 3);
        assert_int_equal(c.cls[2].distance, 30);
        assert_int_equal(c.cls[2].n_pairs, 1);
        assert_int_equal(numa_class_of(&c, 0, 2), -1);
        assert_int_equal(numa_class_of(&c, 1, 0), 2);
}

static void test_classes_without_slit_and_limits(void **state)
{
        struct numa_classes c;
        struct acpi_slit    s;
        uint8_t             d[9 * 9];
        (void)state;

        assert_int_equal(numa_classes_from_slit(NULL, 2, NULL, &c), ST_OK);
        assert_int_equal(c.n_classes, 2);
        assert_int_equal(c.cls[1].distance, 20);
        assert_int_equal(c.cls[1].n_pairs, 2);
        assert_int_equal(numa_classes_from_slit(NULL, 1, NULL, &c), ST_OK);
        assert_int_equal(c.n_classes, 1);
        assert_int_equal(numa_classes_from_slit(NULL, 0, NULL, &c), ST_BAD_ARG);
        assert_int_equal(numa_classes_from_slit(NULL, NUMA_MAX_NODES + 1, NULL, &c), ST_BAD_ARG);
        /* nine nodes on a line: eight distinct remote distances, one more than fits */
        for (unsigned i = 0; i < 9; i++)
                for (unsigned j = 0; j < 9; j++)
                        d[i * 9 + j] = (uint8_t)(10 + 10 * (i > j ? i - j : j - i));
        slit_fill(&s, 9, d);
        assert_int_equal(numa_classes_from_slit(&s, 0, NULL, &c), ST_UNSUPPORTED);
}

static uint64_t noisy(uint64_t v, unsigned seed)
{
        /* +-2 % deterministic noise */
        return v * (1000 + (seed * 37 % 41) - 20) / 1000;
}

static void fill_matrix(struct numa_matrix *m, const uint8_t *d, unsigned n, uint64_t local_ps)
{
        memset(m, 0, sizeof(*m));
        m->n_nodes = n;
        for (unsigned i = 0; i < n; i++)
                for (unsigned j = 0; j < n; j++) {
                        struct numa_cell *c = &m->cell[i][j];
                        c->measured = true;
                        c->p50_ps   = noisy(local_ps * d[i * n + j] / 10, i * n + j);
                        c->p10_ps   = c->p50_ps * 95 / 100;
                        c->p90_ps   = c->p50_ps * 110 / 100;
                }
}

static void test_matrix_against_slit(void **state)
{
        static const struct numa_tolerance tol = { .slit_pct = 15, .hmat_pct = 25 };
        struct acpi_slit   s;
        struct numa_matrix m;
        (void)state;

        slit_fill(&s, 4, snc4);
        fill_matrix(&m, snc4, 4, 90000);
        numa_matrix_check(&m, &s, NULL, NULL, &tol);
        for (unsigned i = 0; i < 4; i++)
                for (unsigned j = 0; j < 4; j++) {
                        assert_int_equal(m.cell[i][j].slit, NUMA_AGREE);
                        assert_int_equal(m.cell[i][j].hmat, NUMA_NOT_CHECKED);
                }
        assert_int_equal(m.cell[0][2].slit_ratio_milli, 2100);
        /* one remote pair as fast as local: flagged, and only that pair */
        m.cell[1][3].p50_ps = m.cell[1][1].p50_ps;
        numa_matrix_check(&m, &s, NULL, NULL, &tol);
        assert_int_equal(m.cell[1][3].slit, NUMA_DISAGREE);
        assert_int_equal(m.cell[1][2].slit, NUMA_AGREE);
        /* an unmeasured local cell leaves its row unchecked */
        m.cell[2][2].measured = false;
        numa_matrix_check(&m, &s, NULL, NULL, &tol);
        assert_int_equal(m.cell[2][0].slit, NUMA_NOT_CHECKED);
        assert_int_equal(m.cell[2][2].slit, NUMA_NOT_CHECKED);
}

static void test_matrix_against_hmat(void **state)
{
        static const struct numa_tolerance tol = { .slit_pct = 15, .hmat_pct = 25 };
        static const uint8_t d2[] = { 10, 20, 20, 10 };
        static struct acpi_hmat h;
        struct numa_matrix      m;
        (void)state;

        memset(&h, 0, sizeof(h));
        for (unsigned i = 0; i < 2; i++)
                for (unsigned j = 0; j < 2; j++)
                        h.entry[h.n_entries++] = (struct acpi_hmat_entry){
                                .initiator_pd = 10 + i, .target_pd = 10 + j,
                                .value = i == j ? 100000 : 200000,
                                .data_type = ACPI_HMAT_READ_LATENCY, .state = ACPI_HMAT_VALUE };
        h.entry[h.n_entries++] = (struct acpi_hmat_entry){
                .initiator_pd = 10, .target_pd = 11, .data_type = ACPI_HMAT_ACCESS_LATENCY,
                .state = ACPI_HMAT_NOT_PROVIDED };
        fill_matrix(&m, d2, 2, 100000);
        m.cell[1][0].p50_ps = 400000; /* twice what the HMAT promises */
        const uint32_t pd[] = { 10, 11 };
        numa_matrix_check(&m, NULL, &h, pd, &tol);
        assert_int_equal(m.cell[0][0].hmat, NUMA_AGREE);
        assert_int_equal(m.cell[0][1].hmat, NUMA_AGREE); /* not-provided access: read used */
        assert_int_equal(m.cell[0][1].hmat_ps, 200000);
        assert_int_equal(m.cell[1][0].hmat, NUMA_DISAGREE);
        assert_int_equal(m.cell[1][1].slit, NUMA_NOT_CHECKED);
        /* without the domain map, node indices 0/1 match no entry */
        numa_matrix_check(&m, NULL, &h, NULL, &tol);
        assert_int_equal(m.cell[0][0].hmat, NUMA_NOT_CHECKED);
}

/* The tolerance at its edge, both sides: a remote cell whose ratio to local is SLIT's within
 * 25 % (of SLIT's ratio) agrees, one a permille beyond disagrees; likewise an HMAT latency. */
static void test_matrix_tolerance_edges(void **state)
{
        static const struct numa_tolerance tol = { .slit_pct = 25, .hmat_pct = 25 };
        static const uint8_t d2[] = { 10, 20, 20, 10 };
        static const struct {
                uint64_t remote_ps;   /* local 100000 ps; SLIT ratio 2.000, HMAT 200000 ps */
                enum numa_verdict want;
        } cases[] = {
                { 250000, NUMA_AGREE }, { 251000, NUMA_DISAGREE },
                { 150000, NUMA_AGREE }, { 149000, NUMA_DISAGREE },
        };
        static struct acpi_hmat h;
        struct acpi_slit        s;
        struct numa_matrix      m;
        const uint32_t          pd[] = { 0, 1 };
        (void)state;

        slit_fill(&s, 2, d2);
        memset(&h, 0, sizeof(h));
        for (unsigned i = 0; i < 2; i++)
                for (unsigned j = 0; j < 2; j++)
                        h.entry[h.n_entries++] = (struct acpi_hmat_entry){
                                .initiator_pd = i, .target_pd = j,
                                .value = i == j ? 100000 : 200000,
                                .data_type = ACPI_HMAT_ACCESS_LATENCY, .state = ACPI_HMAT_VALUE };
        for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
                memset(&m, 0, sizeof(m));
                m.n_nodes = 2;
                for (unsigned i = 0; i < 2; i++)
                        for (unsigned j = 0; j < 2; j++)
                                m.cell[i][j] = (struct numa_cell){
                                        .measured = true,
                                        .p50_ps = i == j ? 100000 : cases[k].remote_ps };
                numa_matrix_check(&m, &s, &h, pd, &tol);
                assert_int_equal(m.cell[0][1].slit, cases[k].want);
                assert_int_equal(m.cell[1][0].hmat, cases[k].want);
                assert_int_equal(m.cell[0][0].slit, NUMA_AGREE);
                assert_int_equal(m.cell[1][1].hmat, NUMA_AGREE);
        }
}

static void test_class_latencies(void **state)
{
        struct acpi_slit          s;
        struct numa_classes       c;
        struct numa_matrix        m;
        struct numa_class_latency out[NUMA_MAX_CLASSES];
        (void)state;

        slit_fill(&s, 4, snc4);
        numa_classes_from_slit(&s, 0, NULL, &c);
        fill_matrix(&m, snc4, 4, 100000);
        m.cell[3][3].measured = false;
        numa_class_latencies(&m, &c, out);
        assert_int_equal(out[0].n_cells, 3);
        assert_int_equal(out[2].n_cells, 8);
        assert_in_range(out[2].p50_ps, 210000 * 98 / 100, 210000 * 102 / 100);
        assert_true(out[2].min_ps <= out[2].p50_ps && out[2].p50_ps <= out[2].max_ps);
        assert_in_range(out[1].p50_ps, 110000 * 98 / 100, 110000 * 102 / 100);
}

/* Dell PowerEdge R820 (tests/data/acpi/linuxhw/): SRAT proximity domains 1-4, no 0, and a
 * 5 x 5 SLIT (iasl -d: row 1 = 20 10 20 30 20, row 2 = 20 20 10 20 30, row 3 = 20 30 20 10 20,
 * row 4 = 20 20 30 20 10). SLIT is indexed by domain: domains 1 and 3, 2 and 4 are 30 apart,
 * every other pair 20. Read by node position (node 0 = domain 1 taking row 0) the same matrix
 * would make every pair 20 but nodes 1-3 and put a domain 0 in the classes. */
static void test_slit_by_domain_r820(void **state)
{
        static const struct numa_tolerance tol = { .slit_pct = 15, .hmat_pct = 25 };
        static struct acpi_srat srat;
        struct acpi_slit        slit;
        struct numa_classes     c;
        struct numa_matrix      m;
        size_t                  len;
        uint8_t                *t;
        uint8_t                 d[16];
        (void)state;

        t = acpi_fixture_load("linuxhw/dell-poweredge-r820-srat.dat", &len);
        assert_int_equal(acpi_parse_srat(t, len, &srat, NULL), ST_OK);
        free(t);
        t = acpi_fixture_load("linuxhw/dell-poweredge-r820-slit.dat", &len);
        assert_int_equal(acpi_parse_slit(t, len, &slit, NULL), ST_OK);
        free(t);
        assert_int_equal(srat.n_nodes, 4);
        assert_int_equal(srat.node[0], 1);
        assert_int_equal(slit.n, 5);

        assert_int_equal(numa_classes_from_slit(&slit, srat.n_nodes, srat.node, &c), ST_OK);
        assert_int_equal(c.n_nodes, 4);
        assert_int_equal(c.n_classes, 3);
        assert_int_equal(c.cls[1].distance, 20);
        assert_int_equal(c.cls[1].n_pairs, 8);
        assert_int_equal(c.cls[2].distance, 30);
        assert_int_equal(c.cls[2].n_pairs, 4);
        for (unsigned p = 0; p < c.cls[2].n_pairs; p++) {
                uint32_t a = srat.node[c.cls[2].pair_i[p]], b = srat.node[c.cls[2].pair_j[p]];
                assert_true((a == 1 && b == 3) || (a == 3 && b == 1) || (a == 2 && b == 4) ||
                            (a == 4 && b == 2));
        }
        assert_int_equal(numa_class_of(&c, 0, 2), 2);   /* domain 1 -> domain 3 */
        assert_int_equal(numa_class_of(&c, 0, 1), 1);   /* domain 1 -> domain 2 */
        assert_int_equal(numa_slit_distance(&slit, srat.node, 1, 3), 30);

        /* A machine that behaves as its SLIT says: every cell agrees. */
        for (unsigned i = 0; i < 4; i++)
                for (unsigned j = 0; j < 4; j++)
                        d[i * 4 + j] = slit.dist[srat.node[i]][srat.node[j]];
        fill_matrix(&m, d, 4, 100000);
        numa_matrix_check(&m, &slit, NULL, srat.node, &tol);
        for (unsigned i = 0; i < 4; i++)
                for (unsigned j = 0; j < 4; j++)
                        assert_int_equal(m.cell[i][j].slit, NUMA_AGREE);
        assert_int_equal(m.cell[1][3].slit_ratio_milli, 3000);

        /* A domain the SLIT does not cover gets Linux's defaults (10 / 20). */
        const uint32_t beyond[2] = { 1, 7 };
        assert_int_equal(numa_slit_distance(&slit, beyond, 0, 1), 20);
        assert_int_equal(numa_slit_distance(&slit, beyond, 1, 1), 10);
}

/* HMAT agreement must not wrap: entry 1 x base unit 184467440738095516 ps is about 51 hours,
 * not the ~130 ns measured ([ACPI-6.5] §5.2.28.4 allows a 64-bit base unit). */
static void test_hmat_huge_base_unit(void **state)
{
        static const struct numa_tolerance tol = { .slit_pct = 15, .hmat_pct = 25 };
        static const uint8_t d2[] = { 10, 20, 20, 10 };
        static struct acpi_hmat h;
        struct numa_matrix      m;
        (void)state;

        memset(&h, 0, sizeof(h));
        for (unsigned i = 0; i < 2; i++)
                for (unsigned j = 0; j < 2; j++)
                        h.entry[h.n_entries++] = (struct acpi_hmat_entry){
                                .initiator_pd = i, .target_pd = j,
                                .value = 184467440738095516ull,
                                .data_type = ACPI_HMAT_ACCESS_LATENCY, .state = ACPI_HMAT_VALUE };
        fill_matrix(&m, d2, 2, 130000);
        numa_matrix_check(&m, NULL, &h, NULL, &tol);
        for (unsigned i = 0; i < 2; i++)
                for (unsigned j = 0; j < 2; j++)
                        assert_int_equal(m.cell[i][j].hmat, NUMA_DISAGREE);
        /* and the far end: a reference of UINT64_MAX against itself agrees, against 0 not */
        h.entry[0].value    = UINT64_MAX;
        m.cell[0][0].p50_ps = UINT64_MAX;
        numa_matrix_check(&m, NULL, &h, NULL, &tol);
        assert_int_equal(m.cell[0][0].hmat, NUMA_AGREE);
        m.cell[0][0].p50_ps = 1;
        numa_matrix_check(&m, NULL, &h, NULL, &tol);
        assert_int_equal(m.cell[0][0].hmat, NUMA_DISAGREE);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_classes_symmetric),
                cmocka_unit_test(test_classes_asymmetric_unreachable),
                cmocka_unit_test(test_classes_without_slit_and_limits),
                cmocka_unit_test(test_matrix_against_slit),
                cmocka_unit_test(test_matrix_against_hmat),
                cmocka_unit_test(test_matrix_tolerance_edges),
                cmocka_unit_test(test_class_latencies),
                cmocka_unit_test(test_slit_by_domain_r820),
                cmocka_unit_test(test_hmat_huge_base_unit),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
