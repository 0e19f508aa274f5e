/** @file
 * One run of the harness, shared by the phases in app/: the effective config, the run's name
 * and results folder, the console capture that becomes report.txt, and the result files the
 * phases produce (saved together at the end, so a read-only volume loses nothing that was
 * printed). Portable.
 */
#ifndef PMUCAL_RUN_H
#define PMUCAL_RUN_H

#include "app/config.h"
#include "boot/plat.h"
#include "report/rep.h"

#define RUN_MAX_FILES 16
#define REPORT_NAME   "report.txt" /* the console text, saved and uploaded beside the files */
#define RUN_NAME_MAX  9999 /* <time>-01 .. <time>-9999; past that no name is free */

struct run_file {
        const char    *name; /* "inventory.json" (static string) */
        struct rep_buf data;
};

struct inventory;
struct lat_levels;
struct lat_numa_in;
struct lat_c2c_in;
struct lat_numa_in;
struct lat_c2c_in;

struct run {
        struct pmucal_config cfg;
        char                 name[40];     /* 20261123-081500-01 */
        char                 dir[80];      /* pmucal/results/<name> */
        char                 dir_shown[84];/* \pmucal\results\<name>\ as the firmware shell shows it */
        bool                 no_name;      /* every name for this second was taken: not saved */
        struct rep_buf       console;      /* everything printed: report.txt */
        struct run_file      files[RUN_MAX_FILES];
        unsigned             n_files;
        struct inventory    *inv;          /* filled by the inventory phase */
        struct lat_levels   *levels;       /* filled by the latency phase (NULL if it did not
                                            * run); later phases bucket sampled latencies */
        const struct lat_numa_in *numa_result; /* filled by the NUMA phase (NULL if it did not
                                                * run): the table's remote-DRAM sections */
        const struct lat_c2c_in  *c2c_result;  /* filled by the C2C phase: the "c2c" section */
};

/** Hand a finished result file to the run (takes ownership of @p data's memory; freed with
 *  the run's other files by run_files_free). app/results.c */
status_t run_add_file(struct run *r, const char *name, struct rep_buf *data);
/** Free the data of every file handed to the run and forget them. */
void run_files_free(struct run *r);

/** Name the run "<YYYYMMDD-HHMMSS>-NN" (or "noclock-NN") with the first counter whose folder
 *  does not exist; sets r->no_name when all RUN_NAME_MAX are taken (app/results.c). */
void run_name(struct run *r);
/** Save every result file and report.txt into the run's folder, all or nothing: checked for
 *  room first, read back after, removed again on any failure. Prints the one closing line
 *  ("RESULTS: saved to ..." or "RESULTS NOT SAVED: why"). ST_OK when saved. */
status_t run_save(struct run *r);

/* Phases (each prints its own report and adds its files); the table in app/pmucal.c says
 * which profiles run which phase, in this order. */
status_t phase_selftest(struct run *r);
status_t phase_inventory(struct run *r);
/* >>> further phases: one declaration each, added by the phase's owner */
/** Cache-to-cache transfers between pairs of processors; c2c.json (app/c2c.c). */
status_t phase_c2c(struct run *r);
/** NUMA latency matrix: every CPU node against every memory node, distance classes, SLIT
 *  and HMAT checks; numa-matrix.json (app/numa.c). */
status_t phase_numa(struct run *r);
/** Latency calibration: sweep, levels, latency-table.json and latency-curve.csv (app/latency.c);
 *  sets r->levels. */
status_t phase_latency(struct run *r);
/** The page size the latency phase's sweep maps its DRAM points with for this run's profile
 *  and latency_pages (app/latency.c); the NUMA phase chases on the same. */
enum plat_page_kind lat_dram_page(const struct run *r);
/** TLB calibration: with the harness's own page tables where CR3 can be loaded, else on the
 *  platform's mapping (app/x86/tlb.c, app/arm64/tlb.c, app/tlb_platmap.c). */
status_t phase_tlb(struct run *r);
/** Core PMU capabilities, counting validation and overflow sampling (app/x86/pmu.c). */
status_t phase_pmu(struct run *r);
/** Precise sampling (IBS, PEBS load latency, LBR cycles) validated against the chase and a
 *  fixed-cost kernel; sampling-validation.json, sampling-report.txt (app/x86/sampling.c). */
status_t phase_sampling(struct run *r);

#endif
