/** @file
 * AArch64 exception vectors of the harness: synchronous exceptions recovered through a
 * per-site fixup (so probing a missing system register is "unsupported", never a hang) and
 * the PMU overflow interrupt dispatched to a handler, the AArch64 counterpart of the x86
 * #UD/#GP handlers and NMI route.
 *
 * The vectors (boot/arm64/trap_arm64.S) are in VBAR_ELx only inside a probe or a measurement
 * window, with IRQ and FIQ masked or (sampling) every interrupt but the PMU's held back by
 * the GIC priority mask; the firmware's VBAR_ELx is put back when the window ends, so its
 * timer and device interrupts are never seen by the harness. An exception nobody expects is
 * reported through the platform's handler given to trap_vectors_install(); if that returns, the firmware's vectors are put back and
 * the exception is taken again there, with every register as it was (an eret to the
 * faulting instruction; for an IRQ, the still-pending interrupt). The per-site fixup is
 * kvm-unit-tests' ASM_TRY idea with a store instead of a table, so that it works unchanged in
 * an image the firmware relocated. [ARM-ARM] D1.3 "Exception entry", D1.10.2 vector offsets.
 *
 * Runs at EL1 or EL2, whichever the firmware started the application at (Arm's BBR: "systems
 * must boot UEFI at EL2"; QEMU's virt machine without virtualization=on, and firmware that
 * hosts nothing, run it at EL1): x = that level in VBAR_ELx, ESR_ELx and the rest. At EL2
 * the _EL2 registers are used whether HCR_EL2.E2H is set or not.
 */
#ifndef PMUCAL_ARM64_TRAP_H
#define PMUCAL_ARM64_TRAP_H

/* Frame offsets, for trap_arm64.S (checked against the struct in trap.c). */
#define TRAP_FRAME_ELR   (31 * 8)
#define TRAP_FRAME_SPSR  (32 * 8)
#define TRAP_FRAME_ESR   (33 * 8)
#define TRAP_FRAME_FAR   (34 * 8)
#define TRAP_FRAME_SP    (35 * 8)
#define TRAP_FRAME_BYTES (36 * 8)

/* What the vector entry was (first argument of trap_dispatch). */
#define TRAP_KIND_SYNC  0
#define TRAP_KIND_IRQ   1
#define TRAP_KIND_OTHER 2 /* FIQ, SError, anything from a lower EL */

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stdint.h>

#include "boot/arm64/sysreg.h"
#include "lib/status.h"

#define TRAP_HIDDEN __attribute__((visibility("hidden")))

/** Registers as the vector saved them; elr is where the exception returns to. */
struct trap_frame {
        uint64_t x[31];
        uint64_t elr, spsr, esr, far, sp;
};

/* ESR_ELx.EC values [ARM-ARM] D23.2.43. */
#define ESR_EC_SHIFT   26
#define ESR_EC_UNKNOWN 0x00 /* UNDEFINED instruction, HLT without semihosting */
#define ESR_EC_SYSREG  0x18 /* trapped MSR/MRS/system instruction */
#define ESR_EC_DABT    0x25 /* data abort, same EL */
#define ESR_EC_BRK     0x3c

/** Address to resume at if the next instruction faults; 0 = not armed. */
extern volatile uint64_t trap_fixup_pc TRAP_HIDDEN;
/** ESR_ELx of the last recovered fault with bit 63 set (so that it is never 0); 0 = none
 *  since trap_probe_begin. */
extern volatile uint64_t trap_fault_esr TRAP_HIDDEN;
/** Faults recovered since boot. */
extern volatile uint64_t trap_n_recovered TRAP_HIDDEN;

/** An exception nobody expected, reported by the platform (boot/uefi/arm64/uefi_arm64.c prints
 *  it and, under QEMU, ends the run with the crash status). Returns to let the vector hand
 *  the exception to the firmware. */
typedef void (*trap_fatal_fn)(uint64_t kind, const struct trap_frame *f);

/** Check the exception level, remember the firmware's VBAR_ELx and @p fatal (NULL: an
 *  unexpected exception goes to the firmware unreported). False (and every probe then
 *  reports ST_UNSUPPORTED) when not at EL1 or EL2. The platform's trap_install() calls it. */
