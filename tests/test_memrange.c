/* Placing a buffer on a NUMA node: the range arithmetic (free spans with holes, zero-length
 * and overlapping entries, a window with no free pages, alignment) and the placement over
 * SRAT ranges on the test platform's synthetic memory map (every page checked). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/numa_mem.h"
#include "boot/memrange.h"
#include "tests/fake_plat.h"

#define M (1ull << 20)
#define G (1ull << 30)

/* Free memory with holes: [1M, 9M), [16M, 16M) (empty), [32M, 35M), [100M, 164M). */
static const struct mem_span holes[] = {
        { 1 * M, 8 * M }, { 16 * M, 0 }, { 32 * M, 3 * M }, { 100 * M, 64 * M },
};

static void test_candidates_holes(void **state)
{
        uint64_t out[8], largest;
        size_t   n;
        (void)state;

        /* 2 MiB blocks, 2 MiB aligned, in the whole space: three spans can hold one; the
         * highest aligned address in each, highest first. */
        assert_int_equal(memrange_candidates(holes, 4, 0, 1ull << 40, 2 * M, 2 * M, out, 8, &n,
                                             &largest), ST_OK);
        assert_int_equal(n, 3);
        assert_int_equal(out[0], 162 * M);
        assert_int_equal(out[1], 32 * M);  /* 33M would end at 35M, but is not aligned */
        assert_int_equal(out[2], 6 * M);   /* 7M..9M is not aligned: 6M..8M */
        assert_int_equal(largest, 64 * M);

        /* A window that cuts spans: [4M, 34M) holds [4M, 9M) and [32M, 34M). */
        assert_int_equal(memrange_candidates(holes, 4, 4 * M, 34 * M, 2 * M, 2 * M, out, 8, &n,
                                             &largest), ST_OK);
        assert_int_equal(n, 2);
        assert_int_equal(out[0], 32 * M);
        assert_int_equal(out[1], 6 * M);
        assert_int_equal(largest, 5 * M);

        /* Only the first candidate asked for. */
        assert_int_equal(memrange_candidates(holes, 4, 0, 1ull << 40, 2 * M, 2 * M, out, 1, &n,
                                             NULL), ST_OK);
        assert_int_equal(n, 1);
        assert_int_equal(out[0], 162 * M);
}

static void test_candidates_none(void **state)
{
        uint64_t out[4], largest = 1;
        size_t   n = 9;
        (void)state;

        /* A window entirely in a hole. */
        assert_int_equal(memrange_candidates(holes, 4, 10 * M, 32 * M, 4096, 4096, out, 4, &n,
                                             &largest), ST_NOT_FOUND);
        assert_int_equal(n, 0);
        assert_int_equal(largest, 0);
        /* Free memory in the window, but no block large enough: the largest is reported. */
        assert_int_equal(memrange_candidates(holes, 4, 0, 40 * M, 16 * M, 4096, out, 4, &n,
                                             &largest), ST_NOT_FOUND);
        assert_int_equal(largest, 8 * M);
        /* 3 MiB fits [33M, 36M) at 4 KiB alignment but not at 2 MiB. */
        static const struct mem_span odd[] = { { 33 * M, 3 * M } };
        assert_int_equal(memrange_candidates(odd, 1, 0, G, 3 * M, 2 * M, out, 4, &n, &largest),
                         ST_NOT_FOUND);
        assert_int_equal(largest, 3 * M);
        assert_int_equal(memrange_candidates(odd, 1, 0, G, 3 * M, 4096, out, 4, &n, &largest),
                         ST_OK);
        assert_int_equal(out[0], 33 * M);
        /* Only zero-length spans, and no spans at all. */
        static const struct mem_span empty[] = { { 0, 0 }, { 5 * M, 0 } };
        assert_int_equal(memrange_candidates(empty, 2, 0, G, 4096, 4096, out, 4, &n, &largest),
                         ST_NOT_FOUND);
        assert_int_equal(memrange_candidates(NULL, 0, 0, G, 4096, 4096, out, 4, &n, NULL),
                         ST_NOT_FOUND);
}

