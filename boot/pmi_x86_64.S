/* NMI entry for the performance-monitoring interrupt (boot/uefi_pmi.c routes LVT PMC to NMI).
 * 64-bit interrupt frame, no error code: RIP, CS, RFLAGS, RSP, SS. [SDM-3A] "Exception and
 * Interrupt Handling in 64-bit Mode". An NMI may land anywhere, so every register the SysV
 * C ABI lets the dispatcher clobber is saved, DF is cleared as that ABI requires on entry,
 * and the stack is aligned to 16 bytes for the call; IRETQ restores RFLAGS and ends the
 * NMI-blocked state. The harness is built -mno-red-zone, so the interrupted code keeps
 * nothing below its RSP. pmi_dispatch (boot/uefi_pmi.c) keeps a fault fixup the NMI
 * interrupted. */

        .text
        .globl pmi_nmi_entry
        .hidden pmi_nmi_entry
pmi_nmi_entry:
        push    %rax
        push    %rcx
        push    %rdx
        push    %rsi
        push    %rdi
        push    %r8
        push    %r9
        push    %r10
        push    %r11
        push    %rbp
        movq    %rsp, %rbp
        leaq    80(%rsp), %rdi          /* frame as the CPU pushed it: RIP first */
        cld
        andq    $-16, %rsp
        call    pmi_dispatch
        movq    %rbp, %rsp
        pop     %rbp
        pop     %r11
        pop     %r10
        pop     %r9
        pop     %r8
        pop     %rdi
        pop     %rsi
        pop     %rdx
        pop     %rcx
        pop     %rax
        iretq

        .section .note.GNU-stack,"",@progbits
