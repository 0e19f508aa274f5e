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
