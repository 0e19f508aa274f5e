/** @file
 * Pointer-chase chains: one random cycle through the cache lines of a caller-provided buffer,
 * one pointer per line, each line visited exactly once per lap. Every pointer is an absolute
 * address, so the chase is `p = *(void **)p`. Layouts: random over the whole buffer; random
 * inside groups of pages, groups visited in random order (as multichase does, so that cache
 * and TLB effects can be separated); fixed stride for reference. The permutation is driven by
 * a seeded splitmix64/xorshift generator, so a seed gives the same chain on host and firmware.
 * Pure code: no plat_* calls, no globals, no scratch allocation (the order is kept in the
 * second word of each line while the chain is built).
 */
#ifndef PMUCAL_BENCH_CHAIN_H
#define PMUCAL_BENCH_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"

enum bench_layout {
        BENCH_LAYOUT_RANDOM = 0, /* random order over every line of the buffer */
        BENCH_LAYOUT_GROUPS,     /* random inside groups of group_pages pages, then across */
        BENCH_LAYOUT_STRIDE,     /* line 0, s, 2s, ..., then 1, 1+s, ... (s = stride in lines) */
        BENCH_LAYOUT__COUNT
};

/** How to lay a chain out. Zero fields take the defaults given. */
struct bench_chain_cfg {
        enum bench_layout layout;
        uint32_t          line_bytes;   /* distance between pointers; 0 = 64; >= 16, power of 2 */
        uint32_t          page_bytes;   /* group unit; 0 = 4096 */
        uint32_t          group_pages;  /* BENCH_LAYOUT_GROUPS; 0 = 16 */
        uint32_t          stride_bytes; /* BENCH_LAYOUT_STRIDE; 0 = line_bytes */
        uint64_t          seed;
};

/** State of the deterministic generator (xorshift64* seeded through splitmix64). */
struct bench_rng {
        uint64_t s;
};

/** Seed @p r from @p seed (any value, 0 included). */
void bench_rng_seed(struct bench_rng *r, uint64_t seed);
/** Next 64 random bits. */
uint64_t bench_rng_next(struct bench_rng *r);
/** Uniform integer in [0, @p n) (@p n > 0), without modulo bias worth measuring. */
uint64_t bench_rng_below(struct bench_rng *r, uint64_t n);

/** Lay a chain through the first @p bytes of @p buf (aligned to line_bytes; @p bytes a
 *  multiple of line_bytes, at least one line). On success *@p start is the address of a line
 *  on the cycle (every line is). Overwrites the first two words of every line. */
status_t bench_chain_build(void *buf, size_t bytes, const struct bench_chain_cfg *cfg,
                           void **start);

/** Follow the chain from @p start for at most @p max_steps steps and count the steps until it
 *  returns to @p start (0 if it did not). For tests and sanity checks, not for timing. */
uint64_t bench_chain_lap(const void *start, uint64_t max_steps);

/** Name of a layout ("random", "groups", "stride"); never NULL. */
const char *bench_layout_name(enum bench_layout l);

#endif
