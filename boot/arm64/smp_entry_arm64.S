/*
 * Where a processor started with PSCI CPU_ON begins (see boot/arm64/smp.h): MMU and caches
 * off, interrupts masked, at the highest exception level below EL3 (EL2 on a machine with
 * virtualization, EL1 without), x0 = its struct smp_boot, which the boot processor cleaned
 * to the point of coherency (with the MMU off every load is Device memory and sees only
 * what is in RAM). It comes to the boot processor's level (SMP_BOOT_EL), takes that level's
 * translation regime and system control, then its own stack, and calls
 * smp_secondary_main(x0), which never returns.
 * [ARM-ARM] D8.2 "Translation table walks", D5.10 enabling the MMU: the TLB and instruction
 * cache are invalidated before SCTLR_ELx.M is set, an ISB after each system register write
 * that the next instruction depends on. Only x0..x3 are used before the stack exists.
 */
#include "boot/arm64/smp.h"

/* Registers GNU as may not know by name: ICC_SRE_EL2 ([GICv3]), TTBR1_EL2 (FEAT_VHE). */
#define ICC_SRE_EL2      S3_4_C12_C9_5
#define TTBR1_EL2        S3_4_C2_C0_1
#define ICC_SRE_SRE      (1 << 0)
#define ICC_SRE_ENABLE   (1 << 3)       /* EL1 may set its own ICC_SRE_EL1.SRE */
#define HCR_EL2_RW       (1 << 31)
#define HCR_EL2_E2H_BIT  34
#define CNTHCTL_EL1PCTEN (1 << 0)       /* EL1 reads CNTPCT_EL0 */
#define CNTHCTL_EL1PCEN  (1 << 1)       /* EL1 uses the physical timer */
#define CPTR_EL2_RES1    0x33ff         /* TFP (bit 10) clear: no FP/SIMD trap */
#define SCTLR_EL1_RES1   0x30500800     /* bits 29, 28, 22, 20, 11; M, C, I clear */
#define SPSR_EL1H_MASKED 0x3c5          /* EL1h, D, A, I, F masked */
#define PFR0_GIC_SHIFT   24
#define PMCR_N_SHIFT     11

        .text
        .balign 64
        .globl  smp_secondary_entry
        .hidden smp_secondary_entry
smp_secondary_entry:
        mrs     x2, CurrentEL
        lsr     x2, x2, #2
        ldr     x3, [x0, #SMP_BOOT_EL]
        cmp     x2, x3
        b.eq    same_level
        cmp     x2, #2
        b.ne    cannot_join             /* below the boot processor's level (or EL3) */
        cmp     x3, #1
        b.ne    cannot_join

        /* At EL2 for a boot processor at EL1: host EL1 in AArch64 with nothing trapped,
         * as Linux's init_el2_state leaves EL2 for its kernel (arch/arm64/include/asm/
         * el2_setup.h): the counters and timer, the GIC system registers, MIDR/MPIDR as
         * they are, every PMU counter, no FP trap. */
        mov     x1, #HCR_EL2_RW
        msr     hcr_el2, x1
        mrs     x1, cnthctl_el2
        orr     x1, x1, #(CNTHCTL_EL1PCTEN | CNTHCTL_EL1PCEN)
        msr     cnthctl_el2, x1
        msr     cntvoff_el2, xzr
        mrs     x1, midr_el1
        msr     vpidr_el2, x1
        mrs     x1, mpidr_el1
        msr     vmpidr_el2, x1
        mrs     x1, id_aa64pfr0_el1
        ubfx    x1, x1, #PFR0_GIC_SHIFT, #4
        cbz     x1, 1f
        mrs     x1, ICC_SRE_EL2
        orr     x1, x1, #ICC_SRE_SRE
        orr     x1, x1, #ICC_SRE_ENABLE
        msr     ICC_SRE_EL2, x1
        isb
1:      mrs     x1, id_aa64dfr0_el1
        ubfx    x1, x1, #8, #4          /* PMUVer: 0 none, 0xf IMPLEMENTATION DEFINED */
        mov     x2, xzr
        cbz     x1, 2f
        cmp     x1, #0xf
        b.eq    2f
        mrs     x2, pmcr_el0
        ubfx    x2, x2, #PMCR_N_SHIFT, #5 /* MDCR_EL2.HPMN = PMCR_EL0.N, nothing trapped */
2:      msr     mdcr_el2, x2
        mov     x1, #CPTR_EL2_RES1
        msr     cptr_el2, x1
        msr     hstr_el2, xzr
        ldr     x1, =SCTLR_EL1_RES1
        msr     sctlr_el1, x1
        mov     x1, #SPSR_EL1H_MASKED
        msr     spsr_el2, x1
        adr     x1, el1_regime
        msr     elr_el2, x1
        isb
        eret

same_level:
        cmp     x2, #2
        b.ne    el1_regime

        /* EL2: the boot processor's HCR_EL2 (E2H, TGE, routing), virtual counter offset and
         * EL2 regime. */
        ldr     x1, [x0, #SMP_BOOT_HCR]
        msr     hcr_el2, x1
        isb
        ldr     x1, [x0, #SMP_BOOT_CNTVOFF]
        msr     cntvoff_el2, x1
        ldr     x1, [x0, #SMP_BOOT_MAIR]
        msr     mair_el2, x1
        ldr     x1, [x0, #SMP_BOOT_TCR]
        msr     tcr_el2, x1
        ldr     x1, [x0, #SMP_BOOT_TTBR0]
        msr     ttbr0_el2, x1
        ldr     x1, [x0, #SMP_BOOT_HCR]
        tbz     x1, #HCR_EL2_E2H_BIT, 3f
        ldr     x1, [x0, #SMP_BOOT_TTBR1]
        msr     TTBR1_EL2, x1
3:      ldr     x1, [x0, #SMP_BOOT_CPACR]
        msr     cptr_el2, x1
        ldr     x1, [x0, #SMP_BOOT_VBAR]
        msr     vbar_el2, x1
        isb
        ic      iallu
        tlbi    alle2
        dsb     nsh
        isb
        ldr     x1, [x0, #SMP_BOOT_SCTLR]
        msr     sctlr_el2, x1
        isb
        b       run

el1_regime:
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

run:
        ldr     x1, [x0, #SMP_BOOT_SP]
        mov     sp, x1
        mov     x29, xzr
        mov     x30, xzr
        bl      smp_secondary_main
4:      wfe
        b       4b

        /* It cannot reach the boot processor's level: give the processor back at once
         * (CPU_OFF does not return when it succeeds). */
cannot_join:
        ldr     x1, [x0, #SMP_BOOT_SMC]
        ldr     x0, [x0, #SMP_BOOT_PSCI_FN]
        cbz     x1, 5f
        smc     #0
        b       4b
5:      hvc     #0
        b       4b
        .ltorg
        .globl  smp_secondary_entry_end
        .hidden smp_secondary_entry_end
smp_secondary_entry_end:

        .section .note.GNU-stack, "", %progbits
