/* Order statistics against libc qsort and a hand-checked percentile table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/stats.h"

static int cmp_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
        return x < y ? -1 : x > y;
}

static void test_sort_matches_qsort(void **state)
{
        static uint64_t v[1000], w[1000];
        uint64_t        s = 88172645463325252ull;
        (void)state;
        for (size_t n = 0; n <= 1000; n += n < 20 ? 1 : 97) {
                for (size_t i = 0; i < n; i++) {
                        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                        v[i] = (n % 3 == 0) ? s % 7 : s; /* many duplicates in some sizes */
                }
                memcpy(w, v, n * sizeof(*v));
                lib_sort_u64(v, n);
                qsort(w, n, sizeof(*w), cmp_u64);
                assert_memory_equal(v, w, n * sizeof(*v));
        }
}

static void test_nearest_rank(void **state)
{
        static const uint64_t v[] = { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 };
        static const struct {
                size_t   n;
                unsigned pct;
                uint64_t want;
        } cases[] = {
                { 10, 0, 10 },  { 10, 10, 10 }, { 10, 11, 20 }, { 10, 50, 50 },
                { 10, 90, 90 }, { 10, 91, 100 },{ 10, 100, 100 }, { 1, 50, 10 },
                { 3, 50, 20 },  { 4, 50, 20 },  { 11 - 1, 99, 100 },
        };
        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                assert_int_equal(lib_pct_nearest_rank(v, cases[i].n, cases[i].pct), cases[i].want);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sort_matches_qsort),
                cmocka_unit_test(test_nearest_rank),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
