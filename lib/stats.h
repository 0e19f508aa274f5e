/** @file
 * The order statistics every sweep and detector uses: an in-place sort of 64-bit values, the
 * nearest-rank percentile of a sorted array and the ranks that bound a distribution-free
 * confidence interval of the median. Pure integer code; portable.
 */
#ifndef PMUCAL_STATS_H
#define PMUCAL_STATS_H

#include <stddef.h>
#include <stdint.h>

/** Sort @p v[0..n) ascending in place (introsort: quicksort falling back to heap sort,
 *  O(n log n) worst case, no allocation, stack depth O(log n)). */
void lib_sort_u64(uint64_t *v, size_t n);

/** Nearest-rank percentile @p pct (0..100) of the ascending @p v[0..n), n > 0: the value at
 *  1-based rank ceil(pct * n / 100), rank 0 taken as 1. */
uint64_t lib_pct_nearest_rank(const uint64_t *v, size_t n, unsigned pct);

/** 0-based ranks @p *lo <= @p *hi of the sorted sample of @p n > 0 values between which the
 *  median lies with about 95 % confidence, whatever the distribution: n/2 -/+ 0.98 sqrt(n)
 *  (the normal approximation of Binomial(n, 1/2)), clamped to 0 .. n-1. For n < 6 that is
 *  the whole sample, which covers the median with less than 95 %. */
void lib_median_ci_ranks(size_t n, size_t *lo, size_t *hi);

/** Integer square root: the largest r with r * r <= @p v. */
uint64_t lib_isqrt_u64(uint64_t v);

#endif
