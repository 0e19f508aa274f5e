/** @file
 * Recovering from #GP and #UD raised by an instruction that probes the hardware.
 *
 * While the harness runs, boot/ installs its own IDT (a copy of the firmware's with vectors
 * 6 and 13 replaced, boot/x86/trap_x86_64.S). Before a probing instruction, the caller stores the
 * address to resume at in its own processor's slot (trap_cpu_self()->fixup_rip); if the
 * instruction faults, the handler finds the slot of the processor it runs on (by the APIC ID
 * that processor's CPUID reports), records the vector there, clears the fixup and resumes at
 * it. A fault with no fixup armed on that processor is a real crash: it is reported
 * (trap_unexpected) and handed to the firmware's own handler. The idea is kvm-unit-tests'
 * ASM_TRY, with a per-site store instead of an exception table so that it works unchanged in a
 * PIC image relocated by the firmware.
 *
 * The slots are per processor so that application processors, which load the harness's IDT
 * when they park (trap_load_on_this_cpu()), probe at the same time as the BSP and as each
 * other: one processor's fault never resumes at another's fixup. Finding the slot costs a
 * CPUID, which is why the *_safe accessors stay out of timed code.
 */
#ifndef PMUCAL_TRAP_H
#define PMUCAL_TRAP_H

#include <stdbool.h>
#include <stdint.h>

#define TRAP_HIDDEN __attribute__((visibility("hidden")))

#define TRAP_VEC_UD   6
#define TRAP_VEC_GP   13
#define TRAP_MAX_CPUS 256u /* as many as boot/mp.h drives */

/** One processor's fixup state, alone in its cache line. */
struct trap_cpu {
        _Alignas(64) volatile uint64_t owner; /* APIC ID + 1; 0 = free */
        volatile uint64_t fixup_rip;          /* address to resume at; 0 = not armed */
        volatile uint32_t vector;             /* last recovered fault (6, 13); 0 = none */
        volatile uint64_t n_recovered;
};

extern struct trap_cpu trap_cpus[TRAP_MAX_CPUS] TRAP_HIDDEN;
/** Faults recovered on every processor since trap_install(). */
extern volatile uint64_t trap_n_recovered TRAP_HIDDEN;

/** The calling processor's APIC ID from its own CPUID (boot/x86/trap_self.c; the tests
 *  answer for their thread "processors"). */
uint32_t trap_self_id(void);
/** The calling processor's slot, claimed on first use; NULL when every slot is taken (the
 *  *_safe accessors then report ST_UNSUPPORTED). */
struct trap_cpu *trap_cpu_self(void);
/** The calling processor's slot if it has one (never claims: for the handlers). */
struct trap_cpu *trap_cpu_find(void);
/** Forget every slot (trap_install, with only the BSP running). */
void trap_cpus_reset(void);
/** The C half of the #UD/#GP handlers: when the calling processor has a fixup armed, take it
 *  (record @p vector, count it, disarm), write it as the resume RIP into the CPU-pushed
 *  @p frame ([error code,] RIP, ...) and return 1; else 0 (an unexpected fault). */
uint64_t trap_fault_fixup(uint64_t vector, uint64_t *frame);

/** Install the harness's IDT (copy of the current one with #UD/#GP replaced) on this CPU.
 *  The table is static, so it always can: returns true. */
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
