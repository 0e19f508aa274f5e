/** @file
 * TLB measurement plans, pure functions over caller buffers: the dTLB chase (one line per
 * page over N pages), the iTLB jump chain (one jmp per page over N executable pages), the
 * N sweep, and the curve types that the kernels (bench/kernel_tlb.h) fill and the analysis
 * (analysis/tlbdetect.h) reads.
 *
 * Staggering: the line touched in page p sits at slot (p mod n_slots) of the page, so that the
 * lines of N pages spread over all cache sets the page offset can select (64 L1D sets with
 * 4 KiB pages) instead of piling into one set, where set conflicts would pose as TLB misses.
 * The control plan visits the same slots in the same order packed into N consecutive lines,
 * so the same cache sets, within a few pages: the data-side latency without the TLB misses.
 *
 * PTE layouts: pages adjacent (8 PTEs share a 64-byte line, so the walk mostly hits the
 * cache), spaced 8 pages apart (each PTE in its own line) or 512 apart (each PTE in its own
 * page-table page): the difference between them is the memory cost of the walk.
 * Portable: no UEFI types, no globals, no clock.
 */
#ifndef PMUCAL_BENCH_TLB_H
#define PMUCAL_BENCH_TLB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"
#include "bench/latency.h"

#define BENCH_TLB_LINE_BYTES 64u
/* At most this many line slots per page (bits 20:6 of the offset: L1D, L2 and L3 set bits of
 * current parts lie below bit 21). */
#define BENCH_TLB_MAX_SLOTS  32768u
/* Bytes of one iTLB entry stub: jmp rel32 (E9 + 4 bytes) or ret (C3), padded with int3. */
#define BENCH_ITLB_STUB_BYTES 5u

/* x86 opcodes of the generated code. [SDM-2A] JMP (E9 cd: jmp rel32), [SDM-2B] RET (C3),
 * INT3 (CC). */
#define X86_JMP_REL32 0xe9
#define X86_RET       0xc3
#define X86_INT3      0xcc

/** Which TLB side a curve measures. */
enum tlb_side { TLB_SIDE_DATA = 0, TLB_SIDE_INST, TLB_SIDE__COUNT };

/** Where the page-table entries of the N pages lie relative to each other. */
enum tlb_pte_layout {
        TLB_PTE_NEAR = 0,   /* adjacent pages: 8 PTEs per cache line */
        TLB_PTE_LINE,       /* 8 pages apart: one PTE per cache line */
        TLB_PTE_PAGE,       /* 512 pages apart: one PTE per page-table page */
        TLB_PTE__COUNT
};

/** One N of a TLB sweep. Latencies per access (load or jump) in milli-cycles. */
struct tlb_point {
        uint32_t n_pages;
        uint32_t n_windows;      /* windows kept */
        uint64_t min_mcyc;
        uint64_t p10_mcyc;
        uint64_t p50_mcyc;
        uint64_t p90_mcyc;
        uint64_t ctl_p50_mcyc;   /* control plan (no TLB misses); 0 = not measured */
};

/** A TLB sweep: latency per access against the number of pages touched. */
struct tlb_curve {
        struct tlb_point   *pts;        /* ascending n_pages; owned by whoever filled it */
        size_t              n;
        enum tlb_side       side;
        enum tlb_pte_layout pte;
        uint64_t            page_bytes; /* 4 KiB, 2 MiB, 1 GiB */
        enum lat_clock      clock;
        uint64_t            core_hz;    /* 0 = unknown */
        uint32_t            n_left_out; /* points whose every window was disturbed: not in pts */
        uint32_t            passes;     /* interleaved passes each point is the median of;
                                           0 = one pass, not recorded */
};

/** What to plan. */
struct bench_tlb_cfg {
        uint64_t            page_bytes; /* 4 KiB, 2 MiB or 1 GiB */
        uint32_t            n_pages;    /* pages in the chain, >= 1 */
        enum tlb_pte_layout pte;
        uint64_t            seed;       /* visiting order: 0 = ascending, else a random cycle */
};

/** Pages between two chained pages for @p pte (1, 8, 512); 0 for an unknown layout. */
uint32_t bench_tlb_stride_pages(enum tlb_pte_layout pte);

/** Line slots per page used by the stagger: min(page_bytes / 64, BENCH_TLB_MAX_SLOTS). */
uint32_t bench_tlb_slots(uint64_t page_bytes);

/** Bytes of virtual space the chain spans (n_pages * stride * page_bytes) in @p *bytes;
 *  ST_BAD_ARG for a bad configuration or a span past 2^47. */
status_t bench_tlb_span(const struct bench_tlb_cfg *cfg, uint64_t *bytes);

/** The chase: byte offsets from the window base of the line visited in each of the
 *  cfg->n_pages pages, in visiting order (the chain closes from the last back to the first).
 *  @p off has room for @p n_off = cfg->n_pages entries (caller's buffer). */
status_t bench_tlb_plan(const struct bench_tlb_cfg *cfg, uint64_t *off, size_t n_off);

/** The control: same order and same in-page slots as bench_tlb_plan, packed densely (page p's
 *  line at p * 64), so it needs only n_pages * 64 bytes and few TLB entries. */
status_t bench_tlb_control_plan(const struct bench_tlb_cfg *cfg, uint64_t *off, size_t n_off);

/** Write the iTLB chain into @p buf (@p buf_bytes >= the span): at each planned offset a
 *  `jmp rel32` to the next one, the last a `ret`, every stub padded to its line with int3.
 *  The code is position-independent; the caller makes the pages executable and calls
 *  buf + @p *entry_off. Only the planned lines are written. ST_BAD_ARG when a jump would not
 *  fit in rel32 (span over 2 GiB) or the buffer is short. */
status_t bench_itlb_gen(const struct bench_tlb_cfg *cfg, uint8_t *buf, uint64_t buf_bytes,
                        uint64_t *entry_off);

/** bench_itlb_gen with the caller's scratch @p off (@p n_off = cfg->n_pages entries; holds
 *  the plan afterwards) instead of an allocation, for use where nothing may be allocated
 *  (inside a measurement window with the harness's own page tables loaded). */
status_t bench_itlb_gen_off(const struct bench_tlb_cfg *cfg, uint64_t *off, size_t n_off,
                            uint8_t *buf, uint64_t buf_bytes, uint64_t *entry_off);

/** The N values of a sweep: geometric from @p min_pages to @p max_pages (both included) with
 *  @p steps_per_octave steps (1, 2, 4, 8 or 16), duplicates removed, into @p out (room for
 *  @p cap); count to @p *n. ST_NO_SPACE when cap is too small. */
status_t bench_tlb_sweep(uint32_t min_pages, uint32_t max_pages, unsigned steps_per_octave,
                         uint32_t *out, size_t cap, size_t *n);

/** "near", "line", "page"; never NULL. */
const char *bench_tlb_pte_layout_name(enum tlb_pte_layout pte);
/** "dtlb", "itlb"; never NULL. */
const char *bench_tlb_side_name(enum tlb_side side);

#endif
