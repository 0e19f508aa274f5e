/** @file The core clock from a dependent-add chain (see bench/clock_chain.h). */
#include "bench/clock_chain.h"

#include "bench/window.h"
#include "lib/stats.h"

#define CHAIN_SHORT_ROUNDS 10u  /* x BENCH_ADD_CHAIN_ADDS_PER_ROUND adds */
#define CHAIN_LONG_ROUNDS  100u
#define SAMPLES            501u

/* The mean of the middle half of @p v[0..SAMPLES) (sorted in place), in milli-ticks: robust
 * to the samples an interrupt lengthened, finer than one sample's timer granularity. */
static uint64_t mid_mean_milli(uint64_t *v)
{
        uint64_t sum = 0;
        unsigned a = SAMPLES / 4, b = SAMPLES - SAMPLES / 4;

        lib_sort_u64(v, SAMPLES);
        for (unsigned i = a; i < b; i++)
                sum += v[i];
        return sum * 1000 / (b - a);
}

status_t bench_add_chain_ppm(uint32_t *core_per_tick_ppm)
{
        static uint64_t s[SAMPLES], l[SAMPLES];
        uint64_t        d, ms, ml;

        for (unsigned i = 0; i < SAMPLES; i++) {
                uint64_t t0 = bench_timer_now();
                bench_add_chain(CHAIN_SHORT_ROUNDS);
                uint64_t t1 = bench_timer_now();
                bench_add_chain(CHAIN_LONG_ROUNDS);
                uint64_t t2 = bench_timer_now();
                s[i] = t1 - t0;
                l[i] = t2 - t1;
        }
        ms = mid_mean_milli(s);
        ml = mid_mean_milli(l);
        if (ml <= ms)
                return ST_BAD_DATA;
        d                  = ml - ms; /* milli-ticks of (LONG - SHORT) rounds of adds */
        *core_per_tick_ppm = (uint32_t)(((uint64_t)(CHAIN_LONG_ROUNDS - CHAIN_SHORT_ROUNDS) *
                                         BENCH_ADD_CHAIN_ADDS_PER_ROUND *
                                         1000000000u + d / 2) / d);
        return ST_OK;
}
