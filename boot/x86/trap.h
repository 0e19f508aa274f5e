/** @file
 * Recovering from #GP and #UD raised by an instruction that probes the hardware.
 *
 * While the harness runs, boot/ installs its own IDT (a copy of the firmware's with vectors
 * 6 and 13 replaced, boot/x86/trap_x86_64.S). Before a probing instruction, the caller stores the
 * address to resume at in trap_fixup_rip; if the instruction faults, the handler records the
 * vector in trap_vector, clears trap_fixup_rip and resumes there. A fault with no fixup armed is
 * a real crash: it is reported (trap_unexpected) and handed to the firmware's own handler. The
 * idea is kvm-unit-tests' ASM_TRY, with a per-site store instead of an exception table so that
 * it works unchanged in a PIC image relocated by the firmware.
 *
 * Only the bootstrap processor runs with these handlers; application processors keep the
 * firmware's IDT, so the *_safe accessors are for the BSP (and for APs that install the IDT
 * themselves through trap_load_on_this_cpu()).
 */
#ifndef PMUCAL_TRAP_H
#define PMUCAL_TRAP_H

#include <stdbool.h>
#include <stdint.h>

#define TRAP_HIDDEN __attribute__((visibility("hidden")))

/** Address to resume at if the next instruction faults; 0 = not armed. */
extern volatile uint64_t trap_fixup_rip TRAP_HIDDEN;
/** Vector of the last recovered fault (6 = #UD, 13 = #GP); 0 = none. */
extern volatile uint32_t trap_vector TRAP_HIDDEN;
/** Number of faults recovered since trap_install(). */
extern volatile uint64_t trap_n_recovered TRAP_HIDDEN;

/** Install the harness's IDT (copy of the current one with #UD/#GP replaced) on this CPU.
 *  Returns false if it could not allocate the table (then *_safe accessors are unavailable). */
bool trap_install(void);
/** Load the harness's IDT on the calling CPU (an AP running a pmucal procedure). */
void trap_load_on_this_cpu(void);
/** Put the firmware's IDT back on the BSP. */
void trap_restore(void);
/** True between trap_install() and trap_restore(). */
bool trap_active(void);

/** Point vector @p vector of the harness's IDT at @p entry (a 64-bit interrupt gate, DPL 0,
 *  no IST, on the current code segment). False when the IDT is not installed. */
bool trap_set_gate(unsigned vector, void (*entry)(void));
/** Put the firmware's gate for @p vector back into the harness's IDT. */
void trap_restore_gate(unsigned vector);

/** Called (by the assembly stub) for a fault with no fixup armed; @p frame points at the
 *  interrupt frame (error code first for #GP). Prints what happened. Returns to let the stub
 *  chain to the firmware's handler. */
void trap_unexpected(uint64_t vector, const uint64_t *frame);

#endif
