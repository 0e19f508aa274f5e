/** @file
 * The measured latency curve shared by the sweep (bench/) and its analysis (report/).
 * Latencies are integers in milli-units (1/1000) of the clock the curve names, so that
 * firmware and host compute identical bits: TSC milli-ticks for every sweep pmucal runs now
 * (LAT_CLOCK_TSC); older curves and tests may be in core milli-cycles. Each point carries the
 * core:TSC ratio measured over its windows where a core clock was readable; the conversions
 * below turn a figure into TSC ticks, core cycles and ns, or say it cannot be done.
 * Portable: no UEFI types.
 */
#ifndef PMUCAL_LATENCY_H
#define PMUCAL_LATENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"

/** Which clock the figures were taken with. */
enum lat_clock {
        LAT_CLOCK_TSC = 0,       /* TSC ticks */
        LAT_CLOCK_TSC_APERF,     /* TSC ticks scaled by APERF/MPERF to core cycles */
        LAT_CLOCK_PMU_CYCLES,    /* core cycles from the PMU fixed/core cycle counter */
};

/** One working-set size of a sweep. */
struct lat_point {
        uint64_t ws_bytes;    /* working set */
        uint32_t n_windows;   /* windows kept */
        uint32_t n_disturbed; /* windows dropped (SMI count moved, interrupts could not be masked) */
        uint64_t min_mcyc;    /* latency per load, milli-units of the curve's clock */
        uint64_t p10_mcyc;
        uint64_t p50_mcyc;
        uint64_t p90_mcyc;
        uint64_t p50_lo_mcyc; /* 95 % confidence interval of p50 (order statistics of the */
        uint64_t p50_hi_mcyc; /* kept windows); 0, 0 = not computed */
        uint32_t core_ppm;    /* core cycles per 10^6 TSC ticks over the kept windows;
                                 0 = no core clock read */
        uint32_t n_measured;  /* times the point was measured (> 1: re-measured as an
                                 outlier); 0 counts as 1 */
};

/** A whole sweep plus what is needed to interpret it. */
struct lat_curve {
        struct lat_point *pts;       /* ascending ws_bytes; owned by whoever filled it */
        size_t            n;
        enum lat_clock    clock;
        uint64_t          core_hz;   /* measured core clock (tsc_hz x core_ppm); 0 = unknown */
        uint64_t          tsc_hz;
        uint32_t          core_ppm;  /* median core:TSC ratio of the points, per 10^6;
                                        0 = unknown */
        uint32_t          core_ppm_lo, core_ppm_hi; /* smallest and largest point ratio */
        const char       *core_source; /* "APERF/MPERF", ...; NULL = none was readable */
        const char       *core_why;  /* core_ppm 0: why (static text) */
        const char       *timer;     /* the reference timer's name for text: "TSC",
                                        "CNTVCT_EL0" (AArch64); NULL = "TSC" */
        /* where no counter read the core clock (core_ppm 0): an estimate of the ratio */
        uint32_t          est_ppm;   /* core cycles per 10^6 TSC ticks; 0 = none */
        uint32_t          est_ppm_lo, est_ppm_hi; /* its spread (the runs) */
        const char       *est_method; /* "dependent-add chain" */
};

/** The clocks of a table whose figures are TSC milli-ticks (the TLB table): the TSC rate and
 *  the core:TSC ratio measured over the calibration, or why there is none. */
struct lat_clock_desc {
        uint64_t    tsc_hz;      /* 0 = unknown */
        uint32_t    core_ppm;    /* core cycles per 10^6 TSC ticks; 0 = unknown */
        const char *core_source; /* "APERF/MPERF", ...; NULL = none */
        const char *core_why;    /* core_ppm 0: why (static text) */
};

/** Core milli-cycles of @p mticks TSC milli-ticks at @p ppm core cycles per 10^6 ticks. */
static inline uint64_t lat_ticks_to_core(uint64_t mticks, uint32_t ppm)
{
        return (uint64_t)(((unsigned __int128)mticks * ppm + 500000u) / 1000000u);
}

/** TSC milli-ticks of @p mcyc core milli-cycles; 0 when @p ppm is 0. */
static inline uint64_t lat_core_to_ticks(uint64_t mcyc, uint32_t ppm)
{
        return ppm ? (uint64_t)(((unsigned __int128)mcyc * 1000000u + ppm / 2) / ppm) : 0;
}

/** Picoseconds of @p milli milli-units of a clock of @p hz (0 when @p hz is 0). */
static inline uint64_t lat_milli_to_ps(uint64_t milli, uint64_t hz)
{
        return hz ? (uint64_t)(((unsigned __int128)milli * 1000000000u + hz / 2) / hz) : 0;
}

#endif
