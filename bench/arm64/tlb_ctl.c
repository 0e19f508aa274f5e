/** @file
 * The translation-table control registers of the AArch64 firmware build (the interface of
 * bench/kernel_tlb.h, named after x86-64's): TTBR0_EL1 stands for CR3, no CR4 bits apply,
 * and the full flush is TLBI VMALLE1 with the barriers around it. [ARM-ARM] D8.13 "TLB
 * maintenance instructions"; D8.16 (DSB before and after, ISB so that later fetches see it).
 */
#include "bench/kernel_tlb.h"

#include "boot/arm64/sysreg.h"

uint64_t bench_cr3_read(void)
{
        return SYSREG_READ(ttbr0_el1);
}

uint64_t bench_cr4_read(void)
{
        return 0;
}

void bench_tlb_flush_all(void)
{
        __asm__ volatile("dsb ishst\n\ttlbi vmalle1\n\tdsb ish\n\tisb" ::: "memory");
}
