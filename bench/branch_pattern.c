/** @file The branch pattern of bench_branch_pattern (see kernel_branch.h): portable, the same
 * bytes on every architecture for one seed. */
#include "bench/kernel_branch.h"

void bench_pattern_fill(uint8_t *pat, size_t n, bool random, uint64_t seed)
{
        /* Knuth MMIX LCG constants; the top bit is the best-distributed one. */
        uint64_t x = seed;

        for (size_t i = 0; i < n; i++) {
                x      = x * 6364136223846793005ull + 1442695040888963407ull;
                pat[i] = random ? (uint8_t)(x >> 63) : 0;
        }
}