static void test_candidates_edges(void **state)
{
        uint64_t out[4];
        size_t   n;
        (void)state;

        /* A span reaching the top of the address space does not overflow. */
        static const struct mem_span top[] = { { UINT64_MAX - 8 * M + 1, 8 * M } };
        assert_int_equal(memrange_candidates(top, 1, 0, UINT64_MAX, 2 * M, 2 * M, out, 4, &n,
                                             NULL), ST_OK);
        assert_true(out[0] >= top[0].base && out[0] % (2 * M) == 0);
        /* Overlapping spans each offer their own candidate (the platform tries them in turn). */
        static const struct mem_span overlap[] = { { 0, 8 * M }, { 4 * M, 8 * M } };
        assert_int_equal(memrange_candidates(overlap, 2, 0, G, 2 * M, 2 * M, out, 4, &n, NULL),
                         ST_OK);
        assert_int_equal(n, 2);
        assert_int_equal(out[0], 10 * M);
        assert_int_equal(out[1], 6 * M);
        /* Bad arguments. */
        assert_int_equal(memrange_candidates(holes, 4, 0, G, 0, 4096, out, 4, &n, NULL),
                         ST_BAD_ARG);
        assert_int_equal(memrange_candidates(holes, 4, 0, G, 4096, 3000, out, 4, &n, NULL),
                         ST_BAD_ARG);
        assert_int_equal(memrange_candidates(holes, 4, G, G, 4096, 4096, out, 4, &n, NULL),
                         ST_BAD_ARG);
        /* memrange_inside */
        assert_true(memrange_inside(holes, 4, 100 * M, 64 * M));
        assert_false(memrange_inside(holes, 4, 100 * M, 64 * M + 1));
        assert_false(memrange_inside(holes, 4, 16 * M, 1));
        assert_false(memrange_inside(holes, 4, 9 * M, 4096));
}

static void test_subtract(void **state)
{
        struct mem_span s[4] = { { 1 * M, 8 * M }, { 32 * M, 3 * M } };
        size_t          n = 2;
        status_t        st;
        (void)state;

        /* a cut inside the first span splits it */
        assert_int_equal(memrange_subtract(s, &n, 4, 2 * M, 1 * M, &st), 1 * M);
        assert_int_equal(st, ST_OK);
        assert_int_equal(n, 3);
        assert_true(s[0].base == 1 * M && s[0].bytes == 1 * M);
        assert_true(s[2].base == 3 * M && s[2].bytes == 6 * M);
        /* one over the end of a span and the start of the next */
        assert_int_equal(memrange_subtract(s, &n, 4, 8 * M, 25 * M, NULL), 2 * M);
        assert_true(s[2].bytes == 5 * M && s[1].base == 33 * M && s[1].bytes == 2 * M);
        /* one covering a span leaves it empty */
        assert_int_equal(memrange_subtract(s, &n, 4, 0, 2 * M, NULL), 1 * M);
        assert_int_equal(s[0].bytes, 0);
        /* no room for a split: the upper part goes too, and it is said */
        struct mem_span one[1] = { { 0, 10 * M } };
        size_t          n1 = 1;
        assert_int_equal(memrange_subtract(one, &n1, 1, 4 * M, 1 * M, &st), 6 * M);
        assert_int_equal(st, ST_NO_MEM);
        assert_true(one[0].base == 0 && one[0].bytes == 4 * M);
        /* a cut reaching the top of the address space (SRAT ranges end at most there) */
        struct mem_span top[1] = { { UINT64_MAX - 4095, 4095 } };
        size_t          nt = 1;
        assert_int_equal(memrange_subtract(top, &nt, 1, UINT64_MAX - 2047, 2047, NULL), 2047);
        assert_int_equal(top[0].bytes, 2048);
}

/* Two nodes: PD 0 owns [0, 640K) and [1M, 1G); PD 1 owns [1G, 1.5G) and [4G, 5G); PD 2 has a
 * disabled range only. */
static struct acpi_srat *two_nodes(void)
{
        struct acpi_srat *s = calloc(1, sizeof(*s));
        const struct acpi_srat_mem m[] = {
                { 0, 640 << 10, 0, ACPI_SRAT_MEM_ENABLED },
                { 1 * M, G - M, 0, ACPI_SRAT_MEM_ENABLED },
                { G, G / 2, 1, ACPI_SRAT_MEM_ENABLED },
                { 0, 0, 1, ACPI_SRAT_MEM_ENABLED },  /* zero-length entry */
                { 4 * G, G, 1, ACPI_SRAT_MEM_ENABLED },
                { 6 * G, G, 2, 0 },
        };
        memcpy(s->mem, m, sizeof(m));
        s->n_mem   = ARRAY_SIZE(m);
        s->n_nodes = 3;
        return s;
}

