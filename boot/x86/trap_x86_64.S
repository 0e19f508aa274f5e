/* #UD and #GP entry stubs for the harness's IDT (see boot/x86/trap.h).
 * 64-bit interrupt frame: [error code,] RIP, CS, RFLAGS, RSP, SS. [SDM-3A] "Exception and
 * Interrupt Handling in 64-bit Mode". #GP pushes an error code, #UD does not. The fixup is
 * the calling processor's own (trap_fault_fixup finds its slot and rewrites the frame's RIP),
 * so application processors recover their faults as the BSP does. */

#include "boot/x86/isr_x86_64.inc"

        .section .data
        .balign 8
        .globl trap_orig_ud, trap_orig_gp
        .hidden trap_orig_ud, trap_orig_gp
trap_orig_ud:     .quad 0
trap_orig_gp:     .quad 0

        .text
/* Unexpected fault: report it from C on an aligned stack, then chain to the firmware. */
.macro UNEXPECTED vec, orig
        CALL_C_FROM_ISR trap_unexpected, %rsi, $\vec
        jmp     *\orig(%rip)
.endm

        .globl trap_ud_entry
        .hidden trap_ud_entry
trap_ud_entry:
        CALL_C_FROM_ISR trap_fault_fixup, %rsi, $6, 1
        jz      1f
        iretq
1:      UNEXPECTED 6, trap_orig_ud

        .globl trap_gp_entry
        .hidden trap_gp_entry
trap_gp_entry:
        CALL_C_FROM_ISR trap_fault_fixup, %rsi, $13, 1
        jz      1f
        addq    $8, %rsp                /* drop the error code */
        iretq
1:      UNEXPECTED 13, trap_orig_gp

        .section .note.GNU-stack,"",@progbits
