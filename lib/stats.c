/** @file Order statistics (see stats.h). */
#include "lib/stats.h"

static void sift_down(uint64_t *v, size_t root, size_t n)
{
        for (;;) {
                size_t top = root, l = 2 * root + 1, r = l + 1;

                if (l < n && v[l] > v[top])
                        top = l;
                if (r < n && v[r] > v[top])
                        top = r;
                if (top == root)
                        return;
                uint64_t t = v[root];
                v[root]    = v[top];
                v[top]     = t;
                root       = top;
        }
}

void lib_sort_u64(uint64_t *v, size_t n)
{
        for (size_t i = n / 2; i-- > 0;)
                sift_down(v, i, n);
        for (size_t end = n; end > 1; end--) {
                uint64_t t = v[0];
                v[0]       = v[end - 1];
                v[end - 1] = t;
                sift_down(v, 0, end - 1);
        }
}

uint64_t lib_pct_nearest_rank(const uint64_t *v, size_t n, unsigned pct)
{
        size_t rank = (pct * n + 99) / 100;

        return v[rank ? rank - 1 : 0];
}

uint64_t lib_isqrt_u64(uint64_t v)
{
        uint64_t r = 0, bit = 1ull << 62;

        while (bit > v)
                bit >>= 2;
        while (bit) {
                if (v >= r + bit) {
                        v -= r + bit;
                        r = (r >> 1) + bit;
                } else {
                        r >>= 1;
                }
                bit >>= 2;
        }
        return r;
}

void lib_median_ci_ranks(size_t n, size_t *lo, size_t *hi)
{
        /* 1-based: floor(n/2 - 0.98 sqrt n) and ceil(n/2 + 1 + 0.98 sqrt n), in hundredths */
        uint64_t r   = lib_isqrt_u64(9604ull * n);
        uint64_t a   = 50ull * n > r ? (50ull * n - r) / 100 : 0;
        uint64_t b   = (50ull * n + 100 + r + 99) / 100;

        *lo = a ? (size_t)a - 1 : 0;
        *hi = b > n ? n - 1 : (size_t)b - 1;
}
