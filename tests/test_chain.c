/** @file Unit tests for bench/chain.c: the chain is one cycle through every line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench/chain.h"

#define PAGE 4096u

static const struct {
        const char       *name;
        enum bench_layout layout;
        uint32_t          line_bytes, page_bytes, group_pages, stride_bytes;
        size_t            bytes;
        uint64_t          seed;
} cases[] = {
        /* name                  layout               line page  grp stride bytes              seed */
        { "random one line",     BENCH_LAYOUT_RANDOM, 64,  0,    0,  0,     64,                1 },
        { "random two lines",    BENCH_LAYOUT_RANDOM, 64,  0,    0,  0,     128,               2 },
        { "random 4k",           BENCH_LAYOUT_RANDOM, 64,  0,    0,  0,     PAGE,              3 },
        { "random odd size",     BENCH_LAYOUT_RANDOM, 64,  0,    0,  0,     64 * 1001,         4 },
        { "random seed 0",       BENCH_LAYOUT_RANDOM, 64,  0,    0,  0,     64 * 4096,         0 },
        { "random 128 B lines",  BENCH_LAYOUT_RANDOM, 128, 0,    0,  0,     128 * 777,         5 },
        { "random 32 B lines",   BENCH_LAYOUT_RANDOM, 32,  0,    0,  0,     32 * 300,          6 },
        { "groups exact",        BENCH_LAYOUT_GROUPS, 64,  PAGE, 4,  0,     16 * PAGE,         7 },
        { "groups partial last", BENCH_LAYOUT_GROUPS, 64,  PAGE, 4,  0,     17 * PAGE + 640,   8 },
        { "groups bigger than buf", BENCH_LAYOUT_GROUPS, 64, PAGE, 64, 0,   3 * PAGE,          9 },
        { "groups of one page",  BENCH_LAYOUT_GROUPS, 64,  PAGE, 1,  0,     40 * PAGE,         10 },
        { "stride = line",       BENCH_LAYOUT_STRIDE, 64,  0,    0,  0,     64 * 100,          0 },
        { "stride 256 B",        BENCH_LAYOUT_STRIDE, 64,  0,    0,  256,   64 * 103,          0 },
        { "stride > buffer",     BENCH_LAYOUT_STRIDE, 64,  0,    0,  8192,  64 * 10,           0 },
};

static void *alloc_lines(size_t bytes, uint32_t line_bytes)
{
        void *p = aligned_alloc(PAGE, (bytes + PAGE - 1) / PAGE * PAGE);

        assert_non_null(p);
        memset(p, 0xa5, bytes);
        (void)line_bytes;
        return p;
}

/* Follow the chain from @p start for n steps: every step lands on a line start inside the
 * buffer, no line twice, and step n is back at start. */
static void check_cycle(const uint8_t *buf, size_t bytes, uint32_t line_bytes, const void *start)
{
        size_t   n_lines = bytes / line_bytes;
        uint8_t *seen    = calloc(n_lines, 1);
        const void *p    = start;

        assert_non_null(seen);
        for (size_t step = 0; step < n_lines; step++) {
                uintptr_t off = (uintptr_t)p - (uintptr_t)buf;

                assert_true((uintptr_t)p >= (uintptr_t)buf && off < bytes);
                assert_int_equal(off % line_bytes, 0);
                assert_int_equal(seen[off / line_bytes], 0);
                seen[off / line_bytes] = 1;
                p = *(const void *const *)p;
                if (step + 1 < n_lines)
                        assert_ptr_not_equal(p, start);
        }
        assert_ptr_equal(p, start);
        free(seen);
}

static void test_single_cycle(void **state)
{
        (void)state;
        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
                struct bench_chain_cfg cfg = {
                        .layout = cases[c].layout, .line_bytes = cases[c].line_bytes,
                        .page_bytes = cases[c].page_bytes, .group_pages = cases[c].group_pages,
                        .stride_bytes = cases[c].stride_bytes, .seed = cases[c].seed,
                };
                uint8_t *buf   = alloc_lines(cases[c].bytes, cases[c].line_bytes);
                void    *start = NULL;
                size_t   n     = cases[c].bytes / cases[c].line_bytes;

                print_message("case %s\n", cases[c].name);
                assert_int_equal(bench_chain_build(buf, cases[c].bytes, &cfg, &start), ST_OK);
                check_cycle(buf, cases[c].bytes, cases[c].line_bytes, start);
                /* From any start the lap has exactly n steps. */
                for (size_t k = 0; k < n; k += n / 7 + 1)
                        assert_int_equal(bench_chain_lap(buf + k * cases[c].line_bytes, n + 1), n);
                /* Scratch words are cleared. */
                for (size_t k = 0; k < n; k++)
                        assert_int_equal(((uint64_t *)(void *)(buf + k * cases[c].line_bytes))[1], 0);
                free(buf);
        }
}

/* Groups: the n_lines visited after a group's first line all stay within that group. */
static void test_groups_stay_in_group(void **state)
{
        const uint32_t grp_pages = 4;
        const size_t   bytes = 10 * grp_pages * PAGE, per = grp_pages * PAGE / 64;
        struct bench_chain_cfg cfg = { .layout = BENCH_LAYOUT_GROUPS, .group_pages = grp_pages,
                                       .seed = 99 };
        uint8_t *buf = alloc_lines(bytes, 64);
        void    *p;
        (void)state;

        assert_int_equal(bench_chain_build(buf, bytes, &cfg, &p), ST_OK);
        for (size_t g = 0; g < bytes / 64 / per; g++) {
                size_t grp = ((uintptr_t)p - (uintptr_t)buf) / (grp_pages * PAGE);
                for (size_t i = 0; i < per; i++) {
                        assert_int_equal(((uintptr_t)p - (uintptr_t)buf) / (grp_pages * PAGE), grp);
                        p = *(void **)p;
                }
        }
        free(buf);
}

