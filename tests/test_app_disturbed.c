/* The whole program on a machine where the timer disagrees with itself in every window (an
 * emulator sharing loaded host cores, a hypervisor stealing time): bench_window_check is
 * wrapped at link time (see tests/unittests.cfg) to call every window inconsistent. A measurement
 * with no undisturbed window is left out and said so, never an ERROR or a FAIL; the run still
 * ends with its report and results. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "boot/plat.h"
#include "bench/window.h"
#include "tests/fake_plat.h"
#include "tests/test_util.h"

enum bench_disturb __wrap_bench_window_check(const struct bench_window *w, uint64_t slack);

static bool disturb_all;

enum bench_disturb __real_bench_window_check(const struct bench_window *w, uint64_t slack);

enum bench_disturb __wrap_bench_window_check(const struct bench_window *w, uint64_t slack)
{
        return disturb_all ? BENCH_WIN_INCONSISTENT : __real_bench_window_check(w, slack);
}

static int setup(void **state)
{
        (void)state;
        test_platform_qemu_3node();
        disturb_all = true;
        return 0;
}

static int teardown(void **state)
{
        (void)state;
        disturb_all = false;
        return 0;
}

static void test_every_window_disturbed(void **state)
{
        struct pmucal_outcome out;
        (void)state;
        int code = pmucal_main(&out);
        const char *con = fake_plat_console();
        printf("%s", con);
        assert_int_equal(code, out.exit_code);
        assert_int_equal(code, PMUCAL_EXIT_OK);
        want_not(con, "ERROR: ");
        want_not(con, "FAIL: ");
        want(con, "INFO: numa: CPU 0 on node 0, memory on node 0: left out, every window "
                  "disturbed");
        want(con, "SKIP: numa: every one of 9 cells left out: every window disturbed");
        want(con, "INFO: numa: loaded latency, every node, idle (no load): left out, every "
                  "window disturbed");
        want(con, "SKIP: numa: loaded latency: every one of 7 points left out");
        want(con, "SKIP: latency: every point of the sweep left out: the timer disagreed with "
                  "itself in every window");
        want(con, "SUMMARY: ");
        assert_non_null(strstr(last_line(con), "RESULTS: saved to"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_every_window_disturbed, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
