/** @file The translation-table control registers of the x86-64 firmware build: CR3, CR4 and the
 * full TLB flush (see bench/kernel_tlb.h). */
#include "bench/kernel_tlb.h"

/* ---- control registers (ring 0 only; the firmware build) ---- */

uint64_t bench_cr3_read(void)
{
        uint64_t v;

        __asm__ volatile("mov %%cr3, %0" : "=r"(v));
        return v;
}

uint64_t bench_cr4_read(void)
{
        uint64_t v;

        __asm__ volatile("mov %%cr4, %0" : "=r"(v));
        return v;
}

void bench_tlb_flush_all(void)
{
        uint64_t cr4 = bench_cr4_read();

        /* A MOV to CR4 that changes PGE invalidates every TLB entry, global ones and those of
         * every PCID, and the paging-structure caches. [SDM-3A] "Invalidation of TLBs and
         * Paging-Structure Caches", operations that invalidate; [APM-2] "Global Pages". */
        __asm__ volatile("mov %0, %%cr4" : : "r"(cr4 ^ BENCH_CR4_PGE) : "memory");
        __asm__ volatile("mov %0, %%cr4" : : "r"(cr4) : "memory");
}
