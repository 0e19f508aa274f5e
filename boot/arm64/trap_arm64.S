/*
 * The harness's AArch64 exception vector table: 16 entries of 0x80 bytes, 2 KiB aligned
 * ([ARM-ARM] D1.10.2 "Exception vectors"). Every entry saves the whole general-purpose state
 * into a struct trap_frame (boot/arm64/trap.h) below the stack pointer the exception runs on,
 * calls trap_dispatch(kind, frame) and then either returns to frame.elr, or, when
 * trap_dispatch says so, puts the firmware's VBAR back and returns to the very same place,
 * so that the exception is taken again by the firmware with every register intact.
 * C code runs with -mgeneral-regs-only, so the SIMD registers need no saving.
 *
 * Two tables, one per exception level the harness may run at: trap_vectors reads ELR_EL1,
 * SPSR_EL1, ESR_EL1, FAR_EL1 and writes VBAR_EL1; trap_vectors_el2 the _EL2 registers
 * (UEFI at EL2 as Arm's BBR asks, with or without HCR_EL2.E2H; [ARM-ARM] D1.10 "Exception
 * entry": an exception taken from EL2 to EL2 uses ELR_EL2, SPSR_EL2, ESR_EL2, FAR_EL2).
 */
#include "boot/arm64/trap.h"

.macro ventry kind, common
        .balign 0x80
        sub     sp, sp, #TRAP_FRAME_BYTES
        stp     x0, x1, [sp, #0]
        mov     x0, #\kind
        b       \common
.endm

/* One vector table and its common path for exception level \el (1 or 2), named \name. */
.macro trap_table name, el
        .balign 2048
        .globl  \name
        .hidden \name
\name:
        /* current EL with SP_EL0 */
        ventry  TRAP_KIND_SYNC, \name\()_common
        ventry  TRAP_KIND_IRQ, \name\()_common
        ventry  TRAP_KIND_OTHER, \name\()_common
        ventry  TRAP_KIND_OTHER, \name\()_common
        /* current EL with SP_ELx */
        ventry  TRAP_KIND_SYNC, \name\()_common
        ventry  TRAP_KIND_IRQ, \name\()_common
        ventry  TRAP_KIND_OTHER, \name\()_common
        ventry  TRAP_KIND_OTHER, \name\()_common
        /* lower EL, AArch64 */
        ventry  TRAP_KIND_OTHER, \name\()_common
        ventry  TRAP_KIND_OTHER, \name\()_common
        ventry  TRAP_KIND_OTHER, \name\()_common
        ventry  TRAP_KIND_OTHER, \name\()_common
        /* lower EL, AArch32 */
        ventry  TRAP_KIND_OTHER, \name\()_common
        ventry  TRAP_KIND_OTHER, \name\()_common
        ventry  TRAP_KIND_OTHER, \name\()_common
        ventry  TRAP_KIND_OTHER, \name\()_common

\name\()_common:
        stp     x2, x3, [sp, #16]
        stp     x4, x5, [sp, #32]
        stp     x6, x7, [sp, #48]
        stp     x8, x9, [sp, #64]
        stp     x10, x11, [sp, #80]
        stp     x12, x13, [sp, #96]
        stp     x14, x15, [sp, #112]
        stp     x16, x17, [sp, #128]
        stp     x18, x19, [sp, #144]
        stp     x20, x21, [sp, #160]
        stp     x22, x23, [sp, #176]
        stp     x24, x25, [sp, #192]
        stp     x26, x27, [sp, #208]
        stp     x28, x29, [sp, #224]
        str     x30, [sp, #240]
        mrs     x2, elr_el\el
        mrs     x3, spsr_el\el
        stp     x2, x3, [sp, #TRAP_FRAME_ELR]
        mrs     x2, esr_el\el
        mrs     x3, far_el\el
        stp     x2, x3, [sp, #TRAP_FRAME_ESR]
        add     x2, sp, #TRAP_FRAME_BYTES
        str     x2, [sp, #TRAP_FRAME_SP]

        mov     x1, sp
        mov     x29, #0                 /* end of the frame-pointer chain for debuggers */
        bl      trap_dispatch
        cbz     x0, 1f
        /* hand over: the firmware's vectors take the same exception again */
        adrp    x1, trap_fw_vbar
        ldr     x1, [x1, #:lo12:trap_fw_vbar]
        msr     vbar_el\el, x1
        isb
1:
        ldp     x2, x3, [sp, #TRAP_FRAME_ELR]
        msr     elr_el\el, x2
        msr     spsr_el\el, x3
        ldp     x0, x1, [sp, #0]
        ldp     x2, x3, [sp, #16]
        ldp     x4, x5, [sp, #32]
        ldp     x6, x7, [sp, #48]
        ldp     x8, x9, [sp, #64]
        ldp     x10, x11, [sp, #80]
        ldp     x12, x13, [sp, #96]
        ldp     x14, x15, [sp, #112]
        ldp     x16, x17, [sp, #128]
        ldp     x18, x19, [sp, #144]
        ldp     x20, x21, [sp, #160]
        ldp     x22, x23, [sp, #176]
        ldp     x24, x25, [sp, #192]
        ldp     x26, x27, [sp, #208]
        ldp     x28, x29, [sp, #224]
        ldr     x30, [sp, #240]
        add     sp, sp, #TRAP_FRAME_BYTES
        eret
.endm

        .text
        trap_table trap_vectors, 1
        trap_table trap_vectors_el2, 2

        .section .note.GNU-stack, "", %progbits