static int setup(void **state)
{
        (void)state;
        fake_plat_reset();
        return 0;
}

static void test_place_on_node(void **state)
{
        struct acpi_srat *s = two_nodes();
        struct numa_place pl;
        (void)state;

        /* Free memory: a hole over the first node-1 range except 1 MiB; the second range free. */
        const struct mem_span free_map[] = {
                { 1 * M, 511 * M }, { G + 100 * M, 1 * M }, { 4 * G + 8 * M, 256 * M },
        };
        fake_plat_set_free_mem(free_map, ARRAY_SIZE(free_map));
        assert_int_equal(app_numa_place(s, 1, 4 * M, &pl), ST_OK);
        assert_true(pl.phys >= 4 * G + 8 * M && pl.phys + 4 * M <= 4 * G + 264 * M);
        assert_int_equal(pl.n_pages_checked, 1024);
        ((volatile char *)pl.p)[4 * M - 1] = 1;   /* the buffer is real memory */
        app_numa_unplace(&pl);

        assert_int_equal(app_numa_place(s, 0, 2 * M, &pl), ST_OK);
        assert_true(pl.phys >= 1 * M && pl.phys < 512 * M);
        app_numa_unplace(&pl);
        free(s);
}

static void test_place_failures(void **state)
{
        struct acpi_srat *s = two_nodes();
        struct numa_place pl;
        (void)state;

        /* No free pages in node 1 at all: said, with the largest free block (none). */
        const struct mem_span free_map[] = { { 1 * M, 511 * M } };
        fake_plat_set_free_mem(free_map, 1);
        assert_int_equal(app_numa_place(s, 1, 4 * M, &pl), ST_NOT_FOUND);
        assert_null(pl.p);
        assert_non_null(strstr(pl.why, "no free block of 4096 KiB in proximity domain 1's 2 "
                                        "ranges (1536 MiB; largest free block 0 KiB)"));
        /* Node 0 has 511 MiB free, not 600. */
        assert_int_equal(app_numa_place(s, 0, 600 * M, &pl), ST_NOT_FOUND);
        assert_non_null(strstr(pl.why, "largest free block 523264 KiB"));
        /* A node whose only range is disabled, and one SRAT does not know. */
        assert_int_equal(app_numa_place(s, 2, 4096, &pl), ST_NOT_FOUND);
        assert_string_equal(pl.why, "SRAT gives proximity domain 2 no enabled memory");
        assert_int_equal(app_numa_place(s, 7, 4096, &pl), ST_NOT_FOUND);
        /* A page the platform put elsewhere is found and named. */
        fake_plat_misplace_page(3 * 4096);
        assert_int_equal(app_numa_place(s, 0, 64 * 4096, &pl), ST_BAD_DATA);
        assert_null(pl.p);
        assert_non_null(strstr(pl.why, "1 of 64 pages outside proximity domain 0's ranges, the "
                                        "first at offset 0x3000"));
        /* Taken blocks leave the free map: two 250 MiB blocks fit in what is free, a third not. */
        struct numa_place a, b;
        assert_int_equal(app_numa_place(s, 0, 250 * M, &a), ST_OK);
        assert_int_equal(app_numa_place(s, 0, 250 * M, &b), ST_OK);
        assert_true(a.phys + a.bytes <= b.phys || b.phys + b.bytes <= a.phys);
        assert_int_equal(app_numa_place(s, 0, 250 * M, &pl), ST_NOT_FOUND);
        app_numa_unplace(&a);
        app_numa_unplace(&b);
        free(s);
}

static void test_place_no_srat(void **state)
{
        struct numa_place pl;
        (void)state;

        assert_int_equal(app_numa_place(NULL, 0, 8 * 4096, &pl), ST_OK);
        assert_non_null(pl.p);
        app_numa_unplace(&pl);
        assert_int_equal(app_numa_place(NULL, 0, 100, &pl), ST_BAD_ARG);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_candidates_holes),
                cmocka_unit_test(test_candidates_none),
                cmocka_unit_test(test_candidates_edges),
                cmocka_unit_test(test_subtract),
                cmocka_unit_test_setup(test_place_on_node, setup),
                cmocka_unit_test_setup(test_place_failures, setup),
                cmocka_unit_test_setup(test_place_no_srat, setup),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
