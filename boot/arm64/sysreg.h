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

#include "lib/base.h"

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
#define SYS_ICC_DIR_EL1      S3_0_C12_C11_1
#define SYS_ICC_SRE_EL2      S3_4_C12_C9_5

/* ---- EL2 [ARM-ARM] D23.2; fields as Linux arch/arm64/include/asm/kvm_arm.h names them ---- */
#define HCR_EL2_E2H          BIT_ULL(34) /* EL2 host: the EL1 register names reach EL2's */
#define HCR_EL2_TGE          BIT_ULL(27)
#define HCR_EL2_RW           BIT_ULL(31) /* EL1 is AArch64 */
#define MDCR_EL2_HPMN_MASK   0x1full     /* event counters EL1/EL0 (and PMCR_EL0.E) own */
#define MDCR_EL2_TPMCR       BIT_ULL(5)
#define MDCR_EL2_TPM         BIT_ULL(6)
#define MDCR_EL2_HPME        BIT_ULL(7)  /* enables the counters from HPMN up */
#define MDCR_EL2_HPMD        BIT_ULL(17) /* FEAT_PMUv3p1: no event counting at EL2 */
#define MDCR_EL2_HCCD        BIT_ULL(23) /* FEAT_PMUv3p5: no cycle counting at EL2 */

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

/** The exception level the calling code runs at (CurrentEL[3:2]). [ARM-ARM] C5.2.1 */
static inline unsigned arm64_current_el(void)
{
        uint64_t v;
        __asm__ volatile("mrs %0, CurrentEL" : "=r"(v));
        return (unsigned)(v >> 2 & 3);
}

/** The register @p name (vbar, sctlr, tcr, ttbr0, mair, ...) of the translation regime the
 *  harness runs in: name_EL2 at EL2 (with or without HCR_EL2.E2H: at EL2 the _EL2 names
 *  always reach EL2's own register), name_EL1 at EL1. An _EL1 register is never read at EL2,
 *  where the firmware does not use it and its value is whatever reset left. */
#define EL_REG_READ(name)                                                               \
        (arm64_current_el() == 2 ? SYSREG_READ(name##_el2) : SYSREG_READ(name##_el1))
#define EL_REG_WRITE(name, val)                                                         \
        do {                                                                            \
                if (arm64_current_el() == 2)                                            \
                        SYSREG_WRITE(name##_el2, val);                                  \
                else                                                                    \
                        SYSREG_WRITE(name##_el1, val);                                  \
        } while (0)

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
