/* Parked processors and their mailboxes on the test platform (threads as APs): every chosen
 * AP parks and runs calls in order, BSP work runs in place, a CPU that never answers is left
 * out with its APIC ID and the run goes on, a call that overruns its timeout marks the CPU
 * lost, and mp_stop returns every AP to the platform. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "boot/mp.h"
#include "report/rep.h"
#include "tests/fake_plat.h"

#define LONG_US 5000000u   /* generous: threads on a busy 2-CPU machine */

static struct rep_buf out;

static int setup(void **state)
{
        static struct plat_cpu cpus[5];
        (void)state;
        for (unsigned i = 0; i < 5; i++)
                cpus[i] = (struct plat_cpu){ .apic_id = 10 + 2 * i, .enabled = i != 3,
                                             .is_bsp = i == 0 };
        fake_plat_reset();
        fake_plat_set_cpus(cpus, 5);
        fake_plat_real_stall(true);
        rep_reset();
        rep_buf_free(&out);
        rep_add_sink(rep_buf_sink(&out));
        return 0;
}

static int teardown(void **state)
{
        (void)state;
        mp_stop(LONG_US);
        for (unsigned i = 0; i < 5; i++)
                fake_plat_cpu_dead(i, false);
        fake_plat_cpus_reset();
        rep_buf_free(&out);
        return 0;
}

struct job {
        unsigned n;
        uint64_t sum;
};

static void add(void *p)
{
        struct job *j = p;
        j->n++;
        j->sum += j->n;
}

static void test_park_and_call(void **state)
{
        unsigned   parked;
        struct job j[5] = { 0 };
        (void)state;

        assert_int_equal(mp_start(NULL, LONG_US, &parked), ST_OK);
        assert_int_equal(parked, 3); /* CPUs 1, 2, 4; 3 is disabled */
        assert_int_equal(mp_cpu_state(0), MP_BSP);
        assert_int_equal(mp_cpu_state(1), MP_PARKED);
        assert_int_equal(mp_cpu_state(3), MP_ABSENT);
        assert_int_equal(mp_cpu_state(99), MP_ABSENT);
        assert_int_equal(mp_cpu_apic_id(4), 18);
        assert_int_equal(mp_start(NULL, LONG_US, NULL), ST_BAD_ARG);
        for (unsigned r = 0; r < 100; r++)
                for (unsigned i = 0; i < 5; i++)
                        if (mp_cpu_state(i) == MP_PARKED || mp_cpu_state(i) == MP_BSP)
                                assert_int_equal(mp_run(i, add, &j[i], LONG_US), ST_OK);
        assert_int_equal(j[0].n, 100);
        assert_int_equal(j[1].sum, 5050); /* every call ran once, in order */
        assert_int_equal(j[4].sum, 5050);
        assert_int_equal(j[3].n, 0);
        /* calls in flight on two APs at once */
        assert_int_equal(mp_call(1, add, &j[1]), ST_OK);
        assert_int_equal(mp_call(2, add, &j[2]), ST_OK);
        assert_int_equal(mp_wait(1, LONG_US), ST_OK);
        assert_int_equal(mp_wait(2, LONG_US), ST_OK);
        assert_int_equal(j[2].n, 101);
        assert_int_equal(mp_call(0, add, &j[0]), ST_BAD_ARG); /* the BSP is never mailed */
        assert_int_equal(mp_call(3, add, &j[3]), ST_BAD_ARG);
        assert_int_equal(mp_wait(4, 0), ST_OK); /* nothing pending */
}

static void test_chosen_cpus(void **state)
{
        const bool want[5] = { true, false, true, true, false };
        unsigned   parked;
        (void)state;

        assert_int_equal(mp_start(want, LONG_US, &parked), ST_OK);
        assert_int_equal(parked, 1);
        assert_int_equal(mp_cpu_state(1), MP_ABSENT);
        assert_int_equal(mp_cpu_state(2), MP_PARKED);
        assert_int_equal(mp_cpu_state(3), MP_ABSENT); /* chosen, but disabled */
}

static void test_cpu_never_answers(void **state)
{
        unsigned   parked;
        struct job j = { 0 };
        (void)state;

        fake_plat_cpu_dead(2, true);
        assert_int_equal(mp_start(NULL, 20000, &parked), ST_OK);
        assert_int_equal(parked, 2);
        assert_int_equal(mp_cpu_state(2), MP_LOST);
        assert_non_null(strstr(out.p, "cpu 2 (APIC ID 14) did not park"));
        assert_int_equal(mp_run(2, add, &j, LONG_US), ST_BAD_ARG);
        assert_int_equal(mp_run(1, add, &j, LONG_US), ST_OK); /* the run goes on */
        assert_int_equal(j.n, 1);
}

static volatile int release_slow;

static void slow(void *p)
{
        (void)p;
        while (!__atomic_load_n(&release_slow, __ATOMIC_ACQUIRE))
                ;
}

static void test_call_overruns(void **state)
{
        (void)state;
        release_slow = 0;
        assert_int_equal(mp_start(NULL, LONG_US, NULL), ST_OK);
        assert_int_equal(mp_call(4, slow, NULL), ST_OK);
        assert_int_equal(mp_wait(4, 1000), ST_TIMEOUT);
        assert_int_equal(mp_cpu_state(4), MP_LOST);
        assert_non_null(strstr(out.p, "cpu 4 (APIC ID 18) did not finish its work in time"));
        assert_int_equal(mp_wait(4, 1000), ST_TIMEOUT);
        release_slow = 1; /* let the thread finish so mp_stop can join it */
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_park_and_call, setup, teardown),
                cmocka_unit_test_setup_teardown(test_chosen_cpus, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cpu_never_answers, setup, teardown),
                cmocka_unit_test_setup_teardown(test_call_overruns, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
