/** @file Unit tests for bench/chase_buf.c: what the chase buffer owns (its own pages, the line
 *  list; never the caller's memory), the chain through all of it or through a prefix, the
 *  lines it lists, and that a failed create keeps nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench/chase_buf.h"
#include "tests/fake_plat.h"

/* Page buffers the test platform handed out and took back (its hooks for the virtual PMU,
 * which this test does not link). */
static unsigned n_page_allocs, n_page_frees;

void vpmu_note_buffer(const void *p, size_t bytes)
{
        (void)p;
        (void)bytes;
        n_page_allocs++;
}

void vpmu_forget_buffer(const void *p)
{
        (void)p;
        n_page_frees++;
}

static int setup(void **state)
{
        (void)state;
        fake_plat_reset();
        n_page_allocs = n_page_frees = 0;
        return 0;
}

static const struct bench_chain_cfg random64 = { .layout = BENCH_LAYOUT_RANDOM, .seed = 7 };

/* Its own pages: one chain through every line, freed by destroy, the object empty after. */
static void test_owned(void **state)
{
        struct bench_chase_buf_cfg cfg = { .bytes = 64 * 1024, .page = PLAT_PAGE_4K,
                                           .chain = random64 };
        struct bench_chase_buf     cb;

        (void)state;
        assert_int_equal(bench_chase_buf_create(&cb, &cfg), ST_OK);
        assert_true(cb.owned);
        assert_non_null(cb.buf);
        assert_int_equal(cb.page_got, PLAT_PAGE_4K);
        assert_int_equal(cb.line_bytes, 64);
        assert_int_equal(cb.n_lines, 1024);
        assert_int_equal(cb.chain_bytes, 64 * 1024);
        assert_null(cb.lines);
        assert_int_equal(bench_chain_lap(cb.start, 2048), 1024);
        assert_int_equal(n_page_allocs, 1);
        bench_chase_buf_destroy(&cb);
        assert_int_equal(n_page_frees, 1);
        assert_null(cb.buf);
        assert_null(cb.start);
        assert_false(cb.owned);
        bench_chase_buf_destroy(&cb); /* empty: nothing freed twice */
        bench_chase_buf_destroy(NULL);
        assert_int_equal(n_page_frees, 1);
}

/* The caller's memory: the chain laid in it, nothing allocated or freed. */
static void test_callers_memory(void **state)
{
        uint8_t                   *mem = aligned_alloc(4096, 16 * 1024);
        struct bench_chase_buf_cfg cfg = { .bytes = 16 * 1024, .mem = mem, .chain = random64 };
        struct bench_chase_buf     cb;

        (void)state;
        assert_non_null(mem);
        assert_int_equal(bench_chase_buf_create(&cb, &cfg), ST_OK);
        assert_false(cb.owned);
        assert_ptr_equal(cb.buf, mem);
        assert_true((uint8_t *)cb.start >= mem && (uint8_t *)cb.start < mem + 16 * 1024);
        assert_int_equal(bench_chain_lap(cb.start, 1024), 256);
        bench_chase_buf_destroy(&cb);
        assert_int_equal(n_page_allocs, 0);
        assert_int_equal(n_page_frees, 0);
        mem[0] = 1; /* still the caller's (a sanitizer catches a use after free) */
        free(mem);
}

/* No chain at first; then one per prefix (the sweep's working sets), each a full cycle of the
 * prefix's lines that never leaves it. */
