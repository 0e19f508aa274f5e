/** @file
 * libpmucal internals shared by the latency-table and TLB-table loaders and classifiers
 * (host/libpmucal_common.c): one size limit and one file reader for every table, one schema
 * version rule (docs/versioning.md), error messages made safe to print, the pool that owns a
 * table's strings and arrays, the clock rules that convert a caller's unit, and the one
 * JSON-reading kit every loader (latency table, its remote sections, TLB table, c2c.json and
 * numa-matrix.json) uses (host/libpmucal_json.c: a context carrying the file name, the JSON
 * path of the field being read, the first error, the table's pool and the count of a later
 * minor's enum values, and one getter per kind of field that checks presence, type and
 * range). Not installed; every symbol here is hidden from the shared library.
 */
#ifndef PMUCAL_LIBPMUCAL_PRIV_H
#define PMUCAL_LIBPMUCAL_PRIV_H

#include <stdarg.h>
#include <stddef.h>

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "host/include/pmucal/pmucal.h"
#include "host/include/pmucal/table.h"
#include "host/libpmucal_rules.h"

#define PMUCAL_HIDDEN __attribute__((visibility("hidden")))

/** Largest table file any loader reads (the same limit for every subcommand). */
#define PMUCAL_MAX_FILE PMUCAL_RULE_MAX_FILE_BYTES

/** Read the whole file @p path (at most PMUCAL_MAX_FILE bytes) into a new buffer (free()).
 *  On failure a message "PATH: ..." is in @p err. */
PMUCAL_HIDDEN enum pmucal_err pmucal__read_file(const char *path, char **buf, size_t *len,
                                                char *err, size_t errlen);

struct pmucal__ctx;

/** No such member (an offset of struct pmucal__doc). */
#define PMUCAL__NONE ((size_t)-1)

/** One kind of document the library loads: the struct a loader returns is a new zeroed
 *  @p size bytes, filled from the JSON root by @p fill and freed by @p free when @p fill fails
 *  or an error is recorded. The offsets say where in it the kit keeps the document's string
 *  pool (struct pmucal__pool *) and counts a later minor's enum values (size_t n_unknown and
 *  char unknown_first[PMUCAL_UNKNOWN_FIRST]); PMUCAL__NONE where it does neither. */
struct pmucal__doc {
        size_t size;
        size_t pool;
        size_t n_unknown, unknown_first;
        bool (*fill)(struct pmucal__ctx *c, json_t *root, void *doc);
        void (*free)(void *doc);
};

/** The one body of every pmucal_*_load_buf(buf, len, name, out, err, errlen): *@p out set to
 *  NULL, @p err cleared, PMUCAL_E_ARG for a NULL @p out or a NULL @p buf with @p len; @p buf
 *  parsed (duplicate keys refused; a syntax error as "NAME:LINE:COLUMN: text"), a new @p d
 *  document filled from it at *(void **)@p out; every message escaped for a terminal. */
PMUCAL_HIDDEN enum pmucal_err pmucal__load_doc(const struct pmucal__doc *d, const char *buf,
                                               size_t len, const char *name, void *out,
                                               char *err, size_t errlen);

/** The one body of every pmucal_*_load(path, out, err, errlen): *@p out set to NULL, @p err
 *  cleared, PMUCAL_E_ARG for a NULL @p path or @p out, the file read (pmucal__read_file; its
 *  message escaped) and loaded by pmucal__load_doc with @p path as its name. */
PMUCAL_HIDDEN enum pmucal_err pmucal__load_doc_path(const struct pmucal__doc *d,
                                                    const char *path, void *out, char *err,
                                                    size_t errlen);

/** Write "NAME: PATH: message" to @p err (@p errlen bytes; nothing when NULL or 0), without
 *  "PATH: " when @p path is NULL or empty: the message format of every loader. */
PMUCAL_HIDDEN void pmucal__format_err(char *err, size_t errlen, const char *name,
                                      const char *path, const char *fmt, va_list ap);

/** Check the schema string @p s against "@p prefix <major>[.<minor>]" (docs/versioning.md).
 *  PMUCAL_OK with *@p minor set (0 when absent) when the major is @p major; PMUCAL_E_KIND
 *  when @p s does not start with @p prefix; PMUCAL_E_VERSION when the version is malformed or
 *  another major. The reason goes to @p msg, quoting @p s as given. */
PMUCAL_HIDDEN enum pmucal_err pmucal__schema_version(const char *s, const char *prefix,
                                                     unsigned major, unsigned *minor, char *msg,
                                                     size_t msglen);

/** Escape @p err in place (pmucal_escape), so that a message quoting a file's text can be
 *  printed to a terminal; truncated to @p errlen with "..." when it grows too long. */
PMUCAL_HIDDEN void pmucal__escape_msg(char *err, size_t errlen);

/** Memory a table owns: every block is freed with the table. */
struct pmucal__pool;

/** @p n zeroed bytes owned by *@p pool (NULL when out of memory). */
PMUCAL_HIDDEN void *pmucal__pool_alloc(struct pmucal__pool **pool, size_t n);

