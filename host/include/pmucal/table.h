/** @file
 * libpmucal, latency tables: read a pmucal latency table (latency-table.json, schema
 * "pmucal.latency-table/1", docs/latency-table.md) and sort sampled load latencies into its
 * levels (L1, L2, L3, DRAM) the way a profiler's cache report buckets them. Conventions
 * (errors, ownership, threads): <pmucal/pmucal.h>.
 *
 *     struct pmucal_table *t; char err[256]; int lvl;
 *     if (pmucal_table_load("latency-table.json", &t, err, sizeof(err)) != PMUCAL_OK)
 *             fprintf(stderr, "%s\n", err);   // "latency-table.json: levels[1].cycles.p50: ..."
 *     if (pmucal_table_classify(t, 37.5, PMUCAL_UNIT_TABLE, &lvl) == PMUCAL_OK)
 *             puts(lvl == PMUCAL_LEVEL_BEYOND ? "beyond" : t->levels[lvl].name);
 *     pmucal_table_free(t);
 *
 * Units: the cycle figures of a table are in the clock its method.clock names
 * (cycles_unit: TSC ticks for "tsc", core cycles for "tsc-aperf-mperf" and
 * "pmu-core-cycles"). Tables of schema 1.2 and later also give every level's figures and the
 * bucket bounds in each unit (levels[].tsc_ticks, .core_cycles, .ns and
 * bucket_upper_bounds.tsc_ticks, .core_cycles, .ns; level_units below). A latency in TSC
 * ticks, core cycles or ns is compared with that unit's own bounds, so that each level's own
 * core:TSC ratio is kept. Only where a level lacks that unit (a 1.0/1.1 table; a table whose
 * bounds in that unit are null) is its bound converted from the cycle figures with the
 * table's overall ratio (machine.core_hz / machine.tsc_hz of a table whose clock measured the
 * core clock; the TSC rate for ns); a bound that cannot be converted either way makes the
 * classifier return PMUCAL_E_NO_RATIO.
 *
 * The core clock (library 1.2): has_core_ratio and core_per_tsc come, first found, from a
 * table whose clock counted core cycles (core_hz / tsc_hz), from method.core_clock.core_per_tsc
 * (a counter read around every window: APERF/MPERF, a PMU cycle counter, perf cycles), or from
 * method.core_clock.estimate (schema 1.5: a dependent-add chain timed in TSC ticks where no
 * counter was readable; core_ratio_estimated, with its spread); core_ratio_source says which.
 * pmucal_table_set_core_ratio overrides them all. With a ratio, core cycles convert to and from
 * TSC ticks and ns; without one, core cycles on a "tsc" table are PMUCAL_E_NO_RATIO.
 */
#ifndef PMUCAL_TABLE_H
#define PMUCAL_TABLE_H

#include "pmucal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PMUCAL_TABLE_SCHEMA_PREFIX "pmucal.latency-table/"
#define PMUCAL_TABLE_MAJOR         1

/** Classifier result besides a level index (and PMUCAL_LEVEL_INVALID of a batch). */
#define PMUCAL_LEVEL_BEYOND (-1) /* above the last level, which is not DRAM (no_dram, flat,
                                    buffer_reduced) */

/** The last level's ceiling, for a table whose last level is not DRAM: this factor times its
 *  p90. A level 1.3x above it would have been a level of its own (level detection merges
 *  plateaus less than 1.3x apart), so a latency above it is not in the table. */
#define PMUCAL_CEILING_FACTOR 1.3

/** The largest core:TSC ratio read or accepted (a generic timer at 1 MHz under a 1 GHz core
 *  gives 1000). */
#define PMUCAL_MAX_CORE_PER_TSC 4096.0

/** core_ratio_source of a ratio the caller set. */
#define PMUCAL_CORE_RATIO_OVERRIDE "override"

/** A latency distribution (cycles or ns). */
struct pmucal_stat {
        double min, p10, p50, p90;
};

struct pmucal_level {
        const char        *name;                 /* "L1" .. "DRAM", or "flat" */
        uint64_t           capacity_bytes;       /* 0 = null (the last level) */
        uint64_t           cpuid_capacity_bytes; /* 0 = null: no corresponding CPUID cache */
        unsigned           cpuid_level;          /* 0 = null */
        const char        *agreement;            /* "agrees", "smaller", "larger", "no-cpuid",
                                                    or PMUCAL_UNKNOWN (a later minor's value) */
        struct pmucal_stat cycles;               /* in the table's clock (cycles_unit) */
        bool               has_ns;
        struct pmucal_stat ns;
        bool               has_upper;            /* false for the last level */
        double             upper_cycles;         /* bucket upper bound (inclusive) */
        double             upper_ns;             /* valid when has_ns */
        bool               has_ceiling;          /* the last level, when it is not DRAM */
        double             ceiling_cycles;       /* above: PMUCAL_LEVEL_BEYOND */
        double             ceiling_ns;           /* valid when has_ns */
};

