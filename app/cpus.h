/** @file
 * The processors taking part in the run (app/cpus.c): which ones the config chose, which
 * parked, and what each says of itself. Phases that use other CPUs read it and drive them
 * through boot/mp.h.
 */
#ifndef PMUCAL_APP_CPUS_H
#define PMUCAL_APP_CPUS_H

#include "app/run.h"
#include "boot/mp.h"
#include "boot/topology.h"

struct app_cpu {
        enum mp_state       state;
        uint32_t            fw_apic;    /* what MP services says */
        bool                described;  /* topo is the CPU's own word */
        struct cpu_topology topo;
        int                 node;       /* SRAT proximity domain; -1 unknown */
        status_t            ud_st, pmc_st; /* its own deliberate #UD (ud2) and rdpmc fault */
        unsigned            ud_vec, pmc_vec;
        unsigned            el;         /* AArch64: the exception level it runs at; 0 on x86 */
};

struct app_cpus {
        unsigned       n;               /* processors the platform knows (capped) */
        unsigned       n_taking_part;   /* BSP + parked APs */
        struct app_cpu cpu[MP_MAX_CPUS];
};

/** Park the chosen processors, describe them, check them, write processors.json. */
status_t phase_cpus(struct run *r);
/** What phase_cpus found (all zero before it ran). */
const struct app_cpus *app_cpus_get(void);
/** Park the processors the config chose (the phases that use other CPUs call it first);
 *  their states in app_cpus_get() are updated. */
status_t app_cpus_park(const struct run *r);
/** True when the CPU is emulated (QEMU TCG): every memory access costs what the emulator
 *  makes it cost, so figures are reported as the emulator's and no check fails for them. */
bool app_cpus_emulated(const struct run *r);
/** On the calling processor: raise a #UD (ud2) and an RDPMC of a counter no CPU has under
 *  this processor's own fault fixup and record the outcomes in @p c (app/x86/gather.c;
 *  ST_UNSUPPORTED on an architecture without these probes); on AArch64 record the
 *  exception level it runs at in c->el. */
void app_cpus_fault_self(struct app_cpu *c);
/** Arm: replace the MPIDR_EL1 guesses of the described processors in @p cs by the PPTT's
 *  topology (app/cpus_pptt.c); WARN when there is no usable PPTT. No-op on x86. */
void app_cpus_topology_from_pptt(struct app_cpus *cs, const struct inventory *inv);
/** Return every parked AP to the platform (idempotent). */
void app_cpus_release(void);

#endif
