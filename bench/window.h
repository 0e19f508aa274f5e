/** @file
 * Measurement windows: the cycle source (struct bench_clock), the guard that decides whether
 * a window was disturbed (SMI count, interrupt masking, N/2N consistency), and the reduction
 * of one window's raw counts to a per-load latency in milli-cycles.
 *
 * Clock: TSC by default; TSC scaled by APERF/MPERF where CPUID.06H:ECX[0] says they exist
 * and both MSRs read back; a later PMU core-cycle source plugs in through the @c stamp hook.
 * The guard reads Intel's SMI count only after it proved readable once, and only outside the
 * timed runs. Both registers are read through boot/x86/coreclk.h.
 */
#ifndef PMUCAL_BENCH_WINDOW_H
#define PMUCAL_BENCH_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/status.h"
#include "boot/x86/cpuid.h"
#include "bench/latency.h"

/** Where the cycle figures come from. */
struct bench_clock {
        enum lat_clock kind;
        /** Timestamp taken at both ends of a timed run, ordered against the loads.
         *  NULL = rdtsc_ordered(). The PMU module installs a core-cycle reader here. */
        uint64_t (*stamp)(void *ctx);
        /** Cumulative ratio counters (APERF, MPERF) read outside the timed runs; the stamp
         *  difference is multiplied by d(num)/d(den). NULL = no scaling. */
        status_t (*scale)(void *ctx, uint64_t *num, uint64_t *den);
        void    *ctx;
        uint64_t tsc_hz;  /* TSC frequency measured against plat_stall_us */
        uint64_t core_hz; /* frequency of the cycles reported (= tsc_hz for LAT_CLOCK_TSC) */
};

/** A count the platform keeps of events that steal the CPU from a window (the hosted build:
 *  context switches of this thread), read outside the timed runs; NULL = none. */
typedef uint64_t (*bench_steal_count_fn)(void *ctx);

/** Optional calls at both ends of every window, with interrupts masked and outside the timed
 *  runs: the firmware run switches CR3 to the harness's own page tables and back here, so
 *  that bench/ stays platform-free. Neither may allocate or print. */
struct bench_window_hooks {
        status_t (*enter)(void *ctx); /* not ST_OK: the window ends with that status */
        void (*leave)(void *ctx);     /* undoes a successful enter */
        void *ctx;
        uint64_t refill_iters;        /* untimed iterations after enter, refilling the TLB
                                         the switch emptied (the sweep sets it per working
                                         set, bench_refill_iters); 0: the window's iters */
};

/** What the guard knows; filled once by bench_guard_init. */
struct bench_guard {
        bool                      smi_count_ok; /* MSR_SMI_COUNT proved readable */
        bool                      irq_maskable; /* cpu_irq_disable() really masked interrupts */
        bench_steal_count_fn      steal_count;  /* set by the caller after bench_guard_init */
        void                     *steal_ctx;
        struct bench_window_hooks hooks;        /* likewise; zeroed: none */
};

/** Raw counts of one window. */
struct bench_window {
        uint64_t t_n, t_2n;        /* stamp differences of the N and the 2N run */
        uint64_t scale_num, scale_den; /* counter deltas over the window (1, 1 if none) */
        uint64_t smi_before, smi_after;
        uint64_t steal_before, steal_after; /* guard's steal_count, 0 when it has none */
        bool     irq_masked;
};

/** Why a window is dropped (bench_window_check). */
enum bench_disturb {
        BENCH_WIN_OK = 0,
        BENCH_WIN_SMI,          /* the SMI count moved during the window */
        BENCH_WIN_INCONSISTENT, /* the 2N run is not about twice the N run */
        BENCH_WIN_NOT_MONOTONIC,/* 2N run not longer than the N run (counter wrap, migration) */
        BENCH_WIN_STOLEN,       /* the platform's steal count moved (descheduled, hosted) */
        BENCH_WIN__COUNT
};

/** Choose the clock for @p cpu: TSC_APERF where CPUID says APERF/MPERF exist and both read
 *  through rdmsr_safe, else TSC. Measures tsc_hz (and core_hz) against plat_stall_us: the
 *  shortest of up to twenty stalls of @p calib_us / 5, leaving out those during which @p g's
 *  steal count moved (@p g may be NULL). Never fails: the fallback is plain TSC. */
void bench_clock_init(struct bench_clock *clk, const struct cpu_info *cpu, uint32_t calib_us,
                      const struct bench_guard *g);

/** Probe the guard: the SMI count on Intel, whether interrupts can be masked. */
void bench_guard_init(struct bench_guard *g, const struct cpu_info *cpu);

/** Read the SMI count (0 when it is not proven); outside timed runs only. */
uint64_t bench_guard_smi(const struct bench_guard *g);
/** Read the guard's steal count (0 when it has none); outside timed runs only. */
uint64_t bench_guard_steal(const struct bench_guard *g);

/** Pure: classify @p w. A window is inconsistent when |t_2n - 2 t_n| exceeds t_n / 8 plus
 *  @p slack_ticks (the timer overhead), which catches an interrupt in either run. */
enum bench_disturb bench_window_check(const struct bench_window *w, uint64_t slack_ticks);

/** Pure: latency per load in milli-cycles, ((t_2n - t_n) * num / den) * 1000 / @p n_loads.
 *  ST_BAD_ARG when @p n_loads is 0, den is 0 or t_2n < t_n. */
status_t bench_window_latency(const struct bench_window *w, uint64_t n_loads,
                              uint64_t *lat_mcyc);

/** Pure: the overhead N/2N removes, 2 t_n - t_2n in milli-cycles of the clock (signed). */
int64_t bench_window_overhead_mcyc(const struct bench_window *w);

/** Name of a disturbance reason; never NULL. */
const char *bench_disturb_name(enum bench_disturb d);

#endif
