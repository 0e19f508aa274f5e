/* The cache-to-cache protocol on two real host threads: every round completes in order for
 * each kind (ping-pong included), a side whose partner never starts gives up with ST_TIMEOUT,
 * bad arguments are refused, and two sides that run in turn on one CPU are caught: their
 * windows are flagged not concurrent. (The figures themselves are checked by the hosted run,
 * not here.) */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench/c2c.h"
#include "bench/chain.h"
#include "boot/prefetch.h"
#include "boot/x86/msr_misc.h"
#include "tests/fake_msr.h"

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
                if (k == BENCH_C2C_PINGPONG) {
                        assert_int_equal(c.ping, 50 * LINES);
                        assert_int_equal(c.pong, 50 * LINES);
                }
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

static void *owner_on_cpu0(void *c)
{
        cpu_set_t set;

        CPU_ZERO(&set);
        CPU_SET(0, &set);
        if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
                return NULL;
        bench_c2c_owner(c);
        return NULL;
}

/* Owner and reader pinned to one CPU take turns: the owner's heartbeat cannot move while the
 * reader measures, so (nearly) every window is flagged; the figures would be the reader's own
 * cache hits, not transfers. */
static void test_one_cpu_in_turn_not_concurrent(void **state)
{
        static struct bench_c2c c;
        void                   *start;
        void                   *buf = alloc_chain(&start);
        cpu_set_t               set, old;
        pthread_t               t;
        (void)state;

        assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof(old), &old), 0);
        CPU_ZERO(&set);
        CPU_SET(0, &set);
        assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(set), &set), 0);
        assert_int_equal(bench_c2c_init(&c, BENCH_C2C_HITM, start, LINES, 64, 20), ST_OK);
        assert_int_equal(pthread_create(&t, NULL, owner_on_cpu0, &c), 0);
        bench_c2c_reader(&c);
        pthread_join(t, NULL);
        pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
        assert_int_equal(c.reader_status, ST_OK);
        assert_int_equal(c.n_done, 20);
        printf("# one CPU in turn: %u of 20 windows not concurrent\n", c.n_not_concurrent);
        assert_true(c.n_not_concurrent >= 18);
        unsigned flagged = 0;
        for (unsigned r = 0; r < c.n_done; r++)
                flagged += !c.concurrent[r];
        assert_int_equal(flagged, c.n_not_concurrent);
        free(buf);
}

/* The reader's own hit on a chain it walks itself: a figure, and the floor field set when a
 * floor chain is given. */
static void test_own_hit(void **state)
{
        static struct bench_c2c c;
        void                   *start, *fstart;
        void                   *buf = alloc_chain(&start), *fbuf = alloc_chain(&fstart);
        pthread_t               t;
        (void)state;

        assert_true(bench_c2c_own_hit(fstart, LINES, 3) > 0);
        assert_int_equal(bench_c2c_own_hit(NULL, LINES, 3), 0);
        assert_int_equal(bench_c2c_init(&c, BENCH_C2C_HIT, start, LINES, 64, 5), ST_OK);
        c.floor_chain = fstart;
        c.floor_lines = LINES;
        assert_int_equal(pthread_create(&t, NULL, owner_thread, &c), 0);
        bench_c2c_reader(&c);
        pthread_join(t, NULL);
        assert_true(c.floor_milli > 0);
        free(buf);
        free(fbuf);
}

static uint64_t seen_in_window;

static void peek_side(void *c)
{
        (void)c;
        seen_in_window = fake_msr_peek(MSR_MISC_FEATURE_CONTROL);
}

/* Each side of a pair runs with its own CPU's prefetchers off (Skylake-SP: the four disable
 * bits of MSR_MISC_FEATURE_CONTROL, 0xf) and gives them back after; with prefetchers = keep
 * they stay as found, and a CPU without a documented control runs as found too. */
static void test_side_prefetchers(void **state)
{
        static struct bench_c2c c;
        struct prefetch_info   pf;
        struct cpu_info         skx = { .vendor = VEN_INTEL, .family = 6, .model = 0x55 };
        struct cpu_info         knl = { .vendor = VEN_INTEL, .family = 6, .model = 0x57 };
        (void)state;

        fake_msr_setup(NULL);
        fake_msr_add(MSR_MISC_FEATURE_CONTROL, 0x2);
        bench_c2c_side(peek_side, &c, &skx, true, &pf);
        assert_int_equal(seen_in_window, 0xf);
        assert_int_equal(fake_msr_peek(MSR_MISC_FEATURE_CONTROL), 0x2);
        assert_string_equal(prefetch_state_name(pf.state), "off");
        bench_c2c_side(peek_side, &c, &skx, false, &pf);
        assert_int_equal(seen_in_window, 0x2);
        assert_string_equal(prefetch_state_name(pf.state), "on");
        bench_c2c_side(peek_side, &c, &knl, true, &pf);
        assert_int_equal(seen_in_window, 0x2);
        assert_string_equal(prefetch_state_name(pf.state), "unsupported");
        bench_c2c_side(peek_side, &c, NULL, true, &pf);
        assert_string_equal(prefetch_state_name(pf.state), "unsupported");
        fake_msr_setup(NULL);
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
        assert_string_equal(bench_c2c_kind_name(BENCH_C2C_ATOMIC), "atomic");
        assert_string_equal(bench_c2c_kind_name(BENCH_C2C_PINGPONG), "pingpong");
        assert_string_equal(bench_c2c_kind_name(BENCH_C2C__COUNT), "unknown");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rounds_complete),
                cmocka_unit_test(test_partner_never_starts),
                cmocka_unit_test(test_bad_arguments),
                cmocka_unit_test(test_one_cpu_in_turn_not_concurrent),
                cmocka_unit_test(test_own_hit),
                cmocka_unit_test(test_side_prefetchers),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
