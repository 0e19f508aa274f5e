/** @file
 * libpmucal: read a pmucal latency table (latency-table.json, schema
 * "pmucal.latency-table/1", docs/latency-table.md) and sort sampled load latencies into its
 * levels (L1, L2, L3, DRAM) the way a profiler's cache report buckets them. Host library (libc
 * and jansson); link with -lpmucal -ljansson.
 *
 *     struct pmucal_table *t; char err[256];
 *     if (pmucal_table_load("latency-table.json", &t, err, sizeof(err)) != PMUCAL_OK)
 *             fprintf(stderr, "%s\n", err);   // "latency-table.json:12:5: levels[1].cycles.p50: ..."
 *     int lvl = pmucal_table_classify_cycles(t, 37.5);   // t->levels[lvl].name == "L3"
 *     pmucal_table_free(t);
 *
 * Unknown fields are ignored (later minor additions such as "tlb"); another major version of
 * the schema is rejected. Error messages start with the file name, then line:column where
 * the JSON parser knows it, or the JSON path of the offending field.
 */
#ifndef PMUCAL_TABLE_H
#define PMUCAL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PMUCAL_TABLE_SCHEMA_PREFIX "pmucal.latency-table/"
#define PMUCAL_TABLE_MAJOR         1

/** Results of the loader. */
enum pmucal_err {
        PMUCAL_OK = 0,
        PMUCAL_E_IO,      /* the file could not be opened or read */
        PMUCAL_E_SYNTAX,  /* not JSON (or truncated): err has line:column */
        PMUCAL_E_VERSION, /* a malformed schema version, or another major version */
        PMUCAL_E_SCHEMA,  /* a field is missing, of the wrong type or out of range: err has its path */
        PMUCAL_E_NOMEM,
        PMUCAL_E_ARG,     /* NULL arguments */
        PMUCAL_E_KIND,    /* not this kind of pmucal table (another schema, or none) */
};

/** A latency distribution (cycles or ns). */
struct pmucal_stat {
        double min, p10, p50, p90;
};

struct pmucal_level {
        char               name[16];             /* "L1" .. "DRAM", or "flat" */
        uint64_t           capacity_bytes;       /* 0 = none (the last level) */
        uint64_t           cpuid_capacity_bytes; /* 0 = no corresponding CPUID cache */
        unsigned           cpuid_level;          /* 0 = none */
        char               agreement[16];        /* "agrees", "smaller", "larger", "no-cpuid" */
        struct pmucal_stat cycles;
        bool               has_ns;
        struct pmucal_stat ns;
        bool               has_upper;            /* false for the last level */
        double             upper_cycles;         /* bucket upper bound (inclusive) */
        double             upper_ns;             /* valid when has_ns */
};

struct pmucal_table {
        char   schema[64];
        int    major;
        /* machine key */
        char     vendor[16];
        unsigned family, model, stepping;
        char     brand[64];
        bool     has_microcode;
        uint64_t microcode;
        uint64_t core_hz, tsc_hz;           /* 0 = unknown */
        char     smbios_manufacturer[64];   /* "" = unknown */
        char     smbios_product[64];
        unsigned nodes;                     /* 0 = unknown */
        /* method */
        char     kernel[32], layout[32], clock[32], prefetchers[32], pmucal_version[64];
        uint64_t page_bytes;
        unsigned windows;
        /* levels, fastest first */
        size_t               n_levels;
        struct pmucal_level *levels;
        unsigned             n_flags;
        char                 flags[16][32];  /* "no_hierarchy", "noisy", ... (first 16) */
        bool                 has_tlb;        /* a "tlb" member is present (pmucal_tlb_load reads it) */
};

/** Load and validate the table in file @p path. On success *@p out is a new table (free with
 *  pmucal_table_free); on failure *@p out is NULL and @p err (if not NULL) holds a one-line
 *  message naming the file and the position or field. */
enum pmucal_err pmucal_table_load(const char *path, struct pmucal_table **out, char *err,
                                  size_t errlen);

/** As pmucal_table_load from @p len bytes at @p buf (need not be NUL-terminated); @p name
 *  is used in messages in place of a file name. */
enum pmucal_err pmucal_table_load_buf(const char *buf, size_t len, const char *name,
                                      struct pmucal_table **out, char *err, size_t errlen);

/** Free a table (NULL is ignored). */
void pmucal_table_free(struct pmucal_table *t);

/** Index of the level a load latency of @p cycles belongs to: the first level whose upper
 *  bound is >= @p cycles, else the last. -1 for NULL, an empty table or a NaN latency. */
int pmucal_table_classify_cycles(const struct pmucal_table *t, double cycles);

/** As pmucal_table_classify_cycles for a latency in nanoseconds; -1 when the table has no ns
 *  figures (core clock unknown). */
int pmucal_table_classify_ns(const struct pmucal_table *t, double ns);

/** True when the table carries flag @p name ("no_hierarchy", "noisy", ...). */
bool pmucal_table_has_flag(const struct pmucal_table *t, const char *name);

/** Parse schema string @p s of the form @p prefix + "MAJOR" or "MAJOR.MINOR" (decimal, "0" or
 *  no leading zero, at most 9 digits each), the one version rule of every pmucal schema:
 *  "pmucal.tlb/1.2" gives 1 and 2, "pmucal.tlb/1" 1 and 0. Returns 0, or -1 when @p s does
 *  not start with @p prefix or the version is malformed ("1.", "01", "1.-1", "1x", "").
 *  A reader accepts any minor of the major it knows and ignores members it does not know. */
int pmucal_schema_version(const char *s, const char *prefix, long *major, long *minor);

/** Short text for @p e ("syntax error"); never NULL. */
const char *pmucal_strerror(enum pmucal_err e);

/** Copy @p src to @p dst (@p cap bytes, always NUL-terminated when @p cap > 0) with every
 *  byte that could act on a terminal escaped: control characters as \n, \t, \r or \xHH,
 *  a backslash as \\, bytes that are not valid UTF-8 and C1 controls as \xHH. Returns the
 *  length of the whole escaped text (as snprintf). Strings in a table are as in its file:
 *  escape them before printing them. */
size_t pmucal_escape(char *dst, size_t cap, const char *src);

#ifdef __cplusplus
}
#endif

#endif
