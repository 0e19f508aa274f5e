/** @file
 * The translation-table control registers of the AArch64 firmware build (the interface of
 * bench/kernel_tlb.h, named after x86-64's): TTBR0_ELx of the level the harness runs at
 * stands for CR3, no CR4 bits apply, and the full flush is TLBI VMALLE1 at EL1, TLBI ALLE2 at
 * EL2 (the EL2 or EL2&0 regime, with HCR_EL2.E2H or without), with the barriers around it.
 * [ARM-ARM] D8.13 "TLB maintenance instructions"; D8.16 (DSB before and after, ISB so that
 * later fetches see it).
 */
#include "bench/kernel_tlb.h"

#include "boot/arm64/sysreg.h"

uint64_t bench_cr3_read(void)
{
        return EL_REG_READ(ttbr0);
}

uint64_t bench_cr4_read(void)
{
        return 0;
}

void bench_tlb_flush_all(void)
{
        if (arm64_current_el() == 2)
                __asm__ volatile("dsb ishst\n\ttlbi alle2\n\tdsb ish\n\tisb" ::: "memory");
        else
                __asm__ volatile("dsb ishst\n\ttlbi vmalle1\n\tdsb ish\n\tisb" ::: "memory");
}
