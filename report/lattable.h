/** @file
 * Outputs of the latency calibration: latency-table.json (schema "pmucal.latency-table/1.6",
 * documented field by field in docs/latency-table.md), latency-curve.csv (every sweep point),
 * the console levels table and an ASCII plot of the curve readable on a serial console. All
 * writers append text to a caller's struct rep_buf (the caller writes it to a file or prints
 * it with rep_printf("%s", b.p)); they are pure functions of their arguments.
 *
 *     struct lat_table_meta m = { .kernel = "pointer-chase", ... };
 *     rep_lat_meta_from_cpu(&m, &cpu);
 *     lv_detect(&curve, &cpu, &lv);
 *     rep_lat_json(&b, &m, &curve, &lv, NULL, 0);   // then plat_file_write("latency-table.json", ...)
 */
#ifndef PMUCAL_LATTABLE_H
#define PMUCAL_LATTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/plat.h"
#include "lib/status.h"
#include "boot/cpu_info.h"
#include "report/json.h"
#include "bench/latency.h"
#include "analysis/levels.h"
#include "report/rep.h"

/** Schema name and version (docs/schemas/latency-table.schema.json). Fields are only ever
 *  added within a major version (the minor counts the additions: 1.1 added method.date_zone
 *  and null for every unknown string; 1.2 the clock: every figure in TSC ticks, core cycles
 *  and ns, method.core_clock, the intervals and the adaptive-window figures; 1.3 the
 *  remote-DRAM and cache-to-cache sections of report/lattable_numa.h; 1.5 method.
 *  buffer_reduced with the flag buffer_reduced, and method.core_clock.estimate); readers
 *  ignore fields they do not know and reject another major version. */
#define LAT_TABLE_SCHEMA       "pmucal.latency-table/1.6"
#define LAT_TABLE_SCHEMA_MAJOR 1

/** Header line of latency-curve.csv for a curve in TSC ticks (every sweep pmucal runs): the
 *  first seven columns are those of schema 1.0's file, in TSC milli-ticks. */
#define LAT_CSV_HEADER \
        "ws_bytes,n_windows,n_disturbed,min_mtick,p10_mtick,p50_mtick,p90_mtick,p50_tsc_ticks," \
        "p50_ns,p50_core_cycles,core_per_tsc,p50_lo_mtick,p50_hi_mtick,n_measured"
/** The same for a curve in core cycles (a core-cycle stamp). */
#define LAT_CSV_HEADER_CORE \
        "ws_bytes,n_windows,n_disturbed,min_mcyc,p10_mcyc,p50_mcyc,p90_mcyc,p50_tsc_ticks," \
        "p50_ns,p50_core_cycles,core_per_tsc,p50_lo_mcyc,p50_hi_mcyc,n_measured"

/** Machine key and method of a table, filled by the caller. Strings may be NULL (written as
 *  null); they are not copied and must outlive the writer call. */
struct lat_table_meta {
        /* machine key */
        const char *vendor;          /* CPUID vendor string, "AuthenticAMD" */
        uint32_t    family, model, stepping; /* display values */
        const char *brand;
        bool        microcode_valid; /* false: microcode not readable, written as null */
        uint64_t    microcode;
        uint64_t    tsc_hz;          /* 0 = unknown (null) */
        const char *smbios_manufacturer;
        const char *smbios_product;
        uint32_t    n_nodes;         /* NUMA nodes; 0 = unknown (null) */
        bool        hypervisor;
        /* method */
        const char *kernel;          /* "pointer-chase" */
        const char *layout;          /* "random", "page-groups", "stride" */
        uint64_t    page_bytes;      /* page size the buffer was backed with */
        const char *page_tables;     /* whose page tables mapped it ("firmware identity map");
                                        NULL: member left out */
        uint32_t    n_windows;       /* repetitions per point (at least) */
        uint32_t    max_windows;     /* adaptive cap; 0 = not recorded (null) */
        uint32_t    passes;          /* interleaved passes over the points; 0 = not recorded */
        uint32_t    ci_permille;     /* adaptive target, +/- per mille of p50; 0 = none */
        size_t      n_settled;       /* points whose p50 met it */
        size_t      n_remeasured;    /* outlier points measured again */
        uint32_t    loads_per_window;/* N of the N/2N difference; 0 = not recorded */
        enum lat_clock clock;
        const char *timer_name;      /* method.clock for figures in ticks of the reference
                                        timer: NULL = "tsc"; "cntvct" on AArch64 (CNTVCT_EL0
                                        at CNTFRQ_EL0, which machine.tsc_hz then holds) */
        uint64_t    buffer_planned_bytes; /* the sweep buffer planned, where it could not be
                                            had (0: the buffer was as planned, member left out) */
        uint64_t    buffer_bytes;    /* ... and the one measured in */
        const char *buffer_why;      /* why the planned one could not be had */
        const char *prefetchers;     /* "off", "on", "unchanged", "failed", "unknown" */
        const char *pmucal_version;
        const char *platform;        /* plat_info()->name */
        const char *date;            /* UTC, "2024-05-01T12:00:00Z" (rep_lat_date_utc); NULL = unknown */
        const char *date_zone;       /* how date relates to UTC (rep_lat_date_utc); NULL = unknown */
};