static void test_lay_prefix(void **state)
{
        struct bench_chase_buf_cfg cfg = { .bytes = 256 * 1024, .page = PLAT_PAGE_4K,
                                           .no_chain = true };
        static const uint64_t      prefix[] = { 64, 4096, 64 * 1000, 256 * 1024 };
        struct bench_chase_buf     cb;

        (void)state;
        assert_int_equal(bench_chase_buf_create(&cb, &cfg), ST_OK);
        assert_null(cb.start);
        for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++) {
                struct bench_chain_cfg cc = { .layout = BENCH_LAYOUT_RANDOM, .seed = prefix[i] };
                assert_int_equal(bench_chase_buf_lay(&cb, prefix[i], &cc), ST_OK);
                assert_int_equal(cb.chain_bytes, prefix[i]);
                assert_int_equal(cb.n_lines, prefix[i] / 64);
                assert_int_equal(bench_chain_lap(cb.start, 2 * cb.n_lines), prefix[i] / 64);
                const uint8_t *p = cb.start;
                for (uint64_t k = 0; k < cb.n_lines; k++, p = *(void *const *)p)
                        assert_true(p >= (uint8_t *)cb.buf &&
                                    p < (uint8_t *)cb.buf + prefix[i]);
        }
        /* beyond the memory: refused, the last chain kept */
        assert_int_equal(bench_chase_buf_lay(&cb, 512 * 1024, &random64), ST_BAD_ARG);
        bench_chase_buf_destroy(&cb);
        assert_int_equal(n_page_frees, 1);
}

/* The listed lines: each line of the buffer once, ascending, whatever the layout visits
 * first; one per page for a page chase. */
static void test_lines(void **state)
{
        static const uint32_t line[] = { 64, 4096 };

        (void)state;
        for (size_t i = 0; i < 2; i++) {
                struct bench_chase_buf_cfg cfg = {
                        .bytes = 128 * 4096, .page = PLAT_PAGE_4K, .list_lines = true,
                        .chain = { .layout = BENCH_LAYOUT_RANDOM, .line_bytes = line[i],
                                   .seed = 3 } };
                struct bench_chase_buf cb;

                assert_int_equal(bench_chase_buf_create(&cb, &cfg), ST_OK);
                assert_non_null(cb.lines);
                assert_int_equal(cb.n_lines, cfg.bytes / line[i]);
                for (size_t k = 0; k < cb.n_lines; k++)
                        assert_int_equal(cb.lines[k],
                                         (uint64_t)(uintptr_t)cb.buf + k * line[i]);
                bench_chase_buf_destroy(&cb);
                assert_null(cb.lines);
        }
}

/* A create that fails keeps nothing: no pages left allocated, the object empty. */
static void test_failures(void **state)
{
        struct bench_chase_buf     cb;
        struct bench_chase_buf_cfg cfg = { .bytes = 4096, .page = PLAT_PAGE_4K,
                                           .chain = { .line_bytes = 48 } }; /* not 2^n */

        (void)state;
        assert_int_equal(bench_chase_buf_create(NULL, &cfg), ST_BAD_ARG);
        assert_int_equal(bench_chase_buf_create(&cb, NULL), ST_BAD_ARG);
        assert_null(cb.buf);
        assert_int_equal(bench_chase_buf_create(&cb, &cfg), ST_BAD_ARG);
        assert_null(cb.buf);
        assert_int_equal(n_page_allocs, 1);
        assert_int_equal(n_page_frees, 1); /* the pages went back when the chain failed */
        cfg = (struct bench_chase_buf_cfg){ .bytes = 0, .page = PLAT_PAGE_4K };
        assert_int_equal(bench_chase_buf_create(&cb, &cfg), ST_BAD_ARG);
        cfg = (struct bench_chase_buf_cfg){ .bytes = 1000, .page = PLAT_PAGE_4K };
        assert_int_equal(bench_chase_buf_create(&cb, &cfg), ST_BAD_ARG); /* not pages */
        assert_null(cb.buf);
        assert_int_equal(bench_chase_buf_lay(&cb, 64, &random64), ST_BAD_ARG); /* empty */
        assert_int_equal(bench_chase_buf_lay(NULL, 64, &random64), ST_BAD_ARG);
        assert_int_equal(n_page_allocs, n_page_frees);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup(test_owned, setup),
                cmocka_unit_test_setup(test_callers_memory, setup),
                cmocka_unit_test_setup(test_lay_prefix, setup),
                cmocka_unit_test_setup(test_lines, setup),
                cmocka_unit_test_setup(test_failures, setup),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
