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

static void heap_sort(uint64_t *v, size_t n)
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

static void swap_u64(uint64_t *a, uint64_t *b)
{
        uint64_t t = *a;
        *a = *b;
        *b = t;
}

/* Introsort: quicksort (median of three, Hoare partition) while it behaves, heap sort of a
 * part once the depth passes @p depth, insertion sort of short parts. Recurses into the
 * smaller side only: depth O(log n). */
static void intro_sort(uint64_t *v, size_t n, unsigned depth)
{
        while (n > 16) {
                if (depth-- == 0) {
                        heap_sort(v, n);
                        return;
                }
                size_t m = n / 2;
                if (v[m] < v[0])
                        swap_u64(&v[m], &v[0]);
                if (v[n - 1] < v[0])
                        swap_u64(&v[n - 1], &v[0]);
                if (v[n - 1] < v[m])
                        swap_u64(&v[n - 1], &v[m]);
                uint64_t pivot = v[m];
                size_t i = 0, j = n - 1;
                for (;;) {
                        while (v[i] < pivot)
                                i++;
                        while (v[j] > pivot)
                                j--;
                        if (i >= j)
                                break;
                        swap_u64(&v[i++], &v[j--]);
                }
                /* [0, j] <= pivot <= [j + 1, n) */
                if (j + 1 < n - j - 1) {
                        intro_sort(v, j + 1, depth);
                        v += j + 1;
                        n -= j + 1;
                } else {
                        intro_sort(v + j + 1, n - j - 1, depth);
                        n = j + 1;
                }
        }
        for (size_t i = 1; i < n; i++)
                for (size_t k = i; k > 0 && v[k] < v[k - 1]; k--)
                        swap_u64(&v[k], &v[k - 1]);
}

void lib_sort_u64(uint64_t *v, size_t n)
{
        unsigned depth = 0;

        for (size_t m = n; m > 1; m >>= 1)
                depth += 2;
        intro_sort(v, n, depth);
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
