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

/* Orders that break naive quicksorts: sorted, reversed, all equal, organ pipe, and a long
 * random run, each against qsort. */
static void test_sort_adversarial(void **state)
{
        enum { N = 20000 };
        static uint64_t v[N], w[N];
        uint64_t        s = 0x9e3779b97f4a7c15ull;
        (void)state;
        for (int kind = 0; kind < 5; kind++) {
                for (size_t i = 0; i < N; i++) {
                        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                        v[i] = kind == 0 ? i : kind == 1 ? N - i : kind == 2 ? 42
                             : kind == 3 ? (i < N / 2 ? i : N - i) : s;
                }
                memcpy(w, v, sizeof(v));
                lib_sort_u64(v, N);
                qsort(w, N, sizeof(*w), cmp_u64);
                assert_memory_equal(v, w, sizeof(v));
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

/* The median's confidence ranks against the exact binomial coverage: P(x(lo) <= median <=
 * x(hi)) = P(lo < B <= hi) with B ~ Binomial(n, 1/2) must reach 95 % for n >= 6 (and not be
 * much wider than needed: dropping a rank at each end must fall below 97 %). */
static void test_median_ci_ranks(void **state)
{
        (void)state;
        for (size_t n = 1; n <= 400; n++) {
                size_t lo, hi;
                double pk[401], c = 0;
                lib_median_ci_ranks(n, &lo, &hi);
                assert_true(lo <= hi && hi < n);
                assert_true(lo <= (n - 1) / 2 && hi >= n / 2);
                pk[0] = 1;
                for (size_t k = 1; k <= n; k++)
                        pk[k] = pk[k - 1] * (double)(n - k + 1) / (double)k;
                double tot = 0;
                for (size_t k = 0; k <= n; k++)
                        tot += pk[k];
                /* order statistic x(lo+1) (1-based) <= median <= x(hi+1): lo+1 <= B <= hi */
                for (size_t k = lo + 1; k <= hi; k++)
                        c += pk[k] / tot;
                if (n >= 6)
                        assert_true(c >= 0.945);
                if (n >= 20 && lo + 2 <= hi) {
                        double d = c - (pk[lo + 1] + pk[hi]) / tot;
                        assert_true(d < 0.97);
                }
        }
}

static void test_isqrt(void **state)
{
        (void)state;
        static const uint64_t v[] = { 0, 1, 2, 3, 4, 15, 16, 17, 99, 100, 1ull << 62,
                                      UINT64_MAX, 4294967295ull * 4294967295ull };
        for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
                uint64_t r = lib_isqrt_u64(v[i]);
                assert_true((unsigned __int128)r * r <= v[i]);
                assert_true((unsigned __int128)(r + 1) * (r + 1) > v[i]);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sort_matches_qsort),
                cmocka_unit_test(test_sort_adversarial),
                cmocka_unit_test(test_nearest_rank),
                cmocka_unit_test(test_median_ci_ranks),
                cmocka_unit_test(test_isqrt),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
