/** @file The core clock check of the hosted latency run: a chain of dependent register adds,
 *  one core cycle each, timed in TSC ticks, says how many core cycles a TSC tick held while it
 *  ran. It runs before and after the sweep, so the console says whether the core clock moved
 *  during the run (then the run's TSC-tick figures do not compare with another run's). It is
 *  an estimate resting on the add's latency, not a counter: the table's core-cycle figures
 *  stay with the counters of host/perf_clock.c and are null without one.
 *
 *  ADD r64, r64 has a latency of one core cycle on AMD's x86-64 cores since K8 and Intel's
 *  since Core 2 (Agner Fog, "Instruction tables", ADD r,r: latency 1; the Pentium 4's
 *  double-speed ALU is the exception). The added 1 is held in a register: a chain of ADD r64,
 *  imm is not one add per cycle on every core. On the Intel Xeon (family 6 model 0xA7 as its
 *  KVM guest reports it) this check first ran on, 9000 dependent `add $1` took 0.113 TSC ticks
 *  each, where `add %reg`, `xor $1` and `add %self` took 0.650 and a 3-cycle IMUL 1.950, all
 *  three saying 1.54 core cycles per tick: the renamer folds immediate adds there. Each sample
 *  times CHAIN_SHORT or CHAIN_LONG adds between two ordered TSC reads; the difference of the
 *  two (trimmed) means removes the reads' own cost. */
#define _GNU_SOURCE
#include <stdlib.h>

#include "boot/cpu.h"
#include "boot/x86/msr.h"
#include "host/host.h"

#define CHAIN_SHORT 1000u  /* adds: 10 rounds of 100 */
#define CHAIN_LONG  10000u /* 100 rounds */
#define SAMPLES     501u

#if defined(__x86_64__)
/* One chain of @p adds dependent adds (a multiple of 100), in TSC ticks. The loop's counter
 * is a chain of its own, beside the adds'. */
static uint64_t chain_ticks(uint64_t adds)
{
        uint64_t x = 0, one = 1, n = adds / 100, t0 = rdtsc_ordered();

        __asm__ volatile("1:\n\t.rept 100\n\tadd %2, %0\n\t.endr\n\tdec %1\n\tjnz 1b"
                         : "+r"(x), "+r"(n)
                         : "r"(one));
        return rdtsc_ordered() - t0;
}

static int cmp_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
        return x < y ? -1 : x > y;
}

/* The mean of the middle half of @p v[0..SAMPLES) (sorted in place), in milli-ticks: robust
 * to the samples an interrupt lengthened, and finer than one sample's TSC granularity (the
 * TSC of some AMD cores moves in steps of tens of ticks). */
static uint64_t mid_mean_milli(uint64_t *v)
{
        uint64_t sum = 0;
        unsigned a = SAMPLES / 4, b = SAMPLES - SAMPLES / 4;

        qsort(v, SAMPLES, sizeof(v[0]), cmp_u64);
        for (unsigned i = a; i < b; i++)
                sum += v[i];
        return sum * 1000 / (b - a);
}

status_t host_clock_check(uint32_t *core_per_tick_ppm)
{
        uint64_t s[SAMPLES], l[SAMPLES], d;

        for (unsigned i = 0; i < SAMPLES; i++) {
                s[i] = chain_ticks(CHAIN_SHORT);
                l[i] = chain_ticks(CHAIN_LONG);
        }
        uint64_t ms = mid_mean_milli(s), ml = mid_mean_milli(l);
        if (ml <= ms)
                return ST_BAD_DATA;
        d = ml - ms; /* milli-ticks of CHAIN_LONG - CHAIN_SHORT adds */
        *core_per_tick_ppm =
                (uint32_t)(((uint64_t)(CHAIN_LONG - CHAIN_SHORT) * 1000000000u + d / 2) / d);
        return ST_OK;
}
#else
status_t host_clock_check(uint32_t *core_per_tick_ppm)
{
        (void)core_per_tick_ppm;
        return ST_UNSUPPORTED;
}
#endif
