/* NMI entry for the performance-monitoring interrupt (boot/uefi/x86/uefi_pmi.c routes LVT PMC to NMI).
 * 64-bit interrupt frame, no error code: RIP, CS, RFLAGS, RSP, SS. [SDM-3A] "Exception and
 * Interrupt Handling in 64-bit Mode". An NMI may land anywhere, so every register the SysV
 * C ABI lets the dispatcher clobber is saved, DF is cleared as that ABI requires on entry,
 * and the stack is aligned to 16 bytes for the call; IRETQ restores RFLAGS and ends the
 * NMI-blocked state. The harness is built -mno-red-zone, so the interrupted code keeps
 * nothing below its RSP. pmi_dispatch (boot/uefi/x86/uefi_pmi.c) keeps a fault fixup the NMI
 * interrupted. */

#include "boot/x86/isr_x86_64.inc"

        .text
        .globl pmi_nmi_entry
        .hidden pmi_nmi_entry
pmi_nmi_entry:
        CALL_C_FROM_ISR pmi_dispatch, %rdi
        iretq

        .section .note.GNU-stack,"",@progbits
