/** @file
 * Measurement windows: the cycle source (struct bench_clock), the guard that decides whether
 * a window was disturbed (SMI count, interrupt masking, N/2N consistency), and the reduction
 * of one window's raw counts to a per-load latency in milli-cycles.
 *
 * Clock: the windows are timed in ticks of the architecture's reference timer: the TSC on
 * x86-64, the generic timer's CNTVCT_EL0 (at CNTFRQ_EL0) on AArch64; "TSC" below names
 * either (the tables keep their _tsc member names). Around every window a core-clock source, where
 * one is readable (APERF/MPERF; a PMU core-cycle counter or the hosted build's perf_event
 * cycles, installed by the caller), gives the core:TSC ratio of that window, so that each
 * figure can be written in TSC ticks, core cycles and ns; where none is readable the clock
 * says why and the core figures stay unknown. The guard reads Intel's SMI count only after it
 * proved readable once, and only outside the timed runs. Both registers are read through
 * boot/x86/coreclk.h. The clock and the guard's probes are per architecture
 * (bench/x86/window_x86.c, bench/arm64/window_arm64.c); the arithmetic is shared.
 */
#ifndef PMUCAL_BENCH_WINDOW_H
#define PMUCAL_BENCH_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/status.h"
#include "boot/cpu_info.h"
#include "bench/latency.h"

/** A core-clock source: a cumulative count of core cycles and one of a reference that runs at
 *  the TSC rate, read together outside the timed runs (APERF and MPERF; a PMU cycles counter
 *  and the TSC; perf_event cycles and the TSC). Their deltas over a window are its core:TSC
 *  ratio. MPERF counts at the TSC rate on Intel and at P0 on AMD, the TSC rate of every Zen. */
struct bench_core_src {
        const char *name;  /* "APERF/MPERF", "PMU fixed counter 1", "perf_event cycles";
                              NULL: no core clock readable */
        status_t (*read)(void *ctx, uint64_t *core, uint64_t *ref);
        void       *ctx;
        const char *why_none; /* name NULL: why not (static text, for the table and console) */
        uint32_t    ppm_max;  /* the largest plausible ratio; 0: BENCH_CORE_PPM_MAX (a generic
                                 timer may tick 100x slower than the core) */
};

/** Where the figures come from. */
struct bench_clock {
        enum lat_clock kind;
        /** Timestamp taken at both ends of a timed run, ordered against the loads.
         *  NULL = rdtsc_ordered(). */
        uint64_t (*stamp)(void *ctx);
        void    *ctx;
        const char *timer;        /* the reference timer: "TSC", "CNTVCT_EL0" */
        struct bench_core_src core; /* read around every window; name NULL = none */
        uint64_t tsc_hz;  /* TSC frequency measured against plat_stall_us */
        uint64_t core_hz; /* core clock over the calibration stalls; 0 = unknown */
};

/** Core:TSC ratios outside 1/8 .. 8 are taken as a failed reading (a source may allow more:
 *  bench_core_src.ppm_max). The generic timer runs at 1 MHz .. 1 GHz (QEMU: 62.5 MHz) under
 *  cores of up to a few GHz: up to BENCH_CORE_PPM_MAX_TIMER there. */
#define BENCH_CORE_PPM_MIN       125000u
#define BENCH_CORE_PPM_MAX       8000000u
#define BENCH_CORE_PPM_MAX_TIMER 1024000000u

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
        uint64_t core_d, ref_d;    /* core-clock source deltas over the window (0, 0: none) */
        uint32_t ppm_max;          /* the source's ppm_max (0: BENCH_CORE_PPM_MAX) */
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

/** Set up the clock for @p cpu. x86-64: TSC stamps; APERF/MPERF as the core source where CPUID says
 *  they exist and both read through rdmsr_safe, else none (why_none says why; a caller with
 *  another source installs it in clk->core afterwards). Measures tsc_hz (and core_hz where a
 *  source reads) against plat_stall_us: the shortest of up to twenty stalls of @p calib_us /
 *  5, leaving out those during which @p g's steal count moved (@p g may be NULL). AArch64:
 *  CNTVCT_EL0 stamps at CNTFRQ_EL0 (the architecture's own statement of the rate), no core
 *  source at this layer (the caller installs the PMU's cycle counter). */
void bench_clock_init(struct bench_clock *clk, const struct cpu_info *cpu, uint32_t calib_us,
                      const struct bench_guard *g);

/** The reference timer now, ordered against the loads before and after it (rdtsc_ordered on
 *  x86-64, CNTVCT_EL0 with DSB/ISB on AArch64): the default stamp of the TLB kernels. */
uint64_t bench_timer_now(void);

/** The core source over a span longer than a window (a whole calibration). */
struct bench_core_span {
        uint64_t core0, ref0;
        bool     ok;
};

/** Read @p src at the start of a span (nothing when it has no reader). */
void bench_core_span_begin(const struct bench_core_src *src, struct bench_core_span *sp);
/** Read it again: core cycles per 10^6 reference ticks over the span, 0 when unknown or
 *  outside BENCH_CORE_PPM_MIN .. _MAX. */
uint32_t bench_core_span_end(const struct bench_core_src *src, struct bench_core_span *sp);

/** Probe the guard: the SMI count on Intel, whether interrupts can be masked (IF on x86-64,
 *  DAIF on AArch64). */
void bench_guard_init(struct bench_guard *g, const struct cpu_info *cpu);

/** Read the SMI count (0 when it is not proven); outside timed runs only. */
uint64_t bench_guard_smi(const struct bench_guard *g);
/** Read the guard's steal count (0 when it has none); outside timed runs only. */
uint64_t bench_guard_steal(const struct bench_guard *g);

/** Pure: classify @p w. A window is inconsistent when |t_2n - 2 t_n| exceeds t_n / 8 plus
 *  @p slack_ticks (the timer overhead), which catches an interrupt in either run. */
enum bench_disturb bench_window_check(const struct bench_window *w, uint64_t slack_ticks);

/** Pure: latency per load in milli-units of the stamp (TSC milli-ticks),
 *  (t_2n - t_n) * 1000 / @p n_loads. ST_BAD_ARG when @p n_loads is 0 or t_2n < t_n. */
status_t bench_window_latency(const struct bench_window *w, uint64_t n_loads,
                              uint64_t *lat_mcyc);

/** Pure: core cycles per 10^6 reference ticks over @p w (core_d * 10^6 / ref_d); 0 when the
 *  window has no core reading or the ratio lies outside BENCH_CORE_PPM_MIN .. its ppm_max. */
uint32_t bench_window_core_ppm(const struct bench_window *w);

/** Pure: the overhead N/2N removes, 2 t_n - t_2n in milli-cycles of the clock (signed). */
int64_t bench_window_overhead_mcyc(const struct bench_window *w);

/** Name of a disturbance reason; never NULL. */
const char *bench_disturb_name(enum bench_disturb d);

#endif
