/** @file
 * Cache-to-cache analysis: the topology class of a pair of CPUs (SMT siblings, same L3
 * domain, another L3 domain of the package, another package), which pairs to measure, and the
 * per-class and per-pair summaries of what bench/c2c.h measured, as JSON and as text. Pure
 * functions over arrays; figures are TSC ticks x 1000 per access, converted to ns with the
 * TSC frequency the caller measured.
 */
#ifndef PMUCAL_C2C_H
#define PMUCAL_C2C_H

#include "bench/c2c.h"
#include "lib/base.h"
#include "lib/status.h"
#include "report/json.h"

/** Where a CPU sits: what the topology leaves (CPUID 0xB/0x1F, 0x8000001E) and the cache
 *  sharing fields (leaf 4 / 0x8000001D) say. */
struct c2c_cpu {
        uint32_t apic_id;
        uint32_t package, core, thread;
        uint32_t l3_domain;     /* APIC ID >> (bits of the L3's sharing field) */
};

enum c2c_class {
        C2C_SMT = 0,      /* same core, sibling hardware threads */
        C2C_SAME_L3,      /* same L3 domain (CCX, cluster) */
        C2C_OTHER_L3,     /* same package, another L3 domain */
        C2C_OTHER_PKG,    /* another package */
        C2C__COUNT
};

/** Topology class of the pair (@p a, @p b) (a != b). */
enum c2c_class c2c_pair_class(const struct c2c_cpu *a, const struct c2c_cpu *b);
/** "smt", "same-l3", "other-l3", "other-package"; never NULL. */
const char *c2c_class_name(enum c2c_class c);

struct c2c_pair {
        uint16_t       a, b;    /* indices into the CPU array */
        enum c2c_class cls;
};

/** Choose the pairs to measure among @p n CPUs: every unordered pair when n <= @p all_up_to,
 *  otherwise up to @p per_class pairs of each class, spread over the CPUs deterministically
 *  (the same machine gives the same pairs). Writes at most @p max pairs; *@p n_out gets the
 *  count. ST_NO_MEM when @p max is too small for every pair asked for. */
status_t c2c_pairs_plan(const struct c2c_cpu *cpu, unsigned n, unsigned all_up_to,
                        unsigned per_class, struct c2c_pair *out, size_t max, size_t *n_out);


/** What one ordered pair measured: the owner held the lines, the reader took them. */
struct c2c_result {
        unsigned       owner_cpu, reader_cpu;   /* the caller's CPU numbers */
        uint32_t       owner_apic, reader_apic;
        enum c2c_class cls;
        bool           known_class;             /* false: topology unknown */
        bool           measured[BENCH_C2C__COUNT];
        uint64_t       p10_milli[BENCH_C2C__COUNT]; /* TSC ticks x 1000 per access */
        uint64_t       p50_milli[BENCH_C2C__COUNT];
        uint64_t       p90_milli[BENCH_C2C__COUNT];
};

/** Fill @p r's percentiles for @p kind from @p rounds per-round figures (sorted in place). */
void c2c_result_set(struct c2c_result *r, enum bench_c2c_kind kind, uint64_t *rounds, size_t n);

struct c2c_class_summary {
        unsigned n_pairs;
        uint64_t p50_milli, min_milli, max_milli; /* over the pairs' medians */
};

/** Summarise @p n results by class and kind into @p out. */
void c2c_summarise(const struct c2c_result *r, size_t n,
                   struct c2c_class_summary out[C2C__COUNT][BENCH_C2C__COUNT]);

/** Write the "c2c" member (classes, then every pair) into the object open in @p w. */
void c2c_json(struct json_w *w, const struct c2c_result *r, size_t n, uint64_t tsc_hz);

/** The class table and the HITM pair matrix (owner rows, reader columns) as text. */
status_t c2c_text(struct rep_buf *b, const struct c2c_result *r, size_t n, uint64_t tsc_hz);

#endif
