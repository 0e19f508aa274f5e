/** @file
 * CPU access that depends on the architecture as well as the environment: masking interrupts
 * for a measurement window, switching to the harness's own page tables, routing the
 * performance-monitoring interrupt and checking that route, and deliberately faulting to prove
 * the fault recovery. The environment interface (files, memory, firmware tables, processors,
 * time) is boot/plat.h; this header is its CPU-level companion. Implemented per environment
 * and architecture: boot/uefi/ on x86-64 (uefi_excl.c, uefi_mem.c, uefi_pmi.c), boot/linux/
 * linux_cpu.c (hosted: nothing of it is possible, every call says so), tests/fake_plat.c.
 * Portable: only <stdint.h>, <stddef.h>, <stdbool.h>; no UEFI types.
 */
#ifndef PMUCAL_BOOT_CPU_H
#define PMUCAL_BOOT_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"

/* ---- exclusive control ----------------------------------------------------------------- */

/** Enter a measurement window: raise to TPL_HIGH_LEVEL and mask interrupts (hosted: nothing
 *  that can be done; returns false). Returns true when interrupts really are masked.
 *  Pair with cpu_irq_restore(@p *saved). */
bool cpu_irq_disable(uint64_t *saved);
void cpu_irq_restore(uint64_t saved);

/* ---- page tables ---------------------------------------------------------------------- */

/** Load @p root_pa (a PML4 built by bench/x86/pagetable.c) into CR3, saving the current CR3 in
 *  @p *saved. Only inside a window with interrupts masked (cpu_irq_disable), and always
 *  paired with cpu_page_tables_restore before the window ends. ST_UNSUPPORTED hosted. */
status_t cpu_page_tables_load(uint64_t root_pa, uint64_t *saved);
/** Put back the CR3 saved by cpu_page_tables_load (flushes non-global TLB entries). */
void cpu_page_tables_restore(uint64_t saved);

/* ---- performance-monitoring interrupt --------------------------------------------------- */

/** What the CPU pushed when the PMI arrived. */
struct cpu_pmi_frame {
        uint64_t rip, cs, rflags, rsp;
};

/** Called for each PMI, in interrupt context with interrupts masked, on the CPU that took it.
 *  It must not print or allocate; the platform sends the local APIC EOI (none is due for
 *  NMI delivery) and unmasks the LVT entry after it returns. Every NMI that arrives while
 *  the route is enabled reaches @p fn: tell a PMI by the overflow status. */
typedef void (*cpu_pmi_fn)(const struct cpu_pmi_frame *frame, void *ctx);

/** Route the local APIC's performance-counter interrupt (LVT PMC, APIC offset 0x340; xAPIC
 *  or x2APIC, whichever the firmware enabled) to @p fn through a vector of the harness's own
 *  IDT. The UEFI build delivers it as an NMI (IDT vector 2), as Linux does, so that a PMI
 *  arrives inside measurement windows run at TPL_HIGH_LEVEL with IF = 0 (boot/uefi/x86/uefi_pmi.c
 *  says why). When @p ext_lvt_offset >= 0, AMD's extended LVT entry of that offset (APIC
 *  0x500 + 0x10 * offset, used by IBS) is routed too. The previous LVT values and IDT entry
 *  are saved. BSP only; one route at a time (ST_BAD_ARG while one is enabled).
 *  ST_UNSUPPORTED where there is no local APIC or no own IDT (hosted). */
status_t cpu_pmi_enable(cpu_pmi_fn fn, void *ctx, int ext_lvt_offset);
/** Restore the LVT entries and the IDT vector cpu_pmi_enable changed. */
void cpu_pmi_disable(void);
/** With the route enabled, send this CPU an NMI through the local APIC's ICR and wait for the
 *  handler: checks the entry path where no PMU can raise a PMI (QEMU TCG). @p fn is called
 *  once with the frame. *@p tsc_round_trip: TSC ticks from the ICR write to the return from
 *  the handler. ST_TIMEOUT when it never arrived; ST_UNSUPPORTED hosted. */
status_t cpu_pmi_selftest(uint64_t *tsc_round_trip);

/* ---- fault recovery self-test ---------------------------------------------------------- */

enum cpu_fault_probe {
        CPU_PROBE_UD2,              /* ud2: #UD */
        CPU_PROBE_GP_NONCANONICAL,  /* load from a non-canonical address: #GP */
        CPU_PROBE_GP_CR4_LA57,      /* toggle CR4.LA57 in 64-bit mode: #GP */
        CPU_PROBE_UNHANDLED_UD2,    /* ud2 with no fixup armed: the crash path; no return
                                      * under QEMU (exit status 4), the firmware's handler on
                                      * hardware */
        CPU_PROBE__COUNT
};

/** Deliberately raise the fault @p kind under the harness's fixup and recover. ST_OK with the
 *  vector it caught in @p *vector; ST_FAULT if nothing faulted (the emulator or CPU let it
 *  through); ST_UNSUPPORTED where the platform cannot recover faults (hosted build) or the
 *  probe does not apply to this CPU (CR4.LA57 without 5-level paging support). */
status_t cpu_fault_probe(enum cpu_fault_probe kind, unsigned *vector);

#endif
