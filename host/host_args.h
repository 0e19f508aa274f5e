/** @file
 * pmucal-host's command line: one option table for the latency run (--with-c2c, --with-numa,
 * --with-tlb), the TLB calibration (--tlb), the cache-to-cache run (--c2c), the NUMA run (--numa) and the
 * inventory (--inventory), the mode flag in any position, strict number
 * parsing (a usage error names the option and its allowed range), and --help generated from
 * the same table so it lists every option. Host only (host/host_args.c).
 */
#ifndef PMUCAL_HOST_ARGS_H
#define PMUCAL_HOST_ARGS_H

#include <stdbool.h>
#include <stdio.h>

#include "bench/c2c.h"
#include "bench/chase_job.h"
#include "bench/measure.h"

#define HOST_ARGS_OK    0
#define HOST_ARGS_HELP  1 /* --help printed to stdout: exit 0 */
#define HOST_ARGS_USAGE 2 /* a usage error printed to stderr: exit 2 */

#define HOST_TLB_PAGE_4K 1u
#define HOST_TLB_PAGE_2M 2u

enum host_mode {
        HOST_MODE_LATENCY = 0, /* the latency sweep (default) */
        HOST_MODE_TLB,         /* --tlb: the TLB calibration (app/x86/tlb.c's phase) */
        HOST_MODE_C2C,         /* --c2c: cache-to-cache latency (app/c2c.c's phase) */
        HOST_MODE_NUMA,        /* --numa: the NUMA matrix, loaded latency, bandwidth
                                  (app/numa.c's phase) */
        HOST_MODE_INVENTORY,   /* --inventory: the firmware's inventory phase
                                  (host/inventory_host.c) */
};

/** What pmucal-host was asked to do. */
struct host_opts {
        char                   cmdline[512]; /* the arguments as given, for the report */
        enum host_mode         mode;
        const char            *out;          /* --out DIR; NULL: not given */
        const char            *cpuid_dump;   /* --inventory --cpuid-dump FILE; NULL: this CPU */
        const char            *acpi_dir;     /* --inventory --acpi-dir DIR; NULL: sysfs */
        unsigned               cpu;
        bool                   full;         /* --full (default) or --quick */
        unsigned               tlb_pages;    /* --tlb --page: HOST_TLB_PAGE_* bits */
        unsigned               rounds;       /* --c2c --rounds */
        bool                   with_c2c;     /* --with-c2c: the latency table's c2c section */
        bool                   with_numa;    /* --with-numa: the latency table's numa section */
        bool                   with_tlb;     /* --with-tlb: the TLB phase after the sweep */
        unsigned               numa_ws_mib;  /* --numa --ws-mib; 0 = from the caches */
        unsigned               numa_windows; /* --numa --windows */
        unsigned               numa_load_ms; /* --numa --load-ms */
        struct bench_sweep_cfg sweep;        /* the latency sweep's settings */
};

/** Parse @p argv into @p o (defaults first). HOST_ARGS_OK, HOST_ARGS_HELP or
 *  HOST_ARGS_USAGE; messages go to @p err (stderr) and the help to stdout. @p n_cpus bounds
 *  --cpu (0 .. n_cpus - 1). */
int host_args_parse(int argc, char **argv, unsigned n_cpus, struct host_opts *o, FILE *err);

#endif