/** Format wall-clock time @p t as UTC, "YYYY-MM-DDTHH:MM:SSZ", into @p buf (>= 21 bytes).
 *  Returns the words for method.date_zone: "utc" (the clock keeps UTC), "firmware-offset"
 *  (the firmware named its offset from UTC; converted with local = UTC + offset),
 *  "assumed-utc" (the firmware names no zone: its clock is taken as UTC, as QEMU's and a
 *  Linux-managed RTC keep it; a machine whose RTC keeps local time is off by its offset).
 *  NULL, and @p buf empty, when @p t is NULL, not valid or out of range. */
const char *rep_lat_date_utc(const struct plat_time *t, char *buf, size_t n);
/** The table's name of clock @p c ("tsc", ...); "unknown" for a value it has none for. */
const char *rep_lat_clock_name(enum lat_clock c);

/** An extra top-level section ("tlb", later "remote", "c2c") written by another module into
 *  the same document: @p write emits members of the top-level object through @p w. */
struct lat_json_section {
        void (*write)(struct json_w *w, void *ctx);
        void *ctx;
};

/** Fill the machine-key CPU fields of @p m (vendor, family, model, stepping, brand,
 *  hypervisor) from @p cpu; the strings point into @p cpu. */
void rep_lat_meta_from_cpu(struct lat_table_meta *m, const struct cpu_info *cpu);

/** Append latency-table.json for @p l (detected on @p c) to @p out, followed by @p n_extra
 *  extra sections. ST_BAD_ARG for NULL arguments or l->n == 0; ST_NO_MEM. */
status_t rep_lat_json(struct rep_buf *out, const struct lat_table_meta *m,
                      const struct lat_curve *c, const struct lat_levels *l,
                      const struct lat_json_section *extra, size_t n_extra);

/** Append latency-curve.csv (LAT_CSV_HEADER or, for a core-cycle curve, LAT_CSV_HEADER_CORE,
 *  then one line per point; p50 in TSC ticks, ns and core cycles with 3 decimals, each empty
 *  when it cannot be known; core_per_tsc with 6) to @p out. */
status_t rep_lat_csv(struct rep_buf *out, const struct lat_curve *c);

/** Append the console levels table (one line per level with capacity and its interval,
 *  p50 in ns first, then in TSC ticks with the confidence interval, core cycles, bounds,
 *  flags). */
status_t rep_lat_levels_text(struct rep_buf *out, const struct lat_curve *c,
                             const struct lat_levels *l);

/** Width and height of the ASCII plot area in characters (axes and labels come on top). */
#define LAT_PLOT_W 60
#define LAT_PLOT_H 20

/** Append an ASCII plot of @p c (log2 working set across, log2 latency up; '*' = p50,
 *  ':' = p10..p90), capacities marked on the x axis, bucket bounds as '-' rows and level
 *  names at the right. @p l may be NULL (curve only). */
status_t rep_lat_plot(struct rep_buf *out, const struct lat_curve *c, const struct lat_levels *l);

#endif
