/** @file
 * The AArch64 layout of struct bench_ownpt (the interface: bench/ownpt.h): nothing. The
 * harness has no AArch64 translation-table builder and boot/ loads no other tables
 * (cpu_page_tables_load: ST_UNSUPPORTED), so a buffer keeps the firmware's mapping.
 */
#ifndef PMUCAL_BENCH_ARM64_OWNPT_TYPES_H
#define PMUCAL_BENCH_ARM64_OWNPT_TYPES_H

/** Nothing is built: the struct only lets shared code hold one. */
struct bench_ownpt {
        unsigned n_built; /* always 0 */
};

#endif
