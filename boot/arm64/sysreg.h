/** @file
 * AArch64 system-register access: the encodings pmucal uses, plain accessors for registers
 * the architecture guarantees, and the *_safe form for a register that may be missing.
 *
 * MRS/MSR name their register in the instruction, so a register is a token here, not a
 * number: SYSREG_READ(midr_el1), SYSREG_READ(SYS_PMMIR_EL1). Registers GNU as may not know
 * by name (older binutils, optional extensions) are spelled S<op0>_<op1>_C<n>_C<m>_<op2>, the
 * generic encoding every assembler accepts. [ARM-ARM] D23 "AArch64 System Register
 * Descriptions" gives each encoding.
 *
 * SYSREG_READ_SAFE / SYSREG_WRITE_SAFE (boot/arm64/trap.h) run the access under the
 * harness's own exception vectors: an UNDEFINED register (ESR class 0x00 or 0x18) comes back
 * as ST_FAULT with *out = 0 instead of entering the firmware's handler. Not for timed regions.
 */
#ifndef PMUCAL_ARM64_SYSREG_H
#define PMUCAL_ARM64_SYSREG_H

#include <stdint.h>

/* ---- identification [ARM-ARM] D23.2 ---- */
#define SYS_ID_AA64PFR0_EL1  S3_0_C0_C4_0
#define SYS_ID_AA64DFR0_EL1  S3_0_C0_C5_0
#define SYS_ID_AA64ISAR0_EL1 S3_0_C0_C6_0
#define SYS_ID_AA64MMFR0_EL1 S3_0_C0_C7_0
#define SYS_ID_AA64MMFR2_EL1 S3_0_C0_C7_2
#define SYS_PMMIR_EL1        S3_0_C9_C14_6 /* FEAT_PMUv3p4 */
#define SYS_PMSIDR_EL1       S3_0_C9_C9_7  /* FEAT_SPE */
#define SYS_BRBIDR0_EL1      S2_1_C9_C2_0  /* FEAT_BRBE */

/* ---- GICv3 CPU interface [GICv3] §12.11 ---- */
#define SYS_ICC_PMR_EL1      S3_0_C4_C6_0
#define SYS_ICC_IAR1_EL1     S3_0_C12_C12_0
#define SYS_ICC_EOIR1_EL1    S3_0_C12_C12_1
#define SYS_ICC_HPPIR1_EL1   S3_0_C12_C12_2
#define SYS_ICC_CTLR_EL1     S3_0_C12_C12_4
#define SYS_ICC_SRE_EL1      S3_0_C12_C12_5
#define SYS_ICC_IGRPEN1_EL1  S3_0_C12_C12_7
#define SYS_ICC_RPR_EL1      S3_0_C12_C11_3

#define SYSREG_STR_(r) #r
#define SYSREG_STR(r)  SYSREG_STR_(r)

/** Read system register @p reg (a token) on the calling CPU. */
#define SYSREG_READ(reg)                                                                \
        ({                                                                              \
                uint64_t v_;                                                            \
                __asm__ volatile("mrs %0, " SYSREG_STR(reg) : "=r"(v_));                \
                v_;                                                                     \
        })

/** Write @p val to system register @p reg. Callers add isb() where the effect must be seen
 *  by the next instruction ([ARM-ARM] D22.2 "Synchronization requirements"). */
#define SYSREG_WRITE(reg, val)                                                          \
        __asm__ volatile("msr " SYSREG_STR(reg) ", %0" : : "r"((uint64_t)(val)) : "memory")

static inline void isb(void)
{
        __asm__ volatile("isb" ::: "memory");
}

/** The generic timer's virtual count (CNTVCT_EL0, at CNTFRQ_EL0 Hz), ordered against what
 *  comes before and after it: DSB waits for earlier loads to complete, the ISBs keep the read
 *  from being taken early or later instructions from starting before it. [ARM-ARM] D12.1
 *  "About the Generic Timer", D12.2.2 (reads of CNTVCT_EL0 may be out of order without ISB). */
static inline uint64_t cntvct_ordered(void)
{
        uint64_t v;
        __asm__ volatile("dsb ish\n\tisb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v) : : "memory");
        return v;
}

/** Mask IRQ and FIQ (PSTATE.I, F) and return the previous DAIF. [ARM-ARM] C5.2.2 DAIF. */
static inline uint64_t daif_mask(void)
{
        uint64_t d;
        __asm__ volatile("mrs %0, daif\n\tmsr daifset, #3" : "=r"(d) : : "memory");
        return d;
}

static inline void daif_restore(uint64_t d)
{
        __asm__ volatile("msr daif, %0" : : "r"(d) : "memory");
}

#endif
