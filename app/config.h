/** @file
 * The optional run configuration, pmucal/pmucal.cfg on the boot volume: `key = value` lines,
 * '#' or ';' comments (a whole line, or trailing after whitespace), blank lines, LF or CR LF,
 * optional double quotes around a value. Keys and symbolic values are matched without regard
 * to ASCII case. Every key has a default, so a missing or broken file still gives a complete
 * configuration: a bad line is reported in a diagnostic and ignored, the rest applies.
 * Portable (lives in boot/ but uses no UEFI types); the file is read by the caller.
 *
 *     struct pmucal_config cfg; struct config_diag d[8]; size_t n;
 *     st = config_parse(text, len, &cfg, d, 8, &n);   // ST_BAD_DATA: see d[0 .. min(n,8)-1]
 *
 * Adding a key is one row in the key table in config.c plus one field here.
 */
#ifndef PMUCAL_CONFIG_H
#define PMUCAL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"

struct json_w;

#define CONFIG_PATH      "pmucal/pmucal.cfg"
#define CONFIG_MAX_LINE  512          /* bytes, without the line end */
#define CONFIG_MAX_BYTES (64 * 1024)  /* config_parse reads up to this many bytes; the
                                       * harness does not read a larger file at all */
#define CONFIG_MSG_MAX   640          /* bytes in config_diag.msg, NUL included: a whole
                                        * CONFIG_MAX_LINE value quoted, and the words */

/** What is measured (the run plan picks the sweeps from it). */
enum config_profile {
        CONFIG_PROFILE_QUICK = 0,
        CONFIG_PROFILE_FULL,
        CONFIG_PROFILE_PMU,
        CONFIG_PROFILE_SAMPLING,
        CONFIG_PROFILE_TLB,
};

/** What the application does when it is done. */
enum config_on_exit {
        CONFIG_EXIT_RETURN = 0, /* return to the firmware (boot manager / shell) */
        CONFIG_EXIT_SHUTDOWN,
        CONFIG_EXIT_REBOOT,
};

/** A switch whose default is decided at run time. */
enum config_auto {
        CONFIG_AUTO = 0,
        CONFIG_ON,
        CONFIG_OFF,
};

/** Hardware prefetchers during calibration. */
enum config_prefetch {
        CONFIG_PREFETCH_KEEP = 0, /* leave them as firmware set them */
        CONFIG_PREFETCH_OFF,      /* turn off where a documented control exists */
};

/** Which processors take part. */
enum config_cpus {
        CONFIG_CPUS_ALL = 0,
        CONFIG_CPUS_BSP,
        CONFIG_CPUS_LIST,   /* those in pmucal_config.cpu_list (and the BSP, which runs the
                             * harness) */
};

#define CONFIG_CPUS_MAX_RANGES 16u

/** `cpus = 0,2,4-7`: APIC IDs and inclusive ranges of them, in the order given. */
struct config_cpu_list {
        unsigned n;
        uint32_t lo[CONFIG_CPUS_MAX_RANGES], hi[CONFIG_CPUS_MAX_RANGES];
};

/** Page size of the latency calibration's buffer. */
enum config_pages {
        CONFIG_PAGES_AUTO = 0, /* the profile's: quick 4 KiB, full and sampling 2 MiB, mapped
                                * as the firmware's identity map has it */
        CONFIG_PAGES_4K,       /* 4 KiB, through the harness's own page tables if need be */
        CONFIG_PAGES_2M,       /* 2 MiB, likewise */
};

/** Level calibration per core type / cache domain (app/latency_sets.c). */
enum config_level_sets {
        CONFIG_SETS_AUTO = 0, /* once more for each core type or cache geometry the BSP's
                               * does not share (hybrid parts, differing L3 domains) */
        CONFIG_SETS_DOMAINS,  /* once more for every last-level-cache domain, even when its
                               * geometry is the BSP's */
        CONFIG_SETS_OFF,      /* the BSP's levels only */
};

/** The effective settings. Filled by config_defaults or config_parse. */
#define CONFIG_URL_MAX 96 /* collector = URL: the longest URL, NUL included */

