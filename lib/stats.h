/** @file
 * The order statistics every sweep and detector uses: an in-place sort of 64-bit values and
 * the nearest-rank percentile of a sorted array. Pure integer code; portable.
 */
#ifndef PMUCAL_STATS_H
#define PMUCAL_STATS_H

#include <stddef.h>
#include <stdint.h>

/** Sort @p v[0..n) ascending in place (heap sort: O(n log n), no allocation). */
void lib_sort_u64(uint64_t *v, size_t n);

/** Nearest-rank percentile @p pct (0..100) of the ascending @p v[0..n), n > 0: the value at
 *  1-based rank ceil(pct * n / 100), rank 0 taken as 1. */
uint64_t lib_pct_nearest_rank(const uint64_t *v, size_t n, unsigned pct);

#endif
