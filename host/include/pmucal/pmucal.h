/** @file
 * libpmucal: read the tables pmucal writes (latency-table.json, tlb-table.json) and sort
 * sampled latencies into their levels and TLB classes. This header is the base of the API:
 * versions, the one error convention, units, text escaping; <pmucal/table.h> (latency
 * tables) and <pmucal/tlb.h> (TLB tables) include it. Build flags: `pkg-config --cflags
 * --libs pmucal`. Example: docs/libpmucal-example.c; reference: docs/libpmucal.md.
 *
 * Conventions of every function:
 * - Errors: each function that can fail returns enum pmucal_err (PMUCAL_OK = 0) and passes
 *   results through out-pointers; a loader also writes a one-line message to a caller's
 *   buffer. Nothing prints, exits or aborts.
 * - Ownership and lifetime: a loader returns a table allocated by the library; every pointer
 *   inside it (strings, arrays, class pointers a classifier returns) stays valid until the
 *   table is freed with its free function, and belongs to the table. Callers never allocate,
 *   copy by value or embed these structures: within a major version of the library fields
 *   are only appended to them.
 * - Strings in a table are as in its file (UTF-8, possibly with control characters): pass
 *   them through pmucal_escape() before printing them to a terminal. NULL means the file said
 *   null (unknown), as 0 does for a number documented as "0 = unknown" below.
 * - Thread safety: no global state. Loading runs in any number of threads at once; a loaded
 *   table is never modified, so any number of threads may classify with it concurrently;
 *   freeing it must not race with its use.
 */
#ifndef PMUCAL_PMUCAL_H
#define PMUCAL_PMUCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version at build time (semantic versioning: the major changes only when the
 * API or ABI breaks; the minor when functions or appended fields are added). */
#define PMUCAL_VERSION_MAJOR 1
#define PMUCAL_VERSION_MINOR 4
#define PMUCAL_VERSION_PATCH 0
#define PMUCAL_VERSION_NUMBER \
        (PMUCAL_VERSION_MAJOR * 10000 + PMUCAL_VERSION_MINOR * 100 + PMUCAL_VERSION_PATCH)

#if defined(__GNUC__)
#define PMUCAL_API __attribute__((visibility("default")))
#else
#define PMUCAL_API
#endif

/** The version of the library linked at run time, as PMUCAL_VERSION_NUMBER (major * 10000 +
 *  minor * 100 + patch): a program built against 1.x runs with any 1.y, y >= x. */
/** What a reader reads an enum value of a later minor version as (docs/versioning.md). */
#define PMUCAL_UNKNOWN "unknown"

PMUCAL_API unsigned pmucal_version(void);

/** The same as text, "1.0.0"; never NULL. */
PMUCAL_API const char *pmucal_version_string(void);

/** Every result of the library. */
enum pmucal_err {
        PMUCAL_OK = 0,
        PMUCAL_E_IO,       /* the file could not be opened or read, or is over 16 MiB */
        PMUCAL_E_SYNTAX,   /* not JSON (or truncated): the message has line:column */
        PMUCAL_E_VERSION,  /* a malformed schema version, or another major (docs/versioning.md) */
        PMUCAL_E_SCHEMA,   /* a field is missing, of the wrong type, out of range or out of
                              order: the message has its JSON path */
        PMUCAL_E_NOMEM,
        PMUCAL_E_ARG,      /* a NULL pointer or an unknown enum value from the caller */
        PMUCAL_E_KIND,     /* not this kind of pmucal table (another schema, or none) */
        PMUCAL_E_RANGE,    /* a latency that is NaN, infinite or negative */
        PMUCAL_E_NO_RATIO, /* the table cannot convert that unit: it has no measured core:TSC
                              ratio (core cycles against TSC figures), or no ns figures */
        PMUCAL_E_NO_CURVE, /* a TLB table has no curve for that side and page size */
        /* library 1.2 */
        PMUCAL_E_UNKNOWN_SOURCE, /* a data source name or encoding pmucal has no source for
                                    (a typo, or an IBS/PEBS encoding of I/O, uncached or
                                    persistent memory) */
        PMUCAL_E_NO_BUCKET,      /* a known source the table has no bucket for ("L3" on a
                                    two-level table, "DRAM-remote-2hop" on a 2-node table) */
};

/** A batch classifier's result for a latency that is NaN, infinite or negative. */
#define PMUCAL_LEVEL_INVALID (-2)

/** Short text for @p e ("syntax error"); never NULL. */
PMUCAL_API const char *pmucal_strerror(enum pmucal_err e);

/** The unit of a latency handed to a classifier. */
enum pmucal_unit {
        PMUCAL_UNIT_TABLE = 0, /* whatever the table's own cycle figures are in (its clock) */
        PMUCAL_UNIT_TSC,       /* TSC ticks (rdtsc differences) */
        PMUCAL_UNIT_CORE,      /* core clock cycles (IBS, PEBS, perf mem latencies) */
        PMUCAL_UNIT_NS,        /* nanoseconds */
};

/** The one version rule of every pmucal schema (docs/versioning.md): @p s must be @p prefix
 *  + "MAJOR" or "MAJOR.MINOR", each decimal, "0" or without a leading zero, at most 9
 *  digits ("pmucal.tlb/1.2" gives 1 and 2, "pmucal.tlb/1" 1 and 0). PMUCAL_E_KIND when @p s
 *  does not start with @p prefix, PMUCAL_E_VERSION when the version is malformed ("1.", "01",
 *  "1.-1", "1x", ""), PMUCAL_E_ARG for NULL. A reader accepts every minor of the major it
 *  knows and ignores members it does not know. @p major, @p minor may be NULL. */
PMUCAL_API enum pmucal_err pmucal_schema_version(const char *s, const char *prefix,
                                                 unsigned *major, unsigned *minor);

/** "table", "tsc", "core", "ns"; "?" for a value outside the enum. */
PMUCAL_API const char *pmucal_unit_name(enum pmucal_unit u);

/** Copy @p src to @p dst (@p cap bytes, always NUL-terminated when @p cap > 0) with every
 *  byte that could act on a terminal escaped: control characters as \n, \t, \r or \xHH, a
 *  backslash as \\, bytes that are not valid UTF-8 and C1 controls as \xHH. Returns the
 *  length of the whole escaped text, as snprintf does. */
PMUCAL_API size_t pmucal_escape(char *dst, size_t cap, const char *src);

#ifdef __cplusplus
}
#endif

#endif
