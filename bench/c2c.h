/** @file
 * Cache-to-cache transfers: the latency of a load (or an atomic write) that finds its line in
 * another CPU's cache. Two CPUs share a chain of lines (bench/chain.h) and take turns:
 *
 *   HIT    the reader flushes every line (CLFLUSH, DC CIVAC: evicted from every cache of the
 *          coherence domain), the owner reads them all (Exclusive in the owner's cache), the
 *          reader chases the chain: every load is served by the owner's cache, clean;
 *   HITM   the owner writes every line (Modified in the owner's cache, the reader's copies
 *          invalidated), the reader chases: every load is a transfer of a modified line;
 *   WRITE  the owner writes every line, the reader stores to each line in chain order and
 *          waits for the store to complete (a barrier: x86 MFENCE, AArch64 DSB ISH) before
 *          it loads the next pointer from it: every step is a read-for-ownership that moves
 *          the line, Modified in the owner's cache, into the reader's;
 *   ATOMIC the same with an atomic add instead of the store (x86 LOCK ADD; AArch64 LDADD, or
 *          LDXR/STXR without LSE). Neoverse cores may perform LDADD as a far atomic in the
 *          interconnect when the line is not in their L1 (Cortex-A76 TRM, "Atomic
 *          instructions"), so there the line need not move: a kind of its own, not WRITE;
 *   PINGPONG two flag lines handed back and forth: the reader stores i to one, the owner
 *          answers i in the other; the figure is the round trip / 2, as c2clat and
 *          core-to-core-latency report it.
 *
 * Both sides must run at the same time on two CPUs: a hypervisor or an OS that runs them in
 * turn on one core makes every "transfer" a hit in that core's own cache. So while it waits
 * for the reader's window to end the owner keeps a heartbeat counter going in a line of its
 * own, and the reader reads it before and after each window: a window during which it did
 * not move was not concurrent, and is counted and left out. The reader also times its own
 * hit on a chain (floor_chain) it has just walked, the floor no transfer between caches that
 * share nothing can beat.
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

enum bench_c2c_kind {
        BENCH_C2C_HIT = 0, BENCH_C2C_HITM, BENCH_C2C_WRITE, BENCH_C2C_ATOMIC,
        BENCH_C2C_PINGPONG, BENCH_C2C__COUNT
};

#define BENCH_C2C_MAX_ROUNDS 1024u

/** Shared state of one measurement; both sides get a pointer to it. */
struct bench_c2c {
        /* set up by the caller before either side starts */
        enum bench_c2c_kind kind;
        void               *chain;       /* start of a chain (bench/chase_buf.h) */
        size_t              n_lines;     /* lines in the chain */
        uint32_t            line_bytes;
        unsigned            rounds;      /* <= BENCH_C2C_MAX_ROUNDS */
        uint64_t            spin_limit;  /* spins before a side gives up (other CPU gone) */
        size_t              n_exchanges; /* PINGPONG: round trips per round (default n_lines) */
        void               *floor_chain; /* optional: the reader times its own hit on it */
        size_t              floor_lines;

        /* the two flags, each alone in its line */
        _Alignas(128) volatile uint64_t owner_seq;
        _Alignas(128) volatile uint64_t reader_seq;
        _Alignas(128) volatile uint32_t aborted;
        _Alignas(128) volatile uint64_t owner_beat;  /* the owner's heartbeat while it waits */
        _Alignas(128) volatile uint64_t ping;        /* PINGPONG: the reader's flag line */
        _Alignas(128) volatile uint64_t pong;        /* PINGPONG: the owner's answer */

        /* results, written by the reader */
        uint64_t ticks_per_line_milli[BENCH_C2C_MAX_ROUNDS]; /* TSC ticks x 1000 per access */
        bool     concurrent[BENCH_C2C_MAX_ROUNDS];   /* the owner's heartbeat moved */
        unsigned n_done;
        unsigned n_not_concurrent;                   /* rounds whose heartbeat stood still */
        uint64_t floor_milli;                        /* the reader's own hit on floor_chain */
        status_t owner_status, reader_status;
};

/** Prepare @p c for a run (clears flags and results). ST_BAD_ARG for a missing chain, no
 *  lines, or rounds outside 1..BENCH_C2C_MAX_ROUNDS. */
status_t bench_c2c_init(struct bench_c2c *c, enum bench_c2c_kind kind, void *chain,
                        size_t n_lines, uint32_t line_bytes, unsigned rounds);

/** The reader's own hit on @p floor_chain (@p n lines): two laps to bring the lines into its
 *  caches, then @p laps timed laps; the smallest per-line figure, TSC ticks x 1000. Sized
 *  between the L1D and the L2 by the caller, it is the reader's own L2 hit. Run on the reader's
 *  CPU. */
uint64_t bench_c2c_own_hit(void *floor_chain, size_t n, unsigned laps);

struct cpu_info;
struct prefetch_info;

/** Run one side (@p fn: bench_c2c_owner or bench_c2c_reader) on @p c on the calling CPU, its
 *  hardware prefetchers turned off first where @p prefetchers_off and @p cpu has a documented
 *  control (boot/prefetch.h: the adjacent-line prefetcher would pull a partner line of the
 *  chain), given back after; @p pf says what was done. Both sides of a pair call it on their
 *  own CPU, so both CPUs' prefetchers are off for every window. */
void bench_c2c_side(void (*fn)(void *), struct bench_c2c *c, const struct cpu_info *cpu,
                    bool prefetchers_off, struct prefetch_info *pf);

/** The owner's side: run on one CPU while bench_c2c_reader() runs on another. */
void bench_c2c_owner(void *c);
/** The reader's side (it measures). */
void bench_c2c_reader(void *c);

/** "hit", "hitm", "write", "atomic", "pingpong"; never NULL. Inline: the tables' writers name the kinds on builds
 *  that measure no cache-to-cache transfers. */
static inline const char *bench_c2c_kind_name(enum bench_c2c_kind k)
{
        static const char *const names[BENCH_C2C__COUNT] = {
                [BENCH_C2C_HIT] = "hit", [BENCH_C2C_HITM] = "hitm", [BENCH_C2C_WRITE] = "write",
                [BENCH_C2C_ATOMIC] = "atomic", [BENCH_C2C_PINGPONG] = "pingpong",
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
/** Store to word 1 of each of @p n lines in chain order from @p p, each store completed
 *  (x86 MFENCE, AArch64 DSB ISH) before the next pointer is loaded from its line; returns
 *  clock ticks. */
uint64_t bench_c2c_store_timed(void *p, size_t n);

#endif