/** A level's latency in one unit as its file gives it (library 1.1). */
struct pmucal_figures {
        bool               has;          /* the file gives the level's figures in this unit */
        struct pmucal_stat stat;         /* valid when has */
        bool               has_interval; /* p50_lo and p50_hi were given (not null) */
        double             p50_lo, p50_hi; /* the p50's 95 % confidence interval */
        bool               has_upper;    /* the file gives its bucket bound in this unit */
        double             upper;        /* inclusive upper bound (not the last level) */
};

/** A level's figures by unit: unit[PMUCAL_UNIT_TSC] (levels[].tsc_ticks),
 *  unit[PMUCAL_UNIT_CORE] (.core_cycles), unit[PMUCAL_UNIT_NS] (.ns), and
 *  unit[PMUCAL_UNIT_TABLE] the 1.0 member cycles (in cycles_unit). */
struct pmucal_level_units {
        struct pmucal_figures unit[PMUCAL_UNIT_NS + 1];
};

/** A level set (1.4 "core_types"): the processors of one core type / cache geometry (or one
 *  LLC domain) and the levels measured on one of them. */
struct pmucal_core_set {
        const char          *core_type;           /* "core", "atom", "other", PMUCAL_UNKNOWN (a
                                                     later minor's value); NULL: not hybrid */
        size_t               n_cache_levels;
        const uint64_t      *cache_bytes;         /* by level, L1 first; 0 = none reported */
        size_t               n_apic_ids;
        const uint32_t      *apic_ids;            /* ascending */
        size_t               n_llc_domains;
        const uint32_t      *llc_domains;         /* more than one: alike, calibrated once */
        uint32_t             measured_on_apic_id;
        bool                 bsp_set;             /* its levels are the table's own */
        bool                 measured;            /* false: n_levels = 0, see why_not_measured */
        const char          *why_not_measured;
        size_t               n_levels;
        struct pmucal_level *levels;              /* as pmucal_table.levels */
        /* 1.1: each level's figures in each unit, n_levels entries, as
         * pmucal_table.level_units */
        const struct pmucal_level_units *level_units;
};

struct pmucal_table {
        const char *schema;                     /* as written, "pmucal.latency-table/1.2" */
        unsigned    major, minor;
        /* machine key (strings NULL when the file says null) */
        const char *vendor;
        unsigned    family, model, stepping;
        const char *brand;
        bool        has_microcode;
        uint64_t    microcode;
        uint64_t    core_hz, tsc_hz;            /* 0 = null */
        const char *smbios_manufacturer, *smbios_product;
        unsigned    nodes;                      /* 0 = null */
        /* method */
        const char *kernel, *layout, *clock, *prefetchers, *pmucal_version, *platform, *date;
        uint64_t    page_bytes;                 /* 0 = null */
        unsigned    windows;
        /* the clock of the cycle figures: PMUCAL_UNIT_TSC or PMUCAL_UNIT_CORE, or
         * PMUCAL_UNIT_TABLE for a clock this library does not know */
        enum pmucal_unit cycles_unit;
        bool             has_core_ratio;        /* core cycles per TSC tick were measured */
        double           core_per_tsc;          /* core_hz / tsc_hz when has_core_ratio */
        /* levels, fastest first */
        size_t               n_levels;
        struct pmucal_level *levels;
        size_t               n_flags;
        const char *const   *flags;             /* "no_hierarchy", "noisy", ... */
        bool                 has_tlb;           /* a "tlb" member (pmucal_tlb_load reads it) */
        /* 1.1: level sets per core type / cache domain (table 1.4); 0 and NULL for older
         * tables */
        size_t                        n_core_sets;
        const struct pmucal_core_set *core_sets;
        /* 1.1: each level's figures in each unit, n_levels entries (level_units[i] for
         * levels[i]) */
        const struct pmucal_level_units *level_units;
        /* 1.2: where has_core_ratio / core_per_tsc come from (see "The core clock" above) */
        const char *core_ratio_source;    /* the counter ("APERF/MPERF", "perf_event cycles",
                                             ...), the estimate's method ("dependent-add
                                             chain"), PMUCAL_CORE_RATIO_OVERRIDE; NULL: none */
        bool        core_ratio_estimated; /* an estimate, not a counter's measurement */
        double      core_per_tsc_min;     /* the ratio's spread over the run (0: not given) */
        double      core_per_tsc_max;
        bool        core_ratio_override;  /* set by pmucal_table_set_core_ratio */
        /* 1.4: a value of an open enum (a level's "agreement", a level set's "core_type")
         * that a later minor added and this reader does not know: read as PMUCAL_UNKNOWN and
         * counted here; unknown_first names the first, path and value as written (cut to
         * fit). */
        size_t n_unknown;
        char   unknown_first[160];
};