/** A copy of @p s owned by *@p pool (NULL when out of memory). */
PMUCAL_HIDDEN char *pmucal__pool_strdup(struct pmucal__pool **pool, const char *s);

/** Free everything in @p pool (NULL is ignored). */
PMUCAL_HIDDEN void pmucal__pool_free(struct pmucal__pool *pool);

/** The unit a table's figures are in, from its clock name (method.clock): "tsc" TSC ticks;
 *  "tsc-aperf-mperf", "pmu-core-cycles" core cycles; anything else (or NULL) unknown
 *  (PMUCAL_UNIT_TABLE). */
PMUCAL_HIDDEN enum pmucal_unit pmucal__clock_unit(const char *clock);

/** What a table knows about its clocks. */
struct pmucal__clocks {
        enum pmucal_unit cycles_unit;    /* the figures' unit: TSC, CORE or TABLE (unknown) */
        bool             core_measured;  /* core_hz is a measured core rate */
        uint64_t         tsc_hz, core_hz;/* 0 = unknown */
        double           core_per_tsc;   /* the table's core:TSC ratio (any source); 0 none */
};

/** Convert @p v from @p from to @p to: identity within one clock (TABLE is cycles_unit), else
 *  through seconds with the rates the table knows (a core rate only when measured).
 *  PMUCAL_E_NO_RATIO when a rate is missing, PMUCAL_E_ARG for a unit outside the enum. */
PMUCAL_HIDDEN enum pmucal_err pmucal__convert(const struct pmucal__clocks *c, double v,
                                              enum pmucal_unit from, enum pmucal_unit to,
                                              double *out);

/** True when @p v is a latency a classifier accepts: finite and not negative. */
PMUCAL_HIDDEN bool pmucal__latency_ok(double v);

/* ---- the JSON-reading kit of every loader (host/libpmucal_json.c) ----
 *
 * One context per document read: the file name, the JSON path of the field being read, the
 * first error (kept; later failures are ignored), the pool that owns what is copied out, and
 * where a later minor's enum values are counted. Every message is "NAME: PATH: complaint",
 * PATH the full JSON path of the field ("numa.dram_levels[1].name", "curves[0].side"), left
 * out where it is empty. Getters take the object and the member's key: they check presence,
 * type and range, put the key on the path only while failing, and return false (or NULL)
 * once an error is recorded. */

#define PMUCAL_MAX_STRING PMUCAL_RULE_MAX_STRING_BYTES
#define PMUCAL_UNKNOWN_FIRST 160 /* bytes of a loader's unknown_first */

struct pmucal__ctx {
        struct pmucal__pool **pool;  /* the table's pool (NULL for loaders that own no pool) */
        const char           *name;  /* file name for messages */
        char                 *err;
        size_t                errlen;
        char                  path[192];
        size_t                root;  /* length of the prefix pmucal__at() keeps ("tlb") */
        enum pmucal_err       e;
        size_t               *n_unknown;     /* a later minor's enum values: counted here, */
        char                 *unknown_first; /* the first named (PMUCAL_UNKNOWN_FIRST bytes) */
};

/** Record the first error: @p e and "NAME: PATH: message" (without "PATH: " when the path is
 *  empty). Returns false, so that `return pmucal__fail(...)` ends a getter. */
