/** @file
 * Reports and validation checks over decoded precise samples (struct psample from AMD IBS or
 * Intel PEBS, struct lbr_entry/lbr_block_stat from LBR), shared by every mechanism. Pure:
 * no globals, no plat_* calls, no clock; callers pass scratch arrays and a rep_buf.
 *   - samples per load site and top data addresses (the IBS DTrace provider's "Top 10 VA
 *     that caused dcache misses"),
 *   - a miss-latency histogram bucketed by an expected-latency table,
 *   - an HP Caliper dcache-style text report,
 *   - validation checks that return a verdict with measured and expected values.
 */
#ifndef PMUCAL_REPORT_SAMPLES_H
#define PMUCAL_REPORT_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"
#include "pmu/x86/lbr.h"
#include "pmu/psample.h"
#include "report/rep.h"

/** One bucket of an expected-latency table: samples with latency <= upper_cycles (and above
 *  the previous bucket's bound) fall into it. Bounds ascend strictly. */
struct rep_lat_bucket {
        const char *name;          /* "L2", "L3", "DRAM" */
        uint32_t    upper_cycles;
};

/** What rep_samples_top() groups by. */
enum rep_sample_key {
        REP_KEY_IP = 0,            /* load site */
        REP_KEY_DATA_ADDR,         /* data linear address (valid ones only) */
        REP_KEY_DATA_LINE,         /* data linear address & ~63 */
};

/* Sample filters. */
#define REP_SF_LOADS_ONLY   BIT_ULL(0)
#define REP_SF_MISSES_ONLY  BIT_ULL(1)   /* l1_miss_known && l1_miss */

/** One row of a grouped report. */
struct rep_site {
        uint64_t key;
        uint32_t n;                /* samples */
        uint32_t n_miss;           /* of which L1 misses */
        uint32_t n_lat;            /* with a valid latency */
        uint64_t sum_lat_cycles;
        uint32_t max_lat_cycles;
};

/** Group the samples passing @p flags by @p key into @p work (capacity @p n_work, at least
 *  the number of passing samples), sorted by sample count descending, then key ascending.
 *  @p n_distinct gets the number of groups. ST_NO_SPACE when @p work is too small. */
status_t rep_samples_top(const struct psample *s, size_t n, enum rep_sample_key key,
                         unsigned flags, struct rep_site *work, size_t n_work,
                         size_t *n_distinct);

/** Count the samples passing @p flags that have a valid latency into @p counts
 *  (@p nb + 1 entries; the last is "above the last bound"). ST_BAD_ARG when the bounds do
 *  not ascend or nb is 0. */
status_t rep_samples_lat_hist(const struct psample *s, size_t n, unsigned flags,
                              const struct rep_lat_bucket *b, size_t nb, uint64_t *counts);

/** Inputs of the dcache-style text report. */
struct rep_dcache_in {
        const char                  *title;      /* "chase 64 MiB, IBS op, period 65536" */
        const struct psample        *s;
        size_t                       n;
        const struct rep_lat_bucket *buckets;
        size_t                       n_buckets;
        uint64_t                     period;     /* sampling period, for the header */
        size_t                       top_n;      /* rows per table (10) */
        struct rep_site             *work;       /* scratch, at least n entries */
        size_t                       n_work;
};

/** Append the report to @p out: counts, latency buckets, data sources, top load sites and
 *  top data addresses of L1 misses. */
status_t rep_samples_dcache_report(const struct rep_dcache_in *in, struct rep_buf *out);

/** A validation verdict. */
enum rep_verdict_kind { REP_V_PASS = 0, REP_V_FAIL, REP_V_SKIP };

struct rep_verdict {
        enum rep_verdict_kind v;
        enum rep_skip_kind    skip;  /* a SKIP's kind (report/rep.h); the environment unless
                                      * the SKIP says otherwise */
        int64_t     measured;
        int64_t     expected;
        int64_t     lo, hi;        /* accepted range for measured */
        const char *unit;          /* "samples", "cycles", "milli-cycles", "permille" */
        char        why[160];      /* one line: what was measured against what */
};