/** Load and validate the table in file @p path (at most 16 MiB). On success *@p out is a new
 *  table (free with pmucal_table_free); on failure *@p out is NULL and @p err (if not NULL)
 *  holds a one-line message naming the file and the position or field, escaped. */
PMUCAL_API enum pmucal_err pmucal_table_load(const char *path, struct pmucal_table **out,
                                             char *err, size_t errlen);

/** As pmucal_table_load from @p len bytes at @p buf (need not be NUL-terminated); @p name
 *  is used in messages in place of a file name. */
PMUCAL_API enum pmucal_err pmucal_table_load_buf(const char *buf, size_t len, const char *name,
                                                 struct pmucal_table **out, char *err,
                                                 size_t errlen);

/** Free a table (NULL is ignored). */
PMUCAL_API void pmucal_table_free(struct pmucal_table *t);

/** The level a load latency of @p latency (in @p unit) belongs to: *@p level is the index of
 *  the first level whose inclusive upper bound is >= it, the last level when it is above
 *  every bound (the last level has no bound), or PMUCAL_LEVEL_BEYOND when that last level has
 *  a ceiling and the latency is above it. The bounds are the table's own in @p unit where it
 *  gives them (level_units), else the cycle bounds converted with the table's overall ratio
 *  (see Units above). PMUCAL_E_RANGE for NaN, infinite or negative, PMUCAL_E_NO_RATIO when a
 *  bound the table lacks in @p unit cannot be converted (*@p level is then untouched). */
PMUCAL_API enum pmucal_err pmucal_table_classify(const struct pmucal_table *t, double latency,
                                                 enum pmucal_unit unit, int *level);

/** pmucal_table_classify for @p n latencies: @p levels[i] is a level index,
 *  PMUCAL_LEVEL_BEYOND or PMUCAL_LEVEL_INVALID (NaN, infinite or negative; counted in
 *  *@p n_invalid when not NULL). Fails as a whole only for PMUCAL_E_ARG and
 *  PMUCAL_E_NO_RATIO. */
PMUCAL_API enum pmucal_err pmucal_table_classify_batch(const struct pmucal_table *t,
                                                       const double *latencies, size_t n,
                                                       enum pmucal_unit unit, int *levels,
                                                       size_t *n_invalid);

/** Convert @p v from @p from to @p to with what the table says (the rules of the classifier:
 *  its clock, its measured core:TSC ratio, its core_hz for ns). PMUCAL_E_NO_RATIO when it
 *  cannot. */
PMUCAL_API enum pmucal_err pmucal_table_convert(const struct pmucal_table *t, double v,
                                                enum pmucal_unit from, enum pmucal_unit to,
                                                double *out);

/** Use @p core_per_tsc core cycles per TSC tick (the core clock the samples were taken at
 *  over the table's TSC rate: GHz x 1e9 / tsc_hz) for every core-cycle figure, in place of
 *  the table's own (library 1.2): core-cycle bounds become the TSC bounds times it. Call it
 *  before the table is shared between threads. PMUCAL_E_RANGE unless 0 < @p core_per_tsc <=
 *  PMUCAL_MAX_CORE_PER_TSC, PMUCAL_E_NO_RATIO when the table has no TSC rate. */
PMUCAL_API enum pmucal_err pmucal_table_set_core_ratio(struct pmucal_table *t,
                                                       double core_per_tsc);

/** True when the table carries flag @p name ("no_hierarchy", "noisy", ...). */
/** The level set covering processor @p apic_id (1.4 tables with "core_types"); NULL when the
 *  table has none or no set lists that APIC ID (then the table's own levels apply). */
PMUCAL_API const struct pmucal_core_set *pmucal_table_core_set(const struct pmucal_table *t,
                                                               uint32_t apic_id);
PMUCAL_API bool pmucal_table_has_flag(const struct pmucal_table *t, const char *name);

#ifdef __cplusplus
}
#endif

#endif
