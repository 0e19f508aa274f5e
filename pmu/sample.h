/** @file
 * Overflow sampling, the pure part: the PMI handler's bookkeeping given an interrupt frame
 * (record the interrupted RIP and the counter state, read and clear overflow status, re-arm,
 * unmask the LVT through a callback boot/ provides), and the analyses of the samples: the
 * skid histogram, the Caliper scale estimate (total ~ samples x period) and a top-addresses
 * report by function from a symbol table. The IDT vector and the local APIC LVT belong to
 * boot/; nothing here touches them. Host-tested with the register model (tests/test_sample.c).
 */
#ifndef PMUCAL_SAMPLE_H
#define PMUCAL_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "pmu/pmu.h"

/** What the PMI entry stub saved of the interrupted context. */
struct pmu_frame {
        uint64_t rip, rsp, rflags;
};

/** One sample. */
struct pmu_sample {
        uint64_t rip;     /* interrupted RIP */
        uint64_t status;  /* overflow status as read at the PMI */
        uint64_t counter; /* counter value at the PMI (events since the wrap = skid) */
};

/** One sampling session on one counter. The caller owns @p buf. */
struct pmu_sampler {
        struct pmu_slot              slot;
        const struct pmu_event_desc *ev;
        unsigned                     flags;   /* PMU_OS / PMU_USR; PMU_INT is added */
        uint64_t                     period;  /* events between PMIs, >= 1 */
        struct pmu_sample           *buf;
        size_t                       cap, n;
        uint64_t                     n_pmi, n_spurious, n_dropped, n_errors;
        void (*unmask)(void *ctx);            /* re-enable the LVT PMC entry (boot/) */
        void *unmask_ctx;
};

/** Program the counter to overflow after @p s->period events, clear its status, start it. */
status_t pmu_sample_arm(struct pmu_sampler *s);
/** Stop the counter. */
status_t pmu_sample_disarm(struct pmu_sampler *s);
/** The PMI handler body: read status; if this counter overflowed, record the sample
 *  (dropped when buf is full), re-arm it with -period, clear its status bit; count anything
 *  else as spurious; finally call s->unmask. Safe to call with the register model. */
void pmu_sample_on_pmi(struct pmu_sampler *s, const struct pmu_frame *f);

/** PMI count check: @p n_pmi within (@p total / @p period) +- 1. */
bool pmu_sample_pmi_count_ok(uint64_t n_pmi, uint64_t total, uint64_t period);

#define PMU_SKID_BUCKETS 16

/** Histogram of RIP - known_rip. bucket[i]: distance in [i*width, (i+1)*width) bytes. */
struct pmu_skid_hist {
        uint32_t bucket_bytes;
        uint32_t bucket[PMU_SKID_BUCKETS];
        uint32_t n_before;  /* RIP below the overflowing instruction */
        uint32_t n_beyond;  /* past the last bucket */
        uint32_t n;
        uint64_t max_bytes; /* largest non-negative distance */
};

/** Build the skid histogram of @p n samples against the address of the instruction known to
 *  cause the overflow. ST_BAD_ARG for NULL or @p bucket_bytes 0. */
status_t pmu_skid_hist(const struct pmu_sample *s, size_t n, uint64_t known_rip,
                       uint32_t bucket_bytes, struct pmu_skid_hist *out);

/** Caliper's scale estimate: estimate = samples x period; error against the true total in
 *  parts per million (signed). ST_BAD_ARG if @p true_total is 0 or the product overflows. */
status_t pmu_caliper_estimate(uint64_t n_samples, uint64_t period, uint64_t true_total,
                              uint64_t *estimate, int64_t *error_ppm);

/** A symbol: function start address and name (caller-owned strings). */
struct pmu_sym {
        uint64_t    addr;
        const char *name;
};

/** Samples attributed to one function. */
struct pmu_func_count {
        const char *name;
        uint64_t    addr;
        uint64_t    n;
};

/** Attribute each sample to the symbol with the greatest addr <= RIP and return the top
 *  @p cap functions by count (ties: lower address first) in @p out; *n_out = how many.
 *  Samples below every symbol are counted in *n_unknown. Symbols need not be sorted. */
status_t pmu_sample_top(const struct pmu_sample *s, size_t n, const struct pmu_sym *syms,
                        size_t n_syms, struct pmu_func_count *out, size_t cap, size_t *n_out,
                        uint64_t *n_unknown);

/** Print the top list as INFO lines ("  1234  12.5%  bench_chase"). */
void pmu_sample_print_top(const struct pmu_func_count *top, size_t n, uint64_t total);

/** The harness's own functions, addresses relative to the image base: generated at link time
 *  from the first-pass link's `nm` ($(B)/syms_gen.c, tools/gen_syms.py); empty in host
 *  builds and in the first pass (pmu/syms_none.c). */
extern const struct pmu_sym pmu_harness_syms[];
extern const size_t         pmu_harness_n_syms;

/* ---- the run-time driver (app/pmu_sample_run.c) and whether it can run (pmu/sample.c) ---- */

#define PMU_SKID_PERIOD      500     /* retired branches between PMIs in the skid run */
#define PMU_SKID_ITERS       100000  /* iterations of bench_skid_loop: 200 PMIs */
#define PMU_TOP_PERIOD       200000  /* core cycles between PMIs in the report run */
#define PMU_SAMPLE_CAP       4096

/** Pure: can overflow sampling work with the PMU @p c describes? A PMI is recognised (and
 *  acknowledged) through an overflow status: Intel's IA32_PERF_GLOBAL_STATUS exists from
 *  architectural perfmon version 2 ([SDM-3B] "Architectural Performance Monitoring Version
 *  2"); AMD without PerfMonV2 has none either, but the driver reads overflow from the
 *  counter's top bit as Linux amd/core.c does. ST_UNSUPPORTED with a static *@p reason. */
status_t pmu_sample_supported(const struct pmu_caps *c, const char **reason);

#endif
