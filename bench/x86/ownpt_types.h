/** @file
 * The x86-64 layout of struct bench_ownpt, the harness's own page tables for a measurement
 * (the interface: bench/ownpt.h; the builder: bench/x86/ownpt.c): a 4-level tree
 * (bench/x86/pagetable.h) and the chunks of table pages it is built in. x86 code (the TLB
 * phase) reaches the tree itself to add its windows and walk it.
 */
#ifndef PMUCAL_BENCH_X86_OWNPT_TYPES_H
#define PMUCAL_BENCH_X86_OWNPT_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "bench/x86/pagetable.h"

#define BENCH_OWNPT_CHUNK_PAGES 256u /* page-table pages per allocation (1 MiB) */
#define BENCH_OWNPT_MAX_CHUNKS  64u

/** One tree and the chunks its table pages come from. Must not move once built (the
 *  builder's allocator context points into it). */
struct bench_ownpt {
        struct bench_pt pt;
        uint8_t        *chunk[BENCH_OWNPT_MAX_CHUNKS];
        unsigned        n_chunks, used; /* chunks, pages used in the last one */
        size_t          n_map;          /* memory-map ranges identity-mapped */
};

#endif
