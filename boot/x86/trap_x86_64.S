/* #UD and #GP entry stubs for the harness's IDT (see boot/x86/trap.h).
 * 64-bit interrupt frame: [error code,] RIP, CS, RFLAGS, RSP, SS. [SDM-3A] "Exception and
 * Interrupt Handling in 64-bit Mode". #GP pushes an error code, #UD does not. */

#include "boot/x86/isr_x86_64.inc"

        .section .data
        .balign 8
        .globl trap_fixup_rip, trap_vector, trap_n_recovered, trap_orig_ud, trap_orig_gp
        .hidden trap_fixup_rip, trap_vector, trap_n_recovered, trap_orig_ud, trap_orig_gp
trap_fixup_rip:   .quad 0
trap_n_recovered: .quad 0
trap_orig_ud:     .quad 0
trap_orig_gp:     .quad 0
trap_vector:      .long 0
                  .long 0

        .text
/* Fixed-up path: resume at trap_fixup_rip. \rip_off is the RIP slot after `push %rax`. */
.macro FIXUP vec, rip_off
        push    %rax
        movl    $\vec, trap_vector(%rip)
        incq    trap_n_recovered(%rip)
        movq    trap_fixup_rip(%rip), %rax
        movq    %rax, \rip_off(%rsp)
        movq    $0, trap_fixup_rip(%rip)
        pop     %rax
.endm

/* Unexpected fault: report it from C on an aligned stack, then chain to the firmware. */
.macro UNEXPECTED vec, orig
        CALL_C_FROM_ISR trap_unexpected, %rsi, $\vec
        jmp     *\orig(%rip)
.endm

        .globl trap_ud_entry
        .hidden trap_ud_entry
trap_ud_entry:
        cmpq    $0, trap_fixup_rip(%rip)
        je      1f
        FIXUP   6, 8
        iretq
1:      UNEXPECTED 6, trap_orig_ud

        .globl trap_gp_entry
        .hidden trap_gp_entry
trap_gp_entry:
        cmpq    $0, trap_fixup_rip(%rip)
        je      1f
        FIXUP   13, 16
        addq    $8, %rsp                /* drop the error code */
        iretq
1:      UNEXPECTED 13, trap_orig_gp

        .section .note.GNU-stack,"",@progbits
