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

#define C2C_PASSES 3u /* each pair's rounds are taken in this many passes, kinds interleaved */

/** What groups cores between the core and the package (boot/topology.h's enum topo_group). */
enum c2c_group { C2C_GROUP_NONE = 0, C2C_GROUP_MODULE, C2C_GROUP_CLUSTER };

/** Where a CPU sits: what the topology leaves (CPUID 0xB/0x1F, 0x8000001E) and the cache
 *  sharing fields (leaf 4 / 0x8000001D) say, or on Arm the PPTT. */
struct c2c_cpu {
        uint32_t apic_id;
        uint32_t package, core, thread;
        uint32_t l3_domain;     /* APIC ID >> (bits of the L3's sharing field) */
        uint32_t cluster;       /* the module or cluster, when group says there is one */
        uint8_t  group;         /* enum c2c_group */
        bool     no_l3;         /* no shared L3 is described (QEMU's PPTT, a private LLC) */
};

enum c2c_class {
        C2C_SMT = 0,      /* same core, sibling hardware threads */
        C2C_SAME_MODULE,  /* x86: cores sharing one L2 (a hybrid part's E-core module) */
        C2C_SAME_CLUSTER, /* Arm: the same PPTT cluster */
        C2C_SAME_L3,      /* same L3 domain (CCX) */
        C2C_OTHER_L3,     /* same package, another L3 domain */
        C2C_SAME_PKG,     /* same package, no shared L3 described */
        C2C_OTHER_PKG,    /* another package */
        C2C__COUNT
};

/** True when the pair may share an L2 (SMT, a module, a cluster): a transfer there may be as
 *  fast as the reader's own L2 hit, so such windows are not rejected. */
bool c2c_class_may_share_l2(enum c2c_class c);

/** Topology class of the pair (@p a, @p b) (a != b). */
enum c2c_class c2c_pair_class(const struct c2c_cpu *a, const struct c2c_cpu *b);
/** "smt", "same-module", "same-cluster", "same-l3", "other-l3", "same-package",
 *  "other-package"; never NULL. */
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
        const char    *prefetchers;             /* the hardware prefetchers of both CPUs while
                                                 * measuring: "off", "on", "unsupported",
                                                 * "failed" (prefetch_state_name) */
        uint64_t       floor_milli;             /* the reader's own hit (bench_c2c_own_hit);
                                                 * 0 = not measured */
        bool           keep_all;                /* emulated: rounds that would be left out are
                                                 * counted, and kept */
        bool           measured[BENCH_C2C__COUNT];
        uint64_t       p10_milli[BENCH_C2C__COUNT]; /* TSC ticks x 1000 per access */
        uint64_t       p50_milli[BENCH_C2C__COUNT];
        uint64_t       p90_milli[BENCH_C2C__COUNT];
        unsigned       n_rounds[BENCH_C2C__COUNT];          /* taken, kept or not */
        unsigned       n_not_concurrent[BENCH_C2C__COUNT];  /* left out: not concurrent */
        unsigned       n_below_floor[BENCH_C2C__COUNT];     /* left out: below the floor */
        unsigned       n_passes[BENCH_C2C__COUNT];
        uint64_t       pass_p50_milli[BENCH_C2C__COUNT][C2C_PASSES]; /* 0: nothing kept */
};

/** Fill @p r's percentiles for @p kind from @p rounds per-round figures (sorted in place);
 *  n = 0 leaves the kind unmeasured. */
void c2c_result_set(struct c2c_result *r, enum bench_c2c_kind kind, uint64_t *rounds, size_t n);

/** One pass of @p n rounds of @p kind on @p r: a round whose window was not concurrent
 *  (@p concurrent[i] false) is counted and left out, and so is one faster than the reader's
 *  own hit (r->floor_milli, when measured) for a class that shares no L2 (it cannot have been
 *  a transfer), unless r->keep_all. The pass's median is kept; the kept rounds are appended to @p acc, which has
 *  room for *@p n_acc + @p n. Call c2c_result_set(r, kind, acc, *n_acc) after the last pass. */
void c2c_result_pass(struct c2c_result *r, enum bench_c2c_kind kind, const uint64_t *rounds,
                     const bool *concurrent, size_t n, uint64_t *acc, size_t *n_acc);

struct c2c_class_summary {
        unsigned n_pairs;
        uint64_t p50_milli, min_milli, max_milli; /* over the pairs' medians */
        unsigned n_passes;                        /* passes with a kept round */
        uint64_t pass_p50_milli[C2C_PASSES];      /* each pass: median over the pairs */
        uint64_t spread_milli;                    /* largest - smallest pass median */
        unsigned n_rounds, n_not_concurrent, n_below_floor;
        bool     kept;                            /* emulated: the flagged rounds were kept */
};

/** Summarise @p n results by class and kind into @p out. */
void c2c_summarise(const struct c2c_result *r, size_t n,
                   struct c2c_class_summary out[C2C__COUNT][BENCH_C2C__COUNT]);

/** Bytes of the chain the reader times its own hit on: between its L1D (@p l1d_bytes) and
 *  L2 (@p l2_bytes), up to @p max, so the floor is its own L2 hit (*@p name "own L2 hit");
 *  @p fallback (the transfer chain: "own L1 hit") when the sizes are unknown or leave no room. */
size_t c2c_floor_bytes(uint64_t l1d_bytes, uint64_t l2_bytes, size_t max, size_t fallback,
                       const char **name);

/** Console lines on the rounds left out (WARN) or, under an emulator (@p emulated), counted
 *  and kept (INFO), per class and kind. */
void c2c_report_rejects(const struct c2c_result *r, size_t n, bool emulated);

/** Write the "c2c" member (classes, then every pair) into the object open in @p w. */
void c2c_json(struct json_w *w, const struct c2c_result *r, size_t n, uint64_t tsc_hz);

/** The class table and the HITM pair matrix (owner rows, reader columns) as text. */
status_t c2c_text(struct rep_buf *b, const struct c2c_result *r, size_t n, uint64_t tsc_hz);

#endif
