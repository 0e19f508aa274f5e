/** @file
 * Internal to the latency sweep runner (bench/measure.c): its state, and the pieces of CPU
 * work bench/measure_on.c runs on the CPU the config chose (bench_sweep_cfg.run_on).
 */
#ifndef PMUCAL_BENCH_MEASURE_PRIV_H
#define PMUCAL_BENCH_MEASURE_PRIV_H

#include "bench/measure.h"

struct sweep {
        const struct bench_sweep_cfg    *cfg;
        const struct bench_profile_desc *prof;
        struct bench_sweep_info         *info;
        uint8_t                         *buf;
        uint64_t                        *lat;     /* window latencies of one point */
        uint64_t                        *scratch; /* a sorted copy of them */
        uint64_t                         no_warm_bytes; /* 2 x largest cache; 0 = unknown */
        uint64_t                         core_sum, ref_sum; /* core source over the kept
                                                               windows of one point */
        bool                             overhead_done;
        size_t                           lat_cap;  /* windows kept at most (the cap) */
};

/** One point's chain, warm-up and windows on the calling CPU (bench/measure.c). */
status_t bench_sweep_point_here(struct sweep *s, uint64_t ws, struct lat_point *pt);
/** The N/2N overhead figures at the smallest working set, on the calling CPU. */
void bench_sweep_overhead_here(struct sweep *s, uint64_t ws, const struct lat_point *base);

/* On the CPU the config chose (the caller's by default), bench/measure_on.c: */
status_t bench_sweep_point(struct sweep *s, uint64_t ws, struct lat_point *pt);
void     bench_sweep_overhead(struct sweep *s, uint64_t ws, const struct lat_point *base);
void     bench_sweep_prefetch_off(struct sweep *s, const struct cpu_info *cpu);
status_t bench_sweep_prefetch_restore(struct sweep *s);

#endif