struct pmucal_config {
        enum config_profile  profile;       /* default quick */
        enum config_on_exit  on_exit;       /* default return */
        bool                 serial;        /* also write the serial port; default on */
        enum config_auto     debug_exit;    /* QEMU isa-debug-exit; auto = only under QEMU */
        enum config_prefetch prefetchers;   /* default off */
        uint32_t             repetitions;   /* 11..1001, default 11 */
        uint32_t             sweep_max_mib; /* largest working set; 0 = auto */
        enum config_cpus     cpus;          /* default all */
        struct config_cpu_list cpu_list;    /* cpus = list: the APIC IDs asked for */
        bool                 results;       /* write result files; default on */
        bool                 crash_test;    /* end the self-test with an unhandled #UD, to
                                             * check the crash path; default off */
        enum config_pages    latency_pages; /* latency buffer page size; default auto */
        enum config_level_sets level_sets;  /* default auto */
        bool                 collector_set; /* collector = URL given (not off) */
        char                 collector[CONFIG_URL_MAX]; /* "http://HOST[:PORT][/PATH]" */
        uint32_t             upload_tries;    /* tries of the upload, 1..10; default 3 */
        uint32_t             upload_pause_ms; /* pause after the first failed try, doubling
                                               * after each next one; default 1000 */
        uint32_t             from_file;     /* bit i: key table row i was set by the file */
        /* Not keys of the file: what pmucal-host's command line adds (--layout, --seed). */
        uint32_t             latency_layout; /* the chain's enum bench_layout; 0 = random */
        bool                 latency_seed_set;
        uint64_t             latency_seed;   /* the chain's seed when set, else pmucal's */
        uint32_t             numa_ws_mib;    /* NUMA buffer per node; 0 = from the caches */
        uint32_t             numa_load_ms;   /* loaders' time per point; 0 = the phase's */
        enum config_pages    tlb_pages;      /* --tlb --page: the TLB sweeps of that page size
                                              * alone; auto = every sweep of the profile */
};

/** Kinds of problems config_parse reports. */
enum config_diag_kind {
        CONFIG_DIAG_MALFORMED = 0, /* not `key = value`, or an unterminated quote */
        CONFIG_DIAG_UNKNOWN_KEY,
        CONFIG_DIAG_BAD_VALUE,     /* not one of the allowed values, or out of range */
        CONFIG_DIAG_DUPLICATE,     /* key already set by an earlier line; the earlier wins */
        CONFIG_DIAG_TOO_LONG,      /* line longer than CONFIG_MAX_LINE */
        CONFIG_DIAG_BINARY,        /* NUL or another control byte */
        CONFIG_DIAG_TOO_LARGE,     /* file larger than CONFIG_MAX_BYTES; the rest is ignored */
        CONFIG_DIAG_ENCODING,      /* UTF-16 text (a byte order mark, or every other byte 0):
                                    * one diagnostic for the file, which is not read */
        CONFIG_DIAG__COUNT
};

/** One problem: where, what kind, and a message naming the key and value. */
struct config_diag {
        unsigned              line; /* 1-based */
        enum config_diag_kind kind;
        char                  msg[CONFIG_MSG_MAX];
};

/** Parse @p s[0..@p n) as a list of APIC IDs and ranges ("0, 2, 4-7"; decimal, at most
 *  CONFIG_CPUS_MAX_RANGES items, a range's end not below its start); false if it is not one. */
/** Is @p s[0..n) a collector URL pmucal can use: http://HOST[:PORT][/PATH]? */
bool config_url_ok(const char *s, size_t n);

bool config_cpus_parse(const char *s, size_t n, struct config_cpu_list *out);

/** How many items @p s[0..@p n) lists when it is a list of APIC IDs and ranges but for their
 *  number (any count); 0 when it is not such a list. */
unsigned config_cpus_count(const char *s, size_t n);
/** True when @p apic_id is in the list. */
bool config_cpus_has(const struct config_cpu_list *l, uint32_t apic_id);
/** The list as the config writes it ("0,2,4-7") into @p buf; returns @p buf. */
const char *config_cpus_text(const struct config_cpu_list *l, char *buf, size_t cap);

/** Fill @p cfg with the defaults (nothing from the file). */
void config_defaults(struct pmucal_config *cfg);

/** Parse @p len bytes of @p text (need not be NUL-terminated; NULL when @p len is 0) into
 *  @p cfg, which is first reset to the defaults. Problems go to @p diags (up to @p max_diags
 *  written; @p diags may be NULL when @p max_diags is 0); @p *n_diags (if not NULL) receives
 *  how many there were, also those not written. Returns ST_OK, ST_BAD_DATA when there was any
 *  diagnostic (@p cfg is still complete and valid), or ST_BAD_ARG for NULL arguments. */
status_t config_parse(const char *text, size_t len, struct pmucal_config *cfg,
                      struct config_diag *diags, size_t max_diags, size_t *n_diags);

/** True when @p key was set by the file (false for unknown keys). */
bool config_from_file(const struct pmucal_config *cfg, const char *key);
/** Number of keys: the bits pmucal_config.from_file may hold are 0 .. config_n_keys() - 1. */
size_t config_n_keys(void);

/** Short name of a diagnostic kind ("unknown key"); never NULL. */
const char *config_diag_kind_str(enum config_diag_kind kind);

/** rep_printf the effective settings, one line each, saying whether each came from the file
 *  or is the default. */
void config_print(const struct pmucal_config *cfg);

/** Write the settings as a JSON object named @p key (NULL inside an array or at the top),
 *  with a "from_file" array listing the keys the file set. */
void config_to_json(struct json_w *w, const char *key, const struct pmucal_config *cfg);

#endif
