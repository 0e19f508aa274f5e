/** @file
 * The measured latency curve shared by the sweep (bench/) and its analysis (report/).
 * Latencies are integers in milli-cycles (1/1000 of a core cycle) so that firmware and host
 * compute identical bits; nanoseconds are derived with the clock frequency in the curve.
 * Portable: no UEFI types.
 */
#ifndef PMUCAL_LATENCY_H
#define PMUCAL_LATENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"

/** Which clock the cycle figures were taken with. */
enum lat_clock {
        LAT_CLOCK_TSC = 0,       /* TSC ticks, reported as cycles at the TSC rate */
        LAT_CLOCK_TSC_APERF,     /* TSC ticks scaled by APERF/MPERF to core cycles */
        LAT_CLOCK_PMU_CYCLES,    /* core cycles from the PMU fixed/core cycle counter */
};

/** One working-set size of a sweep. */
struct lat_point {
        uint64_t ws_bytes;    /* working set */
        uint32_t n_windows;   /* windows kept */
        uint32_t n_disturbed; /* windows dropped (SMI count moved, interrupts could not be masked) */
        uint64_t min_mcyc;    /* latency per load, milli-cycles */
        uint64_t p10_mcyc;
        uint64_t p50_mcyc;
        uint64_t p90_mcyc;
};

/** A whole sweep plus what is needed to interpret it. */
struct lat_curve {
        struct lat_point *pts;       /* ascending ws_bytes; owned by whoever filled it */
        size_t            n;
        enum lat_clock    clock;
        uint64_t          core_hz;   /* core clock the cycles are in (0 = unknown) */
        uint64_t          tsc_hz;
};

const char *lat_clock_name(enum lat_clock c);

#endif