/** "PASS", "FAIL", "SKIP". */
const char *rep_verdict_name(enum rep_verdict_kind v);

/** Every sampled load with a valid address lies in [@p base, @p base + @p bytes) on a line
 *  the chain visits (@p lines: ascending line addresses, @p line_bytes a power of two).
 *  measured = good samples, expected = samples with an address. */
status_t rep_check_addrs_in_chain(const struct psample *s, size_t n, uint64_t base,
                                  uint64_t bytes, const uint64_t *lines, size_t n_lines,
                                  uint32_t line_bytes, struct rep_verdict *out);

/** One mapping of the harness's own page tables. */
struct rep_xlat {
        uint64_t va, pa, bytes;
};

/** Every sample with both addresses valid translates, through @p map (ascending va, no
 *  overlap), to the physical address the hardware reported. */
status_t rep_check_phys(const struct psample *s, size_t n, const struct rep_xlat *map,
                        size_t n_map, struct rep_verdict *out);

/** How the live page tables translate one sample's data linear address: the caller walks
 *  them (CR3, in software) so that this module stays pure. */
struct rep_walk {
        status_t st;          /* ST_OK: pa is valid; ST_NOT_FOUND: not mapped; other: the
                                 walk hit a reserved bit or an unreachable table */
        uint64_t pa;
        uint64_t page_bytes;  /* of the leaf that maps it */
};

/** Every sample with both addresses valid reports the physical address its walk @p w[i]
 *  (parallel to @p s, @p n entries each) gives; a failed walk counts as a mismatch.
 *  measured = matches, expected = samples with both addresses; the detail also counts the
 *  identity translations and names the first mismatch. SKIP when no sample has both. */
status_t rep_check_phys_walk(const struct psample *s, const struct rep_walk *w, size_t n,
                             struct rep_verdict *out);

/** The median latency of samples with a valid latency (filtered by @p flags) lies in
 *  [@p lo, @p hi] cycles and at least @p min_permille of them do. measured = median. */
status_t rep_check_latency(const struct psample *s, size_t n, unsigned flags, uint32_t lo,
                           uint32_t hi, uint32_t min_permille, struct rep_verdict *out);

/** At least @p min_permille of the loads with a known level report @p want.
 *  measured = permille that do. */
status_t rep_check_level(const struct psample *s, size_t n, enum psample_level want,
                         uint32_t min_permille, struct rep_verdict *out);

/** At least @p min_permille of the samples with TLB information show a second-level TLB miss
 *  iff @p want_l2_miss, and, where a page size is reported, page size @p want_pgsz.
 *  measured = permille that match. */
status_t rep_check_tlb(const struct psample *s, size_t n, bool want_l2_miss,
                       enum psample_pgsz want_pgsz, uint32_t min_permille,
                       struct rep_verdict *out);

/** @p n_samples is within @p tol_permille of @p n_events / @p period (at least +-1). */
status_t rep_check_sample_count(uint64_t n_samples, uint64_t n_events, uint64_t period,
                                uint32_t tol_permille, struct rep_verdict *out);

/** The block [@p start, @p end] in @p st has a mean cost within @p tol_permille of
 *  @p expected_mcyc milli-cycles. measured = mean milli-cycles. */
status_t rep_check_lbr_block_cost(const struct lbr_block_stat *st, size_t n_st, uint64_t start,
                                  uint64_t end, uint64_t expected_mcyc, uint32_t tol_permille,
                                  struct rep_verdict *out);

/** A symbol of the kernel under test. */
struct rep_sym {
        uint64_t    addr, bytes;
        const char *name;
};

/** Every FROM and TO of @p e lies inside one of @p syms (ascending addr).
 *  measured = addresses inside, expected = 2 * n. */
status_t rep_check_lbr_symbols(const struct lbr_entry *e, size_t n, const struct rep_sym *syms,
                               size_t n_syms, struct rep_verdict *out);

#endif
