/** @file
 * The counting validation suite: which counters to believe. A const table of checks
 * {name, event, kernel, how the truth is known, tolerance and why}; a pure verdict function
 * that prints `PASS|FAIL <check> measured=<m> expected=<e> tolerance=<t>` through rep_check
 * (SKIP with the reason through rep_skip) and the pmu-validation.json writer; and the
 * run-time driver that measures each check with interrupts off, several times.
 */
#ifndef PMUCAL_VALIDATE_H
#define PMUCAL_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

#include "../report/rep.h"
#include "pmu.h"

/** How a check's expected count is known. */
enum pmu_truth {
        TRUTH_LOOP_INSNS,     /* bench_loop, two lengths: 2 instructions per iteration */
        TRUTH_LOOP_BRANCHES,  /* bench_loop, two lengths: 1 branch per iteration */
        TRUTH_MISPREDICT,     /* random pattern minus always-taken: 1/2 per byte */
        TRUTH_FIXED_EQ_GP,    /* a fixed counter against its general-counter twin */
};

struct pmu_check {
        const char    *name;       /* "insts-loop" */
        const char    *alias;      /* portable alias counted on a general counter */
        const char    *fixed_event;/* TRUTH_FIXED_EQ_GP: perf name of the fixed event */
        const char    *kernel;     /* what runs */
        enum pmu_truth truth;
        uint32_t       tol_ppm;    /* tolerance, parts per million of expected */
        uint64_t       tol_abs;    /* plus an absolute tolerance */
        const char    *rationale;  /* why that tolerance */
};

extern const struct pmu_check pmu_checks[];
extern const size_t           pmu_n_checks;

/** Outcome of one check. */
struct pmu_result {
        const struct pmu_check *check;
        status_t                st;        /* ST_OK: measured; ST_UNSUPPORTED: skipped */
        const char             *reason;    /* skip or error reason (static text) */
        uint64_t                measured, expected;
        unsigned                n_runs;
};

/** Tolerance of @p c at @p expected: tol_abs + expected * tol_ppm / 1e6. */
uint64_t pmu_check_tolerance(const struct pmu_check *c, uint64_t expected);

/** True when |measured - expected| <= tolerance. */
bool pmu_check_pass(const struct pmu_check *c, uint64_t measured, uint64_t expected);

/** Print one line per result (rep_check / rep_skip) and return the number of failures. */
unsigned pmu_validate_report(const struct pmu_result *r, size_t n);

/** Write the results as JSON ("pmucal.pmu-validation/1") into @p out. */
status_t pmu_validate_json(const struct pmu_result *r, size_t n, const struct pmu_caps *caps,
                           struct rep_buf *out);

/** Run the whole suite on this CPU (@p ci describes it): pmu_init, each check @p reps times
 *  with interrupts off (median kept), the report lines, and pmu-validation.json under
 *  @p results_dir. Without a PMU every check SKIPs with the reason. ST_OK unless the JSON
 *  could not be written (a failing check is not an error). */
status_t pmu_validate_run(const struct cpu_info *ci, const char *results_dir, unsigned reps);

#endif
