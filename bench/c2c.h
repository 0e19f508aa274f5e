/** @file
 * Cache-to-cache transfers: the latency of a load (or an atomic write) that finds its line in
 * another CPU's cache. Two CPUs share a chain of lines (bench/chain.h) and take turns:
 *
 *   HIT    the reader flushes every line (CLFLUSH, DC CIVAC: evicted from every cache of the
 *          coherence domain), the owner reads them all (Exclusive in the owner's cache), the
 *          reader chases the chain: every load is served by the owner's cache, clean;
 *   HITM   the owner writes every line (Modified in the owner's cache, the reader's copies
 *          invalidated), the reader chases: every load is a transfer of a modified line;
 *   WRITE  the owner writes every line, the reader does an atomic add to each line in chain
 *          order: every access is a read-for-ownership of a line the owner holds modified.
 *
 * The reader times the whole lap with the clock (TSC; AArch64 CNTVCT_EL0) and divides by the number of lines, so one
 * round gives one figure per line already averaged over a lap; rounds give the spread.
 * The two sides run at the same time on two CPUs; starting them is the caller's business
 * (the MP mailbox in the firmware, pinned threads in pmucal-host). Each side spins on the
 * other's flag, which lives in a line of its own. No allocation, no plat_* calls.
 */
#ifndef PMUCAL_BENCH_C2C_H
#define PMUCAL_BENCH_C2C_H

#include "lib/base.h"
#include "lib/status.h"

enum bench_c2c_kind { BENCH_C2C_HIT = 0, BENCH_C2C_HITM, BENCH_C2C_WRITE, BENCH_C2C__COUNT };

#define BENCH_C2C_MAX_ROUNDS 1024u

/** Shared state of one measurement; both sides get a pointer to it. */
struct bench_c2c {
        /* set up by the caller before either side starts */
        enum bench_c2c_kind kind;
        void               *chain;       /* start of a chain laid by bench_chain_build() */
        size_t              n_lines;     /* lines in the chain */
        uint32_t            line_bytes;
        unsigned            rounds;      /* <= BENCH_C2C_MAX_ROUNDS */
        uint64_t            spin_limit;  /* spins before a side gives up (other CPU gone) */

        /* the two flags, each alone in its line */
        _Alignas(128) volatile uint64_t owner_seq;
        _Alignas(128) volatile uint64_t reader_seq;
        _Alignas(128) volatile uint32_t aborted;

        /* results, written by the reader */
        uint64_t ticks_per_line_milli[BENCH_C2C_MAX_ROUNDS]; /* TSC ticks x 1000 per access */
        unsigned n_done;
        status_t owner_status, reader_status;
};

/** Prepare @p c for a run (clears flags and results). ST_BAD_ARG for a missing chain, no
 *  lines, or rounds outside 1..BENCH_C2C_MAX_ROUNDS. */
status_t bench_c2c_init(struct bench_c2c *c, enum bench_c2c_kind kind, void *chain,
                        size_t n_lines, uint32_t line_bytes, unsigned rounds);

/** The owner's side: run on one CPU while bench_c2c_reader() runs on another. */
void bench_c2c_owner(void *c);
/** The reader's side (it measures). */
void bench_c2c_reader(void *c);

/** "hit", "hitm", "write"; never NULL. Inline: the tables' writers name the kinds on builds
 *  that measure no cache-to-cache transfers. */
static inline const char *bench_c2c_kind_name(enum bench_c2c_kind k)
{
        static const char *const names[BENCH_C2C__COUNT] = {
                [BENCH_C2C_HIT] = "hit", [BENCH_C2C_HITM] = "hitm", [BENCH_C2C_WRITE] = "write",
        };

        return (unsigned)k < BENCH_C2C__COUNT ? names[k] : "unknown";
}

/* The per-architecture operations (bench/<arch>/c2c_ops.c). */

/** The clock the laps are timed with, read ordered against the accesses before it (TSC on
 *  x86-64; the generic timer's CNTVCT_EL0 on AArch64, whose rate is the inventory's tsc_hz
 *  there too). */
uint64_t bench_c2c_clock(void);
/** Its name in c2c.json's method.clock: "tsc", "cntvct". */
const char *bench_c2c_clock_name(void);
/** Evict the line holding @p p from every cache of the coherence domain. */
void bench_c2c_flush_line(const void *p);
/** Follow the chain from @p p for @p n loads; returns the clock ticks it took (ordered). */
uint64_t bench_c2c_chase_timed(void *p, size_t n);
/** Atomic add to word 1 of each of @p n lines in chain order from @p p (x86 LOCK ADD,
 *  AArch64 LDADD or LDXR/STXR); returns clock ticks. */
uint64_t bench_c2c_rmw_timed(void *p, size_t n);

#endif