/* Stride: consecutive hops are stride_bytes apart except at the wrap of a column. */
static void test_stride_hops(void **state)
{
        const size_t bytes = 64 * 64;
        struct bench_chain_cfg cfg = { .layout = BENCH_LAYOUT_STRIDE, .stride_bytes = 512 };
        uint8_t *buf = alloc_lines(bytes, 64);
        void    *p;
        unsigned n_stride = 0;
        (void)state;

        assert_int_equal(bench_chain_build(buf, bytes, &cfg, &p), ST_OK);
        assert_ptr_equal(p, buf);
        for (size_t i = 0; i < bytes / 64; i++) {
                void *q = *(void **)p;
                if ((uintptr_t)q - (uintptr_t)p == 512)
                        n_stride++;
                p = q;
        }
        free(buf);
        assert_int_equal(n_stride, bytes / 64 - 8); /* 8 columns, one wrap each */
}

/* Random layouts are really shuffled, and deterministic per seed. */
static void test_random_deterministic(void **state)
{
        const size_t bytes = 64 * 512;
        struct bench_chain_cfg cfg = { .layout = BENCH_LAYOUT_RANDOM, .seed = 1234 };
        uint8_t *a = alloc_lines(bytes, 64), *b = alloc_lines(bytes, 64);
        void    *pa, *pb;
        unsigned n_seq = 0, n_diff = 0;
        (void)state;

        assert_int_equal(bench_chain_build(a, bytes, &cfg, &pa), ST_OK);
        assert_int_equal(bench_chain_build(b, bytes, &cfg, &pb), ST_OK);
        assert_int_equal((uintptr_t)pa - (uintptr_t)a, (uintptr_t)pb - (uintptr_t)b);
        for (size_t i = 0; i < bytes / 64; i++) {
                uint64_t na = *(uint64_t *)(void *)(a + i * 64) - (uintptr_t)a;
                uint64_t nb = *(uint64_t *)(void *)(b + i * 64) - (uintptr_t)b;
                assert_int_equal(na, nb);
                if (na == (i + 1) * 64)
                        n_seq++;
        }
        assert_true(n_seq < 16); /* a sequential chain would have 511 */

        cfg.seed = 1235;
        assert_int_equal(bench_chain_build(b, bytes, &cfg, &pb), ST_OK);
        for (size_t i = 0; i < bytes / 64; i++)
                if (*(uint64_t *)(void *)(a + i * 64) - (uintptr_t)a !=
                    *(uint64_t *)(void *)(b + i * 64) - (uintptr_t)b)
                        n_diff++;
        assert_true(n_diff > 400);
        free(a);
        free(b);
}

static void test_bad_args(void **state)
{
        static _Alignas(4096) uint8_t buf[8192];
        struct bench_chain_cfg ok = { .layout = BENCH_LAYOUT_RANDOM };
        struct bench_chain_cfg c;
        void *p;
        (void)state;

        assert_int_equal(bench_chain_build(NULL, 4096, &ok, &p), ST_BAD_ARG);
        assert_int_equal(bench_chain_build(buf, 4096, NULL, &p), ST_BAD_ARG);
        assert_int_equal(bench_chain_build(buf, 4096, &ok, NULL), ST_BAD_ARG);
        assert_int_equal(bench_chain_build(buf, 0, &ok, &p), ST_BAD_ARG);
        assert_int_equal(bench_chain_build(buf, 100, &ok, &p), ST_BAD_ARG);     /* not lines */
        assert_int_equal(bench_chain_build(buf + 8, 4096, &ok, &p), ST_BAD_ARG); /* misaligned */
        c = ok, c.line_bytes = 48;
        assert_int_equal(bench_chain_build(buf, 4800, &c, &p), ST_BAD_ARG);     /* not 2^n */
        c = ok, c.line_bytes = 16;
        assert_int_equal(bench_chain_build(buf, 4096, &c, &p), ST_BAD_ARG);     /* no scratch */
        c = ok, c.stride_bytes = 96;
        assert_int_equal(bench_chain_build(buf, 4096, &c, &p), ST_BAD_ARG);     /* not lines */
        c = ok, c.layout = BENCH_LAYOUT__COUNT;
        assert_int_equal(bench_chain_build(buf, 4096, &c, &p), ST_BAD_ARG);
        assert_int_equal(bench_chain_lap(NULL, 10), 0);
}

static void test_rng(void **state)
{
        struct bench_rng r;
        unsigned         hist[10] = { 0 };
        (void)state;

        bench_rng_seed(&r, 0);
        assert_int_not_equal(r.s, 0);
        for (unsigned i = 0; i < 100000; i++) {
                uint64_t v = bench_rng_below(&r, 10);
                assert_true(v < 10);
                hist[v]++;
        }
        for (unsigned i = 0; i < 10; i++)
                assert_true(hist[i] > 9500 && hist[i] < 10500);
        assert_int_equal(bench_rng_below(&r, 1), 0);
        assert_string_equal(bench_layout_name(BENCH_LAYOUT_GROUPS), "groups");
        assert_string_equal(bench_layout_name(BENCH_LAYOUT__COUNT), "unknown");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_single_cycle),
                cmocka_unit_test(test_groups_stay_in_group),
                cmocka_unit_test(test_stride_hops),
                cmocka_unit_test(test_random_deterministic),
                cmocka_unit_test(test_bad_args),
                cmocka_unit_test(test_rng),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
