/** @file
 * The other processors on AArch64 without UEFI MP services (AAVMF has none): the harness
 * starts each one itself with PSCI CPU_ON and gives it back with CPU_OFF. The UEFI glue
 * (boot/uefi/uefi_mp.c through boot/uefi/arm64/uefi_arm64.c) turns plat_cpu_info, plat_cpu_start
 * and plat_cpu_join into these calls, so boot/mp.c parks the processors in its mailbox loop
 * exactly as it does through MP services on x86-64.
 *
 * Discovery: the FADT's ARM_BOOT_ARCH names the conduit (HVC or SMC), PSCI_VERSION must
 * answer 0.2 or later (CPU_ON, CPU_OFF and AFFINITY_INFO with the IDs of psci.h), and the
 * MADT's GICC entries list the processors by MPIDR (boot/arm64/psci.h).
 *
 * A started processor enters smp_secondary_entry (boot/arm64/smp_entry_arm64.S) with its MMU
 * and caches off, as PSCI leaves it ([PSCI] §6.4 "CPU_ON"), at the highest exception level
 * below EL3 (TF-A: EL2 when SCR_EL3.HCE is set, lib/psci/psci_common.c; QEMU's own PSCI
 * likewise), and x0 = its struct smp_boot. Before any C code or cached access it takes the
 * boot processor's level and that level's regime: at EL2 HCR_EL2, CNTVOFF_EL2 (so that
 * CNTVCT_EL0 agrees between processors), MAIR_EL2, TCR_EL2, TTBR0_EL2 (and TTBR1_EL2 under
 * HCR_EL2.E2H), CPTR_EL2, VBAR_EL2, SCTLR_EL2; at EL1 the _EL1 set and CPACR_EL1. Entered
 * at EL2 for a boot processor at EL1, it first drops to EL1 (HCR_EL2.RW, EL1 access to the
 * counters, the timer and the GIC system registers, VPIDR/VMPIDR as MIDR/MPIDR, as Linux's
 * init_el2_state does). Entered below the boot processor's level it cannot rise: it calls
 * CPU_OFF at once and smp_cpu_join reports it. Then it takes its own stack, calls fn(arg),
 * and when fn returns says so and calls CPU_OFF. smp_cpu_join waits for that and then for AFFINITY_INFO to report
 * the processor OFF: every processor the harness started is back with the firmware when
 * pmucal leaves. Interrupts stay masked on the secondaries throughout (PSTATE.DAIF as reset
 * leaves it); they never call the firmware.
 */
#ifndef PMUCAL_ARM64_SMP_H
#define PMUCAL_ARM64_SMP_H

/* struct smp_boot offsets, for smp_entry_arm64.S (checked in smp.c). The regime's registers
 * are those of the boot processor's level: _EL1, or _EL2 (CPACR = CPTR_EL2 there). */
#define SMP_BOOT_SCTLR   0
#define SMP_BOOT_TCR     8
#define SMP_BOOT_MAIR    16
#define SMP_BOOT_TTBR0   24
#define SMP_BOOT_TTBR1   32
#define SMP_BOOT_CPACR   40
#define SMP_BOOT_VBAR    48
#define SMP_BOOT_SP      56
#define SMP_BOOT_EL      64 /* the boot processor's CurrentEL >> 2 */
#define SMP_BOOT_HCR     72 /* EL2: HCR_EL2 */
#define SMP_BOOT_CNTVOFF 80 /* EL2: CNTVOFF_EL2 */
#define SMP_BOOT_PSCI_FN 88 /* PSCI CPU_OFF function ID, for a processor that cannot join */
#define SMP_BOOT_SMC     96 /* 1: PSCI over SMC, 0: over HVC */

#ifndef __ASSEMBLER__
#include "boot/arm64/psci.h"
#include "boot/plat.h"

/** Find the conduit, the PSCI version and the processors. ST_OK when the other processors
 *  can be started; otherwise only the boot processor is known and *@p why (static text)
 *  says why not. */
status_t smp_init(const char **why);
/** "PSCI 1.1 over HVC, processors from the MADT" or why not; never NULL. */
const char *smp_method(void);
/** Processors known: the MADT's GICC entries, or 1 (the boot processor) without PSCI. */
unsigned smp_cpu_count(void);
/** Processor @p idx as plat_cpu_info describes it (apic_id: the packed MPIDR affinity). */
status_t smp_cpu_describe(unsigned idx, struct plat_cpu *out);
/** CPU_ON processor @p idx with @p fn(@p arg) to run (plat_cpu_start's contract). */
status_t smp_cpu_start(unsigned idx, void (*fn)(void *arg), void *arg);
/** Wait up to @p timeout_us for fn to return and the processor to be OFF again
 *  (plat_cpu_join's contract). */
status_t smp_cpu_join(unsigned idx, uint32_t timeout_us);

/** True on a processor smp_cpu_start started (not the one running the harness): it runs
 *  with interrupts masked and the harness's vectors throughout, so a measurement window
 *  there only saves and restores DAIF (boot/arm64/pmi.c). */
bool smp_on_secondary(void);

/** Call PSCI function @p fn through @p conduit (SMC Calling Convention: x0 = ID, x1..x3 the
 *  arguments, the result in x0). boot/arm64/psci_call.c. */
int64_t psci_call(enum psci_conduit conduit, uint32_t fn, uint64_t a1, uint64_t a2,
                  uint64_t a3);

/* The secondary entry (smp_entry_arm64.S) and its C side (smp.c). */
struct smp_boot;
extern const char smp_secondary_entry[] __attribute__((visibility("hidden")));
extern const char smp_secondary_entry_end[] __attribute__((visibility("hidden")));
void smp_secondary_main(struct smp_boot *b) __attribute__((visibility("hidden")));
#endif

#endif