bool trap_vectors_install(trap_fatal_fn fatal);
/** The level trap_vectors_install found (1 or 2); 0 when not installed. */
unsigned trap_el(void);
/** The harness's vector table for the calling CPU's level (trap_vectors or trap_vectors_el2). */
uint64_t trap_vector_base(void);
/** Stop using the harness's vectors (after this, probes report ST_UNSUPPORTED). */
void trap_restore(void);
/** True after a successful trap_vectors_install(). */
bool trap_active(void);

/** State a probe saves: interrupt mask and VBAR. */
struct trap_probe {
        uint64_t daif, vbar;
};
/** Mask interrupts and put the harness's vectors in VBAR_ELx for one probing access. */
void trap_probe_begin(struct trap_probe *p);
/** Restore what trap_probe_begin changed. ST_FAULT (and *out = 0 when @p out is given) if
 *  the access faulted, ST_UNSUPPORTED when trap_vectors_install() failed. */
status_t trap_probe_end(const struct trap_probe *p, uint64_t *out);

/** Put the harness's vectors in VBAR_ELx for a measurement window (interrupts already
 *  masked by the caller); returns the VBAR to give back to trap_window_leave. */
uint64_t trap_window_enter(void);
void trap_window_leave(uint64_t vbar);

/** PMI handler: called in the IRQ vector, after the interrupt was acknowledged and before
 *  its end of interrupt is written; must not print or allocate. */
typedef void (*trap_irq_fn)(const struct trap_frame *f, void *ctx);
/** While set, an IRQ whose highest-priority pending INTID (ICC_HPPIR1_EL1) is @p intid goes
 *  to @p fn; every other IRQ is handed to the firmware. @p fn NULL clears it. @p eoi_split:
 *  ICC_CTLR_EL1.EOImode is 1, so the end of interrupt also writes ICC_DIR_EL1. */
void trap_set_irq(uint32_t intid, bool eoi_split, trap_irq_fn fn, void *ctx);

/** C side of the vectors: returns 0 to resume at f->elr, 1 to hand the exception to the
 *  firmware's vectors. */
uint64_t trap_dispatch(uint64_t kind, struct trap_frame *f) TRAP_HIDDEN;

/** Bases of the harness's vector tables (boot/arm64/trap_arm64.S): EL1 and EL2. */
extern const char trap_vectors[] TRAP_HIDDEN;
extern const char trap_vectors_el2[] TRAP_HIDDEN;

/** Read @p reg under the fault fixup: ST_OK, or ST_FAULT with *(out) = 0 when the access
 *  raised a synchronous exception (register not implemented, or trapped to this EL). */
#define SYSREG_READ_SAFE(reg, out)                                                      \
        ({                                                                              \
                uint64_t v_ = 0;                                                        \
                struct trap_probe p_;                                                   \
                trap_probe_begin(&p_);                                                  \
                __asm__ volatile("adr x16, 1f\n\t"                                      \
                                 "str x16, [%1]\n\t"                                    \
                                 "mrs %0, " SYSREG_STR(reg) "\n\t"                      \
                                 "str xzr, [%1]\n"                                      \
                                 "1:"                                                   \
                                 : "+r"(v_)                                             \
                                 : "r"(&trap_fixup_pc)                                  \
                                 : "x16", "memory");                                    \
                *(out) = v_;                                                            \
                trap_probe_end(&p_, (out));                                             \
        })

/** Write @p val to @p reg under the fault fixup: ST_OK, or ST_FAULT (nothing written). */
#define SYSREG_WRITE_SAFE(reg, val)                                                     \
        ({                                                                              \
                struct trap_probe p_;                                                   \
                trap_probe_begin(&p_);                                                  \
                __asm__ volatile("adr x16, 1f\n\t"                                      \
                                 "str x16, [%1]\n\t"                                    \
                                 "msr " SYSREG_STR(reg) ", %0\n\t"                      \
                                 "str xzr, [%1]\n"                                      \
                                 "1:"                                                   \
                                 :                                                      \
                                 : "r"((uint64_t)(val)), "r"(&trap_fixup_pc)            \
                                 : "x16", "memory");                                    \
                trap_probe_end(&p_, NULL);                                              \
        })

#endif /* __ASSEMBLER__ */
#endif
