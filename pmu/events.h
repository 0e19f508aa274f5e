/** @file
 * Performance events as data. The tables come from pmu/events/<vendor>-<uarch>.json (perf's
 * field names) through pmu/gen_events.py, which emits build/events_gen.c at build time; this
 * header declares what it emits and the lookups over it (pmu/events.c). Never hand-type an
 * event code in C: look it up by perf name or by portable alias.
 *
 * Portable aliases in the spirit of the Sun Studio collector (cycles, insts, branches,
 * br-misses, l1d-misses, l2-misses, llc-misses, dtlb-misses, itlb-misses) are mapped per
 * table; a table that cannot count one says so with a reason.
 */
#ifndef PMUCAL_EVENTS_H
#define PMUCAL_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"
#include "boot/cpu_info.h"

/** One event, as perf's pmu-events JSON describes it. */
struct pmu_event_desc {
        const char *name;     /* perf EventName */
        uint16_t    code;     /* EventCode; up to 12 bits on AMD, 8 on Intel */
        uint8_t     umask;    /* UMask */
        uint8_t     cmask;    /* CounterMask */
        bool        inv;      /* Invert */
        bool        edge;     /* EdgeDetect */
        int8_t      fixed;    /* Intel fixed counter index (pseudo-encoding), or -1 */
        int8_t      arch_bit; /* CPUID.0AH:EBX bit of an architectural event, or -1 */
        uint32_t    gp_mask;  /* general counters that can count it (perf "Counter"); 0 any */
        const char *brief;    /* BriefDescription */
};

/** A portable alias in one table: the event index, or -1 and the reason it cannot count. */
struct pmu_alias_map {
        int16_t     event;
        const char *reason;
};

/** Maximum number of portable aliases (the generator checks the count fits). */
#define PMU_ALIAS_MAX 16

/** One vendor-uarch table (one JSON file). */
struct pmu_event_table {
        const char                  *name;    /* "amd-zen4" */
        enum cpu_vendor              vendor;
        const char                  *source;  /* where the codes were read */
        const char                  *version; /* which version of that source */
        const struct pmu_event_desc *events;
        size_t                       n_events;
        struct pmu_alias_map         aliases[PMU_ALIAS_MAX]; /* index = pmu_alias_names[] */
};

/** One mapfile.csv row: vendor, family (-1 any), model range, table index. */
struct pmu_map_row {
        enum cpu_vendor vendor;
        int32_t         family;
        uint32_t        model_lo, model_hi;
        const char     *version;
        uint16_t        table;
};

/* Emitted by pmu/gen_events.py into build/events_gen.c. */
extern const struct pmu_event_table pmu_event_tables[];
extern const size_t                 pmu_n_event_tables;
extern const struct pmu_map_row     pmu_event_map[];
extern const size_t                 pmu_n_event_map;
extern const char *const            pmu_alias_names[];
extern const size_t                 pmu_n_aliases;

/** The table mapfile.csv assigns to @p vendor / @p family / @p model (first matching row);
 *  NULL when none matches. */
const struct pmu_event_table *pmu_events_for(enum cpu_vendor vendor, uint32_t family,
                                             uint32_t model);

/** The table named @p name ("intel-arch"); NULL when there is none. */
const struct pmu_event_table *pmu_events_table(const char *name);

/** The event called @p name (perf EventName, exact) in @p t; NULL when absent. */
const struct pmu_event_desc *pmu_event_find(const struct pmu_event_table *t, const char *name);

/** Index of portable alias @p alias in pmu_alias_names[], or -1. */
int pmu_alias_index(const char *alias);

/** Resolve portable alias @p alias in @p t. ST_OK and *out on success; ST_UNSUPPORTED with
 *  *reason (static text, never NULL) when the table says the CPU cannot count it;
 *  ST_NOT_FOUND for an unknown alias; ST_BAD_ARG for NULL arguments. */
status_t pmu_alias_resolve(const struct pmu_event_table *t, const char *alias,
                           const struct pmu_event_desc **out, const char **reason);

#endif
