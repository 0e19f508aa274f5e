/** @file Unit tests for lib/fixq8.c: log2 and exp2 in Q8 against libm's as the oracle, and
 *  their round trip. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lib/fixq8.h"

/* The fraction is truncated to 1/256 of an octave: at most 1 below libm's, never above. */
static void test_log2_q8(void **state)
{
        (void)state;
        static const uint64_t v[] = { 0, 1, 2, 3, 5, 1000, 4096, 65535, 1u << 20, 3000000007ull,
                                      1ull << 40, 123456789012345ull, UINT64_MAX };
        for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
                double want = v[i] <= 1 ? 0 : log2((double)v[i]) * 256;
                double got  = lib_log2_q8(v[i]);
                assert_true(got <= want + 0.01 && got >= want - 2);
        }
}

/* 2^(x/256) rounded: within half a unit (plus the Q30 table's rounding, below 1e-8 of the
 * value) of libm's, across every octave that fits, and UINT64_MAX past 2^63. */
static void test_exp2_q8(void **state)
{
        (void)state;
        for (uint32_t x = 0; x < 63 * 256; x += 37) {
                double want = exp2(x / 256.0);
                double got  = (double)lib_exp2_q8(x);
                assert_true(fabs(got - want) <= 0.5 + want * 1e-8);
        }
        assert_int_equal(lib_exp2_q8(0), 1);
        assert_int_equal(lib_exp2_q8(256), 2);
        assert_int_equal(lib_exp2_q8(10 * 256), 1024);
        assert_int_equal(lib_exp2_q8(40 * 256), 1ull << 40);
        assert_true(lib_exp2_q8(64 * 256) == UINT64_MAX);
}

/* exp2(log2(v)) comes back to v within the 1/256 octave log2 truncates (0.27 %). */
static void test_round_trip(void **state)
{
        (void)state;
        for (uint64_t v = 2; v < (1ull << 50); v = v * 3 + 1) {
                uint64_t back = lib_exp2_q8(lib_log2_q8(v));
                assert_true(back <= v + v / 1000 + 1 && back >= v - v / 256 - 1);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_log2_q8),
                cmocka_unit_test(test_exp2_q8),
                cmocka_unit_test(test_round_trip),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
