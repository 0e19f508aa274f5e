/** @file
 * The chase buffer: the one object behind every pointer chase the harness runs (the latency
 * sweep, the PMU suite's memory checks, the sampling pipelines, cache-to-cache transfers, the
 * NUMA matrix). It holds the memory, either its own from plat_alloc_pages or the caller's
 * (a block placed on a NUMA node), the chain laid through it (bench/chain.h) and, when
 * asked, the lines the chain visits in address order. bench_chase_buf_destroy frees what
 * the object owns, and only that: its own memory and the line list, never the caller's.
 */
#ifndef PMUCAL_BENCH_CHASE_BUF_H
#define PMUCAL_BENCH_CHASE_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/plat.h"
#include "bench/chain.h"

/** A chase buffer. Zeroed, it is empty, and destroying it does nothing. */
struct bench_chase_buf {
        void               *buf;         /* the memory, aligned to the chain's line */
        uint64_t            bytes;       /* of buf */
        enum plat_page_kind page_got;    /* page kind the platform backed its own memory with
                                            (PLAT_PAGE_4K for the caller's memory) */
        bool                owned;       /* buf came from plat_alloc_pages here */
        void               *start;       /* a line of the chain (every line is on the cycle;
                                            a chase may move it on); NULL before a chain */
        uint64_t            chain_bytes; /* the chain runs through [buf, buf + chain_bytes) */
        uint32_t            line_bytes;  /* one pointer per this many bytes */
        uint64_t           *lines;       /* with list_lines: the addresses of the lines the
                                            chain visits, ascending (owned); else NULL */
        size_t              n_lines;     /* pointers in the chain */
};

/** How to make one. */
struct bench_chase_buf_cfg {
        uint64_t               bytes;      /* of memory; a multiple of the chain's line */
        enum plat_page_kind    page;       /* page kind asked of plat_alloc_pages */
        void                  *mem;        /* the caller's memory (kept by the caller);
                                              NULL: allocate */
        bool                   no_chain;   /* lay no chain yet: bench_chase_buf_lay does,
                                              over a prefix (one per working set) */
        bool                   list_lines; /* list the lines the chain visits (cb->lines) */
        struct bench_chain_cfg chain;      /* layout, line, seed of the chain */
};

/** Make @p cb as @p cfg says: the memory (allocated, or the caller's) and, unless
 *  cfg->no_chain, a chain through all of it. On failure @p cb is empty and nothing is kept;
 *  the status says why (ST_NO_MEM: the memory was not there; ST_BAD_ARG: sizes the chain
 *  cannot take). */
status_t bench_chase_buf_create(struct bench_chase_buf *cb, const struct bench_chase_buf_cfg *cfg);

/** Lay a chain through the first @p bytes of @p cb's memory (at most cb->bytes), replacing
 *  any chain before; the line list, if any, is dropped. Pure: allocates nothing and calls no
 *  platform service, so it may run on an application processor. */
status_t bench_chase_buf_lay(struct bench_chase_buf *cb, uint64_t bytes,
                             const struct bench_chain_cfg *chain);

/** One warm-up lap of the chain (at least one kernel iteration): the lines are then in the
 *  caches as in steady state, and cb->start is where the lap stopped. */
void bench_chase_buf_lap(struct bench_chase_buf *cb);

/** Free what @p cb owns (its own memory, the line list) and empty it; the caller's memory
 *  is left alone. NULL and empty objects are fine. */
void bench_chase_buf_destroy(struct bench_chase_buf *cb);

#endif
