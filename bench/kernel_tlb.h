/** @file
 * Timed TLB kernels. The dTLB kernel chases one pointer per page through a window laid out by
 * bench_tlb_plan() (and, when given, through the dense control of bench_tlb_control_plan());
 * the iTLB kernel calls a jump chain written by bench_itlb_gen(). Each window times L laps and
 * then 2L laps back to back (interrupts masked where the platform can) and keeps the
 * difference, so the fixed cost of the stamps and the loop entry cancels; >= 11 windows give
 * min/p10/p50/p90 in milli-cycles per access.
 *
 * The caller owns the memory: the window must be mapped with the page size being measured
 * (own page tables in the firmware, mmap + madvise in the hosted build), the control inside
 * few TLB entries, the iTLB chain executable. The chain is written, and every page touched,
 * before the first timed window. Timestamps come from bench_timer_now() (the TSC, or the
 * generic timer on AArch64) unless a stamp hook is given (a core-cycle source from
 * bench/window.h can be plugged in there). Portable; the control registers below are per
 * architecture.
 */
#ifndef PMUCAL_BENCH_KERNEL_TLB_H
#define PMUCAL_BENCH_KERNEL_TLB_H

#include <stddef.h>
#include <stdint.h>

#include "boot/plat.h"

#include "lib/status.h"
#include "bench/tlb.h"

#define BENCH_TLB_MIN_WINDOWS 11
#define BENCH_TLB_MAX_WINDOWS 255

/** How long to time. */
struct bench_tlb_run {
        uint32_t n_windows;            /* BENCH_TLB_MIN_WINDOWS .. BENCH_TLB_MAX_WINDOWS */
        uint64_t min_accesses;         /* accesses in the L-lap run, at least; L >= 1 */
        uint64_t (*stamp)(void *ctx);  /* NULL = bench_timer_now() */
        void    *stamp_ctx;
};

/** Measure one N of the dTLB curve. @p win / @p win_bytes: the window (at least the span of
 *  @p cfg); @p ctl / @p ctl_bytes: the control buffer (>= cfg->n_pages * 64 bytes), or NULL
 *  to skip the control. Fills @p out (ctl_p50_mcyc = 0 without control). ST_BAD_ARG on a
 *  short buffer or bad run, ST_NO_MEM when the plan does not fit, ST_DISTURBED when every
 *  window was disturbed (2L run not longer than the L run). */
status_t bench_dtlb_measure(uint8_t *win, uint64_t win_bytes, uint8_t *ctl, uint64_t ctl_bytes,
                            const struct bench_tlb_cfg *cfg, const struct bench_tlb_run *run,
                            struct tlb_point *out);

/** bench_dtlb_measure with the caller's scratch @p off (@p n_off = cfg->n_pages entries)
 *  instead of an allocation, so it can run inside a window with the harness's own page tables
 *  loaded (no firmware allocation there). After timing the window it follows the chain once
 *  more: ST_BAD_DATA when it did not return to its start after exactly n_pages loads. */
status_t bench_dtlb_measure_off(uint8_t *win, uint64_t win_bytes, uint8_t *ctl,
                                uint64_t ctl_bytes, const struct bench_tlb_cfg *cfg,
                                const struct bench_tlb_run *run, uint64_t *off, size_t n_off,
                                struct tlb_point *out);

/** Measure one N of the iTLB curve: @p entry is the first stub of a chain of @p n_pages jumps
 *  (bench_itlb_gen), already executable. Latency per jump into @p out. */
status_t bench_itlb_measure(void (*entry)(void), uint32_t n_pages,
                            const struct bench_tlb_run *run, struct tlb_point *out);

/* CR4 bits. [SDM-3A] "Control Registers"; [APM-2] "CR4 Register". */
#define BENCH_CR4_PGE   BIT_ULL(7)  /* page global enable */
#define BENCH_CR4_PCIDE BIT_ULL(17) /* process-context identifiers: CR3[11:0] is a PCID */
#define BENCH_CR4_SMEP  BIT_ULL(20)
#define BENCH_CR4_SMAP  BIT_ULL(21)

/** CR3 as it is now (ring 0 only: the firmware build). AArch64: TTBR0_ELx, the root of the
 *  translation tables the firmware's identity map lives in. */
uint64_t bench_cr3_read(void);
/** CR4 as it is now (ring 0 only). AArch64: 0 (no PGE or PCIDE to honour). */
uint64_t bench_cr4_read(void);
/** Invalidate every TLB entry, global entries and all PCIDs included, by toggling CR4.PGE
 *  twice (ring 0 only, interrupts masked). A CR3 load alone keeps global entries and, with
 *  CR4.PCIDE, other PCIDs' entries. AArch64: TLBI VMALLE1 (every EL1&0 entry of this VMID). */
void bench_tlb_flush_all(void);

#endif
