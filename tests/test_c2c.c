/* The cache-to-cache protocol on two real host threads: every round completes in order for
 * each kind, a side whose partner never starts gives up with ST_TIMEOUT, bad arguments are
 * refused. (The figures themselves are checked by the hosted run, not here.) */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench/c2c.h"
#include "bench/chain.h"

#define LINES 64

static void *alloc_chain(void **start)
{
        void *buf = aligned_alloc(4096, LINES * 64);
        struct bench_chain_cfg cfg = { .layout = BENCH_LAYOUT_RANDOM, .seed = 7 };

        assert_non_null(buf);
        assert_int_equal(bench_chain_build(buf, LINES * 64, &cfg, start), ST_OK);
        return buf;
}

static void *owner_thread(void *c)
{
        bench_c2c_owner(c);
        return NULL;
}

static void test_rounds_complete(void **state)
{
        static struct bench_c2c c;
        void                   *start;
        void                   *buf = alloc_chain(&start);
        (void)state;

        for (int k = 0; k < BENCH_C2C__COUNT; k++) {
                pthread_t t;

                assert_int_equal(bench_c2c_init(&c, (enum bench_c2c_kind)k, start, LINES, 64, 50),
                                 ST_OK);
                assert_int_equal(pthread_create(&t, NULL, owner_thread, &c), 0);
                bench_c2c_reader(&c);
                pthread_join(t, NULL);
                assert_int_equal(c.reader_status, ST_OK);
                assert_int_equal(c.owner_status, ST_OK);
                assert_int_equal(c.n_done, 50);
                assert_false(c.aborted);
                for (unsigned r = 0; r < c.n_done; r++)
                        assert_true(c.ticks_per_line_milli[r] > 0);
                assert_int_equal(c.owner_seq, 50);
                assert_int_equal(c.reader_seq, 100);
        }
        /* the chain is intact after the owner's writes and the reader's locked adds */
        void  *p = start;
        size_t n = 0;
        do {
                p = *(void **)p;
                n++;
        } while (p != start && n <= LINES);
        assert_int_equal(n, LINES);
        free(buf);
}

static void test_partner_never_starts(void **state)
{
        static struct bench_c2c c;
        void                   *start;
        void                   *buf = alloc_chain(&start);
        (void)state;

        assert_int_equal(bench_c2c_init(&c, BENCH_C2C_HITM, start, LINES, 64, 3), ST_OK);
        c.spin_limit = 100000;
        bench_c2c_reader(&c);
        assert_int_equal(c.reader_status, ST_TIMEOUT);
        assert_int_equal(c.n_done, 0);
        assert_true(c.aborted);

        assert_int_equal(bench_c2c_init(&c, BENCH_C2C_HIT, start, LINES, 64, 3), ST_OK);
        c.spin_limit = 100000;
        bench_c2c_owner(&c);
        assert_int_equal(c.owner_status, ST_TIMEOUT);
        free(buf);
}

static void test_bad_arguments(void **state)
{
        static struct bench_c2c c;
        int                     x[16];
        (void)state;

        assert_int_equal(bench_c2c_init(NULL, BENCH_C2C_HIT, x, 1, 64, 1), ST_BAD_ARG);
        assert_int_equal(bench_c2c_init(&c, BENCH_C2C_HIT, NULL, 1, 64, 1), ST_BAD_ARG);
        assert_int_equal(bench_c2c_init(&c, BENCH_C2C_HIT, x, 0, 64, 1), ST_BAD_ARG);
        assert_int_equal(bench_c2c_init(&c, BENCH_C2C_HIT, x, 1, 64, 0), ST_BAD_ARG);
        assert_int_equal(bench_c2c_init(&c, BENCH_C2C_HIT, x, 1, 64, BENCH_C2C_MAX_ROUNDS + 1),
                         ST_BAD_ARG);
        assert_int_equal(bench_c2c_init(&c, BENCH_C2C__COUNT, x, 1, 64, 1), ST_BAD_ARG);
        assert_string_equal(bench_c2c_kind_name(BENCH_C2C_WRITE), "write");
        assert_string_equal(bench_c2c_kind_name(BENCH_C2C__COUNT), "unknown");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rounds_complete),
                cmocka_unit_test(test_partner_never_starts),
                cmocka_unit_test(test_bad_arguments),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