PMUCAL_HIDDEN bool pmucal__fail(struct pmucal__ctx *c, enum pmucal_err e, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/** Append ".key" or "[i]" to the path; pmucal__pop(c, returned length) restores it. */
PMUCAL_HIDDEN size_t pmucal__push_key(struct pmucal__ctx *c, const char *key);
PMUCAL_HIDDEN size_t pmucal__push_idx(struct pmucal__ctx *c, size_t i);
PMUCAL_HIDDEN void   pmucal__pop(struct pmucal__ctx *c, size_t n);

/** Set the path to the root prefix (if any) followed by the formatted text. */
PMUCAL_HIDDEN void pmucal__at(struct pmucal__ctx *c, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

/** "an object", "a string", ... for messages. */
PMUCAL_HIDDEN const char *pmucal__type_name(const json_t *v);

/** Member @p key of @p obj, which must be present unless @p optional. */
PMUCAL_HIDDEN json_t *pmucal__member(struct pmucal__ctx *c, json_t *obj, const char *key,
                                     bool optional);

/** Member @p key of type @p type (JSON_REAL: any number; JSON_TRUE: a boolean), present;
 *  JSON null is returned as is when @p nullable. NULL after failing. */
PMUCAL_HIDDEN json_t *pmucal__get(struct pmucal__ctx *c, json_t *obj, const char *key,
                                  json_type type, bool nullable);

/** The object @p v itself at the current path (an array element): false after failing. */
PMUCAL_HIDDEN bool pmucal__is_obj(struct pmucal__ctx *c, const json_t *v);

/** An object member (NULL for null when @p nullable). */
PMUCAL_HIDDEN json_t *pmucal__get_obj(struct pmucal__ctx *c, json_t *obj, const char *key,
                                      bool nullable);

/** A string member copied into the pool; NULL for null when @p nullable. */
PMUCAL_HIDDEN bool pmucal__get_str(struct pmucal__ctx *c, json_t *obj, const char *key,
                                   bool nullable, const char **dst);

/** A string member copied into @p dst (@p cap bytes); one that does not fit is an error. */
PMUCAL_HIDDEN bool pmucal__get_str_buf(struct pmucal__ctx *c, json_t *obj, const char *key,
                                       char *dst, size_t cap);

/** A non-negative integer member up to @p max; 0 for null when @p nullable, and then a 0 in
 *  the file is an error (unknown is written null). */
PMUCAL_HIDDEN bool pmucal__get_u64(struct pmucal__ctx *c, json_t *obj, const char *key,
                                   bool nullable, uint64_t max, uint64_t *out);

/** A boolean member. */
PMUCAL_HIDDEN bool pmucal__get_bool(struct pmucal__ctx *c, json_t *obj, const char *key,
                                    bool *out);

/** A finite number in 0..1e12 (the value itself, at the current path). */
PMUCAL_HIDDEN bool pmucal__check_num(struct pmucal__ctx *c, json_t *v, double *out);

/** A number member in 0..1e12; NAN for null or absent when @p nullable. */
PMUCAL_HIDDEN bool pmucal__get_num(struct pmucal__ctx *c, json_t *obj, const char *key,
                                   bool nullable, double *out);

/** A {min, p10, p50, p90} member, ascending. */
PMUCAL_HIDDEN bool pmucal__get_stat(struct pmucal__ctx *c, json_t *obj, const char *key,
                                    struct pmucal_stat *s);

/** As pmucal__get_stat, null allowed: *@p has says whether it was given. */
PMUCAL_HIDDEN bool pmucal__get_stat_opt(struct pmucal__ctx *c, json_t *obj, const char *key,
                                        struct pmucal_stat *s, bool *has);

/** Enum member @p key: the index of its value in @p known (@p n_known names). A value not in
 *  @p known is, when the context counts unknown values (n_unknown set: an enum a minor may
 *  grow, docs/versioning.md), @p n_known, counted and the first named; else an error saying
 *  it is not @p what. -1 after failing. */
PMUCAL_HIDDEN int pmucal__get_enum(struct pmucal__ctx *c, json_t *obj, const char *key,
                                   const char *const *known, size_t n_known, const char *what);

/** Enum member @p key into @p dst (@p cap bytes): one of @p known, or PMUCAL_UNKNOWN for a
 *  value a later minor added (counted by the kit, pmucal__get_enum). False after failing. */
PMUCAL_HIDDEN bool pmucal__get_name(struct pmucal__ctx *c, json_t *obj, const char *key,
                                    const char *const *known, size_t n_known, char *dst,
                                    size_t cap);

/** The "levels" array and "bucket_upper_bounds" of @p obj (the table's top level, or a level
 *  set) into t->levels / t->n_levels, checked as the top level's are (host/libpmucal.c). */
PMUCAL_HIDDEN bool pmucal__load_levels(struct pmucal__ctx *c, json_t *obj, struct pmucal_table *t);
/** The optional "core_types" section (1.4) into t->core_sets (host/libpmucal_sets.c). */
PMUCAL_HIDDEN bool pmucal__load_core_sets(struct pmucal__ctx *c, json_t *root,
                                          struct pmucal_table *t);

/* ---- a level's figures and bounds by unit (host/libpmucal_units.c) ---- */

/** Level object @p o's figures in each unit into @p u (after @p l's cycles and ns are read):
 *  tsc_ticks and core_cycles (null or absent: none), the p50 intervals. */
PMUCAL_HIDDEN bool pmucal__load_level_units(struct pmucal__ctx *c, json_t *o,
                                            const struct pmucal_level *l,
                                            struct pmucal_level_units *u);

/** method.core_clock of @p root into @p t's core ratio fields (host/libpmucal_clock.c),
 *  after the machine and method are read. */
PMUCAL_HIDDEN void pmucal__load_core_clock(struct pmucal__ctx *c, json_t *root,
                                           struct pmucal_table *t);

/** The clocks of @p t for pmucal__convert. */
PMUCAL_HIDDEN struct pmucal__clocks pmucal__table_clocks(const struct pmucal_table *t);

/** bucket_upper_bounds (@p bo) in each unit into @p lu (t->n_levels entries): cycles is
 *  required; a unit whose bounds are null or absent has its figures cleared (has = false). */
PMUCAL_HIDDEN bool pmucal__load_unit_bounds(struct pmucal__ctx *c, json_t *bo,
                                            struct pmucal_table *t,
                                            struct pmucal_level_units *lu);

/** The bounds a classifier compares a latency in @p unit with: @p upper[i] for the
 *  n_levels - 1 levels with a bound, and the last level's ceiling. Each the table's own in
 *  @p unit where the level has it, else converted from the cycle figures with the table's
 *  overall ratio (PMUCAL_E_NO_RATIO when it cannot be). */
PMUCAL_HIDDEN enum pmucal_err pmucal__unit_bounds(const struct pmucal_table *t,
                                                  enum pmucal_unit unit, double *upper,
                                                  bool *has_ceiling, double *ceiling);

#endif
