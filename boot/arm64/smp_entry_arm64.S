/*
 * Where a processor started with PSCI CPU_ON begins (see boot/arm64/smp.h): EL1, MMU and
 * caches off, interrupts masked, x0 = its struct smp_boot, which the boot processor cleaned
 * to the point of coherency (with the MMU off every load is Device memory and sees only
 * what is in RAM). It takes the boot processor's translation regime and system control,
 * then its own stack, and calls smp_secondary_main(x0), which never returns.
 * [ARM-ARM] D8.2 "Translation table walks", D5.10 enabling the MMU: the TLB and instruction
 * cache are invalidated before SCTLR_EL1.M is set, an ISB after each system register write
 * that the next instruction depends on.
 */
#include "boot/arm64/smp.h"

        .text
        .balign 64
        .globl  smp_secondary_entry
        .hidden smp_secondary_entry
smp_secondary_entry:
        ldr     x1, [x0, #SMP_BOOT_MAIR]
        msr     mair_el1, x1
        ldr     x1, [x0, #SMP_BOOT_TCR]
        msr     tcr_el1, x1
        ldr     x1, [x0, #SMP_BOOT_TTBR0]
        msr     ttbr0_el1, x1
        ldr     x1, [x0, #SMP_BOOT_TTBR1]
        msr     ttbr1_el1, x1
        ldr     x1, [x0, #SMP_BOOT_CPACR]
        msr     cpacr_el1, x1
        ldr     x1, [x0, #SMP_BOOT_VBAR]
        msr     vbar_el1, x1
        isb
        ic      iallu
        tlbi    vmalle1
        dsb     nsh
        isb
        ldr     x1, [x0, #SMP_BOOT_SCTLR]
        msr     sctlr_el1, x1
        isb
        ldr     x1, [x0, #SMP_BOOT_SP]
        mov     sp, x1
        mov     x29, xzr
        mov     x30, xzr
        bl      smp_secondary_main
1:      wfe
        b       1b
        .globl  smp_secondary_entry_end
        .hidden smp_secondary_entry_end
smp_secondary_entry_end:
